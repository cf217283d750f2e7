//! The loader's diagnostics, as a user sees them.

use std::collections::BTreeMap;
use std::path::Path;

use splice_codegen::load_str;
use splice_codegen::spec::{Cause, Lifecycle, Spec};

use crate::rule_cases;

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn valid_fixture_loads_with_every_feature() {
    let spec =
        load_str(&fixture("valid.yaml"), "valid.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
    assert_eq!(spec.taxonomy.version.value, semver::Version::new(1, 2, 0));
    assert_eq!(spec.categories.len(), 3);
    let names: Vec<_> = spec.codes.iter().map(|c| c.name.value.as_str()).collect();
    assert_eq!(
        names,
        [
            "RELATIVE_PATH",
            "MATCH_NOT_FOUND",
            "OLD_MISMATCH",
            "GONE_AWAY",
            "DISK_FULL"
        ]
    );
    let disk = spec.code("DISK_FULL").unwrap();
    assert!(disk.retryable, "override wins over the category default");
    assert!(disk.retryable_override.is_some());
    assert_eq!(disk.cause, Cause::Environment);
    let m = spec.code("MATCH_NOT_FOUND").unwrap();
    assert!(
        m.retryable && m.retryable_override.is_none(),
        "category default"
    );
    assert_eq!(m.params.len(), 2);
    assert_eq!(m.required_context.len(), 4);
    assert_eq!(m.optional_context.len(), 2);
    assert!(matches!(&spec.code("OLD_MISMATCH").unwrap().lifecycle,
        Lifecycle::Deprecated { replaced_by, .. } if replaced_by.value == "MATCH_NOT_FOUND"));
    assert!(!spec.code("GONE_AWAY").unwrap().is_emitted());
    let number = m.number.as_ref().expect("splice's codes are numbered");
    assert_eq!((number.loc.line, number.loc.col), (47, 13));
    assert_eq!(disk.example("os_error"), Some(&serde_json::json!("ENOSPC")));
    assert_eq!(
        spec.field("edit_status")
            .and_then(|f| f.example.as_ref())
            .map(|e| &e.value),
        Some(&serde_json::json!([
            {"edit_index": 1, "status": "failed", "error_code": "self"},
            {"edit_index": 2, "status": "skipped"}
        ]))
    );
    assert_eq!(
        spec.field("os_error")
            .and_then(|f| f.example.as_ref())
            .map(|e| &e.value),
        Some(&serde_json::json!("EIO"))
    );
}

/// The first YAML example of docs/spec-format.md after `heading` (after
/// the file's start for `""`): its text, loaded as a spec.
fn documented_example_text(heading: &str) -> (String, Spec) {
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/spec-format.md");
    let doc = std::fs::read_to_string(doc_path).unwrap();
    let section = &doc[doc.find(heading).expect("the section")..];
    let start = section.find("```yaml\n").expect("a yaml example") + "```yaml\n".len();
    let len = section[start..]
        .find("\n```\n")
        .expect("end of the example")
        + 1;
    let text = &section[start..start + len];
    let spec = load_str(text, "spec-format.md").unwrap_or_else(|d| panic!("{}", d.render()));
    (text.to_owned(), spec)
}

/// The first YAML example of docs/spec-format.md after `heading`, loaded.
fn documented_example(heading: &str) -> Spec {
    documented_example_text(heading).1
}

/// The complete annotated example of docs/spec-format.md is a valid spec.
#[test]
fn the_documented_example_loads() {
    let spec = documented_example("");
    assert_eq!(spec.codes.len(), 4);
    assert!(spec.codes.iter().any(|c| c.is_deprecated()));
    assert!(spec.codes.iter().any(|c| !c.is_emitted()));
}

/// The families example of docs/spec-format.md loads, and decides families
/// as the docs say: a listed name wins, the first matching family wins.
#[test]
fn the_documented_families_apply() {
    let spec = documented_example("### Code families");
    let family = |name: &str| spec.family_of(name).map(|f| f.name.value.as_str());
    assert_eq!(family("ThrottlingOnSunday"), Some("throttling"));
    assert_eq!(family("ThrottledOnSunday"), None);
    assert_eq!(family("ThrottlingException"), None);
    assert_eq!(family("QueueNotFoundException"), Some("not_found"));
    assert_eq!(family("ThrottlingNotFoundException"), Some("throttling"));
    let not_found = &spec.families[1];
    assert!(!spec.family_category(not_found).retryable.value);
}

/// The per-category `absent_means` example of docs/spec-format.md loads,
/// and the layout reads each listed category's envelope without a code as
/// the code the example names.
#[test]
fn the_documented_fallback_per_category_loads() {
    let spec = documented_example("#### A fallback per category");
    let layout = splice_codegen::layout::Layout::of(&spec);
    let fallbacks: Vec<(&str, &str)> = layout
        .discriminant()
        .absent
        .by_category()
        .iter()
        .map(|(k, c)| (*k, c.name.value.as_str()))
        .collect();
    assert_eq!(
        fallbacks,
        [
            ("api_error", "API_ERROR"),
            ("invalid_request_error", "INVALID_REQUEST")
        ]
    );
    assert!(
        !layout
            .discriminant()
            .absent
            .is_fallback(spec.code("CARD_DECLINED").unwrap())
    );
}

/// The codes-unique-within-their-category example of docs/spec-format.md
/// loads: both codes are `expired` on the wire, the layout reads the
/// category at `error.type`, and a pair tells each code.
#[test]
fn the_documented_codes_per_category_load() {
    let spec = documented_example("#### Codes unique within their category");
    assert!(spec.taxonomy.per_category());
    let layout = splice_codegen::layout::Layout::of(&spec);
    assert_eq!(layout.discriminant().category_names(), ["error", "type"]);
    let code = |category, name| {
        layout
            .code_of(category, name)
            .map(|c| c.name.value.as_str())
    };
    assert_eq!(code("card_error", "expired"), Some("EXPIRED_CARD"));
    assert_eq!(code("auth_error", "expired"), Some("EXPIRED_KEY"));
    assert_eq!(code("api_error", "expired"), None);
    // Without `per_category`, the same names are refused.
    let (text, _) = documented_example_text("#### Codes unique within their category");
    let unique = text.replace("  code_names: per_category\n", "");
    let error = load_str(&unique, "spec-format.md").unwrap_err().render();
    assert!(
        error.contains(
            "wire name `expired` of code `EXPIRED_KEY` is already used by code `EXPIRED_CARD`"
        ),
        "{error}"
    );
}

/// The list-of-errors example of docs/spec-format.md loads: the layout's
/// response holds `errors` (the list) and an optional `data` of any value,
/// and each entry's code is read at `extensions.code`.
#[test]
fn the_documented_list_of_errors_loads() {
    let spec = documented_example("#### A list of errors");
    let layout = splice_codegen::layout::Layout::of(&spec);
    let response = layout.response().expect("a response");
    let members: Vec<(&str, bool)> = response
        .members
        .iter()
        .map(|m| (m.name.value.as_str(), m.required))
        .collect();
    assert_eq!(members, [("errors", true), ("data", false)]);
    assert_eq!(response.list().name.value, "errors");
    assert_eq!(
        response.members[1].ty(),
        Some(&splice_codegen::context::FieldType::Json)
    );
    assert_eq!(layout.discriminant().names(), ["extensions", "code"]);
}

/// The example of "Category defaults and optional hints" in
/// docs/spec-format.md loads, and its codes have their category's values
/// unless they write their own.
#[test]
fn the_documented_category_defaults_apply() {
    let (text, spec) = documented_example_text("### Category defaults and optional hints");
    let not_found = spec.code("NOT_FOUND").unwrap();
    assert_eq!(not_found.message.value, "{text}");
    assert_eq!(not_found.params.len(), 1);
    assert_eq!(not_found.params[0].name.value, "text");
    assert!(not_found.recovery_hints.is_empty());
    let names = |list: &[splice_codegen::spec::Spanned<String>]| -> Vec<String> {
        list.iter().map(|n| n.value.clone()).collect()
    };
    assert_eq!(names(&not_found.required_context), ["code"]);
    let conflict = spec.code("CONFLICT").unwrap();
    assert_eq!(conflict.message.value, "conflict: {text}");
    assert_eq!(
        names(&conflict.recovery_hints),
        ["Read the resource again before retrying"]
    );
    assert_eq!(names(&conflict.required_context), ["code"]);
    // An inherited value is located where the category writes it.
    let category_line = text
        .lines()
        .position(|l| l.contains("message: \"{text}\""))
        .unwrap();
    assert_eq!(not_found.message.loc.line, category_line + 1);
}

#[test]
fn the_real_taxonomy_and_the_demo_fixture_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for path in [
        root.join("errors.yaml"),
        root.join("codegen/tests/fixtures/demo.yaml"),
    ] {
        if let Err(d) = splice_codegen::load_path(&path) {
            panic!("{}", d.render());
        }
    }
}

