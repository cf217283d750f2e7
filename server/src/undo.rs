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
//!   019a2b3c4d5e-00001f2a-00000003/   one directory per transaction: its id
//!     record.json               id, time, tool, and per path: operation,
//!                               the SHA-256 and mode of its content before
//!                               (or "absent") and the SHA-256 after (or "absent")
//!     before-0, before-2, ...   the content before, of each path that existed
//! ```
//!
//! **Durability.** The store is not `fsync`ed: recording costs a few page
//! cache writes per committed call, not four more disk flushes (which
//! doubled the latency of a small edit). This is safe because nothing the
//! store says is trusted unchecked: after a power loss a record may be
//! missing (the call can no longer be undone: `TRANSACTION_NOT_FOUND`) or
//! hold torn content, which the hashes below refuse; it can never make an
//! undo write wrong bytes. The user's files themselves are committed
//! through the fsynced journal as always, undos included.
//!
//! A transaction is written under a temporary name and renamed into place,
//! so a reader sees all of it or nothing; a crash leaves at most a
//! `.tmp-*` directory, removed when the store is next opened. Each content
//! is checked against its recorded SHA-256 when read back, so a damaged
//! store refuses an undo instead of writing damaged bytes.
//!
//! **Cost.** Recording is on by default, so it must cost next to nothing on
//! the most common call (issue #25: at most 0.1 ms at the p50 of a small
//! edit). Per committed call it is one directory, one file per existing path
//! plus `record.json`, written to the page cache, and one rename; the hash
//! of each path's content after is the one the call's answer already
//! carries (not computed twice). Pruning is off the answer's path: a
//! thread of the store's own drops the oldest transactions after the answer
//! (nothing waits for it but [`UndoStore::get`] and [`UndoStore::list`],
//! so that a dropped transaction is reliably not found). It lists the
//! directory once and weighs transactions by a size index kept in memory,
//! so it reads only records this process has not seen (another server's,
//! or from before a restart), never every record on every call. A kill in
//! the middle of a prune leaves a store over its bounds by a transaction or
//! so (or one with its `record.json` already gone, which reads as not
//! found), which the next prune drops; it never touches the transaction
//! just recorded, nor anything newer.
//!
//! The content before is written as a copy rather than kept by hard-linking
//! the replaced inode: a link would save the page-cache write of the bytes
//! the call already holds, but the store may live on another file system
//! (`~/.local/state`), and a linked inode could still be changed in place
//! by whoever holds it open or another hard link to it, which the hashes
//! would then refuse: the copy keeps every record usable.
//!
//! The store is bounded by a number of transactions and a number of bytes
//! of stored content ([`UndoLimits`]); after each new transaction the oldest
//! are dropped until both hold. A transaction larger than the byte bound on
//! its own is not stored ([`Recorded::TooLarge`]): the call still commits,
//! it just cannot be undone.
//!
//! The directory is trusted like the journal's: it must be owned by this
//! user and not writable by group or others ([`check_private`]), since an
//! undo writes what the store says into the user's files. Ids are parsed
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
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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
    /// A path is not valid UTF-8, which `record.json` cannot hold exactly:
    /// not kept.
    NotRepresentable,
}

