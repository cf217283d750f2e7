//! The file excerpts that make a failed edit recoverable.
//!
//! A model that sent an `old_string` which is not in the file needs to see the
//! text it was aiming at, raw (no line numbers, so it can be copied into the
//! retry), and nothing else: the locked decisions forbid "did you mean"
//! suggestions, so this module only chooses *where* to look, never proposes
//! replacement text.
//!
//! Three parts, each in its own module:
//!
//! - `score`: where an `old_string` most plausibly aimed, by scoring every
//!   alignment of it against the file's lines (rare tokens, whole lines,
//!   line order);
//! - `scan`: the token scan the scoring reads, one pass over the file that
//!   also indexes its lines (a multi-pattern search in a large file);
//! - `excerpt`: rendering raw, bounded lines of the file, for a missing
//!   match and around each occurrence of an ambiguous one.
//!
//! This module joins them: [`not_found_excerpt`] places and renders the
//! excerpt of a missing match, [`excerpt_at_line`] renders it where a
//! look-alike match already placed it.

mod excerpt;
mod scan;
mod score;

pub(crate) use excerpt::{line_index, lines_of, locate};

use excerpt::excerpt_from;
use scan::LineIndex;
use score::{best_alignment, prefix_anchor};

/// Lines in a not-found excerpt (the locked decisions ask for 10 to 15).
pub const NOT_FOUND_LINES: usize = 15;
/// Lines shown before and after an ambiguous match (7-line excerpts).
pub const AMBIGUOUS_RADIUS: usize = 3;
/// Longest line kept whole in an excerpt, in bytes.
pub const MAX_LINE_BYTES: usize = 500;
/// Upper bound of one excerpt, in bytes.
pub const MAX_SNIPPET_BYTES: usize = 4096;
/// Shortest line (in non-blank characters) that may anchor a not-found excerpt.
pub const MIN_ANCHOR_CHARS: usize = 4;
/// Shortest token, in bytes, that votes for a placement (shorter ones, such
/// as `i`, `x` or `if`, say little about where an edit aimed).
pub const MIN_TOKEN_BYTES: usize = 3;
/// Most distinct tokens of one `old_string` searched for (the longest win).
pub const MAX_TOKENS: usize = 64;
/// How many lines an alignment's score reaches either side (halving weights).
pub const ORDER_SLACK: usize = 2;
/// Most lines of one `old_string` a repeated file line or token votes for,
/// which bounds the work on files of near-identical lines.
const MAX_VOTES_PER_LINE: usize = 8;

/// A not-found excerpt and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotFoundExcerpt {
    /// [`NOT_FOUND_LINES`] raw lines (fewer near the end of a short file).
    pub(crate) snippet: String,
    /// 1-based line of the file where the excerpt starts.
    pub(crate) start_line: usize,
    /// Byte offset of that line.
    pub(crate) start_offset: usize,
}

/// The excerpt for an `old_string` that does not occur in `text`.
pub(crate) fn not_found_excerpt(text: &[u8], old: &str) -> NotFoundExcerpt {
    let (index, aligned) = best_alignment(text, old);
    let total = index.count();
    let old_lines = split_lines(old.as_bytes()).len().max(1);
    let top = match aligned {
        Some(start) if old_lines <= NOT_FOUND_LINES => {
            start - ((NOT_FOUND_LINES - old_lines) / 2) as isize
        }
        Some(start) => start - 2,
        None => match prefix_anchor(text, old) {
            Some(offset) => index.line_of(offset) as isize - 7,
            None => 0,
        },
    };
    let top = top.clamp(0, total.saturating_sub(NOT_FOUND_LINES) as isize) as usize;
    let start = index.starts.get(top).copied().unwrap_or(text.len());
    NotFoundExcerpt {
        snippet: excerpt_from(text, start, NOT_FOUND_LINES),
        start_line: top + 1,
        start_offset: start,
    }
}

/// The not-found excerpt placed on a known 1-based `line`, where `old`
/// would start (a look-alike match).
pub(crate) fn excerpt_at_line(text: &[u8], line: usize, old: &str) -> NotFoundExcerpt {
    let old_lines = split_lines(old.as_bytes()).len().max(1);
    let total = LineIndex::new(text);
    let line0 = line.saturating_sub(1) as isize;
    let top = if old_lines <= NOT_FOUND_LINES {
        line0 - ((NOT_FOUND_LINES - old_lines) / 2) as isize
    } else {
        line0 - 2
    };
    let top = top.clamp(0, total.count().saturating_sub(NOT_FOUND_LINES) as isize) as usize;
    let start = total.starts.get(top).copied().unwrap_or(text.len());
    NotFoundExcerpt {
        snippet: excerpt_from(text, start, NOT_FOUND_LINES),
        start_line: top + 1,
        start_offset: start,
    }
}

