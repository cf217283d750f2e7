//! The undo store: what each committed call changed, kept so that an `undo`
//! can put it back (issue #14).
//!
//! Why a store of its own: an undo must survive a server restart and must
//! never litter the user's tree (that is what `.bak` files do, and they stay
//! for drop-in compatibility). So each committed transaction is kept in
//! splice's state directory, by default `$XDG_STATE_HOME/splice/undo` (else
//! `~/.local/state/splice/undo`), beside the commit journal:
//!
//! ```text
//! undo/
//!   log-019a2b3c4d5e-00001f2a-0000   a segment: each transaction appended as
//!                                    a line of JSON (id, time, tool, and per
//!                                    path: operation, the SHA-256, length and
//!                                    mode of its content before, or "absent",
//!                                    and the SHA-256 after, or "absent"),
//!                                    then each content before, back to back
//! ```
//!
//! How segments are written, rotated, read by other processes and removed
//! is [`log`]'s. (A store written by an earlier splice holds one file per
//! transaction, named by its id, with the same line and contents, or one
//! directory per transaction, `record.json` plus `before-<i>` files: still
//! read, listed and pruned, never written.)
//!
//! **Durability.** The store is not `fsync`ed: recording costs a few page
//! cache writes per committed call, not more disk flushes (which doubled
//! the latency of a small edit). This is safe because nothing the store
//! says is trusted unchecked: after a power loss a record may be missing
//! (the call can no longer be undone: `TRANSACTION_NOT_FOUND`) or hold torn
//! content, which the hashes below refuse; it can never make an undo write
//! wrong bytes. The user's files themselves are committed through the
//! fsynced journal as always, undos included.
//!
//! A reader takes a record only once its line and contents are all in its
//! segment, so it sees all of a transaction or nothing; a crash leaves at
//! most a torn record at a segment's end, never read. Each content is
//! checked against its recorded SHA-256 when read back, so a damaged store
//! refuses an undo instead of writing damaged bytes.
//!
//! **Cost.** Recording is on by default, so it must cost next to nothing on
//! the most common call (issue #25: at most 0.1 ms at the p50 of a small
//! edit; measured 9-29 µs through the SDK client, `bench/run`, 2026-11-27).
//! It cannot be done beside the commit: a file creation in the same file
//! system just before, during or just after the commit's `fsync`s
//! cost that call 0.3-0.5 ms, far more than its system calls (measured on
//! this project's machines, ext4 without a journal, where `perf` shows
//! inode allocation skipping recently freed inodes and `fsync` writing
//! metadata buffers one by one). So the work is moved after the answer:
//!
//! - [`UndoStore::begin`], before the commit, only decides whether the
//!   transaction can be kept and gives it its id; [`Pending::publish`],
//!   after the commit point, queues it for a thread of the store's own and
//!   returns at once with that id, without waking the thread: the thread
//!   waits for answers (the server's [`AnswerGate`]), and the call's own answer,
//!   written to the client next, wakes it. So it competes with neither the
//!   answer nor its commit, and costs one wake a call. (A wake at the
//!   publish as well, as before, cost 10-30 µs at the p50 of a small edit
//!   and up to 0.03 ms of server CPU, three runs side by side through the
//!   SDK client, 2026-11-27.) It then hashes the contents and appends the
//!   record to its segment with one `writev`. A record whose answer never
//!   comes (a call cancelled after its commit point) is written when the
//!   next one is published, a reader needs it, or the thread's idle
//!   timeout passes. The thread runs at nice 19, so on a busy machine (2
//!   cores: the server, its client, the store) it takes the cores only
//!   while the calls wait on a disk flush or on the client. A failed commit drops its `Pending`: nothing was
//!   written.
//! - Readers wait for it: [`UndoStore::get`] and [`UndoStore::list`] first
//!   let the thread finish what is queued, so an `undo` of an answered id
//!   finds its record, and the server flushes the queue before it exits
//!   ([`UndoState::flush`]).
//! - A write that fails (disk full, store removed) is remembered: an
//!   `undo` of that id answers `UNDO_UNAVAILABLE` with the errno, not
//!   "not found", and every later call records on its own thread, before
//!   its answer, until the store takes a write again, so those answers
//!   say "not recorded" themselves.
//! - What this gives up: a kill in the moment between the answer's write
//!   and the append (a fraction of a millisecond) loses that record (its `undo` answers
//!   `TRANSACTION_NOT_FOUND`), exactly what a power loss can already do to
//!   the unsynced store. It never makes an undo write wrong bytes.
//! - The same thread then drops the oldest transactions from its index
//!   (the bounds are a window over the newest records, see [`log`]),
//!   reconciled with the directory at most once a second ([`LIST_EVERY`];
//!   it reads only what other processes appended since: another server's
//!   records, or those from before a restart), and removes a segment once
//!   all its records are dropped. Nothing is created, renamed or removed
//!   per call: on ext4 without a journal (this project's machines) each
//!   creation skips past every recently freed inode and each removal
//!   discards blocks, which is what a file per transaction cost. A kill in
//!   the middle of a prune leaves a segment for the next prune; it never
//!   touches the transaction just recorded, nor anything newer.
//!
//! The content before is written as a copy rather than kept by hard-linking
//! the replaced inode: a link would save the page-cache write of the bytes
//! the call already holds (after the answer anyway), but the store
//! may live on another file system (`~/.local/state`), and a linked inode
//! could still be changed in place by whoever holds it open or another hard
//! link to it, which the hashes would then refuse: the copy keeps every
//! record usable.
//!
//! The store is bounded by a number of transactions and a number of bytes
//! of stored content ([`UndoLimits`]); after each new transaction the oldest
//! are dropped until both hold. A transaction larger than the byte bound on
//! its own is not stored ([`Recorded::TooLarge`]): the call still commits,
//! it just cannot be undone.
//!
//! The directory is trusted like the journal's: it must be owned by this
//! user and not writable by group or others
//! ([`crate::state_dir::check_private`]), since an undo writes what the
//! store says into the user's files. Ids are parsed
//! ([`TransactionId::parse`]) before they name a path, so an id from a tool
//! call cannot reach outside the store.
//!
//! This module stores and reads; it does not touch the user's files. The
//! undo itself is a transaction like any other (`commit::commit_paths`) from
//! each path's state after the call back to its state before, guarded by
//! the recorded `after` hashes.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::answer_gate::{AnswerGate, Mark};
use crate::fsio::sha256_hex;
use crate::state_dir::check_private;

mod log;

/// Default bound on the number of stored transactions.
pub const DEFAULT_MAX_TRANSACTIONS: usize = 100;
/// Default bound on the bytes of stored content (256 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// How much the store keeps; the oldest transactions go first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UndoLimits {
    /// At most this many transactions.
    pub max_transactions: usize,
    /// At most this many bytes of stored content, summed over transactions.
    pub max_bytes: u64,
}

