//! Test cases written as patches of one base file: `tests/fixtures/DIR/base.yaml`
//! and `tests/fixtures/DIR/cases.diff`, so a case that changes a line or two
//! of a spec shows only what it changes. The rule fixtures of `check`
//! (`rule_cases`) and the rules of `diff` (`diff_rules`) are written so.
//!
//! The format of `cases.diff`: `#` lines before the first case are comments.
//! `== NAME` starts a case; `@@` starts one of its hunks. In a hunk, a line
//! starting with a space is context, `-` a line of the base the case removes,
//! `+` a line it adds; an empty line is an empty context line. The context
//! and removed lines of a hunk, in order, must occur exactly once in the
//! base, and the hunks of a case must not overlap: the case is the base
//! with each hunk's lines replaced by its context and added lines. The
//! case's `# expect: ...` lines (what the test must see, one line each)
//! follow its hunks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const EXPECT: &str = "# expect: ";

/// One case of a `cases.diff`.
pub struct Variant {
    /// Its `== NAME`.
    pub name: String,
    /// The base with its hunks applied, each line ending in a newline.
    pub text: String,
    /// Its `# expect:` lines, without the prefix.
    pub expected: Vec<String>,
}

fn dir_path(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
}

/// The cases of `tests/fixtures/DIR/cases.diff`, in file order. Panics with
/// the place of the mistake on a malformed file.
pub fn read(dir: &str) -> Vec<Variant> {
    let base = std::fs::read_to_string(dir_path(dir).join("base.yaml")).unwrap();
    let base: Vec<&str> = base.lines().collect();
    let file = parse(dir);
    file.cases
        .iter()
        .map(|case| {
            let mut text = String::new();
            for line in compose(&base, case, dir) {
                text.push_str(line);
                text.push('\n');
            }
            Variant {
                name: case.name.clone(),
                text,
                expected: case.expected.clone(),
            }
        })
        .collect()
}

/// Rewrites the `# expect:` lines of every case of `DIR/cases.diff` to
/// `actual` (its name to its lines); a case `actual` lacks keeps its own.
pub fn bless(dir: &str, actual: &BTreeMap<String, Vec<String>>) {
    let file = parse(dir);
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
        for a in actual.get(&case.name).unwrap_or(&case.expected) {
            out.push_str(&format!("{EXPECT}{a}\n"));
        }
    }
    std::fs::write(dir_path(dir).join("cases.diff"), out).unwrap();
}

struct CasesFile {
    /// The comment lines before the first case, each with its newline.
    header: Vec<String>,
    cases: Vec<Case>,
}

struct Case {
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

fn parse(dir: &str) -> CasesFile {
    let text = std::fs::read_to_string(dir_path(dir).join("cases.diff")).unwrap();
    let mut file = CasesFile {
        header: Vec::new(),
        cases: Vec::new(),
    };
    for (i, raw) in text.lines().enumerate() {
        let place = || format!("tests/fixtures/{dir}/cases.diff:{}", i + 1);
        if let Some(name) = raw.strip_prefix("== ") {
            file.cases.push(Case {
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
            "tests/fixtures/{dir}/cases.diff:{}: case `{}` has no hunk",
            case.line,
            case.name
        );
    }
    file
}

/// The base with each hunk of `case` applied.
fn compose<'a>(base: &[&'a str], case: &'a Case, dir: &str) -> Vec<&'a str> {
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
                "tests/fixtures/{dir}/cases.diff:{}: the hunk's context and removed lines \
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
            "tests/fixtures/{dir}/cases.diff:{}: the hunk overlaps another of case `{}`",
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
