//! Writing edited files: all of them or none, durably, through faults and crashes.
//!
//! A [`Committer`] turns a list of [`FileChange`]s (what was read, what to write)
//! into new file contents on disk as one transaction. It exists because writing
//! files one by one and restoring `.bak`s on failure (the predecessor's way)
//! leaves a half-applied change when the process dies in between, and loses
//! updates when two calls race.
//!
//! Every step works through the pinned handle of each file's directory that
//! [`crate::sandbox`] opened when the path was resolved (`openat` with
//! `O_EXCL | O_NOFOLLOW` for temps, `linkat`, `renameat`, `unlinkat`,
//! `fstatat`, `fsync` of the directory reopened through `openat(fd, ".")`),
//! never through a path: a symlink swapped into the path since the read
//! cannot redirect a write. Paths are only used for lock ordering, messages
//! and the journal.
//!
//! # Protocol
//!
//! 1. **Lock** every file in sorted path order: an in-process table, then an
//!    `flock` on the file (so other splice processes serialize too). Fixed order:
//!    no deadlock. Disjoint commits never wait for each other.
//! 2. **Verify** each file under the lock: its bytes now are compared with the
//!    snapshot's (a read and a `memcmp`, cheaper than hashing; the current
//!    sha256 is computed only to report a mismatch). A mismatch is
//!    [`FsErrorKind::Stale`] and nothing is written.
//!
//! Then the writes, by one of two paths. Each is an object whose steps are
//! its methods, in the order they run, with the durability argument (what a
//! crash or a power loss during each step leaves, and how recovery ends it)
//! in its module docs next to them; the [`Phase`] points the tests cut at
//! fall between those steps:
//!
//! - exactly one file changes (every `multi_edit`): [`single::SingleFile`],
//!   no journal, because one rename is atomic by itself: stage, rename,
//!   commit (module [`single`]; what a crash leaves is finished by
//!   [`sweep`]);
//! - anything else (several files, any creation, deletion or move):
//!   [`transaction::Transaction`], journaled: begin, stage, prepare,
//!   rename, commit, and discard or abort on failure (module
//!   [`transaction`], which also says how [`Committer::recover`] finishes a
//!   crashed one and why that is safe).
//!
//! After either, the locks go, but the descriptors of the files the commit
//! replaced, deleted or moved are closed by [`late_close`]'s thread while
//! the call answers: closing the last one frees the old inode, which costs
//! a small edit more than any of its other system calls but its fsyncs, and
//! nothing the answer says depends on it. The next commit waits for those
//! closes before it stages, so it never runs short of the space they free.
//!
//! # Assumptions and limits
//!
//! What this relies on: `rename(2)` atomic within a directory; `fsync(2)` on a
//! file and on a directory makes its content and names durable (true of ext4,
//! xfs, btrfs and tmpfs; not necessarily of NFS, or of disks that acknowledge
//! flushes they have not done). Ordering comes from explicit fsyncs, not from
//! file-system ordering, so `data=writeback` ext4 is covered. Other writers that
//! ignore splice's locks can still race a commit; recovery never clobbers a file
//! they replaced (it reports a conflict instead).
//!
//! Recovery reopens each journaled directory by its canonical path following
//! no symlink ([`Committer::recover_within`] also refuses directories outside
//! the roots), and then works through those handles like a commit.
//!
//! Limits: extended attributes and ACLs are not copied to the new file; a file
//! with several hard links is replaced by a new inode (its other names, inside
//! or outside the roots, keep the old content and are never written), as with
//! any atomic-rename editor; the target's directory must be writable.
//!
//! # Tests
//!
//! What the tests cover: `scripts/fault-points` runs the real binary under
//! `strace`, counts the file-system calls of one call and, for every one
//! of them, fails it with each errno it can return (EIO, ENOSPC,
//! EACCES/EPERM, EROFS, ENOLCK) and, separately, kills the server on
//! entering it, then runs `splice recover` (and, in another run, a server
//! start and the next edit), and for a crash in each distinct recovery
//! kills `splice recover` at each of its own calls and runs it again.
//! Counted points and results are in `docs/testing.md` ("Crashes and
//! file-system faults"); CI runs `scripts/fault-points --ci`, a fixed subset (EIO and
//! kill at every point of `multi_edit` with and without backup, at every
//! 4th point of the 5-file `multi_edit_files` with and without backup,
//! `splice recover` killed at each of its calls for two recovery kinds of
//! `multi_edit_files` and one of `multi_edit` with backup, the dry runs;
//! about a minute); `scripts/fault-points` with no option runs everything
//! (23 minutes on the 2-core CI machine).
//!
//! `scripts/fault-points` and the crash tests kill processes, which keeps
//! every write the kernel accepted. What a power loss drops is checked by
//! `scripts/power-loss` (`docs/durability.md`, "Power loss"): it records
//! the calls of one real call, enumerates the crash states the weakest
//! POSIX persistence model allows at each point (unsynced operations
//! dropped, writes torn), recovers each and checks the promise, so the
//! tables of [`transaction`] and [`single`] are measured, not only reasoned. Not enumerated: double
//! faults (a fault in the rollback after a first fault); the hand-written
//! tests in `server/tests/it/commit_faults.rs` exercise them and, through
//! the binary,
//! `e2e_faults::a_failed_rollback_is_reported_per_file_and_finished_by_recover`
//! (every rename from the second on fails). A point is one call on
//! the thread running the commit: the admission's size estimate (a `stat`
//! whose failure is ignored) is not one, and the journaled path's calls
//! cannot be filtered by path (its staging names are random), so a few of
//! its points cannot be aimed at reliably (`when=N` counts per thread);
//! the script reports those as misses, never as passes. A fault in the
//! cleanup after the commit point (removing an undo name or the journal)
//! answers success; every removal is tried twice, so a single fault leaves
//! nothing (the script checks it at every point). A removal that keeps
//! failing leaves that name, and on the journaled path the committed
//! journal, for the next edit in that directory (single file) or the next
//! start or `splice recover` (journaled) to remove
//! (`e2e_faults::a_cleanup_that_keeps_failing_is_finished_by_the_next_edit`).
//!
//! Journal location: chosen by the caller (the server uses
//! [`crate::state_dir::default_journal_dir`]: `$XDG_STATE_HOME/splice/journal`,
//! else `~/.local/state/splice/journal`).

