//! Failures → taxonomy envelopes.
//!
//! The only place that picks error codes for engine, resolution and
//! file-system failures. Every envelope is built with the constructors
//! generated from `errors.yaml` (see [`crate::taxonomy`]), so `retryable`,
//! `cause`, hints and numbers come from the spec, and a code's required
//! context cannot be forgotten: the constructor would not compile.
//!
//! Each mapping returns an error of the calling tool's operation
//! (`operation::Error<O>`, see [`crate::taxonomy`]), and is generic over
//! the operation with a bound naming every code it can build: a code group
//! of `errors.yaml` (`group::Reading`, `group::Committing`, ...), or
//! `Raises<code>` for a code of its own. A tool can only use a mapping
//! whose codes its operation lists, so the compiler, not a review, holds
//! each tool's answers to the codes its `outputSchema` advertises:
//!
//! | mapping | bound |
//! | --- | --- |
//! | [`validation_failed`], [`cancelled`], [`server_busy`], [`request_too_large`], [`internal`] | `group::Calls` |
//! | [`resolve_error`] | `group::Reading + group::Committing` (an unexpected errno is WRITE_FAILED) |
//! | [`fs_error`], [`commit_failure`] | [`Files`] |
//! | [`backup_failed`], [`journal_unavailable`] | `Raises` of their code, through [`Files::backup`] and [`Files::journal`] |
//! | [`capped_failure`], [`engine_failure`] | [`Edits`] |
//! | [`stale`], [`duplicate_file_path`], [`path_conflict`], [`move_onto_itself`], [`already_exists`], [`parent_missing`] | `Raises` of their code |
//!
//! Violation kinds (`sent_as: violation`, reported inside
//! VALIDATION_FAILED) have no `Raises`, since no code builds their
//! envelope; a violation's code is written [`listed!`](crate::listed)`(Op,
//! Code)` instead, which proves at compile time that `Op` lists it
//! ([`crate::args`]'s decoder, [`engine_failure`]'s empty `old_string`).
//!
//! A file-system failure's kind ([`FsErrorKind`]) is a value, so
//! [`fs_error`] must answer every kind for every operation. The kinds only
//! some operations meet (a stale file, a path that appeared, a missing
//! directory, one file named twice) go through [`Files::particular`]: each
//! file operation says there which of them it reports and how, with the
//! mappings above, so that too only builds listed codes. A kind an
//! operation does not report there is one its calls cannot meet (say,
//! `multi_edit` commits one file, so it never names one file twice); it is
//! logged and answered as the generic I/O failure.
//!
//! The bounds are the proof; the doctests below check that they refuse.
//! `list_transactions` reads no file, so it cannot map a file-system
//! failure:
//!
//! ```compile_fail,E0277
//! # use splice_server::envelopes::{FileCtx, fs_error};
//! # use splice_server::fsio::{FsError, FsErrorKind, FsOp};
//! # use splice_server::taxonomy::operation::{Error, ListTransactions};
//! let e = FsError::new(FsErrorKind::NotFound, FsOp::Read, "/srv/a.txt");
//! let _: Error<ListTransactions> = fs_error(&FileCtx::single("/srv/a.txt"), &e);
//! ```
//!
//! `undo` applies no edits, so STALE_FILE is not among its codes (a file
//! changed since the call it undoes is an UNDO_CONFLICT):
//!
//! ```compile_fail,E0277
//! # use splice_server::envelopes::{FileCtx, stale};
//! # use splice_server::taxonomy::operation::{Error, Undo};
//! let _: Error<Undo> = stale(&FileCtx::single("/srv/a.txt"), None, "00".repeat(32));
//! ```
//!
//! `undo` creates the directories a path it recreates needs, so no parent
//! is missing for it:
//!
//! ```compile_fail,E0277
//! # use splice_server::envelopes::{FileCtx, parent_missing};
//! # use splice_server::taxonomy::operation::{Error, Undo};
//! let _: Error<Undo> = parent_missing(&FileCtx::single("/srv/a/b.txt"));
//! ```
//!
//! An undo writes no `.bak`, so its backup cannot fail:
//!
//! ```compile_fail,E0277
//! # use splice_server::envelopes::{FileCtx, backup_failed};
//! # use splice_server::fsio::{FsError, FsErrorKind, FsOp};
//! # use splice_server::taxonomy::operation::{Error, Undo};
//! let e = FsError::new(FsErrorKind::Other, FsOp::Backup, "/srv/a.txt.bak");
//! let _: Error<Undo> = backup_failed(&FileCtx::single("/srv/a.txt"), &e);
//! ```
//!
//! `multi_edit` commits its one file without a journal, so the journal
//! cannot be unavailable to it:
//!
//! ```compile_fail,E0277
//! # use splice_server::envelopes::journal_unavailable;
//! # use splice_server::fsio::{FsError, FsErrorKind, FsOp};
//! # use splice_server::taxonomy::operation::{Error, MultiEdit};
//! let e = FsError::new(FsErrorKind::Other, FsOp::Journal, "/var/splice/journal");
//! let _: Error<MultiEdit> = journal_unavailable(&e);
//! ```
//!
//! `multi_edit` names one file, so no entry can conflict with another:
//!
//! ```compile_fail,E0277
//! # use splice_server::envelopes::{FileCtx, path_conflict};
//! # use splice_server::taxonomy::operation::{Error, MultiEdit};
//! let _: Error<MultiEdit> = path_conflict(&FileCtx::single("/srv/a.txt"), 0);
//! ```
//!
//! The same calls build for the operations that list their codes:
//!
//! ```
//! # use splice_server::envelopes::{FileCtx, fs_error, path_conflict, stale};
//! # use splice_server::fsio::{FsError, FsErrorKind, FsOp};
//! # use splice_server::taxonomy::operation::{Error, MultiEdit, MultiEditFiles, Undo};
//! # use splice_server::taxonomy::ErrorCode;
//! let ctx = FileCtx::single("/srv/a.txt");
//! let e = FsError::new(FsErrorKind::NotFound, FsOp::Read, "/srv/a.txt");
//! let read: Error<Undo> = fs_error(&ctx, &e);
//! assert_eq!(read.error_code(), ErrorCode::FileNotFound);
//! let changed: Error<MultiEdit> = stale(&ctx, None, "00".repeat(32));
//! assert_eq!(changed.error_code(), ErrorCode::StaleFile);
//! let clash: Error<MultiEditFiles> = path_conflict(&ctx, 0);
//! assert_eq!(clash.error_code(), ErrorCode::PathConflict);
//! ```

