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

use serde_json::{Map, Value, json};

use crate::context::{FieldDef, FieldType, Placement, TypeDef};
use crate::envelope::{Carries, Member};
use crate::spec::{Cause, Code, Lifecycle, Spec, UNLISTED_ENVELOPE};

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

/// The envelope as a server advertises it inside a tool's `outputSchema`:
/// one closed object with every member (each declared field optional,
/// typed; `context` any object), and a `oneOf` of one thin variant per
/// emitted code (but violation kinds, never an envelope's own code), titled
/// `<Code>Envelope` like the published one, which pins only `error_code`
/// (`const`) and `context`, the code's closed
/// `<Code>Context` (required when the code requires a context field). No
/// descriptions below the top; titles are kept on the variants and
/// contexts, the names generators give them.
///
/// So each per-code type a generator makes from an `outputSchema` alone
/// (json-schema-to-typescript: `Shape & (MatchNotFoundEnvelope | ...)`,
/// datamodel-code-generator: one model per code) narrows on `error_code` to
/// the code's context (issue #27), while what a client compiles at
/// `tools/list` stays as small as per-code types allow (issue #26): the
/// members are typed once, not once per code, and a variant is two or three
/// keywords. What it costs: docs/benchmarks.md, "Cold start".
///
/// Why not the published schema: MCP clients compile every `outputSchema`
/// when they list tools, and the official TypeScript client validates every
/// result against it; the published variants repeat every member for every
/// code. This shape describes the answers of *this* server, so it may be
/// closed. The published schema stays the contract: it is served as the
/// resource [`crate::spec::Taxonomy::schema_id`].
pub fn emit_output_shape(spec: &Spec) -> Value {
    let (props, required) = object_body(
        spec,
        &spec.envelope.members,
        &mut Vec::new(),
        Form::OutputShape,
        Openness::Closed,
    );
    let mut defs = Map::new();
    defs.insert("ErrorCode".into(), error_code_def(spec));
    for def in &spec.types {
        let schema = match (def.values(), def.union(), def.one_of()) {
            (Some(_), _, _) => enum_schema(def.wire_values().into_iter()),
            (None, Some(u), _) => union_schema(spec, def, u, Openness::Closed),
            (None, None, Some(o)) => one_of_schema(def, o),
            (None, None, None) => struct_schema(def, Openness::Closed),
        };
        defs.insert(def.name.value.clone(), strip_descriptions(schema));
    }
    let mut variants = Vec::new();
    // A violation kind never is an envelope's own code (it arrives as
    // `violations[].code`, which `ErrorCode` still types).
    for code in spec.emitted_codes().filter(|c| !c.is_violation_kind()) {
        variants.push(thin_variant(spec, code, &required));
        if let Some(context) = context_def(spec, code, Openness::Closed) {
            defs.insert(code.context_type_name(), keep_title(context));
        }
    }
    json!({
        "$id": spec.taxonomy.schema_id(),
        "description": format!(
            "An error envelope. Which members each {} carries: resource {}.",
            discriminant(spec),
            spec.taxonomy.schema_id()
        ),
        "type": "object",
        "required": required,
        "properties": props
            .into_iter()
            .map(|(name, schema)| (name, strip_descriptions(schema)))
            .collect::<Map<String, Value>>(),
        "additionalProperties": false,
        "oneOf": variants,
        "$defs": defs,
    })
}