mod change;
mod journal;
mod late_close;
mod lock;
mod outcome;
mod recovery;
mod settings;
mod single;
mod stage;
mod sweep;
mod transaction;

use std::ffi::OsStr;
use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use change::{Before, FileChange, NewPath, PathChange};
pub use lock::Wait;
pub use outcome::{CommitError, CommitFailure, CommitReport, FileCommitReport, RollbackOutcome};
pub use recovery::{IgnoredEntry, RecoveredTransaction, RecoveryOutcome, RecoveryReport};
#[doc(hidden)]
pub use settings::Phase;
pub use sweep::Swept;

use crate::answer_gate::AnswerGate;
use crate::fsio::{self, FsError, FsErrorKind, FsOp};
use lock::LockTable;
use outcome::fail;
use settings::Settings;
use single::SingleFile;
use stage::Attrs;
use transaction::Transaction;

/// Commits sets of file changes atomically; one per server, shared by all calls.
pub struct Committer {
    settings: Settings,
    locks: LockTable,
    lock_timeout: Duration,
    /// Directories swept once and left clean (not listed again).
    swept_dirs: sweep::SweptDirs,
    /// Closes the files commits replaced once their answers are out.
    late_close: late_close::LateClose,
}

impl std::fmt::Debug for Committer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Committer")
            .field("journal_dir", &self.settings.journal_dir)
            .field("durable", &self.settings.durable)
            .field("lock_timeout", &self.lock_timeout)
            .finish_non_exhaustive()
    }
}

