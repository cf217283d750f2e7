//! The edit engine: a sequence of exact string replacements applied to a
//! file's bytes, all or nothing.
//!
//! This module is deliberately free of MCP types and of file-system access:
//! bytes in, bytes out, plain Rust errors. The tool handler reads the file,
//! calls [`apply`], maps a [`Failure`] to its taxonomy envelope, and writes
//! [`Outcome::content`] back. Keeping the engine pure is what lets the
//! property tests compare it with a naive reference implementation and the
//! benches measure it without I/O noise.
//!
//! ```
//! use splice_server::engine::{apply, Edit, Failure, LineEnding};
//!
//! // A CRLF file edited with the LF strings a model writes.
//! let file = b"fn main() {\r\n    old();\r\n}\r\n";
//! let edit = Edit { old_string: "    old();\n}", new_string: "    new();\n}", replace_all: false };
//! let outcome = apply(file, &[edit]).unwrap();
//! assert_eq!(outcome.content, b"fn main() {\r\n    new();\r\n}\r\n");
//! assert_eq!(outcome.line_ending, LineEnding::Crlf);
//! assert_eq!(outcome.per_edit[0].first_line, 2);
//!
//! // All or nothing: the second edit fails, so nothing is applied.
//! let edits = [
//!     Edit { old_string: "old", new_string: "new", replace_all: false },
//!     Edit { old_string: "missing", new_string: "x", replace_all: false },
//! ];
//! assert!(matches!(apply(file, &edits), Err(Failure::NotFound { edit_index: 1, .. })));
//! ```
//!
//! # Semantics
//!
//! - **Order.** Edits apply in order, each to the result of the previous one,
//!   so an edit may match text written by an earlier edit of the same call.
//! - **All or nothing.** The first failing edit stops the call and only the
//!   [`Failure`] is returned; the caller never sees a half-edited buffer.
//! - **Exact match.** `old_string` is compared byte for byte; nothing is
//!   trimmed, normalised or fuzzy-matched.
//! - **Uniqueness.** Without `replace_all`, `old_string` must start at exactly
//!   one position of the text; occurrences are counted *overlapping* here
//!   (`"aa"` occurs twice in `"aaa"`), because an edit whose target is not a
//!   single span cannot be applied without guessing. With `replace_all`,
//!   every non-overlapping occurrence, left to right, is replaced. Zero
//!   occurrences is [`Failure::NotFound`] in both cases.
//! - **No-op edits.** An edit whose `old_string` equals its `new_string` must
//!   still be found (otherwise [`Failure::NotFound`]: it tells the caller its
//!   view of the file is stale) but is never ambiguous and changes nothing;
//!   its report says 0 replacements.
//! - **Empty `old_string`** is refused with [`Failure::EmptyOldString`]
//!   (argument validation should have refused it before).
//! - **Encoding.** The input must be UTF-8, else [`Failure::InvalidEncoding`]
//!   with the offset of the first invalid byte; the engine never decodes
//!   lossily. Matches start and end on character boundaries (a UTF-8 needle in
//!   UTF-8 text can match nowhere else), so the output is always UTF-8.
//! - **BOM.** A UTF-8 byte order mark is not part of the editable text: it is
//!   kept as is, `old_string` never needs to contain it, and line/column
//!   numbers start after it.
//! - **Line endings.** Models see files with their `\r` hidden and write
//!   `\n`. A `\n` not preceded by `\r` in an edit string is a *bare LF*.
//!   For each edit, against the text as it is after the earlier edits:
//!   - An `old_string` without bare LFs is matched as is.
//!   - An `old_string` with bare LFs occurs in two forms: as written, and,
//!     when the text has a CRLF line break, with every bare LF written as
//!     `\r\n`; and in a text with both kinds of line break, in a third,
//!     *mixed* form: each bare LF matched by whichever of `\n` and `\r\n`
//!     the span has at that point (a span whose lines end differently). A plain-form occurrence may
//!     not begin between the `\r` and the `\n` of a pair, so in a CRLF file
//!     only the CRLF form matches. Occurrences of both forms count together
//!     for uniqueness (an LF and a CRLF copy of the same lines look the same
//!     to the model, so they are ambiguous), and `replace_all` replaces both,
//!     left to right.
//!   - `new_string` follows the occurrence it replaces: for a CRLF-form
//!     occurrence its bare LFs are written as `\r\n`. For a mixed-form
//!     occurrence, when `new_string` has as many bare LFs as `old_string`
//!     (the line count is unchanged), the `i`-th is written as the span's
//!     `i`-th line break, so each line keeps its own ending; otherwise every
//!     bare LF is written as the ending most of the span's line breaks have
//!     (the first one's on a tie). When `old_string`
//!     contains no `\n` at all and every line break of the text is CRLF,
//!     they are too (when the edits have removed every line break, the
//!     original file's style decides). In every other case `new_string` is
//!     written as given: in an LF or mixed file, or when `old_string` spells
//!     its line breaks with `\r\n` itself (which makes "`\r\n` → `\n`" a
//!     working CRLF-to-LF conversion), the caller's bytes are taken
//!     literally.
//!
//!   Bytes outside the replaced spans are never touched: other line
//!   endings, the final newline or its absence stay as they were.
//! - **Size cap.** Edits can grow a file exponentially (`replace_all` of
//!   `a` with `bb`, then of `b` with `cc`, ...: a few bytes of request, an
//!   exabyte of output), so a caller facing untrusted edits uses
//!   [`apply_capped`]: the first edit whose result would be larger than the
//!   cap fails with [`CappedFailure::TooLarge`] and the exact size it would
//!   have had, before that result is built past the cap. An edit must still
//!   be found and unambiguous first, so the other failures take precedence.
//! - **Cost.** Each edit is one substring search ([`memchr::memmem`]) over
//!   the text (per form) plus one in-place splice of the buffer (a `memmove`
//!   of the tail), or, for `replace_all`, one pass that builds the output.
//!   Line numbers for the reports are counted from the previous edit's
//!   position when it lies before, so edits in file order count each line
//!   once; context excerpts are only built for failures.