/// Every rule case (`rule_cases`) breaks one rule. Its `# expect: LINE:COL:
/// message` lines list exactly the diagnostics it must produce; the
/// rendered report is pinned by an insta snapshot.
///
/// `SPLICE_BLESS_EXPECT=1 cargo test` rewrites the expectations from the
/// current output (review the diff before committing).
#[test]
fn each_rule_has_its_diagnostic() {
    let cases = rule_cases::all();
    assert!(
        cases.len() >= 100,
        "expected one case per rule, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut actual_all = BTreeMap::new();
    for case in &cases {
        let name = &case.name;
        let file_name = format!("rules/{name}.yaml");
        let diags = match load_str(&case.text, &file_name) {
            Ok(_) => {
                failures.push(format!("{name}: loaded without any diagnostic"));
                continue;
            }
            Err(d) => d,
        };
        let actual: Vec<String> = diags.items.iter().map(|d| d.to_string()).collect();
        if actual != case.expected {
            failures.push(format!(
                "{name}:\n  expected {:#?}\n  actual   {actual:#?}",
                case.expected
            ));
        }
        actual_all.insert(name.clone(), actual);
        insta::assert_snapshot!(format!("rule_{name}"), diags.render());
    }
    if std::env::var_os("SPLICE_BLESS_EXPECT").is_some() {
        rule_cases::bless(&cases, &actual_all);
        return;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The base of the rule variants is itself valid, so each variant's
/// diagnostics come from what it changes.
#[test]
fn the_base_of_the_rule_variants_loads() {
    let base = fixture("rule-variants/base.yaml");
    if let Err(d) = load_str(&base, "rule-variants/base.yaml") {
        panic!("{}", d.render());
    }
}

/// House style of every diagnostic the fixtures produce: messages start
/// lowercase (or with an acronym or a `code` span) and, like help lines and
/// labels, have no final period.
#[test]
fn diagnostics_follow_the_house_style() {
    let mut sources = vec![fixture("broken.yaml")];
    sources.extend(rule_cases::all().into_iter().map(|case| case.text));
    let mut checked = 0;
    for source in sources {
        let Err(diags) = load_str(&source, "x.yaml") else {
            continue;
        };
        for d in &diags.items {
            let first_word = d.message.split_whitespace().next().unwrap_or("");
            let acronym = first_word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '-');
            let starts_ok = !d.message.starts_with(char::is_uppercase) || acronym;
            assert!(starts_ok, "message must start lowercase: {:?}", d.message);
            for text in [Some(&d.message), d.help.as_ref(), d.label.as_ref()]
                .into_iter()
                .flatten()
            {
                assert!(!text.ends_with('.'), "no final period: {text:?}");
                assert!(!text.contains('\n'), "one line: {text:?}");
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} diagnostics checked");
}

/// A spec with many different problems reports all of them at once, each
/// at its own line and column.
#[test]
fn broken_spec_reports_every_problem_at_once() {
    let diags =
        load_str(&fixture("broken.yaml"), "broken.yaml").expect_err("broken.yaml must not load");
    let actual: Vec<String> = diags
        .items
        .iter()
        .map(|d| d.one_line("broken.yaml"))
        .collect();
    let expected = [
        "broken.yaml:4:12: `version` of `taxonomy` must be a semver version, found a number",
        "broken.yaml:13:3: category key `Domain` is not lower_snake_case",
        "broken.yaml:14:12: `range` of category `Domain` overlaps category `validation`: [1500, 2999] and [1000, 1999]",
        "broken.yaml:14:12: `range` of category `Domain` spans more than one block of 1000: [1500, 2999]",
        "broken.yaml:16:16: `retryable` of category `Domain` must be `true` or `false`, found a string",
        "broken.yaml:17:12: unknown cause `user` in category `Domain`",
        "broken.yaml:19:3: code `match_not_found` is missing `title`",
        "broken.yaml:19:3: code name `match_not_found` is not SCREAMING_SNAKE_CASE",
        "broken.yaml:21:15: unknown category `domain` in code `match_not_found`",
        "broken.yaml:23:5: unknown key `titel` in code `match_not_found`",
        "broken.yaml:24:47: unknown placeholder `{file_pat}` in `message` of code `match_not_found`",
        "broken.yaml:25:21: `recovery_hints` of code `match_not_found` is empty",
        "broken.yaml:27:30: unknown context field `fille_path` in code `match_not_found`",
        "broken.yaml:28:18: context field `edit_index` of code `match_not_found` is both required and optional",
        "broken.yaml:31:13: `number` of code `EMPTY_EDITS` must be an integer, found a string",
        "broken.yaml:32:15: unknown category `validaton` in code `EMPTY_EDITS`",
        "broken.yaml:35:24: unbalanced `{` in `message` of code `EMPTY_EDITS`",
        "broken.yaml:37:22: unknown parameter type `int`",
        "broken.yaml:38:7: parameter `unused` of code `EMPTY_EDITS` is never used",
        "broken.yaml:40:9: empty hint in `recovery_hints` of code `EMPTY_EDITS`",
        "broken.yaml:43:13: number 2000 of code `DUPLICATE` is already used by code `match_not_found`",
        "broken.yaml:49:26: `deprecated.since` of code `DUPLICATE` is 1.0.0, before the code was introduced in 2.0.0",
        "broken.yaml:49:46: `replaced_by` of code `DUPLICATE` names unknown code `NOWHERE`",
        "broken.yaml:51:3: code `DUPLICATE` is defined twice",
    ];
    assert_eq!(actual, expected);
    let rendered = diags.render();
    assert!(
        rendered.ends_with("error: could not load `broken.yaml` due to 24 previous errors\n"),
        "{rendered}"
    );
    insta::assert_snapshot!("broken_spec", rendered);
}

#[test]
fn unreadable_and_non_utf8_files_are_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.yaml");
    let d = splice_codegen::load_path(&missing).unwrap_err();
    assert_eq!(d.items.len(), 1);
    assert!(d.items[0].message.starts_with("cannot read"), "{d:?}");
    assert!(d.render().contains("missing.yaml"));

    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, b"taxonomy:\n  name: \xff\xfe\n").unwrap();
    let d = splice_codegen::load_path(&bad).unwrap_err();
    assert_eq!(d.items[0].message, "the spec is not valid UTF-8");
    assert_eq!((d.items[0].loc.line, d.items[0].loc.col), (2, 9));
    assert!(d.render().contains("^"), "{}", d.render());
}

mod cli {
    //! Exit codes and streams of the `splice-codegen` binary.

    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
        let Output {
            status,
            stdout,
            stderr,
        } = Command::new(env!("CARGO_BIN_EXE_splice-codegen"))
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .output()
            .expect("run splice-codegen");
        (
            status.code().expect("exit code"),
            String::from_utf8(stdout).unwrap(),
            String::from_utf8(stderr).unwrap(),
        )
    }

    #[test]
    fn check_exit_codes() {
        let dir = tempfile::tempdir().unwrap();
        let valid = fixture("valid.yaml");
        let (code, out, err) = run(dir.path(), &["check", valid.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.starts_with("ok: ") && out.contains("5 codes (1 deprecated, 1 removed)"),
            "{out}"
        );

        let (code, out, err) = run(
            dir.path(),
            &["check", fixture("broken.yaml").to_str().unwrap()],
        );
        assert_eq!(code, 1);
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains("broken.yaml:51:3") && err.contains("due to 24 previous errors"),
            "{err}"
        );

        let broken = fixture("broken.yaml");
        let (code, _, err) = run(dir.path(), &["check", "--short", broken.to_str().unwrap()]);
        assert_eq!(code, 1);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 24, "{err}");
        assert!(
            lines[0].ends_with(
                "broken.yaml:4:12: `version` of `taxonomy` must be a semver version, found a number"
            ),
            "{err}"
        );
    }

    #[test]
    fn check_finds_the_spec_by_walking_up() {
        let dir = tempfile::tempdir().unwrap();
        let (code, _, err) = run(dir.path(), &["check"]);
        assert_eq!(code, 1);
        assert!(err.contains("no errors.yaml in"), "{err}");

        std::fs::copy(fixture("valid.yaml"), dir.path().join("errors.yaml")).unwrap();
        let nested = dir.path().join("a/b");
        std::fs::create_dir_all(&nested).unwrap();
        let (code, out, err) = run(&nested, &["check"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("taxonomy fixture 1.2.0"), "{out}");
    }

    #[test]
    fn diff_exit_codes() {
        let dir = tempfile::tempdir().unwrap();
        let valid = std::fs::read_to_string(fixture("valid.yaml")).unwrap();
        let old = dir.path().join("old.yaml");
        std::fs::write(&old, &valid).unwrap();
        let write = |name: &str, text: String| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p.to_str().unwrap().to_string()
        };
        let old = old.to_str().unwrap();

        let (code, out, _) = run(dir.path(), &["diff", old, old]);
        assert_eq!(code, 0);
        assert!(
            out.ends_with("0 breaking, 0 compatible change(s): compatible\n"),
            "{out}"
        );

        let minor = write(
            "minor.yaml",
            valid.replace("version: 1.2.0", "version: 1.3.0").replace(
                "title: no space left on the device",
                "title: the device is full",
            ),
        );
        let (code, out, _) = run(dir.path(), &["diff", old, &minor]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains("compatible: ") && out.contains("title of code `DISK_FULL` reworded"),
            "{out}"
        );

        let breaking = valid.replace("number: 4000", "number: 4001");
        let (code, out, _) = run(
            dir.path(),
            &[
                "diff",
                old,
                &write(
                    "b1.yaml",
                    breaking.replace("version: 1.2.0", "version: 1.3.0"),
                ),
            ],
        );
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains("breaking: ") && out.contains("renumbered from 4000 to 4001"),
            "{out}"
        );

        let (code, out, _) = run(
            dir.path(),
            &[
                "diff",
                old,
                &write(
                    "b2.yaml",
                    breaking.replace("version: 1.2.0", "version: 2.0.0"),
                ),
            ],
        );
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("allowed by the major version bump"), "{out}");

        let (code, _, err) = run(
            dir.path(),
            &["diff", old, fixture("broken.yaml").to_str().unwrap()],
        );
        assert_eq!(code, 1);
        assert!(err.contains("due to 24 previous errors"), "{err}");
    }

    #[test]
    fn diff_defaults_to_the_baseline_of_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let valid = std::fs::read_to_string(fixture("valid.yaml")).unwrap();
        std::fs::create_dir_all(dir.path().join("schema/baseline")).unwrap();
        std::fs::write(dir.path().join("schema/baseline/errors.yaml"), &valid).unwrap();
        std::fs::write(dir.path().join("errors.yaml"), &valid).unwrap();
        let (code, out, err) = run(dir.path(), &["diff"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("comparing taxonomy 1.2.0 -> 1.2.0"), "{out}");

        let renumbered = valid
            .replace("number: 4000", "number: 4001")
            .replace("version: 1.2.0", "version: 1.3.0");
        std::fs::write(dir.path().join("errors.yaml"), renumbered).unwrap();
        let (code, out, _) = run(dir.path(), &["diff"]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("breaking: errors.yaml:"), "{out}");

        let (code, _, err) = run(dir.path(), &["diff", "only-one.yaml"]);
        assert_eq!(code, 2, "{err}");
    }

    #[test]
    fn generate_check_fails_on_stale_artifacts_until_generated() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(fixture("valid.yaml"), dir.path().join("errors.yaml")).unwrap();
        let (code, _, err) = run(dir.path(), &["generate", "--check"]);
        assert_eq!(code, 1);
        assert!(
            err.contains("is stale") && err.contains("generate"),
            "{err}"
        );
        assert!(
            !dir.path().join("docs/errors.md").exists(),
            "--check must write nothing"
        );

        let (code, out, err) = run(dir.path(), &["generate"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("updated: docs/errors.md"), "{out}");
        let (code, out, err) = run(dir.path(), &["generate", "--check"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("fresh: docs/errors.md"), "{out}");
    }

    /// `generate` takes the spec as a positional path, like `check`,
    /// `rust` and `schema`; `--spec FILE` keeps working for old scripts.
    #[test]
    fn generate_takes_the_spec_like_check_does() {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("errs/errors.yaml");
        std::fs::create_dir_all(spec.parent().unwrap()).unwrap();
        std::fs::copy(fixture("valid.yaml"), &spec).unwrap();
        let out_dir = dir.path().join("out");
        let (spec, out_dir) = (spec.to_str().unwrap(), out_dir.to_str().unwrap());
        let (code, out, err) = run(dir.path(), &["generate", spec, "--out", out_dir]);
        assert_eq!(code, 0, "{err}");
        // Each artifact is named where it is, under the --out directory.
        assert!(
            out.contains(&format!("updated: {out_dir}/docs/errors.md")),
            "{out}"
        );
        let (code, out, err) = run(
            dir.path(),
            &["generate", "--check", "--spec", spec, "--out", out_dir],
        );
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains(&format!("fresh: {out_dir}/docs/errors.md")),
            "{out}"
        );
        let (code, _, err) = run(dir.path(), &["generate", spec, "--spec", spec]);
        assert_eq!(code, 2, "the spec given twice is a usage error: {err}");
        // Without --out, the artifacts go beside the spec.
        let (code, _, err) = run(dir.path(), &["generate", spec]);
        assert_eq!(code, 0, "{err}");
        assert!(dir.path().join("errs/docs/errors.md").is_file());
        // A stale artifact tells how to regenerate with the same spelling.
        std::fs::write(dir.path().join("errs/docs/errors.md"), "stale\n").unwrap();
        let (code, _, err) = run(
            dir.path(),
            &[
                "check",
                spec,
                "--out",
                dir.path().join("errs").to_str().unwrap(),
            ],
        );
        assert_eq!(code, 1);
        assert!(
            err.contains(&format!("splice-codegen generate {spec} --out")),
            "{err}"
        );
    }

    #[test]
    fn rust_prints_the_expansion_and_usage_errors_exit_2() {
        let dir = tempfile::tempdir().unwrap();
        let (code, out, err) = run(
            dir.path(),
            &["rust", fixture("valid.yaml").to_str().unwrap()],
        );
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("pub enum ErrorCode"), "{out}");
        let (code, _, _) = run(dir.path(), &["frobnicate"]);
        assert_eq!(code, 2);
    }
}

