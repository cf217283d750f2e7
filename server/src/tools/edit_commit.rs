//! Committing a planned edit call, shared by `multi_edit` and
//! `multi_edit_files`: the steps after planning ([`super::plan`]).
//!
//! [`EditCall::finish`] runs them in order: the per-file results (all a dry
//! run needs); the transaction, path by path ([`Changes`]); the undo
//! record's start ([`super::record`]); the commit through
//! [`crate::commit`], which re-plans under its lock any file another call
//! changed since it was read ([`EditCall::rebase`]); then the results
//! corrected by what was written, or the commit's failure as an envelope
//! naming the entry it came from.
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

use std::path::PathBuf;

use super::plan::{self, Step};
use super::record::{self, Recorder, Undoable};
use crate::args::{EditRequest, FileArgs, FileOp};
use crate::commit::{Before, CommitError, Committer, PathChange, Wait};
use crate::config::Config;
use crate::engine;
use crate::envelopes::{self as env, Edits, FileCtx, Files};
use crate::fsio::{FsError, FsErrorKind, FsOp};
use crate::response::{self, EditSummary, FileResult};
use crate::taxonomy::operation::{self, Error};
use crate::taxonomy::{FileState, FileStatus};
use crate::undo::Operation;

/// One edit call between planning and its answer: what every step of
/// [`EditCall::finish`] reads.
pub(super) struct EditCall<'a> {
    pub cfg: &'a Config,
    pub committer: &'a Committer,
    /// The tool's name, as the undo store records it.
    pub tool: &'static str,
    pub req: &'a EditRequest,
    /// Each entry's context, for its envelopes.
    pub ctxs: &'a [FileCtx],
}

/// A call's transaction, path by path.
struct Changes {
    /// `owner[k]` is the entry of change `k` (a move gives two).
    owner: Vec<usize>,
    changes: Vec<PathChange>,
    /// What change `k` does, as the undo store records it.
    operations: Vec<Operation>,
}

/// A file re-read under its lock because another call changed it.
struct Rebased {
    /// Its bytes now.
    now: Vec<u8>,
    /// Its edits applied to them (an edit), or `None` (a delete).
    outcome: Option<engine::Outcome>,
}