impl Default for UndoLimits {
    fn default() -> Self {
        UndoLimits {
            max_transactions: DEFAULT_MAX_TRANSACTIONS,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// The id of a committed transaction, as a tool answers it and `undo` takes
/// it: `<time in ms>-<process id>-<counter>`, each in fixed-width hex
/// (12, 8, 8 digits), so ids sort by time and two servers never make the
/// same one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TransactionId(String);

impl TransactionId {
    /// A new id for a transaction committed at `time_unix_ms`.
    fn new(time_unix_ms: u64) -> TransactionId {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        TransactionId(format!(
            "{time_unix_ms:012x}-{:08x}-{n:08x}",
            std::process::id()
        ))
    }

    /// The id in `text`, or `None` if it is not one (anything else, such as
    /// a path, is refused before it can name a file).
    pub fn parse(text: &str) -> Option<TransactionId> {
        let mut parts = text.split('-');
        let time = parts.next()?;
        let pid = parts.next()?;
        let n = parts.next()?;
        let hex = |s: &str, len: usize| {
            s.len() == len
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        (parts.next().is_none() && hex(time, 12) && hex(pid, 8) && hex(n, 8))
            .then(|| TransactionId(text.to_string()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for TransactionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for TransactionId {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        TransactionId::parse(&s).ok_or_else(|| format!("not a transaction id: {s:?}"))
    }
}

impl From<TransactionId> for String {
    fn from(id: TransactionId) -> String {
        id.0
    }
}

/// What a transaction did to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Its content changed.
    Edit,
    /// It did not exist, and was created (or replaced, guarded by a hash).
    Create,
    /// It existed, and was deleted.
    Delete,
    /// It was the source of a move (it no longer exists).
    MoveFrom,
    /// It was the destination of a move.
    MoveTo,
}

/// One path of a committed transaction, as an undo needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathRecord {
    /// The canonical path (as committed, symlinks resolved).
    pub path: PathBuf,
    /// What the transaction did to it.
    pub operation: Operation,
    /// Its content before (`None`: it did not exist) and its mode bits.
    pub before: Option<(Vec<u8>, u32)>,
    /// The SHA-256 (hex) of its content after (`None`: it no longer exists):
    /// an undo goes ahead only if the path is still exactly this.
    pub after_sha256: Option<String>,
}

/// A committed transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    pub id: TransactionId,
    /// When it committed, in ms since the Unix epoch.
    pub time_unix_ms: u64,
    /// The tool that committed it (`multi_edit`, `multi_edit_files`, `undo`).
    pub tool: String,
    /// For an undo: the transaction it undid (undoing this one redoes that).
    pub undoes: Option<TransactionId>,
    pub paths: Vec<PathRecord>,
}

impl Transaction {
    /// A new transaction committed now, with a fresh id.
    pub fn now(tool: &str, undoes: Option<TransactionId>, paths: Vec<PathRecord>) -> Transaction {
        let time_unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        Transaction {
            id: TransactionId::new(time_unix_ms),
            time_unix_ms,
            tool: tool.to_string(),
            undoes,
            paths,
        }
    }

    /// Bytes of content the store keeps for it.
    pub fn stored_bytes(&self) -> u64 {
        self.paths
            .iter()
            .filter_map(|p| p.before.as_ref())
            .map(|(bytes, _)| bytes.len() as u64)
            .sum()
    }
}

/// What the listing shows of a transaction (no content).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub transaction_id: TransactionId,
    pub time_unix_ms: u64,
    pub tool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<TransactionId>,
    /// Each path and what the transaction did to it.
    pub files: Vec<SummaryFile>,
    /// Bytes of content kept to undo it.
    pub stored_bytes: u64,
}

/// One path of a [`Summary`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SummaryFile {
    pub path: String,
    pub operation: Operation,
}

/// Whether [`UndoStore::record`] kept the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    Stored,
    /// Its content alone is over [`UndoLimits::max_bytes`]: not kept.
    TooLarge,
    /// A path is not valid UTF-8, which the record cannot hold exactly:
    /// not kept.
    NotRepresentable,
}

/// The first line of a transaction's file (and, in the older layout,
/// `record.json`): the transaction without its content.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RecordFile {
    format: u32,
    id: TransactionId,
    time_unix_ms: u64,
    tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    undoes: Option<TransactionId>,
    paths: Vec<PathEntry>,
}

impl RecordFile {
    /// The record of `tx`, its contents hashed; `None` if a path is not
    /// valid UTF-8.
    fn of(tx: &Transaction) -> Option<RecordFile> {
        let mut paths = Vec::with_capacity(tx.paths.len());
        for p in &tx.paths {
            paths.push(PathEntry {
                path: p.path.to_str()?.to_string(),
                operation: p.operation,
                before: p.before.as_ref().map(|(bytes, mode)| BlobEntry {
                    sha256: sha256_hex(bytes),
                    len: bytes.len() as u64,
                    mode: *mode,
                }),
                after_sha256: p.after_sha256.clone(),
            });
        }
        Some(RecordFile {
            format: log::FORMAT_LOG,
            id: tx.id.clone(),
            time_unix_ms: tx.time_unix_ms,
            tool: tx.tool.clone(),
            undoes: tx.undoes.clone(),
            paths,
        })
    }

