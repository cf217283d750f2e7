//! The store itself: where records go and how they are found again. An
//! [`UndoStore`] opens its directory, decides before a commit whether a
//! transaction will be kept ([`UndoStore::begin`]), hands the published one
//! to its thread ([`super::worker`]), reads records back checked against
//! their hashes ([`UndoStore::get`]) and lists them ([`UndoStore::list`]),
//! over the index of [`super::log`] and the layouts of [`super::legacy`].
//! [`UndoState`] is what the tools see: a store, or why there is none.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::legacy::{self, read_record, read_transaction, remove_entry};
use super::log;
use super::record::{
    PathRecord, RecordFile, Summary, Transaction, TransactionId, damaged, summary,
};
use super::worker::Work;
use crate::answer_gate::AnswerGate;
use crate::fsio::sha256_hex;
use crate::state_dir::check_private;

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

/// The store, in one directory.
#[derive(Debug)]
pub struct UndoStore {
    dir: PathBuf,
    limits: UndoLimits,
    /// What the store's thread shares with the store.
    pub(super) shared: Arc<Shared>,
}

/// The state the store shares with its thread.
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) dir: PathBuf,
    pub(super) limits: UndoLimits,
    /// Every record the store knows, where it is and its size: what
    /// pruning weighs and readers look up, kept so that recording one call
    /// does not read back every other record. Reconciled with the directory
    /// at most once per [`LIST_EVERY`] by a prune, and by every listing, so
    /// transactions another server process recorded or dropped are seen.
    pub(super) index: Mutex<log::Index>,
    /// Transactions whose write after the answer failed, with why: an
    /// `undo` of one is told so rather than "not found".
    failed: Mutex<BTreeMap<TransactionId, FailedWrite>>,
    /// The last write failed: record before answering until one succeeds.
    pub(super) broken: std::sync::atomic::AtomicBool,
    pub(super) work: Mutex<Work>,
    /// Signalled when work is queued and when a piece of it finishes.
    pub(super) changed: Condvar,
    /// When a prune last listed the directory.
    pub(super) listed_at: Mutex<Option<Instant>>,
    /// The server's answers: the thread writes a record once its call's
    /// answer is out.
    pub(super) answers: Arc<AnswerGate>,
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

/// How often at most a prune lists the directory to see what other server
/// processes recorded or removed. A listing per call (of 100 records, the
/// default bound) would be most of the store thread's time: `perf` puts the
/// thread's CPU per small edit at about half of what listing at every call
/// costs.
const LIST_EVERY: Duration = Duration::from_secs(1);

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
        legacy::remove_half_written(&dir)?;
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
    /// [`Pending::publish`] once the commit succeeded (see "After the
    /// answer" in [`crate::undo`]). Nothing is written yet; dropping it
    /// keeps nothing.
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
        self.shared.settle();
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
        if shared.queue(tx.clone()) {
            Ok(Recorded::Stored)
        } else {
            shared.store(&tx).map(|()| Recorded::Stored)
        }
    }
}

impl Shared {
    /// The index, even if a panicking thread poisoned its lock (it only
    /// caches what the directory says).
    pub(super) fn index(&self) -> MutexGuard<'_, log::Index> {
        self.index.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn failed(&self) -> MutexGuard<'_, BTreeMap<TransactionId, FailedWrite>> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends `tx` to the store's segment, then prunes (on the store's
    /// thread, or right here if there is none). A failure is remembered
    /// for [`UndoStore::get`] and makes the next calls record before they
    /// answer; a success clears that.
    pub(super) fn store(self: &Arc<Self>, tx: &Transaction) -> io::Result<()> {
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

    /// Appends `tx` to the store's segment ([`super::log`]): its record on one
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
    pub(super) fn prune(&self, keep: &TransactionId) {
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
