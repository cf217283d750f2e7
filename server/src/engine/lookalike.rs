//! Look-alike characters: why an `old_string` that reads like the file's
//! text does not match it.
//!
//! A model reads a file as rendered text, and some differences do not
//! render: `café` spelled with a combining accent (NFD) or precomposed
//! (NFC), a no-break space where a space is expected, a zero-width space
//! between two letters, a full-width `Ａ` or `，`, the ligature `ﬁ`, a
//! Cyrillic `а` or a Greek `ο` inside a Latin identifier. Curly and
//! straight quotes, and dashes and hyphens, are told apart only with care.
//! An `old_string` that differs from the file only by such characters fails
//! with `MATCH_NOT_FOUND`, and the excerpt shows the "same" text again, so
//! the model retries the same bytes.
//!
//! This module answers, on the not-found path only, whether `old_string`
//! would match once both sides are *folded* ([`fold`]): each non-ASCII
//! character is replaced by its compatibility decomposition (NFKD: full-width
//! forms, ligatures), then each resulting character that is not ASCII by
//! its ASCII look-alike: the spaces, quotes and dashes of [`fold_char`]
//! (zero-width characters removed), and the letters, digits and punctuation
//! that Unicode's confusables data (UTS #39, through the `unicode-security`
//! crate) gives an ASCII *skeleton* ([`confusable`]). Combining marks stay,
//! in canonical order, so NFC and NFD spellings meet. ASCII is never
//! folded: UTS #39 also calls `0` and `O`, or `rn` and `m`, confusable, but
//! an ASCII difference is one the model can see in the excerpt. If the
//! folded texts meet, [`Folding::find`] reports where, each difference, and
//! the file's exact text spelled with JSON escapes, which a model can copy
//! into its retry. Matching itself stays exact: this is a report, never an
//! edit.
//!
//! Folding keeps every line break where it is (no character folds to or
//! from `\n`), so the folded text has the file's lines: the excerpt is
//! placed on it (see `engine::context`), which is how it lands where a
//! look-alike is even when no word of `old_string` is in the file as typed.
//!
//! **Cost.** Folding changes non-ASCII characters only, so a file that is
//! all ASCII folds to itself: the check is then one `is_ascii` pass over
//! the file and, when `old_string` folds to something else, one `memmem`
//! search. Other files are folded in one pass that copies ASCII runs and
//! folds each non-ASCII character (its confusable skeleton looked up once
//! per distinct character of the text); the fold keeps a list of the
//! characters it changed (not a map of every byte), from which a position
//! in the folded text is mapped back to the file. In a file over
//! [`FOLD_WHOLE_BYTES`], only the lines around where the excerpt placed the
//! edit are folded (at most [`FOLD_WINDOW_BYTES`]), which bounds the work
//! on a large file full of non-ASCII text.

use std::borrow::Cow;
use std::fmt::Write as _;

use std::collections::HashMap;
use std::sync::OnceLock;

use memchr::memmem;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::{canonical_combining_class, decompose_compatible};
use unicode_script::{Script, UnicodeScript};

/// Files up to this size are folded whole when they hold non-ASCII text.
pub(crate) const FOLD_WHOLE_BYTES: usize = 4 << 20;
/// In a larger file, the bytes folded around the placed excerpt.
pub(crate) const FOLD_WINDOW_BYTES: usize = 1 << 20;
/// Differences listed in a report (the count covers all of them).
pub const MAX_DIFFERENCES: usize = 10;
/// Longest `file_text` (with its escapes) before it is cut.
pub const MAX_FILE_TEXT_BYTES: usize = 16 * 1024;

/// Where `old_string` would match once look-alike characters are folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookalike {
    /// 1-based line of the file where the look-alike match starts.
    pub line: usize,
    /// 1-based column (in characters) where it starts.
    pub column: usize,
    /// The first [`MAX_DIFFERENCES`] differences, in file order.
    pub differences: Vec<LookalikeDifference>,
    /// How many places differ in all.
    pub difference_count: usize,
    /// The file's exact text of the match as a JSON string literal (quotes
    /// included) whose characters outside printable ASCII are `\u` escapes.
    pub file_text: String,
}

/// One place where the file has a look-alike of what `old_string` has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookalikeDifference {
    /// 1-based line of the file.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The file's code points there (`U+00A0`), or `nothing`.
    pub file_has: String,
    /// `old_string`'s code points there, or `nothing`.
    pub old_string_has: String,
    /// The difference in words.
    pub description: String,
}

