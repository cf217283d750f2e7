//! Rendering excerpts: raw lines of the file, bounded.
//!
//! Excerpts are bounded: [`NOT_FOUND_LINES`] lines for a missing match (or
//! the whole aimed-at region of a longer `old_string` and a margin),
//! [`AMBIGUOUS_RADIUS`] lines either side of each ambiguous match, lines
//! longer than [`MAX_LINE_BYTES`] cut with a visible marker, and at most
//! [`MAX_SNIPPET_BYTES`] per excerpt (more for a long `old_string`, up to
//! `MAX_AIM_SNIPPET_BYTES`). Lines are joined with `\n` and their
//! `\r` is dropped: the engine matches an LF `old_string` against CRLF text,
//! so LF is what a retry should send.
//!
//! [`NOT_FOUND_LINES`]: super::NOT_FOUND_LINES

use super::{AMBIGUOUS_RADIUS, MAX_LINE_BYTES, MAX_SNIPPET_BYTES, char_count};

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
        let snippet = excerpt_from(
            text,
            start,
            line0 - top + 1 + AMBIGUOUS_RADIUS,
            MAX_SNIPPET_BYTES,
        );
        out.push(Located {
            line: line0 + 1,
            column,
            snippet,
        });
    }
    out
}

/// The 1-based lines of the sorted byte `offsets`, in one forward pass.
pub(crate) fn lines_of(text: &[u8], offsets: &[usize]) -> Vec<usize> {
    let (mut line0, mut counted_to) = (0usize, 0usize);
    offsets
        .iter()
        .map(|&offset| {
            let offset = offset.min(text.len());
            if offset >= counted_to {
                line0 += memchr::memchr_iter(b'\n', &text[counted_to..offset]).count();
                counted_to = offset;
            }
            line0 + 1
        })
        .collect()
}

/// 0-based line of byte `offset`.
pub(crate) fn line_index(text: &[u8], offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text[..offset.min(text.len())]).count()
}

/// Byte offset of the start of the line `n` lines above the line starting at
/// `line_start`.
pub(super) fn back_lines(text: &[u8], line_start: usize, n: usize) -> usize {
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
#[cfg(test)]
pub(super) fn excerpt(text: &[u8], top: usize, count: usize) -> String {
    let start = if top == 0 {
        0
    } else {
        memchr::memchr_iter(b'\n', text)
            .nth(top - 1)
            .map_or(text.len(), |i| i + 1)
    };
    excerpt_from(text, start, count, MAX_SNIPPET_BYTES)
}

/// At most `count` lines of `text` from byte offset `start` (a line start),
/// lines cut at [`MAX_LINE_BYTES`], at most `max_bytes` in all.
pub(super) fn excerpt_from(text: &[u8], start: usize, count: usize, max_bytes: usize) -> String {
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
        if n > 0 && out.len() + 1 + rendered.len() > max_bytes {
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
pub(super) fn render_line(line: &[u8]) -> String {
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
    use super::super::test_text::numbered;
    use super::*;

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
