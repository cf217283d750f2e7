//! The `undo` tool: puts back every path a committed call touched, as one
//! transaction of its own.
//!
//! An undo is a transaction like any other: it reads the record of the call
//! to undo from the store ([`crate::undo`]), checks that every path it
//! touched is still exactly as that call left it (the same SHA-256, or
//! still absent), and only then commits, through [`Committer::commit_paths`]
//! and its journal, each path from its current state back to its recorded
//! state before. A path that changed since makes the whole undo refuse
//! (`UNDO_CONFLICT`, naming every such path) before anything is written.
//! The undo is recorded in turn (`record`; `undoes` names the
//! transaction it undid), so undoing it redoes the call. Undo writes no
//! `.bak`.
//!
//! Paths are resolved again through the sandbox against the call's roots,
//! so a transaction recorded under wider roots cannot be undone from
//! narrower ones.

use super::record::{self, Undoable};
use crate::args::{FileArgs, UndoRequest};
use crate::commit::{Before, CommitError, Committer, PathChange, Wait};
use crate::config::Config;
use crate::envelopes::{self as env, FileCtx};
use crate::fsio::{self, FileSnapshot, FsErrorKind};
use crate::response::{UndoSuccess, UndoneFile};
use crate::sandbox::{self, Found};
use crate::taxonomy::{ChangedFile, ErrorEnvelope, UndoError};
use crate::undo::{self, Operation, TransactionId, UndoState};

/// What a path of the transaction is now.
#[allow(clippy::large_enum_variant)] // a handful per call, moved once
enum Now {
    Present(FileSnapshot),
    Absent(crate::commit::NewPath),
}

