//! The two tools as plain functions: decoded arguments in, a success value
//! or a taxonomy envelope out.
//!
//! This is where the pieces meet: [`crate::resolve`] (roots), [`crate::fsio`]
//! (reading), [`crate::engine`] (the pure edit), [`crate::commit`] (the
//! atomic, journaled write) and [`crate::envelopes`] (failure → envelope).
//! Nothing here knows about MCP; the handlers in [`crate::mcp`] only decode,
//! call these and wrap the result.
//!
//! Order of work for every call: validate all arguments; resolve every file
//! beneath the pinned roots and read it through the handle the resolution
//! opened ([`crate::sandbox`]: no second lookup by path); check expected
//! hashes; compute every new content in memory;
//! only then touch the disk (never on a dry run). A failure at any step
//! before the commit leaves every file untouched.
//!
//! Parallel calls on one file: the commit re-checks each file under its lock.
//! When another call changed it since it was read, a file without
//! `expected_sha256` is re-read under the lock and its edits re-applied to
//! what it holds now (they are exact replacements: they still apply, or fail
//! with the ordinary match errors); a file with `expected_sha256` fails as
//! `STALE_FILE`, since the caller said which content its edits are for.
//!
//! Cancellation and deadline: `wait.cancelled` is polled while the commit
//! waits for locks and checked once at the commit point
//! ([`Committer::commit_with`]); a call cancelled before it writes nothing.
//! `wait.until` ends every lock wait of the call (`WRITE_FAILED`, `EBUSY`).

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use crate::args::{EditRequest, FileArgs, FileOp};
use crate::commit::{Before, CommitError, Committer, NewPath, PathChange, Wait};
use crate::config::Config;
use crate::engine::{self, Edit};
use crate::envelopes::{self as env, FileCtx};
use crate::fsio::{self, FileSnapshot, FsError, FsErrorKind, FsOp};
use crate::response::{
    self, EditSummary, FileResult, FilesSummary, MultiEditFilesSuccess, MultiEditSuccess,
};
use crate::taxonomy::{ErrorEnvelope, FileState, FileStatus};
use crate::undo::{Operation, PathRecord, Recorded, Transaction};

/// One file, read and edited in memory, not yet written.
struct Planned {
    snapshot: FileSnapshot,
    outcome: engine::Outcome,
}

/// One entry of a call, resolved and computed in memory: what its path (or,
/// for a move, its two paths) will go from and to.
enum Step {
    /// An existing file, edited (also a create that replaces the file whose
    /// hash the caller gave: present to present).
    Edit(Planned),
    /// A new file with `outcome.content`.
    Create {
        at: NewPath,
        outcome: engine::Outcome,
    },
    /// An existing file removed.
    Delete(FileSnapshot),
    /// An existing file removed and its content (edited) created at `to`.
    Move { from: Planned, to: NewPath },
}

impl Step {
    /// The bytes the entry read (for a dry run's diff).
    fn old(&self) -> &[u8] {
        match self {
            Step::Edit(p) | Step::Move { from: p, .. } => &p.snapshot.bytes,
            Step::Create { .. } => &[],
            Step::Delete(s) => &s.bytes,
        }
    }
}

/// A path an entry names, after resolution: for the conflict checks.
struct Named {
    path: PathBuf,
    id: Option<(u64, u64)>,
    index: usize,
    edit: bool,
}

/// Runs `multi_edit`.
pub fn multi_edit(
    cfg: &Config,
    committer: &Committer,
    req: &EditRequest,
    wait: Wait<'_>,
) -> Result<MultiEditSuccess, ErrorEnvelope> {
    let file = &req.files[0];
    let ctx = FileCtx::single(&file.file_path);
    let planned = plan(cfg, &ctx, file)?;
    let (mut results, undoable) = finish(
        cfg,
        committer,
        "multi_edit",
        req,
        vec![Step::Edit(planned)],
        &[ctx],
        wait,
    )?;
    let r = results.remove(0);
    let message = summary(&r, req.dry_run) + undoable.note();
    let mut answer = MultiEditSuccess {
        success: true,
        message,
        dry_run: req.dry_run,
        transaction_id: undoable.id(),
        file: r,
    };
    response::fit_answer(&mut answer, cfg.limits.max_answer_bytes);
    Ok(answer)
}

