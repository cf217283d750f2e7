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
//! Then, when exactly one file changes, the single-file path below; otherwise:
//!
//! 3. **Begin** the journal (`<journal_dir>/<id>.journal`): every target, the
//!    temp name that will replace it and an undo name for its original, fsynced
//!    with its directory *before any of those names exist*.
//! 4. **Stage**, beside each target: the temp file with the new bytes, the
//!    target's mode (and owner, when root), fsynced; the undo name, a hard link
//!    to the original inode (a fsynced copy when links are refused, e.g. on
//!    immutable files); for backups, `<file>.bak`'s new content as another temp,
//!    and an undo name for an existing `.bak`. Then fsync every directory.
//! 5. **Prepare**: append the inode numbers of every temp and original to the
//!    journal, fsync.
//! 6. **Rename** every temp over its target (for a file with a backup: the
//!    `.bak` first, then the file), then fsync every directory.
//! 7. **Commit**: append `committed` to the journal, fsync. This is the point of
//!    no return. Then remove the undo names and the journal.
//!
//! A failure before step 5 removes what was staged. A failure in steps 5-7
//! rolls back: each target whose inode is its temp's gets its undo name renamed
//! back over it (a `.bak` that did not exist before is removed), in reverse
//! order; every temp is removed. A failed call therefore leaves no temp, no undo
//! name and no new or changed `.bak`: an existing `.bak` is replaced only by a
//! commit that succeeds, because its replacement is one of the transaction's
//! renames. If cleanup itself fails (say, the file system went read-only), the
//! journal is kept and [`Committer::recover`] finishes the job later.
//!
//! # Creations, deletions and moves
//!
//! [`Committer::commit_paths`] generalises the above to any set of
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
//! # A single file: no journal
//!
//! One rename is atomic by itself, so a commit that writes one file (the
//! common `multi_edit`) skips the journal and its four fsyncs:
//!
//! 1-2. Lock and verify, as above.
//! 3. **Stage** beside the file, under fixed names `.<name>.splice.<role>`: for
//!    a backup, `.bak`'s new content (`bak-tmp`, fsynced) and a hard link to an
//!    existing `.bak` (`bak-undo`); the temp with the new bytes, mode and owner
//!    (`tmp`, fsynced); a hard link to the original (`undo`; a copy when links
//!    are refused). None of the undo names is fsynced: they only serve a live
//!    rollback.
//! 4. **Rename** the `.bak` temp over `.bak`, then the temp over the file: the
//!    commit point. Then fsync the directory: two fsyncs in all without a
//!    backup, three with one.
//! 5. Remove the undo names.
//!
//! A failure in step 3 removes what was staged. A failed rename of the file,
//! or a failed fsync of the directory after it, puts the original back from
//! its undo link and the old `.bak` from its own (or removes a `.bak` that did
//! not exist), so a failed call changes nothing, as on the journaled path.
//!
//! A crash leaves the file entirely old or entirely new (one rename; it is
//! only reported written after the directory fsync). What a crash can leave
//! besides: the fixed-name temps and undo links (hidden, recognisable, never a
//! partial target), which the next single-file commit of the same file
//! replaces (it holds the file's lock, so no live commit can own them), and
//! which the next commit writing in that directory and `splice recover`
//! finish from their names alone ([`sweep`]); and, with
//! a backup, `.bak` already holding the file's current content while the file
//! is still old (the previous `.bak` then survives as `.<name>.splice.bak-undo`).
//! The journaled path never replaces a `.bak` without the file; the
//! single-file path trades that for two to four fewer fsyncs per call.
//!
//! # Crash recovery, and why it is safe
//!
//! [`Committer::recover`] reads every journal no live process holds locked and
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
//! the timeout the transaction is [`RecoveryOutcome::Deferred`]). Until recovery
//! runs, a crashed transaction's already-renamed files are visible to readers:
//! run [`Committer::recover`] at start-up, before serving.
//!
//! Every recovery step is idempotent (a rename of an undo name that is already
//! gone is skipped by the inode check; removals of missing names succeed), so an
//! interrupted recovery is finished by the next one. Journal records end in a
//! checksum; a torn record counts as not written, which is always the safe
//! reading: a torn `prepared` means no rename started; a torn `committed` means
//! the call never reported success, and rolling back is allowed.
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
//! | cleanup (unlinks, journal removal) | `committed` | any subset of undo names and the journal | committed → remove the rest |
//!
//! The single-file path, step by step (its staging names are fixed, so
//! [`sweep`] reads the state from the names that survive; "±" means the
//! name may or may not have survived, since nothing fsynced it):
//!
//! | lost during / after | durable before it | possible states after reboot | the sweep (next edit in the directory, `splice recover`) |
//! |---|---|---|---|
//! | 3. stage `bak-tmp` (create, write, mode, fsync), `bak-undo` link | nothing | file and `.bak` old; `bak-tmp` ± (empty or short before its fsync), `bak-undo` ± | no `tmp`: remove what is there; all old |
//! | 3. stage `tmp` (create, write, mode, fsync), `undo` link | `bak-tmp` | file and `.bak` old; `tmp` ± (short before its fsync), `undo` ± | `tmp` there: roll back (remove all four); else remove the rest; all old |
//! | 4. renames (`bak-tmp` over `.bak`, `tmp` over the file), until the directory fsync | `tmp`, `bak-tmp` (complete bytes) | any subset of the two renames (one directory, unordered until the fsync): (a) neither: all old; (b) `.bak` only: file old, `.bak` new, `tmp` there; (c) file only: file new, `.bak` still the previous backup, `bak-tmp` there; (d) both: all new. `undo`, `bak-undo` ± | (a) roll back; (b) roll back, the previous `.bak` back from `bak-undo` if that link survived (else `.bak` stays new, holding the file's current content); (c) `tmp` gone: roll forward, `bak-tmp` removed, so this edit's backup is lost and `.bak` is the previous one; (d) roll forward |
//! | 4. directory fsync done (the call is answered after it) | both renames | file and `.bak` new; `undo`, `bak-undo` ± | roll forward: remove them |
//! | 5. removal of the undo links | both renames | as above | as above |
//!
//! So after a power loss the file is old or new, never torn, and the
//! only state outside all-old/all-new is the `.bak` of (b) or (c), which
//! a process crash cannot produce (the renames happen in order; (b) it
//! can, and the sweep undoes it while `bak-undo` exists). Case (c) needs a
//! file system that persists the second rename of a directory without the
//! first.
//!
//! What the tests cover: `scripts/fault-points` runs the real binary under
//! `strace`, counts the file-system calls of one call and, for every one
//! of them, fails it with each errno it can return (EIO, ENOSPC,
//! EACCES/EPERM, EROFS, ENOLCK) and, separately, kills the server on
//! entering it, then runs `splice recover` (and, in another run, a server
//! start and the next edit), and for a crash in each distinct recovery
//! kills `splice recover` at each of its own calls and runs it again.
//! Counted points and results are in the README ("Guarantees and their
//! limits"); CI runs `scripts/fault-points --ci`, a fixed subset (EIO and
//! kill at every point of `multi_edit` with and without backup, at every
//! 4th point of the 5-file `multi_edit_files` with and without backup,
//! `splice recover` killed at each of its calls for two recovery kinds of
//! `multi_edit_files` and one of `multi_edit` with backup, the dry runs;
//! about a minute); `scripts/fault-points` with no option runs everything
//! (23 minutes on the 2-core CI machine).
//!
//! What the tests do not cover: `scripts/fault-points` and the crash tests
//! kill processes, which keeps every write the kernel accepted; no test
//! drops unsynced writes or reorders them (that needs a block-level
//! recorder such as dm-log-writes or CrashMonkey, not available in CI), so
//! both tables above are reasoning from the fsync order, not a
//! measurement. Double faults (a fault in the rollback after a first
//! fault) are exercised by the hand-written tests in
//! `server/tests/commit_faults.rs` and, through the binary, by
//! `e2e_faults::a_failed_rollback_is_reported_per_file_and_finished_by_recover`
//! (every rename from the second on fails), not enumerated. A point is one call on
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
//! `$XDG_STATE_HOME/splice/journal`, else `~/.local/state/splice/journal`).

