//! The published envelope schema, checked with an independent validator.
//!
//! These tests read the committed `schema/error-envelope.schema.json` and
//! `docs/errors.md` (what clients actually get; `artifacts.rs` checks they
//! match `errors.yaml`) and use the `jsonschema` crate to show that:
//! - the schema is a valid draft 2020-12 schema;
//! - every example envelope in the error reference validates;
//! - envelopes that break the contract are rejected: missing required
//!   context, a removed code, a number, `retryable` or `cause` that does not
//!   match the code, a wrongly typed field;
//! - what a later release of the same major version may add (a code, a
//!   field, a member, an enum value) is accepted, and rejected by the strict
//!   schema of this release (`emit_schema::emit_strict`), which the server's
//!   own tests use.

use serde_json::{Value, json};
use splice_codegen::emit_markdown::EXAMPLE_MARKER;

use crate::support::root;

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn schema() -> Value {
    serde_json::from_str(&read("schema/error-envelope.schema.json")).expect("the schema is JSON")
}

fn validator() -> jsonschema::Validator {
    jsonschema::draft202012::new(&schema()).expect("the schema compiles")
}

fn strict_validator() -> jsonschema::Validator {
    let spec = splice_codegen::load_path(&root().join("errors.yaml"))
        .unwrap_or_else(|d| panic!("errors.yaml does not load:\n{}", d.render()));
    jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(&spec))
        .expect("the strict schema compiles")
}

/// The example envelopes of docs/errors.md, keyed by their error_code.
fn doc_examples() -> Vec<(String, Value)> {
    examples_in(&read("docs/errors.md"))
        .into_iter()
        .map(|value| {
            let code = value["error_code"]
                .as_str()
                .expect("example has error_code")
                .to_owned();
            (code, value)
        })
        .collect()
}

/// The example envelopes of a generated reference, in order.
fn examples_in(md: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, piece) in md.split(EXAMPLE_MARKER).enumerate().skip(1) {
        let body = piece
            .trim_start()
            .strip_prefix("```json\n")
            .unwrap_or_else(|| panic!("example {i} is not followed by a ```json block"));
        let end = body.find("\n```").expect("example block is closed");
        let value: Value = serde_json::from_str(&body[..end])
            .unwrap_or_else(|e| panic!("example {i} is not JSON: {e}"));
        out.push(value);
    }
    out
}

fn example(code: &str) -> Value {
    doc_examples()
        .into_iter()
        .find(|(c, _)| c == code)
        .unwrap_or_else(|| panic!("no example for {code}"))
        .1
}

fn errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn schema_passes_draft_2020_12_meta_validation() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$id"], "schema://splice/error-envelope/v1");
    if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("meta-validation failed: {e} at {}", e.instance_path());
    }
}

#[test]
fn every_example_envelope_in_the_reference_validates() {
    let v = validator();
    let spec = splice_codegen::load_path(&root().join("errors.yaml"))
        .unwrap_or_else(|d| panic!("errors.yaml does not load:\n{}", d.render()));
    let examples = doc_examples();
    let mut seen: Vec<&str> = examples.iter().map(|(c, _)| c.as_str()).collect();
    // A violation kind has no envelope of its own, so no example.
    let mut emitted: Vec<&str> = spec
        .enveloped_codes()
        .map(|c| c.name.value.as_str())
        .collect();
    seen.sort();
    emitted.sort();
    assert_eq!(
        seen, emitted,
        "one example per emitted code, none for removed codes"
    );
    for (code, example) in &examples {
        let problems = errors(&v, example);
        assert!(
            problems.is_empty(),
            "example for {code} is invalid: {problems:#?}"
        );
    }
}

#[test]
fn optional_context_is_accepted() {
    let v = validator();
    let mut e = example("MATCH_NOT_FOUND");
    e["file_index"] = json!(0);
    e["file_statuses"] = json!([{"file_index": 0, "file_path": "/a", "status": "failed", "error_code": "MATCH_NOT_FOUND"}]);
    assert!(errors(&v, &e).is_empty(), "{:#?}", errors(&v, &e));

    let mut e = example("STALE_FILE");
    e["context"]["expected_sha256"] = json!("00".repeat(32));
    assert!(errors(&v, &e).is_empty(), "{:#?}", errors(&v, &e));
}

/// Each case: what is wrong, and the envelope with that mistake.
fn invalid_cases() -> Vec<(&'static str, Value)> {
    let base = example("MATCH_NOT_FOUND");
    let with = |f: &dyn Fn(&mut Value)| {
        let mut e = base.clone();
        f(&mut e);
        e
    };
    vec![
        (
            "MATCH_NOT_FOUND without context.snippet",
            with(&|e| {
                e["context"].as_object_mut().unwrap().remove("snippet");
            }),
        ),
        (
            "MATCH_NOT_FOUND without a context object",
            with(&|e| {
                e.as_object_mut().unwrap().remove("context");
            }),
        ),
        (
            "MATCH_NOT_FOUND without edit_index",
            with(&|e| {
                e.as_object_mut().unwrap().remove("edit_index");
            }),
        ),
        (
            "MATCH_NOT_FOUND without edit_status",
            with(&|e| {
                e.as_object_mut().unwrap().remove("edit_status");
            }),
        ),
        (
            "removed code UNKNOWN_TOOL",
            json!({
                "success": false, "error_code": "UNKNOWN_TOOL", "code": 9003,
                "category": "internal", "message": "unknown tool", "retryable": false,
                "cause": "server", "recovery_hints": ["Call tools/list"]
            }),
        ),
        (
            "code number of another error_code",
            with(&|e| e["code"] = json!(2001)),
        ),
        (
            "retryable flipped",
            with(&|e| e["retryable"] = json!(false)),
        ),
        (
            "cause changed",
            with(&|e| e["cause"] = json!("environment")),
        ),
        (
            "category changed",
            with(&|e| e["category"] = json!("validation")),
        ),
        ("success true", with(&|e| e["success"] = json!(true))),
        (
            "edit_index as a string",
            with(&|e| e["edit_index"] = json!("1")),
        ),
        (
            "negative edit_index",
            with(&|e| e["edit_index"] = json!(-1)),
        ),
        (
            "empty recovery_hints",
            with(&|e| e["recovery_hints"] = json!([])),
        ),
        (
            "violation without a path",
            with_example("VALIDATION_FAILED", |e| {
                e["violations"][0].as_object_mut().unwrap().remove("path");
            }),
        ),
        (
            "STALE_FILE blamed on the input",
            with_example("STALE_FILE", |e| e["cause"] = json!("input")),
        ),
        (
            "FILE_NOT_FOUND marked not retryable",
            with_example("FILE_NOT_FOUND", |e| e["retryable"] = json!(false)),
        ),
        (
            "AMBIGUOUS_MATCH without match_count",
            with_example("AMBIGUOUS_MATCH", |e| {
                e["context"].as_object_mut().unwrap().remove("match_count");
            }),
        ),
        (
            "ROLLBACK_FAILED without rollback",
            with_example("ROLLBACK_FAILED", |e| {
                e.as_object_mut().unwrap().remove("rollback");
            }),
        ),
    ]
}