use crate::args::{EditArg, FileArgs};
use crate::commit::CommitFailure;
use crate::engine::{self, MatchLocation as EngineLocation};
use crate::fsio::{FsError, FsErrorKind, FsOp};
use crate::resolve::ResolveError;
use crate::taxonomy::builder::code;
use crate::taxonomy::operation::{self, Error, Raises, group};
use crate::taxonomy::{
    Candidate, EditState, EditStatus, ErrorCode, ErrorEnvelope, FileState, FileStatus, Limit,
    LookalikeDifference, LookalikeMatch, MatchLocation, RollbackReport, Violation,
};

/// An operation that reads files beneath the roots and commits them (one
/// file alone, or several through the journal): the bound of [`fs_error`]
/// and [`commit_failure`].
pub trait Files:
    group::Reading + group::Committing + Raises<code::ROLLBACK_FAILED> + Sized
{
    /// This operation's error for a failure of a kind only some operations
    /// meet (`Stale`, `DuplicatePath`, `AlreadyExists`, `ParentMissing`),
    /// or `None` for a kind its calls cannot meet.
    fn particular(ctx: &FileCtx, e: &FsError) -> Option<Error<Self>>;

    /// This operation's error for a failed write of a `.bak`
    /// (`FsOp::Backup`), or `None` when its commits write none.
    fn backup(ctx: &FileCtx, e: &FsError) -> Option<Error<Self>>;

    /// This operation's error for a failure of the commit journal
    /// (`FsOp::Journal`), or `None` when its commits keep none.
    fn journal(e: &FsError) -> Option<Error<Self>>;
}

impl Files for operation::MultiEdit {
    fn particular(ctx: &FileCtx, e: &FsError) -> Option<Error<Self>> {
        match &e.kind {
            // Its caller's `expected_sha256`, checked again under the lock.
            FsErrorKind::Stale { current_sha256 } => Some(stale(ctx, None, current_sha256.clone())),
            // One existing file, edited in place: no path to create, and
            // one file cannot be named twice.
            _ => None,
        }
    }

    fn backup(ctx: &FileCtx, e: &FsError) -> Option<Error<Self>> {
        Some(backup_failed(ctx, e))
    }

    /// One file, committed as a `SingleFile` (`Committer::write`): no
    /// journal.
    fn journal(_: &FsError) -> Option<Error<Self>> {
        None
    }
}

impl Files for operation::MultiEditFiles {
    fn particular(ctx: &FileCtx, e: &FsError) -> Option<Error<Self>> {
        let idx = ctx.file_index;
        Some(match &e.kind {
            FsErrorKind::Stale { current_sha256 } => stale(ctx, None, current_sha256.clone()),
            FsErrorKind::DuplicatePath => ErrorEnvelope::duplicate_file_path(
                ctx.file_path.clone(),
                idx.unwrap_or(0),
                idx.unwrap_or(0),
            )
            .into(),
            FsErrorKind::AlreadyExists(ty) => already_exists(ctx, *ty),
            FsErrorKind::ParentMissing => parent_missing(ctx),
            _ => return None,
        })
    }

    fn backup(ctx: &FileCtx, e: &FsError) -> Option<Error<Self>> {
        Some(backup_failed(ctx, e))
    }

    fn journal(e: &FsError) -> Option<Error<Self>> {
        Some(journal_unavailable(e))
    }
}

impl Files for operation::Undo {
    fn particular(ctx: &FileCtx, e: &FsError) -> Option<Error<Self>> {
        match &e.kind {
            // A path the undo recreates, taken meanwhile, found once its
            // rollback began (before that, it is an UNDO_CONFLICT).
            FsErrorKind::AlreadyExists(ty) => Some(already_exists(ctx, *ty)),
            // A changed file is an UNDO_CONFLICT before the rollback
            // (`tools::undo`); its paths are distinct; a path it recreates
            // gets the directories it needs created (the commit's
            // `create_parents`), so no parent is ever missing.
            _ => None,
        }
    }

    /// Every `PathChange` of an undo has `backup: false`.
    fn backup(_: &FileCtx, _: &FsError) -> Option<Error<Self>> {
        None
    }

