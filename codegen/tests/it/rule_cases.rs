//! The rule fixtures: specs that each break one rule of `check`, with the
//! exact diagnostics they must produce.
//!
//! A rule whose case needs a spec of its own is a file in
//! `tests/fixtures/rules/`. Most rules are broken by changing a line or two
//! of one valid spec, `tests/fixtures/rule-variants/base.yaml`; those cases
//! are patches of it in `tests/fixtures/rule-variants/cases.diff` (the
//! format: `variants`). Both kinds end in the same `# expect: LINE:COL:
//! message` lines and are reported under the same name, `rules/<name>.yaml`,
//! whichever file holds them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::variants::{self, EXPECT};

/// One spec that breaks a rule.
pub struct RuleCase {
    /// The rule's name: its file's stem, or its `== NAME` in `cases.diff`.
    pub name: String,
    /// The spec as `check` reads it, `# expect:` lines included.
    pub text: String,
    /// The diagnostics it must produce, one `LINE:COL: message` each.
    pub expected: Vec<String>,
    /// Its file in `rules/`, if it has one (else it is in `cases.diff`).
    file: Option<PathBuf>,
}

const VARIANTS: &str = "rule-variants";

/// Every rule case, from both places, sorted by name. Panics with the
/// place of the mistake on a malformed `cases.diff` or a name used twice.
pub fn all() -> Vec<RuleCase> {
    let mut cases = Vec::new();
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    for entry in std::fs::read_dir(rules).unwrap() {
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
    for variant in variants::read(VARIANTS) {
        // Laid out as the files are: the spec, an empty line, the
        // expectations.
        let mut text = variant.text;
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
/// diagnostics), in its file or in `cases.diff`; a case `actual` lacks (one
/// that loaded without a diagnostic, reported by the test) keeps its own.
pub fn bless(cases: &[RuleCase], actual: &BTreeMap<String, Vec<String>>) {
    for case in cases {
        let (Some(path), Some(lines)) = (&case.file, actual.get(&case.name)) else {
            continue;
        };
        let mut text: String = case
            .text
            .lines()
            .filter(|l| !l.starts_with(EXPECT))
            .map(|l| format!("{l}\n"))
            .collect();
        for a in lines {
            text.push_str(&format!("{EXPECT}{a}\n"));
        }
        std::fs::write(path, text).unwrap();
    }
    variants::bless(VARIANTS, actual);
}