/// What a later release of the same major version may send (each an
/// addition `splice-codegen diff` classifies as compatible).
fn later_release_cases() -> Vec<(&'static str, Value)> {
    let base = example("MATCH_NOT_FOUND");
    let with = |f: &dyn Fn(&mut Value)| {
        let mut e = base.clone();
        f(&mut e);
        e
    };
    vec![
        (
            "unknown error_code",
            with(&|e| e["error_code"] = json!("NO_SUCH_CODE")),
        ),
        ("unknown top-level property", with(&|e| e["foo"] = json!(1))),
        (
            "unknown context property",
            with(&|e| e["context"]["foo"] = json!(1)),
        ),
        (
            "a context field the code may not carry (backup_path)",
            with(&|e| e["backup_path"] = json!("/a.bak")),
        ),
        (
            "a context-object field the code may not carry (limit)",
            with(&|e| e["context"]["limit"] = json!({"name": "max_edits", "max": 1})),
        ),
        (
            "edit_status entry with an unknown status",
            with(&|e| e["edit_status"][1]["status"] = json!("done")),
        ),
        (
            "edit_status entry with an unknown member",
            with(&|e| e["edit_status"][1]["note"] = json!("x")),
        ),
        (
            "violation with an unknown code",
            with_example("VALIDATION_FAILED", |e| {
                e["violations"][0]["code"] = json!("SCHEMA_ERROR")
            }),
        ),
        (
            "a new code in a new category",
            json!({
                "success": false, "error_code": "A_LATER_CODE", "code": 2999,
                "category": "a_later_category", "message": "m", "retryable": false,
                "cause": "server", "recovery_hints": ["h"], "context": {"x": 1}
            }),
        ),
        (
            "a new member of a support type",
            with(&|e| e["edit_status"][0]["hint"] = json!("x")),
        ),
    ]
}

fn with_example(code: &str, f: impl FnOnce(&mut Value)) -> Value {
    let mut e = example(code);
    f(&mut e);
    e
}

#[test]
fn envelopes_that_break_the_contract_are_rejected() {
    for (name, v) in [("published", validator()), ("strict", strict_validator())] {
        let mut accepted = Vec::new();
        for (what, envelope) in invalid_cases() {
            if v.is_valid(&envelope) {
                accepted.push(what);
            }
        }
        assert!(
            accepted.is_empty(),
            "the {name} schema accepted: {accepted:#?}"
        );
    }
}

/// Forward compatibility: a client validating with this release's schema
/// accepts what a later minor release sends; the strict schema of this
/// release (what the server checks its own answers with) does not.
#[test]
fn what_a_later_release_may_add_is_accepted_and_the_strict_schema_refuses_it() {
    let published = validator();
    let strict = strict_validator();
    for (what, envelope) in later_release_cases() {
        let problems = errors(&published, &envelope);
        assert!(
            problems.is_empty(),
            "the published schema refuses {what}: {problems:#?}"
        );
        assert!(
            !strict.is_valid(&envelope),
            "the strict schema accepts {what}"
        );
    }
    // And the strict schema accepts every example this release documents.
    for (code, example) in doc_examples() {
        let problems = errors(&strict, &example);
        assert!(
            problems.is_empty(),
            "strict: example for {code}: {problems:#?}"
        );
    }
}

#[test]
fn a_missing_required_field_is_reported_where_it_belongs() {
    // A root `oneOf` only says that no variant matched; the code's own
    // variant says where (what a client does to explain a rejection).
    let mut schema = schema();
    schema["$ref"] = json!("#/$defs/MatchNotFoundEnvelope");
    schema.as_object_mut().unwrap().remove("oneOf");
    let v = jsonschema::draft202012::new(&schema).expect("the variant compiles");
    let mut e = example("MATCH_NOT_FOUND");
    e["context"].as_object_mut().unwrap().remove("snippet");
    let problems = errors(&v, &e);
    assert!(
        problems.iter().any(|p| p.contains("\"snippet\" is a required property") && p.ends_with("at /context")),
        "{problems:#?}"
    );
}

/// A code whose wire name is the empty string (Kubernetes' `"reason": ""`)
/// is a code like any other: a payload with `"reason": ""` is exactly its
/// variant, one with another unknown reason is the unlisted one, and one
/// without `reason` is none.
#[test]
fn an_empty_wire_name_is_one_variant() {
    let spec =
        splice_codegen::load_path(&root().join("codegen/tests/fixtures/envelopes/kubernetes.yaml"))
            .unwrap_or_else(|d| panic!("{}", d.render()));
    let schema = splice_codegen::emit_schema::emit(&spec);
    let variants: Vec<String> = schema["oneOf"]
        .as_array()
        .expect("a oneOf of variants")
        .iter()
        .map(|v| v["$ref"].as_str().expect("a $ref").to_owned())
        .collect();
    let matching = |payload: &Value| -> Vec<String> {
        variants
            .iter()
            .filter(|r| {
                let mut one = schema.clone();
                one.as_object_mut().unwrap().remove("oneOf");
                one["$ref"] = json!(r);
                jsonschema::draft202012::new(&one)
                    .expect("the variant compiles")
                    .is_valid(payload)
            })
            .cloned()
            .collect()
    };
    let payload = |reason: Option<&str>| {
        let mut p = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                           "message": "boom", "code": 500});
        if let Some(r) = reason {
            p["reason"] = json!(r);
        }
        p
    };
    assert_eq!(matching(&payload(Some(""))), ["#/$defs/UnknownEnvelope"]);
    assert_eq!(
        matching(&payload(Some("NotFound"))),
        ["#/$defs/NotFoundEnvelope"]
    );
    assert_eq!(matching(&payload(Some("Gone"))), ["#/$defs/GoneEnvelope"]);
    assert_eq!(
        matching(&payload(Some("Expired"))),
        ["#/$defs/ExpiredEnvelope"]
    );
    assert_eq!(
        matching(&payload(Some("Conflict"))),
        ["#/$defs/UnlistedCodeEnvelope"]
    );
    assert!(matching(&payload(None)).is_empty());
    let v = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    assert!(v.is_valid(&payload(Some(""))));
    assert!(!v.is_valid(&payload(None)));
}

