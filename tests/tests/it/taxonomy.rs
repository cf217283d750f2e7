//! The Rust types `taxonomy!` generates from the real `errors.yaml` agree
//! with the spec and with the published JSON Schema.
//!
//! Three views of the taxonomy exist: the spec (read here through
//! `splice_codegen`), the Rust types (expanded below) and
//! `schema/error-envelope.schema.json` (what clients validate against). These
//! tests fail when any two disagree: a lookup that does not match the spec, a
//! constructor whose output the schema rejects, or a schemars schema whose
//! codes, fields or required sets differ from the published one.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use splice_codegen::context::{FieldDef, Placement};
use splice_codegen::spec::{SentAs, Spec};

mod expanded {
    splice_macros::taxonomy!("../../../errors.yaml");

    /// One constructor's output, from `build.rs`.
    pub struct Sample {
        pub code: ErrorCode,
        pub minimal: ErrorEnvelope,
        pub full: ErrorEnvelope,
    }

    include!(concat!(env!("OUT_DIR"), "/samples.rs"));
}

use expanded::{ErrorCode, ErrorEnvelope, Sample};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_owned()
}

fn spec() -> Spec {
    let path = workspace().join("errors.yaml");
    splice_codegen::load_path(&path).unwrap_or_else(|d| panic!("{}", d.render()))
}

fn published_schema() -> Value {
    let path = workspace().join("schema/error-envelope.schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn samples() -> Vec<Sample> {
    let samples = expanded::samples();
    let covered: Vec<ErrorCode> = samples.iter().map(|s| s.code).collect();
    assert_eq!(
        covered,
        ErrorCode::ALL,
        "build.rs must sample every code, in order"
    );
    samples
}

#[test]
fn all_lists_exactly_the_emitted_codes_in_spec_order() {
    let spec = spec();
    let expected: Vec<&str> = spec
        .emitted_codes()
        .map(|c| c.name.value.as_str())
        .collect();
    let actual: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(actual, expected);
}

#[test]
fn every_code_round_trips_through_serde_display_and_from_str() {
    for &code in ErrorCode::ALL {
        let json = serde_json::to_value(code).unwrap();
        assert_eq!(json, Value::String(code.as_str().to_owned()));
        assert_eq!(serde_json::from_value::<ErrorCode>(json).unwrap(), code);
        assert_eq!(code.to_string(), code.as_str());
        assert_eq!(code.as_str().parse::<ErrorCode>(), Ok(code));
    }
    let unknown = "NOT_A_CODE".parse::<ErrorCode>().unwrap_err();
    assert_eq!(unknown.to_string(), "unknown error code `NOT_A_CODE`");
    assert_eq!(unknown.name(), "NOT_A_CODE");
    assert!(serde_json::from_str::<ErrorCode>("\"match_not_found\"").is_err());
}

#[test]
fn lookups_match_the_spec() {
    let spec = spec();
    for (&code, spec_code) in ErrorCode::ALL.iter().zip(spec.emitted_codes()) {
        let name = code.as_str();
        assert_eq!(Some(i64::from(code.number())), spec_code.number(), "{name}");
        assert_eq!(code.category().as_str(), spec_code.category.value, "{name}");
        assert_eq!(code.retryable(), spec_code.retryable, "{name}");
        assert_eq!(code.cause().as_str(), spec_code.cause.as_str(), "{name}");
        assert_eq!(code.title(), spec_code.title.value, "{name}");
        assert_eq!(code.message_template(), spec_code.message.value, "{name}");
        assert_eq!(code.explanation(), spec_code.explanation.value, "{name}");
        let hints: Vec<&str> = spec_code
            .recovery_hints
            .iter()
            .map(|h| h.value.as_str())
            .collect();
        assert_eq!(code.recovery_hints(), hints, "{name}");
    }
}

#[test]
fn constructors_fill_the_envelope_from_the_spec() {
    let spec = spec();
    for sample in samples() {
        let code = sample.code;
        let spec_code = spec.code(code.as_str()).unwrap();
        for envelope in [&sample.minimal, &sample.full] {
            assert!(!envelope.success);
            assert_eq!(envelope.error_code, code);
            assert_eq!(envelope.code, code.number());
            assert_eq!(envelope.category, code.category());
            assert_eq!(envelope.retryable, code.retryable());
            assert_eq!(envelope.cause, code.cause());
            // The general hints, and each conditional one whose context
            // field has one of its values (errors.yaml `when:`), in order.
            let json = serde_json::to_value(envelope).unwrap();
            let expected = spec_code
                .hints()
                .filter(|(_, cond)| match cond {
                    None => true,
                    Some(cond) => {
                        let field = spec.field(&cond.field.value).expect("declared");
                        field_of(&json, field)
                            .and_then(Value::as_str)
                            .is_some_and(|v| cond.values.iter().any(|want| want.value == v))
                    }
                })
                .count();
            assert_eq!(envelope.recovery_hints.len(), expected, "{code}");
            // Every placeholder was rendered: no `{name}` of the template
            // survives into the message or the hints.
            for p in spec_code
                .params
                .iter()
                .map(|p| p.name.value.as_str())
                .chain(spec_code.required_context.iter().map(|f| f.value.as_str()))
            {
                let needle = format!("{{{p}}}");
                assert!(
                    !envelope.message.contains(&needle),
                    "{code}: {}",
                    envelope.message
                );
                for hint in &envelope.recovery_hints {
                    assert!(!hint.contains(&needle), "{code}: {hint}");
                }
            }
        }
        let minimal = serde_json::to_value(&sample.minimal).unwrap();
        let full = serde_json::to_value(&sample.full).unwrap();
        for field in &spec_code.required_context {
            let field = spec.field(&field.value).expect("declared");
            assert!(
                field_of(&minimal, field).is_some(),
                "{code}: {field} missing"
            );
        }
        for field in spec.optional_fields(spec_code) {
            assert!(field_of(&minimal, field).is_none(), "{code}: {field} set");
            assert!(field_of(&full, field).is_some(), "{code}: {field} not set");
        }
        // Fields the code does not list are never present.
        for field in &spec.fields {
            let listed = spec_code
                .required_context
                .iter()
                .chain(&spec_code.optional_context);
            if !listed.clone().any(|f| f.value == field.name.value) {
                assert!(field_of(&full, field).is_none(), "{code}: {field} present");
            }
        }
        // An envelope without context fields in `context` has no `context`.
        let has_context = spec
            .required_fields(spec_code)
            .iter()
            .any(|f| f.placement() == Placement::Context);
        assert_eq!(minimal.get("context").is_some(), has_context, "{code}");
    }
}

/// A context field of an envelope's JSON, at its placement.
fn field_of<'v>(envelope: &'v Value, field: &FieldDef) -> Option<&'v Value> {
    match field.placement() {
        // splice's envelope is flat: its outermost object holds the code.
        Placement::TopLevel | Placement::Envelope => envelope.get(field.name()),
        Placement::Context => envelope.get("context")?.get(field.name()),
    }
}

