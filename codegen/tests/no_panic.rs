//! The loader never panics, whatever it is given: arbitrary text, and
//! near-misses of a valid spec (flipped bytes, truncations, deleted lines),
//! which reach much deeper into the loader and validator than random text.
//! Rendering the resulting diagnostics must not panic either (the byte
//! ranges handed to the renderer come from the same code), nor may comparing
//! a mutant that still loads with the original.

use proptest::prelude::*;
use splice_codegen::diff::diff;
use splice_codegen::load_str;

const VALID: &str = include_str!("fixtures/valid.yaml");

/// Loads `source`; on failure renders every form of the diagnostics; on
/// success compares it with the valid fixture both ways (a mutant that
/// still loads is a plausible next version of the spec).
fn exercise(source: &str) {
    match load_str(source, "fuzz.yaml") {
        Err(d) => {
            assert!(
                !d.items.is_empty(),
                "an error without diagnostics for {source:?}"
            );
            let _ = d.render();
            let _ = d.one_lines();
        }
        Ok(spec) => {
            let valid = load_str(VALID, "valid.yaml").expect("the fixture is valid");
            for report in [diff(&valid, &spec), diff(&spec, &valid)] {
                let _ = report.render("fuzz.yaml");
            }
            let same = diff(&spec, &spec);
            assert!(same.changes.is_empty() && same.is_acceptable(), "{same:#?}");
        }
    }
}

/// 500 cases per property by default (about a second in debug);
/// `PROPTEST_CASES=100000` for a long run.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(500);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_text(source in "\\PC{0,200}") {
        exercise(&source);
    }

    #[test]
    fn yaml_ish_text(source in "([a-z_{}\\[\\]:,&*!|>\"' #-]|\\n|  ){0,300}") {
        exercise(&source);
    }

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn flipped_bytes(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let mut bytes = VALID.as_bytes().to_vec();
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn truncated(at in any::<prop::sample::Index>()) {
        let bytes = &VALID.as_bytes()[..at.index(VALID.len() + 1)];
        exercise(&String::from_utf8_lossy(bytes));
    }

    #[test]
    fn deleted_and_duplicated_lines(
        deletes in proptest::collection::vec(any::<prop::sample::Index>(), 1..4),
        dup in any::<prop::sample::Index>(),
    ) {
        let mut lines: Vec<&str> = VALID.lines().collect();
        for at in deletes {
            if !lines.is_empty() {
                lines.remove(at.index(lines.len()));
            }
        }
        if !lines.is_empty() {
            let i = dup.index(lines.len());
            lines.insert(i, lines[i]);
        }
        exercise(&lines.join("\n"));
    }
}

#[test]
fn edge_cases() {
    for source in [
        "",
        "\n",
        "~",
        "just a scalar",
        "- a\n- b\n",
        "{}",
        "taxonomy:",
        "codes: {A: }",
        "codes:\n  ? [complex, key]\n  : 1\n",
        "\u{feff}taxonomy: {}\n",
        "taxonomy: {name: x, version: 1.0.0, base_uri: 'a:b'}\ncategories: {}\ncodes: {}\n",
        &"[".repeat(50_000),
        &"- ".repeat(5_000),
        &"{a: ".repeat(1_000),
        "message: \"\\u00e9{x}\"\n",
        "\t\tbad: indent\n",
        "a: 'unterminated\n",
        "a: |\n  \u{1F600}\n  {{}\n",
    ] {
        exercise(source);
    }
}
