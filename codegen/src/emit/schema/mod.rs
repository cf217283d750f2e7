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

pub use shape::{emit_output_shape, emit_output_shape_string};

use serde_json::{Map, Value, json};

use crate::context::{FieldDef, Placement};
use crate::envelope::{Carries, Member};
use crate::spec::{Cause, Code, Lifecycle, Spec, UNLISTED_ENVELOPE};

use types::{
    close, constrained, enum_schema, error_code_def, one_of_schema, struct_schema, type_schema,
    union_schema, with_description,
};

/// The `$schema` URI of the dialect we emit.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The pattern of an error code name (SCREAMING_SNAKE_CASE).
const CODE_PATTERN: &str = "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$";

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
    let variants = spec
        .emitted_codes()
        .map(|c| c.envelope_type_name())
        .chain(unlisted)
        .map(|name| json!({"$ref": format!("#/$defs/{name}")}))
        .collect();
    root.insert("oneOf".into(), Value::Array(variants));
    root.insert("$defs".into(), Value::Object(defs(spec, openness)));
    Value::Object(root)
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

/// Which schema of the envelope is being built.
#[derive(Clone, Copy)]
enum Form<'s> {
    /// One code's variant: what the code fixes is pinned by `const`.
    Variant(&'s Code),
    /// The last variant: a code this release does not list.
    Unlisted,
    /// The flat `outputSchema` of this release.
    OutputShape,
}

/// The name the docs use for the member that tells codes apart.
fn discriminant(spec: &Spec) -> &str {
    spec.envelope.discriminant().unwrap_or("the error code")
}

/// The schema of a member carrying one property of the code (not an
/// object, not `context`).
fn carried(spec: &Spec, member: &Member, form: Form<'_>) -> Value {
    let code = match form {
        Form::Variant(c) => Some(c),
        _ => None,
    };
    let named = discriminant(spec);
    let schema = match (&member.carries, code) {
        (Carries::Constant(v), _) => json!({"const": v}),
        (Carries::CodeName, Some(c)) if c.aliases.is_empty() => return json!({"const": c.wire()}),
        (Carries::CodeName, Some(c)) => {
            return json!({"enum": c.wire_names().collect::<Vec<_>>()});
        }
        (Carries::CodeName, None) if matches!(form, Form::Unlisted) => {
            let mut unlisted = json!({
                "type": "string",
                "pattern": CODE_PATTERN,
                // Removed codes too: their names are never used again.
                "not": {"enum": spec.codes.iter().flat_map(|c| c.wire_names()).collect::<Vec<_>>()},
                "description": "A code this release does not list."
            });
            // A taxonomy that spells codes otherwise on the wire
            // (`ThrottlingException`) may add codes spelled so too.
            if spec
                .codes
                .iter()
                .any(|c| c.wire.is_some() || !c.aliases.is_empty())
            {
                unlisted.as_object_mut().map(|o| o.remove("pattern"));
            }
            unlisted
        }
        (Carries::CodeName, None) => return json!({"$ref": "#/$defs/ErrorCode"}),
        (Carries::Number, Some(c)) => return json!({"const": c.number.value}),
        (Carries::Number, None) => {
            let description =
                format!("The numeric id of {named}; fixed per code and never reused.");
            // Non-negative unless the taxonomy numbers its codes below zero.
            let mut n = if spec.codes.iter().all(|c| c.number.value >= 0) {
                json!({"type": "integer", "minimum": 0, "description": description})
            } else {
                json!({"type": "integer", "description": description})
            };
            if matches!(form, Form::Unlisted) && !spec.envelope.carries("code_name") {
                // A reserved number is never given out, not even by a later
                // release, so it is no more valid than a listed one here.
                let taken = spec.codes.iter().map(|c| c.number.value);
                let reserved = spec.reserved.iter().map(|r| r.number.value);
                n["not"] = json!({"enum": taken.chain(reserved).collect::<Vec<_>>()});
                n["description"] = json!(if spec.reserved.is_empty() {
                    "A code number this release does not list."
                } else {
                    "A code number this release does not list and no release may take (not a reserved one)."
                });
            }
            n
        }
        (Carries::Category, Some(c)) => return json!({"const": c.category.value}),
        (Carries::Category, None) if matches!(form, Form::Unlisted) => json!({
            "type": "string",
            "description": format!("The category of {named}; may be one this release does not list."),
        }),
        (Carries::Category, None) => json!({
            "type": "string",
            "enum": spec.categories.iter().map(|c| c.key.value.as_str()).collect::<Vec<_>>(),
            "description": format!("The category of {named}, from its numeric range."),
        }),
        (Carries::Message, _) => {
            json!({"type": "string", "description": "What went wrong, in one line."})
        }
        (Carries::Retryable, Some(c)) => return json!({"const": c.retryable}),
        (Carries::Retryable, None) => json!({
            "type": "boolean",
            "description": format!("True when {}.", spec.retry_meaning())
        }),
        (Carries::Cause, Some(c)) => return json!({"const": c.cause.as_str()}),
        (Carries::Cause, None) => json!({
            "type": "string",
            "enum": Cause::ALL.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "description": "Who is to blame: input (the caller's arguments), environment (the file system, other processes) or server (the server itself)."
        }),
        (Carries::Hints, _) => json!({
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": "General guidance for recovering, most relevant first."
        }),
        (Carries::Context | Carries::Object(_), _) => {
            unreachable!("objects and context are built by `object_body`")
        }
    };
    match &member.doc {
        Some(doc) => with_description(schema, &doc.value),
        None => schema,
    }
}