#[test]
fn every_constructor_output_validates_against_the_published_and_strict_schemas() {
    let published =
        jsonschema::validator_for(&published_schema()).expect("the published schema compiles");
    let strict = jsonschema::validator_for(&splice_codegen::emit_schema::emit_strict(&spec()))
        .expect("the strict schema compiles");
    let spec = spec();
    let samples = samples();
    // A violation kind (`sent_as: violation`) travels only inside the
    // `violations` of its carrier envelope, never as an envelope's own code:
    // its sample is validated there, and the strict schema must refuse it at
    // the top level (no variant waits for it).
    let carrier = samples
        .iter()
        .map(|s| serde_json::to_value(&s.full).unwrap())
        .find(|json| json["violations"].is_array())
        .expect("errors.yaml has a code that carries violations");
    let mut violation_kinds = 0;
    for sample in &samples {
        let sent_as = spec.code(sample.code.as_str()).unwrap().sent_as();
        for envelope in [&sample.minimal, &sample.full] {
            let mut json = serde_json::to_value(envelope).unwrap();
            if sent_as == SentAs::Violation {
                assert!(
                    !strict.is_valid(&json),
                    "{}: a violation kind is accepted as an envelope's own code",
                    sample.code
                );
                let violation = serde_json::json!({
                    "path": "arguments",
                    "code": sample.code.as_str(),
                    "message": json["message"],
                });
                json = carrier.clone();
                json["violations"] = Value::Array(vec![violation]);
                violation_kinds += 1;
            }
            let errors: Vec<String> = published
                .iter_errors(&json)
                .chain(strict.iter_errors(&json))
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{}: {errors:#?}\n{json:#}", sample.code);
            // And the JSON reads back into the same envelope.
            let back: ErrorEnvelope = serde_json::from_value(json.clone()).unwrap();
            if sent_as == SentAs::Violation {
                assert_eq!(serde_json::to_value(&back).unwrap(), json);
            } else {
                assert_eq!(&back, envelope);
            }
        }
    }
    assert!(violation_kinds > 0, "errors.yaml has no violation kind");
}

#[test]
fn the_published_schema_rejects_an_envelope_missing_a_required_field() {
    // The positive test above only means something if the schema enforces
    // the per-code rules the constructors guarantee.
    let schema = published_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let spec = spec();
    let mut checked = 0;
    for sample in samples() {
        let spec_code = spec.code(sample.code.as_str()).unwrap();
        if spec_code.sent_as() == SentAs::Violation {
            // Its fields never travel: a violation inside its carrier has
            // only a path, its code and a message.
            continue;
        }
        for field in spec.required_fields(spec_code) {
            let mut json = serde_json::to_value(&sample.minimal).unwrap();
            match field.placement() {
                Placement::TopLevel | Placement::Envelope => {
                    json.as_object_mut().unwrap().remove(field.name())
                }
                Placement::Context => json["context"]
                    .as_object_mut()
                    .unwrap()
                    .remove(field.name()),
            };
            assert!(
                !validator.is_valid(&json),
                "{}: accepted without {field}",
                sample.code,
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "errors.yaml has no required context at all");
}

#[test]
fn envelopes_reject_unknown_fields() {
    let sample = &samples()[0];
    let mut json = serde_json::to_value(&sample.minimal).unwrap();
    json["surprise"] = Value::Bool(true);
    let err = serde_json::from_value::<ErrorEnvelope>(json).unwrap_err();
    assert!(
        err.to_string().contains("unknown field `surprise`"),
        "{err}"
    );
}

#[test]
fn schemars_schema_agrees_with_the_output_shape_and_the_published_types() {
    // The shape the tools advertise as outputSchema (every member of every
    // code, a thin variant per code); the published schema's variants are
    // checked by the tests above, and its support types below.
    let published = splice_codegen::emit_schema::emit_output_shape(&spec());
    let published_types = published_schema();
    let generated = serde_json::to_value(schemars::schema_for!(ErrorEnvelope)).unwrap();

    let codes = string_set(&object(&generated, &generated["properties"]["error_code"])["enum"]);
    let expected: BTreeSet<String> = ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect();
    assert_eq!(codes, expected, "schemars error_code enum");
    assert_eq!(
        codes,
        string_set(&object(&published, &published["properties"]["error_code"])["enum"]),
        "error_code enum"
    );
    assert_eq!(
        key_set(&generated["properties"]),
        key_set(&published["properties"]),
        "top-level properties"
    );
    assert_eq!(
        string_set(&generated["required"]),
        string_set(&published["required"]),
        "top-level required"
    );
    // The shape's `context` is any object; each code's variant closes it as
    // its `<Code>Context`: together they name every context member.
    let generated_context = object(&generated, &generated["properties"]["context"]);
    let published_context: BTreeSet<String> = published["oneOf"]
        .as_array()
        .expect("one variant per code")
        .iter()
        .filter(|v| v["properties"].get("context").is_some())
        .flat_map(|v| key_set(&object(&published, &v["properties"]["context"])["properties"]))
        .collect();
    assert_eq!(
        key_set(&generated_context["properties"]),
        published_context,
        "context properties"
    );
    for def in &spec().types {
        if def.values().is_some() {
            continue;
        }
        let name = def.name.value.as_str();
        let g = &generated["$defs"][name];
        let p = &published["$defs"][name];
        let t = &published_types["$defs"][name];
        assert!(
            g.is_object() && p.is_object() && t.is_object(),
            "{name} is missing from a $defs"
        );
        assert_eq!(
            key_set(&t["properties"]),
            key_set(&p["properties"]),
            "{name} members (published schema and output shape)"
        );
        let members: BTreeSet<String> =
            def.members().iter().map(|m| m.name.value.clone()).collect();
        assert_eq!(
            key_set(&g["properties"]),
            members,
            "{name} members (schemars)"
        );
        assert_eq!(
            key_set(&p["properties"]),
            members,
            "{name} members (published)"
        );
        assert_eq!(
            string_set(&g["required"]),
            string_set(&p["required"]),
            "{name} required"
        );
    }
}

/// The object schema `node` stands for: follows a local `$ref`, and looks
/// through the `anyOf` schemars writes for `Option<T>`.
fn object<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let pointer = reference.strip_prefix('#').expect("local $ref");
        let target = root
            .pointer(pointer)
            .unwrap_or_else(|| panic!("dangling {reference}"));
        return object(root, target);
    }
    if let Some(options) = node.get("anyOf").and_then(Value::as_array)
        && let Some(option) = options
            .iter()
            .find(|o| o.get("type") != Some(&Value::from("null")))
    {
        return object(root, option);
    }
    node
}

fn key_set(properties: &Value) -> BTreeSet<String> {
    properties
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn string_set(array: &Value) -> BTreeSet<String> {
    array
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Every `.rs` file under `dir`, recursively, with the text before its
/// first `#[cfg(test)]` (unit tests do not count as the server using a
/// code); `tests.rs` modules are skipped whole.
fn sources(dir: &Path, exts: &[&str], out: &mut Vec<(PathBuf, String)>, cut_tests: bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "node_modules" && !name.starts_with('.') {
                sources(&path, exts, out, cut_tests);
            }
            continue;
        }
        if !exts.iter().any(|e| name.ends_with(e)) || (cut_tests && name == "tests.rs") {
            continue;
        }
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        if cut_tests && let Some(at) = text.find("#[cfg(test)]") {
            text.truncate(at);
        }
        out.push((path, text));
    }
}

/// Whether `text` holds `name` as a whole word (`"NAME"`, `=NAME`, ...).
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    text.match_indices(name).any(|(at, _)| {
        !word(text[..at].chars().next_back()) && !word(text[at + name.len()..].chars().next())
    })
}