    fn stored_bytes(&self) -> u64 {
        self.paths
            .iter()
            .filter_map(|p| p.before.as_ref())
            .map(|b| b.len)
            .sum()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct PathEntry {
    path: String,
    operation: Operation,
    /// `None`: absent before.
    before: Option<BlobEntry>,
    /// `None`: absent after.
    after_sha256: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct BlobEntry {
    sha256: String,
    len: u64,
    mode: u32,
}

/// One file per transaction: an earlier splice's layout, read, never written.
const FORMAT: u32 = 2;
/// One directory per transaction: read, never written.
const FORMAT_DIR: u32 = 1;
/// The record of the directory layout.
const RECORD: &str = "record.json";
const TMP_PREFIX: &str = ".tmp-";
/// The longest first line a record may have (its paths' names and hashes:
/// far below this for any call the server's limits admit).
const MAX_HEADER: u64 = 64 * 1024 * 1024;

/// The store, in one directory.
#[derive(Debug)]
pub struct UndoStore {
    dir: PathBuf,
    limits: UndoLimits,
    /// What the store's thread shares with the store.
    shared: Arc<Shared>,
}

/// The state the store shares with its thread.
#[derive(Debug)]
struct Shared {
    dir: PathBuf,
    limits: UndoLimits,
    /// Every record the store knows, where it is and its size: what
    /// pruning weighs and readers look up, kept so that recording one call
    /// does not read back every other record. Reconciled with the directory
    /// at most once per [`LIST_EVERY`] by a prune, and by every listing, so
    /// transactions another server process recorded or dropped are seen.
    index: Mutex<log::Index>,
    /// Transactions whose write after the answer failed, with why: an
    /// `undo` of one is told so rather than "not found".
    failed: Mutex<BTreeMap<TransactionId, FailedWrite>>,
    /// The last write failed: record before answering until one succeeds.
    broken: std::sync::atomic::AtomicBool,
    work: Mutex<Work>,
    /// Signalled when work is queued and when a piece of it finishes.
    changed: Condvar,
    /// When a prune last listed the directory.
    listed_at: Mutex<Option<Instant>>,
    /// The server's answers: the thread writes a record once its call's
    /// answer is out.
    answers: Arc<AnswerGate>,
}

/// Why a transaction's write failed (an `io::Error` is not `Clone`).
#[derive(Debug, Clone)]
struct FailedWrite {
    kind: io::ErrorKind,
    errno: Option<i32>,
    message: String,
}

impl FailedWrite {
    fn of(e: &io::Error) -> FailedWrite {
        FailedWrite {
            kind: e.kind(),
            errno: e.raw_os_error(),
            message: e.to_string(),
        }
    }

    fn error(&self, id: &TransactionId) -> io::Error {
        match self.errno {
            Some(errno) => io::Error::from_raw_os_error(errno),
            None => io::Error::new(
                self.kind,
                format!("recording transaction {id} failed: {}", self.message),
            ),
        }
    }
}

/// The store thread's queue, in order: each transaction to write, then at
/// most one prune (requests coalesce; the newest transaction is the one
/// never dropped).
#[derive(Debug, Default)]
struct Work {
    /// Each with the answer gate's mark when it was published
    /// ([`AnswerGate::mark`]): its own answer comes after it.
    writes: std::collections::VecDeque<(Arc<Transaction>, Mark)>,
    /// Readers waiting in [`UndoStore::settle`]: write without pacing.
    hurry: usize,
    /// A prune is wanted, keeping this transaction.
    prune: Option<TransactionId>,
    /// A write or a prune is running.
    busy: bool,
    /// The thread exists.
    worker: bool,
}

/// How long the store's thread waits for a call's answer to be written
/// before it writes the call's record anyway.
const ANSWER_PACE: Duration = Duration::from_millis(2);

/// How often at most a prune lists the directory to see what other server
/// processes recorded or removed. A listing per call (of 100 records, the
/// default bound) was most of the store thread's time: with it gone and the
/// truncation skipped below, `perf` puts the thread's CPU per small edit at
/// 0.21 ms instead of 0.40 ms.
const LIST_EVERY: Duration = Duration::from_secs(1);

/// How long an idle store thread waits before it checks whether its store
/// is still in use.
const WORKER_IDLE: Duration = Duration::from_secs(5);

impl UndoStore {
    /// Opens (creating it, mode 0700, if missing) the store in `dir`, after
    /// checking that only this user can write it; removes what a crash
    /// left half-written. Its thread writes each record once the call's
    /// answer is out on `answers` (the server's gate; a fresh
    /// [`AnswerGate::new`] where nothing answers).
    pub fn open(
        dir: PathBuf,
        limits: UndoLimits,
        answers: Arc<AnswerGate>,
    ) -> io::Result<UndoStore> {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)?;
        let dir = fs::canonicalize(&dir)?;
        check_private(
            &fs::symlink_metadata(&dir)?,
            &dir,
            "undo store",
            "--undo-dir",
        )?;
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
                let _ = remove_entry(&entry.path());
            }
        }
        Ok(UndoStore {
            shared: Arc::new(Shared {
                dir: dir.clone(),
                limits,
                index: Mutex::default(),
                failed: Mutex::default(),
                broken: std::sync::atomic::AtomicBool::new(false),
                work: Mutex::default(),
                changed: Condvar::new(),
                listed_at: Mutex::default(),
                answers,
            }),
            dir,
            limits,
        })
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The bounds it keeps.
    pub fn limits(&self) -> UndoLimits {
        self.limits
    }

    /// Keeps `tx` (then drops the oldest transactions until the bounds
    /// hold), or says why it did not, before returning: what
    /// [`UndoStore::begin`] and [`Pending::publish`] do after the answer.
    pub fn record(&self, tx: &Transaction) -> io::Result<Recorded> {
        match self.decide(tx) {
            Some(no) => Ok(no),
            None => self.shared.store(tx).map(|()| Recorded::Stored),
        }
    }

    /// Before a commit: whether `tx` will be kept, as a [`Pending`] to
    /// [`Pending::publish`] once the commit succeeded (see "Cost" in the
    /// module docs). Nothing is written yet; dropping it keeps nothing.
    pub fn begin(&self, tx: Arc<Transaction>) -> Pending<'_> {
        let state = match self.decide(&tx) {
            Some(no) => PendingState::Decided(no),
            None => PendingState::Ready(tx),
        };
        Pending { store: self, state }
    }

    /// Why `tx` is not kept, if it is not.
    fn decide(&self, tx: &Transaction) -> Option<Recorded> {
        if tx.stored_bytes() > self.limits.max_bytes || self.limits.max_transactions == 0 {
            return Some(Recorded::TooLarge);
        }
        if tx.paths.iter().any(|p| p.path.to_str().is_none()) {
            return Some(Recorded::NotRepresentable);
        }
        None
    }

    /// The transaction `id`, with its content checked against the recorded
    /// hashes; `Ok(None)` if the store does not have it (never stored, or
    /// dropped by the bounds).
    pub fn get(&self, id: &TransactionId) -> io::Result<Option<Transaction>> {
        self.settle();
        if let Some(failed) = self.shared.failed().get(id) {
            return Err(failed.error(id));
        }
        let Some(entry) = self.shared.lookup(id)? else {
            return Ok(None);
        };
        let (path, read) = match &entry.source {
            log::Source::File => {
                let path = self.dir.join(id.as_str());
                let read = read_transaction(&path);
                (path, read)
            }
            log::Source::Log {
                segment,
                offset,
                header_len,
                ..
            } => {
                let path = self.dir.join(&**segment);
                let read = log::read(&path, *offset, *header_len);
                (path, read)
            }
        };
        let (record, contents) = match read {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            other => other?,
        };
        if &record.id != id {
            return Err(damaged(&path, "its record names another transaction"));
        }
        let mut paths = Vec::with_capacity(record.paths.len());
        for (entry, content) in record.paths.into_iter().zip(contents) {
            let before = match (entry.before, content) {
                (None, _) => None,
                (Some(blob), Some(bytes)) => {
                    if bytes.len() as u64 != blob.len || sha256_hex(&bytes) != blob.sha256 {
                        return Err(damaged(
                            &path,
                            &format!(
                                "the content kept for {} does not match its hash",
                                entry.path
                            ),
                        ));
                    }
                    Some((bytes, blob.mode))
                }
                (Some(_), None) => {
                    return Err(damaged(
                        &path,
                        &format!("the content kept for {} is missing", entry.path),
                    ));
                }
            };
            paths.push(PathRecord {
                path: PathBuf::from(entry.path),
                operation: entry.operation,
                before,
                after_sha256: entry.after_sha256,
            });
        }
        Ok(Some(Transaction {
            id: record.id,
            time_unix_ms: record.time_unix_ms,
            tool: record.tool,
            undoes: record.undoes,
            paths,
        }))
    }

    /// The most recent transactions, newest first, at most `limit`.
    /// Unreadable entries are left out (and logged).
    pub fn list(&self, limit: usize) -> io::Result<Vec<Summary>> {
        self.settle();
        let entries: Vec<(TransactionId, log::Entry)> = {
            let mut index = self.shared.index();
            self.shared.reconcile(&mut index)?;
            index
                .entries
                .iter()
                .rev()
                .take(limit)
                .map(|(id, e)| (id.clone(), e.clone()))
                .collect()
        };
        let mut out = Vec::new();
        for (id, entry) in entries {
            match entry.source {
                log::Source::Log { record, .. } => out.push(summary((*record).clone())),
                log::Source::File => match read_record(&self.dir.join(id.as_str())) {
                    Ok(record) => out.push(summary(record)),
                    Err(e) => {
                        tracing::warn!(transaction = %id, error = %e, "unreadable undo record")
                    }
                },
            }
        }
        Ok(out)
    }

