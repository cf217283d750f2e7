//! Recording a committed call for undo: what every writing tool shares.
//!
//! `multi_edit`, `multi_edit_files` and `undo` all commit a transaction
//! through [`crate::commit`] and answer an id that `undo` takes. This module
//! is the one place that decides, before the commit, whether the call is
//! recorded at all ([`Recorder::store`]) and gathers each path's state
//! before ([`Recording`]), then, after a successful commit, hands the record
//! to the store ([`Recorder::finish`]) and says what the answer carries
//! ([`Undoable`]). The store itself is [`crate::undo`].

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use crate::commit::{Before, PathChange};
use crate::config::Config;
use crate::undo::{Operation, PathRecord, Recorded, Transaction};

/// Whether a call can be undone ([`crate::undo`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Undoable {
    /// Nothing was written (a dry run, or no change), or the server has no
    /// undo store: nothing to say.
    Nothing,
    /// Recorded under this id.
    Recorded(crate::undo::TransactionId),
    /// Committed but not recorded, for this reason.
    NotRecorded(&'static str),
}

impl Undoable {
    /// The id to answer.
    pub(crate) fn id(&self) -> Option<String> {
        match self {
            Undoable::Recorded(id) => Some(id.to_string()),
            _ => None,
        }
    }

    /// What the answer's message adds.
    pub(crate) fn note(&self) -> &'static str {
        match self {
            Undoable::NotRecorded(why) => why,
            _ => "",
        }
    }
}

/// What the undo store keeps of one path of a transaction, gathered before
/// the commit consumes the changes.
pub(crate) struct Recording {
    pub path: PathBuf,
    pub operation: Operation,
    pub before: Option<(Vec<u8>, u32)>,
    pub after_sha256: Option<String>,
}

impl Recording {
    /// The record of `change` (before it is committed); `after_sha256` is
    /// the hash of its new content, which the caller's answer already holds
    /// (`None` when it ends absent), so it is not hashed twice.
    pub(crate) fn of(
        change: &PathChange,
        operation: Operation,
        after_sha256: Option<String>,
    ) -> Recording {
        debug_assert_eq!(change.after.is_some(), after_sha256.is_some());
        Recording {
            path: change.path().to_path_buf(),
            operation,
            before: match &change.before {
                Before::Present(s) => Some((s.bytes.clone(), s.metadata.mode() & 0o7777)),
                Before::Absent(_) => None,
            },
            after_sha256,
        }
    }
}

/// What a call's message adds when its content is over the store's bound.
const TOO_LARGE: &str = "; not recorded for undo (larger than the undo store's byte bound)";

/// A call's transaction on its way into the undo store: decided before the
/// commit (whether it is kept, and its id), written by the store after the
/// answer (see "After the answer" in [`crate::undo`]). Dropped without
/// [`Recorder::finish`] (the commit failed), nothing is kept.
pub(crate) enum Recorder<'a> {
    /// The server has no store (or keeps no transactions): nothing to say.
    Off,
    /// Over the store's byte bound: its content is not even copied.
    TooLarge,
    On(
        crate::undo::Pending<'a>,
        std::sync::Arc<Transaction>,
        &'a crate::undo::UndoStore,
    ),
}

impl<'a> Recorder<'a> {
    /// Whether the server records a transaction whose paths held
    /// `before_bytes` of content before: [`Recorder::Off`], [`Recorder::TooLarge`],
    /// or the store to [`Recorder::start`] with.
    pub(crate) fn store(
        cfg: &'a Config,
        before_bytes: u64,
    ) -> Result<&'a crate::undo::UndoStore, Recorder<'a>> {
        match cfg.undo.store() {
            Some(s) if s.limits().max_transactions == 0 => Err(Recorder::Off),
            Some(s) if before_bytes > s.limits().max_bytes => Err(Recorder::TooLarge),
            Some(s) => Ok(s),
            None => Err(Recorder::Off),
        }
    }

    /// Starts recording `paths` (each one's state before the commit) in
    /// `store`, as committed by `tool` (undoing `undoes`).
    pub(crate) fn start(
        store: &'a crate::undo::UndoStore,
        tool: &str,
        undoes: Option<crate::undo::TransactionId>,
        paths: Vec<Recording>,
    ) -> Recorder<'a> {
        let paths = paths
            .into_iter()
            .map(|r| PathRecord {
                path: r.path,
                operation: r.operation,
                before: r.before,
                after_sha256: r.after_sha256,
            })
            .collect();
        let tx = std::sync::Arc::new(Transaction::now(tool, undoes, paths));
        Recorder::On(store.begin(std::sync::Arc::clone(&tx)), tx, store)
    }

    /// The commit succeeded. `written`: whether it wrote anything (if not,
    /// there is nothing to undo). `rebased`: paths the commit re-planned
    /// under their lock, as `(index, content before, content after)`, whose
    /// record must say what was really replaced (a rare path: another
    /// writer changed the file between the read and the lock).
    pub(crate) fn finish(
        self,
        written: bool,
        rebased: Vec<(usize, Vec<u8>, Option<Vec<u8>>)>,
    ) -> Undoable {
        let (pending, tx, store) = match self {
            Recorder::Off => return Undoable::Nothing,
            Recorder::TooLarge if written => return Undoable::NotRecorded(TOO_LARGE),
            Recorder::TooLarge => return Undoable::Nothing,
            Recorder::On(pending, tx, store) => (pending, tx, store),
        };
        if !written {
            return Undoable::Nothing;
        }
        let id = tx.id.clone();
        let recorded = if rebased.is_empty() {
            pending.publish()
        } else {
            drop(pending);
            let mut tx = Transaction::clone(&tx);
            for (k, now, after) in rebased {
                if let Some((bytes, _)) = &mut tx.paths[k].before {
                    *bytes = now;
                }
                tx.paths[k].after_sha256 = after.map(|a| hex::encode(sha256(&a)));
            }
            store.begin(std::sync::Arc::new(tx)).publish()
        };
        match recorded {
            Ok(Recorded::Stored) => Undoable::Recorded(id),
            Ok(Recorded::TooLarge) => Undoable::NotRecorded(TOO_LARGE),
            Ok(Recorded::NotRepresentable) => {
                Undoable::NotRecorded("; not recorded for undo (a path is not valid UTF-8)")
            }
            Err(e) => {
                tracing::warn!(error = %e, "a committed call could not be recorded for undo");
                Undoable::NotRecorded(
                    "; not recorded for undo (the undo store could not be written)",
                )
            }
        }
    }
}

/// Starts recording `changes` (`operations[k]` is what the call does to the
/// path of change `k`, `after_sha256(k)` the hash of its new content, `None`
/// when it ends absent) as committed by `tool`, undoing `undoes`: the
/// content before is only copied when the store keeps the transaction.
pub(crate) fn start<'a>(
    cfg: &'a Config,
    tool: &str,
    undoes: Option<crate::undo::TransactionId>,
    changes: &[PathChange],
    operations: &[Operation],
    after_sha256: impl Fn(usize) -> Option<String>,
) -> Recorder<'a> {
    let before_bytes: u64 = changes
        .iter()
        .map(|c| match &c.before {
            Before::Present(s) => s.bytes.len() as u64,
            Before::Absent(_) => 0,
        })
        .sum();
    match Recorder::store(cfg, before_bytes) {
        Err(no) => no,
        Ok(store) => {
            let paths = changes
                .iter()
                .zip(operations)
                .enumerate()
                .map(|(k, (c, &op))| Recording::of(c, op, after_sha256(k)))
                .collect();
            Recorder::start(store, tool, undoes, paths)
        }
    }
}

/// `sha256` of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}