mod context;
mod eol;
mod lookalike;
mod matcher;

use std::borrow::Cow;
use std::fmt;

pub use context::{
    AIM_MARGIN, AMBIGUOUS_RADIUS, Candidate, MAX_AIM_SNIPPET_BYTES, MAX_LINE_BYTES,
    MAX_SNIPPET_BYTES, MAX_TOKENS, MIN_ANCHOR_CHARS, MIN_TOKEN_BYTES, NOT_FOUND_LINES, ORDER_SLACK,
};
pub use eol::LineEnding;
pub use lookalike::{Lookalike, LookalikeDifference, MAX_DIFFERENCES, MAX_FILE_TEXT_BYTES};

use eol::Eols;
use matcher::{Form, Hit, Matcher};

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Most match locations reported for an ambiguous edit; the total count is
/// always reported.
pub const MAX_MATCH_LOCATIONS: usize = 5;

/// Most match lines listed for an ambiguous edit (numbers are cheap, but a
/// one-character `old_string` in a 16 MB file occurs millions of times).
pub const MAX_MATCH_LINES: usize = 1000;

/// One replacement requested by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edit<'a> {
    /// The exact text to find (not empty). Bare `\n` line breaks also match
    /// `\r\n` ones in CRLF text, as the module docs describe.
    pub old_string: &'a str,
    /// The text written in its place.
    pub new_string: &'a str,
    /// Replace every occurrence instead of requiring exactly one.
    pub replace_all: bool,
}

/// The result of a call whose edits all applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The new file bytes, BOM included when the input had one.
    pub content: Vec<u8>,
    /// Whether `content` differs from the input (edits may cancel out, and
    /// no-op edits change nothing).
    pub changed: bool,
    /// One report per edit, in order.
    pub per_edit: Vec<EditReport>,
    /// The line-ending style of the input (BOM excluded).
    pub line_ending: LineEnding,
    /// Whether the input started with a UTF-8 BOM (kept in `content`).
    pub bom: bool,
    /// Whether any edit was matched or written in CRLF form from bare LFs.
    pub eol_translated: bool,
}