impl EditCall<'_> {
    /// Commits (unless dry run) and builds the per-file results, and records
    /// the transaction for undo.
    pub(super) fn finish<O: Edits>(
        &self,
        planned: Vec<Step>,
        wait: Wait<'_>,
    ) -> Result<(Vec<FileResult>, Undoable), Error<O>> {
        let mut results = self.results(&planned);
        if self.req.dry_run {
            return Ok((results, Undoable::Nothing));
        }
        let changes = Changes::of(planned, self.req);
        if changes.changes.is_empty() {
            return Ok((results, Undoable::Nothing));
        }
        let recorder = self.recorder(&changes, &results);
        let undoable = self.commit(changes, recorder, &mut results, wait)?;
        Ok((results, undoable))
    }

    /// Each entry's result as planned (a dry run's answer).
    fn results(&self, planned: &[Step]) -> Vec<FileResult> {
        let max_out = self.cfg.limits.max_output_bytes;
        planned
            .iter()
            .zip(&self.req.files)
            .enumerate()
            .map(|(i, (p, f))| step_result(i, f, p, self.req, max_out))
            .collect()
    }

    /// Starts the undo record: each path's content before and a hash of it
    /// after (corrected after the commit for a path re-planned under its
    /// lock). A transaction larger than the store's byte bound is not
    /// copied at all. The store writes it after the answer.
    fn recorder(&self, changes: &Changes, results: &[FileResult]) -> Recorder<'_> {
        let Changes {
            owner,
            changes,
            operations,
        } = changes;
        // An entry's answered hash is of its new content (a move's, at its
        // destination); a path that ends absent has none.
        let after = |k: usize| {
            changes[k]
                .after
                .is_some()
                .then(|| results[owner[k]].sha256.clone())
        };
        record::start(self.cfg, self.tool, None, changes, operations, after)
    }

    /// Commits the transaction, re-planning under the lock any file another
    /// call changed since it was read, and finishes the undo record. On
    /// success, `results` say what was written (and, for a re-planned file,
    /// what it was written with).
    fn commit<O: Edits>(
        &self,
        changes: Changes,
        recorder: Recorder<'_>,
        results: &mut [FileResult],
        wait: Wait<'_>,
    ) -> Result<Undoable, Error<O>> {
        let Changes { owner, changes, .. } = changes;
        // Files re-planned under the lock: their results are recomputed
        // from what was actually written, and their record corrected.
        let mut replanned: Vec<(usize, engine::Outcome)> = Vec::new();
        let mut rebased: Vec<(usize, Vec<u8>, Option<Vec<u8>>)> = Vec::new();
        let keep = matches!(recorder, Recorder::On(..));
        let rebase = |k: usize, open: &std::fs::File| {
            let i = owner[k];
            let Some(Rebased { now, outcome }) = self.rebase(i, open)? else {
                return Ok(None);
            };
            let after = outcome.as_ref().map(|o| o.content.clone());
            if keep {
                rebased.push((k, now.clone(), after.clone()));
            }
            if let Some(outcome) = outcome {
                replanned.push((i, outcome));
            }
            Ok(Some((now, after)))
        };
        match self.committer.commit_paths(changes, wait, rebase) {
            Ok(report) => {
                let written = report.files.iter().any(|f| f.written);
                let undoable = recorder.finish(written, rebased);
                let (req, max_out) = (self.req, self.cfg.limits.max_output_bytes);
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
                Ok(undoable)
            }
            Err(e) => Err(self.commit_error(e, &owner)),
        }
    }

    /// Entry `i`'s file, which another call changed since it was read, as
    /// it is now under the commit's lock (`open`): `None` when the entry
    /// does not depend on the content it replaces, or may not be re-planned.
    fn rebase<O: Edits>(
        &self,
        i: usize,
        open: &std::fs::File,
    ) -> Result<Option<Rebased>, Error<O>> {
        let (cfg, file, ctx) = (self.cfg, &self.req.files[i], &self.ctxs[i]);
        if file.expected_sha256.is_some() {
            return Ok(None); // the caller stated the content it expected
        }
        let path = std::path::Path::new(&file.file_path);
        match file.op {
            // Edits are exact replacements: they still apply, or fail.
            FileOp::Edit => {
                let (now, outcome) = plan::replan(cfg, ctx, file, path, open)?;
                Ok(Some(Rebased {
                    now,
                    outcome: Some(outcome),
                }))
            }
            // A delete does not depend on the content it removes.
            FileOp::Delete => {
                let now = plan::reread(cfg, ctx, path, open)?;
                Ok(Some(Rebased { now, outcome: None }))
            }
            // A move's new file was computed from the old content.
            FileOp::Create { .. } | FileOp::Move { .. } => Ok(None),
        }
    }

    /// The envelope of a commit that failed, naming the entry it came from.
    fn commit_error<O: Edits>(&self, e: CommitError<Error<O>>, owner: &[usize]) -> Error<O> {
        let files = &self.req.files;
        match e {
            CommitError::Cancelled => env::cancelled(),
            CommitError::Rebase { index, error } => with_statuses(error, files, owner[index]),
            CommitError::Failed(failure) => {
                let failed_file = owner[failure.failed_index.unwrap_or(0)];
                let mut ctx = self.ctxs[failed_file].clone();
                // A destination that appeared meanwhile is reported by its own path.
                if let (FsErrorKind::AlreadyExists(_), FileOp::Move { to }) =
                    (&failure.error.kind, &files[failed_file].op)
                {
                    ctx.file_path = to.clone();
                }
                env::commit_failure(&ctx, files, owner, &failure)
            }
        }
    }
}

impl Changes {
    /// The transaction of `planned`. Edits that change nothing are not
    /// written.
    fn of(planned: Vec<Step>, req: &EditRequest) -> Changes {
        let mut c = Changes {
            owner: Vec::new(),
            changes: Vec::new(),
            operations: Vec::new(),
        };
        let mut push = |i: usize, change: PathChange, op: Operation| {
            c.owner.push(i);
            c.changes.push(change);
            c.operations.push(op);
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
        c
    }
}

/// Adds `file_statuses` to a failure of file `failed` during planning:
/// earlier files would have succeeded, later ones were not attempted.
pub(super) fn with_statuses<O: operation::Operation>(
    e: Error<O>,
    files: &[FileArgs],
    failed: usize,
) -> Error<O> {
    let code = e.error_code();
    if files.len() < 2 || !code.may_carry("file_statuses") {
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
            error_code: (i == failed).then_some(code),
        })
        .collect();
    e.update(|e| e.file_statuses = Some(statuses))
}

/// The answer to a call that waited behind other calls on file `index` until
/// its lock deadline: the same as a lock timeout in the commit (nothing was
/// read or written).
pub fn lock_timeout<O: Files>(req: &EditRequest, index: usize) -> Error<O> {
    let file = &req.files[index];
    let ctx = if req.files.len() == 1 {
        FileCtx::single(&file.file_path)
    } else {
        FileCtx::multi(index, &file.file_path, req.files.len())
    };
    let busy = FsError {
        kind: FsErrorKind::Busy,
        op: FsOp::Lock,
        path: PathBuf::from(&file.file_path),
        os_error: Some("EBUSY"),
    };
    with_statuses(env::fs_error(&ctx, &busy), &req.files, index)
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
                ..plan::unchanged(&s.bytes)
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
        let (c, cut) = env::cap(&s, max_out);
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
        sha256: hex::encode(record::sha256(&o.content)),
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
