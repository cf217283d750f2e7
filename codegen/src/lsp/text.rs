//! An open document's text, and the two ways of pointing into it.
//!
//! The compiler points with byte offsets ([`Loc::start`]/[`Loc::end`]); LSP
//! points with a line and a column counted in UTF-16 code units (the one
//! encoding every client supports, and the one this server announces). A
//! [`LineIndex`] converts between them, so a diagnostic after an `é` or an
//! emoji lands on the right character, and an incremental change
//! ([`Document::apply`]) replaces exactly the text the client meant.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

use crate::span::Loc;

/// The start of each line of a text, in bytes.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr_newlines(text).map(|i| i + 1));
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// The LSP position of byte `offset` (clamped into the text and back
    /// onto a character boundary).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(self.len);
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(to_u32(line), to_u32(character))
    }

    /// The byte offset of an LSP position. A line past the end is the end
    /// of the text; a column past the end of its line is the end of that
    /// line (before its newline), as the protocol asks; a column inside a
    /// surrogate pair is the start of that character.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let line = position.line as usize;
        let Some(&start) = self.starts.get(line) else {
            return self.len;
        };
        let end = self.starts.get(line + 1).map_or(self.len, |&next| next);
        let line_text = text[start..end].trim_end_matches(['\n', '\r']);
        let mut units = 0usize;
        for (i, c) in line_text.char_indices() {
            if units >= position.character as usize {
                return start + i;
            }
            units += c.len_utf16();
            if units > position.character as usize {
                return start + i;
            }
        }
        start + line_text.len()
    }

    /// The LSP range of a compiler location. A location of the file as a
    /// whole (`line == 0`) is the file's first character; a location that
    /// spans lines is cut at the end of its first line and its trailing
    /// whitespace left out, as the terminal report underlines it.
    pub fn range(&self, text: &str, loc: Loc) -> Range {
        if loc.line == 0 {
            return Range::new(Position::new(0, 0), Position::new(0, 0));
        }
        let (start, end) = first_line_span(text, loc.start, loc.end);
        Range::new(self.position(text, start), self.position(text, end))
    }

    /// The byte range of an LSP range (start and end in order).
    pub fn byte_range(&self, text: &str, range: Range) -> (usize, usize) {
        let a = self.offset(text, range.start);
        let b = self.offset(text, range.end);
        (a.min(b), a.max(b))
    }
}

/// `start..end` cut to its first line, trailing whitespace left out, on
/// character boundaries.
pub fn first_line_span(text: &str, start: usize, end: usize) -> (usize, usize) {
    let mut start = start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = end.clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    if let Some(nl) = text[start..end].find('\n') {
        end = start + nl;
    }
    let trimmed = text[start..end].trim_end().len();
    if trimmed > 0 {
        end = start + trimmed;
    }
    (start, end)
}

fn memchr_newlines(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes()
        .enumerate()
        .filter_map(|(i, b)| (b == b'\n').then_some(i))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// An open document: its text, the version the client gave it, and the
/// index of its lines.
#[derive(Debug, Clone)]
pub struct Document {
    /// The whole text.
    pub text: String,
    /// The client's version of it (`didOpen`, then each `didChange`).
    pub version: i32,
    /// Where its lines start.
    pub lines: LineIndex,
}

impl Document {
    /// A document as the client opened it.
    pub fn new(text: String, version: i32) -> Self {
        let lines = LineIndex::new(&text);
        Document {
            text,
            version,
            lines,
        }
    }

    /// Applies one change of `didChange`: a range replaced (incremental
    /// sync), or the whole text (a change without a range).
    pub fn apply(&mut self, change: &TextDocumentContentChangeEvent) {
        match change.range {
            None => self.text.clone_from(&change.text),
            Some(range) => {
                let (start, end) = self.lines.byte_range(&self.text, range);
                self.text.replace_range(start..end, &change.text);
            }
        }
        self.lines = LineIndex::new(&self.text);
    }

    /// The byte offset of an LSP position.
    pub fn offset(&self, position: Position) -> usize {
        self.lines.offset(&self.text, position)
    }

    /// The LSP range of a compiler location.
    pub fn range(&self, loc: Loc) -> Range {
        self.lines.range(&self.text, loc)
    }

    /// The LSP range of a byte range, exactly (not cut to one line).
    pub fn exact_range(&self, start: usize, end: usize) -> Range {
        Range::new(
            self.lines.position(&self.text, start),
            self.lines.position(&self.text, end),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range
                .map(|((a, b), (c, d))| Range::new(Position::new(a, b), Position::new(c, d))),
            range_length: None,
            text: text.to_owned(),
        }
    }

    #[test]
    fn positions_count_utf16_units() {
        // `é` is 2 bytes and 1 unit; `😀` is 4 bytes and 2 units.
        let text = "a: é😀x\nb: 1\n";
        let lines = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(lines.position(text, x), Position::new(0, 6));
        assert_eq!(lines.offset(text, Position::new(0, 6)), x);
        let b = text.find('b').unwrap();
        assert_eq!(lines.position(text, b), Position::new(1, 0));
        // Inside the surrogate pair: the start of the emoji.
        assert_eq!(
            lines.offset(text, Position::new(0, 5)),
            text.find('😀').unwrap()
        );
        // Past the end of a line: its end, before the newline.
        assert_eq!(
            lines.offset(text, Position::new(0, 99)),
            text.find('\n').unwrap()
        );
        assert_eq!(lines.offset(text, Position::new(9, 0)), text.len());
    }

    #[test]
    fn incremental_changes_replace_what_the_client_meant() {
        let mut doc = Document::new("name: café\ncode: X\n".into(), 1);
        // Replace `X` (line 1, units 6..7) by `ÉTÉ`, then insert after `café`.
        doc.apply(&change(Some(((1, 6), (1, 7))), "ÉTÉ"));
        doc.apply(&change(Some(((0, 10), (0, 10))), " 😀"));
        assert_eq!(doc.text, "name: café 😀\ncode: ÉTÉ\n");
        doc.apply(&change(Some(((0, 11), (0, 13))), "!"));
        assert_eq!(doc.text, "name: café !\ncode: ÉTÉ\n");
        doc.apply(&change(None, "whole"));
        assert_eq!(doc.text, "whole");
    }

    #[test]
    fn a_compiler_loc_becomes_a_one_line_range() {
        let text = "ü: \n  key: value   \n  next: 1\n";
        let lines = LineIndex::new(text);
        let start = text.find("key").unwrap();
        let loc = Loc {
            line: 2,
            col: 3,
            start,
            end: text.len(),
        };
        let r = lines.range(text, loc);
        assert_eq!(r, Range::new(Position::new(1, 2), Position::new(1, 12)));
    }
}