/// What one edit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditReport {
    /// Occurrences replaced: 1, the count for `replace_all`, 0 for a no-op.
    pub replacements: usize,
    /// 1-based line of the first occurrence, in the text as it was when this
    /// edit applied (after the earlier edits, before this one).
    pub first_line: usize,
    /// Whether this edit's strings were translated from bare LF to CRLF.
    pub eol_translated: bool,
}

/// Why a call applied nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The input is not UTF-8.
    InvalidEncoding {
        /// Offset in the input (BOM included) of the first invalid byte.
        byte_offset: usize,
    },
    /// An edit's `old_string` is empty (a precondition that argument
    /// validation normally enforces before the engine runs).
    EmptyOldString {
        /// 0-based index of the edit.
        edit_index: usize,
    },
    /// An edit's `old_string` does not occur in the text.
    NotFound {
        /// 0-based index of the edit.
        edit_index: usize,
        /// Raw lines around where the edit most plausibly aimed, in the text
        /// as the earlier edits left it: [`NOT_FOUND_LINES`], or the whole
        /// region of a longer `old_string` and [`AIM_MARGIN`] lines either
        /// side.
        snippet: String,
        /// 1-based line of that text where `snippet` starts.
        snippet_start_line: usize,
        /// Where `old_string` would match if look-alike characters (NFC
        /// and NFD, compatibility forms, confusable letters of other
        /// scripts, no-break and zero-width spaces, quotes, dashes) were
        /// the same: a report for the caller, never applied.
        lookalike: Option<Box<Lookalike>>,
        /// When other regions match about as well as the best: each of
        /// them, the best first, at most 3; else empty.
        candidates: Vec<Candidate>,
    },
    /// An edit without `replace_all` matches at more than one position.
    Ambiguous {
        /// 0-based index of the edit.
        edit_index: usize,
        /// Total number of (overlapping) occurrences.
        count: usize,
        /// The first [`MAX_MATCH_LOCATIONS`] occurrences.
        locations: Vec<MatchLocation>,
        /// The 1-based line of every occurrence, in order (one entry per
        /// occurrence, so a line holding two has two), the first
        /// [`MAX_MATCH_LINES`] of them.
        lines: Vec<usize>,
    },
}

impl Failure {
    /// The index of the failed edit, if the failure belongs to one.
    pub fn edit_index(&self) -> Option<usize> {
        match *self {
            Failure::InvalidEncoding { .. } => None,
            Failure::EmptyOldString { edit_index }
            | Failure::NotFound { edit_index, .. }
            | Failure::Ambiguous { edit_index, .. } => Some(edit_index),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::InvalidEncoding { byte_offset } => {
                write!(
                    f,
                    "file is not valid UTF-8 (first invalid byte at offset {byte_offset})"
                )
            }
            Failure::EmptyOldString { edit_index } => {
                write!(f, "edit {edit_index}: old_string is empty")
            }
            Failure::NotFound { edit_index, .. } => {
                write!(f, "edit {edit_index}: old_string was not found")
            }
            Failure::Ambiguous {
                edit_index, count, ..
            } => write!(
                f,
                "edit {edit_index}: old_string occurs {count} times; add context to make it unique or set replace_all"
            ),
        }
    }
}

impl std::error::Error for Failure {}

/// Why a call of [`apply_capped`] applied nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CappedFailure {
    /// An edit failed as it would in [`apply`].
    Edit(Failure),
    /// An edit would make the file larger than the cap.
    TooLarge {
        /// 0-based index of the edit.
        edit_index: usize,
        /// The size in bytes (BOM included) the file would have had after
        /// this edit.
        size: u64,
    },
}

impl From<Failure> for CappedFailure {
    fn from(f: Failure) -> Self {
        CappedFailure::Edit(f)
    }
}

