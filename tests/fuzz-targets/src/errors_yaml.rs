//! Fuzzes the `errors.yaml` loader (`splice_codegen::load_str`: YAML parser,
//! lowering, validation) and everything downstream of its result.
//!
//! The input is the spec text (bytes that are not UTF-8 are decoded lossily,
//! as `load_path` does for its diagnostic). Checked on every input: no
//! panic; the same text loads to the same result twice; a refused spec has
//! at least one diagnostic and every form of the diagnostics renders; an
//! accepted spec yields every generated artifact (Rust that parses, JSON
//! Schema, TypeScript, Markdown) and compares with itself as unchanged.

use splice_codegen::diff::diff;
use splice_codegen::{emit_rust, generate, load_str};

/// Runs one input; panics on any broken rule.
pub fn run(data: &[u8]) {
    let source = String::from_utf8_lossy(data);
    let result = load_str(&source, "errors.yaml");
    assert_eq!(
        result,
        load_str(&source, "errors.yaml"),
        "not deterministic"
    );
    match result {
        Err(d) => {
            assert!(!d.items.is_empty(), "refused without a diagnostic");
            let plain = d.render();
            assert!(!plain.is_empty());
            let _ = d.render_styled();
            let one_lines = d.one_lines();
            assert!(one_lines.lines().count() >= d.items.len());
        }
        Ok(spec) => {
            let tokens = emit_rust::emit(&spec);
            if let Err(e) = syn::parse2::<syn::File>(tokens) {
                panic!("the generated Rust does not parse: {e}");
            }
            for (_, text) in generate::artifacts(&spec) {
                assert!(!text.is_empty());
            }
            let same = diff(&spec, &spec);
            assert!(same.changes.is_empty() && same.is_acceptable(), "{same:#?}");
            let _ = same.render("errors.yaml");
        }
    }
}