/// The properties and required members of the envelope object whose members
/// are `members` (at `path` from the top), in the given form; the object
/// that holds the top-level fields gets them before its `context` member, or
/// at its end.
fn object_body(
    spec: &Spec,
    members: &[Member],
    path: &mut Vec<String>,
    form: Form<'_>,
    openness: Openness,
) -> (Map<String, Value>, Vec<String>) {
    let held: Vec<&FieldDef> = spec.fields_held_at(path).collect();
    let mut props = Map::new();
    let mut required: Vec<String> = Vec::new();
    let mut fields_done = held.is_empty();
    for member in members {
        let name = member.name.value.clone();
        if matches!(member.carries, Carries::Context) && !fields_done {
            held_fields(spec, &held, form, openness, &mut props, &mut required);
            fields_done = true;
        }
        let schema = match &member.carries {
            Carries::Object(inner) => {
                path.push(name.clone());
                let (p, r) = object_body(spec, inner, path, form, openness);
                path.pop();
                let mut o = Map::new();
                if let Some(doc) = &member.doc {
                    o.insert("description".into(), json!(doc.value));
                }
                o.insert("type".into(), json!("object"));
                o.insert("properties".into(), Value::Object(p));
                o.insert("required".into(), json!(r));
                if matches!(form, Form::OutputShape) {
                    o.insert("additionalProperties".into(), json!(false));
                } else {
                    close(&mut o, openness);
                }
                Value::Object(o)
            }
            Carries::Context => match form {
                Form::Variant(code) => {
                    let context: Vec<&FieldDef> = spec
                        .fields_at(Placement::Context)
                        .filter(|f| carries_field(code, f))
                        .collect();
                    if context.is_empty() {
                        continue;
                    }
                    if context.iter().any(|f| is_required(code, f)) {
                        required.push(name.clone());
                    }
                    json!({"$ref": format!("#/$defs/{}", code.context_type_name())})
                }
                Form::Unlisted => {
                    json!({"type": "object", "description": "Details about the failure."})
                }
                // Each code's variant closes it as its `<Code>Context`.
                Form::OutputShape => json!({"type": "object"}),
            },
            _ => carried(spec, member, form),
        };
        let present = match form {
            Form::Variant(code) => member.required_for(Some(&code.name.value)),
            Form::Unlisted => member.required_for(None),
            Form::OutputShape => member.required,
        };
        if present {
            required.push(name.clone());
        }
        props.insert(name, schema);
    }
    if !fields_done {
        held_fields(spec, &held, form, openness, &mut props, &mut required);
    }
    (props, required)
}

fn carries_field(code: &Code, f: &FieldDef) -> bool {
    code.required_context
        .iter()
        .chain(&code.optional_context)
        .any(|n| n.value == f.name.value)
}

fn is_required(code: &Code, f: &FieldDef) -> bool {
    code.required_context
        .iter()
        .any(|r| r.value == f.name.value)
}

/// The fields an object holds (`in: top_level` in the object holding the
/// code, `in: envelope` in the outermost one), in canonical order (not the
/// code's list order, so reordering a list in the spec does not churn the
/// artifact): those a code carries in its variant, every one (typed, not
/// required) in the output shape, and in the unlisted variant those `in:
/// envelope` (typed, not required): they frame every code's error (the
/// request's `id` of a JSON-RPC response), while the others are the code's.
fn held_fields(
    spec: &Spec,
    held: &[&FieldDef],
    form: Form<'_>,
    openness: Openness,
    props: &mut Map<String, Value>,
    required: &mut Vec<String>,
) {
    for &field in held {
        match form {
            Form::Variant(code) if carries_field(code, field) => {
                props.insert(
                    field.wire().into(),
                    code_field_schema(spec, code, field, openness),
                );
                if is_required(code, field) {
                    required.push(field.wire().into());
                }
            }
            Form::OutputShape => {
                props.insert(
                    field.wire().into(),
                    type_schema(field.ty(), Openness::Closed),
                );
            }
            // The format's own frame (JSON-RPC's `id`), whatever the code.
            Form::Unlisted if field.placement() == Placement::Envelope => {
                props.insert(field.wire().into(), field_schema(field, openness));
            }
            _ => {}
        }
    }
}