mod journal;
mod lock;
mod recovery;
mod stage;
mod sweep;

use std::ffi::OsStr;
use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use lock::Wait;
pub use recovery::{IgnoredEntry, RecoveredTransaction, RecoveryOutcome, RecoveryReport};
pub use sweep::Swept;

use crate::fsio::{self, FileSnapshot, FsError, FsErrorKind, FsOp, file_id};
use crate::sandbox::Dir;
use journal::{Journal, Replacement, Role, Staged};
use lock::LockTable;
use stage::Attrs;

/// One file to rewrite.
#[derive(Debug, Clone)]
pub struct FileChange {
    /// What was read; the commit fails as stale if the file differs from it.
    pub snapshot: FileSnapshot,
    pub new_bytes: Vec<u8>,
    /// Keep the original as `<file>.bak` (only if the file is actually written).
    pub backup: bool,
}

impl From<FileChange> for PathChange {
    fn from(c: FileChange) -> PathChange {
        PathChange {
            before: Before::Present(c.snapshot),
            after: Some(c.new_bytes),
            like: None,
            mode: None,
            backup: c.backup,
        }
    }
}

/// A path that does not exist yet: where it will be created (see
/// [`crate::sandbox::locate_new`]).
pub use crate::sandbox::Absent as NewPath;

/// What a path of a transaction is before it.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // a handful per call, moved once
pub enum Before {
    /// An existing regular file, as read (the commit fails as stale if it
    /// differs at the commit, unless the rebase hook recomputes it).
    Present(FileSnapshot),
    /// Nothing; the commit fails with [`FsErrorKind::AlreadyExists`] if
    /// something is there by then.
    Absent(NewPath),
}

/// One path of a transaction: from `before` to `after` (`None`: absent).
/// An edit is present to new bytes, a creation absent to bytes, a deletion
/// present to absent, and a move a deletion plus a creation. Undoing a
/// committed transaction is the same with the two sides swapped.
#[derive(Debug, Clone)]
pub struct PathChange {
    pub before: Before,
    pub after: Option<Vec<u8>>,
    /// For a creation: the file whose mode (and owner, when root) the new
    /// file gets (a moved file keeps its own); `None`: 0666 less the umask.
    pub like: Option<Metadata>,
    /// For a creation without `like`: the mode bits the new file gets (an
    /// undo re-creating a deleted file gives it its recorded mode); `None`:
    /// 0666 less the umask.
    pub mode: Option<u32>,
    /// Keep the original as `<file>.bak` (edits only, and only if written).
    pub backup: bool,
}