impl fmt::Display for CappedFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CappedFailure::Edit(failure) => failure.fmt(f),
            CappedFailure::TooLarge { edit_index, size } => write!(
                f,
                "edit {edit_index}: the file would grow to {size} bytes, more than allowed"
            ),
        }
    }
}

impl std::error::Error for CappedFailure {}

/// One occurrence of an ambiguous `old_string`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchLocation {
    /// 1-based line of the occurrence's first character.
    pub line: usize,
    /// 1-based column, in characters, of the occurrence's first character.
    pub column: usize,
    /// The line and [`AMBIGUOUS_RADIUS`] lines either side, raw.
    pub snippet: String,
}

/// Applies `edits` in order to `original`; see the module docs for the rules.
///
/// Returns the new bytes and a report per edit, or the first failure (and
/// nothing else: a failed call has no partial result).
///
/// There is no bound on the size of the result: with edits from an untrusted
/// caller, use [`apply_capped`].
pub fn apply(original: &[u8], edits: &[Edit<'_>]) -> Result<Outcome, Failure> {
    run(original, edits, None).map_err(|e| match e {
        CappedFailure::Edit(f) => f,
        // `run` checks sizes only against a cap, and there is none.
        CappedFailure::TooLarge { .. } => unreachable!("TooLarge without a cap"),
    })
}

/// Like [`apply`], but fails with [`CappedFailure::TooLarge`] as soon as an
/// edit would make the file (BOM included) larger than `max_len` bytes;
/// memory use stays within about twice the cap whatever the edits.
pub fn apply_capped(
    original: &[u8],
    edits: &[Edit<'_>],
    max_len: u64,
) -> Result<Outcome, CappedFailure> {
    let cap = usize::try_from(max_len).unwrap_or(usize::MAX);
    run(original, edits, Some(cap))
}

/// The failure of a call of [`apply_diagnosed`]: its first failed edit,
/// and what became of every edit after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosed {
    /// The first failure, as [`apply_capped`] reports it.
    pub failure: CappedFailure,
    /// For each edit after the failed one, in order: whether it would
    /// apply, or how it fails, located in the text as the edits before it
    /// leave it with the failed ones left out. Empty after a failure that
    /// stops the call (an invalid encoding, a result over the cap).
    pub later: Vec<Verdict>,
}

/// What became of one edit after the first failure of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It would apply (to the text with the failed edits left out).
    WouldApply {
        /// 1-based line where its first occurrence starts.
        first_line: usize,
    },
    /// It fails too, diagnosed as a first failure would be.
    Fails(CappedFailure),
    /// It is not found, and was not placed: the call's placements had
    /// already read [`PLACEMENT_BUDGET_BYTES`].
    NotFoundUnplaced,
}

/// Bytes of text the placements of one call may read before later
/// not-found edits are reported without an excerpt: 16 placements in a
/// 16 MiB file (about half a second), every edit of a call in a small one.
pub const PLACEMENT_BUDGET_BYTES: usize = 256 << 20;