    fn journal(e: &FsError) -> Option<Error<Self>> {
        Some(journal_unavailable(e))
    }
}

/// An operation that edits files in memory: it reads and commits them
/// ([`Files`]), matches edits (`group::Matching`), and reports an empty
/// `old_string` the engine finds as a violation (`group::Calls`).
pub trait Edits: Files + group::Matching + group::Calls {}

impl<O: Files + group::Matching + group::Calls> Edits for O {}

/// Whether `codes` (an operation's [`Operation::CODES`]) holds `code`, at
/// compile time: what [`listed!`](crate::listed) asserts.
///
/// [`Operation::CODES`]: crate::taxonomy::operation::Operation::CODES
pub const fn lists(codes: &[ErrorCode], code: ErrorCode) -> bool {
    let mut i = 0;
    while i < codes.len() {
        if codes[i].number() == code.number() {
            return true;
        }
        i += 1;
    }
    false
}

/// A code operation `O` lists, for a violation (`Violation::code`): made by
/// [`listed!`](crate::listed) only, which proves it at compile time.
#[derive(Debug, Clone, Copy)]
pub struct Listed<O>(ErrorCode, std::marker::PhantomData<fn() -> O>);

impl<O: operation::Operation> Listed<O> {
    /// The code; only [`listed!`](crate::listed) calls this, after its
    /// check.
    #[doc(hidden)]
    pub const fn checked(code: ErrorCode) -> Self {
        Listed(code, std::marker::PhantomData)
    }

    /// The code.
    pub const fn code(self) -> ErrorCode {
        self.0
    }
}

/// `listed!(Op, Code)`: the code `ErrorCode::Code` as a [`Listed<Op>`], and
/// a compile-time proof that operation `Op` lists it (an inline constant
/// asserting [`lists`]`(Op::CODES, ..)`). Where `Op` is a type parameter,
/// the proof is made for each operation the function is compiled for: a
/// decoder shared by several tools builds, for each, only the violation
/// kinds (`sent_as: violation`) that tool's operation lists. The code
/// groups cannot say this for violation kinds, since no `Raises` builds
/// their envelope; `Operation::CODES` lists them.
///
/// ```compile_fail,E0080
/// use splice_server::taxonomy::operation::ListTransactions;
/// // list_transactions has no edits, so no empty old_string.
/// let _ = splice_server::listed!(ListTransactions, EmptyOldString);
/// ```
///
/// ```
/// use splice_server::taxonomy::{ErrorCode, operation::MultiEdit};
/// let code = splice_server::listed!(MultiEdit, EmptyOldString);
/// assert_eq!(code.code(), ErrorCode::EmptyOldString);
/// ```
#[macro_export]
macro_rules! listed {
    ($op:ty, $code:ident) => {{
        const {
            assert!(
                $crate::envelopes::lists(
                    <$op as $crate::taxonomy::operation::Operation>::CODES,
                    $crate::taxonomy::ErrorCode::$code,
                ),
                concat!(
                    "the operation does not list the violation code ",
                    stringify!($code)
                ),
            )
        };
        $crate::envelopes::Listed::<$op>::checked($crate::taxonomy::ErrorCode::$code)
    }};
}

/// Which file of the call an error is about.
#[derive(Debug, Clone)]
pub struct FileCtx {
    /// The path as the caller wrote it.
    pub file_path: String,
    /// Its index, for multi-file calls.
    pub file_index: Option<u64>,
}

impl FileCtx {
    /// The one file of `multi_edit`.
    pub fn single(file_path: &str) -> FileCtx {
        FileCtx {
            file_path: file_path.to_string(),
            file_index: None,
        }
    }

    /// File `index` of a `multi_edit_files` call.
    pub fn multi(index: usize, file_path: &str, _count: usize) -> FileCtx {
        FileCtx {
            file_path: file_path.to_string(),
            file_index: Some(index as u64),
        }
    }
}

/// Longest `old_string` prefix echoed back in `edit_status`.
const PREVIEW_CHARS: usize = 40;