/// Code families: an unlisted code of a family matches its family's variant
/// and no other (the first family wins, a listed name is never a family's),
/// the family's category is fixed, and a code of no family is the unlisted
/// one.
#[test]
fn an_unlisted_code_of_a_family_is_its_familys_variant() {
    let spec =
        splice_codegen::load_path(&root().join("codegen/tests/fixtures/envelopes/families.yaml"))
            .unwrap_or_else(|d| panic!("{}", d.render()));
    let schema = splice_codegen::emit_schema::emit(&spec);
    let variants: Vec<String> = schema["oneOf"]
        .as_array()
        .expect("a oneOf of variants")
        .iter()
        .map(|v| v["$ref"].as_str().expect("a $ref").to_owned())
        .collect();
    let matching = |payload: &Value| -> Vec<String> {
        variants
            .iter()
            .filter(|r| {
                let mut one = schema.clone();
                one.as_object_mut().unwrap().remove("oneOf");
                one["$ref"] = json!(r);
                jsonschema::draft202012::new(&one)
                    .expect("the variant compiles")
                    .is_valid(payload)
            })
            .map(|r| r.trim_start_matches("#/$defs/").to_owned())
            .collect()
    };
    let payload = |code: &str| json!({"Error": {"Code": code, "Message": "boom"}});
    for (code, variant) in [
        ("ThrottlingException", "ThrottlingExceptionEnvelope"),
        ("ResourceNotFoundException", "ResourceNotFoundEnvelope"),
        ("RequestLimitExceeded", "RequestLimitExceededEnvelope"),
        ("ThrottlingOnSunday", "ThrottlingFamilyEnvelope"),
        ("Throttling", "ThrottlingFamilyEnvelope"),
        ("QueueNotFoundException", "NotFoundFamilyEnvelope"),
        // Both rules match: the first family wins.
        ("ThrottlingNotFoundException", "ThrottlingFamilyEnvelope"),
        ("NotFoundException", "NotFoundFamilyEnvelope"),
        ("InternalFailure", "UnlistedCodeEnvelope"),
        ("throttlingexception", "UnlistedCodeEnvelope"),
    ] {
        assert_eq!(matching(&payload(code)), [variant], "{code}");
    }
    let def = &schema["$defs"]["NotFoundFamilyEnvelope"];
    assert_eq!(
        def["properties"]["Error"]["properties"]["Code"]["pattern"],
        "NotFoundException$"
    );
    let v = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    assert!(v.is_valid(&payload("TableNotFoundException")));
    let mut keys = Vec::new();
    keywords(&schema, "#", &mut keys);
    assert!(keys.is_empty(), "{keys:#?}");
}

/// Range families: an unlisted number in the first range that holds it is
/// that family's variant; a listed or reserved-free number outside every
/// range is the unlisted one; a listed number stays its code's.
#[test]
fn an_unlisted_number_in_a_range_family_is_its_familys_variant() {
    let spec = splice_codegen::load_path(
        &root().join("codegen/tests/fixtures/envelopes/families_range.yaml"),
    )
    .unwrap_or_else(|d| panic!("{}", d.render()));
    let schema = splice_codegen::emit_schema::emit(&spec);
    let v = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let matching = |payload: &Value| -> Vec<String> {
        schema["oneOf"]
            .as_array()
            .expect("a oneOf of variants")
            .iter()
            .map(|v| v["$ref"].as_str().expect("a $ref").to_owned())
            .filter(|r| {
                let mut one = schema.clone();
                one.as_object_mut().unwrap().remove("oneOf");
                one["$ref"] = json!(r);
                jsonschema::draft202012::new(&one)
                    .expect("the variant compiles")
                    .is_valid(payload)
            })
            .map(|r| r.trim_start_matches("#/$defs/").to_owned())
            .collect()
    };
    let payload =
        |code: i64| json!({"jsonrpc": "2.0", "error": {"code": code, "message": "boom"}, "id": 1});
    for (code, variant) in [
        (-32603, "InternalErrorEnvelope"),
        (-32050, "ServerErrorFamilyEnvelope"),
        (-32000, "ServerErrorFamilyEnvelope"),
        (-32099, "ServerErrorFamilyEnvelope"),
        (-32100, "ReservedFamilyEnvelope"),
        (-32601, "ReservedFamilyEnvelope"),
        (-32768, "ReservedFamilyEnvelope"),
        (-31999, "UnlistedCodeEnvelope"),
        (7, "UnlistedCodeEnvelope"),
    ] {
        assert_eq!(matching(&payload(code)), [variant], "{code}");
        assert!(v.is_valid(&payload(code)), "{code}");
    }
    assert_eq!(
        spec.family_of_number(-32050).map(|f| f.name.value.as_str()),
        Some("server_error")
    );
    assert_eq!(spec.family_of_number(-32603), None);
}

/// `pattern` on envelope members (RFC 6749's character set of `error`
/// and `error_description`) holds in every variant, the unlisted one too
/// (whose code is any other name the pattern matches), in the strict
/// schema too, and the Rust docs name it as they name a field's.
#[test]
fn envelope_members_keep_their_pattern() {
    let spec =
        splice_codegen::load_path(&root().join("codegen/tests/fixtures/envelopes/oauth.yaml"))
            .unwrap_or_else(|d| panic!("{}", d.render()));
    let v = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit(&spec))
        .expect("the schema compiles");
    let strict = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(&spec))
        .expect("the strict schema compiles");
    let payload =
        |error: &str, description: &str| json!({"error": error, "error_description": description});
    for (p, ok) in [
        (payload("invalid_grant", "The code has expired."), true),
        (payload("invalid_grant", "say \"no\""), false),
        (payload("invalid_grant", "caf\u{e9}"), false),
        (payload("slow_down", "Poll less often."), true),
        (payload("slow down\\", "Poll less often."), false),
    ] {
        assert_eq!(v.is_valid(&p), ok, "{p}");
        // The strict schema refuses a code this release does not list.
        let listed = p["error"] == "invalid_grant";
        assert_eq!(strict.is_valid(&p), ok && listed, "strict: {p}");
    }
    let rust = splice_codegen::emit_rust::emit_pretty(&spec);
    assert!(
        rust.contains("(pattern: ^[\\x20-\\x21\\x23-\\x5B\\x5D-\\x7E]*$)"),
        "{rust}"
    );
}

