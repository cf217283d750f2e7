//! The file excerpts that make a failed edit recoverable.
//!
//! A model that sent an `old_string` which is not in the file needs to see the
//! text it was aiming at, raw (no line numbers, so it can be copied into the
//! retry), and nothing else: the locked decisions forbid "did you mean"
//! suggestions, so this module only chooses *where* to look, never proposes
//! replacement text.
//!
//! Where to look is decided deterministically, strongest evidence first:
//!
//! 1. **Line votes.** Every line of `old_string` with at least
//!    [`MIN_ANCHOR_CHARS`] non-blank characters is compared with every line of
//!    the file, whitespace-insensitively (a changed indent or a CRLF is the
//!    most common reason an edit misses). The first line of a multi-line
//!    `old_string` may match the end of a file line and the last line its
//!    start, since edits often begin or end mid-line; a single-line
//!    `old_string` may match inside a file line. A file line `L` matching
//!    line `i` of `old_string` votes, with the line's length as weight, for
//!    the edit starting at line `L - i`. The start with the heaviest vote
//!    wins (the earliest on ties), so several agreeing lines beat one long
//!    line that happens to repeat elsewhere.
//! 2. **Prefixes and suffixes** (the predecessor's rule, kept as a fallback):
//!    the first, then the last 20, 10 and 5 characters of `old_string`
//!    (leading and trailing whitespace ignored) searched verbatim.
//! 3. Otherwise the start of the file.
//!
//! Excerpts are bounded: [`NOT_FOUND_LINES`] lines for a missing match,
//! [`AMBIGUOUS_RADIUS`] lines either side of each ambiguous match, lines longer
//! than [`MAX_LINE_BYTES`] cut with a visible marker, and at most
//! [`MAX_SNIPPET_BYTES`] per excerpt. Lines are joined with `\n` and their
//! `\r` is dropped: the engine matches an LF `old_string` against CRLF text,
//! so LF is what a retry should send.

use std::collections::HashMap;

use memchr::memmem;

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
/// Most lines of one `old_string` a repeated file line votes for, which bounds
/// the work on files of near-identical lines.
const MAX_VOTES_PER_LINE: usize = 8;
/// Prefix and suffix lengths tried, in characters, when no line anchors.
const PREFIX_CHARS: [usize; 3] = [20, 10, 5];

/// The excerpt for an `old_string` that does not occur in `text`.
pub(crate) fn not_found_snippet(text: &[u8], old: &str) -> String {
    let total = line_count(text);
    let old_lines = split_lines(old.as_bytes()).len().max(1);
    let top = match vote_for_start(text, old) {
        Some(start) if old_lines <= NOT_FOUND_LINES => {
            start - ((NOT_FOUND_LINES - old_lines) / 2) as isize
        }
        Some(start) => start - 2,
        None => match prefix_anchor(text, old) {
            Some(offset) => line_index(text, offset) as isize - 7,
            None => 0,
        },
    };
    let top = top.clamp(0, total.saturating_sub(NOT_FOUND_LINES) as isize) as usize;
    excerpt(text, top, NOT_FOUND_LINES)
}

/// Where a match starts, in the terms of a user looking at the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located {
    /// 1-based line of the match's first byte.
    pub(crate) line: usize,
    /// 1-based column, in characters, of the match's first byte.
    pub(crate) column: usize,
    /// [`AMBIGUOUS_RADIUS`] lines before, the line, and as many after.
    pub(crate) snippet: String,
}

/// Locates the sorted byte `offsets` in `text` in one forward pass.
pub(crate) fn locate(text: &[u8], offsets: &[usize]) -> Vec<Located> {
    let mut out = Vec::with_capacity(offsets.len());
    let (mut line0, mut counted_to) = (0usize, 0usize);
    for &offset in offsets {
        let offset = offset.min(text.len());
        if offset >= counted_to {
            line0 += memchr::memchr_iter(b'\n', &text[counted_to..offset]).count();
            counted_to = offset;
        }
        let line_start = memchr::memrchr(b'\n', &text[..offset]).map_or(0, |i| i + 1);
        let column = char_count(&text[line_start..offset]) + 1;
        let top = line0.saturating_sub(AMBIGUOUS_RADIUS);
        let start = back_lines(text, line_start, line0 - top);
        let snippet = excerpt_from(text, start, line0 - top + 1 + AMBIGUOUS_RADIUS);
        out.push(Located {
            line: line0 + 1,
            column,
            snippet,
        });
    }
    out
}

/// 0-based line of byte `offset`.
pub(crate) fn line_index(text: &[u8], offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text[..offset.min(text.len())]).count()
}

