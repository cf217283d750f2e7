//! The generated artifacts: freshness of the committed ones, and snapshots of
//! what each emitter produces for a small fixture spec.
//!
//! `artifacts_are_fresh` follows rust-analyzer's `ensure_file_contents`: when
//! `schema/` or `docs/errors.md` no longer match `errors.yaml`, it fails with
//! the diff and the fix command. Run locally (no `CI` variable), it also
//! rewrites the stale files before failing, so the next run passes and the
//! change shows up in `git diff`; under `CI=true` it never writes.
//!
//! The committed artifacts are their own snapshots, so they are not
//! snapshotted twice. The insta snapshots below pin the emitters' output for
//! `tests/fixtures/demo.yaml` (review changes with `cargo insta review`).

use std::path::{Path, PathBuf};

use splice_codegen::generate::{self, FileStatus};
use splice_codegen::{emit_markdown, emit_python, emit_schema, emit_ts};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen/ has a parent")
        .to_path_buf()
}

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

#[test]
fn artifacts_are_fresh() {
    let root = root();
    let outcome = generate::run(&root, true).expect("artifacts are readable");
    if outcome.is_success() {
        return;
    }
    let report = outcome.render();
    if outcome.diagnostics.is_none() && !in_ci() {
        let written = generate::run(&root, false).expect("artifacts are writable");
        assert!(written.is_success());
        panic!(
            "{report}\nthe stale files have been rewritten; review them with `git diff`, \
             commit them and re-run the tests (in CI, with CI=true, nothing is rewritten)"
        );
    }
    panic!("{report}");
}

fn demo() -> splice_codegen::spec::Spec {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo.yaml");
    splice_codegen::load_path(&path).unwrap_or_else(|d| panic!("{}", d.render()))
}

#[test]
fn demo_schema() {
    insta::assert_snapshot!(emit_schema::emit_string(&demo()));
}

#[test]
fn demo_typescript() {
    insta::assert_snapshot!(emit_ts::emit(&demo()));
}

#[test]
fn demo_python() {
    insta::assert_snapshot!(emit_python::emit(&demo()));
}

#[test]
fn demo_markdown() {
    insta::assert_snapshot!(emit_markdown::emit(&demo()));
}

/// A scratch workspace holding `errors.yaml` = `spec`.
fn workspace(spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("errors.yaml"), spec).expect("write spec");
    dir
}

const DEMO: &str = include_str!("fixtures/demo.yaml");

#[test]
fn check_reports_missing_files_then_generate_writes_them() {
    let ws = workspace(DEMO);
    let check = generate::run(ws.path(), true).unwrap();
    assert!(!check.is_success());
    assert_eq!(check.stale().count(), generate::artifacts(&demo()).len());
    let report = check.render();
    assert!(
        report.contains("error: docs/errors.md is stale\n"),
        "{report}"
    );
    assert!(
        report.contains("+++ docs/errors.md (expected)\n"),
        "{report}"
    );
    assert!(
        report.ends_with("run `cargo run -p splice-codegen -- generate` to update\n"),
        "{report}"
    );
    assert!(
        !ws.path().join("schema").exists(),
        "check mode writes nothing"
    );

    let write = generate::run(ws.path(), false).unwrap();
    assert!(write.is_success());
    assert!(write.files.iter().all(|f| f.status == FileStatus::Written));
    for (path, content) in generate::artifacts(&demo()) {
        assert_eq!(
            std::fs::read_to_string(ws.path().join(&path)).unwrap(),
            content
        );
    }

    let again = generate::run(ws.path(), true).unwrap();
    assert!(again.is_success(), "{}", again.render());
    assert!(again.files.iter().all(|f| f.status == FileStatus::Fresh));
}

#[test]
fn a_hand_edit_is_stale_with_a_diff_and_crlf_is_not() {
    let ws = workspace(DEMO);
    generate::run(ws.path(), false).unwrap();
    let md = ws.path().join("docs/errors.md");
    let text = std::fs::read_to_string(&md).unwrap();

    std::fs::write(&md, text.replace('\n', "\r\n")).unwrap();
    let crlf = generate::run(ws.path(), true).unwrap();
    assert!(
        crlf.is_success(),
        "a CRLF checkout is not stale: {}",
        crlf.render()
    );

    std::fs::write(
        &md,
        text.replace("old_string was not found", "text was not found"),
    )
    .unwrap();
    let edited = generate::run(ws.path(), true).unwrap();
    let stale: Vec<_> = edited.stale().map(|f| f.path.clone()).collect();
    assert_eq!(stale, vec![PathBuf::from("docs/errors.md")]);
    let report = edited.render();
    assert!(
        report.contains("-*text was not found*\n+*old_string was not found*\n"),
        "{report}"
    );
    assert!(
        std::fs::read_to_string(&md)
            .unwrap()
            .contains("text was not found"),
        "check mode does not rewrite"
    );
}