/// The variant of one emitted code: `<Code>Envelope`.
fn variant(spec: &Spec, code: &Code, openness: Openness) -> Value {
    let (props, required) = object_body(
        spec,
        &spec.envelope.members,
        &mut Vec::new(),
        Form::Variant(code),
        openness,
    );
    let mut v = Map::new();
    v.insert("title".into(), json!(code.envelope_type_name()));
    v.insert("description".into(), json!(variant_description(code)));
    if code.is_deprecated() {
        v.insert("deprecated".into(), json!(true));
    }
    v.insert("type".into(), json!("object"));
    v.insert("properties".into(), Value::Object(props));
    v.insert("required".into(), json!(required));
    close(&mut v, openness);
    Value::Object(v)
}

/// `<Code>Context`, for a code that may carry context fields.
fn context_def(spec: &Spec, code: &Code, openness: Openness) -> Option<Value> {
    let mut props = Map::new();
    let mut required = Vec::new();
    for field in spec.fields_at(Placement::Context) {
        if code
            .required_context
            .iter()
            .any(|r| r.value == field.name.value)
        {
            required.push(field.wire());
        } else if !code
            .optional_context
            .iter()
            .any(|o| o.value == field.name.value)
        {
            continue;
        }
        props.insert(
            field.wire().into(),
            code_field_schema(spec, code, field, openness),
        );
    }
    if props.is_empty() {
        return None;
    }
    let mut def = Map::new();
    def.insert("title".into(), json!(code.context_type_name()));
    def.insert(
        "description".into(),
        json!(format!("The context of {}.", code.name.value)),
    );
    def.insert("type".into(), json!("object"));
    def.insert("properties".into(), Value::Object(props));
    def.insert("required".into(), json!(required));
    close(&mut def, openness);
    Some(Value::Object(def))
}

/// The last variant: an error code this release does not list.
fn unlisted(spec: &Spec) -> Value {
    let (props, required) = object_body(
        spec,
        &spec.envelope.members,
        &mut Vec::new(),
        Form::Unlisted,
        Openness::Open,
    );
    let handles: Vec<&str> = [
        spec.envelope.path_of("message"),
        spec.envelope.path_of("retryable"),
        spec.envelope.path_of("cause"),
        spec.envelope.path_of("hints"),
    ]
    .into_iter()
    .flatten()
    .map(|p| *p.last().expect("a path names its member"))
    .collect();
    let by = if handles.is_empty() {
        String::from("Handle it by the members every envelope has.")
    } else {
        format!(
            "Handle it by the members every envelope has: {}.",
            match handles.split_last() {
                Some((last, [])) => last.to_string(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => String::new(),
            }
        )
    };
    json!({
        "title": UNLISTED_ENVELOPE,
        "description": format!("An error code this release does not list, sent by a server of a later \
            release of the same major version. {by}"),
        "type": "object",
        "properties": props,
        "required": required,
    })
}

/// The schema of `field` in `code`'s variant: its constant when the code
/// fixes one (`constants:`), else its type.
fn code_field_schema(spec: &Spec, code: &Code, field: &FieldDef, openness: Openness) -> Value {
    match spec.constant_json(code, field) {
        Some(v) => json!({"const": v, "description": field.doc()}),
        None => field_schema(field, openness),
    }
}

fn field_schema(field: &FieldDef, openness: Openness) -> Value {
    let schema = constrained(
        type_schema(field.ty(), openness),
        field.pattern.as_ref(),
        field.format.as_ref(),
        false,
    );
    with_description(schema, field.doc())
}

fn defs(spec: &Spec, openness: Openness) -> Map<String, Value> {
    let mut defs = Map::new();
    for code in spec.emitted_codes() {
        defs.insert(code.envelope_type_name(), variant(spec, code, openness));
        if let Some(context) = context_def(spec, code, openness) {
            defs.insert(code.context_type_name(), context);
        }
    }
    if openness == Openness::Open {
        defs.insert(UNLISTED_ENVELOPE.into(), unlisted(spec));
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
            defs.insert(def.name.value.clone(), one_of_schema(def, o));
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

fn variant_description(code: &Code) -> String {
    let mut text = format!(
        "{} ({}): {}",
        code.name.value, code.number.value, code.title.value
    );
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
    use crate::generate::test_fixture as fixture;

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
    fn a_violation_kind_keeps_its_variant_and_says_how_it_arrives() {
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
        let description = def(&schema, "BadPathEnvelope")["description"]
            .as_str()
            .unwrap();
        assert!(
            description.ends_with("; sent only as a violation kind (violations[].code), never as an envelope's own error_code"),
            "{description}"
        );
        let codes = def(&schema, "ErrorCode")["description"].as_str().unwrap();
        assert!(
            codes.ends_with(" Sent only as violation kinds (violations[].code): BAD_PATH."),
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