/// Number of lines, a final line break not starting a new (empty) line.
fn line_count(text: &[u8]) -> usize {
    let breaks = memchr::memchr_iter(b'\n', text).count();
    match text.last() {
        None => 0,
        Some(b'\n') => breaks,
        Some(_) => breaks + 1,
    }
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

/// Appends the non-whitespace bytes of `line` to `out` (cleared first).
fn squeeze_into(line: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend(line.iter().copied().filter(|b| !b.is_ascii_whitespace()));
}

/// Step 1 of the module docs: the 0-based line where `old` most plausibly
/// starts, possibly negative or past the end when the anchor is near an edge.
fn vote_for_start(text: &[u8], old: &str) -> Option<isize> {
    let old_lines = split_lines(old.as_bytes());
    let multi = old_lines.len() > 1;
    let last = old_lines.len() - 1;
    let mut whole: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    let mut first: Option<Vec<u8>> = None;
    let mut tail: Option<Vec<u8>> = None;
    let mut buf = Vec::new();
    for (i, line) in old_lines.iter().enumerate() {
        squeeze_into(line, &mut buf);
        if char_count(&buf) < MIN_ANCHOR_CHARS {
            continue;
        }
        if multi && i == 0 {
            first = Some(buf.clone());
        } else if multi && i == last {
            tail = Some(buf.clone());
        } else {
            let indices = whole.entry(buf.clone()).or_default();
            if indices.len() < MAX_VOTES_PER_LINE {
                indices.push(i);
            }
        }
    }
    // A single-line old_string may sit anywhere inside a file line.
    let inside = if multi {
        None
    } else {
        whole.keys().next().cloned()
    };
    let inside_finder = inside.as_deref().map(memmem::Finder::new);
    if whole.is_empty() && first.is_none() && tail.is_none() {
        return None;
    }

    let mut votes: HashMap<isize, usize> = HashMap::new();
    let mut vote = |start: isize, weight: usize| *votes.entry(start).or_default() += weight;
    for (l, line) in text.split(|&b| b == b'\n').enumerate() {
        squeeze_into(line, &mut buf);
        if buf.len() < MIN_ANCHOR_CHARS {
            continue;
        }
        let l = l as isize;
        if let Some(finder) = &inside_finder {
            if finder.find(&buf).is_some() {
                vote(l, finder.needle().len());
            }
            continue;
        }
        if let Some(indices) = whole.get(&buf) {
            for &i in indices {
                vote(l - i as isize, buf.len());
            }
        }
        if let Some(f) = &first
            && buf.ends_with(f)
        {
            vote(l, f.len());
        }
        if let Some(t) = &tail
            && buf.starts_with(t)
        {
            vote(l - last as isize, t.len());
        }
    }
    votes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(start, _)| start)
}

/// Step 2 of the module docs: the byte offset of the first prefix or suffix
/// of `old` found in `text`.
fn prefix_anchor(text: &[u8], old: &str) -> Option<usize> {
    let trimmed = old.trim();
    let chars: Vec<(usize, char)> = trimmed.char_indices().collect();
    for n in PREFIX_CHARS {
        if chars.len() < n {
            continue;
        }
        let prefix_end = chars.get(n).map_or(trimmed.len(), |&(i, _)| i);
        let suffix_start = chars[chars.len() - n].0;
        for needle in [&trimmed[..prefix_end], &trimmed[suffix_start..]] {
            if let Some(at) = memmem::find(text, needle.as_bytes()) {
                return Some(at);
            }
        }
    }
    None
}

/// Byte offset of the start of the line `n` lines above the line starting at
/// `line_start`.
fn back_lines(text: &[u8], line_start: usize, n: usize) -> usize {
    let mut start = line_start;
    for _ in 0..n {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &text[..start - 1]).map_or(0, |i| i + 1);
    }
    start
}

/// `count` lines of `text` starting at 0-based line `top`.
fn excerpt(text: &[u8], top: usize, count: usize) -> String {
    let start = if top == 0 {
        0
    } else {
        memchr::memchr_iter(b'\n', text)
            .nth(top - 1)
            .map_or(text.len(), |i| i + 1)
    };
    excerpt_from(text, start, count)
}

/// At most `count` lines of `text` from byte offset `start` (a line start),
/// within the byte bounds of the module docs.
fn excerpt_from(text: &[u8], start: usize, count: usize) -> String {
    let mut out = String::new();
    let mut rest = &text[start.min(text.len())..];
    for n in 0..count {
        if rest.is_empty() {
            break;
        }
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let rendered = render_line(line);
        if n > 0 && out.len() + 1 + rendered.len() > MAX_SNIPPET_BYTES {
            break;
        }
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&rendered);
    }
    out
}

/// One line as shown in an excerpt: cut at a character boundary with a
/// marker when longer than [`MAX_LINE_BYTES`].
fn render_line(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    if text.len() <= MAX_LINE_BYTES {
        return text.into_owned();
    }
    let mut cut = MAX_LINE_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} […{} more bytes]", &text[..cut], text.len() - cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line number {i}\n")).collect()
    }

    #[test]
    fn excerpt_drops_carriage_returns_and_keeps_raw_text() {
        assert_eq!(excerpt(b"a\r\nb\r\nc", 1, 5), "b\nc");
        assert_eq!(excerpt(b"a\nb\n", 0, 1), "a");
        assert_eq!(excerpt(b"", 0, 15), "");
        assert_eq!(excerpt(b"a\n", 9, 15), "");
    }

    #[test]
    fn long_lines_are_cut_with_a_marker() {
        let long = "é".repeat(400); // 800 bytes
        let shown = render_line(long.as_bytes());
        assert!(shown.starts_with(&"é".repeat(250)));
        assert!(shown.ends_with(" […300 more bytes]"), "{shown}");
    }

    #[test]
    fn excerpts_are_bounded_in_bytes() {
        let text = format!("{}\n", "x".repeat(499)).repeat(40);
        let snippet = excerpt(text.as_bytes(), 0, 40);
        assert!(snippet.len() <= MAX_SNIPPET_BYTES);
        assert_eq!(snippet.lines().count(), 8);
    }

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
    fn locate_reports_lines_columns_and_seven_line_snippets() {
        let text = numbered(20).replace("line number 10\n", "line number 10 ééX\n");
        let at = text.find('X').unwrap();
        let located = locate(text.as_bytes(), &[0, at]);
        assert_eq!((located[0].line, located[0].column), (1, 1));
        assert_eq!(located[0].snippet.lines().count(), 4);
        assert_eq!((located[1].line, located[1].column), (10, 18));
        let lines: Vec<&str> = located[1].snippet.lines().collect();
        assert_eq!(lines.len(), 7);
        assert_eq!(lines[0], "line number 7");
        assert_eq!(lines[3], "line number 10 ééX");
        assert_eq!(lines[6], "line number 13");
    }
}