/// One code's variant inside the output shape: of the full variant, only
/// the member holding the code's name (pinned by `const`) and `context` (the
/// code's `<Code>Context`, required when the code requires a context field).
/// The shape around it requires, types and closes everything else. Each
/// keyword here is compiled once per code and per tool by every client that
/// lists tools, so nothing the shape already says is repeated.
fn thin_variant(spec: &Spec, code: &Code, shape_required: &[String]) -> Value {
    let (props, required) = object_body(
        spec,
        &spec.envelope.members,
        &mut Vec::new(),
        Form::Variant(code),
        Openness::Closed,
    );
    let names_code = spec
        .envelope
        .path_of("code_name")
        .or_else(|| spec.envelope.path_of("number"))
        .and_then(|p| p.first().map(|m| m.to_string()));
    let context = spec
        .envelope
        .members
        .iter()
        .find(|m| matches!(m.carries, Carries::Context))
        .map(|m| m.name.value.clone());
    let kept = |name: &str| names_code.as_deref() == Some(name) || context.as_deref() == Some(name);
    let props: Map<String, Value> = props
        .into_iter()
        .filter(|(name, _)| kept(name))
        .map(|(name, schema)| (name, strip_descriptions(schema)))
        .collect();
    let required: Vec<String> = required
        .into_iter()
        .filter(|r| kept(r) && !shape_required.contains(r))
        .collect();
    let mut v = Map::new();
    v.insert("title".into(), json!(code.envelope_type_name()));
    v.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        v.insert("required".into(), json!(required));
    }
    Value::Object(v)
}

/// `schema` without descriptions, its own `title` kept.
fn keep_title(schema: Value) -> Value {
    let title = schema.get("title").cloned();
    let mut stripped = strip_descriptions(schema);
    if let (Some(title), Some(obj)) = (title, stripped.as_object_mut()) {
        obj.insert("title".into(), title);
    }
    stripped
}

/// [`emit_output_shape`] as compact JSON text (what the generated Rust
/// carries as `ENVELOPE_OUTPUT_SHAPE`).
pub fn emit_output_shape_string(spec: &Spec) -> String {
    emit_output_shape(spec).to_string()
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

/// `schema` with a string's `pattern` and `format`, and `null` allowed
/// when `nullable`.
fn constrained(
    mut schema: Value,
    pattern: Option<&crate::span::Spanned<String>>,
    format: Option<&crate::span::Spanned<String>>,
    nullable: bool,
) -> Value {
    if let Value::Object(map) = &mut schema {
        if let Some(p) = pattern {
            map.insert("pattern".into(), json!(p.value));
        }
        if let Some(f) = format {
            map.insert("format".into(), json!(f.value));
        }
    }
    if nullable {
        json!({"anyOf": [schema, {"type": "null"}]})
    } else {
        schema
    }
}

/// `additionalProperties: false` on a closed object schema.
fn close(schema: &mut Map<String, Value>, openness: Openness) {
    if openness == Openness::Closed {
        schema.insert("additionalProperties".into(), json!(false));
    }
}

/// Adds `description` to a schema, unless it is a bare `$ref` (Ajv's
/// draft-07 mode and 2020-12 disagree about `$ref` siblings).
fn with_description(mut schema: Value, doc: &str) -> Value {
    if let Value::Object(map) = &mut schema
        && !map.contains_key("$ref")
    {
        map.insert("description".into(), json!(doc));
    }
    schema
}

/// The schema of a value of type `ty`.
fn type_schema(ty: &FieldType, openness: Openness) -> Value {
    let open_string = |name: &str| {
        let reference = json!({"$ref": format!("#/$defs/{name}")});
        match openness {
            Openness::Closed => reference,
            Openness::Open => json!({"anyOf": [reference, {"type": "string"}]}),
        }
    };
    match ty {
        FieldType::String => json!({"type": "string"}),
        FieldType::Integer => json!({"type": "integer", "minimum": 0}),
        FieldType::Int32 => json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX}),
        FieldType::Int64 => json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}),
        FieldType::Float => json!({"type": "number"}),
        FieldType::Map(value) => {
            json!({"type": "object", "additionalProperties": type_schema(value, openness)})
        }
        FieldType::Boolean => json!({"type": "boolean"}),
        FieldType::Enum(name) => open_string(name),
        FieldType::ErrorCode => open_string("ErrorCode"),
        FieldType::Struct(name) => json!({"$ref": format!("#/$defs/{name}")}),
        FieldType::ArrayOf(item) => json!({"type": "array", "items": type_schema(item, openness)}),
    }
}