/// Keywords the official TypeScript MCP client (Ajv, default draft-07 mode)
/// enforces the same way as a 2020-12 validator. Anything else (for example
/// `unevaluatedProperties`, `dependentRequired`, `prefixItems`) would be
/// silently ignored there, so clients would accept envelopes we reject.
const AJV_DRAFT7_SAFE: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$defs",
    "title",
    "description",
    "type",
    "enum",
    "const",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minItems",
    "minimum",
    "oneOf",
    "anyOf",
    "not",
    "pattern",
    "deprecated",
];

fn keywords(schema: &Value, at: &str, out: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        return; // boolean schemas
    };
    for (key, value) in map {
        if !AJV_DRAFT7_SAFE.contains(&key.as_str()) {
            out.push(format!("{at}/{key}"));
        }
        match key.as_str() {
            "properties" | "$defs" => {
                for (name, sub) in value.as_object().expect("a map of schemas") {
                    keywords(sub, &format!("{at}/{key}/{name}"), out);
                }
            }
            "oneOf" | "anyOf" => {
                for (i, sub) in value
                    .as_array()
                    .expect("an array of schemas")
                    .iter()
                    .enumerate()
                {
                    keywords(sub, &format!("{at}/{key}/{i}"), out);
                }
            }
            "items" | "not" | "additionalProperties" => {
                keywords(value, &format!("{at}/{key}"), out)
            }
            _ => {}
        }
    }
}

#[test]
fn schema_uses_only_keywords_ajv_draft7_enforces() {
    let mut unsafe_keywords = Vec::new();
    keywords(&schema(), "#", &mut unsafe_keywords);
    assert!(unsafe_keywords.is_empty(), "{unsafe_keywords:#?}");
}

/// `diff`'s "compatible" checked against the schema itself: a minor release
/// that adds a code in a new category with a new field of a new type, a
/// value to an enum, a member to an object type and an optional field to an
/// existing code is classified compatible, and every envelope of it (the
/// documented examples, with the additions filled in) validates against the
/// schema of the release before it, as a client that has not updated does.
#[test]
fn every_envelope_of_a_compatible_release_validates_against_the_schema_before_it() {
    let old_text = read("errors.yaml");
    let old = splice_codegen::load_str(&old_text, "errors.yaml")
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let v = &old.taxonomy.version.value;
    let new_text = old_text
        .replacen(
            &format!("  version: {v}\n"),
            &format!("  version: {}.{}.0\n", v.major, v.minor + 1),
            1,
        )
        .replacen(
            "\ncategories:\n",
            "\ncategories:\n  later:\n    range: [7000, 7999]\n    description: A category of a later release.\n    \
             retryable: false\n    cause: environment\n",
            1,
        )
        .replacen(
            "\ntypes:\n",
            "\ntypes:\n  Lease:\n    doc: A lease a later release reports.\n    members:\n      \
             holder: { type: string, doc: Who holds it. }\n      \
             state: { type: LeaseState, doc: Its state. }\n  \
             LeaseState:\n    doc: The state of a lease.\n    enum: [held, expired]\n",
            1,
        )
        .replacen(
            "    enum: [failed, would_apply, skipped]\n",
            "    enum: [failed, would_apply, skipped, deferred]\n",
            1,
        )
        .replacen(
            "      edit_index:\n        type: integer\n        doc: \"0-based index of the edit in the call's edits array.\"\n",
            "      edit_index:\n        type: integer\n        doc: \"0-based index of the edit in the call's edits array.\"\n      \
             attempt:\n        type: integer\n        optional: true\n        doc: A member of a later release.\n",
            1,
        )
        .replacen(
            "\nfields:\n",
            "\nfields:\n  lease:\n    type: Lease\n    in: context\n    doc: The lease in the way.\n",
            1,
        )
        .replacen(
            "      optional: [expected_sha256, file_index, file_statuses]\n",
            "      optional: [expected_sha256, file_index, file_statuses, lease]\n",
            1,
        )
        .replacen(
            "    codes: [UNDO_UNAVAILABLE]\n",
            "    codes: [UNDO_UNAVAILABLE, LEASE_HELD]\n",
            1,
        )
        + "  LEASE_HELD:\n    number: 7000\n    category: later\n    since: 1.0.0\n    \
           title: the file is leased by another writer\n    \
           message: \"{file_path} is leased\"\n    recovery_hints:\n      - Wait for the lease to expire\n    \
           context:\n      required: [file_path, lease]\n    explanation: |\n      Leased.\n";
    let new = splice_codegen::load_str(&new_text, "errors.yaml")
        .unwrap_or_else(|d| panic!("the later release does not load:\n{}", d.render()));
    assert_eq!(
        new.emitted_codes().count(),
        old.emitted_codes().count() + 1,
        "the edits to the spec no longer apply"
    );
    let report = splice_codegen::diff::diff(&old, &new);
    assert!(report.is_acceptable(), "{}", report.render("errors.yaml"));
    let rendered = report.render("errors.yaml");
    assert!(!rendered.contains("breaking:"), "{rendered}");
    for what in ["LEASE_HELD", "deferred", "attempt", "lease"] {
        assert!(
            rendered.contains(what),
            "diff does not report `{what}`:\n{rendered}"
        );
    }

    let old_schema = splice_codegen::emit_schema::emit(&old);
    let before = jsonschema::draft202012::new(&old_schema).expect("compiles");
    let old_strict = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(&old))
        .expect("compiles");
    let mut refused_by_old_strict = 0;
    for code in new.emitted_codes() {
        let mut env = splice_codegen::emit_markdown::example_envelope(&new, code).unwrap();
        if code.name.value == "STALE_FILE" {
            env["context"]["lease"] = json!({"holder": "pid 7", "state": "expired"});
        }
        if let Some(Value::Array(statuses)) = env.get_mut("edit_status") {
            for s in statuses.iter_mut() {
                s["status"] = json!("deferred");
                s["attempt"] = json!(2);
            }
        }
        let problems = errors(&before, &env);
        assert!(
            problems.is_empty(),
            "{}: the previous release's schema refuses it: {problems:#?}\n{env:#}",
            code.name.value
        );
        if !old_strict.is_valid(&env) {
            refused_by_old_strict += 1;
        }
    }
    // The additions are really in the envelopes: the previous release's
    // strict schema refuses the new code and every envelope with an
    // edit_status, and STALE_FILE.
    assert!(refused_by_old_strict >= 3, "{refused_by_old_strict}");
}

