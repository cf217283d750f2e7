//! The loader never panics, whatever it is given: arbitrary text, and
//! near-misses of a valid spec (flipped bytes, truncations, deleted lines),
//! which reach much deeper into the loader and validator than random text.
//! Rendering the resulting diagnostics must not panic either (the byte
//! ranges handed to the renderer come from the same code), nor may comparing
//! a mutant that still loads with the original.

use proptest::prelude::*;
use splice_codegen::diff::diff;
use splice_codegen::load_str;

const VALID: &str = include_str!("../fixtures/valid.yaml");

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

/// Soundness of the checks: specs assembled from a grammar of plausible
/// parts (valid or not) either fail with diagnostics, or load into a
/// [`Spec`] that really has the invariants `spec.rs` promises the emitters.
mod soundness {
    use super::*;
    use splice_codegen::spec::{Lifecycle, Spec};

    fn pick<T: Clone + std::fmt::Debug + 'static>(items: &'static [T]) -> impl Strategy<Value = T> {
        proptest::sample::select(items)
    }

    /// Usually right, sometimes wrong: 9 times in 10 `good`.
    fn mostly(
        good: &'static str,
        bad: &'static [&'static str],
    ) -> impl Strategy<Value = &'static str> {
        prop_oneof![9 => Just(good), 1 => pick(bad)]
    }

    /// The standard categories, sometimes with an extra, conflicting one.
    fn categories() -> impl Strategy<Value = String> {
        let extra = prop_oneof![
            9 => Just(""),
            1 => pick(&[
                "  Bad: { range: [5000, 5999], description: d, retryable: false, cause: server }\n",
                "  overlap: { range: [2500, 2999], description: d, retryable: false, cause: server }\n",
                "  wide: { range: [6000, 7999], description: d, retryable: false, cause: server }\n",
                "  domain: { range: [3000, 3999], description: d, retryable: false, cause: input }\n",
                "  odd: { range: [8000, 8999], description: d, retryable: false, cause: user }\n",
            ]),
        ];
        (any::<bool>(), extra).prop_map(|(retryable, extra)| {
            format!(
                "  validation: {{ range: [1000, 1999], description: d, retryable: true, cause: input }}\n  \
                 domain: {{ range: [2000, 2999], description: d, retryable: {retryable}, cause: input }}\n  \
                 external: {{ range: [4000, 4999], description: d, retryable: false, cause: environment }}\n{extra}"
            )
        })
    }

    /// Message, params, hints and context that fit together, or one of
    /// the ways they can disagree.
    const BODIES: &[&str] = &[
        "    message: plain\n    recovery_hints: [retry]\n",
        "    message: \"at {file_path}\"\n    recovery_hints: [retry]\n    context: { required: [file_path], optional: [backup_path] }\n",
        "    message: \"with {p}\"\n    params: { p: { type: string, description: d } }\n    recovery_hints: [\"use {p}\"]\n",
        "    message: \"{{literal}} {edit_index}\"\n    recovery_hints: [\"edit {edit_index}\"]\n    context: { required: [edit_index, edit_status], optional: [snippet] }\n",
        "    message: \"see {edit_status}\"\n    recovery_hints: [retry]\n    context: { required: [edit_status] }\n",
        "    message: \"{bad\"\n    recovery_hints: [retry]\n",
        "    message: \"{snippet}\"\n    recovery_hints: [retry]\n    context: { optional: [snippet] }\n",
        "    message: plain\n    params: { file_path: { type: integer, description: d } }\n    recovery_hints: [retry]\n",
        "    message: plain\n    recovery_hints: []\n",
        "    message: plain\n    recovery_hints: [\"\"]\n",
        "    message: plain\n    recovery_hints: [retry]\n    context: { required: [snippet], optional: [snippet] }\n",
    ];

    /// The `i`-th code: its name and number are unique unless the
    /// generator decides otherwise.
    fn code(i: usize) -> impl Strategy<Value = String> {
        const NAMES: &[&str] = &["A_B", "MATCH", "X_Y", "Z_W", "V_U"];
        (
            mostly("unique", &["bad_name", "duplicate"]),
            prop_oneof![8 => Just("validation"), 8 => Just("domain"), 8 => Just("external"), 1 => Just("nope")],
            mostly("unique", &["2000", "1000", "99999"]),
            mostly("1.0.0", &["1.1.0", "2.0.0"]),
            mostly("a title", &["A title", "a title."]),
            prop_oneof![8 => pick(&BODIES[..4]), 2 => pick(&BODIES[4..])],
            prop_oneof![
                12 => Just(String::new()),
                1 => Just("    deprecated: { since: 1.0.0, replaced_by: A_B }\n".to_string()),
                1 => Just("    deprecated: { since: 1.0.0, replaced_by: MATCH }\n".to_string()),
                1 => Just("    removed: { since: 1.0.0, reason: r }\n".to_string()),
                1 => Just("    deprecated: { since: 1.0.0 }\n".to_string()),
            ],
        )
            .prop_map(move |(name, category, number, since, title, body, lifecycle)| {
                let name = match name {
                    "unique" => NAMES[i % NAMES.len()],
                    "duplicate" => NAMES[0],
                    other => other,
                };
                let base = match category {
                    "validation" => 1000,
                    "external" => 4000,
                    _ => 2000,
                };
                let number = match number {
                    "unique" => (base + i).to_string(),
                    other => other.to_string(),
                };
                format!(
                    "  {name}:\n    number: {number}\n    category: {category}\n    since: {since}\n    title: {title}\n{body}{lifecycle}    explanation: e\n"
                )
            })
    }

    /// The declarations the generated codes name (splice's format-1 vocabulary).
    const DECLARATIONS: &str = include_str!("../../src/format1_declarations.yaml");

    fn spec() -> impl Strategy<Value = String> {
        let codes = (0..5usize).map(code).collect::<Vec<_>>();
        (
            mostly("1.1.0", &["1.0.0"]),
            categories(),
            0..=5usize,
            codes,
        )
            .prop_map(|(version, categories, n, codes)| {
                format!(
                    "taxonomy: {{ name: t, version: {version}, base_uri: \"schema://t\" }}\ncategories:\n{categories}{DECLARATIONS}codes:\n{}",
                    codes[..n].concat()
                )
            })
    }

    fn placeholders(template: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = template;
        while let Some(i) = rest.find(['{', '}']) {
            let tail = &rest[i..];
            if tail.starts_with("{{") || tail.starts_with("}}") {
                rest = &tail[2..];
            } else if let (true, Some(end)) = (tail.starts_with('{'), tail.find('}')) {
                out.push(&tail[1..end]);
                rest = &tail[end + 1..];
            } else {
                panic!("a spec with a lone brace loaded: {template:?}");
            }
        }
        out
    }

    fn assert_invariants(spec: &Spec, source: &str) {
        for (i, c) in spec.codes.iter().enumerate() {
            let cat = spec
                .category(&c.category.value)
                .unwrap_or_else(|| panic!("unknown category loaded:\n{source}"));
            if !cat.ranges.is_empty() {
                assert!(
                    cat.ranges
                        .iter()
                        .any(|r| c.number().is_some_and(|n| r.value.0 <= n && n <= r.value.1)),
                    "number outside range loaded:\n{source}"
                );
            }
            assert!(
                spec.codes[..i]
                    .iter()
                    .all(|d| c.number().is_none() || d.number() != c.number()),
                "duplicate number loaded:\n{source}"
            );
            assert!(
                c.name
                    .value
                    .chars()
                    .all(|ch| ch.is_ascii_uppercase() || ch == '_'),
                "bad name loaded:\n{source}"
            );
            assert!(
                !c.title.value.starts_with(char::is_uppercase) && !c.title.value.ends_with('.'),
                "bad title loaded:\n{source}"
            );
            if let Lifecycle::Deprecated { replaced_by, .. } = &c.lifecycle {
                let target = spec
                    .code(&replaced_by.value)
                    .unwrap_or_else(|| panic!("unknown replacement loaded:\n{source}"));
                assert!(
                    target.name.value != c.name.value
                        && matches!(target.lifecycle, Lifecycle::Active),
                    "bad replacement loaded:\n{source}"
                );
            }
            if c.is_emitted() {
                assert!(
                    !c.recovery_hints.is_empty(),
                    "code without hints loaded:\n{source}"
                );
            }
            for f in &c.optional_context {
                assert!(
                    c.required_context.iter().all(|r| r.value != f.value),
                    "contradictory context loaded:\n{source}"
                );
            }
            let mut used = Vec::new();
            for t in
                std::iter::once(&c.message.value).chain(c.recovery_hints.iter().map(|h| &h.value))
            {
                for name in placeholders(t) {
                    used.push(name);
                    let is_param = c.params.iter().any(|p| p.name.value == name);
                    let is_field = c.required_context.iter().any(|r| {
                        r.value == name && spec.field(name).is_some_and(|f| f.is_scalar())
                    });
                    assert!(
                        is_param || is_field,
                        "unresolvable placeholder {name} loaded:\n{source}"
                    );
                }
            }
            for p in &c.params {
                assert!(
                    used.contains(&p.name.value.as_str()),
                    "unused parameter loaded:\n{source}"
                );
                assert!(
                    spec.field(&p.name.value).is_none(),
                    "parameter named like a field loaded:\n{source}"
                );
            }
        }
        for (i, a) in spec.categories.iter().enumerate() {
            for b in &spec.categories[..i] {
                for (a, b) in a
                    .ranges
                    .iter()
                    .flat_map(|a| b.ranges.iter().map(move |b| (a, b)))
                {
                    assert!(
                        a.value.0 > b.value.1 || b.value.0 > a.value.1,
                        "overlap loaded:\n{source}"
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn loaded_specs_keep_their_invariants(source in spec()) {
            match load_str(&source, "gen.yaml") {
                Ok(spec) => assert_invariants(&spec, &source),
                Err(d) => {
                    assert!(!d.items.is_empty());
                    let _ = d.render();
                }
            }
        }
    }

    /// The grammar can produce valid specs at all (otherwise the property
    /// above would only ever see errors).
    #[test]
    fn the_grammar_reaches_valid_specs() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let valid = (0..2000)
            .filter(|_| {
                let source = spec().new_tree(&mut runner).unwrap().current();
                load_str(&source, "gen.yaml").is_ok()
            })
            .count();
        eprintln!("{valid} of 2000 generated specs are valid");
        assert!(
            valid > 20,
            "only {valid} of 2000 generated specs were valid"
        );
    }
}

/// The path of `taxonomy!` (load and check, then the Rust emitter) never
/// panics on hostile texts and names, and what it accepts expands to Rust that parses: a spec's problem is a diagnostic,
/// never "proc macro panicked". Each case puts one hostile string in one
/// place of the valid fixture: a text (doc, title, explanation, taxonomy
/// name), a member, type, field, code or enum value name, or a wire name.
mod macro_path {
    use super::*;
    use splice_codegen::emit_rust;

    /// Strings that end a literal, a comment or an identifier somewhere.
    const HOSTILE: &[&str] = &[
        "\"",
        "\\",
        "*/",
        "\"\"\"",
        "`",
        "{x}",
        "{{",
        "}",
        "#",
        "r#type",
        "type",
        "self",
        "Self",
        "crate",
        "super",
        "_",
        "__proto__",
        "1x",
        "a-b",
        "é",
        "日本",
        "None",
        "Record",
        "build",
        "new",
        "ErrorEnvelope",
        "ErrorCode",
        "A1_B",
        "x\u{202E}y",
        "x\u{2028}y",
        "x\u{0}y",
        "x\ry",
        "</script>",
        "$ref",
        "@type",
        "",
        " ",
        "'",
        "%s",
        "\\u0000",
        "gen",
        "async",
        "await",
        "try",
        "dyn",
        "abstract",
    ];

    /// Where a hostile string goes: what to replace in the fixture, and how
    /// the string is written there.
    const PLACES: &[&str] = &[
        "doc: \"1-based line number of the first character of the match.\"",
        "title: the path is not absolute",
        "  MatchLocation:",
        "      line:\n",
        "  file_path:\n    type: string",
        "  name: fixture",
        "  RELATIVE_PATH:",
        "enum: [failed, skipped]",
        "      line:\n        type: integer\n",
    ];

    fn place(valid: &str, at: usize, text: &str, hashes: usize) -> String {
        let text = format!("{text}{}", "#".repeat(hashes));
        let quoted = serde_json::to_string(&text).expect("a JSON string is YAML");
        let with = match PLACES[at] {
            p if p.starts_with("doc:") => format!("doc: {quoted}"),
            p if p.starts_with("title:") => format!("title: {quoted}"),
            "  MatchLocation:" => format!("  {quoted}:"),
            "      line:\n" => format!("      {quoted}:\n"),
            p if p.starts_with("  file_path:") => format!("  {quoted}:\n    type: string"),
            "  name: fixture" => format!("  name: {quoted}"),
            "  RELATIVE_PATH:" => format!("  {quoted}:"),
            "enum: [failed, skipped]" => format!("enum: [failed, {quoted}]"),
            _ => format!("      line:\n        type: integer\n        wire: {quoted}\n"),
        };
        valid.replacen(PLACES[at], &with, 1)
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn hostile_texts_and_names_never_panic_the_macro_path(
            at in 0..PLACES.len(),
            text in proptest::sample::select(HOSTILE),
            hashes in prop_oneof![3 => Just(0usize), 1 => 250usize..=300],
        ) {
            let source = place(VALID, at, text, hashes);
            prop_assert_ne!(&source, VALID);
            if let Ok(spec) = load_str(&source, "hostile.yaml")
                && let Err(e) = syn::parse2::<syn::File>(emit_rust::emit(&spec))
            {
                panic!("the expansion does not parse ({e}) for {text:?} at {}", PLACES[at]);
            }
        }
    }
}
