//! The journaled commit as one object: a [`Transaction`] holds the plan,
//! the journal, the directories it created, what it staged and how far its
//! renames got, and moves through one method per step of the protocol.
//!
//! It exists so that the durability argument reads in one place: each step
//! below is one method, each failure is one of two (discard before the
//! prepare record, abort after it), and the tables at the end say what a
//! crash or a power loss during each step leaves and how recovery ends it.
//! The test hooks ([`Phase`]) fire at the end of the steps they name:
//! [`Phase::Begun`] after step 3, [`Phase::Staged`] after step 4,
//! [`Phase::Prepared`] after step 5, [`Phase::Renamed`] after each rename of
//! step 6, [`Phase::Committed`] after step 7's record. `scripts/power-loss`
//! names its crash points after the same methods.
//!
//! # Steps
//!
//! Steps 1 and 2 (lock, verify) are [`super::Committer::commit_paths`]'s; a
//! transaction starts once every file is locked and verified.
//!
//! 3. **Begin** ([`Transaction::begin`]) the journal
//!    (`<journal_dir>/<id>.journal`): every target, the temp name that will
//!    replace it and an undo name for its original, fsynced with its
//!    directory *before any of those names exist*.
//! 4. **Stage** ([`Transaction::stage`]), beside each target: the temp file
//!    with the new bytes, the target's mode (and owner, when root), fsynced;
//!    the undo name, a hard link to the original inode (a fsynced copy when
//!    links are refused, e.g. on immutable files); for backups,
//!    `<file>.bak`'s new content as another temp, and an undo name for an
//!    existing `.bak`. Then fsync every directory.
//! 5. **Prepare** ([`Transaction::prepare`]): append the inode numbers of
//!    every temp and original to the journal, fsync.
//! 6. **Rename** ([`Transaction::rename`]) every temp over its target (for a
//!    file with a backup: the `.bak` first, then the file), then fsync every
//!    directory.
//! 7. **Commit** ([`Transaction::commit`]): append `committed` to the
//!    journal, fsync. This is the point of no return. Then remove the undo
//!    names and the journal.
//!
//! A failure before step 5 removes what was staged
//! ([`Transaction::discard`]). A failure in steps 5-7 rolls back
//! ([`Transaction::abort`]): each target whose inode is its temp's gets its
//! undo name renamed back over it (a `.bak` that did not exist before is
//! removed), in reverse order; every temp is removed. A failed call
//! therefore leaves no temp, no undo name and no new or changed `.bak`: an
//! existing `.bak` is replaced only by a commit that succeeds, because its
//! replacement is one of the transaction's renames. If cleanup itself fails
//! (say, the file system went read-only), the journal is kept and
//! [`super::Committer::recover`] finishes the job later.
//!
//! # Creations, deletions and moves
//!
//! [`super::Committer::commit_paths`] generalises the above to any set of
//! [`PathChange`]s: each path goes from a *before* (an existing file as
//! read, or absent) to an *after* (new bytes, or absent). An edit is
//! present to present, a creation absent to present (present to present
//! when it replaces a file whose hash the caller gave: an edit), a deletion
//! present to absent, and a move a deletion of its source plus a creation
//! at its destination with the source's mode. Undoing a committed
//! transaction is a transaction with the two sides swapped. Anything but
//! edits goes through the journal (even alone); in the steps above:
//!
//! - **Lock**: the in-process table takes every path; only existing files
//!   are `flock`ed (an absent path has no inode). **Verify** checks that a
//!   path to create is still absent.
//! - **Begin** records a deletion as `D` (target, an unused temp name, the
//!   undo name), a creation as `F` like an edit, and lists the directories
//!   the transaction creates (`create_parents`), outermost first (a `v2`
//!   journal; without deletions or directories it stays `v1`).
//! - **Stage** creates those directories (recorded before they exist, so a
//!   crash removes them), a creation's temp (mode and owner of the moved
//!   file, else 0666 less the umask) and, for a deletion, the undo link to
//!   the file (fsynced like a temp: it is the only copy after the unlink).
//! - **Rename**: a creation is `renameat2(RENAME_NOREPLACE)`, so a file
//!   another process created meanwhile is never replaced (the transaction
//!   rolls back with [`FsErrorKind::AlreadyExists`]); a deletion is an
//!   `unlinkat` of the target (its undo name keeps the inode).
//! - **Roll back** (live or by recovery): a created target holding its
//!   temp's inode is removed; a deleted target that is gone gets its undo
//!   name back; then the created directories are removed, innermost first,
//!   when empty (one another writer put something in is left, with a
//!   warning). **Committed**: only the undo names are removed.
//! - A journal that reads as only begun while a deletion's undo name exists
//!   and its target is gone lost its later records: as for edits, recovery
//!   touches nothing and keeps the journal for a human.
//!
//! # Crash recovery, and why it is safe
//!
//! [`super::Committer::recover`] reads every journal no live process holds locked and
//! applies one rule: **committed rolls forward, anything else rolls back.**
//!
//! - *Begun, not prepared*: no rename can have happened (renames start after
//!   the prepare record is durable). Remove the temps and undo names; every
//!   name a crashed staging could have created is in the begun record, which
//!   was durable before the first of them was created.
//! - *Prepared, not committed*: some prefix of the renames happened. Every undo
//!   name and temp is complete and durable (fsynced files and directories before
//!   the prepare record), so rolling back by inode as above restores the entire
//!   set to its old content, whichever renames happened and whether or not they
//!   reached the disk.
//! - *Committed*: the record is written only after every rename and every
//!   directory fsync, so all new contents are durable. Only the undo names
//!   remain to be removed.
//!
//! Rolling back takes the files' locks first, as a commit does, so it never
//! interleaves with a live commit of another process (if a lock stays held past
//! the timeout the transaction is [`super::RecoveryOutcome::Deferred`]). Until recovery
//! runs, a crashed transaction's already-renamed files are visible to readers:
//! run [`super::Committer::recover`] at start-up, before serving.
//!
//! Every recovery step is idempotent (a rename of an undo name that is already
//! gone is skipped by the inode check; removals of missing names succeed), so an
//! interrupted recovery is finished by the next one. Journal records end in a
//! checksum; a torn record counts as not written, which is always the safe
//! reading: a torn `prepared` means no rename started; a torn `committed` means
//! the call never reported success, and rolling back is allowed.
//!
//! # Power loss, step by step
//!
//! A process crash keeps everything the kernel accepted; a power loss keeps
//! only what an fsync made durable, and a file system may persist the
//! undurable rest in any order (the ALICE and CrashMonkey papers' model:
//! between two fsyncs, any subset of the metadata operations of the same
//! directory may survive, appends may be torn). What each step of the
//! journaled path allows after a power loss:
//!
//! | lost during / after | durable before it | possible states after reboot | recovery |
//! |---|---|---|---|
//! | 3. begin (journal write, fsync, rename, journal-dir fsync) | nothing | no journal, or a hidden `.journal.tmp`, or a complete `begin` | tmp removed (dead pid); `begin` → discard |
//! | 4. staging (temp writes and fsyncs, undo links, dir fsyncs) | `begin` | any subset of temps (maybe empty or short: not fsynced yet) and undo links | begun → remove every name `begin` lists |
//! | 5. prepare (append, fsync) | every temp and undo name, fsynced, dirs fsynced | `prepared` torn (checksum fails: read as begun) or complete | begun → discard; prepared → roll back by inode |
//! | 6. renames, then dir fsyncs | `prepared` | any subset of the renames (in any order: not yet fsynced) | roll back: each target holding its temp's inode gets its undo name back |
//! | 7. commit (append, fsync) | every rename, dirs fsynced | `committed` torn (read as prepared) or complete | prepared → roll back (the call never reported success); committed → remove undo names |
//! | cleanup (unlinks of the undo names, dir fsyncs, journal removal) | `committed` | any subset of the undo names, with the journal; no journal only once their removal is durable | committed → remove the rest |

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::{self, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::change::{Before, PathChange};
use super::journal::{self, Journal, Record, Replacement, Role, Staged};
use super::outcome::{CommitFailure, CommitReport, RollbackOutcome, fail};
use super::recovery::{self, CreatedDir, Leftovers};
use super::settings::{Phase, Settings};
use super::stage::{self, Attrs};
use crate::fsio::{self, FsError, FsErrorKind, FsOp, file_id};
use crate::sandbox::Dir;

/// A failed step: the change it failed on (`None`: the transaction's own
/// journal or a directory several changes share) and what went wrong.
type StepError = (Option<usize>, FsError);

/// One replacement before the directories it needs exist: its directory is
/// an existing one's handle, or the canonical path of one this transaction
/// creates.
struct Slot {
    role: Role,
    parent: PathBuf,
    dir: Option<Arc<Dir>>,
    target: OsString,
    temp: OsString,
    undo: OsString,
}

/// What a transaction will write, worked out before anything is.
struct Plan {
    /// Every replacement, in rename order (a `.bak` before its file).
    slots: Vec<Slot>,
    /// Directories to create, outermost first, with the change that needs
    /// each first.
    new_dirs: Vec<(PathBuf, usize)>,
    /// The handles of the directories the new ones are made in, by
    /// canonical path; each created directory's joins them.
    dirs: BTreeMap<PathBuf, Arc<Dir>>,
}

impl Plan {
    /// The replacements of `changes[i]` for every `i` in `writes`: an edit
    /// is its file (after its `.bak`, with a backup), a deletion its target,
    /// a creation its target in a directory that may not exist yet.
    fn new(changes: &[PathChange], writes: &[usize]) -> Plan {
        let mut plan = Plan {
            slots: Vec::new(),
            new_dirs: Vec::new(),
            dirs: BTreeMap::new(),
        };
        let slot = |role, parent: &Path, dir: Option<&Arc<Dir>>, name: &OsString| Slot {
            role,
            parent: parent.to_path_buf(),
            dir: dir.cloned(),
            target: name.clone(),
            temp: stage::sibling(name, "tmp"),
            undo: stage::sibling(name, "undo"),
        };
        for &i in writes {
            let c = &changes[i];
            match (&c.before, &c.after) {
                (Before::Present(snap), Some(_)) => {
                    if c.backup {
                        plan.slots.push(Slot {
                            role: Role::Backup(i),
                            parent: snap.dir.path().to_path_buf(),
                            dir: Some(snap.dir.clone()),
                            temp: stage::sibling(&snap.name, "bak.tmp"),
                            undo: stage::sibling(&snap.name, "bak.undo"),
                            target: stage::backup_name(&snap.name),
                        });
                    }
                    let parent = snap.dir.path();
                    plan.slots
                        .push(slot(Role::File(i), parent, Some(&snap.dir), &snap.name));
                }
                (Before::Present(snap), None) => {
                    let parent = snap.dir.path();
                    plan.slots
                        .push(slot(Role::Delete(i), parent, Some(&snap.dir), &snap.name));
                }
                (Before::Absent(a), Some(_)) => {
                    let mut p = a.dir.path().to_path_buf();
                    plan.dirs.insert(p.clone(), a.dir.clone());
                    for m in &a.missing {
                        p.push(m);
                        if !plan.new_dirs.iter().any(|(d, _)| *d == p) {
                            plan.new_dirs.push((p.clone(), i));
                        }
                    }
                    let dir = a.missing.is_empty().then_some(&a.dir);
                    plan.slots.push(slot(Role::File(i), &p, dir, &a.name));
                }
                (Before::Absent(_), None) => {}
            }
        }
        plan.new_dirs.sort_by_key(|(d, _)| d.components().count());
        plan
    }

    /// What the journal's `begin` record lists.
    fn records(&self) -> Vec<Record> {
        self.slots
            .iter()
            .map(|s| Record {
                role: s.role,
                target: s.parent.join(&s.target),
                temp: s.parent.join(&s.temp),
                undo: s.parent.join(&s.undo),
            })
            .collect()
    }

    fn dir_paths(&self) -> Vec<PathBuf> {
        self.new_dirs.iter().map(|(d, _)| d.clone()).collect()
    }
}

/// One journaled transaction: the steps of the module docs, in order, each
/// consuming it and giving it back (or, on failure, undoing what it did and
/// giving the [`CommitFailure`]). Dropped without [`Transaction::commit`],
/// [`Transaction::discard`] or [`Transaction::abort`] (a panic, a crash) it
/// leaves everything to recovery, as a crash does.
pub(super) struct Transaction<'a> {
    settings: &'a Settings,
    changes: &'a [PathChange],
    journal: Journal,
    plan: Plan,
    /// Directories created so far (removed again by a rollback).
    created: Vec<CreatedDir>,
    /// The plan's replacements once their directories exist (step 4).
    replacements: Vec<Replacement>,
    /// What staging produced, one per replacement.
    staged: Vec<Staged>,
    /// Edited files (not `.bak`s) renamed or unlinked so far.
    renamed_files: usize,
}

