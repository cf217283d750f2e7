//! The single-file commit as one object: a [`SingleFile`] holds the file,
//! its staging names and what it staged so far, and moves through one
//! method per step.
//!
//! One rename is atomic by itself, so a commit that writes one file (the
//! common `multi_edit`) skips the journal and its four fsyncs. It exists
//! beside [`super::transaction`] because it is the most common call, and
//! the journal would double its cost.
//!
//! # Steps
//!
//! 1-2. Lock and verify, as in [`super::Committer::commit_paths`].
//! 3. **Stage** ([`SingleFile::stage`]) beside the file, under fixed names
//!    `.<name>.splice.<role>`: for a backup, `.bak`'s new content
//!    (`bak-tmp`, fsynced) and a hard link to an existing `.bak`
//!    (`bak-undo`); the temp with the new bytes, mode and owner (`tmp`,
//!    fsynced); a hard link to the original (`undo`; a copy when links are
//!    refused). None of the undo names is fsynced by itself: they serve a
//!    live rollback and, with a backup, the sweep (next step).
//! 4. **Rename** ([`SingleFile::rename`]): with a backup, fsync the
//!    directory first (the two renames below may otherwise survive a power
//!    loss one without the other, with no staging name left to say how to
//!    finish); then the `.bak` temp over `.bak`, then the temp over the
//!    file: the commit point.
//! 5. **Commit** ([`SingleFile::commit`]): fsync the directory (two fsyncs
//!    in all without a backup, four with one); then remove the undo names.
//!
//! A failure in step 3, or before the file's rename, removes what was staged
//! ([`SingleFile::discard`]). A failed rename of the file, or a failed fsync
//! of the directory after it, puts the original back from its undo link and
//! the old `.bak` from its own, or removes a `.bak` that did not exist
//! ([`SingleFile::abort`]), so a failed call changes nothing, as on the
//! journaled path. The test hooks fire as on that path (there is no begin
//! and no prepare record, so no [`Phase::Begun`] or [`Phase::Staged`]):
//! [`Phase::Prepared`] after step 3, [`Phase::Renamed`] after each rename,
//! [`Phase::Committed`] after the directory fsync. `scripts/power-loss`
//! names its crash points after the same methods.
//!
//! A crash leaves the file entirely old or entirely new (one rename; it is
//! only reported written after the directory fsync). What a crash can leave
//! besides: the fixed-name temps and undo links (hidden, recognisable, never
//! a partial target), which the next single-file commit of the same file
//! replaces (it holds the file's lock, so no live commit can own them), and
//! which the next commit writing in that directory and `splice recover`
//! finish from their names alone ([`super::sweep`]); and, with a backup,
//! `.bak` already holding the file's current content while the file is
//! still old (the previous `.bak` then survives as
//! `.<name>.splice.bak-undo`). The journaled path never replaces a `.bak`
//! without the file; the single-file path trades that for fewer fsyncs per
//! call.
//!
//! # Power loss, step by step
//!
//! The model is [`super::transaction`]'s. Its staging names are fixed, so
//! [`super::sweep`] reads the state from the names that survive; "±" means
//! the name may or may not have survived, since nothing fsynced it:
//!
//! | lost during / after | durable before it | possible states after reboot | the sweep (next edit in the directory, `splice recover`) |
//! |---|---|---|---|
//! | 3. stage `bak-tmp` (create, write, mode, fsync), `bak-undo` link | nothing | file and `.bak` old; `bak-tmp` ± (empty or short before its fsync), `bak-undo` ± | no `tmp`: remove what is there; all old |
//! | 3. stage `tmp` (create, write, mode, fsync), `undo` link | `bak-tmp`'s bytes | file and `.bak` old; `tmp` ± (short before its fsync), `undo` ± | `tmp` there, or `undo` still the file: roll back (remove all four); else remove the rest; all old |
//! | 4. directory fsync before the renames (backup only) | every staged file's bytes | as above | as above |
//! | 4. renames (`bak-tmp` over `.bak`, `tmp` over the file), until the directory fsync | `tmp`, `bak-tmp` (complete bytes); with a backup every staging name | any subset of the two renames (one directory, unordered until the fsync): (a) neither: all old; (b) `.bak` only: file old, `.bak` new, `tmp` there; (c) file only: file new, `.bak` still the previous backup, `bak-tmp` there; (d) both: all new. Without a backup `undo` ± | (a) roll back; (b) roll back, the previous `.bak` back from `bak-undo`; (c) `tmp` gone: roll forward, `bak-tmp` renamed over `.bak` first; (d) roll forward |
//! | 5. directory fsync done (the call is answered after it) | both renames | file and `.bak` new; `undo`, `bak-undo` ± | roll forward: remove them |
//! | 5. removal of the undo links | both renames | as above | as above |
//!
//! So after a power loss the file is old or new, never torn, and the `.bak`
//! of (b) and (c) is put right by the sweep from the staging names, which
//! the directory fsync before the renames made durable (found by
//! `scripts/power-loss`; before it, (c) lost this edit's backup and (b)
//! could keep the new `.bak`).