    /// Waits until the store's thread has written and pruned everything
    /// queued: what a reader sees is every answered transaction, within
    /// the bounds (a pruned transaction is not found).
    pub fn settle(&self) {
        let mut work = self.shared.work();
        work.hurry += 1;
        self.shared.answers.nudge();
        while !work.writes.is_empty() || work.prune.is_some() || work.busy {
            work = self
                .shared
                .changed
                .wait(work)
                .unwrap_or_else(|e| e.into_inner());
        }
        work.hurry -= 1;
    }
}

impl Drop for UndoStore {
    /// Whoever drops the store last (the server, as it exits) lets the
    /// queued records reach the directory first.
    fn drop(&mut self) {
        self.settle();
        self.shared.close();
    }
}

/// A transaction that will be kept once its commit succeeds
/// ([`UndoStore::begin`]).
#[derive(Debug)]
pub struct Pending<'a> {
    store: &'a UndoStore,
    state: PendingState,
}

#[derive(Debug)]
enum PendingState {
    /// Not kept, for this reason (never [`Recorded::Stored`]).
    Decided(Recorded),
    /// To be kept.
    Ready(Arc<Transaction>),
}

impl Pending<'_> {
    /// The id the transaction is recorded under once published.
    pub fn id(&self) -> Option<&TransactionId> {
        match &self.state {
            PendingState::Ready(tx) => Some(&tx.id),
            PendingState::Decided(_) => None,
        }
    }

    /// The commit succeeded: the store's thread writes the transaction
    /// after this returns (then drops the oldest ones). If the store's
    /// last write failed, it is written here instead, so that the answer
    /// can say whether it was kept.
    pub fn publish(self) -> io::Result<Recorded> {
        let tx = match self.state {
            PendingState::Decided(recorded) => return Ok(recorded),
            PendingState::Ready(tx) => tx,
        };
        let shared = &self.store.shared;
        if shared.broken.load(Ordering::Relaxed) {
            self.store.settle();
            return shared.store(&tx).map(|()| Recorded::Stored);
        }
        let mut work = shared.work();
        if shared.ensure_worker(&mut work) {
            // No wake here: the store's thread waits for answers, and this
            // call's own answer, written next, wakes it (one wake a call,
            // not two). A record already waiting means an answer did not
            // come (a call cancelled after its commit point, or no
            // transport at all, as in a benchmark): then wake it now, so
            // that at most one record ever waits for an answer.
            let waiting = !work.writes.is_empty();
            work.writes.push_back((tx, shared.answers.mark()));
            drop(work);
            if waiting {
                shared.answers.nudge();
            }
            Ok(Recorded::Stored)
        } else {
            drop(work);
            shared.store(&tx).map(|()| Recorded::Stored)
        }
    }
}

impl Shared {
    /// The index, even if a panicking thread poisoned its lock (it only
    /// caches what the directory says).
    fn index(&self) -> MutexGuard<'_, log::Index> {
        self.index.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self) -> MutexGuard<'_, Work> {
        self.work.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn failed(&self) -> MutexGuard<'_, BTreeMap<TransactionId, FailedWrite>> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends `tx` to the store's segment, then prunes (on the store's
    /// thread, or right here if there is none). A failure is remembered
    /// for [`UndoStore::get`] and makes the next calls record before they
    /// answer; a success clears that.
    fn store(self: &Arc<Self>, tx: &Transaction) -> io::Result<()> {
        let placed = self.write(tx);
        match &placed {
            Ok(()) => {
                self.broken.store(false, Ordering::Relaxed);
                self.request_prune(&tx.id);
            }
            Err(e) => {
                tracing::warn!(transaction = %tx.id, error = %e, "a committed call could not be recorded for undo");
                self.broken.store(true, Ordering::Relaxed);
                let mut failed = self.failed();
                failed.insert(tx.id.clone(), FailedWrite::of(e));
                // Remembered as long as the store would have kept them.
                while failed.len() > self.limits.max_transactions.max(1) {
                    failed.pop_first();
                }
            }
        }
        placed
    }

    /// Asks the store's thread to drop the oldest transactions (never
    /// `keep`) until the bounds hold; prunes right here if there is no
    /// thread. Nothing waits for a prune but the readers: a transaction
    /// over the bounds is only garbage, and a crash in the middle leaves it
    /// for the next prune.
    fn request_prune(self: &Arc<Self>, keep: &TransactionId) {
        let mut work = self.work();
        if !self.ensure_worker(&mut work) {
            drop(work);
            self.prune(keep);
            return;
        }
        work.prune = Some(keep.clone());
        // On the store's thread (busy with the write that asked) the loop
        // takes the prune next; from another thread, wake it.
        if !work.busy {
            drop(work);
            self.answers.nudge();
        }
    }

    /// Starts the store's thread unless it runs; false if it cannot be
    /// started (the caller then does the work itself).
    fn ensure_worker(self: &Arc<Self>, work: &mut Work) -> bool {
        if work.worker {
            return true;
        }
        let shared = Arc::clone(self);
        match std::thread::Builder::new()
            .name("splice-undo".into())
            .spawn(move || shared.work_loop())
        {
            Ok(_) => {
                work.worker = true;
                true
            }
            Err(e) => {
                tracing::debug!(error = %e, "no undo store thread; recording inline");
                false
            }
        }
    }

    /// The store's thread: writes each queued transaction, then runs the
    /// requested prune; exits once idle while nothing but itself holds the
    /// store.
    fn work_loop(self: Arc<Self>) {
        // The lowest priority (nice 19, this thread only): its work yields
        // a core to a call or its client, and runs while they wait (a
        // commit's fsync, the client reading its answer). A niced thread
        // still gets its share, so readers waiting in `settle` are never
        // starved. (Side by side on 2 cores the p50 moved within noise.)
        // SAFETY: a plain system call on this thread's own id.
        let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) };
        loop {
            // Read before looking at the queue: a record published after
            // the look is answered after this count, so the wait below
            // cannot miss its answer.
            let answers = self.answers.mark();
            let mut work = self.work();
            if let Some((tx, seen)) = work.writes.pop_front() {
                work.busy = true;
                // Paced: once this call's answer is out (see "Cost" in the
                // module docs), unless more records wait or a reader does.
                let pace = work.writes.is_empty() && work.hurry == 0;
                drop(work);
                if pace {
                    self.answers.wait_past(seen, ANSWER_PACE);
                }
                // A panic must not leave `busy` set: readers would wait forever.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.store(&tx)));
                self.done(self.work());
                continue;
            }
            if let Some(keep) = work.prune.take() {
                work.busy = true;
                drop(work);
                let _ =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.prune(&keep)));
                self.done(self.work());
                continue;
            }
            if Arc::strong_count(&self) == 1 {
                work.worker = false;
                return;
            }
            drop(work);
            // Idle until the next answer is written (a published record's
            // own answer), a reader or a second record nudges, or a while
            // has passed (then it checks whether its store is gone).
            self.answers.wait_past(answers, WORKER_IDLE);
        }
    }

    /// The thread's write or prune is over: readers waiting in
    /// [`UndoStore::settle`] are told (nobody else waits on `changed`).
    fn done(&self, mut work: MutexGuard<'_, Work>) {
        work.busy = false;
        if work.hurry > 0 {
            self.changed.notify_all();
        }
    }

    /// Appends `tx` to the store's segment ([`log`]): its record on one
    /// line, then its contents. Not fsynced (see "Durability").
    fn write(&self, tx: &Transaction) -> io::Result<()> {
        let record = RecordFile::of(tx).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "a path is not valid UTF-8")
        })?;
        let mut header = serde_json::to_vec(&record).map_err(io::Error::other)?;
        header.push(b'\n');
        let contents: Vec<&[u8]> = tx
            .paths
            .iter()
            .filter_map(|p| Some(&p.before.as_ref()?.0[..]))
            .collect();
        self.index()
            .append(&self.dir, self.limits, record, &header, &contents)
    }

    /// The index's entry for `id`, after reading the directory again
    /// (another server process may have recorded it, or recorded newer
    /// ones that put it outside the bounds): an undo is rare, and must see
    /// what `list_transactions` shows.
    fn lookup(&self, id: &TransactionId) -> io::Result<Option<log::Entry>> {
        let mut index = self.index();
        self.reconcile(&mut index)?;
        Ok(index.entries.get(id).cloned())
    }

    /// Reads the directory into the index and drops what is outside the
    /// bounds (never the newest): what a reader sees.
    fn reconcile(&self, index: &mut log::Index) -> io::Result<()> {
        index.refresh(&self.dir)?;
        *self.listed_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        if let Some(newest) = index.entries.keys().next_back().cloned() {
            let files = index.drop_outside(self.limits, &newest);
            self.remove_files(files);
        }
        Ok(())
    }

    /// Removes the records of an earlier splice's layout that the bounds
    /// dropped; a failure only leaves them for the next listing.
    fn remove_files(&self, ids: Vec<TransactionId>) {
        for id in ids {
            match remove_entry(&self.dir.join(id.as_str())) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    // Listed again (and weighed again) by the next prune.
                    tracing::debug!(transaction = %id, error = %e, "could not drop an undo record");
                }
                _ => {}
            }
        }
    }

    /// Whether a prune should list the directory now (the first time, then
    /// at most once per [`LIST_EVERY`]); notes that it does.
    fn listing_due(&self) -> bool {
        let mut last = self.listed_at.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if last.is_some_and(|at| now.duration_since(at) < LIST_EVERY) {
            return false;
        }
        *last = Some(now);
        true
    }

    /// Drops the oldest transactions (never `keep`) until the bounds hold,
    /// and removes the segments left with no record. Best effort: a failure
    /// only leaves the store larger.
    ///
    /// It weighs the index; at most once per [`LIST_EVERY`] it first
    /// reconciles the index with the directory (records another server
    /// process appended or dropped, and segments whose writer is gone).
    /// Between listings the store can exceed its bounds by what other
    /// servers recorded meanwhile, until the next listing.
    fn prune(&self, keep: &TransactionId) {
        let listing = self.listing_due();
        let mut index = self.index();
        if listing && let Err(e) = index.refresh(&self.dir) {
            tracing::debug!(error = %e, "could not list the undo store");
        }
        let files = index.drop_outside(self.limits, keep);
        index.remove_dropped_segments(&self.dir, listing);
        drop(index);
        self.remove_files(files);
    }

    /// Closes this store's segment (unlocking it, so that the next server's
    /// prunes may remove it once its records are dropped).
    fn close(&self) {
        self.index().close();
    }
}