/// Like [`apply_capped`], but after a failed edit goes on locating every
/// later edit (against the text with the failed edits left out), so that
/// one answer can diagnose them all. Nothing is applied either way.
pub fn apply_diagnosed(
    original: &[u8],
    edits: &[Edit<'_>],
    max_len: u64,
) -> Result<Outcome, Diagnosed> {
    let cap = usize::try_from(max_len).unwrap_or(usize::MAX);
    let mut diagnosis: Option<Diagnosed> = None;
    let mut placed = 0usize;
    let outcome = run_with(
        original,
        edits,
        Some(cap),
        |buffer, edit_index, result| match (&mut diagnosis, result) {
            (None, Ok(_)) => Continue::Yes,
            (None, Err(miss)) => {
                let failure = buffer.diagnose(edit_index, &edits[edit_index], miss);
                placed = buffer.text().len();
                let stops = matches!(
                    failure,
                    CappedFailure::TooLarge { .. }
                        | CappedFailure::Edit(Failure::InvalidEncoding { .. })
                );
                diagnosis = Some(Diagnosed {
                    failure,
                    later: Vec::new(),
                });
                if stops { Continue::No } else { Continue::Yes }
            }
            (Some(d), Ok(report)) => {
                d.later.push(Verdict::WouldApply {
                    first_line: report.first_line,
                });
                Continue::Yes
            }
            (Some(d), Err(Miss::NotFound))
                if placed.saturating_add(buffer.text().len()) > PLACEMENT_BUDGET_BYTES =>
            {
                d.later.push(Verdict::NotFoundUnplaced);
                Continue::Yes
            }
            (Some(d), Err(miss)) => {
                if matches!(miss, Miss::NotFound) {
                    placed += buffer.text().len();
                }
                d.later.push(Verdict::Fails(buffer.diagnose(
                    edit_index,
                    &edits[edit_index],
                    miss,
                )));
                Continue::Yes
            }
        },
    );
    match (outcome, diagnosis) {
        (Err(failure), _) => Err(Diagnosed {
            failure,
            later: Vec::new(),
        }),
        (Ok(_), Some(d)) => Err(d),
        (Ok(outcome), None) => Ok(outcome),
    }
}

/// Whether [`run_with`] goes on after an edit.
enum Continue {
    Yes,
    No,
}

fn run(original: &[u8], edits: &[Edit<'_>], cap: Option<usize>) -> Result<Outcome, CappedFailure> {
    let mut first: Option<CappedFailure> = None;
    let outcome = run_with(
        original,
        edits,
        cap,
        |buffer, edit_index, result| match result {
            Ok(_) => Continue::Yes,
            Err(miss) => {
                first = Some(buffer.diagnose(edit_index, &edits[edit_index], miss));
                Continue::No
            }
        },
    )?;
    match first {
        Some(failure) => Err(failure),
        None => Ok(outcome),
    }
}

/// Applies `edits` in order, telling `after` each edit's result; an edit
/// that fails leaves the buffer as it was. Stops when `after` says so.
/// The outcome is only meaningful when no edit failed.
fn run_with(
    original: &[u8],
    edits: &[Edit<'_>],
    cap: Option<usize>,
    mut after: impl FnMut(&Buffer, usize, Result<EditReport, Miss>) -> Continue,
) -> Result<Outcome, CappedFailure> {
    if let Err(e) = std::str::from_utf8(original) {
        return Err(Failure::InvalidEncoding {
            byte_offset: e.valid_up_to(),
        }
        .into());
    }
    let bom = original.starts_with(BOM);
    let mut buffer = Buffer {
        bytes: original.to_vec(),
        base: if bom { BOM.len() } else { 0 },
        eols: Eols::default(),
        original_style: LineEnding::None,
        line_mark: (0, 0),
        cap,
    };
    buffer.eols = Eols::count(buffer.text());
    buffer.original_style = buffer.eols.style();

    let mut per_edit = Vec::with_capacity(edits.len());
    for (edit_index, edit) in edits.iter().enumerate() {
        let result = buffer.apply(edit_index, edit);
        if let Ok(report) = &result {
            per_edit.push(*report);
        }
        if let Continue::No = after(&buffer, edit_index, result) {
            break;
        }
    }
    let changed = buffer.bytes != original;
    Ok(Outcome {
        content: buffer.bytes,
        changed,
        eol_translated: per_edit.iter().any(|r| r.eol_translated),
        per_edit,
        line_ending: buffer.original_style,
        bom,
    })
}

/// Why an edit did not apply, before the not-found case is diagnosed
/// (which reads the whole text, so only a caller that reports it asks).
enum Miss {
    /// `old_string` does not occur.
    NotFound,
    /// Any other failure, complete.
    Other(CappedFailure),
}

/// What the occurrences of one edit are replaced with, by form.
struct Replacement<'a> {
    /// For plain-form occurrences.
    plain: &'a str,
    /// For CRLF-form occurrences.
    crlf: &'a str,
    /// `new_string` as given, for mixed-form occurrences.
    new: &'a str,
    matcher: &'a Matcher<'a>,
}

impl Replacement<'_> {
    /// The bytes written over `hit`, an occurrence in `text`.
    fn for_hit(&self, hit: Hit, text: &[u8]) -> Cow<'_, [u8]> {
        match hit.form {
            Form::Plain => Cow::Borrowed(self.plain.as_bytes()),
            Form::Crlf => Cow::Borrowed(self.crlf.as_bytes()),
            Form::Mixed => Cow::Owned(
                eol::follow_endings(self.new, &self.matcher.line_breaks(text, hit)).into_bytes(),
            ),
        }
    }
}