impl Committer {
    /// A committer journaling in `journal_dir` (created, mode 0700, if
    /// missing), whose late closer waits for the answers of `answers` (the
    /// server's gate; a fresh [`AnswerGate::new`] where nothing answers).
    ///
    /// Refused ([`io::ErrorKind::PermissionDenied`]) when the directory is not
    /// owned by this process's user or is writable by group or others: recovery
    /// acts on what the journals there say, so nobody else may write them.
    pub fn new(journal_dir: PathBuf, answers: Arc<AnswerGate>) -> io::Result<Committer> {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&journal_dir)?;
        let journal_dir = fs::canonicalize(&journal_dir)?;
        journal::check_trusted(&fs::symlink_metadata(&journal_dir)?, &journal_dir)?;
        // Read the umask (for created files) and start the thread that
        // closes replaced files now, not inside a first call.
        let _ = Attrs::new_file();
        let late_close = late_close::LateClose::start(answers);
        Ok(Committer {
            settings: Settings {
                journal_dir,
                durable: true,
                hook: None,
            },
            locks: LockTable::default(),
            lock_timeout: Duration::from_secs(10),
            swept_dirs: sweep::SweptDirs::default(),
            late_close,
        })
    }

    pub fn journal_dir(&self) -> &Path {
        &self.settings.journal_dir
    }

    /// Turns every fsync off (`false`) or on. Only for measuring what
    /// durability costs: without fsync a power loss can lose or mix commits.
    pub fn durable(mut self, durable: bool) -> Committer {
        self.settings.durable = durable;
        self
    }

    /// How long to wait for another process's lock on a file (default 10 s)
    /// before failing with [`FsErrorKind::Busy`].
    pub fn lock_timeout(mut self, timeout: Duration) -> Committer {
        self.lock_timeout = timeout;
        self
    }

    /// How long a call waits for locks before failing as busy.
    pub fn lock_wait(&self) -> Duration {
        self.lock_timeout
    }

    #[doc(hidden)]
    pub fn with_hook(mut self, hook: impl Fn(Phase) + Send + Sync + 'static) -> Committer {
        self.settings.hook = Some(Arc::new(hook));
        self
    }

    /// Finishes or undoes every transaction a dead process left in the journal
    /// directory (see the module docs). Journals of live commits are skipped.
    pub fn recover(&self) -> io::Result<RecoveryReport> {
        recovery::recover(
            &self.settings.journal_dir,
            &self.locks,
            self.lock_timeout,
            None,
        )
    }

    /// [`Committer::recover`], touching only files inside `roots` (canonical):
    /// a journal naming anything else (tampered with, or written under other
    /// roots) is kept and reported as [`RecoveryOutcome::Deferred`].
    pub fn recover_within(&self, roots: &[PathBuf]) -> io::Result<RecoveryReport> {
        recovery::recover(
            &self.settings.journal_dir,
            &self.locks,
            self.lock_timeout,
            Some(roots),
        )
    }

    /// Finishes the single-file commits a crash interrupted anywhere under
    /// `roots` (their staging names; see [`sweep`]). For `splice recover`.
    pub fn sweep_roots(&self, roots: &[PathBuf]) -> Swept {
        let mut out = Swept::default();
        for root in roots {
            out.absorb(sweep::sweep_tree(root, &self.locks));
        }
        out
    }

    /// Finishes interrupted single-file commits in the directories of this
    /// commit (the caller holds the locks of `own`, its files there): lists
    /// each directory this process has not yet swept clean, and marks it
    /// when the sweep left it clean (nothing skipped as busy, nothing
    /// failed); in one already swept, probes only `own`'s staging names.
    fn sweep_dirs(&self, changes: &[PathChange], writes: &[usize]) {
        let mut dirs: std::collections::BTreeMap<&Path, (&crate::sandbox::Dir, Vec<&OsStr>)> =
            std::collections::BTreeMap::new();
        for &i in writes {
            let Before::Present(s) = &changes[i].before else {
                continue;
            };
            dirs.entry(s.dir.path())
                .or_insert((&*s.dir, Vec::new()))
                .1
                .push(s.name.as_os_str());
        }
        for (dir, own) in dirs.values() {
            let swept = if self.swept_dirs.holds(dir) {
                sweep::sweep_names(dir, own)
            } else {
                let swept = sweep::sweep(dir, &self.locks, own);
                if swept.busy.is_empty() && swept.problems.is_empty() {
                    self.swept_dirs.mark(dir);
                }
                swept
            };
            for problem in &swept.problems {
                tracing::warn!(%problem, "could not finish an interrupted single-file commit");
            }
        }
    }

    /// Writes every change or none. See the module docs for the protocol.
    /// A file that changed since its snapshot fails as stale.
    pub fn commit(&self, changes: Vec<FileChange>) -> Result<CommitReport, CommitFailure> {
        let never = |_: usize, _: &File| Ok::<_, std::convert::Infallible>(None);
        match self.commit_with(changes, Wait::PATIENT, never) {
            Ok(report) => Ok(report),
            Err(CommitError::Failed(failure)) => Err(failure),
            Err(CommitError::Rebase { error, .. }) => match error {},
            Err(CommitError::Cancelled) => unreachable!("never cancelled"),
        }
    }

    /// [`Committer::commit`], with two hooks for the server's calls:
    ///
    /// - `rebase(i, file)` is asked, under the locks, for change `i` whose
    ///   file no longer holds its snapshot's bytes (another call committed
    ///   first). It gets the locked, open file and returns the file's current
    ///   bytes and the new bytes recomputed from them (`Ok(Some(..))`, the
    ///   commit goes on with those), `Ok(None)` to fail as stale (the caller
    ///   stated the content it expected), or an error of its own that ends the
    ///   commit before anything is written ([`CommitError::Rebase`]).
    /// - `wait.cancelled()` is polled while waiting for locks and checked once
    ///   more at the commit point: after every lock is held and every file
    ///   verified, before anything (temp, `.bak`, journal) is created. A
    ///   cancelled commit writes nothing ([`CommitError::Cancelled`]); past
    ///   that point it completes.
    /// - `wait.until` bounds every lock wait (this process's calls and other
    ///   processes' `flock`s together); past it the commit fails as
    ///   [`FsErrorKind::Busy`] on the file it waited for. Default: the
    ///   committer's lock timeout from now.
    pub fn commit_with<E>(
        &self,
        changes: Vec<FileChange>,
        wait: Wait<'_>,
        mut rebase: impl FnMut(usize, &File) -> Result<Option<(Vec<u8>, Vec<u8>)>, E>,
    ) -> Result<CommitReport, CommitError<E>> {
        let changes = changes.into_iter().map(PathChange::from).collect();
        self.commit_paths(changes, wait, |i, file| {
            Ok(rebase(i, file)?.map(|(now, new)| (now, Some(new))))
        })
    }

    /// The general transaction: every path goes from its *before* (an
    /// existing file as read, or absent) to its *after* (new bytes, or
    /// absent): edits, creations, deletions, and a move as a deletion plus a
    /// creation. All of them or none, journaled like edits (see the module
    /// docs, "Creations, deletions and moves"). `rebase` is asked, as in
    /// [`Committer::commit_with`], for any existing path whose bytes changed
    /// since it was read; its `after` stays absent for a deletion.
    pub fn commit_paths<E>(
        &self,
        mut changes: Vec<PathChange>,
        wait: Wait<'_>,
        mut rebase: impl FnMut(usize, &File) -> Result<Option<(Vec<u8>, Option<Vec<u8>>)>, E>,
    ) -> Result<CommitReport, CommitError<E>> {
        let locks = self.lock(&changes, wait)?;
        self.settings.at(Phase::Locked);
        let current = verify(&mut changes, &locks.files, &mut rebase)?;
        // The commit point: a call cancelled before it writes nothing.
        if (wait.cancelled)() {
            return Err(CommitError::Cancelled);
        }
        // Earlier commits' replaced files are closed (their blocks freed)
        // before this one stages anything, including those of a commit that
        // held one of these locks a moment ago.
        self.late_close.settle();
        let report = self.write(&changes, &current, &locks.sorted)?;
        // Each written file's descriptor now holds an inode no longer at its
        // path: another thread closes it (frees that inode) while we answer.
        let replaced = (locks.files.into_iter().zip(&report.files))
            .filter_map(|(file, done)| file.filter(|_| done.written));
        self.late_close.defer(replaced);
        Ok(report)
    }

    /// Step 1: locks every path in sorted order, in the in-process table,
    /// then each existing file's `flock`. A path to create has no inode to
    /// lock: its creation is a `RENAME_NOREPLACE`, which fails rather than
    /// replace what another process created meanwhile.
    fn lock<E>(&self, changes: &[PathChange], wait: Wait<'_>) -> Result<Locks<'_>, CommitError<E>> {
        let mut order: Vec<usize> = (0..changes.len()).collect();
        order.sort_by(|&a, &b| changes[a].path().cmp(changes[b].path()));
        for pair in order.windows(2) {
            if changes[pair[0]].path() == changes[pair[1]].path() {
                let index = pair[0].max(pair[1]);
                let path = changes[index].path();
                return Err(fail(
                    Some(index),
                    FsError::new(FsErrorKind::DuplicatePath, FsOp::Lock, path),
                )
                .into());
            }
        }
        let sorted: Vec<PathBuf> = order
            .iter()
            .map(|&i| changes[i].path().to_path_buf())
            .collect();
        let paths: Vec<&Path> = sorted.iter().map(PathBuf::as_path).collect();
        let cancelled = wait.cancelled;
        let until = wait
            .until
            .unwrap_or_else(|| Instant::now() + self.lock_timeout);
        let table = match self
            .locks
            .lock_all_until(&paths, cancelled, Some(until), wait.lend)
        {
            Ok(guard) => guard,
            Err(lock::Stop::Cancelled) => return Err(CommitError::Cancelled),
            Err(lock::Stop::TimedOut(k)) => {
                let i = order[k];
                let busy = FsError {
                    kind: FsErrorKind::Busy,
                    op: FsOp::Lock,
                    path: changes[i].path().to_path_buf(),
                    os_error: Some("EBUSY"),
                };
                return Err(fail(Some(i), busy).into());
            }
        };
        let mut files: Vec<Option<File>> = (0..changes.len()).map(|_| None).collect();
        for &i in &order {
            let Before::Present(s) = &changes[i].before else {
                continue;
            };
            match lock::lock_file_until(&s.dir, &s.name, &s.path, until, cancelled, wait.lend) {
                Ok(Some(file)) => files[i] = Some(file),
                Ok(None) => return Err(CommitError::Cancelled),
                Err(e) => return Err(fail(Some(i), e).into()),
            }
        }
        Ok(Locks {
            _table: table,
            files,
            sorted,
        })
    }

    /// The writes of a locked and verified commit: nothing, one edited file
    /// ([`SingleFile`], no journal), or a journaled [`Transaction`].
    fn write(
        &self,
        changes: &[PathChange],
        current: &[Option<Metadata>],
        sorted: &[PathBuf],
    ) -> Result<CommitReport, CommitFailure> {
        let mut report = CommitReport {
            files: changes
                .iter()
                .map(|c| FileCommitReport {
                    path: c.path().to_path_buf(),
                    written: false,
                    backup_path: None,
                })
                .collect(),
        };
        let writes: Vec<usize> = (0..changes.len())
            .filter(|&i| changes[i].writes())
            .collect();
        for &i in &writes {
            // Editing `a` with a backup and `a.bak` itself in one call would
            // make one transaction rename two files over one name.
            if let Some(bak) = changes[i].backup_path()
                && sorted.binary_search(&bak).is_ok()
            {
                let error = FsError::new(FsErrorKind::DuplicatePath, FsOp::Backup, &bak);
                return Err(fail(Some(i), error));
            }
        }
        // Staging names an interrupted single-file commit left in these
        // directories (it has no journal): finish it first.
        self.sweep_dirs(changes, &writes);
        match writes[..] {
            [] => {}
            [i] if changes[i].is_edit() => {
                let (Before::Present(snapshot), Some(after), Some(meta)) =
                    (&changes[i].before, &changes[i].after, &current[i])
                else {
                    unreachable!("an edit has a snapshot, new bytes and a locked file");
                };
                let done =
                    SingleFile::new(&self.settings, snapshot, after, changes[i].backup, meta)
                        .stage()
                        .and_then(|s| s.rename())
                        .and_then(|r| r.commit());
                // Names this commit could not remove are found by the next
                // one of this file, but not by one of another file there.
                if !done.as_ref().is_ok_and(|d| d.clean) {
                    self.swept_dirs.forget(&snapshot.dir);
                }
                let done = done?;
                report.files[i].written = true;
                report.files[i].backup_path = done.backup;
            }
            _ => Transaction::begin(&self.settings, changes, &writes)?
                .stage(current)?
                .prepare()?
                .rename()?
                .commit(&mut report)?,
        }
        Ok(report)
    }
}