/// The ASCII look-alike of the space, quote or dash `c` (empty for a
/// zero-width character), or `None` for any other character.
pub(crate) fn fold_char(c: char) -> Option<&'static str> {
    Some(match c {
        // No-break, figure, narrow no-break and the typographic spaces.
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' => " ",
        // Zero-width space, non-joiner, joiner, word joiner, ZWNBSP/BOM.
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => "",
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => "\"",
        // Hyphen, non-breaking hyphen, figure/en/em dash, bar, minus sign.
        '\u{2010}'..='\u{2015}' | '\u{2212}' => "-",
        _ => return None,
    })
}

/// One character (or cluster) that folding changed: `o_len` bytes at `o`
/// in the original became `f_len` bytes at `f` in the folded text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    f: usize,
    o: usize,
    f_len: usize,
    o_len: usize,
}

/// A text and its fold.
pub(crate) struct Folded<'t> {
    original: &'t str,
    /// The folded text: the same lines as the original.
    pub(crate) text: Cow<'t, str>,
    /// In order; empty when the fold is the original.
    changes: Vec<Change>,
}

impl Folded<'_> {
    /// Whether folding changed nothing.
    pub(crate) fn is_unchanged(&self) -> bool {
        self.changes.is_empty()
    }

    /// The original offset where a match starting at folded `at` starts
    /// (after any character removed right there).
    fn start(&self, at: usize) -> usize {
        let k = self.changes.partition_point(|c| c.f + c.f_len <= at);
        if let Some(c) = self.changes.get(k).filter(|c| c.f < at) {
            return c.o;
        }
        match k.checked_sub(1).map(|i| self.changes[i]) {
            Some(c) => c.o + c.o_len + (at - c.f - c.f_len),
            None => at,
        }
    }

    /// The original offset where a match ending at folded `at` ends
    /// (before any character removed right there).
    fn end(&self, at: usize) -> usize {
        let k = self.changes.partition_point(|c| c.f < at);
        match k.checked_sub(1).map(|i| self.changes[i]) {
            Some(c) if c.f + c.f_len > at => c.o + c.o_len,
            Some(c) => c.o + c.o_len + (at - c.f - c.f_len),
            None => at,
        }
    }
}

/// The ASCII look-alikes of non-ASCII characters found while folding one
/// text: each distinct character's skeleton is computed once.
#[derive(Default)]
struct Confusables(foldhash::HashMap<char, Option<Box<str>>>);

impl Confusables {
    /// [`confusable`] of `c`, remembered.
    fn get(&mut self, c: char) -> Option<&str> {
        self.0.entry(c).or_insert_with(|| confusable(c)).as_deref()
    }
}

/// The skeletons (UTS #39) of the printable ASCII characters, each with
/// the characters that have it: `l` for `l`, `1`, `I` and `|`.
fn ascii_skeletons() -> &'static HashMap<String, Vec<u8>> {
    static SKELETONS: OnceLock<HashMap<String, Vec<u8>>> = OnceLock::new();
    SKELETONS.get_or_init(|| {
        let mut map: HashMap<String, Vec<u8>> = HashMap::new();
        for b in b'!'..=b'~' {
            let skeleton =
                unicode_security::skeleton(char::from(b).encode_utf8(&mut [0; 4])).collect();
            map.entry(skeleton).or_default().push(b);
        }
        map
    })
}

/// The ASCII look-alike of the non-ASCII character `c` (not a combining
/// mark) by Unicode's confusables data: the ASCII text with the same UTS
/// #39 skeleton, empty for a default-ignorable (invisible) character, or
/// `None` when nothing in ASCII looks like it. Where several ASCII
/// characters share the skeleton (`l`, `1`, `I`, `|`), the one of `c`'s
/// kind is taken: an upper-case letter for an upper-case letter, a
/// lower-case one for a lower-case one, a digit for a digit.
pub(crate) fn confusable(c: char) -> Option<Box<str>> {
    let skeleton: String = unicode_security::skeleton(c.encode_utf8(&mut [0; 4])).collect();
    if skeleton.is_empty() {
        return Some("".into());
    }
    let skeletons = ascii_skeletons();
    if let Some(same) = skeletons.get(&skeleton) {
        let of_kind = |kind: fn(&u8) -> bool| same.iter().copied().find(kind);
        let chosen = if c.is_uppercase() {
            of_kind(u8::is_ascii_uppercase)
        } else if c.is_lowercase() {
            of_kind(u8::is_ascii_lowercase)
        } else if c.is_numeric() {
            of_kind(u8::is_ascii_digit)
        } else {
            None
        };
        let chosen = chosen
            .or_else(|| same.iter().copied().find(|&b| skeleton.as_bytes() == [b]))
            .unwrap_or(same[0]);
        return Some(char::from(chosen).to_string().into());
    }
    // A skeleton of several ASCII characters that are each their own
    // skeleton: `ﬀ`'s `ff`.
    let own = |a: char| {
        skeletons
            .get(a.encode_utf8(&mut [0; 4]) as &str)
            .is_some_and(|same| same.contains(&(a as u8)))
    };
    (skeleton.is_ascii() && skeleton.chars().all(own)).then(|| skeleton.into())
}

