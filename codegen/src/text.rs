//! The one rule for the texts of a spec, and how each reaches each place of
//! each artifact.
//!
//! A spec's texts end up in comments (`#` in Python, `//` and `/** */` in
//! JavaScript and TypeScript), doc comments (`#[doc = "..."]` in Rust,
//! docstrings in Python), string literals of four languages, Markdown
//! headings, tables and code spans, and, later, HTML. Each place ends at its
//! own characters, so a text that is harmless in one breaks out of another:
//! a newline or a bare carriage return ends a Python `#` comment, U+2028
//! ends a JavaScript `//` comment, `*/` a block comment, `"""` a docstring,
//! `|` a table cell; NUL breaks a Python file; the bidirectional overrides
//! reorder what a reader sees around them (rustc's deny-by-default
//! `text_direction_codepoint_in_literal` lint refuses them).
//!
//! Two halves, so that no emitter decides on its own:
//!
//! - **Refused** ([`refused`]): characters no place can hold as written and
//!   no reader wants in an error text: control characters (other than tab,
//!   and newline in multi-line Markdown), the Unicode line and paragraph
//!   separators, and the bidirectional embeddings, overrides and isolates.
//!   The YAML reader applies it to every scalar of the spec (keys, values,
//!   examples, constants), and the reader of one-line texts also refuses a
//!   newline ([`TextKind::Line`]), so `check` points at the text.
//! - **Escaped**: what is left is ordinary text, which each place escapes
//!   by its own syntax, here: [`jsdoc`], [`py_docstring`], [`md_cell`],
//!   [`md_code`], [`md_inline`], [`html`] (string literals are written by
//!   serde_json and `proc_macro2`, which escape every character a string
//!   cannot hold; see [`json_str`]).

/// What a text is, which decides the characters it may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A name or a one-line text (`title`, `doc`, a hint, a wire name): no
    /// line break of any kind.
    Line,
    /// Markdown (`explanation`, `description`): newlines allowed.
    Markdown,
}

/// A character of a text that no artifact can hold, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// The character.
    pub ch: char,
    /// Its byte offset in the text.
    pub at: usize,
}

impl Refusal {
    /// `U+202E (right-to-left override)`.
    pub fn describe(&self) -> String {
        format!("U+{:04X} ({})", self.ch as u32, char_name(self.ch))
    }

    /// Why the character is refused, for a diagnostic's help.
    pub fn why(&self) -> &'static str {
        match self.ch {
            '\n' => {
                "a line break ends a comment in the generated files; use a folded block (`>-`) or join the lines"
            }
            '\r' | '\u{2028}' | '\u{2029}' | '\u{85}' => {
                "a line break ends a comment in the generated Python or JavaScript and is not allowed in a Rust doc comment; remove it"
            }
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
                "a bidirectional control reorders how the generated code reads (rustc denies it in literals and comments); remove it"
            }
            _ => {
                "a control character cannot be written in a generated comment, and NUL breaks the generated Python; remove it"
            }
        }
    }
}

/// The first character of `text` that a text of `kind` may not hold.
pub fn refused(text: &str, kind: TextKind) -> Option<Refusal> {
    text.char_indices()
        .find(|&(_, ch)| is_refused(ch, kind))
        .map(|(at, ch)| Refusal { ch, at })
}