/// Runs `multi_edit_files`.
pub fn multi_edit_files(
    cfg: &Config,
    committer: &Committer,
    req: &EditRequest,
    wait: Wait<'_>,
) -> Result<MultiEditFilesSuccess, ErrorEnvelope> {
    let ctxs: Vec<FileCtx> = req
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| FileCtx::multi(i, &f.file_path, req.files.len()))
        .collect();
    let mut planned: Vec<Step> = Vec::with_capacity(req.files.len());
    let mut seen: Vec<Named> = Vec::new();
    for (i, file) in req.files.iter().enumerate() {
        let step = plan_step(cfg, &ctxs[i], i, file, &mut seen)
            .map_err(|e| with_statuses(e, &req.files, i))?;
        planned.push(step);
    }
    let (results, undoable) = finish(
        cfg,
        committer,
        "multi_edit_files",
        req,
        planned,
        &ctxs,
        wait,
    )?;
    let changed = results.iter().filter(|r| r.changed).count();
    let count = |op: &str| {
        results
            .iter()
            .filter(|r| r.op.as_deref() == Some(op))
            .count()
    };
    let (created, deleted, moved) = (count("create"), count("delete"), count("move"));
    let ops = if created + deleted + moved > 0 {
        format!(" ({created} created, {deleted} deleted, {moved} moved)")
    } else {
        String::new()
    };
    let message = if req.dry_run {
        format!(
            "dry run: {} file(s) validated, {changed} would change{ops}; nothing written",
            results.len()
        )
    } else {
        format!(
            "{} file(s) edited, {changed} written atomically{ops}",
            results.len()
        )
    };
    let total_edits = results.iter().map(|r| r.edits_applied).sum();
    let n = results.len() as u64;
    let mut answer = MultiEditFilesSuccess {
        success: true,
        message: message + undoable.note(),
        dry_run: req.dry_run,
        transaction_id: undoable.id(),
        files_edited: n,
        summary: FilesSummary {
            total_files: n,
            files_succeeded: n,
            files_failed: 0,
            total_edits,
        },
        file_results: results,
    };
    response::fit_answer(&mut answer, cfg.limits.max_answer_bytes);
    Ok(answer)
}

/// Adds `file_statuses` to a failure of file `failed` during planning:
/// earlier files would have succeeded, later ones were not attempted.
fn with_statuses(mut e: ErrorEnvelope, files: &[FileArgs], failed: usize) -> ErrorEnvelope {
    if files.len() < 2 || !e.error_code.may_carry("file_statuses") {
        return e;
    }
    let statuses = files
        .iter()
        .enumerate()
        .map(|(i, f)| FileStatus {
            file_index: i as u64,
            file_path: f.file_path.clone(),
            status: match i.cmp(&failed) {
                std::cmp::Ordering::Less => FileState::WouldSucceed,
                std::cmp::Ordering::Equal => FileState::Failed,
                std::cmp::Ordering::Greater => FileState::Skipped,
            },
            error_code: (i == failed).then_some(e.error_code),
        })
        .collect();
    e.file_statuses = Some(statuses);
    e
}

/// The memory a call may hold at its peak, for admission
/// ([`crate::admission`]): [`FOOTPRINT_PER_FILE_BYTE`] times the size of its
/// files plus twice its request (the arguments and their decoded form).
/// Only stats, never reads; a path outside the roots or one that cannot be
/// stat'ed counts as empty (the call fails early on it anyway).
pub fn footprint(cfg: &Config, req: &EditRequest, request_bytes: usize) -> u64 {
    let files: u64 = req
        .files
        .iter()
        .map(|f| std::path::Path::new(&f.file_path))
        .filter(|p| p.is_absolute() && cfg.contains(p))
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len().min(cfg.limits.max_file_size))
        .sum();
    files
        .saturating_mul(FOOTPRINT_PER_FILE_BYTE)
        .saturating_add(2 * request_bytes as u64)
}