impl PathChange {
    /// The canonical path.
    pub fn path(&self) -> &Path {
        match &self.before {
            Before::Present(s) => &s.path,
            Before::Absent(a) => &a.path,
        }
    }

    /// Whether committing it changes the disk.
    fn writes(&self) -> bool {
        match (&self.before, &self.after) {
            (Before::Present(s), Some(after)) => *after != s.bytes,
            (Before::Present(_), None) | (Before::Absent(_), Some(_)) => true,
            (Before::Absent(_), None) => false,
        }
    }

    /// Present to present: an edit (the only kind the single-file path takes).
    fn is_edit(&self) -> bool {
        matches!((&self.before, &self.after), (Before::Present(_), Some(_)))
    }

    /// The `.bak` an edit with a backup writes.
    fn backup_path(&self) -> Option<PathBuf> {
        match &self.before {
            Before::Present(s) if self.backup && self.is_edit() => {
                Some(s.dir.path().join(stage::backup_name(&s.name)))
            }
            _ => None,
        }
    }
}

/// A successful commit, one entry per change, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitReport {
    pub files: Vec<FileCommitReport>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCommitReport {
    pub path: PathBuf,
    /// False when the new bytes equal the old ones: nothing was written.
    pub written: bool,
    pub backup_path: Option<PathBuf>,
}

/// What went wrong and how far the commit got before it was undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitFailure {
    /// The change (input index) whose step failed; `None` for a failure of the
    /// transaction itself (its journal, or a directory shared by several files).
    pub failed_index: Option<usize>,
    pub error: FsError,
    /// Edited files (not `.bak`s) renamed into place before the failure.
    pub renamed_before_failure: usize,
    pub rollback: RollbackOutcome,
}

/// Why [`Committer::commit_with`] wrote nothing (or undid what it wrote).
#[derive(Debug)]
pub enum CommitError<E> {
    /// A file-system step failed; see [`CommitFailure`].
    Failed(CommitFailure),
    /// The rebase hook refused change `index` with `error`; nothing was written.
    Rebase { index: usize, error: E },
    /// The call was cancelled before the commit point; nothing was written.
    Cancelled,
}

impl<E> From<CommitFailure> for CommitError<E> {
    fn from(failure: CommitFailure) -> Self {
        CommitError::Failed(failure)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RollbackOutcome {
    /// Whether any rename had to be undone (false: failed before the renames).
    pub attempted: bool,
    /// Files put back to their original content.
    pub restored: usize,
    /// The files (positions in the commit's changes) that had been replaced,
    /// or whose state could not be read, and could not be put back: they
    /// hold, or may hold, the new content.
    pub not_restored: Vec<usize>,
    /// Whether every temp and undo name is gone. If not, the journal was kept
    /// and [`Committer::recover`] removes them once the file system allows.
    pub cleanup_complete: bool,
}

/// A point between the steps of a commit, for tests that inject faults.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Every lock taken, nothing verified yet.
    Locked,
    /// Every temp staged and the prepare record durable: renames come next.
    Prepared,
    /// The `n`th rename (counting `.bak`s) just happened.
    Renamed(usize),
    /// The commit record is durable.
    Committed,
}

type Hook = Arc<dyn Fn(Phase) + Send + Sync>;

/// Commits sets of file changes atomically; one per server, shared by all calls.
pub struct Committer {
    journal_dir: PathBuf,
    locks: LockTable,
    durable: bool,
    lock_timeout: Duration,
    hook: Option<Hook>,
}

impl std::fmt::Debug for Committer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Committer")
            .field("journal_dir", &self.journal_dir)
            .field("durable", &self.durable)
            .field("lock_timeout", &self.lock_timeout)
            .finish_non_exhaustive()
    }
}