impl<'a> Transaction<'a> {
    /// Step 3: plans the replacements of `changes[i]` for each `i` in
    /// `writes` and makes the journal's `begin` record durable before any of
    /// the names it lists exists.
    pub(super) fn begin(
        settings: &'a Settings,
        changes: &'a [PathChange],
        writes: &[usize],
    ) -> Result<Transaction<'a>, CommitFailure> {
        let plan = Plan::new(changes, writes);
        let journal = begin_journal(settings, &plan.records(), &plan.dir_paths()).map_err(|e| {
            fail(
                None,
                FsError::from_io(&e, FsOp::Journal, &settings.journal_dir),
            )
        })?;
        settings.at(Phase::Begun);
        Ok(Transaction {
            settings,
            changes,
            journal,
            plan,
            created: Vec::new(),
            replacements: Vec::new(),
            staged: Vec::new(),
            renamed_files: 0,
        })
    }

    /// Step 4: creates the missing directories (recorded in `begin`, so a
    /// crash from here on removes them), stages every replacement (`current`:
    /// each change's file as locked, `None` for a path to create), then
    /// fsyncs every directory. A failure discards the transaction.
    pub(super) fn stage(
        mut self,
        current: &[Option<Metadata>],
    ) -> Result<Transaction<'a>, CommitFailure> {
        match self.stage_all(current) {
            Ok(()) => {
                self.settings.at(Phase::Staged);
                Ok(self)
            }
            Err((index, error)) => Err(self.discard(index, error)),
        }
    }

    fn stage_all(&mut self, current: &[Option<Metadata>]) -> Result<(), StepError> {
        self.make_dirs()?;
        let Plan { slots, dirs, .. } = &mut self.plan;
        self.replacements = std::mem::take(slots)
            .into_iter()
            .map(|s| Replacement {
                role: s.role,
                dir: s
                    .dir
                    .or_else(|| dirs.get(&s.parent).cloned())
                    .expect("every missing directory was created above"),
                target: s.target,
                temp: s.temp,
                undo: s.undo,
            })
            .collect();
        self.staged.reserve(self.replacements.len());
        for rep in &self.replacements {
            let i = rep.role.index();
            let staged = stage_one(
                rep,
                &self.changes[i],
                current[i].as_ref(),
                self.settings.durable,
            )
            .map_err(|e| (Some(i), e))?;
            self.staged.push(staged);
        }
        self.sync_dirs().map_err(|e| (None, e))
    }

    /// Creates the plan's missing directories, outermost first, each made
    /// durable in its parent.
    fn make_dirs(&mut self) -> Result<(), StepError> {
        let Plan { new_dirs, dirs, .. } = &mut self.plan;
        for (path, i) in new_dirs.iter() {
            let err = |e: io::Error| (Some(*i), FsError::from_io(&e, FsOp::Stage, path));
            let parent = dirs
                .get(path.parent().unwrap_or(Path::new("/")))
                .cloned()
                .ok_or_else(|| err(io::Error::from_raw_os_error(libc::ENOENT)))?;
            let name = path.file_name().unwrap_or_default();
            let (dir, made) = parent.make_child(name).map_err(err)?;
            if made {
                self.created.push(CreatedDir {
                    parent: parent.clone(),
                    name: name.to_os_string(),
                    path: path.clone(),
                });
                if self.settings.durable {
                    parent.sync().map_err(err)?;
                }
            }
            dirs.insert(path.clone(), Arc::new(dir));
        }
        Ok(())
    }

    /// Step 5: the `prepared` record (every temp's and original's identity),
    /// durable. A failure discards the transaction (no rename happened).
    pub(super) fn prepare(mut self) -> Result<Transaction<'a>, CommitFailure> {
        if let Err(e) = self.journal.prepared(&self.staged) {
            let error = FsError::from_io(&e, FsOp::Journal, &self.settings.journal_dir);
            return Err(self.discard(None, error));
        }
        self.settings.at(Phase::Prepared);
        Ok(self)
    }

    /// Step 6: every temp over its target, in plan order (a creation never
    /// replaces anything; a deletion unlinks), then every directory fsynced.
    /// A failure aborts the transaction (rolls back what was renamed).
    pub(super) fn rename(mut self) -> Result<Transaction<'a>, CommitFailure> {
        match self.rename_all() {
            Ok(()) => Ok(self),
            Err((index, error)) => Err(self.abort(index, error)),
        }
    }

    fn rename_all(&mut self) -> Result<(), StepError> {
        for (k, rep) in self.replacements.iter().enumerate() {
            let creates = matches!(rep.role, Role::File(_)) && self.staged[k].orig.is_none();
            rename_one(rep, creates).map_err(|e| (Some(rep.role.index()), e))?;
            if let Role::File(_) | Role::Delete(_) = rep.role {
                self.renamed_files += 1;
            }
            self.settings.at(Phase::Renamed(k));
        }
        self.sync_dirs().map_err(|e| (None, e))
    }

    /// Step 7: the `committed` record, durable: the point of no return. Then
    /// the undo names and the journal go, and `report` says what was written.
    /// A failure to write the record aborts the transaction.
    pub(super) fn commit(mut self, report: &mut CommitReport) -> Result<(), CommitFailure> {
        if let Err(e) = self.journal.committed() {
            let error = FsError::from_io(&e, FsOp::Journal, &self.settings.journal_dir);
            return Err(self.abort(None, error));
        }
        self.settings.at(Phase::Committed);
        for rep in &self.replacements {
            let i = rep.role.index();
            match rep.role {
                Role::File(_) | Role::Delete(_) => report.files[i].written = true,
                Role::Backup(_) => report.files[i].backup_path = Some(rep.target_path()),
            }
        }
        self.clean_up();
        Ok(())
    }

    /// After the commit record: removes the undo names, then the journal.
    fn clean_up(self) {
        let leftovers = recovery::remove_leftovers(&self.replacements, Leftovers::Undo);
        if !leftovers.is_empty() {
            // Committed: the edit stands. The journal stays so recovery
            // removes the undo names once it can.
            for problem in &leftovers {
                tracing::warn!(%problem, "could not remove an undo file after a commit");
            }
            return;
        }
        // The undo names' removal durable before the journal's: otherwise a
        // power loss can keep the journal's removal and drop theirs, leaving
        // them in the user's tree with no journal to find them (found by
        // scripts/power-loss). A failed fsync here is only logged: the names
        // are gone for every reader, and keeping the journal for it would
        // leave one behind on a mere I/O error.
        if self.settings.durable {
            for dir in recovery::parents(&self.replacements) {
                if let Err(e) = dir.sync() {
                    tracing::warn!(error = %e, dir = %dir.path().display(), "could not fsync a directory after removing undo names");
                }
            }
        }
        if let Err(e) = self.journal.remove() {
            tracing::warn!(error = %e, "could not remove a finished journal; recovery will");
        }
    }

    /// Undoes a transaction that failed before its prepare record: removes
    /// every staged name and created directory, then the journal (kept, for
    /// recovery, if anything could not be removed).
    pub(super) fn discard(self, failed_index: Option<usize>, error: FsError) -> CommitFailure {
        let durable = self.settings.durable;
        let mut problems = recovery::remove_leftovers(&self.replacements, Leftovers::TempsAndUndo);
        if problems.is_empty() {
            problems.extend(recovery::remove_dirs(&self.created, durable));
        }
        let cleanup_complete = problems.is_empty();
        if cleanup_complete {
            if let Err(e) = self.journal.remove() {
                tracing::warn!(error = %e, "could not remove an abandoned journal; recovery will");
            }
        } else {
            for problem in &problems {
                tracing::warn!(%problem, "could not remove a staged file; recovery will");
            }
        }
        CommitFailure::before_renames(failed_index, error, cleanup_complete)
    }

    /// Undoes a prepared transaction after a failure (steps 5-7): rolls back
    /// by inode ([`recovery::roll_back`], the code recovery runs), removes the
    /// created directories, then the journal (kept, for recovery, if any step
    /// failed).
    pub(super) fn abort(self, failed_index: Option<usize>, error: FsError) -> CommitFailure {
        let durable = self.settings.durable;
        let mut undone = recovery::roll_back(&self.replacements, &self.staged, durable);
        if undone.problems.is_empty() && undone.conflicts.is_empty() {
            undone
                .problems
                .extend(recovery::remove_dirs(&self.created, durable));
        }
        let cleanup_complete = undone.problems.is_empty();
        if cleanup_complete {
            if let Err(e) = self.journal.remove() {
                tracing::warn!(error = %e, "could not remove a rolled-back journal; recovery will");
            }
        } else {
            for problem in &undone.problems {
                tracing::warn!(%problem, "rollback step failed; the journal is kept for recovery");
            }
        }
        CommitFailure {
            failed_index,
            error,
            renamed_before_failure: self.renamed_files,
            rollback: RollbackOutcome {
                attempted: true,
                restored: undone.restored,
                not_restored: undone.not_restored,
                cleanup_complete,
            },
        }
    }

    /// `fsync` of every directory the replacements are in (nothing when
    /// durability is off).
    fn sync_dirs(&self) -> Result<(), FsError> {
        if self.settings.durable {
            for dir in recovery::parents(&self.replacements) {
                dir.sync()
                    .map_err(|e| FsError::from_io(&e, FsOp::Sync, dir.path()))?;
            }
        }
        Ok(())
    }
}