/// Where the real binary is driven into sending each active code: the
/// `it` test (`module::function`) whose input produces it. A code the spec
/// declares `sent_as: violation` arrives as `violations[].code` of
/// `VALIDATION_FAILED`; every other code as an envelope's own `error_code`.
const PRODUCED_BY: &[(&str, &str)] = &[
    (
        "VALIDATION_FAILED",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    ("RELATIVE_PATH", "e2e_multi_edit::one_case_per_error_code"),
    ("PATH_TRAVERSAL", "e2e_multi_edit::one_case_per_error_code"),
    ("EMPTY_EDITS", "e2e_multi_edit::one_case_per_error_code"),
    (
        "EMPTY_OLD_STRING",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "DUPLICATE_OLD_STRING",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "DUPLICATE_FILE_PATH",
        "e2e_stdio::one_file_named_through_two_hard_links_is_a_duplicate",
    ),
    (
        "INVALID_ARGUMENT",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "EMPTY_FILES",
        "e2e_multi_edit_files::success_dry_run_and_failures",
    ),
    ("INVALID_SHA256", "e2e_multi_edit::one_case_per_error_code"),
    ("INVALID_PATH", "e2e_multi_edit::one_case_per_error_code"),
    (
        "PATH_OUTSIDE_ROOTS",
        "e2e_sandbox::path_outside_roots_under_root_carries_only_the_server_hints",
    ),
    (
        "TOO_MANY_EDITS",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "TOO_MANY_FILES",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "REQUEST_TOO_LARGE",
        "e2e_stdio::a_request_line_over_the_limit_gets_request_too_large_with_its_id",
    ),
    ("MOVE_ONTO_ITSELF", "e2e_ops::every_new_error_code"),
    ("PATH_CONFLICT", "e2e_ops::every_new_error_code"),
    ("MATCH_NOT_FOUND", "e2e_multi_edit::one_case_per_error_code"),
    ("AMBIGUOUS_MATCH", "e2e_multi_edit::one_case_per_error_code"),
    ("STALE_FILE", "e2e_multi_edit::one_case_per_error_code"),
    (
        "RESULT_TOO_LARGE",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    ("FILE_ALREADY_EXISTS", "e2e_ops::every_new_error_code"),
    ("PARENT_DIRECTORY_MISSING", "e2e_ops::every_new_error_code"),
    (
        "TRANSACTION_NOT_FOUND",
        "e2e_undo::unknown_and_malformed_ids_and_a_path_outside_the_roots",
    ),
    (
        "UNDO_CONFLICT",
        "e2e_undo::an_outside_change_refuses_the_undo_and_names_every_changed_file",
    ),
    ("FILE_NOT_FOUND", "e2e_multi_edit::one_case_per_error_code"),
    (
        "PERMISSION_DENIED",
        "e2e_faults::immutable_file_is_permission_denied",
    ),
    (
        "INVALID_ENCODING",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    ("DISK_FULL", "e2e_faults::disk_full_on_a_tiny_tmpfs"),
    ("READ_ONLY_FS", "e2e_faults::read_only_remount"),
    ("SYMLINK_LOOP", "e2e_multi_edit::one_case_per_error_code"),
    ("BACKUP_FAILED", "e2e_multi_edit::one_case_per_error_code"),
    (
        "READ_FAILED",
        "e2e_faults::eio_while_reading_is_read_failed",
    ),
    (
        "WRITE_FAILED",
        "e2e_load::a_thousand_calls_while_one_file_is_locked",
    ),
    (
        "NOT_A_REGULAR_FILE",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    ("FILE_TOO_LARGE", "e2e_multi_edit::one_case_per_error_code"),
    (
        "ROLLBACK_FAILED",
        "e2e_faults::a_failed_rollback_is_reported_per_file_and_finished_by_recover",
    ),
    (
        "JOURNAL_UNAVAILABLE",
        "e2e_faults::failed_fsync_of_the_journal_directory_leaves_no_journal",
    ),
    (
        "UNDO_UNAVAILABLE",
        "e2e_undo::an_unusable_store_still_edits_and_answers_undo_unavailable",
    ),
];

/// Active codes that no input produces on purpose, and why.
const NOT_PRODUCED: &[(&str, &str)] = &[
    (
        "CALL_CANCELLED",
        "MCP forbids answering a cancelled request, so no client ever reads it \
         (e2e_concurrency asserts that a cancelled call writes nothing)",
    ),
    (
        "SERVER_BUSY",
        "a call must wait out the 30 s admission timeout first; admission.rs's unit \
         tests time a call out against a full bound",
    ),
    (
        "INTERNAL_ERROR",
        "answers a panic or a broken invariant; no call can trigger one on purpose \
         (the server's unit tests build it)",
    ),
];

/// The body of test function `function` in `tests/tests/it/<module>.rs`,
/// if it exists and carries a test attribute (`#[test]`, `#[tokio::test]`).
fn test_body(root: &Path, module: &str, function: &str) -> Option<String> {
    let text = std::fs::read_to_string(root.join(format!("tests/tests/it/{module}.rs"))).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| {
        let l = l.trim_start_matches("async ");
        l.starts_with(&format!("fn {function}("))
    })?;
    let attributes = lines[..at]
        .iter()
        .rev()
        .take_while(|l| l.starts_with("#[") || l.starts_with("///"));
    if !attributes
        .clone()
        .any(|l| l.starts_with("#[") && l.contains("test"))
    {
        return None;
    }
    let end = lines[at..].iter().position(|l| *l == "}")?;
    Some(lines[at..at + end].join("\n"))
}

/// Whether `text` writes `variant` as `listed!(Op, Variant)` (the server's
/// compile-time checked violation code, `splice_server::listed!`).
fn listed_in(text: &str, variant: &str) -> bool {
    text.match_indices("listed!(").any(|(at, open)| {
        let rest = &text[at + open.len()..];
        rest.find(')')
            .and_then(|end| rest[..end].rsplit_once(','))
            .is_some_and(|(_, code)| code.trim() == variant)
    })
}

/// No declared variant is unreachable: every active code is either produced
/// by a named end-to-end test (checked to exist, to be a test, and to assert
/// the code) in the form the spec declares, or listed with the reason no
/// input produces it. The server's sources agree: a code sent as an
/// envelope has its constructor called there, a violation kind never does
/// (it is only put into `violations`, as `ErrorCode::Kind` or as
/// `listed!(Operation, Kind)`). A code added to `errors.yaml`
/// without a producing test fails here, as does a stale row.
#[test]
fn every_active_code_is_produced_by_an_end_to_end_test_in_its_declared_form() {
    let root = workspace();
    let mut server = Vec::new();
    sources(&root.join("server/src"), &[".rs"], &mut server, true);
    assert!(!server.is_empty());
    let spec = spec();
    let mut problems = Vec::new();
    let mut listed = BTreeSet::new();
    for (name, _) in PRODUCED_BY.iter().chain(NOT_PRODUCED) {
        if !listed.insert(*name) {
            problems.push(format!("{name}: listed twice"));
        }
        match spec.code(name) {
            Some(c) if c.is_emitted() && !c.is_deprecated() => {}
            _ => problems.push(format!(
                "{name}: listed but not an active code of errors.yaml"
            )),
        }
    }
    for &code in ErrorCode::ALL {
        let name = code.as_str();
        let spec_code = spec.code(name).expect("every variant is a spec code");
        assert_eq!(
            code.is_violation_kind(),
            spec_code.is_violation_kind(),
            "{name}"
        );
        if spec_code.is_deprecated() {
            continue;
        }
        let constructor = format!("ErrorEnvelope::{}(", name.to_ascii_lowercase());
        let variant = format!("ErrorCode::{code:?}");
        let built = server.iter().any(|(_, t)| t.contains(&constructor));
        let named = server
            .iter()
            .any(|(_, t)| t.contains(&variant) || listed_in(t, &format!("{code:?}")));
        if code.is_violation_kind() {
            if built {
                problems.push(format!(
                    "{name}: declared `sent_as: violation` but server/src calls `{constructor}`, \
                     which sends it as an envelope's own error_code"
                ));
            }
            if !named {
                problems.push(format!(
                    "{name}: a violation kind no violation of server/src carries (no `{variant}`)"
                ));
            }
        } else if !built {
            problems.push(format!(
                "{name}: sent as an envelope, but server/src never calls `{constructor}`; send it, \
                 declare it `sent_as: violation`, or deprecate it in errors.yaml"
            ));
        }
        if let Some((_, why)) = NOT_PRODUCED.iter().find(|(n, _)| *n == name) {
            assert!(!why.is_empty());
            continue;
        }
        let Some((_, test)) = PRODUCED_BY.iter().find(|(n, _)| *n == name) else {
            problems.push(format!(
                "{name}: no end-to-end test produces it; add one and a row to PRODUCED_BY \
                 (or the reason to NOT_PRODUCED)"
            ));
            continue;
        };
        let (module, function) = test.split_once("::").expect("module::function");
        let Some(body) = test_body(&root, module, function) else {
            problems.push(format!(
                "{name}: {test} is not a test function of tests/tests/it"
            ));
            continue;
        };
        if !mentions(&body, name) {
            problems.push(format!("{name}: {test} never asserts it"));
        }
        if code.is_violation_kind() && !body.contains("violation") {
            problems.push(format!(
                "{name}: {test} does not read `violations`, where a violation kind arrives"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Which end-to-end test makes each tool answer each code its operation
/// lists, through the real binary: (tool, code, `module::function`). The
/// test's body names the code, and calls the tool by name (in its body or
/// in a helper of its module it calls). Pairs the random calls produce
/// (`random_calls::PRODUCES`, checked at run time) need no row.
const PRODUCED_BY_TOOL: &[(&str, &str, &str)] = &[
    (
        "multi_edit",
        "VALIDATION_FAILED",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "RELATIVE_PATH",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "PATH_TRAVERSAL",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "EMPTY_EDITS",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "EMPTY_OLD_STRING",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "DUPLICATE_OLD_STRING",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "INVALID_ARGUMENT",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "INVALID_PATH",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "PATH_OUTSIDE_ROOTS",
        "e2e_sandbox::path_outside_roots_under_root_carries_only_the_server_hints",
    ),
    (
        "multi_edit",
        "TOO_MANY_EDITS",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "multi_edit",
        "REQUEST_TOO_LARGE",
        "e2e_stdio::a_request_line_over_the_limit_gets_request_too_large_with_its_id",
    ),
    (
        "multi_edit",
        "MATCH_NOT_FOUND",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "AMBIGUOUS_MATCH",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "STALE_FILE",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "RESULT_TOO_LARGE",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "multi_edit",
        "FILE_NOT_FOUND",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "PERMISSION_DENIED",
        "e2e_faults::immutable_file_is_permission_denied",
    ),
    (
        "multi_edit",
        "INVALID_ENCODING",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "DISK_FULL",
        "e2e_faults::disk_full_on_a_tiny_tmpfs",
    ),
    (
        "multi_edit",
        "READ_ONLY_FS",
        "e2e_faults::read_only_remount",
    ),
    (
        "multi_edit",
        "SYMLINK_LOOP",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "BACKUP_FAILED",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "READ_FAILED",
        "e2e_faults::eio_while_reading_is_read_failed",
    ),
    (
        "multi_edit",
        "WRITE_FAILED",
        "e2e_load::a_thousand_calls_while_one_file_is_locked",
    ),
    (
        "multi_edit",
        "NOT_A_REGULAR_FILE",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit",
        "FILE_TOO_LARGE",
        "e2e_multi_edit::one_case_per_error_code",
    ),
    (
        "multi_edit_files",
        "VALIDATION_FAILED",
        "e2e_migration::edge_cases",
    ),
    (
        "multi_edit_files",
        "RELATIVE_PATH",
        "e2e_sandbox::escape_table",
    ),
    (
        "multi_edit_files",
        "PATH_TRAVERSAL",
        "e2e_sandbox::escape_table",
    ),
    (
        "multi_edit_files",
        "DUPLICATE_FILE_PATH",
        "e2e_stdio::one_file_named_through_two_hard_links_is_a_duplicate",
    ),
    (
        "multi_edit_files",
        "EMPTY_FILES",
        "e2e_multi_edit_files::success_dry_run_and_failures",
    ),
    (
        "multi_edit_files",
        "INVALID_PATH",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "multi_edit_files",
        "PATH_OUTSIDE_ROOTS",
        "e2e_ops::sandbox_rows_for_create_delete_and_move",
    ),
    (
        "multi_edit_files",
        "TOO_MANY_EDITS",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "multi_edit_files",
        "TOO_MANY_FILES",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "multi_edit_files",
        "REQUEST_TOO_LARGE",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "multi_edit_files",
        "MOVE_ONTO_ITSELF",
        "e2e_ops::every_new_error_code",
    ),
    (
        "multi_edit_files",
        "PATH_CONFLICT",
        "e2e_ops::every_new_error_code",
    ),
    (
        "multi_edit_files",
        "MATCH_NOT_FOUND",
        "e2e_ops::a_mixed_transaction_is_all_or_nothing",
    ),
    (
        "multi_edit_files",
        "AMBIGUOUS_MATCH",
        "e2e_migration::edge_cases",
    ),
    (
        "multi_edit_files",
        "STALE_FILE",
        "e2e_multi_edit_files::concurrent_calls_lose_no_update",
    ),
    (
        "multi_edit_files",
        "RESULT_TOO_LARGE",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "multi_edit_files",
        "FILE_ALREADY_EXISTS",
        "e2e_ops::every_new_error_code",
    ),
    (
        "multi_edit_files",
        "PARENT_DIRECTORY_MISSING",
        "e2e_ops::every_new_error_code",
    ),
    (
        "multi_edit_files",
        "FILE_NOT_FOUND",
        "e2e_ops::create_delete_and_move_each_work_and_dry_run_shows_them",
    ),
    (
        "multi_edit_files",
        "NOT_A_REGULAR_FILE",
        "e2e_ops::sandbox_rows_for_create_delete_and_move",
    ),
    (
        "multi_edit_files",
        "FILE_TOO_LARGE",
        "e2e_limits::limits_are_enforced_at_their_exact_values",
    ),
    (
        "multi_edit_files",
        "ROLLBACK_FAILED",
        "e2e_faults::a_failed_rollback_is_reported_per_file_and_finished_by_recover",
    ),
    (
        "multi_edit_files",
        "JOURNAL_UNAVAILABLE",
        "e2e_faults::failed_fsync_of_the_journal_directory_leaves_no_journal",
    ),
    (
        "undo",
        "VALIDATION_FAILED",
        "e2e_undo::unknown_and_malformed_ids_and_a_path_outside_the_roots",
    ),
    (
        "undo",
        "PATH_OUTSIDE_ROOTS",
        "e2e_undo::the_store_survives_a_restart_and_narrower_roots_neither_list_nor_undo",
    ),
    (
        "undo",
        "TRANSACTION_NOT_FOUND",
        "e2e_undo::unknown_and_malformed_ids_and_a_path_outside_the_roots",
    ),
    (
        "undo",
        "UNDO_CONFLICT",
        "e2e_undo::an_outside_change_refuses_the_undo_and_names_every_changed_file",
    ),
    (
        "undo",
        "UNDO_UNAVAILABLE",
        "e2e_undo::an_unusable_store_still_edits_and_answers_undo_unavailable",
    ),
    (
        "list_transactions",
        "VALIDATION_FAILED",
        "e2e_undo::unknown_and_malformed_ids_and_a_path_outside_the_roots",
    ),
    (
        "list_transactions",
        "UNDO_UNAVAILABLE",
        "e2e_undo::an_unusable_store_still_edits_and_answers_undo_unavailable",
    ),
    (
        "multi_edit_files",
        "PERMISSION_DENIED",
        "e2e_faults::each_file_system_fault_through_multi_edit_files",
    ),
    (
        "multi_edit_files",
        "DISK_FULL",
        "e2e_faults::each_file_system_fault_through_multi_edit_files",
    ),
    (
        "multi_edit_files",
        "READ_ONLY_FS",
        "e2e_faults::each_file_system_fault_through_multi_edit_files",
    ),
    (
        "multi_edit_files",
        "BACKUP_FAILED",
        "e2e_faults::each_file_system_fault_through_multi_edit_files",
    ),
    (
        "multi_edit_files",
        "READ_FAILED",
        "e2e_faults::each_file_system_fault_through_multi_edit_files",
    ),
    (
        "multi_edit_files",
        "WRITE_FAILED",
        "e2e_faults::each_file_system_fault_through_multi_edit_files",
    ),
    (
        "undo",
        "PERMISSION_DENIED",
        "e2e_faults::each_file_system_fault_through_undo",
    ),
    (
        "undo",
        "DISK_FULL",
        "e2e_faults::each_file_system_fault_through_undo",
    ),
    (
        "undo",
        "READ_ONLY_FS",
        "e2e_faults::each_file_system_fault_through_undo",
    ),
    (
        "undo",
        "READ_FAILED",
        "e2e_faults::each_file_system_fault_through_undo",
    ),
    (
        "undo",
        "WRITE_FAILED",
        "e2e_faults::each_file_system_fault_through_undo",
    ),
    (
        "undo",
        "FILE_NOT_FOUND",
        "e2e_undo::each_state_of_a_restore_target_past_the_conflict_checks",
    ),
    (
        "undo",
        "SYMLINK_LOOP",
        "e2e_undo::each_state_of_a_restore_target_past_the_conflict_checks",
    ),
    (
        "undo",
        "FILE_TOO_LARGE",
        "e2e_undo::each_state_of_a_restore_target_past_the_conflict_checks",
    ),
    (
        "undo",
        "FILE_ALREADY_EXISTS",
        "e2e_undo::each_state_of_a_restore_target_past_the_conflict_checks",
    ),
    (
        "undo",
        "NOT_A_REGULAR_FILE",
        "e2e_undo::each_state_of_a_restore_target_past_the_conflict_checks",
    ),
    (
        "multi_edit",
        "ROLLBACK_FAILED",
        "e2e_faults::a_single_file_commit_whose_rollback_fails_is_rollback_failed",
    ),
    (
        "undo",
        "ROLLBACK_FAILED",
        "e2e_faults::an_undo_whose_rollback_fails_is_rollback_failed_and_recovered",
    ),
    (
        "undo",
        "JOURNAL_UNAVAILABLE",
        "e2e_faults::an_undo_without_a_usable_journal_is_journal_unavailable",
    ),
    (
        "multi_edit_files",
        "INVALID_ENCODING",
        "e2e_multi_edit_files::invalid_encoding_and_a_symlink_loop_fail_the_whole_call",
    ),
    (
        "multi_edit_files",
        "SYMLINK_LOOP",
        "e2e_multi_edit_files::invalid_encoding_and_a_symlink_loop_fail_the_whole_call",
    ),
];

/// (tool, code) pairs no end-to-end test produces through that tool, and
/// why: empty, since every code a tool lists is produced through it. A code
/// of [`NOT_PRODUCED`] is not produced through any tool and needs no row
/// here. A code a tool cannot produce comes off its operation's list (the
/// server's types then refuse to build it for that tool), rather than
/// getting a row.
const NOT_PRODUCED_BY_TOOL: &[(&str, &str, &str)] = &[];

/// Whether the test body `body` of module `module` calls `tool` by name,
/// itself or through a function of its module it calls.
fn calls_tool(root: &Path, module: &str, body: &str, tool: &str) -> bool {
    let quoted = format!("\"{tool}\"");
    if body.contains(&quoted) {
        return true;
    }
    let Ok(text) = std::fs::read_to_string(root.join(format!("tests/tests/it/{module}.rs"))) else {
        return false;
    };
    let lines: Vec<&str> = text.lines().collect();
    let called = |name: &str| body.contains(&format!("{name}("));
    lines.iter().enumerate().any(|(at, line)| {
        let trimmed = line.trim_start();
        let Some(rest) = trimmed
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ")
            .trim_start_matches("async ")
            .strip_prefix("fn ")
        else {
            return false;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let indent = &line[..line.len() - trimmed.len()];
        let close = format!("{indent}}}");
        let end = lines[at..]
            .iter()
            .position(|l| *l == close)
            .map_or(lines.len(), |e| at + e);
        called(&name) && lines[at..end].iter().any(|l| l.contains(&quoted))
    })
}

/// Every code a tool's operation lists is produced through that tool by an
/// end-to-end test (a row of [`PRODUCED_BY_TOOL`], or the random calls'
/// [`crate::random_calls::PRODUCES`]), or listed with the reason it is not
/// ([`NOT_PRODUCED_BY_TOOL`], or [`NOT_PRODUCED`] for every tool). A pair
/// both produced and listed as not produced fails, as does a row whose
/// tool does not list the code, or whose test does not name the code or
/// call the tool.
#[test]
fn every_code_a_tool_lists_is_produced_through_that_tool() {
    let root = workspace();
    let spec = spec();
    let mut problems = Vec::new();
    let random = crate::random_calls::PRODUCES;
    let mut pairs = BTreeSet::new();
    for op in &spec.operations {
        for code in spec.operation_codes(op) {
            if code.is_deprecated() {
                continue;
            }
            pairs.insert((op.wire().to_owned(), code.wire().to_owned()));
        }
    }
    let rows = PRODUCED_BY_TOOL
        .iter()
        .map(|(t, c, _)| (t, c, "PRODUCED_BY_TOOL"))
        .chain(random.iter().map(|(t, c)| (t, c, "random_calls::PRODUCES")))
        .chain(
            NOT_PRODUCED_BY_TOOL
                .iter()
                .map(|(t, c, _)| (t, c, "NOT_PRODUCED_BY_TOOL")),
        );
    for (tool, code, table) in rows {
        if !pairs.contains(&((*tool).to_owned(), (*code).to_owned())) {
            problems.push(format!(
                "{tool} {code} ({table}): the operation does not list the code"
            ));
        }
    }
    for (tool, code) in &pairs {
        let produced_by: Vec<&str> = PRODUCED_BY_TOOL
            .iter()
            .filter(|(t, c, _)| t == tool && c == code)
            .map(|(_, _, test)| *test)
            .collect();
        let random_produces = random.iter().any(|(t, c)| t == tool && c == code);
        let not_produced = NOT_PRODUCED_BY_TOOL
            .iter()
            .filter(|(t, c, _)| t == tool && c == code)
            .count()
            + usize::from(NOT_PRODUCED.iter().any(|(c, _)| c == code));
        let produced = produced_by.len() + usize::from(random_produces);
        match (produced, not_produced) {
            (0, 0) => problems.push(format!(
                "{tool} {code}: no end-to-end test produces it through {tool}; add a row to \
                 PRODUCED_BY_TOOL (or the reason to NOT_PRODUCED_BY_TOOL)"
            )),
            (0, 1) => {}
            (_, 0) if produced_by.len() <= 1 => {}
            (_, 0) => problems.push(format!("{tool} {code}: more than one row")),
            (_, _) => problems.push(format!(
                "{tool} {code}: listed as not produced, but produced ({produced_by:?}{})",
                if random_produces {
                    ", random_calls"
                } else {
                    ""
                }
            )),
        }
        for test in produced_by {
            let (module, function) = test.split_once("::").expect("module::function");
            let Some(body) = test_body(&root, module, function) else {
                problems.push(format!(
                    "{tool} {code}: {test} is not a test function of tests/tests/it"
                ));
                continue;
            };
            if !mentions(&body, code) {
                problems.push(format!("{tool} {code}: {test} never names {code}"));
            }
            if !calls_tool(&root, module, &body, tool) {
                problems.push(format!("{tool} {code}: {test} never calls {tool}"));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// splice's own envelope read as `AnyErrorEnvelope`: a listed code is the
/// closed `ErrorEnvelope` (an unknown member is still refused); a code of a
/// later splice, even in a category this release does not know, keeps its
/// message, `retryable`, `cause` and hints, which is what an agent needs to
/// decide its next call; a removed code's name is refused, as the schema
/// refuses it.
#[test]
fn any_envelope_reads_later_codes_and_refuses_removed_ones() {
    use expanded::AnyErrorEnvelope;
    let sample = &samples()[0];
    let json = serde_json::to_value(&sample.full).unwrap();
    let any: AnyErrorEnvelope = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(any.listed(), Some(&sample.full));

    let mut surprise = json.clone();
    surprise["surprise"] = Value::Bool(true);
    let err = serde_json::from_value::<AnyErrorEnvelope>(surprise).unwrap_err();
    assert!(
        err.to_string().contains("unknown field `surprise`"),
        "{err}"
    );

    let later = serde_json::json!({
        "success": false,
        "error_code": "QUOTA_SPENT",
        "code": 9001,
        "category": "accounting",
        "message": "The session's edit quota is spent",
        "retryable": false,
        "cause": "environment",
        "recovery_hints": ["Start a new session"],
        "file_path": "/w/a.txt",
        "context": {"quota": 100}
    });
    let unlisted = serde_json::from_value::<AnyErrorEnvelope>(later)
        .unwrap()
        .into_listed()
        .unwrap_err();
    assert_eq!(unlisted.error_code, "QUOTA_SPENT");
    assert_eq!(unlisted.category, "accounting");
    assert!(!unlisted.retryable);
    assert_eq!(unlisted.recovery_hints, ["Start a new session"]);

    let mut removed = json;
    removed["error_code"] = "UNKNOWN_TOOL".into();
    let err = serde_json::from_value::<AnyErrorEnvelope>(removed).unwrap_err();
    assert!(
        err.to_string()
            .contains("`error_code` is `UNKNOWN_TOOL`, a removed code"),
        "{err}"
    );
}

#[test]
fn each_tool_advertises_exactly_the_codes_its_operation_lists() {
    // What a client compiles at `tools/list` is what errors.yaml declares
    // for the tool: a variant for each code its operation lists (but
    // violation kinds, which arrive inside another envelope; codes with the
    // same context share one), and `ErrorCode` (what
    // `violations[].code` holds) the operation's codes, violation kinds
    // included.
    let spec = spec();
    let tools = splice_server::mcp::tools();
    let tool_names: BTreeSet<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let operations: BTreeSet<&str> = spec.operations.iter().map(|op| op.wire()).collect();
    assert_eq!(
        tool_names, operations,
        "every tool is an operation of errors.yaml and back"
    );
    for tool in &tools {
        let op = spec
            .operations
            .iter()
            .find(|op| op.wire() == tool.name)
            .unwrap();
        let codes = spec.operation_codes(op);
        let schema = Value::Object(tool.output_schema.clone().unwrap().as_ref().clone());
        // A variant names one code (`const`) or the codes that share its
        // context (`enum`); each code is in one variant.
        let named: Vec<String> = schema["anyOf"][1]["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: no per-code variants", tool.name))
            .iter()
            .flat_map(|v| {
                let code = &v["properties"]["error_code"];
                match code.get("const") {
                    Some(c) => vec![c.clone()],
                    None => code["enum"].as_array().unwrap().clone(),
                }
            })
            .map(|c| c.as_str().unwrap().to_owned())
            .collect();
        let variants: BTreeSet<String> = named.iter().cloned().collect();
        assert_eq!(
            variants.len(),
            named.len(),
            "{}: a code in two variants",
            tool.name
        );
        let enveloped: BTreeSet<String> = codes
            .iter()
            .filter(|c| c.sent_as() != SentAs::Violation)
            .map(|c| c.wire().to_owned())
            .collect();
        assert_eq!(
            variants, enveloped,
            "{}: the outputSchema's variants",
            tool.name
        );
        let listed = string_set(&schema["$defs"]["ErrorCode"]["enum"]);
        let all: BTreeSet<String> = codes
            .iter()
            .flat_map(|c| c.wire_names())
            .map(str::to_owned)
            .collect();
        assert_eq!(listed, all, "{}: the outputSchema's ErrorCode", tool.name);
    }
}
