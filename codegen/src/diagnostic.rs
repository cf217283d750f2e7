//! Problems found in a spec, and how they are shown to a person.
//!
//! Loading never stops at the first problem: every stage pushes
//! [`Diagnostic`]s and the caller gets them all at once in a
//! [`Diagnostics`], which owns the file name and source text so it can render
//! each problem the way rustc does (message, `--> file:line:col`, the
//! offending snippet with a caret, then `help:`). The proc macro uses the
//! compact [`Diagnostic::one_line`] form instead.
//!
//! Wording follows rustc: messages are lowercase, have no final period, name
//! the key and say what is wrong; `help` says how to fix it.

use std::fmt;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use crate::span::Loc;

/// One problem in the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the problem is. `line == 0` means "the file as a whole" (for
    /// example an I/O error), and nothing is underlined.
    pub loc: Loc,
    /// What is wrong: lowercase, no final period, names the key.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// A short label printed next to the caret.
    pub label: Option<String>,
    /// Other places that explain the problem (the first definition of a
    /// duplicate, the code that owns a number), each with its own label.
    pub related: Vec<(Loc, String)>,
    /// A fix a tool can apply without asking: the text at a place replaced
    /// by another (the "did you mean" name, the next free number). The
    /// report shows it as its `help`; the language server offers it as a
    /// quick fix.
    pub suggestion: Option<Suggestion>,
    /// An error (the spec does not load) or a warning (it does, and `check`
    /// and the language server still show the problem).
    pub severity: Severity,
}

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Severity {
    /// The spec does not load.
    #[default]
    Error,
    /// The spec loads; the problem is shown ([`crate::lint`]).
    Warning,
}

/// A replacement that fixes a [`Diagnostic`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// What is replaced (its byte range).
    pub loc: Loc,
    /// The text that replaces it.
    pub replacement: String,
}

impl Diagnostic {
    /// A diagnostic at `loc` with `message` and nothing else.
    pub fn new(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic {
            loc,
            message: message.into(),
            help: None,
            label: None,
            related: Vec::new(),
            suggestion: None,
            severity: Severity::Error,
        }
    }

    /// The same problem as a warning.
    pub fn warning(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    /// Whether the problem is a warning.
    pub fn is_warning(&self) -> bool {
        self.severity == Severity::Warning
    }

    /// Adds a fix: the text at `loc` replaced by `replacement`.
    pub fn with_suggestion(mut self, loc: Loc, replacement: impl Into<String>) -> Self {
        self.suggestion = Some(Suggestion {
            loc,
            replacement: replacement.into(),
        });
        self
    }

    /// Adds a fix when there is one: the text at `loc` replaced by
    /// `replacement`.
    pub fn with_suggestion_opt(self, loc: Loc, replacement: Option<impl Into<String>>) -> Self {
        match replacement {
            Some(r) => self.with_suggestion(loc, r),
            None => self,
        }
    }

    /// The help of an unknown name: "did you mean `x`?" with the fix that
    /// writes `x` at `loc` when a candidate is close, else the list of what
    /// is allowed (see [`suggest`]).
    pub fn suggesting<'a>(
        self,
        loc: Loc,
        word: &str,
        candidates: impl IntoIterator<Item = &'a str>,
        what: &str,
    ) -> Self {
        let candidates: Vec<&str> = candidates.into_iter().collect();
        match did_you_mean(word, candidates.iter().copied()) {
            Some(c) => self
                .with_help(format!("did you mean `{c}`?"))
                .with_suggestion(loc, c),
            None => self.with_help(format!("{what}: {}", list(&candidates))),
        }
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a help line when there is one.
    pub fn with_help_opt(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    /// Adds a label next to the caret.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Points at another place that explains the problem.
    pub fn with_related(mut self, loc: Loc, label: impl Into<String>) -> Self {
        self.related.push((loc, label.into()));
        self
    }

    /// The compact form `errors.yaml:LINE:COL: message`, used where a
    /// multi-line report does not fit (the proc macro, editors' quickfix).
    /// A warning says so (`errors.yaml:LINE:COL: warning: message`).
    pub fn one_line(&self, file_name: &str) -> String {
        let warning = if self.is_warning() { "warning: " } else { "" };
        if self.loc.line == 0 {
            format!("{file_name}: {warning}{}", self.message)
        } else {
            format!(
                "{file_name}:{}:{}: {warning}{}",
                self.loc.line, self.loc.col, self.message
            )
        }
    }
}

impl fmt::Display for Diagnostic {
    /// `LINE:COL: message` (no file name; see [`Diagnostic::one_line`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.loc.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.loc, self.message)
        }
    }
}

