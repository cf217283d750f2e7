//! The JSON Schema (draft 2020-12) of the error envelope, and the smaller
//! shape a tool advertises as its `outputSchema`.
//!
//! The published schema ([`emit`], `schema/error-envelope.schema.json`) is
//! what client authors validate with and feed to their code generators
//! (json-schema-to-typescript, quicktype, datamodel-code-generator). Its
//! shape is one they understand: a root `oneOf` of one variant per emitted
//! code, each a plain object schema under `$defs` with a `title` (the type
//! name the TypeScript and Python emitters use, `MatchNotFoundEnvelope`),
//! its `error_code`, number, category, `retryable` and `cause` pinned by
//! `const`, its required context fields in `required` and its context in a
//! `<Code>Context` object. No `if`/`then` (generators flatten it, Ajv's strict
//! mode refuses it) and nothing only 2020-12 understands, so Ajv in draft-07
//! mode (the official TypeScript SDK) compiles it too.
//!
//! **Forward compatibility.** `splice-codegen diff` calls a new code, a new
//! optional field, a new object member and a new enum value *compatible*;
//! that is only true if a client validating with the previous release's
//! schema accepts what the new release sends. So within one major version
//! (one `$id`) the published schema is open where the contract may grow:
//! - a last variant, [`UNLISTED_ENVELOPE`], accepts an envelope whose
//!   `error_code` this release does not list, typed by the members every
//!   envelope has;
//! - objects do not set `additionalProperties: false`: a member a later
//!   release adds is ignored, as JSON clients ignore unknown members;
//! - a field of an enum type, or of type error code, accepts the listed
//!   values *or any string* (`anyOf`), the listed ones named by `$ref` so
//!   generators still name the enum.
//!
//! What a known code pins (its number, category, `retryable`, `cause`, its
//! required fields) is only changed by a breaking change, which needs a new
//! major version and so a new `$id`. The server's own answers are checked
//! more strictly than clients check them: its tests validate against the
//! schema with every object closed, and the tool `outputSchema`
//! ([`emit_output_shape`]) closes `context`.

mod shape;
mod types;
mod variants;

pub use shape::{
    emit_operation_output_shape, emit_operation_output_shape_string, emit_output_shape,
    emit_output_shape_string,
};

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use crate::layout::Layout;
use crate::spec::{Code, Lifecycle, Operation, Spec, UNLISTED_ENVELOPE};

use types::{enum_schema, error_code_def, one_of_schema, struct_schema, union_schema};
use variants::{context_def, family_variant, unlisted, variant};

/// The `$schema` URI of the dialect we emit.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The envelope schema of a checked spec, as published: open to what a later
/// release of the same major version may add.
pub fn emit(spec: &Spec) -> Value {
    emit_as(spec, Openness::Open)
}

/// The same variants closed to what *this* release lists: no
/// [`UNLISTED_ENVELOPE`] variant, `additionalProperties: false` on every
/// object, enums without the open `anyOf`. Not published: it is how a
/// server's own tests check that it sends nothing its release does not list
/// (a field a code may not carry, a misspelled member).
pub fn emit_strict(spec: &Spec) -> Value {
    emit_as(spec, Openness::Closed)
}

fn emit_as(spec: &Spec, openness: Openness) -> Value {
    let mut root = Map::new();
    root.insert("$schema".into(), json!(DIALECT));
    root.insert("$id".into(), json!(spec.taxonomy.schema_id()));
    root.insert(
        "title".into(),
        json!(format!("{} error envelope", spec.taxonomy.name.value)),
    );
    root.insert("description".into(), json!(description(spec)));
    root.insert("type".into(), json!("object"));
    let unlisted = (openness == Openness::Open).then(|| UNLISTED_ENVELOPE.to_string());
    // A violation kind is never an envelope's own code: no variant waits
    // for it.
    // A family's variant, before the unlisted one: in an open schema only.
    let families = spec
        .families
        .iter()
        .filter(|_| openness == Openness::Open)
        .map(|f| f.envelope_type_name());
    let variants = spec
        .enveloped_codes()
        .map(|c| c.envelope_type_name())
        .chain(families)
        .chain(unlisted)
        .map(|name| json!({"$ref": format!("#/$defs/{name}")}))
        .collect();
    match &spec.envelope.response {
        None => {
            root.insert("oneOf".into(), Value::Array(variants));
        }
        Some(response) => {
            root.insert(
                "title".into(),
                json!(format!("{} error response", spec.taxonomy.name.value)),
            );
            response_root(&mut root, response, variants, openness);
        }
    }
    root.insert("$defs".into(), Value::Object(defs(spec, openness)));
    Value::Object(root)
}