/// Begins a journal; a journal directory deleted while the server runs is
/// recreated (mode 0700, checked as at start) and the journal begun again.
fn begin_journal(settings: &Settings, records: &[Record], dirs: &[PathBuf]) -> io::Result<Journal> {
    let (journal_dir, durable) = (&settings.journal_dir, settings.durable);
    match Journal::begin(journal_dir, records, dirs, durable) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            use std::os::unix::fs::DirBuilderExt;
            tracing::warn!(dir = %journal_dir.display(), "journal directory vanished; recreating it");
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(journal_dir)?;
            journal::check_trusted(&fs::symlink_metadata(journal_dir)?, journal_dir)?;
            Journal::begin(journal_dir, records, dirs, durable)
        }
        other => other,
    }
}

/// Step 4 for one replacement. A file: its temp with the new bytes (none
/// for a deletion), then, when it exists, its undo name. A `.bak`:
/// [`stage_backup`].
fn stage_one(
    rep: &Replacement,
    change: &PathChange,
    current: Option<&Metadata>,
    durable: bool,
) -> Result<Staged, FsError> {
    if let Role::Backup(_) = rep.role {
        return stage_backup(rep, change, current, durable);
    }
    let dir = &*rep.dir;
    let err = |e: io::Error| FsError::from_io(&e, FsOp::Stage, rep.target_path());
    let temp = match (rep.role, &change.after) {
        (Role::File(_), Some(new_bytes)) => {
            let attrs = current.map_or_else(|| new_attrs(change), Attrs::of);
            let temp = stage::write_new(dir, &rep.temp, new_bytes, attrs, durable).map_err(err)?;
            file_id(&temp)
        }
        // A deletion renames nothing over its target.
        _ => (0, 0),
    };
    let orig = match (&change.before, current) {
        (Before::Present(snap), Some(current)) => {
            // For a deletion the undo name is the file's only copy until
            // the commit record: made durable like a temp.
            let attrs = Attrs::of(current);
            stage::make_undo(
                dir,
                &rep.target,
                &rep.undo,
                Some(&snap.bytes),
                attrs,
                durable,
                false,
            )
            .map_err(err)?;
            Some(file_id(current))
        }
        (Before::Absent(_), _) => None,
        (Before::Present(_), None) => unreachable!("an existing file is locked and verified"),
    };
    Ok(Staged { temp, orig })
}