/// Every problem found in one spec file, with the text needed to show them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics {
    /// The file name shown in `-->` lines, as the user gave it.
    pub file_name: String,
    /// The full source text (empty when the file could not be read).
    pub source: String,
    /// The problems, sorted by position.
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Collects `items` for `file_name`, sorted by position (file-level
    /// problems first), with exact repeats removed.
    pub fn new(
        file_name: impl Into<String>,
        source: impl Into<String>,
        mut items: Vec<Diagnostic>,
    ) -> Self {
        items.sort_by(|a, b| {
            (a.loc.start, a.loc.line, a.loc.col, &a.message).cmp(&(
                b.loc.start,
                b.loc.line,
                b.loc.col,
                &b.message,
            ))
        });
        items.dedup();
        Diagnostics {
            file_name: file_name.into(),
            source: source.into(),
            items,
        }
    }

    /// Number of problems.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there is no problem.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Every problem rendered like rustc, without colors, followed by a
    /// summary line (`error: could not load errors.yaml: 3 problems`).
    pub fn render(&self) -> String {
        self.render_with(Renderer::plain())
    }

    /// Like [`Diagnostics::render`], with ANSI colors (for terminals).
    pub fn render_styled(&self) -> String {
        self.render_with(Renderer::styled())
    }

    fn render_with(&self, renderer: Renderer) -> String {
        let mut out = String::new();
        for item in &self.items {
            out.push_str(&self.render_one(&renderer, item));
            out.push_str("\n\n");
        }
        let n = self.items.iter().filter(|d| !d.is_warning()).count();
        let warnings = self.items.len() - n;
        let title = if n == 0 {
            Level::WARNING.primary_title(format!(
                "`{}` generated {warnings} {}",
                self.file_name,
                if warnings == 1 { "warning" } else { "warnings" }
            ))
        } else {
            Level::ERROR.primary_title(format!(
                "could not load `{}` due to {n} previous {}",
                self.file_name,
                if n == 1 { "error" } else { "errors" }
            ))
        };
        out.push_str(&renderer.render(&[Group::with_title(title)]));
        out.push('\n');
        out
    }

    fn render_one(&self, renderer: &Renderer, d: &Diagnostic) -> String {
        let level = if d.is_warning() {
            Level::WARNING
        } else {
            Level::ERROR
        };
        let title = level.primary_title(d.message.as_str());
        let mut group = Group::with_title(title);
        if d.loc.line != 0 {
            // Only the lines between the first and the last annotation are
            // handed to the renderer, so rendering many problems of a large
            // file does not re-scan the whole file each time.
            let primary = self.span(d.loc);
            let related: Vec<(std::ops::Range<usize>, &str)> = d
                .related
                .iter()
                .filter(|(loc, _)| loc.line != 0)
                .map(|(loc, label)| (self.span(*loc), label.as_str()))
                .collect();
            let src = self.source.as_str();
            let (mut first_line, mut lo, mut hi) = (d.loc.line, primary.start, primary.end);
            for ((loc, _), (span, _)) in d.related.iter().filter(|(l, _)| l.line != 0).zip(&related)
            {
                if span.start < lo {
                    lo = span.start;
                    first_line = loc.line;
                }
                hi = hi.max(span.end);
            }
            let from = src[..lo].rfind('\n').map_or(0, |i| i + 1);
            let to = src[hi..].find('\n').map_or(src.len(), |i| hi + i);
            let shift = |r: &std::ops::Range<usize>| r.start - from..r.end - from;
            let mut snippet = Snippet::source(&src[from..to])
                .line_start(first_line)
                .path(self.file_name.as_str());
            let primary = AnnotationKind::Primary.span(shift(&primary));
            snippet = snippet.annotation(match &d.label {
                Some(label) => primary.label(label.as_str()),
                None => primary,
            });
            for (span, label) in &related {
                snippet =
                    snippet.annotation(AnnotationKind::Context.span(shift(span)).label(*label));
            }
            group = group.element(snippet);
        } else {
            group = group.element(Origin::path(self.file_name.as_str()));
        }
        if let Some(help) = &d.help {
            group = group.element(Level::HELP.message(help.as_str()));
        }
        renderer.render(&[group])
    }

    /// A byte range that is safe to hand to the renderer: inside the source,
    /// on character boundaries, and not spanning past the first line (a
    /// multi-line underline of a whole mapping says less than a caret).
    fn span(&self, loc: Loc) -> std::ops::Range<usize> {
        let src = self.source.as_str();
        let mut start = loc.start.min(src.len());
        while !src.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = loc.end.clamp(start, src.len());
        while !src.is_char_boundary(end) {
            end += 1;
        }
        if let Some(nl) = src[start..end].find('\n') {
            end = start + nl;
        }
        // Trailing whitespace of a block scalar is not worth underlining.
        let trimmed = src[start..end].trim_end().len();
        if trimmed > 0 {
            end = start + trimmed;
        }
        start..end
    }

    /// One [`Diagnostic::one_line`] per problem, joined by newlines.
    pub fn one_lines(&self) -> String {
        self.items
            .iter()
            .map(|d| d.one_line(&self.file_name))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

/// The closest of `candidates` to `word`, if one is close enough to be a
/// plausible typo (same rule of thumb as rustc: an edit distance of at most
/// a third of the word's length, or equal ignoring case), else the one
/// candidate that `word` abbreviates (`int` for `integer`, `bool` for
/// `boolean`: the spellings other languages use).
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let max = (word.chars().count() / 3).max(1);
    let lower = word.to_lowercase();
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    let close = candidates
        .iter()
        .filter_map(|&c| {
            if c.to_lowercase() == lower {
                return Some((0, c));
            }
            let d = strsim::damerau_levenshtein(word, c);
            (d <= max).then_some((d, c))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c);
    close.or_else(|| {
        if word.chars().count() < 3 {
            return None;
        }
        let mut prefixed = candidates
            .iter()
            .filter(|c| c.to_lowercase().starts_with(&lower));
        match (prefixed.next(), prefixed.next()) {
            (Some(&c), None) => Some(c),
            _ => None,
        }
    })
}

/// `help: did you mean `x`?` when a candidate is close, otherwise a list of
/// what is allowed.
pub fn suggest(word: &str, candidates: &[&str], what: &str) -> String {
    match did_you_mean(word, candidates.iter().copied()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => format!("{what}: {}", list(candidates)),
    }
}

/// `` `a`, `b` or `c` ``.
pub fn list(items: &[&str]) -> String {
    join(items, "or")
}

/// `` `a`, `b` and `c` ``.
pub fn list_all(items: &[&str]) -> String {
    join(items, "and")
}

fn join(items: &[&str], conjunction: &str) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    match quoted.len() {
        0 => String::new(),
        1 => quoted[0].clone(),
        n => format!(
            "{} {conjunction} {}",
            quoted[..n - 1].join(", "),
            quoted[n - 1]
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        assert_eq!(did_you_mean("titel", ["title", "message"]), Some("title"));
        assert_eq!(did_you_mean("Title", ["title", "message"]), Some("title"));
        assert_eq!(did_you_mean("zzz", ["title", "message"]), None);
        // An abbreviation of exactly one candidate.
        assert_eq!(did_you_mean("int", ["string", "integer"]), Some("integer"));
        assert_eq!(did_you_mean("bool", ["boolean", "string"]), Some("boolean"));
        assert_eq!(did_you_mean("in", ["integer"]), None, "too short");
        assert_eq!(did_you_mean("str", ["string", "strict"]), None, "ambiguous");
    }

    #[test]
    fn renders_caret_and_help() {
        let source = "codes:\n  X:\n    titel: a\n";
        let d = Diagnostic::new(
            Loc {
                line: 3,
                col: 5,
                start: 16,
                end: 21,
            },
            "unknown key `titel` in code `X`",
        )
        .with_help("did you mean `title`?");
        let all = Diagnostics::new("errors.yaml", source, vec![d]);
        let text = all.render();
        assert!(
            text.contains("error: unknown key `titel` in code `X`"),
            "{text}"
        );
        assert!(text.contains("--> errors.yaml:3:5"), "{text}");
        assert!(text.contains("^^^^^"), "{text}");
        assert!(text.contains("help: did you mean `title`?"), "{text}");
        assert_eq!(
            all.one_lines(),
            "errors.yaml:3:5: unknown key `titel` in code `X`"
        );
    }

    #[test]
    fn file_level_problem_renders_without_snippet() {
        let all = Diagnostics::new(
            "x.yaml",
            "",
            vec![Diagnostic::new(
                Loc::default(),
                "cannot read `x.yaml`: gone",
            )],
        );
        assert!(
            all.render()
                .starts_with("error: cannot read `x.yaml`: gone")
        );
        assert_eq!(all.one_lines(), "x.yaml: cannot read `x.yaml`: gone");
    }
}