/// The root of a spec whose errors come in a list (`list: true`): the
/// response, its list member a non-empty array whose every item is exactly
/// one of the envelope variants, beside it the response's other members.
fn response_root(
    root: &mut Map<String, Value>,
    response: &crate::envelope::Response,
    variants: Vec<Value>,
    openness: Openness,
) {
    use crate::envelope::Holds;
    let mut properties = Map::new();
    let mut required = Vec::new();
    for m in &response.members {
        let mut schema = match &m.holds {
            Holds::List => json!({
                "type": "array",
                "minItems": 1,
                "items": {"oneOf": variants.clone()},
            }),
            Holds::Constant(v) => json!({"const": v}),
            Holds::Typed { .. } => types::type_schema(m.ty().expect("typed"), openness),
        };
        if let Some(doc) = &m.doc {
            schema = types::with_description(schema, &doc.value);
        }
        properties.insert(m.name.value.clone(), schema);
        if m.required {
            required.push(json!(m.name.value));
        }
    }
    root.insert("properties".into(), Value::Object(properties));
    root.insert("required".into(), Value::Array(required));
    types::close(root, openness);
}

/// `emit` pretty-printed with two-space indentation and a final newline, as
/// committed to `schema/error-envelope.schema.json`.
pub fn emit_string(spec: &Spec) -> String {
    let mut text =
        serde_json::to_string_pretty(&emit(spec)).expect("a serde_json::Value always serializes");
    text.push('\n');
    text
}

fn description(spec: &Spec) -> String {
    let mut text = format!(
        "The {} error envelope (taxonomy version {}): the JSON object returned for a failure. \
         Generated from errors.yaml; see docs/errors.md for every code. One variant per \
         error code; the last, {UNLISTED_ENVELOPE}, accepts a code a later release of the \
         same major version adds. Members this release does not list are allowed, and \
         ignored: clients must not rely on their absence.",
        spec.taxonomy.name.value, spec.taxonomy.version.value
    );
    if let Some(response) = &spec.envelope.response {
        let _ = write!(
            text,
            " The document is the response around the envelopes: `{}` is a non-empty list of \
             them, each item exactly one variant.",
            response.list().name.value
        );
    }
    if let Some(d) = &spec.taxonomy.description {
        text.push_str("\n\n");
        text.push_str(&unwrap_paragraphs(&d.value));
    }
    text
}

/// Joins the hard-wrapped lines of each paragraph: a schema `description` is
/// shown by editors as one flowing text, not as Markdown.
fn unwrap_paragraphs(text: &str) -> String {
    text.trim()
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Whether an object or enum accepts what a later release of the same major
/// version may add (the published schema) or only what this release lists
/// (the `outputSchema` of this server).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Openness {
    Open,
    Closed,
}

fn defs(spec: &Spec, openness: Openness) -> Map<String, Value> {
    let layout = Layout::of(spec);
    let mut defs = Map::new();
    for code in spec.enveloped_codes() {
        defs.insert(code.envelope_type_name(), variant(&layout, code, openness));
        if let Some(context) = context_def(&layout, code, openness) {
            defs.insert(code.context_type_name(), context);
        }
    }
    if openness == Openness::Open {
        for family in layout.families() {
            defs.insert(family.envelope_type_name(), family_variant(&layout, family));
        }
        defs.insert(UNLISTED_ENVELOPE.into(), unlisted(&layout));
    }
    for op in &spec.operations {
        defs.insert(op.error_type_name(), operation_def(spec, op, openness));
    }
    defs.insert("ErrorCode".into(), error_code_def(spec));
    // Objects, then enums, each in declaration order.
    for def in spec.types.iter().filter(|d| d.is_object()) {
        defs.insert(def.name.value.clone(), struct_schema(def, openness));
    }
    for def in &spec.types {
        if let Some(u) = def.union() {
            defs.insert(def.name.value.clone(), union_schema(spec, def, u, openness));
        }
    }
    for def in &spec.types {
        if let Some(o) = def.one_of() {
            defs.insert(def.name.value.clone(), one_of_schema(def, o, openness));
        }
    }
    for def in &spec.types {
        if def.values().is_some() {
            let mut schema = enum_schema(def.wire_values().into_iter());
            schema["title"] = json!(def.name.value);
            schema["description"] = json!(def.doc.value);
            defs.insert(def.name.value.clone(), schema);
        }
    }
    defs
}