/// The file being edited: its bytes, where the text starts (after a BOM),
/// and the running count of its line breaks.
struct Buffer {
    bytes: Vec<u8>,
    base: usize,
    eols: Eols,
    original_style: LineEnding,
    /// A text offset and the number of `\n` before it, valid while no splice
    /// lands before the offset: edits made in file order (the usual case)
    /// then count lines once in total instead of once per edit.
    line_mark: (usize, usize),
    /// Largest allowed size of `bytes` after an edit, if any.
    cap: Option<usize>,
}

impl Buffer {
    /// The editable text: everything after the BOM.
    fn text(&self) -> &[u8] {
        &self.bytes[self.base..]
    }

    /// The line-ending style that decides translations: the current one,
    /// or the original file's once edits have removed every line break.
    fn style(&self) -> LineEnding {
        match self.eols.style() {
            LineEnding::None => self.original_style,
            style => style,
        }
    }

    /// Fails with [`CappedFailure::TooLarge`] when `size` is over the cap.
    fn check_size(&self, edit_index: usize, size: usize) -> Result<(), CappedFailure> {
        match self.cap {
            Some(cap) if size > cap => Err(CappedFailure::TooLarge {
                edit_index,
                size: size as u64,
            }),
            _ => Ok(()),
        }
    }

    fn apply(&mut self, edit_index: usize, edit: &Edit<'_>) -> Result<EditReport, Miss> {
        let old = edit.old_string;
        if old.is_empty() {
            return Err(Miss::Other(Failure::EmptyOldString { edit_index }.into()));
        }
        let crlf_old = (self.eols.crlf > 0 && eol::has_bare_lf(old)).then(|| eol::to_crlf(old));
        let matcher = match &crlf_old {
            Some(crlf) if self.eols.lf == 0 => Matcher::crlf_only(old, crlf),
            // Several bare LFs in a mixed text: a span's lines may end
            // differently.
            Some(crlf) if crlf.len() > old.len() + 1 => Matcher::mixed(old),
            crlf => Matcher::new(old, crlf.as_deref()),
        };
        let Some(first) = matcher.next_from(self.text(), 0) else {
            return Err(Miss::NotFound);
        };
        let first_line = self.line_of(first.start);
        if old == edit.new_string {
            self.check_size(edit_index, self.bytes.len())
                .map_err(Miss::Other)?;
            return Ok(EditReport {
                replacements: 0,
                first_line,
                eol_translated: first.form != Form::Plain,
            });
        }
        // What each form of occurrence is replaced with.
        let plain_new = if !old.contains('\n') && self.style() == LineEnding::Crlf {
            eol::to_crlf(edit.new_string)
        } else {
            Cow::Borrowed(edit.new_string)
        };
        let crlf_new = match crlf_old {
            Some(_) => eol::to_crlf(edit.new_string),
            None => Cow::Borrowed(edit.new_string),
        };
        let replacement = Replacement {
            plain: &plain_new,
            crlf: &crlf_new,
            new: edit.new_string,
            matcher: &matcher,
        };

        let (replacements, translated) = if edit.replace_all {
            self.replace_all(&matcher, first, &replacement)
                .map_err(|size| {
                    Miss::Other(CappedFailure::TooLarge {
                        edit_index,
                        size: size as u64,
                    })
                })?
        } else {
            if let Some(second) = matcher.next_from(self.text(), first.start + 1) {
                return Err(Miss::Other(
                    self.ambiguous(edit_index, &matcher, first, second).into(),
                ));
            }
            let new = replacement.for_hit(first, self.text());
            self.check_size(edit_index, self.bytes.len() - first.len + new.len())
                .map_err(Miss::Other)?;
            self.splice(first.start, first.end(), &new);
            (1, first.form != Form::Plain)
        };
        Ok(EditReport {
            replacements,
            first_line,
            eol_translated: translated || matches!(plain_new, Cow::Owned(_)),
        })
    }