use std::ffi::{OsStr, OsString};
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

use super::outcome::{CommitFailure, RollbackOutcome};
use super::settings::{Phase, Settings};
use super::stage::{self, Attrs, Lstat};
use crate::fsio::{FileSnapshot, FsError, FsErrorKind, FsOp};
use crate::sandbox::Dir;

/// The `.bak` of a single-file commit with a backup.
struct Backup {
    /// `<name>.bak`, and its canonical path.
    name: OsString,
    path: PathBuf,
    /// `bak-tmp`: the `.bak`'s new content.
    temp: OsString,
    /// `bak-undo`: a second name for the `.bak` there before, if any.
    undo: OsString,
    /// The `.bak` there before, if any: its identity decides the rollback.
    old: Option<Lstat>,
}

/// What a finished single-file commit leaves.
pub(super) struct Committed {
    /// The `.bak` written, if any.
    pub backup: Option<PathBuf>,
    /// Every staging name is gone (a failed removal leaves one for the
    /// sweep).
    pub clean: bool,
}

/// One single-file commit (see the module docs): each step consumes it and
/// gives it back or, on failure, undoes what it did and gives the
/// [`CommitFailure`]. Dropped half-way (a panic, a crash), its staging names
/// are left for [`super::sweep`], as a crash leaves them.
pub(super) struct SingleFile<'a> {
    settings: &'a Settings,
    dir: &'a Dir,
    name: &'a OsStr,
    path: &'a Path,
    old_bytes: &'a [u8],
    new_bytes: &'a [u8],
    /// The file's mode and owner, given to every staged file.
    attrs: Attrs,
    /// `tmp`: the new content.
    temp: OsString,
    /// `undo`: a second name for the original.
    undo: OsString,
    backup: Option<Backup>,
    /// The names created (or being created) so far, for a rollback.
    staged: Vec<OsString>,
}