/// `<Operation>Error`: the union of the envelopes of the codes operation
/// `op` raises (violation kinds aside, which arrive inside another
/// envelope), then, in the published schema, the envelope of a code a
/// later release adds: a code of this release the operation does not list
/// is refused.
fn operation_def(spec: &Spec, op: &Operation, openness: Openness) -> Value {
    let mut variants: Vec<Value> = spec
        .operation_codes(op)
        .into_iter()
        .filter(|c| !c.is_violation_kind())
        .map(|c| json!({"$ref": format!("#/$defs/{}", c.envelope_type_name())}))
        .collect();
    if openness == Openness::Open {
        variants.push(json!({"$ref": format!("#/$defs/{UNLISTED_ENVELOPE}")}));
    }
    let mut def = Map::new();
    def.insert("title".into(), json!(op.error_type_name()));
    def.insert(
        "description".into(),
        json!(format!(
            "The errors of operation `{}`: {}",
            op.wire(),
            op.doc.value
        )),
    );
    if variants.is_empty() {
        // It lists no envelope of its own: nothing validates.
        def.insert("not".into(), json!({}));
    } else {
        def.insert("oneOf".into(), Value::Array(variants));
    }
    Value::Object(def)
}

fn variant_description(code: &Code) -> String {
    let mut text = format!("{}: {}", code.name_and_number(), code.title.value);
    if let Lifecycle::Deprecated {
        since, replaced_by, ..
    } = &code.lifecycle
    {
        text.push_str(&format!(
            "; deprecated since {}, use {}",
            since.value, replaced_by.value
        ));
    }
    if code.is_violation_kind() {
        text.push_str(
            "; sent only as a violation kind (violations[].code), never as an envelope's \
             own error_code",
        );
    }
    if !code.retry_classes.is_empty() {
        let classes: Vec<&str> = code
            .retry_classes
            .iter()
            .map(|c| c.value.as_str())
            .collect();
        text.push_str(&format!("; retry classes: {}", classes.join(", ")));
    }
    for a in &code.attributes {
        text.push_str(&format!("; {}: {}", a.name.value, a.value.value));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture as fixture;

    fn def<'a>(schema: &'a Value, name: &str) -> &'a Value {
        &schema["$defs"][name]
    }

    #[test]
    fn error_code_enum_lists_emitted_codes_only() {
        let schema = emit(&fixture());
        assert_eq!(
            def(&schema, "ErrorCode")["enum"],
            json!(["BAD_PATH", "MATCH_NOT_FOUND", "OLD_THING", "DISK_FULL"])
        );
        assert_eq!(schema["$id"], "schema://demo/error-envelope/v2");
    }

    #[test]
    fn a_violation_kind_has_no_variant_and_error_code_says_how_it_arrives() {
        let mut spec = fixture();
        let code = spec
            .codes
            .iter_mut()
            .find(|c| c.name.value == "BAD_PATH")
            .unwrap();
        code.sent_as = Some(crate::span::Spanned::new(
            crate::spec::SentAs::Violation,
            code.name.loc,
        ));
        let schema = emit(&spec);
        // No envelope ever has it as its own code: a client waiting for
        // that variant would wait forever.
        assert!(schema["$defs"].get("BadPathEnvelope").is_none());
        let refs = schema["oneOf"].to_string();
        assert!(!refs.contains("BadPath"), "{refs}");
        let codes = def(&schema, "ErrorCode");
        assert!(
            codes["enum"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c == "BAD_PATH"),
            "violations[].code still names it"
        );
        assert!(
            codes["description"]
                .as_str()
                .unwrap()
                .ends_with(" Sent only as violation kinds (violations[].code): BAD_PATH."),
            "{codes}"
        );
        assert!(
            !def(&schema, "DiskFullEnvelope")["description"]
                .as_str()
                .unwrap()
                .contains("violation")
        );
    }

    #[test]
    fn one_titled_variant_per_emitted_code_then_the_unlisted_one() {
        let schema = emit(&fixture());
        let refs: Vec<&str> = schema["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["$ref"].as_str().unwrap())
            .collect();
        assert_eq!(
            refs,
            [
                "#/$defs/BadPathEnvelope",
                "#/$defs/MatchNotFoundEnvelope",
                "#/$defs/OldThingEnvelope",
                "#/$defs/DiskFullEnvelope",
                "#/$defs/UnlistedCodeEnvelope",
            ]
        );
        assert_eq!(def(&schema, "OldThingEnvelope")["deprecated"], true);
        let unlisted = def(&schema, "UnlistedCodeEnvelope");
        assert_eq!(unlisted["title"], "UnlistedCodeEnvelope");
        // Every code of the spec, removed ones included (GONE).
        assert_eq!(
            unlisted["properties"]["error_code"]["not"]["enum"],
            json!([
                "BAD_PATH",
                "MATCH_NOT_FOUND",
                "OLD_THING",
                "GONE",
                "DISK_FULL"
            ])
        );
        let strict = emit_strict(&fixture());
        assert_eq!(strict["oneOf"].as_array().unwrap().len(), 4);
        assert!(strict["$defs"].get(UNLISTED_ENVELOPE).is_none());
        assert_eq!(
            strict["$defs"]["MatchNotFoundEnvelope"]["additionalProperties"],
            false
        );
    }

    #[test]
    fn variant_pins_number_and_requires_context_by_placement() {
        let schema = emit(&fixture());
        let v = def(&schema, "MatchNotFoundEnvelope");
        assert_eq!(v["title"], "MatchNotFoundEnvelope");
        assert_eq!(v["properties"]["code"]["const"], 2000);
        assert_eq!(v["properties"]["error_code"]["const"], "MATCH_NOT_FOUND");
        let required: Vec<&str> = v["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert_eq!(
            required[8..],
            ["file_path", "edit_index", "edit_status", "context"]
        );
        assert_eq!(
            v["properties"]["context"],
            json!({"$ref": "#/$defs/MatchNotFoundContext"})
        );
        assert_eq!(
            def(&schema, "MatchNotFoundContext")["required"],
            json!(["snippet"])
        );
        // Not in the code's lists: absent (a later release may add it).
        assert!(v["properties"].get("backup_path").is_none());
        assert!(
            def(&schema, "MatchNotFoundContext")["properties"]
                .get("limit")
                .is_none()
        );
        // In its optional list: allowed, not required.
        assert!(v["properties"].get("file_index").is_some());
        assert!(!required.contains(&"file_index"));
    }

    #[test]
    fn the_published_schema_is_open_and_the_output_shape_closed() {
        let spec = fixture();
        let text = emit(&spec).to_string();
        assert!(!text.contains("additionalProperties"), "{text}");
        let shape = emit_output_shape(&spec);
        assert_eq!(shape["additionalProperties"], false);
        assert_eq!(
            def(&shape, "MatchNotFoundContext")["additionalProperties"],
            false
        );
        assert!(
            !shape.to_string().contains("\"description\":\"The"),
            "{shape}"
        );
        // One thin variant per emitted code: its name pinned, its context
        // typed (and required when the code requires a context field).
        let variants = shape["oneOf"].as_array().unwrap();
        let codes = spec.emitted_codes().filter(|c| !c.is_violation_kind());
        assert_eq!(variants.len(), codes.count());
        let v = variants
            .iter()
            .find(|v| v["title"] == "MatchNotFoundEnvelope")
            .unwrap();
        assert_eq!(
            *v,
            json!({
                "title": "MatchNotFoundEnvelope",
                "properties": {
                    "error_code": {"const": "MATCH_NOT_FOUND"},
                    "context": {"$ref": "#/$defs/MatchNotFoundContext"},
                },
                "required": ["context"],
            })
        );
    }

    #[test]
    fn every_ref_resolves() {
        let spec = fixture();
        for schema in [emit(&spec), emit_output_shape(&spec)] {
            let text = schema.to_string();
            for piece in text.split("\"#/$defs/").skip(1) {
                let name = &piece[..piece.find('"').unwrap()];
                assert!(schema["$defs"].get(name).is_some(), "dangling $ref {name}");
            }
        }
    }

    #[test]
    fn string_form_ends_with_newline() {
        let text = emit_string(&fixture());
        assert!(text.ends_with("}\n") && text.starts_with("{\n  \"$schema\""));
    }
}