    /// The failure of edit `edit_index`, which missed: a not-found one is
    /// placed ([`Buffer::not_found`]).
    fn diagnose(&self, edit_index: usize, edit: &Edit<'_>, miss: Miss) -> CappedFailure {
        match miss {
            Miss::Other(failure) => failure,
            Miss::NotFound => self.not_found(edit_index, edit.old_string).into(),
        }
    }

    /// The diagnosis of an `old` that does not occur in the text: where it
    /// most plausibly aimed, whether it would match but for look-alike
    /// characters, and the other regions that match about as well.
    ///
    /// Placement scores the folded text (`lookalike`), which has the same
    /// lines, so a look-alike lands the excerpt where it is even when the
    /// whole of `old` does not match folded. A look-alike match places the
    /// excerpt itself. A file over [`lookalike::FOLD_WHOLE_BYTES`] is
    /// placed unfolded (with `old` folded) and folded only around the
    /// placement for the look-alike check.
    fn not_found(&self, edit_index: usize, old: &str) -> Failure {
        let text = self.text();
        let crlf_old = (self.eols.crlf > 0 && eol::has_bare_lf(old)).then(|| eol::to_crlf(old));
        let forms = lookalike::fold_forms(old, crlf_old.as_deref());
        let (excerpt, lookalike) = if forms.iter().all(|f| f.is_unchanged()) && text.is_ascii() {
            // Both fold to themselves: no look-alike to find.
            (context::not_found_in(text, old, text, old), None)
        } else if text.len() <= lookalike::FOLD_WHOLE_BYTES {
            // The input was checked to be UTF-8 and edits keep it so.
            let whole = std::str::from_utf8(text).expect("the text is UTF-8");
            let folding = lookalike::Folding::new(text, 0, whole, forms);
            match folding.find() {
                Some(l) => (context::excerpt_at_line(text, l.line, old), Some(l)),
                None => {
                    let scored = folding.folded_text().as_bytes();
                    let excerpt = context::not_found_in(text, old, scored, folding.folded_old());
                    (excerpt, None)
                }
            }
        } else {
            let excerpt = context::not_found_in(text, old, text, &forms[0].text);
            let (base, window) = lookalike::window(text, excerpt.start_offset);
            let window = std::str::from_utf8(window).expect("a window of whole lines is UTF-8");
            match lookalike::Folding::new(text, base, window, forms).find() {
                Some(l) => (context::excerpt_at_line(text, l.line, old), Some(l)),
                None => (excerpt, None),
            }
        };
        Failure::NotFound {
            edit_index,
            snippet: excerpt.snippet,
            snippet_start_line: excerpt.start_line,
            lookalike: lookalike.map(Box::new),
            candidates: excerpt.candidates,
        }
    }

    /// 1-based line of text offset `offset`, counted from the line mark when
    /// the mark lies before it.
    fn line_of(&mut self, offset: usize) -> usize {
        let (from, before) = match self.line_mark {
            (mark, lines) if mark <= offset => (mark, lines),
            _ => (0, 0),
        };
        let lines = before + context::line_index(&self.text()[from..], offset - from);
        self.line_mark = (offset, lines);
        lines + 1
    }