fn summary(record: RecordFile) -> Summary {
    Summary {
        transaction_id: record.id.clone(),
        time_unix_ms: record.time_unix_ms,
        stored_bytes: record.stored_bytes(),
        tool: record.tool,
        undoes: record.undoes,
        files: record
            .paths
            .into_iter()
            .map(|p| SummaryFile {
                path: p.path,
                operation: p.operation,
            })
            .collect(),
    }
}

/// The record of the transaction at `path` (either layout), without its
/// contents: only the first line of a file is read.
fn read_record(path: &Path) -> io::Result<RecordFile> {
    use std::io::{BufRead, Read};
    let file = match File::open(path) {
        Ok(file) if file.metadata()?.is_dir() => return read_record_dir(path),
        other => other?,
    };
    let mut line = Vec::new();
    io::BufReader::new(file)
        .take(MAX_HEADER)
        .read_until(b'\n', &mut line)?;
    parse_record(path, &line, FORMAT)
}

/// The record and contents (in path order; `None` for a path absent
/// before) of the transaction at `path`, in either layout, unchecked
/// against the hashes.
fn read_transaction(path: &Path) -> io::Result<(RecordFile, Vec<Option<Vec<u8>>>)> {
    let bytes = match fs::read(path) {
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => {
            let record = read_record_dir(path)?;
            let mut contents = Vec::with_capacity(record.paths.len());
            for (i, entry) in record.paths.iter().enumerate() {
                contents.push(match entry.before {
                    Some(_) => Some(fs::read(path.join(format!("before-{i}")))?),
                    None => None,
                });
            }
            return Ok((record, contents));
        }
        other => other?,
    };
    let end = memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1);
    let record = parse_record(path, &bytes[..end], FORMAT)?;
    let mut rest = &bytes[end..];
    let mut contents = Vec::with_capacity(record.paths.len());
    for entry in &record.paths {
        contents.push(match &entry.before {
            None => None,
            Some(blob) => {
                let len = usize::try_from(blob.len)
                    .unwrap_or(usize::MAX)
                    .min(rest.len());
                let (content, tail) = rest.split_at(len);
                rest = tail;
                Some(content.to_vec())
            }
        });
    }
    if !rest.is_empty() {
        return Err(damaged(path, "it is longer than its record says"));
    }
    Ok((record, contents))
}

/// `record.json` of a transaction in the directory layout.
fn read_record_dir(dir: &Path) -> io::Result<RecordFile> {
    parse_record(dir, &fs::read(dir.join(RECORD))?, FORMAT_DIR)
}

fn parse_record(path: &Path, bytes: &[u8], format: u32) -> io::Result<RecordFile> {
    if bytes.is_empty() {
        return Err(damaged(path, "it is empty"));
    }
    let record: RecordFile = serde_json::from_slice(bytes)
        .map_err(|e| damaged(path, &format!("its record does not parse: {e}")))?;
    if record.format != format {
        return Err(damaged(
            path,
            &format!("unknown record format {}", record.format),
        ));
    }
    Ok(record)
}

fn damaged(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("undo record {} is damaged: {why}", path.display()),
    )
}