impl<'a> SingleFile<'a> {
    /// A commit of `new_bytes` over `snap`'s file (`current`: its metadata
    /// under the lock), keeping the old content as `.bak` with `backup`.
    pub(super) fn new(
        settings: &'a Settings,
        snap: &'a FileSnapshot,
        new_bytes: &'a [u8],
        backup: bool,
        current: &Metadata,
    ) -> SingleFile<'a> {
        let name = snap.name.as_os_str();
        let backup = backup.then(|| {
            let bak = stage::backup_name(name);
            Backup {
                path: snap.dir.path().join(&bak),
                name: bak,
                temp: stage::fixed(name, "bak-tmp"),
                undo: stage::fixed(name, "bak-undo"),
                old: None,
            }
        });
        SingleFile {
            settings,
            dir: &snap.dir,
            name,
            path: &snap.path,
            old_bytes: &snap.bytes,
            new_bytes,
            attrs: Attrs::of(current),
            temp: stage::fixed(name, "tmp"),
            undo: stage::fixed(name, "undo"),
            backup,
            staged: Vec::with_capacity(4),
        }
    }

    /// Step 3: the backup's temp and undo link, the file's temp and undo
    /// link. A failure removes what was staged.
    pub(super) fn stage(mut self) -> Result<SingleFile<'a>, CommitFailure> {
        if let Err(error) = self.stage_all() {
            return Err(self.discard(error));
        }
        self.settings.at(Phase::Prepared);
        Ok(self)
    }

    fn stage_all(&mut self) -> Result<(), FsError> {
        let (dir, durable) = (self.dir, self.settings.durable);
        if let Some(bak) = &mut self.backup {
            let err = |e: io::Error| FsError::from_io(&e, FsOp::Backup, &bak.path);
            bak.old = stage::lstat(dir, &bak.name).map_err(err)?;
            if let Some(l) = &bak.old
                && l.file_type == rustix::fs::FileType::Directory
            {
                // What renaming over it would say, not a generic EIO.
                let kind = FsErrorKind::NotRegularFile("directory");
                return Err(FsError {
                    os_error: Some("EISDIR"),
                    ..FsError::new(kind, FsOp::Backup, &bak.path)
                });
            }
            self.staged.push(bak.temp.clone());
            stage::write_fresh(dir, &bak.temp, self.old_bytes, self.attrs, durable).map_err(err)?;
            if let Some(l) = &bak.old {
                self.staged.push(bak.undo.clone());
                stage::make_undo(dir, &bak.name, &bak.undo, None, l.attrs, false, true)
                    .map_err(err)?;
            }
        }
        let err = |e: io::Error| FsError::from_io(&e, FsOp::Stage, self.path);
        self.staged.push(self.temp.clone());
        stage::write_fresh(dir, &self.temp, self.new_bytes, self.attrs, durable).map_err(err)?;
        self.staged.push(self.undo.clone());
        stage::make_undo(
            dir,
            self.name,
            &self.undo,
            Some(self.old_bytes),
            self.attrs,
            false,
            true,
        )
        .map_err(err)
    }

    /// Step 4: with a backup the directory's fsync, then the `.bak` temp over
    /// `.bak`; then the temp over the file, the commit point. A failure
    /// before the file's rename removes what was staged; a failed rename of
    /// the file also puts the old `.bak` back.
    pub(super) fn rename(self) -> Result<SingleFile<'a>, CommitFailure> {
        let dir = self.dir;
        if let Some(bak) = &self.backup {
            // With a `.bak` the commit is two renames, which a power loss may
            // keep one without the other: make the staging names durable
            // first, so recovery (`sweep`) finds what it needs to finish or
            // undo either (found by scripts/power-loss).
            if self.settings.durable
                && let Err(e) = dir.sync()
            {
                return Err(self.discard(FsError::from_io(&e, FsOp::Sync, dir.path())));
            }
            if let Err(e) = stage::rename(dir, &bak.temp, &bak.name) {
                let error = FsError::from_io(&e, FsOp::Backup, &bak.path);
                return Err(self.discard(error));
            }
            self.settings.at(Phase::Renamed(0));
        }
        if let Err(e) = stage::rename(dir, &self.temp, self.name) {
            let error = FsError::from_io(&e, FsOp::Rename, self.path);
            return Err(self.abort(error, false));
        }
        self.settings
            .at(Phase::Renamed(usize::from(self.backup.is_some())));
        Ok(self)
    }

    /// Step 5: the directory's fsync (the file is only reported written once
    /// its rename is durable; a failure puts the original back), then the
    /// undo names go. Returns the `.bak` written, if any, and whether the
    /// undo names are gone.
    pub(super) fn commit(self) -> Result<Committed, CommitFailure> {
        if self.settings.durable
            && let Err(e) = self.dir.sync()
        {
            // Not durable, so not done: put the original back.
            let error = FsError::from_io(&e, FsOp::Sync, self.dir.path());
            return Err(self.abort(error, true));
        }
        self.settings.at(Phase::Committed);
        // The undo names are only for the rollback above; a crash before
        // this leaves them for the next commit of this file to replace.
        let mut leftovers: Vec<&OsStr> = vec![&self.undo];
        if let Some(bak) = &self.backup
            && bak.old.is_some()
        {
            leftovers.push(&bak.undo);
        }
        let clean = self.remove(&leftovers);
        Ok(Committed {
            backup: self.backup.map(|bak| bak.path),
            clean,
        })
    }

    /// Undoes a commit that failed before the file's rename: removes every
    /// staged name (a `.bak` already renamed is put back by
    /// [`SingleFile::abort`] instead).
    fn discard(&self, error: FsError) -> CommitFailure {
        let cleanup_complete = self.remove(&self.staged);
        CommitFailure::before_renames(Some(0), error, cleanup_complete)
    }

    /// Undoes a commit whose `.bak` was renamed (if it has one) and whose
    /// file was renamed too (`file_renamed`) or failed to be: the original
    /// back from `undo`, the old `.bak` back from `bak-undo` (or a new one
    /// removed), every staged name removed.
    fn abort(&self, error: FsError, file_renamed: bool) -> CommitFailure {
        let dir = self.dir;
        let restored = !file_renamed || stage::rename(dir, &self.undo, self.name).is_ok();
        let restored_bak = match &self.backup {
            None => true,
            Some(bak) => match &bak.old {
                Some(_) => stage::rename(dir, &bak.undo, &bak.name),
                None => stage::remove_if_exists(dir, &bak.name),
            }
            .is_ok(),
        };
        let cleanup_complete = self.remove(&self.staged) && restored_bak && restored;
        if file_renamed {
            let _ = dir.sync();
        }
        CommitFailure {
            failed_index: Some(0),
            error,
            renamed_before_failure: usize::from(file_renamed),
            rollback: RollbackOutcome {
                attempted: file_renamed || self.backup.is_some(),
                restored: usize::from(file_renamed && restored),
                not_restored: if restored { Vec::new() } else { vec![0] },
                cleanup_complete,
            },
        }
    }

    /// Removes `names` if they exist; false if any removal failed.
    fn remove(&self, names: &[impl AsRef<OsStr>]) -> bool {
        let mut clean = true;
        for n in names {
            let n = n.as_ref();
            if let Err(e) = stage::remove_if_exists(self.dir, n) {
                tracing::warn!(error = %e, name = ?n, "could not remove a staged file");
                clean = false;
            }
        }
        clean
    }
}