/// A spec that declares its own `envelope:` (google.rpc.Status's JSON form,
/// nested in `error`, no `retryable`/`cause`/hints on the wire).
fn google_rpc_spec() -> splice_codegen::spec::Spec {
    let path = root().join("codegen/tests/fixtures/envelopes/google_rpc.yaml");
    splice_codegen::load_path(&path)
        .unwrap_or_else(|d| panic!("google_rpc.yaml does not load:\n{}", d.render()))
}

#[test]
fn a_declared_envelope_shapes_the_schema() {
    let spec = google_rpc_spec();
    let schema = splice_codegen::emit_schema::emit(&spec);
    let open = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let strict = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(&spec))
        .expect("the strict schema compiles");
    // What Google's JSON APIs send (AIP-193), members in their own names.
    let not_found = json!({"error": {
        "code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"}});
    let internal = json!({"error": {
        "code": 500, "message": "Internal error encountered.", "status": "INTERNAL",
        "details": [{"reason": "BACKEND_DOWN", "domain": "example.com"}]}});
    for ok in [&not_found, &internal] {
        assert_eq!(errors(&open, ok), Vec::<String>::new(), "{ok}");
        assert_eq!(errors(&strict, ok), Vec::<String>::new(), "{ok}");
    }
    let later = json!({"error": {
        "code": 504, "message": "Deadline expired.", "status": "DEADLINE_EXCEEDED"}});
    assert_eq!(
        errors(&open, &later),
        Vec::<String>::new(),
        "a later code is accepted"
    );
    assert!(
        !errors(&strict, &later).is_empty(),
        "the strict schema lists this release only"
    );
    let broken = [
        (
            "required detail missing",
            json!({"error": {"code": 500, "message": "m", "status": "INTERNAL"}}),
        ),
        (
            "number of another code",
            json!({"error": {"code": 500, "message": "m", "status": "NOT_FOUND"}}),
        ),
        (
            "no wrapper",
            json!({"code": 404, "message": "m", "status": "NOT_FOUND"}),
        ),
        (
            "splice's members are not this envelope's",
            json!({"success": false, "error_code": "NOT_FOUND", "code": 404, "message": "m"}),
        ),
    ];
    for (why, bad) in broken {
        assert!(!errors(&open, &bad).is_empty(), "{why}: {bad} was accepted");
    }
    // The output shape nests and closes the same way.
    let shape = splice_codegen::emit_schema::emit_output_shape(&spec);
    assert_eq!(shape["required"], json!(["error"]));
    assert_eq!(shape["properties"]["error"]["additionalProperties"], false);
    assert_eq!(
        shape["properties"]["error"]["required"],
        json!(["code", "message", "status"])
    );
    let shape_v = jsonschema::draft202012::new(&shape).expect("the output shape compiles");
    assert_eq!(errors(&shape_v, &internal), Vec::<String>::new());
}

/// `generate` follows a declared envelope: every artifact is written, and
/// the example envelopes of the reference have the declared shape and
/// validate (the clients are checked in `client_types.rs`).
#[test]
fn generate_follows_a_declared_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let spec = root().join("codegen/tests/fixtures/envelopes/google_rpc.yaml");
    let outcome = splice_codegen::generate::run_at(&spec, dir.path(), false).unwrap();
    assert!(outcome.is_success(), "{}", outcome.render());
    assert_eq!(outcome.files.len(), 5);
    let docs = std::fs::read_to_string(dir.path().join("docs/errors.md")).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("schema/error-envelope.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let examples = examples_in(&docs);
    assert_eq!(examples.len(), 2);
    for env in examples {
        assert!(env["error"]["status"].is_string(), "{env}");
        assert_eq!(errors(&v, &env), Vec::<String>::new(), "{env}");
    }
}

/// `old` and `new` loaded as `diff` loads them, the report, and the old
/// release's published schema.
fn release_pair(
    old: &str,
    new: &str,
) -> (
    splice_codegen::spec::Spec,
    splice_codegen::diff::DiffReport,
    jsonschema::Validator,
) {
    let old = splice_codegen::load::load_baseline_str(old, "old.yaml")
        .unwrap_or_else(|d| panic!("the old release does not load:\n{}", d.render()));
    let new = splice_codegen::load_str(new, "new.yaml")
        .unwrap_or_else(|d| panic!("the new release does not load:\n{}", d.render()));
    let report = splice_codegen::diff::diff(&old, &new);
    let before = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit(&old))
        .expect("the old schema compiles");
    (new, report, before)
}

/// The example envelope of `code` in `spec`.
fn envelope_of(spec: &splice_codegen::spec::Spec, code: &str) -> Value {
    let c = spec.code(code).unwrap_or_else(|| panic!("no code {code}"));
    splice_codegen::emit_markdown::example_envelope(spec, c).expect("an example envelope")
}