/// Cuts `s` to at most `max` bytes on a character boundary.
pub fn cap(s: &str, max: usize) -> (String, bool) {
    if s.len() <= max {
        return (s.to_string(), false);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (s[..end].to_string(), true)
}

fn preview(s: &str) -> String {
    match s.char_indices().nth(PREVIEW_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// How the edits after a failed one were located, said in each of their
/// `edit_status` messages.
const LATER_NOTE: &str = "located with the failed edits left out";

/// The share of the answer's bound ([`crate::config::Limits::max_answer_bytes`])
/// the diagnoses of later edits may take: the answer travels twice (as
/// `structuredContent` and as escaped text), and a snippet's line breaks
/// and quotes take more bytes in the second copy.
const DIAGNOSIS_SHARE: usize = 5;

/// The failed edit and every edit after it (succeeded ones absent): each
/// later edit as `later` found it (`would_apply`, or `failed` with its own
/// diagnosis), or `skipped` when the call stopped. The later diagnoses
/// together stay within a fifth of `max_answer_bytes`; past that, an
/// entry's diagnosis is left out and its `omitted` names what.
pub fn edit_status(
    edits: &[EditArg],
    failed: usize,
    code: ErrorCode,
    message: &str,
    later: Vec<engine::Verdict>,
    max_answer_bytes: usize,
) -> Vec<EditStatus> {
    let entry = |i: usize, status: EditState| EditStatus {
        edit_index: i as u64,
        status,
        error_code: None,
        message: None,
        old_string_preview: Some(preview(&edits[i].old_string)),
        snippet: None,
        snippet_start_line: None,
        lookalike_match: None,
        candidates: None,
        match_count: None,
        match_locations: None,
        first_line: None,
        omitted: None,
    };
    let mut first = entry(failed, EditState::Failed);
    first.error_code = Some(code);
    first.message = Some(message.to_string());
    let mut out = vec![first];
    let budget = max_answer_bytes / DIAGNOSIS_SHARE;
    let mut spent = 0usize;
    let mut later = later.into_iter();
    for i in failed + 1..edits.len() {
        let Some(verdict) = later.next() else {
            out.push(entry(i, EditState::Skipped));
            continue;
        };
        let mut status = entry(i, EditState::Failed);
        later_status(&mut status, verdict);
        let size = serde_json::to_vec(&status).map_or(0, |v| v.len());
        if spent + size > budget {
            leave_out(&mut status, "to keep the answer within its size bound");
        } else {
            spent += size;
        }
        out.push(status);
    }
    out
}

/// Fills the `edit_status` entry of a later edit from its verdict.
fn later_status(s: &mut EditStatus, verdict: engine::Verdict) {
    use engine::{CappedFailure, Failure, Verdict};
    let (code, message) = match verdict {
        Verdict::WouldApply { first_line } => {
            s.status = EditState::WouldApply;
            s.first_line = Some(first_line as u64);
            s.message = Some(format!("would apply at line {first_line} ({LATER_NOTE})"));
            return;
        }
        Verdict::NotFoundUnplaced => {
            s.omitted = Some(vec!["snippet".into(), "snippet_start_line".into()]);
            (
                ErrorCode::MatchNotFound,
                format!(
                    "old_string not found ({LATER_NOTE}); not placed, the call's placements already read {} MiB",
                    engine::PLACEMENT_BUDGET_BYTES >> 20
                ),
            )
        }
        Verdict::Fails(CappedFailure::TooLarge { size, .. }) => (
            ErrorCode::ResultTooLarge,
            format!("the file would grow to {size} bytes, more than allowed ({LATER_NOTE})"),
        ),
        Verdict::Fails(CappedFailure::Edit(f)) => match f {
            Failure::NotFound {
                snippet,
                snippet_start_line,
                lookalike: near,
                candidates,
                ..
            } => {
                s.snippet = Some(snippet);
                s.snippet_start_line = Some(snippet_start_line as u64);
                s.lookalike_match = near.map(|l| lookalike(*l));
                s.candidates = (!candidates.is_empty())
                    .then(|| candidates.into_iter().map(candidate).collect());
                (
                    ErrorCode::MatchNotFound,
                    format!("old_string not found ({LATER_NOTE})"),
                )
            }
            Failure::Ambiguous {
                count, locations, ..
            } => {
                s.match_count = Some(count as u64);
                s.match_locations = Some(locations.into_iter().map(location).collect());
                (
                    ErrorCode::AmbiguousMatch,
                    format!("old_string occurs {count} times ({LATER_NOTE})"),
                )
            }
            Failure::EmptyOldString { .. } => {
                (ErrorCode::EmptyOldString, "old_string is empty".to_string())
            }
            Failure::InvalidEncoding { byte_offset } => (
                ErrorCode::InvalidEncoding,
                format!("the file is not UTF-8 (offset {byte_offset})"),
            ),
        },
    };
    s.error_code = Some(code);
    s.message = Some(message);
}

/// Drops the diagnosis of an entry (its excerpts and reports), naming in
/// `omitted` and in its message what was left out and why.
fn leave_out(s: &mut EditStatus, why: &str) {
    let mut omitted = s.omitted.take().unwrap_or_default();
    for (name, present) in [
        ("snippet", s.snippet.take().is_some()),
        ("snippet_start_line", s.snippet_start_line.take().is_some()),
        ("lookalike_match", s.lookalike_match.take().is_some()),
        ("candidates", s.candidates.take().is_some()),
        ("match_locations", s.match_locations.take().is_some()),
    ] {
        if present {
            omitted.push(name.to_string());
        }
    }
    if !omitted.is_empty() {
        if let Some(m) = &mut s.message {
            m.push_str("; diagnosis left out ");
            m.push_str(why);
        }
        s.omitted = Some(omitted);
    }
}

/// VALIDATION_FAILED with every violation.
pub fn validation_failed<O: group::Calls>(violations: Vec<Violation>) -> Error<O> {
    let n = violations.len() as u64;
    ErrorEnvelope::validation_failed(violations, n).into()
}

/// REQUEST_TOO_LARGE.
pub fn request_too_large<O: group::Calls>(max: u64, actual: u64) -> Error<O> {
    ErrorEnvelope::request_too_large(limit("max_request_bytes", max, Some(actual))).into()
}

fn limit(name: &str, max: u64, actual: Option<u64>) -> Limit {
    Limit {
        name: name.to_string(),
        max,
        actual,
    }
}

/// Names the rule that set the allowed roots on a `PATH_OUTSIDE_ROOTS`
/// envelope, with the recovery hints of that rule only (errors.yaml states
/// which hint goes with which `roots_source`, and the generated builder picks
/// them); any other envelope is returned unchanged.
pub fn with_roots_source(
    mut envelope: ErrorEnvelope,
    source: crate::taxonomy::RootsSource,
) -> ErrorEnvelope {
    if envelope.error_code == crate::taxonomy::ErrorCode::PathOutsideRoots {
        let file_path = envelope.file_path.clone().unwrap_or_default();
        let sourced = ErrorEnvelope::path_outside_roots(file_path)
            .roots_source(source)
            .build();
        envelope.recovery_hints = sourced.recovery_hints;
        envelope
            .context
            .get_or_insert_with(Default::default)
            .roots_source = Some(source);
    }
    envelope
}

/// A path that could not be resolved inside the roots.
pub fn resolve_error<O>(ctx: &FileCtx, e: ResolveError) -> Error<O>
where
    O: group::Reading + group::Committing,
{
    let p = ctx.file_path.clone();
    let idx = ctx.file_index;
    match e {
        ResolveError::Outside => ErrorEnvelope::path_outside_roots(p).into(),
        ResolveError::NotFound => ErrorEnvelope::file_not_found(p)
            .maybe_file_index(idx)
            .into(),
        ResolveError::Loop => ErrorEnvelope::symlink_loop(p).maybe_file_index(idx).into(),
        ResolveError::PermissionDenied => ErrorEnvelope::permission_denied(p)
            .os_error("EACCES")
            .maybe_file_index(idx)
            .into(),
        ResolveError::Other(errno) => ErrorEnvelope::write_failed(p)
            .os_error(errno)
            .maybe_file_index(idx)
            .into(),
    }
}

/// A file-system failure while reading or committing.
pub fn fs_error<O: Files>(ctx: &FileCtx, e: &FsError) -> Error<O> {
    let p = ctx.file_path.clone();
    let os = e.os_error.unwrap_or("EIO");
    let idx = ctx.file_index;
    // A full or read-only file system is the better answer even when the
    // backup was the first write to hit it.
    if e.op == FsOp::Backup
        && !matches!(
            e.kind,
            FsErrorKind::Stale { .. } | FsErrorKind::DiskFull | FsErrorKind::ReadOnly
        )
    {
        match O::backup(ctx, e) {
            Some(err) => return err,
            None => unmet_step::<O>(e),
        }
    }
    macro_rules! with_idx {
        ($b:expr) => {
            $b.maybe_file_index(idx).into()
        };
    }
    match &e.kind {
        FsErrorKind::NotFound => with_idx!(ErrorEnvelope::file_not_found(p)),
        FsErrorKind::PermissionDenied => {
            with_idx!(ErrorEnvelope::permission_denied(p).os_error(os))
        }
        FsErrorKind::ReadOnly => with_idx!(ErrorEnvelope::read_only_fs(p).os_error(os)),
        FsErrorKind::DiskFull => with_idx!(ErrorEnvelope::disk_full(p).os_error(os)),
        FsErrorKind::SymlinkLoop => with_idx!(ErrorEnvelope::symlink_loop(p)),
        FsErrorKind::NotRegularFile(kind) => {
            with_idx!(ErrorEnvelope::not_a_regular_file(p, *kind))
        }
        FsErrorKind::TooLarge { size, max } => with_idx!(ErrorEnvelope::file_too_large(
            p,
            limit("max_file_size", *max, Some(*size))
        )),
        // A lock held past the timeout by another process: the write did not
        // happen; say EBUSY so the caller knows waiting may help.
        FsErrorKind::Busy => with_idx!(ErrorEnvelope::write_failed(p).os_error("EBUSY")),
        FsErrorKind::Stale { .. }
        | FsErrorKind::DuplicatePath
        | FsErrorKind::AlreadyExists(_)
        | FsErrorKind::ParentMissing => O::particular(ctx, e).unwrap_or_else(|| {
            tracing::error!(
                operation = <O as operation::Operation>::WIRE,
                error = %e,
                "a file-system failure this operation does not report; answered as an I/O failure"
            );
            io_failure(p, e.op, os, idx)
        }),
        FsErrorKind::Other => io_failure(p, e.op, os, idx),
    }
}

/// Logs a failed step (a backup, the journal) that the operation's commits
/// never take; the failure is then answered by its kind.
fn unmet_step<O: operation::Operation>(e: &FsError) {
    tracing::error!(
        operation = O::WIRE,
        error = %e,
        "a failed commit step this operation does not take; answered by its kind"
    );
}

/// BACKUP_FAILED: writing the `.bak` of the file failed.
pub fn backup_failed<O: Raises<code::BACKUP_FAILED>>(ctx: &FileCtx, e: &FsError) -> Error<O> {
    let os = e.os_error.unwrap_or("EIO");
    ErrorEnvelope::backup_failed(ctx.file_path.clone(), e.path.display().to_string())
        .os_error(os)
        .maybe_file_index(ctx.file_index)
        .into()
}

/// JOURNAL_UNAVAILABLE: the server's own journal directory failed, not the
/// edited file (a hint about the file, "create it", would send the caller
/// the wrong way).
pub fn journal_unavailable<O: Raises<code::JOURNAL_UNAVAILABLE>>(e: &FsError) -> Error<O> {
    ErrorEnvelope::journal_unavailable(
        e.os_error.unwrap_or("EIO").to_string(),
        e.path.display().to_string(),
    )
    .into()
}

/// The generic I/O failure of step `op`: READ_FAILED when reading (to edit,
/// or again under the lock) failed, since nothing was written and the
/// caller must not go looking for a write problem; WRITE_FAILED otherwise.
fn io_failure<O>(p: String, op: FsOp, os: &str, idx: Option<u64>) -> Error<O>
where
    O: group::Reading + group::Committing,
{
    if matches!(op, FsOp::Read | FsOp::Verify) {
        ErrorEnvelope::read_failed(p)
            .os_error(os)
            .maybe_file_index(idx)
            .into()
    } else {
        ErrorEnvelope::write_failed(p)
            .os_error(os)
            .maybe_file_index(idx)
            .into()
    }
}

/// FILE_ALREADY_EXISTS: a path to create holds a file (of type `ty` when
/// it is not a regular one).
pub fn already_exists<O: Raises<code::FILE_ALREADY_EXISTS>>(
    ctx: &FileCtx,
    ty: Option<&'static str>,
) -> Error<O> {
    ErrorEnvelope::file_already_exists(ctx.file_path.clone())
        .maybe_file_type(ty.map(str::to_string))
        .maybe_file_index(ctx.file_index)
        .into()
}

/// PARENT_DIRECTORY_MISSING: the directory of a path to create is missing.
pub fn parent_missing<O: Raises<code::PARENT_DIRECTORY_MISSING>>(ctx: &FileCtx) -> Error<O> {
    ErrorEnvelope::parent_directory_missing(ctx.file_path.clone())
        .maybe_file_index(ctx.file_index)
        .into()
}

/// An edit that could not be applied within the size limit `max`, with
/// what became of the edits after it ([`engine::apply_diagnosed`]); the
/// answer stays within `max_answer_bytes`.
pub fn capped_failure<O: Edits>(
    ctx: &FileCtx,
    file: &FileArgs,
    max: u64,
    d: engine::Diagnosed,
    max_answer_bytes: usize,
) -> Error<O> {
    match d.failure {
        engine::CappedFailure::Edit(f) => engine_failure(ctx, file, f, d.later, max_answer_bytes),
        engine::CappedFailure::TooLarge { edit_index, size } => {
            result_too_large(ctx, file, max, edit_index, size)
        }
    }
}

/// RESULT_TOO_LARGE: edit `edit_index` would make the file (`size` bytes at
/// least) larger than `max`.
fn result_too_large<O: group::Matching>(
    ctx: &FileCtx,
    file: &FileArgs,
    max: u64,
    edit_index: usize,
    size: u64,
) -> Error<O> {
    let status = edit_status(
        &file.edits,
        edit_index,
        ErrorCode::ResultTooLarge,
        &format!("the file would exceed {max} bytes"),
        Vec::new(),
        0,
    );
    let b = ErrorEnvelope::result_too_large(
        ctx.file_path.clone(),
        edit_index as u64,
        status,
        limit("max_file_size", max, Some(size)),
    );
    b.maybe_file_index(ctx.file_index).into()
}

/// STALE_FILE: the content is not what the caller (or this call) read.
pub fn stale<O: Raises<code::STALE_FILE>>(
    ctx: &FileCtx,
    expected: Option<String>,
    current: String,
) -> Error<O> {
    let mut b = ErrorEnvelope::stale_file(ctx.file_path.clone(), current);
    if let Some(e) = expected {
        b = b.expected_sha256(e);
    }
    b.maybe_file_index(ctx.file_index).into()
}

/// DUPLICATE_FILE_PATH: a file resolved to the same target as an earlier one.
pub fn duplicate_file_path<O: Raises<code::DUPLICATE_FILE_PATH>>(
    ctx: &FileCtx,
    first: usize,
) -> Error<O> {
    ErrorEnvelope::duplicate_file_path(
        ctx.file_path.clone(),
        ctx.file_index.unwrap_or(0),
        first as u64,
    )
    .into()
}

/// PATH_CONFLICT: file `ctx` names a path an earlier entry `first` also
/// names, and one of them creates, deletes or moves it.
pub fn path_conflict<O: Raises<code::PATH_CONFLICT>>(ctx: &FileCtx, first: usize) -> Error<O> {
    ErrorEnvelope::path_conflict(
        ctx.file_path.clone(),
        ctx.file_index.unwrap_or(0),
        first as u64,
    )
    .into()
}

/// MOVE_ONTO_ITSELF: a move whose destination resolves to its source.
pub fn move_onto_itself<O: Raises<code::MOVE_ONTO_ITSELF>>(ctx: &FileCtx) -> Error<O> {
    ErrorEnvelope::move_onto_itself(ctx.file_path.clone(), ctx.file_index.unwrap_or(0)).into()
}

fn location(l: EngineLocation) -> MatchLocation {
    MatchLocation {
        line: l.line as u64,
        column: l.column as u64,
        snippet: l.snippet,
    }
}

fn candidate(c: engine::Candidate) -> Candidate {
    Candidate {
        start_line: c.start_line as u64,
        snippet: c.snippet,
        why: c.why,
    }
}

fn lookalike(l: engine::Lookalike) -> LookalikeMatch {
    LookalikeMatch {
        line: l.line as u64,
        column: l.column as u64,
        differences: l
            .differences
            .into_iter()
            .map(|d| LookalikeDifference {
                line: d.line as u64,
                column: d.column as u64,
                file_has: d.file_has,
                old_string_has: d.old_string_has,
                description: d.description,
            })
            .collect(),
        difference_count: l.difference_count as u64,
        file_text: l.file_text,
    }
}

/// An edit that could not be applied, and what became of the edits after
/// it (`later`, see [`edit_status`]).
pub fn engine_failure<O: Edits>(
    ctx: &FileCtx,
    file: &FileArgs,
    f: engine::Failure,
    later: Vec<engine::Verdict>,
    max_answer_bytes: usize,
) -> Error<O> {
    let p = ctx.file_path.clone();
    match f {
        engine::Failure::EmptyOldString { edit_index } => validation_failed(vec![Violation {
            path: format!("edits[{edit_index}].old_string"),
            code: crate::listed!(O, EmptyOldString).code(),
            message: "old_string is empty; it must be the exact text to replace".into(),
            limit: None,
        }]),
        engine::Failure::InvalidEncoding { byte_offset } => {
            ErrorEnvelope::invalid_encoding(p, byte_offset as u64)
                .maybe_file_index(ctx.file_index)
                .into()
        }
        engine::Failure::NotFound {
            edit_index,
            snippet,
            snippet_start_line,
            lookalike: near,
            candidates,
        } => {
            let status = edit_status(
                &file.edits,
                edit_index,
                ErrorCode::MatchNotFound,
                "old_string not found",
                later,
                max_answer_bytes,
            );
            let candidates =
                (!candidates.is_empty()).then(|| candidates.into_iter().map(candidate).collect());
            let b = ErrorEnvelope::match_not_found(p, edit_index as u64, status, snippet)
                .snippet_start_line(snippet_start_line as u64)
                .maybe_lookalike_match(near.map(|l| lookalike(*l)))
                .maybe_candidates(candidates);
            b.maybe_file_index(ctx.file_index).into()
        }
        engine::Failure::Ambiguous {
            edit_index,
            count,
            locations,
            lines,
        } => {
            let status = edit_status(
                &file.edits,
                edit_index,
                ErrorCode::AmbiguousMatch,
                &format!("old_string occurs {count} times"),
                later,
                max_answer_bytes,
            );
            let locs = locations.into_iter().map(location).collect();
            let b =
                ErrorEnvelope::ambiguous_match(p, edit_index as u64, status, locs, count as u64)
                    .match_lines(lines.into_iter().map(|l| l as u64).collect());
            b.maybe_file_index(ctx.file_index).into()
        }
    }
}

/// A commit that failed part-way and was rolled back (or could not be).
pub fn commit_failure<O: Files>(
    ctx: &FileCtx,
    files: &[FileArgs],
    written: &[usize],
    failure: &CommitFailure,
) -> Error<O> {
    // A failure of the transaction itself (its journal) is reported on the
    // first file being written.
    let failed_file = written[failure.failed_index.unwrap_or(0)];
    let renamed: Vec<usize> = written[..failure.renamed_before_failure].to_vec();
    let not_restored: Vec<usize> = failure
        .rollback
        .not_restored
        .iter()
        .map(|&k| written[k])
        .collect();
    let journal = if failure.error.op == FsOp::Journal {
        let e = O::journal(&failure.error);
        if e.is_none() {
            unmet_step::<O>(&failure.error);
        }
        e
    } else {
        None
    };
    let e: Error<O> = journal.unwrap_or_else(|| fs_error(ctx, &failure.error));
    let code = e.error_code();
    let statuses_of: Vec<FileStatus> = files
        .iter()
        .enumerate()
        .map(|(i, f)| FileStatus {
            file_index: i as u64,
            file_path: f.file_path.clone(),
            status: if not_restored.contains(&i) {
                FileState::NotRestored
            } else if i == failed_file {
                FileState::Failed
            } else if renamed.contains(&i) {
                FileState::RolledBack
            } else {
                FileState::Skipped
            },
            error_code: (i == failed_file).then_some(code),
        })
        .collect();
    let rollback = RollbackReport {
        attempted: failure.rollback.attempted,
        restored: failure.rollback.restored as u64,
        failed: not_restored.len() as u64,
    };
    if !not_restored.is_empty() {
        return ErrorEnvelope::rollback_failed(statuses_of, rollback)
            .file_path(ctx.file_path.clone())
            .into();
    }
    let statuses =
        (files.len() > 1 || failure.rollback.attempted) && code.may_carry("file_statuses");
    let rolled_back = failure.rollback.attempted && code.may_carry("rollback");
    if !statuses && !rolled_back {
        return e;
    }
    e.update(|e| {
        if statuses {
            e.file_statuses = Some(statuses_of);
        }
        if rolled_back {
            e.rollback = Some(rollback);
        }
    })
}

/// A failure of a call before or around its tool's own work, whatever the
/// tool: its request or arguments refused, the server too busy, the call
/// cancelled while it waited, or a fault of splice. Every tool's entry in
/// the tool table answers these through [`call_failure`] for its own
/// operation, so each operation's list is proved to hold them.
#[derive(Debug)]
pub enum CallFailure<'a> {
    /// REQUEST_TOO_LARGE.
    TooLarge { max: u64, actual: u64 },
    /// VALIDATION_FAILED.
    Invalid(Vec<Violation>),
    /// SERVER_BUSY.
    Busy {
        limit: &'a str,
        max: u64,
        actual: u64,
    },
    /// CALL_CANCELLED.
    Cancelled,
    /// INTERNAL_ERROR, with a detail splice chose.
    Internal(&'a str),
}

/// The envelope of `f` for a call of operation `O`.
pub fn call_failure<O: group::Calls>(f: CallFailure<'_>) -> ErrorEnvelope {
    let e: Error<O> = match f {
        CallFailure::TooLarge { max, actual } => request_too_large(max, actual),
        CallFailure::Invalid(violations) => validation_failed(violations),
        CallFailure::Busy { limit, max, actual } => server_busy(limit, max, actual),
        CallFailure::Cancelled => cancelled(),
        CallFailure::Internal(detail) => internal(detail),
    };
    e.into_envelope()
}

/// The envelope of `f` for a call whose tool is not known (a request line
/// too large to read its name, an answer that could not be serialized).
/// Built as `list_transactions`, the operation with the fewest codes, would
/// build it: every tool answers these the same way ([`call_failure`]).
pub fn any_call_failure(f: CallFailure<'_>) -> ErrorEnvelope {
    call_failure::<operation::ListTransactions>(f)
}

/// A call the client cancelled before its commit point.
pub fn cancelled<O: group::Calls>() -> Error<O> {
    ErrorEnvelope::call_cancelled().into()
}

/// A call refused because the server's bound `name` (`max_calls_in_flight`
/// or `memory_budget`) stayed full ([`crate::admission`]).
pub fn server_busy<O: group::Calls>(name: &str, max: u64, actual: u64) -> Error<O> {
    ErrorEnvelope::server_busy(limit(name, max, Some(actual))).into()
}

/// INTERNAL_ERROR. `detail` is chosen by splice: never panic text, source
/// paths or stack traces (those go to the log).
pub fn internal<O: group::Calls>(detail: &str) -> Error<O> {
    ErrorEnvelope::internal_error(detail).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn may_carry_follows_the_spec() {
        assert!(ErrorCode::MatchNotFound.may_carry("file_statuses"));
        assert!(ErrorCode::DiskFull.may_carry("rollback"));
        assert!(!ErrorCode::StaleFile.may_carry("rollback"));
        assert!(!ErrorCode::PathOutsideRoots.may_carry("file_statuses"));
        assert!(!ErrorCode::ValidationFailed.may_carry("file_statuses"));
    }

    fn edits(n: usize) -> Vec<EditArg> {
        (0..n)
            .map(|i| EditArg {
                old_string: format!("stale {i}"),
                new_string: "x".into(),
                replace_all: false,
            })
            .collect()
    }

    fn not_found(edit_index: usize, snippet: &str) -> engine::Verdict {
        engine::Verdict::Fails(engine::CappedFailure::Edit(engine::Failure::NotFound {
            edit_index,
            snippet: snippet.into(),
            snippet_start_line: 7,
            lookalike: None,
            candidates: Vec::new(),
        }))
    }

    #[test]
    fn later_edits_are_reported_by_their_verdicts() {
        let later = vec![
            engine::Verdict::WouldApply { first_line: 12 },
            not_found(2, "fn f() {}"),
            engine::Verdict::NotFoundUnplaced,
        ];
        let status = edit_status(&edits(4), 0, ErrorCode::MatchNotFound, "m", later, 1 << 20);
        let states: Vec<EditState> = status.iter().map(|s| s.status).collect();
        use EditState::{Failed, WouldApply};
        assert_eq!(states, [Failed, WouldApply, Failed, Failed]);
        assert_eq!(status[1].first_line, Some(12));
        assert!(
            status[1]
                .message
                .as_deref()
                .unwrap()
                .contains("failed edits left out")
        );
        assert_eq!(status[2].snippet.as_deref(), Some("fn f() {}"));
        assert_eq!(status[2].snippet_start_line, Some(7));
        assert_eq!(status[3].error_code, Some(ErrorCode::MatchNotFound));
        assert_eq!(
            status[3].omitted.as_deref(),
            Some(&["snippet".to_string(), "snippet_start_line".to_string()][..])
        );
        // After a failure that stops the call, the rest is skipped.
        let status = edit_status(&edits(3), 1, ErrorCode::ResultTooLarge, "m", Vec::new(), 0);
        assert_eq!(status[1].status, EditState::Skipped);
    }

    #[test]
    fn later_diagnoses_stay_within_the_answer_bound() {
        // 40 later edits with 4 KB excerpts against a 100 KB bound: the
        // diagnoses take at most a fifth of it, the rest say what they lost.
        let snippet = "x".repeat(4_000);
        let later = (1..=40).map(|i| not_found(i, &snippet)).collect();
        let status = edit_status(&edits(41), 0, ErrorCode::MatchNotFound, "m", later, 100_000);
        let kept = status.iter().filter(|s| s.snippet.is_some()).count();
        let cut: Vec<&EditStatus> = status.iter().filter(|s| s.omitted.is_some()).collect();
        assert_eq!(kept, 4);
        assert_eq!(cut.len(), 36);
        for s in cut {
            assert_eq!(s.status, EditState::Failed);
            assert_eq!(
                s.omitted.as_deref(),
                Some(&["snippet".to_string(), "snippet_start_line".to_string()][..])
            );
            assert!(
                s.message
                    .as_deref()
                    .unwrap()
                    .contains("diagnosis left out to keep the answer within its size bound")
            );
        }
        let bytes = serde_json::to_vec(&status).unwrap().len();
        assert!(bytes < 100_000 / DIAGNOSIS_SHARE + 36 * 300, "{bytes}");
    }
}