/// `record.json`: the transaction without its content.
#[derive(Debug, Serialize, Deserialize)]
struct RecordFile {
    format: u32,
    id: TransactionId,
    time_unix_ms: u64,
    tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    undoes: Option<TransactionId>,
    paths: Vec<PathEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct PathEntry {
    path: String,
    operation: Operation,
    /// `None`: absent before.
    before: Option<BlobEntry>,
    /// `None`: absent after.
    after_sha256: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct BlobEntry {
    sha256: String,
    len: u64,
    mode: u32,
}

const FORMAT: u32 = 1;
const RECORD: &str = "record.json";
const TMP_PREFIX: &str = ".tmp-";

/// The store, in one directory.
#[derive(Debug)]
pub struct UndoStore {
    dir: PathBuf,
    limits: UndoLimits,
    /// What the background pruner shares with the store.
    shared: Arc<Shared>,
}

/// The state the store shares with its pruning thread.
#[derive(Debug)]
struct Shared {
    dir: PathBuf,
    limits: UndoLimits,
    /// Bytes of stored content per transaction, as last seen in the
    /// directory: what pruning weighs, kept so that recording one call does
    /// not read back every other record (that was most of recording's cost).
    /// Reconciled with a listing of the directory on every prune, so
    /// transactions another server process recorded or removed are seen.
    sizes: Mutex<BTreeMap<TransactionId, u64>>,
    pruning: Mutex<Pruning>,
    /// Signalled when a prune is requested and when one finishes.
    pruned: Condvar,
}

/// The pruner's queue: at most one prune is ever pending (requests
/// coalesce; the newest transaction is the one never dropped).
#[derive(Debug, Default)]
struct Pruning {
    /// A prune is wanted, keeping this transaction.
    wanted: Option<TransactionId>,
    /// A prune is running.
    busy: bool,
    /// The pruning thread exists.
    worker: bool,
}

/// How long an idle pruning thread waits before it checks whether its
/// store is still in use.
const PRUNER_IDLE: Duration = Duration::from_secs(5);

impl UndoStore {
    /// The default directory: `$XDG_STATE_HOME/splice/undo`, else
    /// `$HOME/.local/state/splice/undo`.
    pub fn default_dir() -> Option<PathBuf> {
        crate::commit::Committer::default_journal_dir()
            .and_then(|journal| Some(journal.parent()?.join("undo")))
    }

    /// Opens (creating it, mode 0700, if missing) the store in `dir`, after
    /// checking that only this user can write it; removes what a crash
    /// left half-written.
    pub fn open(dir: PathBuf, limits: UndoLimits) -> io::Result<UndoStore> {
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
                let _ = fs::remove_dir_all(entry.path());
            }
        }
        Ok(UndoStore {
            shared: Arc::new(Shared {
                dir: dir.clone(),
                limits,
                sizes: Mutex::default(),
                pruning: Mutex::default(),
                pruned: Condvar::new(),
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
    /// hold), or says why it did not.
    pub fn record(&self, tx: &Transaction) -> io::Result<Recorded> {
        if tx.stored_bytes() > self.limits.max_bytes || self.limits.max_transactions == 0 {
            return Ok(Recorded::TooLarge);
        }
        let mut entries = Vec::with_capacity(tx.paths.len());
        for p in &tx.paths {
            let Some(path) = p.path.to_str() else {
                return Ok(Recorded::NotRepresentable);
            };
            entries.push(PathEntry {
                path: path.to_string(),
                operation: p.operation,
                before: p.before.as_ref().map(|(bytes, mode)| BlobEntry {
                    sha256: sha256_hex(bytes),
                    len: bytes.len() as u64,
                    mode: *mode,
                }),
                after_sha256: p.after_sha256.clone(),
            });
        }
        let record = RecordFile {
            format: FORMAT,
            id: tx.id.clone(),
            time_unix_ms: tx.time_unix_ms,
            tool: tx.tool.clone(),
            undoes: tx.undoes.clone(),
            paths: entries,
        };

        let tmp = self.dir.join(format!("{TMP_PREFIX}{}", tx.id));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir(&tmp)?;
        let written = (|| {
            for (i, p) in tx.paths.iter().enumerate() {
                if let Some((bytes, _)) = &p.before {
                    write_new(&tmp.join(format!("before-{i}")), bytes)?;
                }
            }
            let json = serde_json::to_vec_pretty(&record).map_err(io::Error::other)?;
            write_new(&tmp.join(RECORD), &json)?;
            fs::rename(&tmp, self.dir.join(tx.id.as_str()))
        })();
        if let Err(e) = written {
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
        self.shared.sizes().insert(tx.id.clone(), tx.stored_bytes());
        self.request_prune(&tx.id);
        Ok(Recorded::Stored)
    }

    /// The transaction `id`, with its content checked against the recorded
    /// hashes; `Ok(None)` if the store does not have it (never stored, or
    /// dropped by the bounds).
    pub fn get(&self, id: &TransactionId) -> io::Result<Option<Transaction>> {
        self.settle();
        let dir = self.dir.join(id.as_str());
        let record = match read_record(&dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            other => other?,
        };
        if &record.id != id {
            return Err(damaged(&dir, "its record names another transaction"));
        }
        let mut paths = Vec::with_capacity(record.paths.len());
        for (i, entry) in record.paths.into_iter().enumerate() {
            let before = match entry.before {
                None => None,
                Some(blob) => {
                    let bytes = fs::read(dir.join(format!("before-{i}")))?;
                    if bytes.len() as u64 != blob.len || sha256_hex(&bytes) != blob.sha256 {
                        return Err(damaged(
                            &dir,
                            &format!(
                                "the content kept for {} does not match its hash",
                                entry.path
                            ),
                        ));
                    }
                    Some((bytes, blob.mode))
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
        let mut ids = self.ids()?;
        ids.reverse();
        let mut out = Vec::new();
        for id in ids {
            if out.len() == limit {
                break;
            }
            match read_record(&self.dir.join(id.as_str())) {
                Ok(record) => out.push(summary(record)),
                Err(e) => tracing::warn!(transaction = %id, error = %e, "unreadable undo record"),
            }
        }
        Ok(out)
    }

    /// Forgets `id` (after it was undone, or on request). Not an error if it
    /// is already gone.
    pub fn remove(&self, id: &TransactionId) -> io::Result<()> {
        self.shared.remove_dir(id)?;
        self.shared.sizes().remove(id);
        Ok(())
    }

    /// Stored transaction ids, oldest first.
    fn ids(&self) -> io::Result<Vec<TransactionId>> {
        self.shared.ids()
    }

    /// Asks the pruning thread to drop the oldest transactions (never
    /// `keep`) until the bounds hold, starting the thread if needed; prunes
    /// right here if no thread can be started. Pruning is off the answer's
    /// path because nothing waits for it: a transaction over the bounds is
    /// only garbage, and a crash in the middle leaves it for the next prune.
    fn request_prune(&self, keep: &TransactionId) {
        let mut p = self.shared.pruning();
        p.wanted = Some(keep.clone());
        if !p.worker {
            let shared = Arc::clone(&self.shared);
            let started = std::thread::Builder::new()
                .name("splice-undo-prune".into())
                .spawn(move || shared.prune_loop());
            match started {
                Ok(_) => p.worker = true,
                Err(e) => {
                    tracing::debug!(error = %e, "no pruning thread; pruning the undo store inline");
                    p.wanted = None;
                    drop(p);
                    self.shared.prune(keep);
                    return;
                }
            }
        }
        self.shared.pruned.notify_all();
    }

    /// Waits until no prune is pending or running, so that what a reader
    /// sees is within the bounds (a pruned transaction is not found).
    fn settle(&self) {
        let mut p = self.shared.pruning();
        while p.wanted.is_some() || p.busy {
            p = self
                .shared
                .pruned
                .wait(p)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Shared {
    /// The size index, even if a panicking thread poisoned its lock (it
    /// only caches what the directory says).
    fn sizes(&self) -> MutexGuard<'_, BTreeMap<TransactionId, u64>> {
        self.sizes.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn pruning(&self) -> MutexGuard<'_, Pruning> {
        self.pruning.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The pruning thread: runs each requested prune; exits once idle while
    /// nothing but itself holds the store.
    fn prune_loop(self: Arc<Self>) {
        let mut p = self.pruning();
        loop {
            if let Some(keep) = p.wanted.take() {
                p.busy = true;
                drop(p);
                self.prune(&keep);
                p = self.pruning();
                p.busy = false;
                self.pruned.notify_all();
                continue;
            }
            if Arc::strong_count(&self) == 1 {
                p.worker = false;
                return;
            }
            p = self
                .pruned
                .wait_timeout(p, PRUNER_IDLE)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Removes the directory of `id`; not an error if it is already gone.
    fn remove_dir(&self, id: &TransactionId) -> io::Result<()> {
        match fs::remove_dir_all(self.dir.join(id.as_str())) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Stored transaction ids, oldest first.
    fn ids(&self) -> io::Result<Vec<TransactionId>> {
        let mut ids: Vec<TransactionId> = fs::read_dir(&self.dir)?
            .filter_map(|e| e.ok())
            .filter_map(|e| TransactionId::parse(e.file_name().to_str()?))
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// Drops the oldest transactions (never `keep`) until the bounds hold.
    /// Best effort: a failure only leaves the store larger.
    ///
    /// One listing of the directory; only a record this process has not
    /// seen yet (another server's, or one from before this start) is read,
    /// for its size. The index is locked only to choose what goes, not
    /// while it is removed, so recording never waits for a removal.
    fn prune(&self, keep: &TransactionId) {
        let Ok(ids) = self.ids() else { return };
        let victims = {
            let mut sizes = self.sizes();
            let mut seen = BTreeMap::new();
            for id in ids {
                let bytes = match sizes.remove(&id) {
                    Some(bytes) => bytes,
                    None => read_record(&self.dir.join(id.as_str()))
                        .map(|r| {
                            r.paths
                                .iter()
                                .filter_map(|p| p.before.as_ref())
                                .map(|b| b.len)
                                .sum()
                        })
                        .unwrap_or(0),
                };
                seen.insert(id, bytes);
            }
            // Newer than the listing: recorded since (kept; the next prune
            // lists them). Older ones it did not list are gone.
            if let Some(newest) = seen.keys().next_back().cloned() {
                sizes.retain(|id, _| *id > newest);
            }
            seen.append(&mut sizes);
            *sizes = seen;
            let mut count = sizes.len();
            let mut total: u64 = sizes.values().sum();
            let mut victims = Vec::new();
            for (id, bytes) in sizes.iter() {
                if count <= self.limits.max_transactions && total <= self.limits.max_bytes {
                    break;
                }
                // Never `keep` nor anything recorded after it: its
                // answer may not have reached its client yet.
                if id >= keep {
                    break;
                }
                count -= 1;
                total -= bytes;
                victims.push(id.clone());
            }
            for id in &victims {
                sizes.remove(id);
            }
            victims
        };
        for id in victims {
            if let Err(e) = self.remove_dir(&id) {
                // Listed again (and weighed again) by the next prune.
                tracing::debug!(transaction = %id, error = %e, "could not drop an undo record");
            }
        }
    }
}

fn summary(record: RecordFile) -> Summary {
    Summary {
        transaction_id: record.id,
        time_unix_ms: record.time_unix_ms,
        tool: record.tool,
        undoes: record.undoes,
        stored_bytes: record
            .paths
            .iter()
            .filter_map(|p| p.before.as_ref())
            .map(|b| b.len)
            .sum(),
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

fn read_record(dir: &Path) -> io::Result<RecordFile> {
    let bytes = fs::read(dir.join(RECORD))?;
    let record: RecordFile = serde_json::from_slice(&bytes)
        .map_err(|e| damaged(dir, &format!("its record does not parse: {e}")))?;
    if record.format != FORMAT {
        return Err(damaged(
            dir,
            &format!("unknown record format {}", record.format),
        ));
    }
    Ok(record)
}

fn damaged(dir: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("undo record {} is damaged: {why}", dir.display()),
    )
}

/// Writes a new file, without `fsync`: see "Durability" in the module docs.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    File::create_new(path)?.write_all(bytes)
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
    /// Opens the store in `dir`, or says why it cannot be used (logged).
    pub fn open(dir: PathBuf, limits: UndoLimits) -> UndoState {
        match UndoStore::open(dir.clone(), limits) {
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

/// The SHA-256 of `bytes`, in lowercase hex (the hashes a record holds).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Refuses a directory (or file) of splice's own state that another user
/// could have written: not owned by this process's effective user, or
/// writable by its group or by others. `what` names it in the message,
/// `option` is the flag that chooses another one.
pub(crate) fn check_private(
    meta: &fs::Metadata,
    path: &Path,
    what: &str,
    option: &str,
) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{what} {} is owned by uid {}, not by this user (uid {me}); refusing to trust it. \
                 Remove it if you do not know who made it, or pass {option} DIR (a directory only you can write)",
                path.display(),
                meta.uid()
            ),
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{what} {} is writable by group or others (mode {:o}); refusing to trust it. \
                 Check its contents, then `chmod go-w` it, or pass {option} DIR",
                path.display(),
                meta.mode() & 0o7777
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(path: &str, before: &[u8], after: &[u8]) -> PathRecord {
        PathRecord {
            path: PathBuf::from(path),
            operation: Operation::Edit,
            before: Some((before.to_vec(), 0o644)),
            after_sha256: Some(sha256_hex(after)),
        }
    }

    fn store(dir: &Path, limits: UndoLimits) -> UndoStore {
        UndoStore::open(dir.join("undo"), limits).unwrap()
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
        again.remove(&tx.id).unwrap();
        assert_eq!(again.get(&tx.id).unwrap(), None);
        again.remove(&tx.id).unwrap();
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
    fn pruning_weighs_what_another_server_recorded_and_removed() {
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
        // `b` never saw t1 or t2: it lists and weighs them, and drops t1.
        b.record(&t3).unwrap();
        let ids = |s: &UndoStore| -> Vec<TransactionId> {
            s.list(10)
                .unwrap()
                .into_iter()
                .map(|t| t.transaction_id)
                .collect()
        };
        assert_eq!(ids(&b), [t3.id.clone(), t2.id.clone()]);
        assert_eq!(a.get(&t1.id).unwrap(), None);
        // `a` still indexes t1, which is gone: it must not count it.
        b.remove(&t2.id).unwrap();
        a.record(&t4).unwrap();
        assert_eq!(ids(&a), [t4.id.clone(), t3.id.clone()]);
    }

    #[test]
    fn damaged_content_is_refused_not_returned() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), UndoLimits::default());
        let tx = Transaction::now("multi_edit", None, vec![edit("/r/a", b"before", b"after")]);
        s.record(&tx).unwrap();
        fs::write(s.dir().join(tx.id.as_str()).join("before-0"), b"BEFORE").unwrap();
        let err = s.get(&tx.id).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("does not match its hash"), "{err}");
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
        fs::create_dir(&half).unwrap();
        fs::write(half.join("before-0"), b"x").unwrap();
        assert!(s.list(10).unwrap().is_empty());
        let _ = store(tmp.path(), UndoLimits::default());
        assert!(!half.exists());
    }

    #[test]
    fn a_store_others_can_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("undo");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        let err = UndoStore::open(dir, UndoLimits::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(err.to_string().contains("--undo-dir"), "{err}");
    }
}
