//! The `multi_edit_files` tool: edits, creates, deletes and moves across
//! files as one transaction.
//!
//! What is its own, beyond the planning and commit it shares with
//! `multi_edit` (`plan`, `edit_commit`): the four kinds of entry, and the
//! check that no two entries name the same file, whether by the same path,
//! another spelling, a symlink or another hard link (`plan_step`). A failure while planning entry `i` says which entries
//! would have succeeded and which were not attempted (`file_statuses`).

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use super::answer_cap;
use super::edit_commit::{EditCall, with_statuses};
use super::plan::{self, Planned, Step};
use crate::args::{EditRequest, FileArgs, FileOp};
use crate::commit::{Committer, NewPath, Wait};
use crate::config::Config;
use crate::envelopes::{self as env, FileCtx};
use crate::fsio::{self, FileSnapshot, FsError, FsErrorKind, FsOp};
use crate::response::{FilesSummary, MultiEditFilesSuccess};
use crate::taxonomy::MultiEditFilesError;

/// A path an entry names, after resolution: for the conflict checks.
struct Named {
    path: PathBuf,
    id: Option<(u64, u64)>,
    index: usize,
    edit: bool,
}

/// Runs `multi_edit_files`.
pub fn run(
    cfg: &Config,
    committer: &Committer,
    req: &EditRequest,
    wait: Wait<'_>,
) -> Result<MultiEditFilesSuccess, MultiEditFilesError> {
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
    let call = EditCall {
        cfg,
        committer,
        tool: "multi_edit_files",
        req,
        ctxs: &ctxs,
    };
    let (results, undoable) = call.finish(planned, wait)?;
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
    answer_cap::fit_answer(&mut answer, cfg.limits.max_answer_bytes);
    Ok(answer)
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
) -> Result<Step, MultiEditFilesError> {
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
            let p = plan::plan(cfg, ctx, file)?;
            check(seen, ctx, &p.snapshot.path, id_of(&p.snapshot), true)?;
            Step::Edit(p)
        }
        FileOp::Delete => {
            let snapshot = plan::read_checked(cfg, ctx, file)?;
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
            let outcome = plan::apply_bytes(cfg, ctx, file, content.as_bytes())?;
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
                    plan::check_hash(ctx, file, &snapshot)?;
                    check(seen, ctx, &snapshot.path, id_of(&snapshot), false)?;
                    Step::Edit(Planned { snapshot, outcome })
                }
            }
        }
        FileOp::Move { to } => {
            let from = plan::plan(cfg, ctx, file)?;
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

type Check<'a> = dyn Fn(
        &[Named],
        &FileCtx,
        &std::path::Path,
        Option<(u64, u64)>,
        bool,
    ) -> Result<(), MultiEditFilesError>
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
) -> Result<Result<NewPath, crate::sandbox::Located>, MultiEditFilesError> {
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