fn error_code_def(spec: &Spec) -> Value {
    let deprecated: Vec<&str> = spec
        .emitted_codes()
        .filter(|c| c.is_deprecated())
        .map(|c| c.wire())
        .collect();
    let mut doc = String::from("An error code of this release of the taxonomy.");
    if !deprecated.is_empty() {
        doc.push_str(&format!(
            " Deprecated (still valid, not to be relied on): {}.",
            deprecated.join(", ")
        ));
    }
    let kinds: Vec<&str> = spec
        .emitted_codes()
        .filter(|c| c.is_violation_kind())
        .map(|c| c.wire())
        .collect();
    if !kinds.is_empty() {
        doc.push_str(&format!(
            " Sent only as violation kinds (violations[].code): {}.",
            kinds.join(", ")
        ));
    }
    let mut def = enum_schema(spec.emitted_codes().flat_map(|c| c.wire_names()));
    def["description"] = json!(doc);
    def
}

fn enum_schema<'a>(values: impl Iterator<Item = &'a str>) -> Value {
    json!({"type": "string", "enum": values.collect::<Vec<_>>()})
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

/// A tagged union: `oneOf` one object per variant, each the variant's
/// members plus the discriminator pinned to its tag.
fn union_schema(
    spec: &Spec,
    def: &TypeDef,
    u: &crate::context::Union,
    openness: Openness,
) -> Value {
    let variants: Vec<Value> = u
        .variants
        .iter()
        .filter_map(|v| {
            let mut schema = struct_schema(spec.type_def(&v.ty.value)?, openness);
            let map = schema.as_object_mut()?;
            let mut props = Map::new();
            props.insert(u.discriminator.value.clone(), json!({"const": v.tag.value}));
            if let Some(Value::Object(members)) = map.remove("properties") {
                props.extend(members);
            }
            map.insert("properties".into(), Value::Object(props));
            let mut required = vec![json!(u.discriminator.value)];
            if let Some(Value::Array(r)) = map.remove("required") {
                required.extend(r);
            }
            map.insert("required".into(), Value::Array(required));
            Some(schema)
        })
        .collect();
    json!({
        "title": def.name.value,
        "description": def.doc.value,
        "oneOf": variants,
    })
}

/// A union of scalars: `anyOf` each member type's schema (and `null`).
/// The members differ in JSON type, so at most one matches a value;
/// `anyOf` spares validators the check that no second one does.
fn one_of_schema(def: &TypeDef, o: &crate::context::OneOf) -> Value {
    let mut any_of: Vec<Value> = o
        .types
        .iter()
        .map(|t| type_schema(&t.value, Openness::Closed))
        .collect();
    if o.null.is_some() {
        any_of.push(json!({"type": "null"}));
    }
    json!({"title": def.name.value, "description": def.doc.value, "anyOf": any_of})
}

fn struct_schema(def: &TypeDef, openness: Openness) -> Value {
    let mut props = Map::new();
    for member in def.members() {
        let schema = constrained(
            type_schema(&member.ty.value, openness),
            member.pattern.as_ref(),
            member.format.as_ref(),
            member.nullable,
        );
        props.insert(
            member.wire().to_owned(),
            with_description(schema, &member.doc.value),
        );
    }
    let required: Vec<&str> = def
        .members()
        .iter()
        .filter(|m| m.required)
        .map(|m| m.wire())
        .collect();
    let mut schema = Map::new();
    schema.insert("title".into(), json!(def.name.value));
    schema.insert("description".into(), json!(def.doc.value));
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(props));
    schema.insert("required".into(), json!(required));
    close(&mut schema, openness);
    Value::Object(schema)
}

/// Drops every `description` and `title` (the output shape is compiled by
/// every client that lists tools; the published schema keeps the docs).
/// A member *named* `description` inside `properties` is kept.
fn strip_descriptions(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| k != "description" && k != "title")
                .map(|(k, child)| {
                    let child = if k == "properties" {
                        match child {
                            Value::Object(props) => Value::Object(
                                props
                                    .into_iter()
                                    .map(|(n, p)| (n, strip_descriptions(p)))
                                    .collect(),
                            ),
                            other => other,
                        }
                    } else {
                        strip_descriptions(child)
                    };
                    (k, child)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_descriptions).collect()),
        other => other,
    }
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