/// Folds `text` (see the module docs).
pub(crate) fn fold(text: &str) -> Folded<'_> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut changes = Vec::new();
    let mut confusables = Confusables::default();
    // `bytes[..copied]` is accounted for in `out` (once a change exists).
    let mut copied = 0usize;
    let mut i = next_non_ascii(bytes, 0);
    let mut buf = String::new();
    while i < bytes.len() {
        // The run of non-ASCII characters at `i`, and the clusters in it: a
        // character with its following combining marks.
        let run_end = next_ascii(bytes, i);
        let run = &text[i..run_end];
        let mut chars = run.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let mut end = at + c.len_utf8();
            while let Some(&(_, m)) = chars.peek() {
                if canonical_combining_class(m) == 0 || fold_char(m).is_some() {
                    break;
                }
                end += m.len_utf8();
                chars.next();
            }
            let cluster = &run[at..end];
            buf.clear();
            if !fold_cluster(cluster, &mut buf, &mut confusables) {
                continue;
            }
            let o = i + at;
            if changes.is_empty() {
                out.reserve(text.len() + 16);
            }
            out.push_str(&text[copied..o]);
            changes.push(Change {
                f: out.len(),
                o,
                f_len: buf.len(),
                o_len: cluster.len(),
            });
            out.push_str(&buf);
            copied = o + cluster.len();
        }
        i = next_non_ascii(bytes, run_end);
    }
    if changes.is_empty() {
        return Folded {
            original: text,
            text: Cow::Borrowed(text),
            changes,
        };
    }
    out.push_str(&text[copied..]);
    Folded {
        original: text,
        text: Cow::Owned(out),
        changes,
    }
}

/// Writes the fold of `cluster` (a character and its combining marks) to
/// `out` and says whether it differs: each character's [`fold_char`], or
/// its compatibility decomposition with every non-ASCII character that is
/// not a mark replaced by its [`confusable`], then the marks in canonical
/// order (a stable sort of each run of marks by combining class).
fn fold_cluster(cluster: &str, out: &mut String, confusables: &mut Confusables) -> bool {
    let mut folded: Vec<char> = Vec::with_capacity(4);
    for c in cluster.chars() {
        if let Some(to) = fold_char(c) {
            folded.extend(to.chars());
            continue;
        }
        decompose_compatible(c, |d| {
            if d.is_ascii() || canonical_combining_class(d) != 0 {
                folded.push(d);
            } else if let Some(to) = fold_char(d) {
                folded.extend(to.chars());
            } else {
                match confusables.get(d) {
                    Some(to) => folded.extend(to.chars()),
                    None => folded.push(d),
                }
            }
        });
    }
    let mut run = 0;
    while run < folded.len() {
        if canonical_combining_class(folded[run]) == 0 {
            run += 1;
            continue;
        }
        let end = folded[run..]
            .iter()
            .position(|&m| canonical_combining_class(m) == 0)
            .map_or(folded.len(), |p| run + p);
        folded[run..end].sort_by_key(|&m| canonical_combining_class(m));
        run = end;
    }
    out.extend(folded.iter());
    out.as_str() != cluster
}

/// The first non-ASCII byte at or after `from` (or the end).
fn next_non_ascii(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i + 64 <= bytes.len() && bytes[i..i + 64].is_ascii() {
        i += 64;
    }
    bytes[i..]
        .iter()
        .position(|&b| b >= 0x80)
        .map_or(bytes.len(), |p| i + p)
}

/// The first ASCII byte at or after `from` (or the end).
fn next_ascii(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b < 0x80)
        .map_or(bytes.len(), |p| from + p)
}