/// Peak memory of a call per byte of the files it edits, measured: a dry run
/// on a 4 MiB file of 120,000 lines peaks about 44 MB above the idle server
/// (the bytes read, the new content, the line tables of the diff, the answer
/// and its JSON), so 12.
pub const FOOTPRINT_PER_FILE_BYTE: u64 = 12;

/// The answer to a call that waited behind other calls on file `index` until
/// its lock deadline: the same as a lock timeout in the commit (nothing was
/// read or written).
pub fn lock_timeout(req: &EditRequest, index: usize) -> ErrorEnvelope {
    let file = &req.files[index];
    let ctx = if req.files.len() == 1 {
        FileCtx::single(&file.file_path)
    } else {
        FileCtx::multi(index, &file.file_path, req.files.len())
    };
    let busy = fsio::FsError {
        kind: fsio::FsErrorKind::Busy,
        op: fsio::FsOp::Lock,
        path: PathBuf::from(&file.file_path),
        os_error: Some("EBUSY"),
    };
    with_statuses(env::fs_error(&ctx, &busy), &req.files, index)
}

/// Resolves and computes one entry of `multi_edit_files`, checking that no
/// path it names was named by an earlier entry (`seen`, which it extends).
// The `stat` field types differ between architectures.
#[allow(clippy::unnecessary_cast)]
fn plan_step(
    cfg: &Config,
    ctx: &FileCtx,
    i: usize,
    file: &FileArgs,
    seen: &mut Vec<Named>,
) -> Result<Step, ErrorEnvelope> {
    let edit = file.op == FileOp::Edit;
    // The same file through a symlink, another spelling or another hard
    // link (same device and inode: two links would otherwise each take the
    // file's lock, and the second wait on the first forever).
    let check = |seen: &[Named],
                 ctx: &FileCtx,
                 path: &std::path::Path,
                 id: Option<(u64, u64)>,
                 edit: bool| {
        let clash = seen
            .iter()
            .find(|n| n.index != i && (n.path == path || (id.is_some() && n.id == id)));
        match clash {
            Some(n) if edit && n.edit => Err(env::duplicate_file_path(ctx, n.index)),
            Some(n) => Err(env::path_conflict(ctx, n.index)),
            None => Ok(()),
        }
    };
    let id_of = |s: &FileSnapshot| Some((s.metadata.dev(), s.metadata.ino()));
    let step = match &file.op {
        FileOp::Edit => {
            let p = plan(cfg, ctx, file)?;
            check(seen, ctx, &p.snapshot.path, id_of(&p.snapshot), true)?;
            Step::Edit(p)
        }
        FileOp::Delete => {
            let snapshot = read_checked(cfg, ctx, file)?;
            check(seen, ctx, &snapshot.path, id_of(&snapshot), false)?;
            Step::Delete(snapshot)
        }
        FileOp::Create { content } => {
            let max = cfg.limits.max_file_size;
            if content.len() as u64 > max {
                let kind = FsErrorKind::TooLarge {
                    size: content.len() as u64,
                    max,
                };
                return Err(env::fs_error(
                    ctx,
                    &FsError::new(kind, FsOp::Stage, &file.file_path),
                ));
            }
            let outcome = apply_bytes(cfg, ctx, file, content.as_bytes())?;
            match new_path(cfg, ctx, &file.file_path, file.create_parents, seen, &check)? {
                Ok(at) => {
                    if file.expected_sha256.is_some() {
                        // The caller meant to replace a file that is gone.
                        return Err(env::resolve_error(
                            ctx,
                            crate::resolve::ResolveError::NotFound,
                        ));
                    }
                    seen.push(Named {
                        path: at.path.clone(),
                        id: None,
                        index: i,
                        edit: false,
                    });
                    return Ok(Step::Create { at, outcome });
                }
                Err(located) => {
                    if file.expected_sha256.is_none() {
                        let ty = crate::fsio::type_name(located.file_type);
                        let kind = FsErrorKind::AlreadyExists(ty);
                        return Err(env::fs_error(
                            ctx,
                            &FsError::new(kind, FsOp::Read, &located.path),
                        ));
                    }
                    // Replacing the file the caller read: an edit of it.
                    let snapshot = fsio::read_located(located, cfg.limits.max_file_size)
                        .map_err(|e| env::fs_error(ctx, &e))?;
                    check_hash(ctx, file, &snapshot)?;
                    check(seen, ctx, &snapshot.path, id_of(&snapshot), false)?;
                    Step::Edit(Planned { snapshot, outcome })
                }
            }
        }
        FileOp::Move { to } => {
            let from = plan(cfg, ctx, file)?;
            check(seen, ctx, &from.snapshot.path, id_of(&from.snapshot), false)?;
            seen.push(Named {
                path: from.snapshot.path.clone(),
                id: id_of(&from.snapshot),
                index: i,
                edit: false,
            });
            let dest_ctx = FileCtx {
                file_path: to.clone(),
                file_index: ctx.file_index,
            };
            match new_path(cfg, &dest_ctx, to, file.create_parents, seen, &check)? {
                Ok(at) => {
                    seen.push(Named {
                        path: at.path.clone(),
                        id: None,
                        index: i,
                        edit: false,
                    });
                    return Ok(Step::Move { from, to: at });
                }
                Err(located) => {
                    // Another hard link of the source is the source too.
                    let same = located.path == from.snapshot.path
                        || rustix::fs::statat(
                            located.dir.fd(),
                            &located.name,
                            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                        )
                        .is_ok_and(|st| {
                            (st.st_dev as u64, st.st_ino as u64)
                                == id_of(&from.snapshot).unwrap_or_default()
                        });
                    if same {
                        return Err(env::move_onto_itself(ctx));
                    }
                    let ty = crate::fsio::type_name(located.file_type);
                    let kind = FsErrorKind::AlreadyExists(ty);
                    return Err(env::fs_error(
                        &dest_ctx,
                        &FsError::new(kind, FsOp::Read, &located.path),
                    ));
                }
            }
        }
    };
    if let Step::Edit(p) = &step {
        seen.push(Named {
            path: p.snapshot.path.clone(),
            id: id_of(&p.snapshot),
            index: i,
            edit,
        });
    } else if let Step::Delete(s) = &step {
        seen.push(Named {
            path: s.path.clone(),
            id: id_of(s),
            index: i,
            edit: false,
        });
    }
    Ok(step)
}