#[test]
fn a_broken_spec_reports_diagnostics_and_touches_nothing() {
    let ws = workspace(&DEMO.replace("number: 4000", "number: 7"));
    let outcome = generate::run(ws.path(), false).unwrap();
    assert!(!outcome.is_success());
    assert!(outcome.files.is_empty());
    let report = outcome.render();
    assert!(report.contains("errors.yaml"), "{report}");
    assert!(
        report.ends_with("error: errors.yaml has errors; no artifact was written\n"),
        "{report}"
    );
    assert!(!ws.path().join("schema").exists() && !ws.path().join("docs").exists());
}

#[test]
fn a_missing_spec_is_a_diagnostic_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = generate::run(dir.path(), true).unwrap();
    assert!(outcome.diagnostics.is_some());
    assert!(!outcome.is_success());
}

/// A maintainer adds a code that needs a brand-new context field by editing
/// `errors.yaml` only: the field and its new support type reach the Rust
/// constructor, the JSON Schema and the TypeScript declarations without any
/// change to the compiler.
#[test]
fn a_new_field_declared_in_the_spec_reaches_every_artifact() {
    let spec_text = std::fs::read_to_string(root().join("errors.yaml")).unwrap();
    let edited = spec_text
        .replacen(
            "\nfields:\n",
            "\n  RetryWindow:\n    doc: When to try again.\n    members:\n      \
             after_ms: { type: integer, doc: Milliseconds to wait. }\n      \
             reason: { type: string, optional: true, doc: Why. }\n\nfields:\n  \
             retry_window: { type: RetryWindow, in: context, doc: When the resource frees up. }\n",
            1,
        )
        .replacen(
            "\ncodes:\n",
            "\ncodes:\n  FILE_BUSY:\n    number: 4019\n    category: external\n    since: 1.2.0\n    \
             title: the file is locked by another process\n    \
             message: \"{file_path} is busy\"\n    recovery_hints:\n      - Retry after context.retry_window.after_ms\n    \
             context:\n      required: [file_path, retry_window]\n    explanation: |\n      Busy.\n",
            1,
        )
        .replacen("version: 1.1.0", "version: 1.2.0", 1);
    let spec = splice_codegen::load_str(&edited, "errors.yaml")
        .unwrap_or_else(|d| panic!("the edited spec does not load:\n{}", d.render()));

    let rust = splice_codegen::emit_rust::emit_pretty(&spec);
    assert!(rust.contains("pub struct RetryWindow"), "{rust}");
    let flat: String = rust.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("pub fn file_busy( retry_window: RetryWindow, file_path: impl ::core::convert::Into<::std::string::String>, )"),
        "constructor takes the new field: {}",
        flat.split("pub fn file_busy").nth(1).unwrap_or("(no constructor)").chars().take(200).collect::<String>()
    );
    let schema = emit_schema::emit(&spec);
    assert_eq!(
        schema["$defs"]["FileBusyContext"]["properties"]["retry_window"]["$ref"],
        "#/$defs/RetryWindow"
    );
    assert_eq!(
        schema["$defs"]["FileBusyEnvelope"]["properties"]["context"]["$ref"],
        "#/$defs/FileBusyContext"
    );
    assert_eq!(
        schema["$defs"]["RetryWindow"]["required"],
        serde_json::json!(["after_ms"])
    );
    let ts = emit_ts::emit(&spec);
    assert!(ts.contains("export interface RetryWindow {"), "{ts}");
    assert!(
        ts.contains("context: { retry_window: RetryWindow }"),
        "{ts}"
    );
    // And the change is compatible with the release.
    let baseline =
        splice_codegen::load::load_baseline_path(&root().join("schema/baseline/errors.yaml"))
            .unwrap_or_else(|d| panic!("{}", d.render()));
    let report = splice_codegen::diff::diff(&baseline, &spec);
    assert!(report.is_acceptable(), "{}", report.render("errors.yaml"));
}
