//! Undoing a transaction, live after a failure or after a crash from its journal.
//!
//! Both paths run the same code ([`roll_back`]), and every step of it is
//! idempotent, so a recovery that is itself interrupted can simply run again.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::journal::{self, Record, Replacement, Role, Staged, State};
use super::lock::{self, LockTable};
use super::stage::{id_of, is_sibling, remove_if_exists, rename};
use crate::fsio::{FsError, FsErrorKind, FsOp};
use crate::sandbox::Dir;

/// What undoing a prepared transaction achieved.
#[derive(Debug, Default)]
pub(crate) struct Undone {
    /// Edited files that had been renamed and were put back.
    pub restored: usize,
    /// Edited files (their change index) that had been renamed, or whose
    /// state could not be read, and could not be put back.
    pub not_restored: Vec<usize>,
    /// Targets some other writer replaced meanwhile: left as they are, with the
    /// undo name (the original content) kept beside them.
    pub conflicts: Vec<PathBuf>,
    /// Every failed step, including cleanup of temps and undo names.
    pub problems: Vec<FsError>,
}

/// Puts every target of a prepared transaction back as it was, newest rename
/// first, and removes every temp and undo name.
///
/// For each replacement the target's identity decides: the temp's inode means
/// the rename happened (restore the undo name over it, or remove it if the
/// target did not exist before); the original inode means it did not (drop the
/// undo name); anything else means another writer replaced the file, which we
/// do not clobber.
pub(crate) fn roll_back(replacements: &[Replacement], staged: &[Staged], durable: bool) -> Undone {
    let mut out = Undone::default();
    for (rep, st) in replacements.iter().zip(staged).rev() {
        let is_file = matches!(rep.role, Role::File(_) | Role::Delete(_));
        let restore_err = |e: &io::Error| FsError::from_io(e, FsOp::Restore, rep.target_path());
        let dir = &rep.dir;
        let target = match id_of(dir, &rep.target) {
            Ok(id) => id,
            Err(e) => {
                out.problems.push(restore_err(&e));
                if is_file {
                    out.not_restored.push(rep.role.index());
                }
                continue;
            }
        };
        // A delete "happened" when its target is gone; anything else when
        // the target is its temp.
        let renamed = match rep.role {
            Role::Delete(_) => target.is_none(),
            _ => target == Some(st.temp),
        };
        let result = match st.orig {
            Some(_) if renamed || target.is_none() => rename(dir, &rep.undo, &rep.target),
            Some(orig) if target == Some(orig) => remove_if_exists(dir, &rep.undo),
            Some(_) => {
                tracing::warn!(
                    target = %rep.target_path().display(),
                    undo = %rep.undo_path().display(),
                    "file replaced by another writer during a transaction; original kept beside it"
                );
                out.conflicts.push(rep.target_path());
                Ok(())
            }
            None if renamed => remove_if_exists(dir, &rep.target),
            None => Ok(()),
        };
        match result {
            Ok(()) => out.restored += usize::from(is_file && renamed),
            Err(e) => {
                out.problems.push(restore_err(&e));
                if is_file && renamed {
                    out.not_restored.push(rep.role.index());
                }
            }
        }
        if let Err(e) = remove_if_exists(dir, &rep.temp) {
            out.problems
                .push(FsError::from_io(&e, FsOp::Restore, rep.temp_path()));
        }
    }
    if durable {
        for dir in parents(replacements) {
            if let Err(e) = dir.sync() {
                out.problems
                    .push(FsError::from_io(&e, FsOp::Sync, dir.path()));
            }
        }
    }
    out
}

/// A directory a transaction created: its name in its parent's handle.
#[derive(Debug, Clone)]
pub(crate) struct CreatedDir {
    pub parent: Arc<Dir>,
    pub name: std::ffi::OsString,
    pub path: PathBuf,
}

/// Removes the directories a transaction created, innermost first, when
/// they are empty (a missing one is fine). One that is not empty holds
/// something another writer put there: it is left, with a warning, never
/// emptied.
pub(crate) fn remove_dirs(dirs: &[CreatedDir], durable: bool) -> Vec<FsError> {
    use rustix::fs::AtFlags;
    use rustix::io::Errno;
    let mut problems = Vec::new();
    for d in dirs.iter().rev() {
        let rmdir = || rustix::fs::unlinkat(d.parent.fd(), &d.name, AtFlags::REMOVEDIR);
        match rmdir().or_else(|_| rmdir()) {
            Ok(()) | Err(Errno::NOENT) => {}
            Err(Errno::NOTEMPTY | Errno::EXIST) => {
                tracing::warn!(dir = %d.path.display(), "a directory the transaction created is not empty; left in place");
            }
            Err(e) => problems.push(FsError::from_io(&e.into(), FsOp::Restore, &d.path)),
        }
        if durable && let Err(e) = d.parent.sync() {
            problems.push(FsError::from_io(&e, FsOp::Sync, d.parent.path()));
        }
    }
    problems
}

