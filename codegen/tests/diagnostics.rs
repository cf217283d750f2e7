//! The loader's diagnostics, as a user sees them.

use std::path::Path;

use splice_codegen::load_str;
use splice_codegen::spec::{Cause, Lifecycle};

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
    assert_eq!((m.number.loc.line, m.number.loc.col), (47, 13));
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