/// The mode and owner of a created file: those of the file it was moved
/// from (`like`), else the recorded `mode` (an undo re-creating a deleted
/// file), else 0666 less the umask.
fn new_attrs(change: &PathChange) -> Attrs {
    match (&change.like, change.mode) {
        (Some(like), _) => Attrs::of(like),
        (None, Some(mode)) => Attrs {
            mode: mode & 0o7777,
            ..Attrs::new_file()
        },
        (None, None) => Attrs::new_file(),
    }
}

/// Step 4 for a `.bak`: its new content (the file's content before) as a
/// temp, with the file's mode and owner, and an undo name for the `.bak`
/// there before, if any (a directory there fails the commit).
fn stage_backup(
    rep: &Replacement,
    change: &PathChange,
    current: Option<&Metadata>,
    durable: bool,
) -> Result<Staged, FsError> {
    let (Before::Present(snap), Some(current)) = (&change.before, current) else {
        unreachable!("only an edit of an existing file has a backup");
    };
    let dir = &*rep.dir;
    let err = |e: io::Error| FsError::from_io(&e, FsOp::Backup, rep.target_path());
    let orig = stage::lstat(dir, &rep.target).map_err(err)?;
    if let Some(l) = &orig
        && l.file_type == rustix::fs::FileType::Directory
    {
        // What renaming over it would say, not a generic EIO.
        let kind = FsErrorKind::NotRegularFile("directory");
        return Err(FsError {
            os_error: Some("EISDIR"),
            ..FsError::new(kind, FsOp::Backup, rep.target_path())
        });
    }
    let attrs = Attrs::of(current);
    let temp = stage::write_new(dir, &rep.temp, &snap.bytes, attrs, durable).map_err(err)?;
    if let Some(old) = &orig {
        stage::make_undo(dir, &rep.target, &rep.undo, None, old.attrs, durable, false)
            .map_err(err)?;
    }
    Ok(Staged {
        temp: file_id(&temp),
        orig: orig.map(|l| l.id),
    })
}

/// Step 6 for one replacement: a creation is a `RENAME_NOREPLACE` (what
/// another process created meanwhile fails it as already existing), a
/// deletion an unlink, anything else a rename over the target.
fn rename_one(rep: &Replacement, creates: bool) -> Result<(), FsError> {
    let step = match rep.role {
        Role::Delete(_) => stage::unlink(&rep.dir, &rep.target),
        _ if creates => stage::rename_new(&rep.dir, &rep.temp, &rep.target),
        _ => stage::rename(&rep.dir, &rep.temp, &rep.target),
    };
    step.map_err(|e| {
        let op = match rep.role {
            Role::File(_) | Role::Delete(_) => FsOp::Rename,
            Role::Backup(_) => FsOp::Backup,
        };
        let mut error = FsError::from_io(&e, op, rep.target_path());
        if creates && e.raw_os_error() == Some(libc::EEXIST) {
            let ty = stage::lstat(&rep.dir, &rep.target)
                .ok()
                .flatten()
                .and_then(|l| fsio::type_name(l.file_type));
            error.kind = FsErrorKind::AlreadyExists(ty);
        }
        error
    })
}