type Check<'a> = dyn Fn(&[Named], &FileCtx, &std::path::Path, Option<(u64, u64)>, bool) -> Result<(), ErrorEnvelope>
    + 'a;

/// Resolves a path to create: `Ok(Ok(where))` when it is free,
/// `Ok(Err(what is there))` when something exists (after checking that no
/// earlier entry names it), or the envelope of why it cannot be used.
fn new_path(
    cfg: &Config,
    ctx: &FileCtx,
    path: &str,
    create_parents: bool,
    seen: &[Named],
    check: &Check<'_>,
) -> Result<Result<NewPath, crate::sandbox::Located>, ErrorEnvelope> {
    let found = crate::sandbox::locate_new(&cfg.handles, &cfg.roots, std::path::Path::new(path))
        .map_err(|e| env::resolve_error(ctx, e.into()))?;
    match found {
        crate::sandbox::Found::Absent(at) => {
            check(seen, ctx, &at.path, None, false)?;
            // A directory another entry creates counts as missing too.
            if !at.missing.is_empty() && !create_parents {
                let e = FsError::new(FsErrorKind::ParentMissing, FsOp::Read, &at.path);
                return Err(env::fs_error(ctx, &e));
            }
            Ok(Ok(at))
        }
        crate::sandbox::Found::Existing(located) => {
            check(seen, ctx, &located.path, None, false)?;
            Ok(Err(located))
        }
    }
}

