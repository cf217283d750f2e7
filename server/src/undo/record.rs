//! What the store keeps of a committed call: the transaction as the tools
//! see it ([`Transaction`], its [`PathRecord`]s, its [`TransactionId`]),
//! what a listing shows of it ([`Summary`]), and its record line as it is
//! written at the head of its bytes ([`RecordFile`]), with the parse every
//! layout's reader shares.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::fsio::sha256_hex;

/// The id of a committed transaction, as a tool answers it and `undo` takes
/// it: `<time in ms>-<process id>-<counter>`, each in fixed-width hex
/// (12, 8, 8 digits), so ids sort by time and two servers never make the
/// same one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TransactionId(String);

impl TransactionId {
    /// A new id for a transaction committed at `time_unix_ms`.
    pub(super) fn new(time_unix_ms: u64) -> TransactionId {
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

/// The first line of a transaction's file (and, in the older layout,
/// `record.json`): the transaction without its content.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct RecordFile {
    pub(super) format: u32,
    pub(super) id: TransactionId,
    pub(super) time_unix_ms: u64,
    pub(super) tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) undoes: Option<TransactionId>,
    pub(super) paths: Vec<PathEntry>,
}

impl RecordFile {
    /// The record of `tx`, its contents hashed; `None` if a path is not
    /// valid UTF-8.
    pub(super) fn of(tx: &Transaction) -> Option<RecordFile> {
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
            format: super::log::FORMAT_LOG,
            id: tx.id.clone(),
            time_unix_ms: tx.time_unix_ms,
            tool: tx.tool.clone(),
            undoes: tx.undoes.clone(),
            paths,
        })
    }

    pub(super) fn stored_bytes(&self) -> u64 {
        self.paths
            .iter()
            .filter_map(|p| p.before.as_ref())
            .map(|b| b.len)
            .sum()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct PathEntry {
    pub(super) path: String,
    pub(super) operation: Operation,
    /// `None`: absent before.
    pub(super) before: Option<BlobEntry>,
    /// `None`: absent after.
    pub(super) after_sha256: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct BlobEntry {
    pub(super) sha256: String,
    pub(super) len: u64,
    pub(super) mode: u32,
}

/// The longest first line a record may have (its paths' names and hashes:
/// far below this for any call the server's limits admit).
pub(super) const MAX_HEADER: u64 = 64 * 1024 * 1024;

pub(super) fn summary(record: RecordFile) -> Summary {
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

pub(super) fn parse_record(path: &Path, bytes: &[u8], format: u32) -> io::Result<RecordFile> {
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

pub(super) fn damaged(path: &Path, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("undo record {} is damaged: {why}", path.display()),
    )
}
