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
use score::prefix_anchor;

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
    /// Raw lines around the aimed-at region ([`aim_lines`]; fewer near the
    /// end of a short file).
    pub(crate) snippet: String,
    /// 1-based line of the file where the excerpt starts.
    pub(crate) start_line: usize,
    /// Byte offset of that line.
    pub(crate) start_offset: usize,
    /// The other regions that match about as well as the one the excerpt
    /// shows (see [`score::CLOSE_RATIO`]), at most two; usually none.
    pub(crate) candidates: Vec<Candidate>,
}

/// Another region a not-found `old_string` plausibly aimed at, beside the
/// one its excerpt shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// 1-based line where the region (`snippet`) starts: where
    /// `old_string`'s first line would sit.
    pub start_line: usize,
    /// The region's raw lines (as many as `old_string` has).
    pub snippet: String,
    /// What matched there, in words.
    pub why: String,
}

/// Most lines shown before and after the aimed-at region of a long
/// `old_string` (a short one is centred in [`NOT_FOUND_LINES`] lines).
pub const AIM_MARGIN: usize = 2;
/// Upper bound of one excerpt of a long `old_string`, in bytes: room for
/// the region it aimed at, however long, within the answer's bound.
pub const MAX_AIM_SNIPPET_BYTES: usize = 64 * 1024;

/// Lines shown above the aimed-at line, and in all, for an `old_string`
/// of `old_lines` lines: [`NOT_FOUND_LINES`] centred on a short one, the
/// whole region and [`AIM_MARGIN`] either side of a long one.
pub(crate) fn aim_lines(old_lines: usize) -> (usize, usize) {
    let count = NOT_FOUND_LINES.max(old_lines + 2 * AIM_MARGIN);
    (count.saturating_sub(old_lines) / 2, count)
}

/// The byte bound of an excerpt for an `old_string` of `old_len` bytes:
/// [`MAX_SNIPPET_BYTES`], or more for a long one (up to
/// [`MAX_AIM_SNIPPET_BYTES`]), so its whole region fits.
pub(crate) fn aim_bytes(old_len: usize) -> usize {
    MAX_SNIPPET_BYTES.max((old_len + old_len / 2 + 2048).min(MAX_AIM_SNIPPET_BYTES))
}

/// The excerpt for an `old_string` that does not occur in `text`.
#[cfg(test)]
pub(crate) fn not_found_excerpt(text: &[u8], old: &str) -> NotFoundExcerpt {
    not_found_in(text, old, text, old)
}

/// The excerpt for `old`, which does not occur in `text`, placed by
/// scoring `scored_old` against `scored`: the folded forms of both (see
/// `engine::lookalike`), which have the same lines as `text` and `old`,
/// or `text` and `old` themselves. Rendered from `text`.
pub(crate) fn not_found_in(
    text: &[u8],
    old: &str,
    scored: &[u8],
    scored_old: &str,
) -> NotFoundExcerpt {
    let aim = score::aim(scored, scored_old);
    let own;
    let index = if std::ptr::eq(scored, text) {
        &aim.index
    } else {
        own = LineIndex::new(text);
        &own
    };
    let old_lines = split_lines(old.as_bytes()).len().max(1);
    let (above, count) = aim_lines(old_lines);
    let top = match aim.best {
        Some(start) => start - above as isize,
        None => match prefix_anchor(scored, scored_old) {
            Some(offset) => aim.index.line_of(offset) as isize - 7,
            None => 0,
        },
    };
    let mut excerpt = render(text, index, top, count, aim_bytes(old.len()));
    excerpt.candidates = aim
        .close
        .into_iter()
        .map(|(line, why)| {
            let region = render(text, index, line, old_lines, aim_bytes(old.len()));
            Candidate {
                start_line: region.start_line,
                snippet: region.snippet,
                why,
            }
        })
        .collect();
    excerpt
}