/// Resolves and reads an existing file, checking the caller's hash.
fn read_checked(
    cfg: &Config,
    ctx: &FileCtx,
    file: &FileArgs,
) -> Result<FileSnapshot, ErrorEnvelope> {
    let located =
        crate::resolve::resolve(cfg, &file.file_path).map_err(|e| env::resolve_error(ctx, e))?;
    let snapshot = fsio::read_located(located, cfg.limits.max_file_size)
        .map_err(|e| env::fs_error(ctx, &e))?;
    check_hash(ctx, file, &snapshot)?;
    Ok(snapshot)
}

/// STALE_FILE when the caller gave a hash the file no longer has.
fn check_hash(
    ctx: &FileCtx,
    file: &FileArgs,
    snapshot: &FileSnapshot,
) -> Result<(), ErrorEnvelope> {
    if let Some(expected) = &file.expected_sha256 {
        let current = snapshot.sha256_hex();
        if *expected != current {
            return Err(env::stale(ctx, Some(expected.clone()), current));
        }
    }
    Ok(())
}

/// Resolves, reads and edits one file in memory.
fn plan(cfg: &Config, ctx: &FileCtx, file: &FileArgs) -> Result<Planned, ErrorEnvelope> {
    // Hashed only when the caller gave a hash to compare with.
    let snapshot = read_checked(cfg, ctx, file)?;
    let outcome = if file.edits.is_empty() {
        // A move without edits: the bytes as they are, whatever they hold.
        unchanged(&snapshot.bytes)
    } else {
        apply(cfg, ctx, file, &snapshot.bytes)?
    };
    Ok(Planned { snapshot, outcome })
}

/// The outcome of no edits at all (any bytes, UTF-8 or not).
fn unchanged(bytes: &[u8]) -> engine::Outcome {
    engine::Outcome {
        content: bytes.to_vec(),
        changed: false,
        per_edit: Vec::new(),
        line_ending: engine::LineEnding::None,
        bom: bytes.starts_with(b"\xEF\xBB\xBF"),
        eol_translated: false,
    }
}

/// The outcome of writing `content` as a whole (a create): its line
/// endings and BOM as the engine reports them.
fn apply_bytes(
    cfg: &Config,
    ctx: &FileCtx,
    file: &FileArgs,
    content: &[u8],
) -> Result<engine::Outcome, ErrorEnvelope> {
    let mut o = apply(cfg, ctx, file, content)?;
    o.changed = true;
    Ok(o)
}

/// Applies `file`'s edits to `bytes` in memory.
fn apply(
    cfg: &Config,
    ctx: &FileCtx,
    file: &FileArgs,
    bytes: &[u8],
) -> Result<engine::Outcome, ErrorEnvelope> {
    let edits: Vec<Edit<'_>> = file
        .edits
        .iter()
        .map(|e| Edit {
            old_string: &e.old_string,
            new_string: &e.new_string,
            replace_all: e.replace_all,
        })
        .collect();
    // Capped while applying: chained `replace_all` edits can grow a file
    // exponentially, so checking the size afterwards would be too late.
    let max = cfg.limits.max_file_size;
    engine::apply_capped(bytes, &edits, max).map_err(|f| env::capped_failure(ctx, file, max, f))
}

/// Re-reads a file that changed since it was planned (the commit holds its
/// lock) and re-applies its edits: the file's bytes now and the new bytes.
fn replan(
    cfg: &Config,
    ctx: &FileCtx,
    file: &FileArgs,
    path: &std::path::Path,
    open: &std::fs::File,
) -> Result<(Vec<u8>, engine::Outcome), ErrorEnvelope> {
    use crate::fsio::{FsError, FsErrorKind, FsOp};
    let max = cfg.limits.max_file_size;
    let now = fsio::reread(open, max)
        .map_err(|e| env::fs_error(ctx, &FsError::from_io(&e, FsOp::Read, path)))?
        .map_err(|size| {
            let kind = FsErrorKind::TooLarge { size, max };
            env::fs_error(ctx, &FsError::new(kind, FsOp::Read, path))
        })?;
    let outcome = apply(cfg, ctx, file, &now)?;
    Ok((now, outcome))
}

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