/// `diff` and the released schema agree on the changes the old schema
/// refuses (issue #53): adding a union variant, restoring a removed code,
/// adding a code whose wire name breaks the old schema's name pattern, and
/// adding a negative-numbered code are breaking, and for each the new
/// release's envelope the old schema refuses is the witness; a plain added
/// code stays compatible and its envelope validates.
#[test]
fn diff_calls_breaking_exactly_what_the_released_schema_refuses() {
    let demo = read("codegen/tests/fixtures/demo.yaml");
    let later = |extra: &str, number: i64, category: &str| {
        let code = format!(
            "  LATER_CODE:\n    number: {number}\n    category: {category}\n    since: 2.2.0\n{extra}    \
             title: a later code\n    message: \"later\"\n    recovery_hints:\n      - \"Retry\"\n    \
             explanation: |\n      Later.\n\ntypes:\n"
        );
        let text = demo
            .replacen("version: 2.1.0", "version: 2.2.0", 1)
            .replacen("\ntypes:\n", &format!("\n{code}"), 1);
        assert_ne!(text, demo);
        text
    };
    let negative = later("", -32001, "rpc").replacen(
        "\ncategories:\n",
        "\ncategories:\n  rpc:\n    range: [-32099, -32000]\n    description: JSON-RPC.\n    \
         retryable: false\n    cause: server\n",
        1,
    );
    let restored = demo
        .replacen("version: 2.1.0", "version: 2.2.0", 1)
        .replacen(
            "    removed:\n      since: 2.0.0\n      reason: it was never emitted\n",
            "",
            1,
        );
    let cases: [(&str, String, &str, Option<&str>); 4] = [
        (
            "a plain added code",
            later("", 2003, "domain"),
            "LATER_CODE",
            None,
        ),
        (
            "an added code spelled outside the old name pattern",
            later("    wire: laterCode\n", 2003, "domain"),
            "LATER_CODE",
            Some("must be SCREAMING_SNAKE_CASE"),
        ),
        (
            "an added negative-numbered code",
            negative,
            "LATER_CODE",
            Some("refuses number -32001"),
        ),
        (
            "a removed code restored",
            restored,
            "GONE",
            Some("removed code `GONE` was restored"),
        ),
    ];
    for (what, new_text, code, breaking) in cases {
        let (new, report, before) = release_pair(&demo, &new_text);
        let rendered = report.render("new.yaml");
        let envelope = envelope_of(&new, code);
        let refused = errors(&before, &envelope);
        match breaking {
            None => {
                assert!(!report.has_breaking(), "{what}:\n{rendered}");
                assert_eq!(refused, Vec::<String>::new(), "{what}: {envelope}");
            }
            Some(needle) => {
                let change = report
                    .changes
                    .iter()
                    .find(|c| c.message.contains(needle))
                    .unwrap_or_else(|| panic!("{what}: no `{needle}`:\n{rendered}"));
                assert_eq!(
                    change.compat,
                    splice_codegen::diff::Compat::Breaking,
                    "{what}:\n{rendered}"
                );
                assert!(
                    !refused.is_empty(),
                    "{what}: the old schema accepts the witness {envelope}"
                );
            }
        }
    }

    // A union variant added: the old schema's `oneOf` refuses a value of it.
    let constructs = read("codegen/tests/fixtures/constructs.yaml");
    let with_variant = constructs
        .replacen(
            "  StatusDetail:\n",
            "  QuotaFailure:\n    doc: Q.\n    members:\n      limit: { type: int64, doc: L. }\n  StatusDetail:\n",
            1,
        )
        .replacen(
            "        RetryInfo: type.googleapis.com/google.rpc.RetryInfo\n",
            "        RetryInfo: type.googleapis.com/google.rpc.RetryInfo\n        QuotaFailure: q\n",
            1,
        )
        .replacen(
            "        - { \"@type\": type.googleapis.com/google.rpc.ErrorInfo, reason: RATE_LIMIT_EXCEEDED }\n",
            "        - { \"@type\": q, limit: 7 }\n",
            1,
        );
    let version = |s: &str| {
        s.lines()
            .find(|l| l.contains("version:"))
            .unwrap()
            .to_owned()
    };
    let bumped = with_variant.replacen(&version(&constructs), "  version: 9.0.0", 1);
    let (new, report, before) = release_pair(&constructs, &bumped);
    let rendered = report.render("new.yaml");
    assert!(
        report
            .changes
            .iter()
            .any(|c| c.compat == splice_codegen::diff::Compat::Breaking
                && c.message
                    .contains("variant `QuotaFailure` added to union `StatusDetail`")),
        "{rendered}"
    );
    let witness = envelope_of(&new, "THROTTLED");
    assert!(
        witness.to_string().contains("\"limit\":7"),
        "the example carries the new variant: {witness}"
    );
    assert!(
        !errors(&before, &witness).is_empty(),
        "the old schema accepts the witness {witness}"
    );
}

/// `diff X X` reports nothing, for every spec of the repository and a spec
/// without `types:` or `fields:` (which read with the format-1 vocabulary
/// appended on the old side only and reported 24 breaking changes).
#[test]
fn a_spec_compared_with_itself_has_no_change() {
    for rel in [
        "errors.yaml",
        "codegen/tests/fixtures/demo.yaml",
        "codegen/tests/fixtures/constructs.yaml",
        "codegen/tests/fixtures/valid.yaml",
        "codegen/tests/fixtures/retry.yaml",
        "codegen/tests/fixtures/envelopes/google_rpc.yaml",
        "codegen/tests/fixtures/envelopes/jsonrpc.yaml",
        "codegen/tests/fixtures/envelopes/rfc9457.yaml",
        "codegen/tests/fixtures/envelopes/kubernetes.yaml",
        "codegen/tests/fixtures/diff/no_declarations.yaml",
    ] {
        let path = root().join(rel);
        let old = splice_codegen::load::load_baseline_path(&path)
            .unwrap_or_else(|d| panic!("{rel}:\n{}", d.render()));
        let new =
            splice_codegen::load_path(&path).unwrap_or_else(|d| panic!("{rel}:\n{}", d.render()));
        let report = splice_codegen::diff::diff(&old, &new);
        assert!(
            report.changes.is_empty() && report.is_acceptable(),
            "{rel}:\n{}",
            report.render(rel)
        );
    }
}