/// The folds of `old` as the engine matches it: as written and, when
/// given, `crlf` (`old` with its bare LFs written as CRLF).
pub(crate) fn fold_forms<'o>(old: &'o str, crlf: Option<&'o str>) -> Vec<Folded<'o>> {
    std::iter::once(old).chain(crlf).map(fold).collect()
}

/// A text folded for the look-alike check: all of it, or the lines of a
/// window, and the folded forms of `old_string`.
pub(crate) struct Folding<'t> {
    /// The whole text (UTF-8; made a `str` only to report a match).
    text: &'t [u8],
    /// Where the folded window starts in `text`.
    base: usize,
    file: Folded<'t>,
    forms: Vec<Folded<'t>>,
}

impl<'t> Folding<'t> {
    /// Folds `window`, the lines of `text` from byte `base` on (all of it,
    /// or [`window`] around a placement).
    pub(crate) fn new(
        text: &'t [u8],
        base: usize,
        window: &'t str,
        forms: Vec<Folded<'t>>,
    ) -> Self {
        Folding {
            text,
            base,
            file: fold(window),
            forms,
        }
    }

    /// The folded window.
    pub(crate) fn folded_text(&self) -> &str {
        &self.file.text
    }

    /// The folded `old_string` as written.
    pub(crate) fn folded_old(&self) -> &str {
        &self.forms[0].text
    }

    /// Where a folded form of `old` occurs in the folded window, covering
    /// whole characters, reported; `None` if none does or nothing differs.
    /// When the window folds to itself (all ASCII, say), only a form that
    /// folding changed can match, so the others cost no search.
    pub(crate) fn find(&self) -> Option<Lookalike> {
        let file_folds = !self.file.changes.is_empty();
        self.forms
            .iter()
            .filter(|f| file_folds || !f.changes.is_empty())
            .find_map(|f| {
                let at = memmem::find_iter(self.file.text.as_bytes(), f.text.as_bytes())
                    .find(|&at| whole(&self.file, at, at + f.text.len()))?;
                report(
                    std::str::from_utf8(self.text).ok()?,
                    self.base,
                    &self.file,
                    at,
                    f,
                )
            })
    }
}

/// Where `old` matches `text` once both are folded, if it does; `crlf`
/// is `old` with its bare LFs written as CRLF, tried when the plain form
/// does not match (as the engine does). `near` is the byte offset of the
/// place the excerpt chose, around which a large file is folded.
#[cfg(test)]
pub(crate) fn find(text: &[u8], old: &str, crlf: Option<&str>, near: usize) -> Option<Lookalike> {
    let (base, window) = if text.len() <= FOLD_WHOLE_BYTES {
        (0, text)
    } else {
        window(text, near)
    };
    let window = std::str::from_utf8(window).ok()?;
    Folding::new(text, base, window, fold_forms(old, crlf)).find()
}

/// Whether folded `[at, end)` covers whole characters of the original: it
/// neither starts nor ends inside a changed character's fold, nor ends
/// before a combining mark (`cafe` is no match in `café` spelled NFD).
fn whole(file: &Folded<'_>, at: usize, end: usize) -> bool {
    let inside = |p: usize| {
        let k = file.changes.partition_point(|c| c.f + c.f_len <= p);
        file.changes.get(k).is_some_and(|c| c.f < p)
    };
    let mark = file.text[end..]
        .chars()
        .next()
        .is_some_and(|c| canonical_combining_class(c) != 0);
    !inside(at) && !inside(end) && !mark
}

/// The lines of `text` within [`FOLD_WINDOW_BYTES`] around `near`, and
/// where they start (a window of whole lines of UTF-8 text is UTF-8).
pub(crate) fn window(text: &[u8], near: usize) -> (usize, &[u8]) {
    let near = near.min(text.len());
    let from = near.saturating_sub(FOLD_WINDOW_BYTES / 2);
    let to = (from + FOLD_WINDOW_BYTES).min(text.len());
    let start = memchr::memrchr(b'\n', &text[..from]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &text[to..]).map_or(text.len(), |i| to + i);
    (start, &text[start..end])
}

