//! The rule fixtures: specs that each break one rule of `check`, with the
//! exact diagnostics they must produce.
//!
//! A rule whose case needs a spec of its own is a file in
//! `tests/fixtures/rules/`. Most rules are broken by changing a line or two
//! of one valid spec, `tests/fixtures/rule-variants/base.yaml`; those cases
//! are written as patches of it in `tests/fixtures/rule-variants/cases.diff`,
//! so each shows only what it changes. Both kinds end in the same
//! `# expect: LINE:COL: message` lines and are reported under the same name,
//! `rules/<name>.yaml`, whichever file holds them.
//!
//! The format of `cases.diff`: `#` lines before the first case are comments.
//! `== NAME` starts a case; `@@` starts one of its hunks. In a hunk, a line
//! starting with a space is context, `-` a line of the base the case removes,
//! `+` a line it adds; an empty line is an empty context line. The context
//! and removed lines of a hunk, in order, must occur exactly once in the
//! base, and the hunks of a case must not overlap: the case is the base
//! with each hunk's lines replaced by its context and added lines. The
//! case's `# expect:` lines follow its hunks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One spec that breaks a rule.
pub struct RuleCase {
    /// The rule's name: its file's stem, or its `== NAME` in `cases.diff`.
    pub name: String,
    /// The spec as `check` reads it, `# expect:` lines included.
    pub text: String,
    /// The diagnostics it must produce, one `LINE:COL: message` each.
    pub expected: Vec<String>,
    /// Whether it lives in `rules/` (else in `cases.diff`).
    file: Option<PathBuf>,
}

const EXPECT: &str = "# expect: ";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn cases_path() -> PathBuf {
    fixtures().join("rule-variants/cases.diff")
}