/// Each operation's output shape (its tool's `outputSchema`, where codes
/// with the same context share a variant) and the operation's definition in
/// the strict published schema (`$defs/<Op>Error`, one variant per code)
/// accept and refuse the same envelopes. Built from every code's example:
/// as is (a code outside the operation is refused by both); carrying each
/// listed code's context instead of its own, for codes that carry one
/// (accepted when the two
/// codes' contexts have one schema, which is what lets them share a
/// variant); without its context; with an unknown context member; with an
/// unknown top-level member. Left out: a violation of a kind the operation
/// does not list (the shape's `ErrorCode` is the operation's).
#[test]
fn each_operation_shape_agrees_with_its_published_definition() {
    let spec = splice_codegen::load_path(&root().join("errors.yaml"))
        .unwrap_or_else(|d| panic!("errors.yaml does not load:\n{}", d.render()));
    let strict = splice_codegen::emit_schema::emit_strict(&spec);
    let examples = doc_examples();
    let mut shared = 0;
    for op in &spec.operations {
        let shape = splice_codegen::emit_schema::emit_operation_output_shape(&spec, op);
        let shape_v = jsonschema::draft202012::new(&shape).expect("the shape compiles");
        let mut published = strict.clone();
        let root = published.as_object_mut().unwrap();
        root.remove("oneOf");
        root.insert(
            "$ref".into(),
            json!(format!("#/$defs/{}", op.error_type_name())),
        );
        let published_v =
            jsonschema::draft202012::new(&published).expect("the operation's definition compiles");
        let listed: Vec<&(String, Value)> = examples
            .iter()
            .filter(|(code, _)| spec.operation_codes(op).iter().any(|c| c.wire() == code))
            .collect();
        let mut cases: Vec<(String, Value)> = Vec::new();
        for (code, example) in &examples {
            cases.push((code.clone(), example.clone()));
            for (other, theirs) in &listed {
                // A code that carries no context leaves `context` to the
                // envelope's members in the shape (any object), where the
                // published variant closes it: not a case of sharing.
                let carries_context = spec.codes.iter().any(|c| {
                    c.wire() == other
                        && strict["$defs"][c.envelope_type_name()]["properties"]
                            .get("context")
                            .is_some()
                });
                if other == code || !carries_context {
                    continue;
                }
                let mut v = (*theirs).clone();
                let o = v.as_object_mut().unwrap();
                o.remove("context");
                if let Some(c) = example.get("context") {
                    o.insert("context".into(), c.clone());
                }
                cases.push((format!("{other} with the context of {code}"), v));
            }
            let mut v = example.clone();
            if v.as_object_mut().unwrap().remove("context").is_some() {
                cases.push((format!("{code} without its context"), v));
                let mut v = example.clone();
                v["context"]["not_a_member"] = json!(1);
                cases.push((format!("{code} with an unknown context member"), v));
            }
            let mut v = example.clone();
            v["not_a_member"] = json!(1);
            cases.push((format!("{code} with an unknown member"), v));
        }
        // The shape's `ErrorCode` (what `violations[].code` holds) lists the
        // operation's codes, where the published one lists every code.
        let op_codes: Vec<&str> = spec
            .operation_codes(op)
            .iter()
            .flat_map(|c| c.wire_names())
            .collect();
        cases.retain(|(_, v)| {
            v["violations"].as_array().is_none_or(|vs| {
                vs.iter()
                    .all(|x| op_codes.contains(&x["code"].as_str().unwrap_or("")))
            })
        });
        for (what, envelope) in &cases {
            let by_shape = shape_v.is_valid(envelope);
            assert_eq!(
                by_shape,
                published_v.is_valid(envelope),
                "{}: {what}: the shape {} it, the published definition does not\n{envelope:#}",
                op.wire(),
                if by_shape { "accepts" } else { "refuses" },
            );
            if by_shape && what.contains(" with the context of ") {
                shared += 1;
            }
        }
    }
    assert!(shared > 0, "no two codes of an operation share a context");
}

/// An open type (`open: true`, the guidelines' `innererror`) holds members
/// it does not list in every schema: the published one, the strict one and
/// the tool output shape accept the guidelines' example, whose nested
/// `innererror` has `minLength` and `characterTypes`. A closed type beside it
/// (`ErrorDetail`) stays closed in the strict schema and the output shape,
/// and a listed member of the open type keeps its type.
#[test]
fn an_open_type_admits_members_it_does_not_list_in_every_schema() {
    let spec =
        splice_codegen::load_path(&root().join("codegen/tests/fixtures/envelopes/odata.yaml"))
            .unwrap_or_else(|d| panic!("{}", d.render()));
    let payload: Value =
        serde_json::from_str(include_str!("../fixtures/envelopes/odata-innererror.json")).unwrap();
    let schemas = [
        ("published", splice_codegen::emit_schema::emit(&spec)),
        ("strict", splice_codegen::emit_schema::emit_strict(&spec)),
        (
            "output shape",
            splice_codegen::emit_schema::emit_output_shape(&spec),
        ),
    ];
    for (what, schema) in &schemas {
        let validator = jsonschema::draft202012::new(schema).expect("the schema compiles");
        let errors: Vec<String> = validator
            .iter_errors(&payload)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "the {what} schema refuses the example: {errors:#?}"
        );
        assert_eq!(
            schema["$defs"]["InnerError"]["additionalProperties"], true,
            "{what}"
        );

        let mut wrong = payload.clone();
        wrong["error"]["innererror"]["innererror"]["code"] = json!(6);
        assert!(
            !validator.is_valid(&wrong),
            "the {what} schema accepts a numeric `code`"
        );
    }
    let mut detail = payload.clone();
    detail["error"]["details"] = json!([{"code": "a", "message": "b", "minLength": "6"}]);
    for (what, schema) in &schemas[1..] {
        let validator = jsonschema::draft202012::new(schema).expect("the schema compiles");
        assert!(
            !validator.is_valid(&detail),
            "the {what} schema accepts an unlisted member of the closed `ErrorDetail`"
        );
    }
}