fn is_refused(ch: char, kind: TextKind) -> bool {
    match ch {
        '\t' => false,
        '\n' => kind == TextKind::Line,
        // C0 controls (NUL, CR, ...), DEL, C1 controls (NEL, ...).
        '\0'..='\u{1F}' | '\u{7F}'..='\u{9F}' => true,
        // Line and paragraph separators: line terminators in JavaScript.
        '\u{2028}' | '\u{2029}' => true,
        // Bidirectional embeddings, overrides and isolates (Trojan Source,
        // CVE-2021-42574): rustc's `text_direction_codepoint_*` lints.
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

fn char_name(ch: char) -> &'static str {
    match ch {
        '\0' => "null",
        '\n' => "line feed",
        '\r' => "carriage return",
        '\u{B}' => "vertical tab",
        '\u{C}' => "form feed",
        '\u{1B}' => "escape",
        '\u{7F}' => "delete",
        '\u{85}' => "next line",
        '\u{2028}' => "line separator",
        '\u{2029}' => "paragraph separator",
        '\u{202A}' => "left-to-right embedding",
        '\u{202B}' => "right-to-left embedding",
        '\u{202C}' => "pop directional formatting",
        '\u{202D}' => "left-to-right override",
        '\u{202E}' => "right-to-left override",
        '\u{2066}' => "left-to-right isolate",
        '\u{2067}' => "right-to-left isolate",
        '\u{2068}' => "first strong isolate",
        '\u{2069}' => "pop directional isolate",
        _ => "control character",
    }
}

/// Line breaks of any target language (and other refused characters)
/// replaced by a space: the last guard of a `//` or `#` comment line, for
/// text that does not come through the reader (the emitters' own words
/// around a spec's text are already safe; a checked spec's text is too).
pub fn comment_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if is_refused(c, TextKind::Line) {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// The body of a JSDoc `/** ... */` comment: `*/` cannot end it early.
pub fn jsdoc(text: &str) -> String {
    text.replace("*/", "*\\/")
}

/// The body of a Python `"""docstring"""`: backslashes cannot escape
/// anything, and neither `"""` nor a final `"` can end it early.
pub fn py_docstring(text: &str) -> String {
    let mut text = text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    if text.ends_with('"') {
        text.pop();
        text.push_str("\\\"");
    }
    text
}

/// A string literal in JSON syntax, which is also a valid JavaScript,
/// TypeScript and Python literal: serde_json escapes `"`, `\` and every
/// control character. (U+2028/U+2029, which serde_json leaves as written,
/// are valid in the string literals of all three since ES2019, and refused
/// in a spec anyway.)
pub fn json_str(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// A Markdown table cell: `|` cannot end the cell, a newline cannot end
/// the row.
pub fn md_cell(text: &str) -> String {
    text.trim().replace('|', "\\|").replace('\n', " ")
}

/// Inline code (`` `name` ``) holding any text: the fence is one backtick
/// longer than the longest run inside, padded when the text starts or ends
/// with a backtick (CommonMark 6.1). In a table cell, pass the result
/// through [`md_cell`].
pub fn md_code(text: &str) -> String {
    let longest = text
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or_default();
    let fence = "`".repeat(longest + 1);
    if longest > 0 || text.starts_with(' ') && text.ends_with(' ') && !text.trim().is_empty() {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// Plain text (a name, not Markdown) in Markdown prose or a heading: every
/// ASCII punctuation character that Markdown or HTML could read as syntax
/// is backslash-escaped (CommonMark 2.4), so `<script>`, `*`, `[x](y)` and
/// `#` read as themselves.
pub fn md_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_punctuation() && !matches!(c, '.' | ',' | ':' | ';' | '/' | '\'' | '-')
            || (c == '-' && out.is_empty())
        {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text in HTML (element content or a quoted attribute value).
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_breaker_of_every_target_is_refused() {
        for ch in [
            '\n', '\r', '\0', '\u{B}', '\u{C}', '\u{1B}', '\u{7F}', '\u{85}', '\u{2028}',
            '\u{2029}', '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}',
        ] {
            let text = format!("ab{ch}c");
            let r = refused(&text, TextKind::Line).unwrap_or_else(|| panic!("{ch:?} passes"));
            assert_eq!((r.ch, r.at), (ch, 2));
            assert!(!r.describe().is_empty() && !r.why().is_empty());
        }
        assert_eq!(refused("a\tb é ü 中 😀 \u{200B}", TextKind::Line), None);
        assert_eq!(refused("a\nb", TextKind::Markdown), None);
        assert!(refused("a\r\nb", TextKind::Markdown).is_some());
        assert_eq!(
            refused("\u{202E}", TextKind::Line).map(|r| r.describe()),
            Some("U+202E (right-to-left override)".into())
        );
    }

    #[test]
    fn comment_lines_cannot_break() {
        assert_eq!(comment_line("a\rb\u{2028}c\nd"), "a b c d");
    }

    #[test]
    fn docstrings_and_block_comments_cannot_end_early() {
        assert_eq!(jsdoc("a */ b"), "a *\\/ b");
        assert_eq!(py_docstring(r#"a """ b \ c""#), r#"a \"\"\" b \\ c\""#);
    }

    #[test]
    fn markdown_places() {
        assert_eq!(md_cell(" a | b\nc "), "a \\| b c");
        assert_eq!(md_code("x"), "`x`");
        assert_eq!(md_code("a`b"), "`` a`b ``");
        assert_eq!(md_code("``"), "``` `` ```");
        assert_eq!(
            md_inline("<script>*x*</script>"),
            "\\<script\\>\\*x\\*\\</script\\>"
        );
        assert_eq!(md_inline("splice"), "splice");
        assert_eq!(md_inline("# h"), "\\# h");
        assert_eq!(
            html("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