/// The excerpt alone (tests).
#[cfg(test)]
pub(crate) fn not_found_snippet(text: &[u8], old: &str) -> String {
    not_found_excerpt(text, old).snippet
}

/// Characters in a slice that holds whole UTF-8 sequences.
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// The lines of `bytes` without their `\n` (a final line break does not open
/// an empty last line, but an empty input is one empty line).
fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if lines.len() > 1 && lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod test_text {
    //! Texts shared by the tests of the three parts.

    /// `n` lines `line number 1` ... `line number n`.
    pub(crate) fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line number {i}\n")).collect()
    }

    /// Rust-like functions with distinct names and numbers and common
    /// keywords everywhere (the shape of the `not_found` bench).
    pub(crate) fn functions(count: usize) -> String {
        (0..count)
            .map(|i| {
                format!(
                    "pub fn handler_{i}(request: &Request) -> Result<Response, Error> {{\n    let total = request.count * {k} + offset_{i};\n    if total > LIMIT {{\n        return Err(Error::TooLarge(total));\n    }}\n    Ok(Response::new(total))\n}}\n\n",
                    k = i % 97 + 3
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_text::{functions, numbered};
    use super::*;

    #[test]
    fn not_found_centres_on_agreeing_lines() {
        let text = numbered(100);
        // Lines 50 and 51 exist; the middle line was changed by the model.
        let old = "line number 50\nline number 5O\nline number 52\n";
        let snippet = not_found_snippet(text.as_bytes(), old);
        let lines: Vec<&str> = snippet.lines().collect();
        assert_eq!(lines.len(), NOT_FOUND_LINES);
        assert_eq!(lines[0], "line number 44");
        assert_eq!(lines[14], "line number 58");
    }

    #[test]
    fn not_found_ignores_indentation_and_crlf() {
        let text = numbered(60).replace("line number 40\n", "    line   number 40\r\n");
        let snippet = not_found_snippet(text.as_bytes(), "line number 40 \nzzzz");
        assert!(snippet.lines().any(|l| l == "    line   number 40"));
        assert!(!snippet.contains('\r'));
    }

    #[test]
    fn not_found_prefers_the_heavier_vote_over_the_first_occurrence() {
        let mut text = numbered(30);
        text.push_str("alpha beta gamma\n");
        text.push_str(&numbered(30));
        text.push_str("alpha beta gamma\ndelta epsilon\n");
        let snippet = not_found_snippet(text.as_bytes(), "alpha beta gamma\ndelta epsilon\nnope");
        let lines: Vec<&str> = snippet.lines().collect();
        assert_eq!(lines.last(), Some(&"delta epsilon"));
    }

    #[test]
    fn not_found_falls_back_to_prefixes_then_the_top() {
        let text = numbered(60).replace(
            "line number 33\n",
            "fn compute_total(items: &[Item]) -> u64 {\n",
        );
        // The one line does not occur whitespace-insensitively, but its
        // 20-character prefix does.
        let old = "fn compute_total(items: &[Item], tax: u8) -> u64 {";
        let snippet = not_found_snippet(text.as_bytes(), old);
        let lines: Vec<&str> = snippet.lines().collect();
        assert_eq!(lines[7], "fn compute_total(items: &[Item]) -> u64 {");
        let snippet = not_found_snippet(text.as_bytes(), "qqqq");
        assert_eq!(snippet.lines().next(), Some("line number 1"));
        assert_eq!(snippet.lines().count(), NOT_FOUND_LINES);
    }

    #[test]
    fn repetitive_files_stay_cheap_to_search() {
        let text = "    return;\n".repeat(20_000);
        let old = format!("{}nope\n", "    return;\n".repeat(2_000));
        let start = std::time::Instant::now();
        let snippet = not_found_snippet(text.as_bytes(), &old);
        assert_eq!(snippet.lines().count(), NOT_FOUND_LINES);
        // Unbounded voting would cast 40 million votes here.
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn a_stale_block_in_a_large_file_is_found_with_its_line() {
        let text = functions(12_000);
        // `total` was renamed `sum` in the model's memory: no line matches.
        let old = "    let sum = request.count * 79 + offset_9000;\n    if sum > LIMIT {\n        return Err(Error::TooLarge(sum));";
        let excerpt = not_found_excerpt(text.as_bytes(), old);
        let wanted = "    let total = request.count * 79 + offset_9000;";
        let at = excerpt.snippet.lines().position(|l| l == wanted);
        assert!(at.is_some(), "{}", excerpt.snippet);
        let line = text.lines().position(|l| l == wanted).unwrap();
        assert_eq!(excerpt.start_line + at.unwrap(), line + 1);
    }
}