/// What step 1 holds until the commit ends.
struct Locks<'a> {
    _table: lock::TableGuard<'a>,
    /// Each change's locked file (`None`: a path to create).
    files: Vec<Option<File>>,
    /// Every path of the commit, sorted.
    sorted: Vec<PathBuf>,
}

/// Step 2, under the locks: the bytes on disk are the snapshot's, or the
/// change is recomputed from the bytes on disk by `rebase`; a path to create
/// is still absent. Returns each locked file's metadata (`None` for a path to
/// create).
fn verify<E>(
    changes: &mut [PathChange],
    locked: &[Option<File>],
    rebase: &mut impl FnMut(usize, &File) -> Result<Option<(Vec<u8>, Option<Vec<u8>>)>, E>,
) -> Result<Vec<Option<Metadata>>, CommitError<E>> {
    let mut current: Vec<Option<Metadata>> = Vec::with_capacity(changes.len());
    for (i, (change, file)) in changes.iter_mut().zip(locked).enumerate() {
        let path = change.path().to_path_buf();
        let verify_err = |e: io::Error| fail(Some(i), FsError::from_io(&e, FsOp::Verify, &path));
        let Some(file) = file else {
            if let Before::Absent(a) = &change.before
                && a.missing.is_empty()
                && let Some(l) = stage::lstat(&a.dir, &a.name).map_err(verify_err)?
            {
                let kind = FsErrorKind::AlreadyExists(fsio::type_name(l.file_type));
                return Err(fail(Some(i), FsError::new(kind, FsOp::Verify, &path)).into());
            }
            current.push(None);
            continue;
        };
        let Before::Present(snapshot) = &mut change.before else {
            unreachable!("only existing files are locked");
        };
        if let Some(hash) = differs(file, &snapshot.bytes).map_err(verify_err)? {
            match rebase(i, file) {
                Ok(Some((now, after))) => {
                    tracing::debug!(path = %path.display(), "changed since read: edits re-applied under the lock");
                    snapshot.replace_bytes(now);
                    if change.after.is_some() {
                        change.after = after;
                    }
                }
                Ok(None) => {
                    let kind = FsErrorKind::Stale {
                        current_sha256: hex::encode(hash),
                    };
                    return Err(fail(Some(i), FsError::new(kind, FsOp::Verify, &path)).into());
                }
                Err(error) => return Err(CommitError::Rebase { index: i, error }),
            }
        }
        current.push(Some(file.metadata().map_err(verify_err)?));
    }
    Ok(current)
}

/// Compares what `file` holds now with `expected`: `None` if the bytes are
/// equal, else the sha256 of the current content (for the stale report).
/// Reads at most `expected.len() + 1` bytes when they are equal; hashes only
/// when they differ.
fn differs(mut file: &File, expected: &[u8]) -> io::Result<Option<[u8; 32]>> {
    use sha2::{Digest, Sha256};
    let mut now = Vec::with_capacity(expected.len() + 1);
    (&mut file)
        .take(expected.len() as u64 + 1)
        .read_to_end(&mut now)?;
    if now == expected {
        return Ok(None);
    }
    let mut hasher = Sha256::new();
    hasher.update(&now);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Some(hasher.finalize().into()))
}

#[cfg(test)]
mod tests;