/// The not-found excerpt placed on a known 1-based `line`, where `old`
/// would start (a look-alike match).
pub(crate) fn excerpt_at_line(text: &[u8], line: usize, old: &str) -> NotFoundExcerpt {
    let old_lines = split_lines(old.as_bytes()).len().max(1);
    let (above, count) = aim_lines(old_lines);
    let top = line.saturating_sub(1) as isize - above as isize;
    render(
        text,
        &LineIndex::new(text),
        top,
        count,
        aim_bytes(old.len()),
    )
}

/// `count` lines of `text` from 0-based line `top`, moved into the file
/// (so a region at its end still shows `count` lines), within `max_bytes`.
fn render(
    text: &[u8],
    index: &LineIndex,
    top: isize,
    count: usize,
    max_bytes: usize,
) -> NotFoundExcerpt {
    let top = top.clamp(0, index.count().saturating_sub(count) as isize) as usize;
    let start = index.starts.get(top).copied().unwrap_or(text.len());
    NotFoundExcerpt {
        snippet: excerpt_from(text, start, count, max_bytes),
        start_line: top + 1,
        start_offset: start,
        candidates: Vec::new(),
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
        // The whole aimed-at region (2,001 lines) and a margin.
        assert_eq!(snippet.lines().count(), 2_001 + 2 * AIM_MARGIN);
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

    #[test]
    fn a_long_old_string_gets_its_whole_region_and_a_margin() {
        let text = numbered(5_000);
        // 20 lines aimed at lines 3525-3544, the 10th of them stale.
        let old: String = (3525..=3544)
            .map(|i| {
                if i == 3534 {
                    "line number 3534 (stale)\n".to_string()
                } else {
                    format!("line number {i}\n")
                }
            })
            .collect();
        let excerpt = not_found_excerpt(text.as_bytes(), &old);
        assert_eq!(excerpt.start_line, 3525 - AIM_MARGIN);
        let lines: Vec<&str> = excerpt.snippet.lines().collect();
        assert_eq!(lines.len(), 20 + 2 * AIM_MARGIN);
        assert_eq!(lines.last(), Some(&"line number 3546"));
        // A short one keeps its 15 centred lines.
        assert_eq!(aim_lines(3), (6, NOT_FOUND_LINES));
        assert_eq!(aim_lines(11), (2, NOT_FOUND_LINES));
        assert_eq!(aim_lines(12), (AIM_MARGIN, 12 + 2 * AIM_MARGIN));
    }

    /// A config file with two region blocks that were alike when the
    /// model read it; the EU one has changed since.
    fn regions() -> String {
        let mut text = numbered(200);
        text.push_str("# US region\nendpoint: api.example.com\ntimeout: 30\nretries: 3\n");
        text.push_str(&numbered(200).replace("line", "row"));
        text.push_str("# EU region\nendpoint: api.eu.example.com\ntimeout: 45\nretries: 3\n");
        text.push_str(&numbered(200).replace("line", "entry"));
        text
    }

    #[test]
    fn a_close_runner_up_is_shown_beside_the_best() {
        let text = regions();
        let old = "# EU region\nendpoint: api.example.com\ntimeout: 30";
        let excerpt = not_found_excerpt(text.as_bytes(), old);
        // The excerpt shows the unchanged twin (two lines match whole);
        // the EU block (its own first line matches) is the runner-up.
        assert!(
            excerpt
                .snippet
                .contains("# US region\nendpoint: api.example.com")
        );
        assert_eq!(excerpt.candidates.len(), 1, "{:?}", excerpt.candidates);
        let eu = &excerpt.candidates[0];
        assert_eq!(eu.start_line, 405);
        assert_eq!(
            eu.snippet,
            "# EU region\nendpoint: api.eu.example.com\ntimeout: 45"
        );
        assert!(
            eu.why
                .starts_with("1 of 3 lines of old_string match here (its line 1 at line 405"),
            "{}",
            eu.why
        );
    }

    #[test]
    fn a_clear_best_has_no_candidates() {
        let text = regions();
        let old = "# EU region\nendpoint: api.eu.example.com\ntimeout: 40";
        let excerpt = not_found_excerpt(text.as_bytes(), old);
        assert_eq!(excerpt.candidates, []);
        assert!(excerpt.snippet.contains("timeout: 45"));
    }
}