/// Every rule case, from both places, sorted by name. Panics with the
/// place of the mistake on a malformed `cases.diff` or a name used twice.
pub fn all() -> Vec<RuleCase> {
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(fixtures().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = text
            .lines()
            .filter_map(|l| l.strip_prefix(EXPECT))
            .map(str::to_string)
            .collect();
        cases.push(RuleCase {
            name: path.file_stem().unwrap().to_str().unwrap().to_string(),
            text,
            expected,
            file: Some(path),
        });
    }
    let base = std::fs::read_to_string(fixtures().join("rule-variants/base.yaml")).unwrap();
    let base: Vec<&str> = base.lines().collect();
    for variant in parse(&std::fs::read_to_string(cases_path()).unwrap()).cases {
        let mut text = String::new();
        for line in compose(&base, &variant) {
            text.push_str(line);
            text.push('\n');
        }
        text.push('\n');
        for e in &variant.expected {
            text.push_str(&format!("{EXPECT}{e}\n"));
        }
        cases.push(RuleCase {
            name: variant.name,
            text,
            expected: variant.expected,
            file: None,
        });
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    for pair in cases.windows(2) {
        assert_ne!(
            pair[0].name, pair[1].name,
            "two rule cases are named `{}` (a file in rules/ and a case of cases.diff?)",
            pair[0].name
        );
    }
    cases
}

/// Rewrites each case's `# expect:` lines to `actual` (its name to its
/// diagnostics), in its file or in `cases.diff`.
pub fn bless(cases: &[RuleCase], actual: &BTreeMap<String, Vec<String>>) {
    for case in cases {
        let Some(path) = &case.file else { continue };
        let mut text: String = case
            .text
            .lines()
            .filter(|l| !l.starts_with(EXPECT))
            .map(|l| format!("{l}\n"))
            .collect();
        for a in &actual[&case.name] {
            text.push_str(&format!("{EXPECT}{a}\n"));
        }
        std::fs::write(path, text).unwrap();
    }
    let file = parse(&std::fs::read_to_string(cases_path()).unwrap());
    let mut out = format!("{}\n", file.header.concat().trim_end());
    for case in &file.cases {
        out.push_str(&format!("\n== {}\n", case.name));
        for hunk in &case.hunks {
            out.push_str("@@\n");
            for line in &hunk.lines {
                out.push_str(line);
                out.push('\n');
            }
        }
        for a in &actual[&case.name] {
            out.push_str(&format!("{EXPECT}{a}\n"));
        }
    }
    std::fs::write(cases_path(), out).unwrap();
}

struct CasesFile {
    /// The comment lines before the first case, each with its newline.
    header: Vec<String>,
    cases: Vec<Variant>,
}

struct Variant {
    name: String,
    /// Where `== NAME` is in `cases.diff` (1-based), for messages.
    line: usize,
    hunks: Vec<Hunk>,
    expected: Vec<String>,
}

struct Hunk {
    /// Where its `@@` is in `cases.diff` (1-based), for messages.
    line: usize,
    /// Its lines as written, without the `@@`.
    lines: Vec<String>,
}

impl Hunk {
    /// The lines of the base it replaces (context and `-`), or, with
    /// `new`, the lines it puts there (context and `+`).
    fn side(&self, new: bool) -> Vec<&str> {
        let keep = if new { '+' } else { '-' };
        self.lines
            .iter()
            .filter_map(|l| match l.chars().next() {
                None => Some(""),
                Some(' ') => Some(&l[1..]),
                Some(c) if c == keep => Some(&l[1..]),
                _ => None,
            })
            .collect()
    }
}

fn parse(text: &str) -> CasesFile {
    let mut file = CasesFile {
        header: Vec::new(),
        cases: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        let place = || format!("tests/fixtures/rule-variants/cases.diff:{}", i + 1);
        if let Some(name) = raw.strip_prefix("== ") {
            file.cases.push(Variant {
                name: name.trim().to_string(),
                line: i + 1,
                hunks: Vec::new(),
                expected: Vec::new(),
            });
            continue;
        }
        let Some(case) = file.cases.last_mut() else {
            assert!(
                raw.is_empty() || raw.starts_with('#'),
                "{}: only comments come before the first `== NAME`",
                place()
            );
            file.header.push(format!("{raw}\n"));
            continue;
        };
        if let Some(e) = raw.strip_prefix(EXPECT) {
            case.expected.push(e.to_string());
        } else if raw.is_empty() && (case.hunks.is_empty() || !case.expected.is_empty()) {
            // Between cases.
        } else if !case.expected.is_empty() {
            panic!(
                "{}: the `# expect:` lines of case `{}` come after its hunks",
                place(),
                case.name
            );
        } else if raw == "@@" {
            case.hunks.push(Hunk {
                line: i + 1,
                lines: Vec::new(),
            });
        } else if let Some(hunk) = case.hunks.last_mut()
            && (raw.is_empty() || raw.starts_with([' ', '-', '+']))
        {
            hunk.lines.push(raw.to_string());
        } else {
            panic!(
                "{}: expected `@@`, a hunk line (` `, `-`, `+`) or `# expect:`, found {raw:?}",
                place()
            );
        }
    }
    for case in &mut file.cases {
        // Empty lines that end a hunk separate it from what follows.
        for hunk in &mut case.hunks {
            while hunk.lines.last().is_some_and(|l| l.is_empty()) {
                hunk.lines.pop();
            }
        }
        assert!(
            !case.hunks.is_empty(),
            "tests/fixtures/rule-variants/cases.diff:{}: case `{}` has no hunk",
            case.line,
            case.name
        );
    }
    file
}

/// The base with each hunk of `case` applied.
fn compose<'a>(base: &[&'a str], case: &'a Variant) -> Vec<&'a str> {
    let mut edits: Vec<(usize, &Hunk)> = case
        .hunks
        .iter()
        .map(|h| {
            let old = h.side(false);
            let starts: Vec<usize> = (0..base.len())
                .filter(|&s| base[s..].starts_with(&old))
                .collect();
            assert!(
                starts.len() == 1,
                "tests/fixtures/rule-variants/cases.diff:{}: the hunk's context and removed lines \
                 occur {} times in base.yaml, not once (add context lines)",
                h.line,
                starts.len()
            );
            (starts[0], h)
        })
        .collect();
    edits.sort_by_key(|&(s, _)| s);
    let mut out = Vec::new();
    let mut next = 0;
    for (start, h) in edits {
        assert!(
            start >= next,
            "tests/fixtures/rule-variants/cases.diff:{}: the hunk overlaps another of case `{}`",
            h.line,
            case.name
        );
        out.extend_from_slice(&base[next..start]);
        out.extend(h.side(true));
        next = start + h.side(false).len();
    }
    out.extend_from_slice(&base[next..]);
    out
}