/// A list of errors (`list: true`, GraphQL's response): the schema's root
/// is the response, its `errors` a non-empty array each of whose items is
/// exactly one variant (a listed code, the `absent_means` code for an error
/// without `extensions`, the unlisted one), beside it `data`, any JSON value
/// or absent. An empty list, a response without `errors`, and an entry a
/// variant refuses are refused; the strict schema closes the response too.
#[test]
fn a_list_of_errors_makes_the_root_a_response() {
    let spec = splice_codegen::load_path(
        &root().join("codegen/tests/fixtures/envelopes/graphql_response.yaml"),
    )
    .unwrap_or_else(|d| panic!("{}", d.render()));
    let schema = splice_codegen::emit_schema::emit(&spec);
    let v = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let strict = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(&spec))
        .expect("the strict schema compiles");
    let without_code =
        json!({"message": "boom", "locations": [{"line": 1, "column": 3}], "path": ["hero", 0]});
    let bad_input = json!({"message": "bad input", "extensions": {"code": "BAD_USER_INPUT", "argumentName": "id"}});
    let later = json!({"message": "later", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}});
    let response = json!({"errors": [without_code, bad_input, later], "data": null});
    assert!(v.is_valid(&response), "{:?}", errors(&v, &response));
    // Each entry is exactly one variant, named by the items' `oneOf`.
    let variants = schema["properties"]["errors"]["items"]["oneOf"]
        .as_array()
        .expect("the items are a oneOf");
    let accepting = |entry: &Value| -> Vec<String> {
        variants
            .iter()
            .filter_map(|r| {
                let name = r["$ref"].as_str()?.rsplit('/').next()?.to_owned();
                let mut one = schema.clone();
                one.as_object_mut().unwrap().remove("properties");
                one.as_object_mut().unwrap().remove("required");
                one["$ref"] = json!(format!("#/$defs/{name}"));
                jsonschema::draft202012::new(&one)
                    .expect("compiles")
                    .is_valid(entry)
                    .then_some(name)
            })
            .collect()
    };
    assert_eq!(accepting(&without_code), ["InternalServerErrorEnvelope"]);
    assert_eq!(accepting(&bad_input), ["BadUserInputEnvelope"]);
    assert_eq!(accepting(&later), ["UnlistedCodeEnvelope"]);
    for (refused, why) in [
        (json!({"errors": [], "data": null}), "an empty list"),
        (json!({"data": {"hero": null}}), "no errors"),
        (
            json!({"errors": [{"message": "x", "extensions": {"code": "BAD_USER_INPUT"}}]}),
            "BAD_USER_INPUT without its required argumentName",
        ),
        (json!({"errors": {"message": "x"}}), "an object, not a list"),
    ] {
        assert!(!v.is_valid(&refused), "{why}: {refused}");
    }
    assert!(v.is_valid(&json!({"errors": [bad_input], "extensions": {}})));
    assert!(!strict.is_valid(&json!({"errors": [bad_input], "extensions": {}})));
    assert!(!strict.is_valid(&json!({"errors": [later]})));
    assert!(strict.is_valid(&json!({"errors": [bad_input], "data": {"hero": 1}})));
}

/// `diff` of the list boundary: adding, removing or renaming the list is
/// breaking; adding an optional response member is compatible, a required
/// one breaking, and so is making one optional or changing its type.
#[test]
fn diff_of_a_list_of_errors() {
    let spec = read("codegen/tests/fixtures/envelopes/graphql_response.yaml");
    let flat = read("codegen/tests/fixtures/envelopes/graphql.yaml");
    let data = "  data:\n    type: json\n    optional: true\n    doc: The result of the request; absent when it did not run, null when it failed.\n";
    assert!(spec.contains(data));
    let report = |old: &str, new: &str| -> Vec<(bool, String)> {
        let old = splice_codegen::load_str(old, "old.yaml")
            .unwrap_or_else(|d| panic!("old: {}", d.render()));
        let new = splice_codegen::load_str(new, "new.yaml")
            .unwrap_or_else(|d| panic!("new: {}", d.render()));
        splice_codegen::diff::diff(&old, &new)
            .changes
            .into_iter()
            .map(|c| {
                (
                    c.compat == splice_codegen::diff::Compat::Breaking,
                    c.message,
                )
            })
            .collect()
    };
    let has = |changes: &[(bool, String)], breaking: bool, text: &str| {
        assert!(
            changes
                .iter()
                .any(|(b, m)| *b == breaking && m.contains(text)),
            "no {} change `{text}` in {changes:?}",
            if breaking { "breaking" } else { "compatible" }
        );
    };
    let renamed = |s: &str| s.replace("graphql-response", "graphql-errors");
    has(
        &report(&renamed(&spec), &flat),
        true,
        "`errors` is no longer a list",
    );
    has(
        &report(&flat, &renamed(&spec)),
        true,
        "`errors` is a list now",
    );
    has(
        &report(
            &spec,
            &spec.replace("  errors:\n    list: true", "  issues:\n    list: true"),
        ),
        true,
        "the list of errors moved from `errors` to `issues`",
    );
    let with = |extra: &str| spec.replace(data, &format!("{data}{extra}"));
    let added = report(
        &spec,
        &with("  extensions: { type: json, optional: true }\n"),
    );
    has(&added, false, "optional response member `extensions` added");
    assert!(added.iter().all(|(b, _)| !b), "{added:?}");
    has(
        &report(&spec, &with("  id: { type: string }\n")),
        true,
        "response member `id` added as always present",
    );
    has(
        &report(
            &spec,
            &spec.replace(data, &data.replace("type: json", "type: string")),
        ),
        true,
        "response member `data` held a value of type `json` and now holds a value of type `string`",
    );
    has(
        &report(
            &spec.replace(data, &data.replace("    optional: true\n", "")),
            &spec,
        ),
        true,
        "response member `data` made optional",
    );
    assert!(report(&spec, &spec).is_empty());
}

/// The response's members keep their wire order around the list (a
/// constant before it, `data` after it), constants are pinned and required
/// unless optional, and the Rust of such a response parses.
#[test]
fn response_members_keep_their_order_around_the_list() {
    let spec = read("codegen/tests/fixtures/envelopes/graphql_response.yaml").replacen(
        "envelope:\n  errors:\n",
        "envelope:\n  version: { carries: constant, value: \"1\" }\n  \
         trace: { carries: constant, value: 7, optional: true }\n  errors:\n",
        1,
    );
    let spec =
        splice_codegen::load_str(&spec, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
    let schema = splice_codegen::emit_schema::emit(&spec);
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["version", "trace", "errors", "data"]);
    assert_eq!(schema["required"], json!(["version", "errors"]));
    assert_eq!(schema["properties"]["version"], json!({"const": "1"}));
    let v = jsonschema::draft202012::new(&schema).unwrap();
    let entry = json!({"message": "boom"});
    assert!(v.is_valid(&json!({"version": "1", "errors": [entry]})));
    assert!(!v.is_valid(&json!({"version": "2", "errors": [entry]})));
    assert!(!v.is_valid(&json!({"version": "1", "trace": 8, "errors": [entry]})));
    assert!(!v.is_valid(&json!({"errors": [entry]})));
    syn::parse2::<syn::File>(splice_codegen::emit_rust::emit(&spec)).expect("the Rust parses");
}