impl Committer {
    /// A committer journaling in `journal_dir` (created, mode 0700, if missing).
    ///
    /// Refused ([`io::ErrorKind::PermissionDenied`]) when the directory is not
    /// owned by this process's user or is writable by group or others: recovery
    /// acts on what the journals there say, so nobody else may write them.
    pub fn new(journal_dir: PathBuf) -> io::Result<Committer> {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&journal_dir)?;
        let journal_dir = fs::canonicalize(&journal_dir)?;
        journal::check_trusted(&fs::symlink_metadata(&journal_dir)?, &journal_dir)?;
        // Read the umask (for created files) now, not inside a first call.
        let _ = Attrs::new_file();
        Ok(Committer {
            journal_dir,
            locks: LockTable::default(),
            durable: true,
            lock_timeout: Duration::from_secs(10),
            hook: None,
        })
    }

    /// The default journal directory: `$XDG_STATE_HOME/splice/journal`, else
    /// `$HOME/.local/state/splice/journal`.
    pub fn default_journal_dir() -> Option<PathBuf> {
        let state = std::env::var_os("XDG_STATE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| {
                let home = std::env::var_os("HOME").filter(|v| !v.is_empty())?;
                Some(PathBuf::from(home).join(".local/state"))
            })?;
        Some(state.join("splice/journal"))
    }

    pub fn journal_dir(&self) -> &Path {
        &self.journal_dir
    }

    /// Turns every fsync off (`false`) or on. Only for measuring what
    /// durability costs: without fsync a power loss can lose or mix commits.
    pub fn durable(mut self, durable: bool) -> Committer {
        self.durable = durable;
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
        self.hook = Some(Arc::new(hook));
        self
    }

    fn at(&self, phase: Phase) {
        if let Some(hook) = &self.hook {
            hook(phase);
        }
    }

    /// Finishes or undoes every transaction a dead process left in the journal
    /// directory (see the module docs). Journals of live commits are skipped.
    pub fn recover(&self) -> io::Result<RecoveryReport> {
        recovery::recover(&self.journal_dir, &self.locks, self.lock_timeout, None)
    }

    /// [`Committer::recover`], touching only files inside `roots` (canonical):
    /// a journal naming anything else (tampered with, or written under other
    /// roots) is kept and reported as [`RecoveryOutcome::Deferred`].
    pub fn recover_within(&self, roots: &[PathBuf]) -> io::Result<RecoveryReport> {
        recovery::recover(
            &self.journal_dir,
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
    /// commit (the caller holds the locks of `own`, its files there).
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
            let swept = sweep::sweep(dir, &self.locks, own);
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
        // 1. Lock, in sorted path order.
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
        let sorted: Vec<&Path> = sorted.iter().map(PathBuf::as_path).collect();
        let cancelled = wait.cancelled;
        let until = wait
            .until
            .unwrap_or_else(|| Instant::now() + self.lock_timeout);
        let _table = match self.locks.lock_all_until(&sorted, cancelled, Some(until)) {
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
        // Existing files are `flock`ed; a path to create has no inode to
        // lock: its creation is a `RENAME_NOREPLACE`, which fails rather
        // than replace what another process created meanwhile.
        let mut locked: Vec<Option<File>> = (0..changes.len()).map(|_| None).collect();
        for &i in &order {
            let Before::Present(s) = &changes[i].before else {
                continue;
            };
            match lock::lock_file_until(&s.dir, &s.name, &s.path, until, cancelled) {
                Ok(Some(file)) => locked[i] = Some(file),
                Ok(None) => return Err(CommitError::Cancelled),
                Err(e) => return Err(fail(Some(i), e).into()),
            }
        }
        self.at(Phase::Locked);

        // 2. Verify, under the locks: the bytes on disk are the snapshot's,
        //    or the change is recomputed from the bytes on disk; a path to
        //    create is still absent.
        let mut current: Vec<Option<Metadata>> = Vec::with_capacity(changes.len());
        for (i, (change, file)) in changes.iter_mut().zip(&locked).enumerate() {
            let path = change.path().to_path_buf();
            let verify_err =
                |e: io::Error| fail(Some(i), FsError::from_io(&e, FsOp::Verify, &path));
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
        let changes = changes;

        // The commit point: a call cancelled before it writes nothing.
        if cancelled() {
            return Err(CommitError::Cancelled);
        }

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
                && sorted.binary_search(&bak.as_path()).is_ok()
            {
                let error = FsError::new(FsErrorKind::DuplicatePath, FsOp::Backup, &bak);
                return Err(fail(Some(i), error).into());
            }
        }
        // Staging names an interrupted single-file commit left in these
        // directories (it has no journal): finish it first.
        if !writes.is_empty() {
            self.sweep_dirs(&changes, &writes);
        }
        match writes[..] {
            [] => Ok(report),
            [i] if changes[i].is_edit() => {
                let (Before::Present(snapshot), Some(after), Some(meta)) =
                    (&changes[i].before, &changes[i].after, &current[i])
                else {
                    unreachable!("an edit has a snapshot, new bytes and a locked file");
                };
                let backup = self.commit_one(snapshot, after, changes[i].backup, meta)?;
                report.files[i].written = true;
                report.files[i].backup_path = backup;
                Ok(report)
            }
            _ => Ok(self.commit_journaled(&changes, &current, &writes, report)?),
        }
    }

    /// The single-file path (see the module docs): no journal, because one
    /// rename is atomic by itself.
    fn commit_one(
        &self,
        snap: &FileSnapshot,
        new_bytes: &[u8],
        backup: bool,
        current: &Metadata,
    ) -> Result<Option<PathBuf>, CommitFailure> {
        let (dir, name, path) = (&*snap.dir, snap.name.as_os_str(), &snap.path);
        let attrs = Attrs::of(current);
        let temp = stage::fixed(name, "tmp");
        let undo = stage::fixed(name, "undo");
        let bak = backup.then(|| {
            let bak = stage::backup_name(name);
            (
                stage::fixed(name, "bak-tmp"),
                stage::fixed(name, "bak-undo"),
                dir.path().join(&bak),
                bak,
            )
        });
        let cleanup = |names: &[&OsStr]| -> bool {
            let mut clean = true;
            for n in names {
                if let Err(e) = stage::remove_if_exists(dir, n) {
                    tracing::warn!(error = %e, name = ?n, "could not remove a staged file");
                    clean = false;
                }
            }
            clean
        };
        let mut staged: Vec<&OsStr> = Vec::with_capacity(4);
        // The old `.bak`, if any: its identity decides the rollback.
        let mut old_bak = None;

        // Stage: the backup's temp, the file's temp, the undo links.
        let step = (|| -> Result<(), FsError> {
            if let Some((bak_temp, bak_undo, bak_path, bak)) = &bak {
                let err = |e: io::Error| FsError::from_io(&e, FsOp::Backup, bak_path);
                old_bak = stage::lstat(dir, bak).map_err(err)?;
                if let Some(l) = &old_bak
                    && l.file_type == rustix::fs::FileType::Directory
                {
                    let kind = FsErrorKind::NotRegularFile("directory");
                    return Err(FsError::new(kind, FsOp::Backup, bak_path));
                }
                staged.push(bak_temp);
                stage::write_fresh(dir, bak_temp, &snap.bytes, attrs, self.durable).map_err(err)?;
                if let Some(l) = &old_bak {
                    staged.push(bak_undo);
                    stage::make_undo(dir, bak, bak_undo, None, l.attrs, false, true)
                        .map_err(err)?;
                }
            }
            let err = |e: io::Error| FsError::from_io(&e, FsOp::Stage, path);
            staged.push(&temp);
            stage::write_fresh(dir, &temp, new_bytes, attrs, self.durable).map_err(err)?;
            staged.push(&undo);
            stage::make_undo(dir, name, &undo, Some(&snap.bytes), attrs, false, true)
                .map_err(err)?;
            Ok(())
        })();
        if let Err(error) = step {
            let cleanup_complete = cleanup(&staged);
            return Err(CommitFailure {
                failed_index: Some(0),
                error,
                renamed_before_failure: 0,
                rollback: RollbackOutcome {
                    cleanup_complete,
                    ..RollbackOutcome::default()
                },
            });
        }
        self.at(Phase::Prepared);

        // Puts the old `.bak` back after a failure past its rename.
        let restore_bak = || -> bool {
            let Some((_, bak_undo, _, bak)) = &bak else {
                return true;
            };
            let r = match &old_bak {
                Some(_) => stage::rename(dir, bak_undo, bak),
                None => stage::remove_if_exists(dir, bak),
            };
            r.is_ok()
        };

        // With a `.bak` the commit is two renames, which a power loss may
        // keep one without the other: make the staging names durable first,
        // so recovery (`sweep`) finds what it needs to finish or undo
        // either (found by scripts/power-loss).
        if bak.is_some()
            && self.durable
            && let Err(e) = dir.sync()
        {
            let cleanup_complete = cleanup(&staged);
            return Err(CommitFailure {
                failed_index: Some(0),
                error: FsError::from_io(&e, FsOp::Sync, dir.path()),
                renamed_before_failure: 0,
                rollback: RollbackOutcome {
                    cleanup_complete,
                    ..RollbackOutcome::default()
                },
            });
        }
        // Rename: the `.bak` first, then the file (the commit point).
        if let Some((bak_temp, _, bak_path, bak)) = &bak {
            if let Err(e) = stage::rename(dir, bak_temp, bak) {
                let cleanup_complete = cleanup(&staged);
                return Err(CommitFailure {
                    failed_index: Some(0),
                    error: FsError::from_io(&e, FsOp::Backup, bak_path),
                    renamed_before_failure: 0,
                    rollback: RollbackOutcome {
                        cleanup_complete,
                        ..RollbackOutcome::default()
                    },
                });
            }
            self.at(Phase::Renamed(0));
        }
        if let Err(e) = stage::rename(dir, &temp, name) {
            let restored_bak = restore_bak();
            let cleanup_complete = cleanup(&staged) && restored_bak;
            return Err(CommitFailure {
                failed_index: Some(0),
                error: FsError::from_io(&e, FsOp::Rename, path),
                renamed_before_failure: 0,
                rollback: RollbackOutcome {
                    attempted: bak.is_some(),
                    restored: 0,
                    not_restored: Vec::new(),
                    cleanup_complete,
                },
            });
        }
        self.at(Phase::Renamed(usize::from(bak.is_some())));
        if self.durable
            && let Err(e) = dir.sync()
        {
            // Not durable, so not done: put the original back.
            let restored = stage::rename(dir, &undo, name).is_ok();
            let restored_bak = restore_bak();
            let cleanup_complete = cleanup(&staged) && restored_bak && restored;
            let _ = dir.sync();
            return Err(CommitFailure {
                failed_index: Some(0),
                error: FsError::from_io(&e, FsOp::Sync, dir.path()),
                renamed_before_failure: 1,
                rollback: RollbackOutcome {
                    attempted: true,
                    restored: usize::from(restored),
                    not_restored: if restored { Vec::new() } else { vec![0] },
                    cleanup_complete,
                },
            });
        }
        self.at(Phase::Committed);
        // The undo names are only for the rollback above; a crash before
        // this leaves them for the next commit of this file to replace.
        let mut leftovers: Vec<&OsStr> = vec![&undo];
        if let Some((_, bak_undo, _, _)) = &bak
            && old_bak.is_some()
        {
            leftovers.push(bak_undo);
        }
        cleanup(&leftovers);
        Ok(bak.map(|(_, _, bak_path, _)| bak_path))
    }

    /// The journaled path for several files, and for any transaction that
    /// creates or deletes (steps 3-7 of the module docs).
    fn commit_journaled(
        &self,
        changes: &[PathChange],
        current: &[Option<Metadata>],
        writes: &[usize],
        mut report: CommitReport,
    ) -> Result<CommitReport, CommitFailure> {
        // Where each replacement goes: an existing directory's handle, or a
        // directory this transaction creates (by canonical path).
        struct Slot {
            role: Role,
            parent: PathBuf,
            dir: Option<Arc<Dir>>,
            target: std::ffi::OsString,
            temp: std::ffi::OsString,
            undo: std::ffi::OsString,
        }
        let mut slots: Vec<Slot> = Vec::new();
        // Directories to create, outermost first, with the change that
        // needs each first and the handle of the existing directory above.
        let mut new_dirs: Vec<(PathBuf, usize)> = Vec::new();
        let mut bases: std::collections::BTreeMap<PathBuf, Arc<Dir>> = Default::default();
        for &i in writes {
            let c = &changes[i];
            match (&c.before, &c.after) {
                (Before::Present(snap), Some(_)) => {
                    if c.backup {
                        slots.push(Slot {
                            role: Role::Backup(i),
                            parent: snap.dir.path().to_path_buf(),
                            dir: Some(snap.dir.clone()),
                            temp: stage::sibling(&snap.name, "bak.tmp"),
                            undo: stage::sibling(&snap.name, "bak.undo"),
                            target: stage::backup_name(&snap.name),
                        });
                    }
                    slots.push(Slot {
                        role: Role::File(i),
                        parent: snap.dir.path().to_path_buf(),
                        dir: Some(snap.dir.clone()),
                        target: snap.name.clone(),
                        temp: stage::sibling(&snap.name, "tmp"),
                        undo: stage::sibling(&snap.name, "undo"),
                    });
                }
                (Before::Present(snap), None) => slots.push(Slot {
                    role: Role::Delete(i),
                    parent: snap.dir.path().to_path_buf(),
                    dir: Some(snap.dir.clone()),
                    target: snap.name.clone(),
                    temp: stage::sibling(&snap.name, "tmp"),
                    undo: stage::sibling(&snap.name, "undo"),
                }),
                (Before::Absent(a), Some(_)) => {
                    let mut p = a.dir.path().to_path_buf();
                    bases.insert(p.clone(), a.dir.clone());
                    for m in &a.missing {
                        p.push(m);
                        if !new_dirs.iter().any(|(d, _)| *d == p) {
                            new_dirs.push((p.clone(), i));
                        }
                    }
                    slots.push(Slot {
                        role: Role::File(i),
                        dir: a.missing.is_empty().then(|| a.dir.clone()),
                        parent: p,
                        target: a.name.clone(),
                        temp: stage::sibling(&a.name, "tmp"),
                        undo: stage::sibling(&a.name, "undo"),
                    });
                }
                (Before::Absent(_), None) => {}
            }
        }
        new_dirs.sort_by_key(|(d, _)| d.components().count());

        // 3. Begin the journal.
        let records: Vec<journal::Record> = slots
            .iter()
            .map(|s| journal::Record {
                role: s.role,
                target: s.parent.join(&s.target),
                temp: s.parent.join(&s.temp),
                undo: s.parent.join(&s.undo),
            })
            .collect();
        let dir_paths: Vec<PathBuf> = new_dirs.iter().map(|(d, _)| d.clone()).collect();
        let journal = self
            .begin_journal(&records, &dir_paths)
            .map_err(|e| fail(None, FsError::from_io(&e, FsOp::Journal, &self.journal_dir)))?;

        // 3b. Create the missing directories (recorded in `begin`, so a
        //     crash from here on removes them).
        let mut created: Vec<recovery::CreatedDir> = Vec::new();
        for (path, i) in &new_dirs {
            let step = (|| -> io::Result<()> {
                let parent_path = path.parent().unwrap_or(Path::new("/"));
                let parent = bases
                    .get(parent_path)
                    .cloned()
                    .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))?;
                let name = path.file_name().unwrap_or_default();
                let (dir, made) = parent.make_child(name)?;
                if made {
                    created.push(recovery::CreatedDir {
                        parent: parent.clone(),
                        name: name.to_os_string(),
                        path: path.clone(),
                    });
                    if self.durable {
                        parent.sync()?;
                    }
                }
                bases.insert(path.clone(), Arc::new(dir));
                Ok(())
            })();
            if let Err(e) = step {
                let error = FsError::from_io(&e, FsOp::Stage, path);
                let rollback = self.discard(&[], &created, journal);
                return Err(CommitFailure {
                    failed_index: Some(*i),
                    error,
                    renamed_before_failure: 0,
                    rollback,
                });
            }
        }
        let plan: Vec<Replacement> = slots
            .into_iter()
            .map(|s| Replacement {
                role: s.role,
                dir: s
                    .dir
                    .or_else(|| bases.get(&s.parent).cloned())
                    .expect("every missing directory was created above"),
                target: s.target,
                temp: s.temp,
                undo: s.undo,
            })
            .collect();
        let mut journal = journal;

        // 4. Stage.
        let mut staged = Vec::with_capacity(plan.len());
        for rep in &plan {
            let i = rep.role.index();
            match self.stage(rep, &changes[i], current[i].as_ref()) {
                Ok(s) => staged.push(s),
                Err(error) => {
                    let rollback = self.discard(&plan, &created, journal);
                    return Err(CommitFailure {
                        failed_index: Some(i),
                        error,
                        renamed_before_failure: 0,
                        rollback,
                    });
                }
            }
        }
        if self.durable {
            for dir in recovery::parents(&plan) {
                if let Err(e) = dir.sync() {
                    let error = FsError::from_io(&e, FsOp::Sync, dir.path());
                    let rollback = self.discard(&plan, &created, journal);
                    return Err(CommitFailure {
                        failed_index: None,
                        error,
                        renamed_before_failure: 0,
                        rollback,
                    });
                }
            }
        }

        // 5. Prepare.
        if let Err(e) = journal.prepared(&staged) {
            let error = FsError::from_io(&e, FsOp::Journal, &self.journal_dir);
            let rollback = self.discard(&plan, &created, journal);
            return Err(CommitFailure {
                failed_index: None,
                error,
                renamed_before_failure: 0,
                rollback,
            });
        }
        self.at(Phase::Prepared);

        // 6. Rename (a creation never replaces anything; a deletion unlinks).
        let mut renamed_files = 0;
        for (k, rep) in plan.iter().enumerate() {
            let creates = matches!(rep.role, Role::File(_)) && staged[k].orig.is_none();
            let step = match rep.role {
                Role::Delete(_) => stage::unlink(&rep.dir, &rep.target),
                _ if creates => stage::rename_new(&rep.dir, &rep.temp, &rep.target),
                _ => stage::rename(&rep.dir, &rep.temp, &rep.target),
            };
            if let Err(e) = step {
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
                return Err(self.abort(
                    &plan,
                    &staged,
                    &created,
                    journal,
                    Some(rep.role.index()),
                    error,
                    renamed_files,
                ));
            }
            if let Role::File(_) | Role::Delete(_) = rep.role {
                renamed_files += 1;
            }
            self.at(Phase::Renamed(k));
        }
        if self.durable {
            for dir in recovery::parents(&plan) {
                if let Err(e) = dir.sync() {
                    let error = FsError::from_io(&e, FsOp::Sync, dir.path());
                    return Err(self.abort(
                        &plan,
                        &staged,
                        &created,
                        journal,
                        None,
                        error,
                        renamed_files,
                    ));
                }
            }
        }

        // 7. Commit.
        if let Err(e) = journal.committed() {
            let error = FsError::from_io(&e, FsOp::Journal, &self.journal_dir);
            return Err(self.abort(
                &plan,
                &staged,
                &created,
                journal,
                None,
                error,
                renamed_files,
            ));
        }
        self.at(Phase::Committed);
        let leftovers = recovery::remove_leftovers(&plan, recovery::Leftovers::Undo);
        // The undo names' removal durable before the journal's: otherwise a
        // power loss can keep the journal's removal and drop theirs, leaving
        // them in the user's tree with no journal to find them (found by
        // scripts/power-loss). A failed fsync here is only logged: the names
        // are gone for every reader, and keeping the journal for it would
        // leave one behind on a mere I/O error.
        if leftovers.is_empty() && self.durable {
            for dir in recovery::parents(&plan) {
                if let Err(e) = dir.sync() {
                    tracing::warn!(error = %e, dir = %dir.path().display(), "could not fsync a directory after removing undo names");
                }
            }
        }
        if leftovers.is_empty() {
            if let Err(e) = journal.remove() {
                tracing::warn!(error = %e, "could not remove a finished journal; recovery will");
            }
        } else {
            // Committed: the edit stands. The journal stays so recovery removes
            // the undo names once it can.
            for problem in &leftovers {
                tracing::warn!(%problem, "could not remove an undo file after a commit");
            }
        }
        for rep in &plan {
            let i = rep.role.index();
            match rep.role {
                Role::File(_) | Role::Delete(_) => report.files[i].written = true,
                Role::Backup(_) => report.files[i].backup_path = Some(rep.target_path()),
            }
        }
        Ok(report)
    }

    /// Step 4 for one replacement.
    /// Begins a journal; a journal directory deleted while the server runs is
    /// recreated (mode 0700, checked as at start) and the journal begun again.
    fn begin_journal(&self, records: &[journal::Record], dirs: &[PathBuf]) -> io::Result<Journal> {
        match Journal::begin(&self.journal_dir, records, dirs, self.durable) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                use std::os::unix::fs::DirBuilderExt;
                tracing::warn!(dir = %self.journal_dir.display(), "journal directory vanished; recreating it");
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(&self.journal_dir)?;
                journal::check_trusted(
                    &fs::symlink_metadata(&self.journal_dir)?,
                    &self.journal_dir,
                )?;
                Journal::begin(&self.journal_dir, records, dirs, self.durable)
            }
            other => other,
        }
    }

    fn stage(
        &self,
        rep: &Replacement,
        change: &PathChange,
        current: Option<&Metadata>,
    ) -> Result<Staged, FsError> {
        let dir = &*rep.dir;
        let err = |op| move |e: io::Error| FsError::from_io(&e, op, rep.target_path());
        match (rep.role, &change.before, current) {
            (Role::File(_), Before::Present(snap), Some(current)) => {
                let attrs = Attrs::of(current);
                let new_bytes = change.after.as_deref().unwrap_or_default();
                let temp = stage::write_new(dir, &rep.temp, new_bytes, attrs, self.durable)
                    .map_err(err(FsOp::Stage))?;
                stage::make_undo(
                    dir,
                    &rep.target,
                    &rep.undo,
                    Some(&snap.bytes),
                    attrs,
                    self.durable,
                    false,
                )
                .map_err(err(FsOp::Stage))?;
                Ok(Staged {
                    temp: file_id(&temp),
                    orig: Some(file_id(current)),
                })
            }
            (Role::File(_), Before::Absent(_), _) => {
                let attrs = match (&change.like, change.mode) {
                    (Some(like), _) => Attrs::of(like),
                    (None, Some(mode)) => Attrs {
                        mode: mode & 0o7777,
                        ..Attrs::new_file()
                    },
                    (None, None) => Attrs::new_file(),
                };
                let new_bytes = change.after.as_deref().unwrap_or_default();
                let temp = stage::write_new(dir, &rep.temp, new_bytes, attrs, self.durable)
                    .map_err(err(FsOp::Stage))?;
                Ok(Staged {
                    temp: file_id(&temp),
                    orig: None,
                })
            }
            (Role::Delete(_), Before::Present(snap), Some(current)) => {
                // The undo name is the deleted file's only copy until the
                // commit record: made durable like a temp.
                stage::make_undo(
                    dir,
                    &rep.target,
                    &rep.undo,
                    Some(&snap.bytes),
                    Attrs::of(current),
                    self.durable,
                    false,
                )
                .map_err(err(FsOp::Stage))?;
                Ok(Staged {
                    temp: (0, 0),
                    orig: Some(file_id(current)),
                })
            }
            (Role::Backup(_), Before::Present(snap), Some(current)) => {
                let attrs = Attrs::of(current);
                let err = err(FsOp::Backup);
                let orig = stage::lstat(dir, &rep.target).map_err(err)?;
                if let Some(l) = &orig
                    && l.file_type == rustix::fs::FileType::Directory
                {
                    let kind = FsErrorKind::NotRegularFile("directory");
                    return Err(FsError::new(kind, FsOp::Backup, rep.target_path()));
                }
                let temp = stage::write_new(dir, &rep.temp, &snap.bytes, attrs, self.durable)
                    .map_err(err)?;
                if let Some(old) = &orig {
                    stage::make_undo(
                        dir,
                        &rep.target,
                        &rep.undo,
                        None,
                        old.attrs,
                        self.durable,
                        false,
                    )
                    .map_err(err)?;
                }
                Ok(Staged {
                    temp: file_id(&temp),
                    orig: orig.map(|l| l.id),
                })
            }
            _ => unreachable!("a plan's roles follow its changes' kinds"),
        }
    }

    /// Undoes a transaction that failed before its prepare record.
    fn discard(
        &self,
        plan: &[Replacement],
        created: &[recovery::CreatedDir],
        journal: Journal,
    ) -> RollbackOutcome {
        let mut problems = recovery::remove_leftovers(plan, recovery::Leftovers::TempsAndUndo);
        if problems.is_empty() {
            problems.extend(recovery::remove_dirs(created, self.durable));
        }
        let cleanup_complete = problems.is_empty();
        if cleanup_complete {
            if let Err(e) = journal.remove() {
                tracing::warn!(error = %e, "could not remove an abandoned journal; recovery will");
            }
        } else {
            for problem in &problems {
                tracing::warn!(%problem, "could not remove a staged file; recovery will");
            }
        }
        RollbackOutcome {
            attempted: false,
            restored: 0,
            not_restored: Vec::new(),
            cleanup_complete,
        }
    }

    /// Undoes a prepared transaction after a failure (steps 5-7).
    #[allow(clippy::too_many_arguments)]
    fn abort(
        &self,
        plan: &[Replacement],
        staged: &[Staged],
        created: &[recovery::CreatedDir],
        journal: Journal,
        failed_index: Option<usize>,
        error: FsError,
        renamed_before_failure: usize,
    ) -> CommitFailure {
        let mut undone = recovery::roll_back(plan, staged, self.durable);
        if undone.problems.is_empty() && undone.conflicts.is_empty() {
            undone
                .problems
                .extend(recovery::remove_dirs(created, self.durable));
        }
        let cleanup_complete = undone.problems.is_empty();
        if cleanup_complete {
            if let Err(e) = journal.remove() {
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
            renamed_before_failure,
            rollback: RollbackOutcome {
                attempted: true,
                restored: undone.restored,
                not_restored: undone.not_restored,
                cleanup_complete,
            },
        }
    }
}

/// A failure before anything was staged.
fn fail(index: Option<usize>, error: FsError) -> CommitFailure {
    CommitFailure {
        failed_index: index,
        error,
        renamed_before_failure: 0,
        rollback: RollbackOutcome {
            cleanup_complete: true,
            ..RollbackOutcome::default()
        },
    }
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
