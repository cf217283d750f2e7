//! What a maintainer does to add a code that needs a brand-new context
//! field: edit `errors.yaml`, and nothing else. On a copy of the workspace
//! spec, a new field (`lock_holder_pid`, an integer inside `context`) and a
//! new code that requires it are added as text; `generate` (the same
//! function as `splice-codegen generate SPEC --out ...`) then writes
//! the artifacts, and the field must reach every one of them and the Rust
//! the macro expands to, with no change to the compiler.

use splice_codegen::{emit_rust, generate, load_path};

const FIELD: &str = "  lock_holder_pid:
    type: integer
    in: context
    doc: \"The process that holds the lock on the file.\"
";

const CODE: &str = "
  FILE_LOCKED:
    number: 4990
    category: external
    since: 1.3.0
    title: another process holds a lock on the file
    message: \"{file_path} is locked by process {lock_holder_pid}\"
    recovery_hints:
      - \"Wait for the other process to finish, then retry\"
    context:
      required: [file_path, lock_holder_pid]
    explanation: |
      Another process holds an exclusive lock on the file.

      How to fix: wait for it to finish, then send the call again.
";

#[test]
fn a_code_with_a_new_field_reaches_every_artifact_from_errors_yaml_alone() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let spec = std::fs::read_to_string(root.join("errors.yaml")).unwrap();
    assert!(!spec.contains("lock_holder_pid"), "the field must be new");
    // The code is raised by an operation (`unraised_codes: error`).
    let spec = spec
        .replacen("\nfields:\n", &format!("\nfields:\n{FIELD}"), 1)
        .replacen(
            "    codes: [UNDO_UNAVAILABLE]\n",
            "    codes: [UNDO_UNAVAILABLE, FILE_LOCKED]\n",
            1,
        )
        + CODE;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("errors.yaml");
    std::fs::write(&path, &spec).unwrap();
    let outcome = generate::run_at(&path, dir.path(), false).unwrap();
    assert!(outcome.is_success(), "{}", outcome.render());
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();

    // The JSON Schema: a variant for the new code whose context requires
    // the field, typed.
    let schema: serde_json::Value =
        serde_json::from_str(&read("schema/error-envelope.schema.json")).unwrap();
    assert!(
        schema["oneOf"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({"$ref": "#/$defs/FileLockedEnvelope"}))
    );
    let context = &schema["$defs"]["FileLockedContext"];
    assert_eq!(context["properties"]["lock_holder_pid"]["type"], "integer");
    assert_eq!(context["required"], serde_json::json!(["lock_holder_pid"]));

    // TypeScript and Python: the field, typed, on the new code's shape.
    let ts = read("schema/error-envelope.d.ts");
    assert!(ts.contains("lock_holder_pid?: number;"), "{ts}");
    assert!(
        ts.contains("context: { lock_holder_pid: number }"),
        "the new code's envelope requires it:\n{ts}"
    );
    let py = read("schema/error_envelope.py");
    assert!(py.contains("FILE_LOCKED"), "{py}");
    assert!(py.contains("lock_holder_pid: typing.Required[int]"), "{py}");

    // Markdown documents it; the Rust constructor takes it as an argument.
    assert!(read("docs/errors.md").contains("`lock_holder_pid`"));
    let rust = emit_rust::emit_pretty(&load_path(&path).unwrap());
    let ctor = rust
        .split("pub fn file_locked(")
        .nth(1)
        .expect("a constructor for the new code");
    let params = &ctor[..ctor.find(')').unwrap()];
    assert!(params.contains("lock_holder_pid: u64"), "{params}");
}