/// Records a committed transaction in the store; never fails the call.
pub(crate) fn record(
    cfg: &Config,
    tool: &str,
    undoes: Option<crate::undo::TransactionId>,
    paths: Vec<Recording>,
) -> Undoable {
    let Some(store) = cfg.undo.store().filter(|s| s.limits().max_transactions > 0) else {
        return Undoable::Nothing;
    };
    let paths = paths
        .into_iter()
        .map(|r| PathRecord {
            path: r.path,
            operation: r.operation,
            before: r.before,
            after_sha256: r.after_sha256,
        })
        .collect();
    let tx = Transaction::now(tool, undoes, paths);
    match store.record(&tx) {
        Ok(Recorded::Stored) => Undoable::Recorded(tx.id),
        Ok(Recorded::TooLarge) => Undoable::NotRecorded(TOO_LARGE),
        Ok(Recorded::NotRepresentable) => {
            Undoable::NotRecorded("; not recorded for undo (a path is not valid UTF-8)")
        }
        Err(e) => {
            tracing::warn!(error = %e, "a committed call could not be recorded for undo");
            Undoable::NotRecorded("; not recorded for undo (the undo store could not be written)")
        }
    }
}

/// Commits (unless dry run) and builds the per-file results, and records
/// the transaction for undo.
fn finish(
    cfg: &Config,
    committer: &Committer,
    tool: &str,
    req: &EditRequest,
    planned: Vec<Step>,
    ctxs: &[FileCtx],
    wait: Wait<'_>,
) -> Result<(Vec<FileResult>, Undoable), ErrorEnvelope> {
    let max_out = cfg.limits.max_output_bytes;
    let mut results: Vec<FileResult> = planned
        .iter()
        .zip(&req.files)
        .enumerate()
        .map(|(i, (p, f))| step_result(i, f, p, req, max_out))
        .collect();
    if req.dry_run {
        return Ok((results, Undoable::Nothing));
    }
    // The transaction, path by path; `owner[k]` is the entry of change `k`
    // (a move gives two). Edits that change nothing are not written.
    let mut owner: Vec<usize> = Vec::new();
    let mut changes: Vec<PathChange> = Vec::new();
    let mut operations: Vec<Operation> = Vec::new();
    let mut push = |i: usize, c: PathChange, op: Operation| {
        owner.push(i);
        changes.push(c);
        operations.push(op);
    };
    for (i, step) in planned.into_iter().enumerate() {
        match step {
            Step::Edit(p) if p.outcome.changed => push(
                i,
                PathChange {
                    before: Before::Present(p.snapshot),
                    after: Some(p.outcome.content),
                    like: None,
                    mode: None,
                    backup: req.backup,
                },
                if matches!(req.files[i].op, FileOp::Create { .. }) {
                    Operation::Create
                } else {
                    Operation::Edit
                },
            ),
            Step::Edit(_) => {}
            Step::Create { at, outcome } => push(
                i,
                PathChange {
                    before: Before::Absent(at),
                    after: Some(outcome.content),
                    like: None,
                    mode: None,
                    backup: false,
                },
                Operation::Create,
            ),
            Step::Delete(snapshot) => push(
                i,
                PathChange {
                    before: Before::Present(snapshot),
                    after: None,
                    like: None,
                    mode: None,
                    backup: false,
                },
                Operation::Delete,
            ),
            Step::Move { from, to } => {
                let like = Some(from.snapshot.metadata.clone());
                push(
                    i,
                    PathChange {
                        before: Before::Absent(to),
                        after: Some(from.outcome.content),
                        like,
                        mode: None,
                        backup: false,
                    },
                    Operation::MoveTo,
                );
                push(
                    i,
                    PathChange {
                        before: Before::Present(from.snapshot),
                        after: None,
                        like: None,
                        mode: None,
                        backup: false,
                    },
                    Operation::MoveFrom,
                );
            }
        }
    }
    if changes.is_empty() {
        return Ok((results, Undoable::Nothing));
    }
    // What the undo store keeps: each path's content before and a hash of
    // it after (updated below for a path re-planned under its lock).
    // A transaction larger than the store's byte bound is not copied at all.
    let before_bytes: u64 = changes
        .iter()
        .map(|c| match &c.before {
            Before::Present(s) => s.bytes.len() as u64,
            Before::Absent(_) => 0,
        })
        .sum();
    let too_large = cfg
        .undo
        .store()
        .is_some_and(|s| s.limits().max_transactions > 0 && before_bytes > s.limits().max_bytes);
    let mut recording: Option<Vec<Recording>> = cfg.undo.store().filter(|_| !too_large).map(|_| {
        changes
            .iter()
            .zip(&operations)
            .zip(&owner)
            .map(|((c, &op), &i)| {
                // An entry's answered hash is of its new content (a move's,
                // at its destination); a path that ends absent has none.
                let after = c.after.is_some().then(|| results[i].sha256.clone());
                Recording::of(c, op, after)
            })
            .collect()
    });
    // Files another call changed since they were read, re-planned under the
    // lock: their results are recomputed from what was actually written.
    let mut replanned: Vec<(usize, engine::Outcome)> = Vec::new();
    let mut rebased: Vec<(usize, Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    let mut rebase = |k: usize, open: &std::fs::File| {
        let i = owner[k];
        let file = &req.files[i];
        if file.expected_sha256.is_some() {
            return Ok(None); // the caller stated the content it expected
        }
        match file.op {
            // Edits are exact replacements: they still apply, or fail.
            FileOp::Edit => {
                let path = std::path::Path::new(&file.file_path);
                let (now, outcome) = replan(cfg, &ctxs[i], file, path, open)?;
                let new_bytes = outcome.content.clone();
                replanned.push((i, outcome));
                Ok(Some((now, Some(new_bytes))))
            }
            // A delete does not depend on the content it removes.
            FileOp::Delete => {
                let path = std::path::Path::new(&file.file_path);
                let max = cfg.limits.max_file_size;
                let now = fsio::reread(open, max)
                    .map_err(|e| env::fs_error(&ctxs[i], &FsError::from_io(&e, FsOp::Read, path)))?
                    .map_err(|size| {
                        let kind = FsErrorKind::TooLarge { size, max };
                        env::fs_error(&ctxs[i], &FsError::new(kind, FsOp::Read, path))
                    })?;
                Ok(Some((now, None)))
            }
            // A move's new file was computed from the old content.
            FileOp::Create { .. } | FileOp::Move { .. } => Ok(None),
        }
    };
    let keep = recording.is_some();
    let rebase = |k: usize, open: &std::fs::File| {
        let answer = rebase(k, open);
        if keep && let Ok(Some((now, after))) = &answer {
            rebased.push((k, now.clone(), after.clone()));
        }
        answer
    };
    match committer.commit_paths(changes, wait, rebase) {
        Ok(report) => {
            let undoable = match recording.as_mut() {
                Some(paths) if report.files.iter().any(|f| f.written) => {
                    for (k, now, after) in rebased {
                        if let Some((bytes, _)) = &mut paths[k].before {
                            *bytes = now;
                        }
                        paths[k].after_sha256 = after.map(|a| hex::encode(sha256(&a)));
                    }
                    record(cfg, tool, None, recording.take().unwrap_or_default())
                }
                None if too_large && report.files.iter().any(|f| f.written) => {
                    Undoable::NotRecorded(TOO_LARGE)
                }
                _ => Undoable::Nothing,
            };
            for (i, outcome) in replanned {
                results[i] = file_result(i, &req.files[i], &[], &outcome, req, max_out);
            }
            for (k, fr) in report.files.into_iter().enumerate() {
                let r = &mut results[owner[k]];
                r.written |= fr.written;
                if let Some(b) = fr.backup_path {
                    r.backup_path = Some(b.display().to_string());
                }
            }
            Ok((results, undoable))
        }
        Err(CommitError::Cancelled) => Err(env::cancelled()),
        Err(CommitError::Rebase { index, error }) => {
            Err(with_statuses(error, &req.files, owner[index]))
        }
        Err(CommitError::Failed(failure)) => {
            let failed_file = owner[failure.failed_index.unwrap_or(0)];
            let mut ctx = ctxs[failed_file].clone();
            // A destination that appeared meanwhile is reported by its own path.
            if let (FsErrorKind::AlreadyExists(_), FileOp::Move { to }) =
                (&failure.error.kind, &req.files[failed_file].op)
            {
                ctx.file_path = to.clone();
            }
            Err(env::commit_failure(&ctx, &req.files, &owner, &failure))
        }
    }
}

/// The result of one entry of the call.
fn step_result(
    index: usize,
    file: &FileArgs,
    step: &Step,
    req: &EditRequest,
    max_out: usize,
) -> FileResult {
    let deleted;
    let outcome = match step {
        Step::Edit(p) | Step::Move { from: p, .. } => &p.outcome,
        Step::Create { outcome, .. } => outcome,
        Step::Delete(s) => {
            deleted = engine::Outcome {
                content: Vec::new(),
                changed: true,
                ..unchanged(&s.bytes)
            };
            &deleted
        }
    };
    let mut r = file_result(index, file, step.old(), outcome, req, max_out);
    match (step, &file.op) {
        (Step::Delete(s), _) => {
            r.sha256 = s.sha256_hex();
            r.final_content = None;
        }
        (Step::Move { .. }, FileOp::Move { to }) => {
            r.changed = true;
            r.moved_to = Some(to.clone());
        }
        _ => {}
    }
    if file.op != FileOp::Edit {
        r.op = Some(file.op.name().to_string());
    }
    r
}

/// The result of one file; `old` (the bytes read) is only used for a dry
/// run's diff.
fn file_result(
    index: usize,
    file: &FileArgs,
    old: &[u8],
    o: &engine::Outcome,
    req: &EditRequest,
    max_out: usize,
) -> FileResult {
    let mut truncated = false;
    let diff_preview = (req.dry_run).then(|| {
        let old = String::from_utf8_lossy(old);
        let new = String::from_utf8_lossy(&o.content);
        let (d, cut) = crate::diff::unified(&file.file_path, &old, &new, max_out);
        truncated |= cut;
        d
    });
    let final_content = req.include_content.then(|| {
        let s = String::from_utf8_lossy(&o.content);
        let (c, cut) = crate::envelopes::cap(&s, max_out);
        truncated |= cut;
        c
    });
    FileResult {
        file_index: index as u64,
        file_path: file.file_path.clone(),
        op: None,
        moved_to: None,
        changed: o.changed,
        written: false,
        edits_applied: file.edits.len() as u64,
        replacements: o.per_edit.iter().map(|e| e.replacements as u64).sum(),
        edits: Some(
            o.per_edit
                .iter()
                .zip(&file.edits)
                .enumerate()
                .map(|(i, (e, arg))| EditSummary {
                    edit_index: i as u64,
                    old_string: response::echo_old_string(&arg.old_string),
                    matched: true,
                    occurrences_replaced: e.replacements as u64,
                    line: e.first_line as u64,
                })
                .collect(),
        ),
        sha256: hex::encode(sha256(&o.content)),
        line_ending: o.line_ending.as_str().to_string(),
        bom: o.bom,
        eol_translated: o.eol_translated,
        backup_path: None,
        diff_preview,
        final_content,
        truncated: truncated.then_some(true),
        omitted: Vec::new(),
    }
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

fn summary(r: &FileResult, dry_run: bool) -> String {
    if dry_run {
        format!(
            "dry run: {} edit(s) would make {} replacement(s); nothing written",
            r.edits_applied, r.replacements
        )
    } else if !r.changed {
        format!(
            "{} edit(s) matched but changed nothing; file not written",
            r.edits_applied
        )
    } else {
        format!(
            "{} edit(s) applied, {} replacement(s), file written atomically",
            r.edits_applied, r.replacements
        )
    }
}