/// Removes every temp and undo name of a transaction; for one that never
/// renamed anything (begun) or renamed everything (committed).
pub(crate) fn remove_leftovers(replacements: &[Replacement], names: Leftovers) -> Vec<FsError> {
    let mut problems = Vec::new();
    for rep in replacements {
        let names: &[&OsStr] = match names {
            Leftovers::TempsAndUndo => &[&rep.temp, &rep.undo],
            Leftovers::Undo => &[&rep.undo],
        };
        for name in names {
            if let Err(e) = remove_if_exists(&rep.dir, name) {
                problems.push(FsError::from_io(
                    &e,
                    FsOp::Restore,
                    rep.dir.path().join(name),
                ));
            }
        }
    }
    problems
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Leftovers {
    TempsAndUndo,
    Undo,
}

/// The distinct directories of the targets, in path order.
pub(crate) fn parents(replacements: &[Replacement]) -> Vec<Arc<Dir>> {
    let by_path: BTreeMap<&Path, &Arc<Dir>> = replacements
        .iter()
        .map(|r| (r.dir.path(), &r.dir))
        .collect();
    by_path.into_values().cloned().collect()
}

/// Reopens the directories of a journal's records, following no symlink
/// (the journal holds canonical paths: a symlink there now means the tree
/// changed under the transaction), and, when `roots` are given, refusing
/// any directory outside them.
///
/// `created` are the directories the transaction creates. One that does
/// not exist holds nothing of the transaction: it was not created yet (the
/// transaction is only begun), or a rollback removed it, which it does only
/// once it is empty (an interrupted recovery). Records in it are left out;
/// the second element says which records were kept, by index.
fn bind(
    records: &[Record],
    roots: Option<&[PathBuf]>,
    created: &[PathBuf],
) -> Result<(Vec<Replacement>, Vec<usize>), Vec<FsError>> {
    let mut dirs: BTreeMap<PathBuf, Arc<Dir>> = BTreeMap::new();
    let mut out = Vec::with_capacity(records.len());
    let mut kept = Vec::with_capacity(records.len());
    let mut problems = Vec::new();
    for (k, r) in records.iter().enumerate() {
        let parent = r.target.parent().unwrap_or(Path::new("/"));
        let names = (r.target.file_name(), r.temp.file_name(), r.undo.file_name());
        let (Some(target), Some(temp), Some(undo)) = names else {
            problems.push(FsError::new(FsErrorKind::Other, FsOp::Restore, &r.target));
            continue;
        };
        if r.temp.parent() != Some(parent) || r.undo.parent() != Some(parent) {
            problems.push(FsError::new(FsErrorKind::Other, FsOp::Restore, &r.target));
            continue;
        }
        if !staging_names(r.role, target, temp, undo) {
            tracing::error!(
                target = %r.target.display(),
                temp = %r.temp.display(),
                undo = %r.undo.display(),
                "journal names files that are not splice's staging names for its target; not touched"
            );
            problems.push(FsError::new(
                FsErrorKind::PermissionDenied,
                FsOp::Restore,
                &r.target,
            ));
            continue;
        }
        if let Some(roots) = roots
            && !roots.iter().any(|root| parent.starts_with(root))
        {
            tracing::error!(target = %r.target.display(), "journal names a file outside the roots; not touched");
            problems.push(FsError::new(
                FsErrorKind::PermissionDenied,
                FsOp::Restore,
                &r.target,
            ));
            continue;
        }
        let dir = match dirs.get(parent) {
            Some(d) => d.clone(),
            None => match Dir::open_nofollow(parent) {
                Ok(d) => {
                    let d = Arc::new(d);
                    dirs.insert(parent.to_path_buf(), d.clone());
                    d
                }
                Err(e)
                    if e.kind() == io::ErrorKind::NotFound
                        && created.iter().any(|c| parent.starts_with(c)) =>
                {
                    continue;
                }
                Err(e) => {
                    problems.push(FsError::from_io(&e, FsOp::Restore, parent));
                    continue;
                }
            },
        };
        out.push(Replacement {
            role: r.role,
            dir,
            target: target.to_os_string(),
            temp: temp.to_os_string(),
            undo: undo.to_os_string(),
        });
        kept.push(k);
    }
    if problems.is_empty() {
        Ok((out, kept))
    } else {
        Err(problems)
    }
}

/// Reopens the parents of the directories a journal says its transaction
/// creates (no symlink followed, inside the roots when given). A parent
/// that is gone was never created, or was itself created and is gone: there
/// is nothing to remove below it.
fn bind_dirs(dirs: &[PathBuf], roots: Option<&[PathBuf]>) -> Result<Vec<CreatedDir>, Vec<FsError>> {
    let mut out = Vec::with_capacity(dirs.len());
    let mut problems = Vec::new();
    for d in dirs {
        let (Some(parent), Some(name)) = (d.parent(), d.file_name()) else {
            problems.push(FsError::new(FsErrorKind::Other, FsOp::Restore, d));
            continue;
        };
        if let Some(roots) = roots
            && !roots.iter().any(|root| parent.starts_with(root))
        {
            tracing::error!(dir = %d.display(), "journal names a directory outside the roots; not touched");
            problems.push(FsError::new(
                FsErrorKind::PermissionDenied,
                FsOp::Restore,
                d,
            ));
            continue;
        }
        match Dir::open_nofollow(parent) {
            Ok(p) => out.push(CreatedDir {
                parent: Arc::new(p),
                name: name.to_os_string(),
                path: d.clone(),
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => problems.push(FsError::from_io(&e, FsOp::Restore, parent)),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// True if `temp` and `undo` are names a commit makes beside `target` for
/// `role` (see [`super::stage::sibling`]): the only names recovery removes or
/// renames, so a journal is never a list of arbitrary files to delete.
fn staging_names(role: Role, target: &OsStr, temp: &OsStr, undo: &OsStr) -> bool {
    let (base, tmp, und) = match role {
        Role::File(_) | Role::Delete(_) => (target, "tmp", "undo"),
        Role::Backup(_) => {
            let Some(base) = target.as_bytes().strip_suffix(b".bak") else {
                return false;
            };
            (OsStr::from_bytes(base), "bak.tmp", "bak.undo")
        }
    };
    is_sibling(base, temp, tmp) && is_sibling(base, undo, und)
}

/// What [`super::Committer::recover`] found and did.
#[derive(Debug, Default)]
pub struct RecoveryReport {
    pub transactions: Vec<RecoveredTransaction>,
    /// Journals locked by a live process (a commit in progress): left alone.
    pub skipped_live: usize,
    /// Entries of the journal directory that are not journals splice can read
    /// (a FIFO, directory, symlink, unreadable or oversized file under a
    /// journal's name): not touched, reported, and recovery goes on.
    pub ignored: Vec<IgnoredEntry>,
}

/// An entry of the journal directory recovery left alone, and why.
#[derive(Debug, Clone)]
pub struct IgnoredEntry {
    pub path: PathBuf,
    pub reason: String,
}

impl RecoveryReport {
    fn ignore(&mut self, path: &Path, reason: String) {
        tracing::warn!(entry = %path.display(), %reason, "not a journal; left alone");
        self.ignored.push(IgnoredEntry {
            path: path.to_path_buf(),
            reason,
        });
    }
}

fn kind_of(m: &fs::Metadata) -> String {
    let t = m.file_type();
    let kind = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    format!("{kind}, not a journal")
}

#[derive(Debug)]
pub struct RecoveredTransaction {
    pub journal: PathBuf,
    pub outcome: RecoveryOutcome,
    /// The edited files of the transaction (not their `.bak`s).
    pub files: Vec<PathBuf>,
    /// Files whose new content was replaced by their original content.
    pub restored: usize,
    /// Files another writer replaced meanwhile (left as they are).
    pub conflicts: Vec<PathBuf>,
    /// Steps that failed; when non-empty the journal is kept for the next run.
    pub problems: Vec<FsError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryOutcome {
    /// Interrupted while staging: nothing had been renamed; temps removed.
    Discarded,
    /// Interrupted between the first rename and the commit record: every file
    /// put back to its original content.
    RolledBack,
    /// Interrupted after the commit record: the new contents stay; leftover
    /// undo names removed.
    Completed,
    /// The journal could not be read; renamed to `*.corrupt` for a human.
    Corrupt,
    /// A file of the transaction stayed locked (by a live commit) past the
    /// lock timeout, or a directory of it could not be reopened safely (gone,
    /// a symlink now, or outside the roots); nothing was done, the journal is
    /// kept for the next run.
    Deferred,
}

pub(crate) fn recover(
    journal_dir: &Path,
    locks: &LockTable,
    timeout: Duration,
    roots: Option<&[PathBuf]>,
) -> io::Result<RecoveryReport> {
    let mut report = RecoveryReport::default();
    let mut names: Vec<_> = fs::read_dir(journal_dir)?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    names.sort();
    for name in names {
        let Some(name) = name.to_str() else { continue };
        let path = journal_dir.join(name);
        if let Some(tmp) = name
            .strip_prefix('.')
            .and_then(|n| n.strip_suffix(".journal.tmp"))
        {
            // Crashed while creating its journal, before any staging.
            if let Some(pid) = tmp.split('-').next().and_then(|p| p.parse().ok())
                && !process_alive(pid)
            {
                match fs::symlink_metadata(&path) {
                    Ok(m) if m.file_type().is_file() => match fs::remove_file(&path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                        Err(e) => report.ignore(&path, format!("cannot remove: {e}")),
                    },
                    Ok(m) => report.ignore(&path, kind_of(&m)),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => report.ignore(&path, e.to_string()),
                }
            }
            continue;
        }
        if name.starts_with('.') || !name.ends_with(".journal") {
            continue;
        }
        // Non-blocking, so a FIFO planted under a journal's name cannot hang
        // start-up; no symlink followed; the type checked before reading.
        let file = match OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
        {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                report.ignore(&path, "a symbolic link, not a journal".into());
                continue;
            }
            Err(e) => {
                report.ignore(&path, format!("cannot open: {e}"));
                continue;
            }
        };
        match file.metadata() {
            Ok(m) if !m.file_type().is_file() => {
                report.ignore(&path, kind_of(&m));
                continue;
            }
            Ok(m) if m.len() > journal::MAX_JOURNAL_BYTES => {
                report.ignore(
                    &path,
                    format!(
                        "{} bytes, larger than any journal splice writes ({} bytes)",
                        m.len(),
                        journal::MAX_JOURNAL_BYTES
                    ),
                );
                continue;
            }
            Ok(_) => {}
            Err(e) => {
                report.ignore(&path, format!("cannot read: {e}"));
                continue;
            }
        }
        match lock::flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => {
                report.skipped_live += 1;
                continue;
            }
            Err(e) => return Err(e),
        }
        let meta = file.metadata()?;
        // Another recovery finished it while we waited for the lock.
        if meta.nlink() == 0 {
            continue;
        }
        journal::check_trusted(&meta, &path)?;
        report.transactions.push(recover_one(
            &path,
            &file,
            journal_dir,
            locks,
            timeout,
            roots,
        )?);
    }
    Ok(report)
}

fn recover_one(
    path: &Path,
    file: &File,
    journal_dir: &Path,
    locks: &LockTable,
    timeout: Duration,
    roots: Option<&[PathBuf]>,
) -> io::Result<RecoveredTransaction> {
    let parsed = match journal::parse(file) {
        Ok(p) => p,
        Err(e) => {
            return Ok(RecoveredTransaction {
                journal: path.to_path_buf(),
                outcome: RecoveryOutcome::Deferred,
                files: Vec::new(),
                restored: 0,
                conflicts: Vec::new(),
                problems: vec![FsError::from_io(&e, FsOp::Journal, path)],
            });
        }
    };
    let Some(parsed) = parsed else {
        let corrupt = path.with_extension("corrupt");
        fs::rename(path, &corrupt)?;
        tracing::error!(journal = %corrupt.display(), "unreadable transaction journal set aside");
        return Ok(RecoveredTransaction {
            journal: corrupt,
            outcome: RecoveryOutcome::Corrupt,
            files: Vec::new(),
            restored: 0,
            conflicts: Vec::new(),
            problems: Vec::new(),
        });
    };
    let files: Vec<PathBuf> = parsed
        .replacements
        .iter()
        .filter(|r| matches!(r.role, Role::File(_) | Role::Delete(_)))
        .map(|r| r.target.clone())
        .collect();
    let bound = bind(&parsed.replacements, roots, &parsed.dirs)
        .and_then(|reps| Ok((reps, bind_dirs(&parsed.dirs, roots)?)));
    let ((reps, kept), created) = match bound {
        Ok(bound) => bound,
        Err(problems) => {
            tracing::warn!(journal = %path.display(), "directories of an interrupted transaction cannot be opened safely; journal kept");
            return Ok(RecoveredTransaction {
                journal: path.to_path_buf(),
                outcome: RecoveryOutcome::Deferred,
                files,
                restored: 0,
                conflicts: Vec::new(),
                problems,
            });
        }
    };
    let reps = &reps;
    // Renames happen only after the `prepared` record: a target that is no
    // longer its original (the undo link's inode) means a rename happened,
    // so a journal that reads as merely begun lost (or had damaged) its
    // later records. Discarding it would delete the only copy of an
    // original; refuse and keep every copy for a human. A missing temp alone
    // is no such sign: a power loss may drop a temp's directory entry (never
    // fsynced before `prepared`) and keep its undo link, while the target
    // is still the original (found by scripts/power-loss).
    if parsed.state == State::Begun {
        let renamed: Vec<&Replacement> = reps
            .iter()
            .filter(|r| {
                let Ok(Some(original)) = id_of(&r.dir, &r.undo) else {
                    return false;
                };
                let target = id_of(&r.dir, &r.target);
                match r.role {
                    // A delete's temp never exists: its target gone is the sign.
                    Role::Delete(_) => matches!(target, Ok(None)),
                    _ => {
                        matches!(id_of(&r.dir, &r.temp), Ok(None))
                            && !matches!(target, Ok(Some(t)) if t == original)
                    }
                }
            })
            .collect();
        if !renamed.is_empty() {
            for r in &renamed {
                tracing::error!(
                    journal = %path.display(),
                    target = %r.target_path().display(),
                    original = %r.undo_path().display(),
                    "damaged journal, but this file was already replaced: nothing touched. \
                     To undo the interrupted commit, rename each `original` over its `target` \
                     (and remove the other staging names), then delete the journal"
                );
            }
            return Ok(RecoveredTransaction {
                journal: path.to_path_buf(),
                outcome: RecoveryOutcome::Deferred,
                files,
                restored: 0,
                conflicts: renamed.iter().map(|r| r.target_path()).collect(),
                problems: renamed
                    .iter()
                    .map(|r| FsError::new(FsErrorKind::Other, FsOp::Restore, r.target_path()))
                    .collect(),
            });
        }
    }
    let (outcome, restored, conflicts, mut problems) = match &parsed.state {
        State::Begun => {
            let mut problems = remove_leftovers(reps, Leftovers::TempsAndUndo);
            if problems.is_empty() {
                problems.extend(remove_dirs(&created, true));
            }
            (RecoveryOutcome::Discarded, 0, Vec::new(), problems)
        }
        State::Prepared(staged) => {
            // Lock the files as a commit would, so a live commit of another
            // process on the same files is not interleaved with the rollback.
            let mut targets: Vec<(PathBuf, &Replacement)> =
                reps.iter().map(|r| (r.target_path(), r)).collect();
            targets.sort_by(|a, b| a.0.cmp(&b.0));
            targets.dedup_by(|a, b| a.0 == b.0);
            let paths: Vec<&Path> = targets.iter().map(|(p, _)| p.as_path()).collect();
            let _table = locks.lock_all(&paths);
            let mut held = Vec::with_capacity(targets.len());
            let mut busy = Vec::new();
            for (target, rep) in &targets {
                match lock::lock_file(&rep.dir, &rep.target, target, timeout) {
                    Ok(file) => held.push(file),
                    Err(e) if e.kind == FsErrorKind::NotFound => {}
                    Err(e) => busy.push(e),
                }
            }
            if !busy.is_empty() {
                tracing::warn!(journal = %path.display(), "files of an interrupted transaction are locked; recovery deferred");
                return Ok(RecoveredTransaction {
                    journal: path.to_path_buf(),
                    outcome: RecoveryOutcome::Deferred,
                    files,
                    restored: 0,
                    conflicts: Vec::new(),
                    problems: busy,
                });
            }
            let staged: Vec<Staged> = kept.iter().map(|&k| staged[k]).collect();
            let mut undone = roll_back(reps, &staged, true);
            if undone.problems.is_empty() && undone.conflicts.is_empty() {
                undone.problems.extend(remove_dirs(&created, true));
            }
            (
                RecoveryOutcome::RolledBack,
                undone.restored,
                undone.conflicts,
                undone.problems,
            )
        }
        State::Committed(_) => (
            RecoveryOutcome::Completed,
            0,
            Vec::new(),
            remove_leftovers(reps, Leftovers::TempsAndUndo),
        ),
    };
    if problems.is_empty() {
        for dir in parents(reps) {
            if let Err(e) = dir.sync() {
                problems.push(FsError::from_io(&e, FsOp::Sync, dir.path()));
            }
        }
    }
    if problems.is_empty() {
        fs::remove_file(path)?;
        journal::sync_path(journal_dir)?;
    }
    tracing::info!(
        journal = %path.display(),
        pid = parsed.pid,
        ?outcome,
        restored,
        problems = problems.len(),
        "recovered an interrupted transaction"
    );
    Ok(RecoveredTransaction {
        journal: path.to_path_buf(),
        outcome,
        files,
        restored,
        conflicts,
        problems,
    })
}

fn process_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}
