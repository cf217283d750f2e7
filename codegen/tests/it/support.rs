//! What several of codegen's integration tests share: where the repository
//! is, whether a missing tool must fail the test (CI) or may skip it, and
//! the check that each code's documentation example is valid.

use std::path::{Path, PathBuf};

use splice_codegen::spec::Spec;

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen/ has a parent")
        .to_path_buf()
}

/// `CI=true` (or `1`), as in `splice_tests::harness::in_ci`: a test that
/// lacks a tool fails instead of skipping.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// `env` as the schema's document holds it: itself, or with a list of
/// errors (`list: true`) the one entry of a response beside its constants
/// (a required `type:` member would need a value; no fixture has one).
pub fn in_response(spec: &Spec, env: &serde_json::Value) -> serde_json::Value {
    use splice_codegen::envelope::Holds;
    let Some(response) = &spec.envelope.response else {
        return env.clone();
    };
    let mut document = serde_json::Map::new();
    for m in &response.members {
        match &m.holds {
            Holds::List => {
                document.insert(m.name.value.clone(), serde_json::json!([env]));
            }
            Holds::Constant(v) => {
                document.insert(m.name.value.clone(), v.clone());
            }
            Holds::Typed { .. } => assert!(!m.required, "no value for `{}`", m.name.value),
        }
    }
    serde_json::Value::Object(document)
}

/// Checks each enveloped code's documentation example against the spec's
/// open and strict schemas, and writes it to `dir/<CODE>.json`; returns
/// the paths, for the client type checkers to read.
pub fn write_valid_examples(spec: &Spec, dir: &Path, label: &str) -> Vec<PathBuf> {
    let open = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit(spec))
        .expect("the schema compiles");
    let strict = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(spec))
        .expect("the strict schema compiles");
    let mut examples = Vec::new();
    for code in spec.enveloped_codes() {
        let env = splice_codegen::emit_markdown::example_envelope(spec, code).unwrap();
        let document = in_response(spec, &env);
        for (which, v) in [("schema", &open), ("strict schema", &strict)] {
            let errors: Vec<String> = v.iter_errors(&document).map(|e| e.to_string()).collect();
            assert!(
                errors.is_empty(),
                "{label}: the example of {} fails its {which}: {errors:?}\n{env:#}",
                code.name.value
            );
        }
        let path = dir.join(format!("{}.json", code.name.value));
        std::fs::write(&path, env.to_string()).unwrap();
        examples.push(path);
    }
    examples
}
