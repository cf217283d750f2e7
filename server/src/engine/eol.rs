//! Line-ending bookkeeping for the engine.
//!
//! Models read files through tools that hide carriage returns, so they write
//! `old_string` and `new_string` with bare `\n` line breaks. To honour that in a
//! CRLF file without ever rewriting bytes outside the edited spans, the engine
//! needs two things from this module: the file's current line-ending style
//! (kept up to date incrementally as edits are spliced in, so a sequence of
//! edits never rescans the whole buffer for it) and the LF → CRLF translation
//! of the edit strings themselves.

use std::borrow::Cow;

/// The line-ending convention of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// Every line break is a bare `\n`.
    Lf,
    /// Every line break is `\r\n`.
    Crlf,
    /// Both bare `\n` and `\r\n` line breaks occur.
    Mixed,
    /// The text has no `\n` at all.
    None,
}

impl LineEnding {
    /// The lowercase name used in responses: `lf`, `crlf`, `mixed` or `none`.
    pub const fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "lf",
            LineEnding::Crlf => "crlf",
            LineEnding::Mixed => "mixed",
            LineEnding::None => "none",
        }
    }
}

impl std::fmt::Display for LineEnding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Counts of the two kinds of line break in a buffer.
///
/// A `\n` is a CRLF break when the byte before it is `\r`, a bare LF otherwise.
/// A lone `\r` is not a line break (classic Mac endings are not recognised).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Eols {
    pub(crate) crlf: usize,
    pub(crate) lf: usize,
}

impl Eols {
    /// Counts the line breaks of a whole buffer.
    pub(crate) fn count(text: &[u8]) -> Eols {
        Eols::count_range(text, 0, text.len())
    }

    /// Counts the `\n` bytes at positions `start..end` of `text`, classifying
    /// each by the byte before it (which may lie before `start`).
    pub(crate) fn count_range(text: &[u8], start: usize, end: usize) -> Eols {
        let end = end.min(text.len());
        let start = start.min(end);
        let total = memchr::memchr_iter(b'\n', &text[start..end]).count();
        // CRLF pairs are counted with a second substring count; a pair whose
        // `\r` sits just before `start` is added by hand.
        let mut crlf = memchr::memmem::find_iter(&text[start..end], b"\r\n").count();
        if start > 0 && start < end && text[start - 1] == b'\r' && text[start] == b'\n' {
            crlf += 1;
        }
        Eols {
            crlf,
            lf: total - crlf,
        }
    }

    /// The style these counts describe.
    pub(crate) fn style(self) -> LineEnding {
        match (self.crlf > 0, self.lf > 0) {
            (false, false) => LineEnding::None,
            (false, true) => LineEnding::Lf,
            (true, false) => LineEnding::Crlf,
            (true, true) => LineEnding::Mixed,
        }
    }

    /// `self - removed + added`, the counts after a splice.
    pub(crate) fn splice(self, removed: Eols, added: Eols) -> Eols {
        Eols {
            crlf: self.crlf - removed.crlf + added.crlf,
            lf: self.lf - removed.lf + added.lf,
        }
    }
}

/// Whether `s` contains a `\n` that is not preceded by `\r`.
pub(crate) fn has_bare_lf(s: &str) -> bool {
    let bytes = s.as_bytes();
    memchr::memchr_iter(b'\n', bytes).any(|i| i == 0 || bytes[i - 1] != b'\r')
}

/// `s` with every bare `\n` written as `\r\n`; `\r\n` pairs and lone `\r`
/// bytes are kept as they are.
pub(crate) fn to_crlf(s: &str) -> Cow<'_, str> {
    if !has_bare_lf(s) {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len() + s.len() / 8 + 2);
    let mut last = 0;
    for i in memchr::memchr_iter(b'\n', bytes) {
        if i == 0 || bytes[i - 1] != b'\r' {
            // `i` is the index of an ASCII byte, so both cuts are char boundaries.
            out.push_str(&s[last..i]);
            out.push_str("\r\n");
            last = i + 1;
        }
    }
    out.push_str(&s[last..]);
    Cow::Owned(out)
}

/// `new` with its bare LFs written as the line breaks of the span it
/// replaces, `crlf[i]` telling whether that span's `i`-th one is `\r\n`:
/// when the counts agree (the line count is unchanged) each line keeps its
/// own ending; otherwise every bare LF takes the ending most of the span's
/// line breaks have (the first one's on a tie).
pub(crate) fn follow_endings(new: &str, crlf: &[bool]) -> String {
    let bytes = new.as_bytes();
    let bare: Vec<usize> = memchr::memchr_iter(b'\n', bytes)
        .filter(|&i| i == 0 || bytes[i - 1] != b'\r')
        .collect();
    let crlfs = crlf.iter().filter(|&&c| c).count();
    let majority = match (crlfs * 2).cmp(&crlf.len()) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => crlf.first().copied().unwrap_or(false),
    };
    let mut out = String::with_capacity(new.len() + bare.len());
    let mut last = 0;
    for (k, &i) in bare.iter().enumerate() {
        let as_crlf = if bare.len() == crlf.len() {
            crlf[k]
        } else {
            majority
        };
        // `i` is the index of an ASCII byte, so both cuts are char boundaries.
        out.push_str(&new[last..i]);
        out.push_str(if as_crlf { "\r\n" } else { "\n" });
        last = i + 1;
    }
    out.push_str(&new[last..]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn endings_follow_the_replaced_lines() {
        assert_eq!(follow_endings("x\ny\nz", &[true, false]), "x\r\ny\nz");
        // Another line count: the majority, the first on a tie.
        assert_eq!(follow_endings("x\ny", &[false, true, true]), "x\r\ny");
        assert_eq!(follow_endings("x\ny\nz\nw", &[false, true]), "x\ny\nz\nw");
        assert_eq!(follow_endings("x\r\ny", &[false, true]), "x\r\ny");
    }

    use super::*;

    #[test]
    fn counts_each_kind_of_break() {
        let e = Eols::count(b"a\r\nb\nc\r\n\rd\n");
        assert_eq!(e, Eols { crlf: 2, lf: 2 });
        assert_eq!(e.style(), LineEnding::Mixed);
        assert_eq!(Eols::count(b"a\r\nb\r\n").style(), LineEnding::Crlf);
        assert_eq!(Eols::count(b"a\nb").style(), LineEnding::Lf);
        assert_eq!(Eols::count(b"a\rb").style(), LineEnding::None);
        assert_eq!(Eols::count(b"").style(), LineEnding::None);
    }

    #[test]
    fn range_count_looks_at_the_byte_before_the_range() {
        let text = b"x\r\ny\n";
        assert_eq!(Eols::count_range(text, 2, 5), Eols { crlf: 1, lf: 1 });
        assert_eq!(Eols::count_range(text, 3, 5), Eols { crlf: 0, lf: 1 });
        assert_eq!(Eols::count_range(text, 0, 0), Eols::default());
        assert_eq!(Eols::count_range(text, 4, 99), Eols { crlf: 0, lf: 1 });
    }

    #[test]
    fn translation_touches_bare_lf_only() {
        assert_eq!(to_crlf("a\nb\r\nc\rd\n"), "a\r\nb\r\nc\rd\r\n");
        assert!(matches!(to_crlf("a\r\nb"), Cow::Borrowed(_)));
        assert_eq!(to_crlf("\n\n"), "\r\n\r\n");
        assert!(has_bare_lf("\n"));
        assert!(!has_bare_lf("a\r\n"));
        assert!(!has_bare_lf(""));
    }
}