    /// Replaces text bytes `start..end` with `new` in place, reusing the
    /// buffer's capacity, and updates the line-break counts from the bytes
    /// around the splice only.
    fn splice(&mut self, start: usize, end: usize, new: &[u8]) {
        if start < self.line_mark.0 {
            self.line_mark = (0, 0);
        }
        let (start, end) = (self.base + start, self.base + end);
        // A `\n` just after the span may change kind when the byte before it
        // changes, so the windows reach one byte past each span.
        let removed = Eols::count_range(&self.bytes, start, end + 1);
        let tail = self.bytes.len();
        let (old_len, new_len) = (end - start, new.len());
        if new_len > old_len {
            self.bytes.resize(tail + (new_len - old_len), 0);
            self.bytes.copy_within(end..tail, start + new_len);
        } else if new_len < old_len {
            self.bytes.copy_within(end..tail, start + new_len);
            self.bytes.truncate(tail - (old_len - new_len));
        }
        self.bytes[start..start + new_len].copy_from_slice(new);
        let added = Eols::count_range(&self.bytes, start, start + new_len + 1);
        self.eols = self.eols.splice(removed, added);
    }

    /// Replaces every non-overlapping occurrence from `first` on (there is
    /// none before it), left to right, in one pass that builds the output.
    /// Returns how many, and whether any was in CRLF form; or, when the
    /// result would be over the cap, its size (counted without building the
    /// rest, and with nothing changed).
    fn replace_all(
        &mut self,
        matcher: &Matcher<'_>,
        first: Hit,
        replacement: &Replacement<'_>,
    ) -> Result<(usize, bool), usize> {
        let cap = self.cap.unwrap_or(usize::MAX);
        let text = &self.bytes[self.base..];
        let replacement = |hit: Hit| replacement.for_hit(hit, text);
        let mut out = Vec::with_capacity(
            (self.bytes.len() + replacement(first).len()).min(cap.saturating_add(1)),
        );
        out.extend_from_slice(&self.bytes[..self.base]);
        let (mut count, mut translated, mut at) = (0, false, 0);
        let mut next = Some(first);
        while let Some(hit) = next {
            let new = replacement(hit);
            if out.len() + (hit.start - at) + new.len() > cap {
                // Over the cap: count the final size instead of building it.
                let mut size = out.len() + (hit.start - at) + new.len();
                at = hit.end();
                while let Some(hit) = matcher.next_from(text, at) {
                    size = size.saturating_add(hit.start - at + replacement(hit).len());
                    at = hit.end();
                }
                return Err(size.saturating_add(text.len() - at));
            }
            out.extend_from_slice(&text[at..hit.start]);
            out.extend_from_slice(&new);
            at = hit.end();
            count += 1;
            translated |= hit.form != Form::Plain;
            next = matcher.next_from(text, at);
        }
        if out.len() + (text.len() - at) > cap {
            return Err(out.len() + (text.len() - at));
        }
        out.extend_from_slice(&text[at..]);
        if first.start < self.line_mark.0 {
            self.line_mark = (0, 0);
        }
        self.bytes = out;
        self.eols = Eols::count(self.text());
        Ok((count, translated))
    }

    /// The failure for an edit that occurs at `first`, `second` and maybe
    /// more positions: counts them all (overlapping ones included) and
    /// locates the first [`MAX_MATCH_LOCATIONS`].
    fn ambiguous(
        &self,
        edit_index: usize,
        matcher: &Matcher<'_>,
        first: Hit,
        second: Hit,
    ) -> Failure {
        let text = self.text();
        let mut listed = vec![first.start, second.start];
        let mut count = 2;
        let mut at = second.start;
        while let Some(hit) = matcher.next_from(text, at + 1) {
            at = hit.start;
            count += 1;
            if listed.len() < MAX_MATCH_LINES {
                listed.push(at);
            }
        }
        let lines = context::lines_of(text, &listed);
        let shown = &listed[..listed.len().min(MAX_MATCH_LOCATIONS)];
        let locations = context::locate(text, shown)
            .into_iter()
            .map(|l| MatchLocation {
                line: l.line,
                column: l.column,
                snippet: l.snippet,
            })
            .collect();
        Failure::Ambiguous {
            edit_index,
            count,
            locations,
            lines,
        }
    }
}

#[cfg(test)]
mod tests;