/// The starter spec of `splice-codegen init`: a taxonomy that shares no
/// name with splice's.
fn starter() -> String {
    splice_codegen::init::STARTER.to_string()
}

/// Help text cites names of the spec being checked, not splice's.
#[test]
fn placeholder_help_cites_this_specs_own_names() {
    let src = starter().replace(
        r#"message: "{path} does not exist""#,
        r#"message: "{path} does not exist ({the reason})""#,
    );
    let diags = load_str(&src, "errors.yaml").expect_err("an invalid placeholder");
    let help = diags.items[0].help.clone().unwrap_or_default();
    assert!(help.contains("`{path}`"), "{help}");
    assert!(!diags.render().contains("file_path"), "{}", diags.render());
}

/// A category may leave out `range`: its codes take any number that no
/// ranged category holds (gRPC's caller and server codes interleave).
#[test]
fn a_category_without_a_range_loads() {
    let src = splice_codegen::init::STARTER.replace("    range: [1000, 1999]\n", "");
    let spec = load_str(&src, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
    assert!(spec.categories[0].ranges.is_empty());
    let md = splice_codegen::emit_markdown::emit(&spec);
    assert!(md.contains("| `input` | — |"), "{md}");
}

/// A category may hold several ranges, and without `range_block` a range
/// may span any numbers: JSON-RPC's server-error band (-32099..=-32000)
/// and its reserved predefined codes.
#[test]
fn several_ranges_per_category_and_no_block_rule_load() {
    let src = splice_codegen::init::STARTER
        .replace("  range_block: 1000\n", "")
        .replace(
            "range: [1000, 1999]",
            "range: [[-32099, -32000], [-32700, -32600]]",
        )
        .replace("number: 1000", "number: -32000");
    let spec = load_str(&src, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
    assert_eq!(spec.categories[0].ranges.len(), 2);
    let md = splice_codegen::emit_markdown::emit(&spec);
    assert!(md.contains("-32099–-32000, -32700–-32600"), "{md}");
    // A number in neither range is refused, naming both.
    let outside = src.replace("number: -32000", "number: -32500");
    let diags = load_str(&outside, "errors.yaml").unwrap_err();
    assert!(
        diags.render().contains(
            "is outside the range of category `input` [-32099, -32000], [-32700, -32600]"
        ),
        "{}",
        diags.render()
    );
    // With the block rule declared, the same band is refused.
    let blocked = src.replace(
        "  base_uri: schema://my-server\n",
        "  base_uri: schema://my-server\n  range_block: 1000\n",
    );
    let diags = load_str(&blocked, "errors.yaml").unwrap_err();
    assert!(
        diags
            .render()
            .contains("spans more than one block of 1000: [-32099, -32000]"),
        "{}",
        diags.render()
    );
}

/// Code numbers may be negative (JSON-RPC's -32700 ... -32000, MCP's
/// -32800): the generated Rust then numbers codes with `i64`, and the
/// schema drops its `minimum: 0`.
#[test]
fn negative_numbers_load_and_reach_the_artifacts() {
    let src = splice_codegen::init::STARTER
        .replace("range: [1000, 1999]", "range: [-32700, -32600]")
        .replace("number: 1000", "number: -32700");
    let spec = load_str(&src, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
    assert_eq!(spec.codes[0].number(), Some(-32700));
    let rust = splice_codegen::emit_rust::emit_pretty(&spec);
    assert!(
        rust.contains("pub const fn number(self) -> i64")
            && rust.contains("-32700")
            && rust.contains("pub code: i64"),
        "{rust}"
    );
    let schema = splice_codegen::emit_schema::emit(&spec);
    assert!(!schema.to_string().contains("\"minimum\":0"), "{schema}");
    // splice's own numbers stay u32.
    let own =
        splice_codegen::load_path(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../errors.yaml"))
            .unwrap_or_else(|d| panic!("{}", d.render()));
    assert!(
        splice_codegen::emit_rust::emit_pretty(&own).contains("pub const fn number(self) -> u32")
    );
}

/// Anchors and aliases write a list many codes repeat once; the copies
/// load like the written-out lists.
#[test]
fn aliases_spare_repeated_lists() {
    let second = r#"  NOT_A_FILE:
    number: 1001
    category: input
    since: 0.1.0
    title: the path is not a regular file
    message: "{path} is not a regular file"
    recovery_hints: *hints
    context: *ctx
    explanation: |
      The path names a directory or a device.
"#;
    let src = starter()
        .replace("    recovery_hints:\n", "    recovery_hints: &hints\n")
        .replace(
            "    context:\n      required",
            "    context: &ctx\n      required",
        )
        + second;
    let spec = load_str(&src, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
    let (a, b) = (
        spec.code("NOT_FOUND").unwrap(),
        spec.code("NOT_A_FILE").unwrap(),
    );
    let hints = |c: &splice_codegen::spec::Code| {
        c.recovery_hints
            .iter()
            .map(|h| h.value.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(hints(a), hints(b));
    assert_eq!(hints(b).len(), 1);
    assert_eq!(b.required_context.len(), 1);
    assert_eq!(a.required_context[0].value, b.required_context[0].value);

    // A problem inside the anchored value is reported where it is written,
    // for each code that uses it.
    let bad = src.replace("required: [path]", "required: [pth]");
    let diags = load_str(&bad, "errors.yaml").expect_err("unknown field");
    let unknown: Vec<_> = diags
        .items
        .iter()
        .filter(|d| d.message.starts_with("unknown context field `pth`"))
        .collect();
    assert_eq!(unknown.len(), 2, "{}", diags.render());
    assert_eq!(unknown[0].loc, unknown[1].loc, "{}", diags.render());
    assert!(
        unknown.iter().all(|d| d
            .help
            .as_deref()
            .is_some_and(|h| h.contains("did you mean `path`?"))),
        "{}",
        diags.render()
    );
}

/// CI's compatibility gate: since the last release (its spec is copied to
/// `schema/baseline/errors.yaml`), `errors.yaml` may only change compatibly
/// with a higher version, or incompatibly with a higher major version.
#[test]
fn baseline_allows_the_current_taxonomy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let load = |p: &str| {
        splice_codegen::load::load_baseline_path(&root.join(p))
            .unwrap_or_else(|d| panic!("{}", d.render()))
    };
    let report =
        splice_codegen::diff::diff(&load("schema/baseline/errors.yaml"), &load("errors.yaml"));
    assert!(
        report.is_acceptable(),
        "{}\nerrors.yaml is not an acceptable successor of the last release \
         (schema/baseline/errors.yaml); see docs/spec-format.md, \"Release workflow\"",
        report.render("errors.yaml")
    );
}

/// With operations declared, a code no operation raises is a warning by
/// default: the spec loads, `lint` reports it (as `check` and the language
/// server show it); `unraised_codes: error` makes it an error
/// (`rules/operations_unraised_error.yaml`).
#[test]
fn a_code_no_operation_raises_is_a_warning_by_default() {
    let strict = fixture("rules/operations_unraised_error.yaml");
    let text: String = strict
        .lines()
        .filter(|l| !l.starts_with("# expect: ") && !l.contains("unraised_codes"))
        .map(|l| format!("{l}\n"))
        .collect();
    let spec = load_str(&text, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
    let warnings = splice_codegen::lint(&spec);
    let shown: Vec<String> = warnings.iter().map(|d| d.one_line("errors.yaml")).collect();
    assert_eq!(
        shown,
        ["errors.yaml:12:3: warning: no operation raises code `MATCH_NOT_FOUND`"],
        "{shown:#?}"
    );
    // Without operations, every code is anyone's: nothing to report.
    let plain = text.split("\noperations:\n").next().unwrap().to_owned();
    let spec = load_str(&plain, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
    assert!(splice_codegen::lint(&spec).is_empty());
}