/// The report of a match of folded `old` at folded offset `at` of `file`,
/// the fold of `text[base..]`; `None` if nothing differs (the match is a
/// line-ending form the engine's matcher does not try).
fn report(
    text: &str,
    base: usize,
    file: &Folded<'_>,
    at: usize,
    old: &Folded<'_>,
) -> Option<Lookalike> {
    let end = at + old.text.len();
    // Regions of the folded match where either side changed, merged.
    let lo = file.changes.partition_point(|c| c.f + c.f_len < at);
    let mut regions: Vec<(usize, usize)> = file.changes[lo..]
        .iter()
        .take_while(|c| c.f <= end)
        .filter(|c| (c.f < end && c.f + c.f_len > at) || (c.f_len == 0 && c.f > at && c.f < end))
        .map(|c| (c.f.saturating_sub(at), (c.f + c.f_len).min(end) - at))
        .chain(old.changes.iter().map(|c| (c.f, c.f + c.f_len)))
        .collect();
    regions.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in regions {
        match merged.last_mut() {
            Some(last) if a < last.1 || a == last.0 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let start = base + file.start(at);
    let stop = base + file.end(end);
    let old_text = old.original;
    let mut differences = Vec::new();
    let mut line_mark = (0usize, 0usize);
    let mut count = 0;
    for &(a, b) in &merged {
        let (fa, fb) = span(file, at + a, at + b);
        let (oa, ob) = span(old, a, b);
        let (fa, fb) = (base + fa, base + fb);
        let (file_piece, old_piece) = (&text[fa..fb], &old_text[oa..ob]);
        if file_piece == old_piece {
            continue;
        }
        count += 1;
        if differences.len() == MAX_DIFFERENCES {
            continue;
        }
        let (line, column) = line_column(text, fa, &mut line_mark);
        differences.push(LookalikeDifference {
            line,
            column,
            file_has: code_points(file_piece),
            old_string_has: code_points(old_piece),
            description: describe(file_piece, old_piece, line),
        });
    }
    if count == 0 {
        return None;
    }
    let (line, column) = line_column(text, start, &mut (0, 0));
    Some(Lookalike {
        line,
        column,
        differences,
        difference_count: count,
        file_text: json_literal(&text[start..stop]),
    })
}

/// The original span of folded `[a, b)`, widened to whole changed
/// characters.
fn span(f: &Folded<'_>, a: usize, b: usize) -> (usize, usize) {
    let mut lo = f.start(a);
    let mut hi = f.end(b).max(lo);
    let from = f.changes.partition_point(|c| c.f + c.f_len < a);
    for c in &f.changes[from..] {
        if c.f > b {
            break;
        }
        let inside = (c.f < b && c.f + c.f_len > a) || (c.f_len == 0 && c.f >= a && c.f <= b);
        if inside {
            lo = lo.min(c.o);
            hi = hi.max(c.o + c.o_len);
        }
    }
    (lo, hi)
}

/// 1-based line and column of byte `at`, counting on from `mark` (an
/// offset and the 0-based line there) when `at` is past it.
fn line_column(text: &str, at: usize, mark: &mut (usize, usize)) -> (usize, usize) {
    let bytes = text.as_bytes();
    if at < mark.0 {
        *mark = (0, 0);
    }
    mark.1 += memchr::memchr_iter(b'\n', &bytes[mark.0..at]).count();
    mark.0 = at;
    let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
    (mark.1 + 1, text[line_start..at].chars().count() + 1)
}

/// `U+00A0 U+0301`, or `nothing`.
fn code_points(s: &str) -> String {
    if s.is_empty() {
        return "nothing".into();
    }
    let mut out = String::new();
    for c in s.chars() {
        if !out.is_empty() {
            out.push(' ');
        }
        let _ = write!(out, "U+{:04X}", c as u32);
    }
    out
}

/// The name of a character in a description.
fn name(c: char) -> Cow<'static, str> {
    Cow::Borrowed(match c {
        ' ' => "space",
        '\'' => "apostrophe",
        '"' => "quotation mark",
        '-' => "hyphen-minus",
        '\u{00A0}' => "no-break space",
        '\u{2007}' => "figure space",
        '\u{202F}' => "narrow no-break space",
        '\u{2000}'..='\u{200A}' | '\u{205F}' => "typographic space",
        '\u{200B}' => "zero-width space",
        '\u{200C}' => "zero-width non-joiner",
        '\u{200D}' => "zero-width joiner",
        '\u{2060}' => "word joiner",
        '\u{FEFF}' => "zero-width no-break space",
        '\u{2018}' => "left single quotation mark",
        '\u{2019}' => "right single quotation mark",
        '\u{201A}' | '\u{201B}' => "single quotation mark",
        '\u{201C}' => "left double quotation mark",
        '\u{201D}' => "right double quotation mark",
        '\u{201E}' | '\u{201F}' => "double quotation mark",
        '\u{2010}' => "hyphen",
        '\u{2011}' => "non-breaking hyphen",
        '\u{2012}' => "figure dash",
        '\u{2013}' => "en dash",
        '\u{2014}' => "em dash",
        '\u{2015}' => "horizontal bar",
        '\u{2212}' => "minus sign",
        c if canonical_combining_class(c) != 0 => "combining mark",
        c => {
            return Cow::Owned(match c.script() {
                Script::Common | Script::Inherited | Script::Latin | Script::Unknown => {
                    format!("'{c}'")
                }
                script => format!("'{c}', {}", script.full_name()),
            });
        }
    })
}

/// `U+00A0 (no-break space)`, `U+0065 U+0301 ('e' + combining mark)`, or
/// `nothing`.
fn spelled(s: &str) -> String {
    if s.is_empty() {
        return "nothing".into();
    }
    let names: Vec<Cow<'_, str>> = s.chars().map(name).collect();
    format!("{} ({})", code_points(s), names.join(" + "))
}

/// One difference in words (see [`LookalikeDifference::description`]).
fn describe(file: &str, old: &str, line: usize) -> String {
    let mut out = format!(
        "the file has {} where old_string has {}",
        spelled(file),
        spelled(old)
    );
    let plain = |s: &str| s.chars().all(|c| fold_char(c).is_none());
    if plain(file) && plain(old) {
        let nfd = |s: &str| s.nfd().collect::<String>();
        if nfd(file) == nfd(old) {
            let form = |s: &str| {
                if s.chars().count() < nfd(s).chars().count() {
                    "composed, NFC"
                } else {
                    "decomposed, NFD"
                }
            };
            let _ = write!(
                out,
                ": the same text in another Unicode normalization form (the file's is {}, old_string's {})",
                form(file),
                form(old)
            );
        } else if file.nfkd().eq(old.nfkd()) {
            out.push_str(": the same text in a compatibility form (NFKC folds one into the other)");
        } else {
            out.push_str(": characters that look alike (Unicode confusables, UTS #39)");
        }
    }
    let _ = write!(out, ", line {line}");
    out
}

/// `s` as a JSON string literal, quotes included, with every character
/// outside printable ASCII written as a `\u` escape (`\n`, `\t`, `\r` as
/// such), cut after [`MAX_FILE_TEXT_BYTES`] with a note after the quote.
fn json_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    out.push('"');
    for (i, c) in s.char_indices() {
        if out.len() >= MAX_FILE_TEXT_BYTES {
            let _ = write!(
                out,
                "\" (cut: {} more bytes of the file's text follow)",
                s.len() - i
            );
            return out;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file text a report points at, decoded from its JSON literal.
    fn decoded(l: &Lookalike) -> String {
        serde_json::from_str(&l.file_text).expect("file_text is a JSON string literal")
    }

    fn found(text: &str, old: &str) -> Lookalike {
        let l = find(text.as_bytes(), old, None, 0).expect("a look-alike match");
        // What the report gives to copy is the file's own text and matches
        // it exactly.
        let copy = decoded(&l);
        assert!(text.contains(&copy), "{copy:?} is not in the file");
        assert_ne!(copy, old);
        assert_eq!(fold(&copy).text, fold(old).text);
        l
    }

    #[test]
    fn nfd_in_the_file_nfc_in_old_string() {
        let text = "fn menu() {\n    let name = \"Cafe\u{301} du Nord\";\n}\n";
        let l = found(text, "let name = \"Caf\u{e9} du Nord\";");
        assert_eq!((l.line, l.column), (2, 5));
        assert_eq!(l.difference_count, 1);
        let d = &l.differences[0];
        assert_eq!((d.line, d.column), (2, 20));
        assert_eq!(d.file_has, "U+0065 U+0301");
        assert_eq!(d.old_string_has, "U+00E9");
        assert!(
            d.description.contains("another Unicode normalization form (the file's is decomposed, NFD, old_string's composed, NFC)"),
            "{}",
            d.description
        );
        assert!(d.description.ends_with(", line 2"));
        assert_eq!(l.file_text, r#""let name = \"Cafe\u0301 du Nord\";""#);
    }

    #[test]
    fn nfc_in_the_file_nfd_in_old_string() {
        let l = found("x = \"caf\u{e9}\"\n", "x = \"cafe\u{301}\"");
        assert_eq!(l.differences[0].file_has, "U+00E9");
        assert_eq!(l.differences[0].old_string_has, "U+0065 U+0301");
        assert_eq!(l.file_text, r#""x = \"caf\u00e9\"""#);
    }

    #[test]
    fn no_break_space_for_a_space() {
        let text = "a\nb\nc\nlet total\u{a0}= price * qty;\n";
        let l = found(text, "let total = price * qty;");
        assert_eq!(l.line, 4);
        assert_eq!(
            l.differences[0].description,
            "the file has U+00A0 (no-break space) where old_string has U+0020 (space), line 4"
        );
        assert_eq!(l.differences[0].column, 10);
        assert_eq!(l.file_text, r#""let total\u00a0= price * qty;""#);
    }

    #[test]
    fn zero_width_characters_in_either_side() {
        for zw in ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'] {
            let text = format!("first line\nuser{zw}_name = 1\n");
            let l = found(&text, "user_name = 1");
            assert_eq!(l.differences[0].old_string_has, "nothing");
            assert_eq!(l.differences[0].file_has, format!("U+{:04X}", zw as u32));
            assert_eq!((l.differences[0].line, l.differences[0].column), (2, 5));
            // And the other way round: old_string has it, the file not.
            let l = found("first line\nuser_name = 1\n", &format!("user{zw}_name = 1"));
            assert_eq!(l.differences[0].file_has, "nothing");
        }
    }

    #[test]
    fn quotes_and_dashes() {
        let l = found(
            "say(\"it's\") // a - b\n",
            "say(\u{201c}it\u{2019}s\u{201d}) // a \u{2013} b",
        );
        assert_eq!(l.difference_count, 4);
        assert!(l.differences[3].description.contains("U+2013 (en dash)"));
        assert_eq!(l.file_text, r#""say(\"it's\") // a - b""#);
    }

    #[test]
    fn several_differences_and_a_crlf_file() {
        let text = "one\r\nlet\u{a0}a = 1;\r\nlet\u{a0}b = \"\u{2014}\";\r\n";
        let old = "let a = 1;\nlet b = \"-\";";
        let crlf = old.replace('\n', "\r\n");
        let l = find(text.as_bytes(), old, Some(&crlf), 0).unwrap();
        assert_eq!(l.line, 2);
        assert_eq!(l.difference_count, 3);
        let lines: Vec<usize> = l.differences.iter().map(|d| d.line).collect();
        assert_eq!(lines, [2, 3, 3]);
        assert_eq!(decoded(&l), "let\u{a0}a = 1;\r\nlet\u{a0}b = \"\u{2014}\";");
    }

    #[test]
    fn nothing_to_report() {
        // Different text, or plain ASCII on both sides.
        assert_eq!(find(b"let a = 1;\n", "let b = 1;", None, 0), None);
        assert_eq!(find("caf\u{e9}\n".as_bytes(), "tea", None, 0), None);
        assert_eq!(find("caf\u{e9}\n".as_bytes(), "cafe", None, 0), None);
    }

    #[test]
    fn combining_marks_in_another_order_meet() {
        // U+0323 (below, class 220) and U+0307 (above, class 230).
        let l = found("q\u{307}\u{323}\n", "q\u{323}\u{307}");
        assert_eq!(l.difference_count, 1);
        assert_eq!(l.differences[0].file_has, "U+0307 U+0323");
        assert_eq!(l.differences[0].old_string_has, "U+0323 U+0307");
    }

    #[test]
    fn a_large_file_is_folded_around_the_placement() {
        let filler = "\u{4e2d}\u{6587} text line\n".repeat(FOLD_WHOLE_BYTES / 16);
        let text = format!("{filler}target\u{a0}line\n{filler}");
        assert!(text.len() > FOLD_WHOLE_BYTES);
        let near = filler.len();
        let l = find(text.as_bytes(), "target line", None, near).unwrap();
        assert_eq!(l.line, filler.lines().count() + 1);
        // Far from the placement it is not looked for.
        assert_eq!(find(text.as_bytes(), "target line", None, 0), None);
    }

    #[test]
    fn file_text_escapes_and_is_cut() {
        assert_eq!(
            json_literal("a\"\\\t\u{1F600}\u{7f}"),
            r#""a\"\\\t\ud83d\ude00\u007f""#
        );
        let long = "\u{a0}".repeat(MAX_FILE_TEXT_BYTES);
        let cut = json_literal(&long);
        assert!(cut.len() < MAX_FILE_TEXT_BYTES + 64);
        assert!(cut.contains("\" (cut: "), "{}", &cut[cut.len() - 60..]);
    }

    #[test]
    fn letters_of_other_scripts_that_look_latin() {
        // Cyrillic а, Greek ο, Armenian օ, Cherokee Ꭺ, Cyrillic capital І:
        // each in the file where old_string has Latin.
        for (file, old) in [
            ("let tot\u{430}l = 1;", "let total = 1;"),
            ("c\u{3bf}nfig.load()", "config.load()"),
            ("f\u{585}o(bar)", "foo(bar)"),
            ("\u{13aa}PI_KEY", "API_KEY"),
            ("\u{406}nvoice", "Invoice"),
        ] {
            let text = format!("first\n{file}\nlast\n");
            let l = found(&text, old);
            assert_eq!(l.line, 2, "{file}");
            assert!(
                l.differences[0]
                    .description
                    .contains("(Unicode confusables, UTS #39)"),
                "{}",
                l.differences[0].description
            );
        }
        let l = found("let tot\u{430}l = 1;\n", "let total = 1;");
        assert_eq!(
            l.differences[0].description,
            "the file has U+0430 ('\u{430}', Cyrillic) where old_string has U+0061 ('a'): characters that look alike (Unicode confusables, UTS #39), line 1"
        );
        assert_eq!(l.file_text, r#""let tot\u0430l = 1;""#);
        // And the other way round: old_string has the homoglyph.
        let l = found("let total = 1;\n", "let tot\u{430}l = 1;");
        assert_eq!(l.differences[0].file_has, "U+0061");
    }

    #[test]
    fn compatibility_forms_full_width_and_ligatures() {
        let l = found("call(a\u{ff0c} b)\u{ff1b}\n", "call(a, b);");
        assert_eq!(l.difference_count, 2);
        assert!(l.differences[0].description.contains("U+FF0C"));
        assert!(
            l.differences[0]
                .description
                .contains("compatibility form (NFKC"),
            "{}",
            l.differences[0].description
        );
        let l = found("# the \u{fb01}rst \u{fb02}ag\n", "# the first flag");
        assert_eq!(l.difference_count, 2);
        assert_eq!(l.differences[0].file_has, "U+FB01");
        assert_eq!(l.differences[0].old_string_has, "U+0066 U+0069");
        let l = found("\u{ff21}\u{ff22}C = 1\n", "ABC = 1");
        assert_eq!(l.difference_count, 2);
        assert_eq!(l.differences[1].file_has, "U+FF22");
        // Mathematical letters are compatibility forms too.
        let l = found("x = \u{1d41a}\n", "x = a");
        assert!(l.differences[0].description.contains("compatibility form"));
    }

    #[test]
    fn ascii_differences_are_not_look_alikes() {
        // UTS #39 calls 0 and O, 1 and l, rn and m confusable; in ASCII the
        // excerpt shows the difference, so it is not reported.
        assert_eq!(find(b"x = 0\n", "x = O", None, 0), None);
        assert_eq!(find(b"let l1 = 1;\n", "let ll = 1;", None, 0), None);
        assert_eq!(find(b"modern\n", "rnodern", None, 0), None);
        assert_eq!(fold("0 O 1 l I | m rn \" `").text, "0 O 1 l I | m rn \" `");
    }

    #[test]
    fn the_kind_of_a_letter_picks_its_look_alike() {
        // l, 1, I and | share a skeleton: Greek capital iota reads as I,
        // the script small l as l, a full-width digit as a digit.
        assert_eq!(fold("\u{399}").text, "I");
        assert_eq!(fold("\u{2113}").text, "l");
        assert_eq!(fold("\u{ff11}").text, "1");
        assert_eq!(fold("\u{41e}\u{ff10}").text, "O0");
        // Invisible ones vanish, letters with no ASCII look-alike stay.
        assert_eq!(fold("a\u{ad}b").text, "ab");
        assert_eq!(fold("\u{4e2d}\u{3b2}").text, "\u{4e2d}\u{3b2}");
    }

    #[test]
    fn folding_keeps_every_line() {
        let text = "\u{430}\n\u{fb01}\r\n\u{ff21}\u{2028}x\n\u{200b}\n\u{2026}\ne\u{301}\n";
        let folded = fold(text);
        assert_eq!(
            folded.text.matches('\n').count(),
            text.matches('\n').count()
        );
        assert_eq!(
            folded.text.lines().count(),
            text.lines().count(),
            "{:?}",
            folded.text
        );
    }
}
