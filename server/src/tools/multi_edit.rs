//! The `multi_edit` tool: several exact edits to one existing file, all or
//! nothing.
//!
//! The single-file case of the edit path: the file is planned (`plan`) and
//! committed (`edit_commit`) like one entry of `multi_edit_files`; what is
//! its own is the answer, the file's result flattened into
//! [`MultiEditSuccess`] with a one-line summary.

use super::answer_cap;
use super::edit_commit::EditCall;
use super::plan::{self, Step};
use crate::args::EditRequest;
use crate::commit::{Committer, Wait};
use crate::config::Config;
use crate::envelopes::FileCtx;
use crate::response::{FileResult, MultiEditSuccess};
use crate::taxonomy::MultiEditError;

/// Runs `multi_edit`.
pub fn run(
    cfg: &Config,
    committer: &Committer,
    req: &EditRequest,
    wait: Wait<'_>,
) -> Result<MultiEditSuccess, MultiEditError> {
    let file = &req.files[0];
    let ctx = FileCtx::single(&file.file_path);
    let planned = plan::plan(cfg, &ctx, file)?;
    let call = EditCall {
        cfg,
        committer,
        tool: "multi_edit",
        req,
        ctxs: &[ctx],
    };
    let (mut results, undoable) = call.finish(vec![Step::Edit(planned)], wait)?;
    let r = results.remove(0);
    let message = summary(&r, req.dry_run) + undoable.note();
    let mut answer = MultiEditSuccess {
        success: true,
        message,
        dry_run: req.dry_run,
        transaction_id: undoable.id(),
        file: r,
    };
    answer_cap::fit_answer(&mut answer, cfg.limits.max_answer_bytes);
    Ok(answer)
}

/// The answer's one-line summary.
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