/// Writes every part, in order: one `writev(2)` for a whole transaction
/// unless the kernel takes less. Also what keeps the store thread's calls
/// apart from a tool call's `write`s while both run: `scripts/fault-points`
/// aims at the tool thread's N-th `write`, and strace counts per thread.
fn write_all_vectored(file: &mut File, mut parts: &mut [io::IoSlice<'_>]) -> io::Result<()> {
    io::IoSlice::advance_slices(&mut parts, 0);
    while !parts.is_empty() {
        match file.write_vectored(parts) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => io::IoSlice::advance_slices(&mut parts, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Removes a transaction's file, or its directory in the older layout.
fn remove_entry(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => fs::remove_dir_all(path),
        // Linux answers EISDIR; POSIX allows EPERM for unlink of a directory.
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied && path.is_dir() => {
            fs::remove_dir_all(path)
        }
        other => other,
    }
}

/// Whether the server has a store, as the tools see it.
#[derive(Debug, Clone)]
pub enum UndoState {
    /// The store is open: committed calls are recorded and can be undone.
    Open(std::sync::Arc<UndoStore>),
    /// It could not be opened (or none was configured): calls still
    /// commit, unrecorded, and `undo` answers `UNDO_UNAVAILABLE` with these.
    Unavailable { dir: PathBuf, os_error: String },
}

impl UndoState {
    /// Lets every record queued after an answer reach the store: the
    /// server calls it before it exits.
    pub fn flush(&self) {
        if let UndoState::Open(store) = self {
            store.settle();
        }
    }

    /// Opens the store in `dir` ([`UndoStore::open`]), or says why it
    /// cannot be used (logged).
    pub fn open(dir: PathBuf, limits: UndoLimits, answers: Arc<AnswerGate>) -> UndoState {
        match UndoStore::open(dir.clone(), limits, answers) {
            Ok(store) => UndoState::Open(std::sync::Arc::new(store)),
            Err(e) => {
                tracing::warn!(
                    dir = %dir.display(),
                    "the undo store cannot be used ({e}); edits still work but cannot be undone"
                );
                UndoState::Unavailable {
                    dir,
                    os_error: errno_name(&e),
                }
            }
        }
    }

    /// The open store, if any.
    pub fn store(&self) -> Option<&UndoStore> {
        match self {
            UndoState::Open(s) => Some(s),
            UndoState::Unavailable { .. } => None,
        }
    }
}

/// The name of an I/O error's errno (`EACCES`, ...), `EBADMSG` for a damaged
/// record, `EIO` when there is none.
pub fn errno_name(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::InvalidData {
        return "EBADMSG".to_string();
    }
    if e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none() {
        return "EACCES".to_string(); // refused by check_private
    }
    e.raw_os_error()
        .and_then(crate::fsio::errno_name)
        .unwrap_or("EIO")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(path: &str, before: &[u8], after: &[u8]) -> PathRecord {
        PathRecord {
            path: PathBuf::from(path),
            operation: Operation::Edit,
            before: Some((before.to_vec(), 0o644)),
            after_sha256: Some(sha256_hex(after)),
        }
    }

    fn store(dir: &Path, limits: UndoLimits) -> UndoStore {
        UndoStore::open(dir.join("undo"), limits, AnswerGate::new()).unwrap()
    }

    /// The segment files in the store `dir`, oldest first.
    fn segments(dir: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("log-"))
            .collect();
        out.sort();
        out
    }

    fn ids_of(s: &UndoStore) -> Vec<TransactionId> {
        s.list(100)
            .unwrap()
            .into_iter()
            .map(|t| t.transaction_id)
            .collect()
    }

    #[test]
    fn a_transaction_reads_back_as_recorded_after_a_restart() {
        let tmp = tempfile::tempdir().unwrap();
        let tx = Transaction::now(
            "multi_edit_files",
            None,
            vec![
                edit("/r/a.rs", b"old a", b"new a"),
                PathRecord {
                    path: PathBuf::from("/r/new.rs"),
                    operation: Operation::Create,
                    before: None,
                    after_sha256: Some(sha256_hex(b"created")),
                },
                PathRecord {
                    path: PathBuf::from("/r/gone.rs"),
                    operation: Operation::Delete,
                    before: Some((b"deleted".to_vec(), 0o600)),
                    after_sha256: None,
                },
            ],
        );
        assert_eq!(
            store(tmp.path(), UndoLimits::default())
                .record(&tx)
                .unwrap(),
            Recorded::Stored
        );
        // Another server process, later.
        let again = store(tmp.path(), UndoLimits::default());
        assert_eq!(again.get(&tx.id).unwrap().as_ref(), Some(&tx));
        let listed = again.list(10).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].transaction_id, tx.id);
        assert_eq!(listed[0].stored_bytes, 12);
        assert_eq!(
            listed[0]
                .files
                .iter()
                .map(|f| f.operation)
                .collect::<Vec<_>>(),
            [Operation::Edit, Operation::Create, Operation::Delete]
        );
    }

    #[test]
    fn the_oldest_go_first_when_a_bound_is_reached() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(
            tmp.path(),
            UndoLimits {
                max_transactions: 3,
                max_bytes: 100,
            },
        );
        let mut ids = Vec::new();
        for i in 0..5 {
            let tx = Transaction::now("multi_edit", None, vec![edit("/r/a", &[b'x'; 10], &[i])]);
            s.record(&tx).unwrap();
            ids.push(tx.id);
        }
        let listed: Vec<TransactionId> = s
            .list(10)
            .unwrap()
            .into_iter()
            .map(|t| t.transaction_id)
            .collect();
        assert_eq!(listed, [ids[4].clone(), ids[3].clone(), ids[2].clone()]);

        // 60 bytes more: only what fits in 100 bytes stays, the new one first.
        let big = Transaction::now("multi_edit", None, vec![edit("/r/b", &[b'y'; 60], b"z")]);
        s.record(&big).unwrap();
        let listed: Vec<TransactionId> = s
            .list(10)
            .unwrap()
            .into_iter()
            .map(|t| t.transaction_id)
            .collect();
        assert_eq!(listed, [big.id.clone(), ids[4].clone(), ids[3].clone()]);

        // Alone over the bound: not kept, nothing else dropped.
        let huge = Transaction::now("multi_edit", None, vec![edit("/r/c", &[0; 101], b"z")]);
        assert_eq!(s.record(&huge).unwrap(), Recorded::TooLarge);
        assert_eq!(s.list(10).unwrap().len(), 3);
    }

    #[test]
    fn records_append_to_segments_that_go_once_all_their_records_are_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        // A segment holds a quarter of the bounds: 2 records here.
        let limits = UndoLimits {
            max_transactions: 8,
            max_bytes: 1000,
        };
        let s = store(tmp.path(), limits);
        let mut ids = Vec::new();
        for n in 0..12u8 {
            let tx = Transaction::now("multi_edit", None, vec![edit("/r/a", &[n; 10], &[n])]);
            s.record(&tx).unwrap();
            ids.push(tx.id);
        }
        // Records 0-3 are dropped, and their two segments with them; the
        // other four stay, no file per record.
        assert_eq!(
            ids_of(&s),
            ids[4..].iter().rev().cloned().collect::<Vec<_>>()
        );
        assert_eq!(segments(s.dir()).len(), 4);
        assert_eq!(fs::read_dir(s.dir()).unwrap().count(), 4);
        assert_eq!(s.get(&ids[3]).unwrap(), None);
        assert!(s.get(&ids[4]).unwrap().is_some());
        drop(s);
        // Another server process, later, sees the same window.
        let again = store(tmp.path(), limits);
        assert_eq!(
            ids_of(&again),
            ids[4..].iter().rev().cloned().collect::<Vec<_>>()
        );
    }

    #[test]
    fn pruning_weighs_what_another_server_recorded_and_removes_only_abandoned_segments() {
        let tmp = tempfile::tempdir().unwrap();
        let limits = UndoLimits {
            max_transactions: 2,
            max_bytes: 1000,
        };
        let a = store(tmp.path(), limits);
        let b = store(tmp.path(), limits);
        let tx = |n: u8| Transaction::now("multi_edit", None, vec![edit("/r/a", &[n; 10], &[n])]);
        let (t1, t2, t3, t4) = (tx(1), tx(2), tx(3), tx(4));
        a.record(&t1).unwrap();
        a.record(&t2).unwrap();
        let of_a = segments(a.dir());
        // `b` never saw t1 or t2: it reads a's segments, weighs them, and
        // drops t1; an undo through `a` sees the same.
        b.record(&t3).unwrap();
        let of_b: Vec<PathBuf> = segments(b.dir())
            .into_iter()
            .filter(|p| !of_a.contains(p))
            .collect();
        assert_eq!(of_b.len(), 1);
        assert_eq!(ids_of(&b), [t3.id.clone(), t2.id.clone()]);
        assert_eq!(a.get(&t1.id).unwrap(), None);
        assert_eq!(a.get(&t2.id).unwrap().as_ref(), Some(&t2));
        // One record per segment at these bounds. a's segments of t1 and
        // t2, closed and dropped, are removed by a; b's stays.
        a.record(&t4).unwrap();
        assert_eq!(ids_of(&a), [t4.id.clone(), t3.id.clone()]);
        assert!(of_a.iter().all(|p| !p.exists()), "{:?}", segments(a.dir()));
        assert_eq!(segments(a.dir()).len(), 2);
        // t3 is dropped too, but b is alive and holds its segment's lock:
        // nobody else removes it.
        let t5 = tx(5);
        *a.shared.listed_at.lock().unwrap() = None;
        a.record(&t5).unwrap();
        assert_eq!(ids_of(&a), [t5.id.clone(), t4.id.clone()]);
        assert!(of_b[0].exists());
        assert_eq!(b.get(&t3.id).unwrap(), None);
        // b exits: its segment, all dropped, goes at a's next listing.
        drop(b);
        *a.shared.listed_at.lock().unwrap() = None;
        let t6 = tx(6);
        a.record(&t6).unwrap();
        a.settle(); // the prune runs on the store's thread
        assert!(!of_b[0].exists());
        assert_eq!(segments(a.dir()).len(), 2);
        assert_eq!(ids_of(&a), [t6.id.clone(), t5.id.clone()]);
    }

    #[test]
    fn a_torn_segment_gives_its_whole_records_only() {
        use std::io::Write as _;
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), UndoLimits::default());
        let t1 = Transaction::now("multi_edit", None, vec![edit("/r/a", b"one", b"1")]);
        s.record(&t1).unwrap();
        drop(s);
        let seg = segments(&tmp.path().join("undo")).pop().unwrap();
        let whole = fs::read(&seg).unwrap();
        // A record line whose contents are not all there (cut by a crash,
        // or its writer is appending right now): not listed.
        let t2 = Transaction::now("multi_edit", None, vec![edit("/r/b", b"two!", b"2")]);
        let mut line = serde_json::to_vec(&RecordFile::of(&t2).unwrap()).unwrap();
        line.push(b'\n');
        fs::OpenOptions::new()
            .append(true)
            .open(&seg)
            .unwrap()
            .write_all(&[&line[..], b"tw"].concat())
            .unwrap();
        let again = store(tmp.path(), UndoLimits::default());
        assert_eq!(ids_of(&again), std::slice::from_ref(&t1.id));
        // Once they are, it is (read on from where the reader stopped).
        fs::OpenOptions::new()
            .append(true)
            .open(&seg)
            .unwrap()
            .write_all(b"o!")
            .unwrap();
        assert_eq!(ids_of(&again), [t2.id.clone(), t1.id.clone()]);
        assert_eq!(again.get(&t2.id).unwrap().as_ref(), Some(&t2));
        // A whole line that does not parse (what a power loss leaves):
        // the records before it stay usable, nothing after it is read.
        fs::write(
            &seg,
            [&whole[..], &[0u8; 40][..], b"\n", &line[..], b"two!"].concat(),
        )
        .unwrap();
        let third = store(tmp.path(), UndoLimits::default());
        assert_eq!(ids_of(&third), std::slice::from_ref(&t1.id));
        assert_eq!(third.get(&t1.id).unwrap().as_ref(), Some(&t1));
        assert_eq!(third.get(&t2.id).unwrap(), None);
    }

    #[test]
    fn damaged_content_is_refused_not_returned() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), UndoLimits::default());
        let tx = Transaction::now("multi_edit", None, vec![edit("/r/a", b"before", b"after")]);
        s.record(&tx).unwrap();
        let file = segments(s.dir()).pop().unwrap();
        let kept = fs::read(&file).unwrap();
        assert!(
            kept.ends_with(b"\nbefore"),
            "{}",
            String::from_utf8_lossy(&kept)
        );
        // The same length, other bytes.
        let mut other = kept.clone();
        let n = other.len();
        other[n - 6..].copy_from_slice(b"BEFORE");
        fs::write(&file, &other).unwrap();
        let err = s.get(&tx.id).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("does not match its hash"), "{err}");
        // Torn (what a power loss can leave): refused.
        fs::write(&file, &kept[..n - 3]).unwrap();
        let err = s.get(&tx.id).unwrap_err();
        assert!(err.to_string().contains("does not match its hash"), "{err}");
        // Cut inside its record line: refused, and another process does
        // not list it.
        fs::write(&file, &kept[..10]).unwrap();
        let err = s.get(&tx.id).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("cut short"), "{err}");
        let other_process = store(tmp.path(), UndoLimits::default());
        assert!(other_process.list(10).unwrap().is_empty());
        assert_eq!(other_process.get(&tx.id).unwrap(), None);
    }

    #[test]
    fn a_store_in_the_directory_layout_is_still_read_listed_and_pruned() {
        let tmp = tempfile::tempdir().unwrap();
        let limits = UndoLimits {
            max_transactions: 1,
            max_bytes: 1000,
        };
        let s = store(tmp.path(), limits);
        // What an earlier splice wrote for one edit of /r/a.
        let old = TransactionId::new(0x19a2b3c4d5e);
        let dir = s.dir().join(old.as_str());
        fs::create_dir(&dir).unwrap();
        let record = json!({
            "format": 1, "id": old, "time_unix_ms": 0x19a2b3c4d5e_u64, "tool": "multi_edit",
            "paths": [{"path": "/r/a", "operation": "edit",
                       "before": {"sha256": sha256_hex(b"old"), "len": 3, "mode": 0o644},
                       "after_sha256": sha256_hex(b"new")}],
        });
        fs::write(dir.join("record.json"), record.to_string()).unwrap();
        fs::write(dir.join("before-0"), b"old").unwrap();
        let got = s.get(&old).unwrap().unwrap();
        assert_eq!(got.paths[0].before, Some((b"old".to_vec(), 0o644)));
        assert_eq!(s.list(10).unwrap()[0].stored_bytes, 3);
        fs::write(dir.join("before-0"), b"OLD").unwrap();
        assert!(
            s.get(&old)
                .unwrap_err()
                .to_string()
                .contains("does not match its hash")
        );
        // A new transaction over the bound of one: the directory goes.
        let tx = Transaction::now("multi_edit", None, vec![edit("/r/b", b"1", b"2")]);
        s.record(&tx).unwrap();
        let listed = s.list(10).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].transaction_id, tx.id);
        assert!(!dir.exists());
    }

    #[test]
    fn a_pending_transaction_is_kept_only_once_published() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), UndoLimits::default());
        let tx = Arc::new(Transaction::now(
            "multi_edit",
            None,
            vec![edit("/r/a", b"1", b"2")],
        ));
        let pending = s.begin(Arc::clone(&tx));
        assert_eq!(pending.id(), Some(&tx.id));
        // Nothing is written while its commit runs.
        assert_eq!(fs::read_dir(s.dir()).unwrap().count(), 0);
        assert_eq!(pending.publish().unwrap(), Recorded::Stored);
        // A reader waits for the write after the answer.
        assert_eq!(s.get(&tx.id).unwrap().as_ref(), Some(&*tx));
        assert_eq!(segments(s.dir()).len(), 1);

        // A failed commit drops its Pending: nothing is kept.
        let failed = Arc::new(Transaction::now(
            "multi_edit",
            None,
            vec![edit("/r/b", b"1", b"2")],
        ));
        drop(s.begin(Arc::clone(&failed)));
        assert_eq!(s.get(&failed.id).unwrap(), None);
        assert_eq!(
            fs::read_dir(s.dir()).unwrap().count(),
            1,
            "one segment, nothing else"
        );
        assert_eq!(s.list(10).unwrap().len(), 1);
    }

    #[test]
    fn a_write_that_fails_after_the_answer_is_reported_not_lost_silently() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), UndoLimits::default());
        // The store's directory disappears under the server.
        fs::remove_dir(s.dir()).unwrap();
        let lost = Arc::new(Transaction::now(
            "multi_edit",
            None,
            vec![edit("/r/a", b"1", b"2")],
        ));
        // Answered as recorded: the write comes after the answer.
        assert_eq!(
            s.begin(Arc::clone(&lost)).publish().unwrap(),
            Recorded::Stored
        );
        // An undo of it learns why it cannot be undone, not "not found".
        let err = s.get(&lost.id).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT), "{err}");
        // The next call records before its answer, so the answer says so.
        let next = Arc::new(Transaction::now(
            "multi_edit",
            None,
            vec![edit("/r/a", b"2", b"3")],
        ));
        let err = s.begin(Arc::clone(&next)).publish().unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT), "{err}");
        // Once the store takes a write again, recording is after the answer again.
        fs::create_dir(s.dir()).unwrap();
        let back = Arc::new(Transaction::now(
            "multi_edit",
            None,
            vec![edit("/r/a", b"3", b"4")],
        ));
        assert_eq!(
            s.begin(Arc::clone(&back)).publish().unwrap(),
            Recorded::Stored
        );
        assert!(!s.shared.broken.load(Ordering::Relaxed));
        assert_eq!(s.get(&back.id).unwrap().as_ref(), Some(&*back));
        let later = Arc::new(Transaction::now(
            "multi_edit",
            None,
            vec![edit("/r/a", b"4", b"5")],
        ));
        assert_eq!(
            s.begin(Arc::clone(&later)).publish().unwrap(),
            Recorded::Stored
        );
        assert_eq!(s.get(&later.id).unwrap().as_ref(), Some(&*later));
    }

    #[test]
    fn a_store_deleted_while_its_segment_is_open_is_reported_not_written_into() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), UndoLimits::default());
        let first = Transaction::now("multi_edit", None, vec![edit("/r/a", b"1", b"2")]);
        s.record(&first).unwrap();
        // `rm -rf` of the store while the server runs: the open segment is
        // unlinked, and a record appended to it could never be read.
        fs::remove_dir_all(s.dir()).unwrap();
        let lost = Arc::new(Transaction::now(
            "multi_edit",
            None,
            vec![edit("/r/a", b"2", b"3")],
        ));
        assert_eq!(
            s.begin(Arc::clone(&lost)).publish().unwrap(),
            Recorded::Stored
        );
        let err = s.get(&lost.id).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOENT), "{err}");
    }

    #[test]
    fn dropping_the_store_lets_queued_records_reach_the_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let tx = Arc::new(Transaction::now(
            "multi_edit",
            None,
            vec![edit("/r/a", b"1", b"2")],
        ));
        {
            let s = store(tmp.path(), UndoLimits::default());
            s.begin(Arc::clone(&tx)).publish().unwrap();
        }
        // Another process, later, without any reader in between.
        let again = store(tmp.path(), UndoLimits::default());
        assert_eq!(again.get(&tx.id).unwrap().as_ref(), Some(&*tx));
    }

    #[test]
    fn ids_are_parsed_before_they_name_a_path() {
        let id = TransactionId::new(0x19a2b3c4d5e);
        assert_eq!(TransactionId::parse(id.as_str()), Some(id.clone()));
        for bad in [
            "",
            "../../etc",
            "019a2b3c4d5e-00001f2a",
            "019a2b3c4d5e-00001f2a-00000003-00000004",
            "019a2b3c4d5e-00001F2A-00000003",
            "19a2b3c4d5e-00001f2a-00000003",
            "019a2b3c4d5e-00001f2a-3",
            "019a2b3c4d5e-0000/../-00000003",
            ".tmp-019a2b3c4d5e-00001f2a-00000003",
        ] {
            assert_eq!(TransactionId::parse(bad), None, "{bad:?}");
        }
        assert!(serde_json::from_str::<TransactionId>("\"../x\"").is_err());
    }

    #[test]
    fn a_half_written_transaction_is_removed_on_open_and_never_listed() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), UndoLimits::default());
        let half = s.dir().join(".tmp-019a2b3c4d5e-00000001-00000000");
        fs::write(&half, b"{\"format\": 2").unwrap();
        // And one an earlier splice left, in the directory layout.
        let half_dir = s.dir().join(".tmp-019a2b3c4d5e-00000001-00000001");
        fs::create_dir(&half_dir).unwrap();
        fs::write(half_dir.join("before-0"), b"x").unwrap();
        assert!(s.list(10).unwrap().is_empty());
        let _ = store(tmp.path(), UndoLimits::default());
        assert!(!half.exists());
        assert!(!half_dir.exists());
    }

    #[test]
    fn a_store_others_can_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("undo");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        let err = UndoStore::open(dir, UndoLimits::default(), AnswerGate::new()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(err.to_string().contains("--undo-dir"), "{err}");
    }
}