/// Runs `undo`.
pub fn run(
    cfg: &Config,
    committer: &Committer,
    req: &UndoRequest,
    wait: Wait<'_>,
) -> Result<UndoSuccess, UndoError> {
    let id = &req.transaction_id;
    let store = match &cfg.undo {
        UndoState::Open(store) => store,
        UndoState::Unavailable { dir, os_error } => return Err(unavailable(dir, os_error, id)),
    };
    let tx = match store.get(id) {
        Ok(Some(tx)) => tx,
        Ok(None) => return Err(ErrorEnvelope::transaction_not_found(id.to_string()).into()),
        Err(e) => {
            tracing::warn!(transaction = %id, error = %e, "undo record unreadable");
            return Err(unavailable(store.dir(), &undo::errno_name(&e), id));
        }
    };

    // Every path as it is now, and which differ from what the call left.
    let mut now: Vec<Now> = Vec::with_capacity(tx.paths.len());
    let mut changed: Vec<ChangedFile> = Vec::new();
    for p in &tx.paths {
        let shown = p.path.display().to_string();
        let ctx = FileCtx::single(&shown);
        let found = sandbox::locate_new(&cfg.handles, &cfg.roots, &p.path)
            .map_err(|e| env::resolve_error(&ctx, e.into()))?;
        let mut differs = |current: Option<String>, file_type: Option<&str>| {
            changed.push(ChangedFile {
                file_path: shown.clone(),
                expected_sha256: p.after_sha256.clone(),
                current_sha256: current,
                file_type: file_type.map(str::to_string),
            })
        };
        match found {
            Found::Existing(located) => {
                if let Some(ty) = fsio::type_name(located.file_type) {
                    differs(None, Some(ty));
                    continue;
                }
                let snapshot = fsio::read_located(located, cfg.limits.max_file_size)
                    .map_err(|e| env::fs_error(&ctx, &e))?;
                let hash = snapshot.sha256_hex();
                if p.after_sha256.as_deref() != Some(hash.as_str()) {
                    differs(Some(hash), None);
                }
                now.push(Now::Present(snapshot));
            }
            Found::Absent(at) => {
                if p.after_sha256.is_some() {
                    differs(None, None);
                }
                now.push(Now::Absent(at));
            }
        }
    }
    if !changed.is_empty() {
        return Err(ErrorEnvelope::undo_conflict(id.to_string(), changed).into());
    }

    // The inverse transaction.
    let mut changes: Vec<PathChange> = Vec::new();
    let mut operations: Vec<Operation> = Vec::new();
    let mut files: Vec<UndoneFile> = Vec::new();
    for (p, now) in tx.paths.iter().zip(now) {
        let (before, after, mode, action) = match (now, &p.before) {
            (Now::Present(s), Some((bytes, _))) => {
                (Before::Present(s), Some(bytes.clone()), None, "restore")
            }
            (Now::Present(s), None) => (Before::Present(s), None, None, "delete"),
            (Now::Absent(at), Some((bytes, mode))) => (
                Before::Absent(at),
                Some(bytes.clone()),
                Some(*mode),
                "recreate",
            ),
            // Absent before and after: nothing to do.
            (Now::Absent(_), None) => continue,
        };
        files.push(UndoneFile {
            file_path: p.path.display().to_string(),
            action: action.to_string(),
            written: false,
            sha256: after.as_deref().map(crate::fsio::sha256_hex),
        });
        operations.push(inverse(p.operation, p.before.is_some()));
        changes.push(PathChange {
            before,
            after,
            like: None,
            mode,
            backup: false,
        });
    }
    let n = files.len();
    if req.dry_run {
        return Ok(UndoSuccess {
            success: true,
            message: format!("dry run: undoing {id} would change {n} file(s); nothing written"),
            dry_run: true,
            undone: id.to_string(),
            transaction_id: None,
            files,
        });
    }
    let recorder = record::start(cfg, "undo", Some(id.clone()), &changes, &operations, |k| {
        files[k].sha256.clone()
    });
    let never = |_: usize, _: &std::fs::File| Ok::<_, std::convert::Infallible>(None);
    match committer.commit_paths(changes, wait, never) {
        Ok(report) => {
            for (f, r) in files.iter_mut().zip(&report.files) {
                f.written = r.written;
            }
            // Recorded even if nothing needed writing: its id says it ran.
            let undoable = recorder.finish(true, Vec::new());
            Ok(UndoSuccess {
                success: true,
                message: format!(
                    "undid {id}: {n} file(s) put back atomically{}",
                    undoable.note()
                ),
                dry_run: false,
                undone: id.to_string(),
                transaction_id: match undoable {
                    Undoable::Recorded(new) => Some(new.to_string()),
                    _ => None,
                },
                files,
            })
        }
        Err(CommitError::Cancelled) => Err(env::cancelled()),
        Err(CommitError::Rebase { error, .. }) => match error {},
        Err(CommitError::Failed(failure)) => {
            let k = failure.failed_index.unwrap_or(0);
            let path = files
                .get(k)
                .map(|f| f.file_path.clone())
                .unwrap_or_default();
            // Changed between the check and the locks: the same refusal.
            let current = match &failure.error.kind {
                FsErrorKind::Stale { current_sha256 } => Some((Some(current_sha256.clone()), None)),
                FsErrorKind::AlreadyExists(ty) => Some((None, *ty)),
                _ => None,
            };
            if let Some((current_sha256, file_type)) = current
                && !failure.rollback.attempted
            {
                let expected = tx
                    .paths
                    .iter()
                    .find(|p| p.path.display().to_string() == path)
                    .and_then(|p| p.after_sha256.clone());
                let one = ChangedFile {
                    file_path: path,
                    expected_sha256: expected,
                    current_sha256,
                    file_type: file_type.map(str::to_string),
                };
                return Err(ErrorEnvelope::undo_conflict(id.to_string(), vec![one]).into());
            }
            let args: Vec<FileArgs> = files
                .iter()
                .map(|f| FileArgs::edit(f.file_path.clone(), Vec::new(), None))
                .collect();
            let owner: Vec<usize> = (0..args.len()).collect();
            let ctx = FileCtx::single(&path);
            Err(env::commit_failure(&ctx, &args, &owner, &failure))
        }
    }
}

/// What undoing `op` does to a path, as the undo's own record says it.
fn inverse(op: Operation, existed_before: bool) -> Operation {
    match op {
        Operation::Edit => Operation::Edit,
        Operation::Create if existed_before => Operation::Edit,
        Operation::Create => Operation::Delete,
        Operation::Delete => Operation::Create,
        Operation::MoveFrom => Operation::MoveTo,
        Operation::MoveTo => Operation::MoveFrom,
    }
}

/// UNDO_UNAVAILABLE.
fn unavailable(dir: &std::path::Path, os_error: &str, id: &TransactionId) -> UndoError {
    ErrorEnvelope::undo_unavailable(os_error.to_string(), dir.display().to_string())
        .transaction_id(id.to_string())
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inverse_of_each_operation() {
        assert_eq!(inverse(Operation::Create, false), Operation::Delete);
        assert_eq!(inverse(Operation::Create, true), Operation::Edit);
        assert_eq!(inverse(Operation::Delete, true), Operation::Create);
        assert_eq!(inverse(Operation::MoveFrom, true), Operation::MoveTo);
        assert_eq!(inverse(Operation::MoveTo, false), Operation::MoveFrom);
    }
}
