//! The envelope as a tool advertises it in its `outputSchema`: one closed
//! object typing every member once, and a thin variant per code that pins
//! only the member holding the code's name and the code's closed context.
//! See [`emit_output_shape`] for why it is not the published schema.

use serde_json::{Map, Value, json};

use crate::envelope::Carries;
use crate::layout::{Form, Layout};
use crate::spec::{Code, Spec};

use super::Openness;
use super::types::{enum_schema, error_code_def, one_of_schema, struct_schema, union_schema};
use super::variants::{context_def, discriminant, object_body};

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
    let layout = Layout::of(spec);
    let (props, required) = object_body(
        &layout,
        &layout.envelope(Form::Any),
        Form::Any,
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
        variants.push(thin_variant(&layout, code, &required));
        if let Some(context) = context_def(&layout, code, Openness::Closed) {
            defs.insert(code.context_type_name(), keep_title(context));
        }
    }
    json!({
        "$id": spec.taxonomy.schema_id(),
        "description": format!(
            "An error envelope. Which members each {} carries: resource {}.",
            discriminant(&layout),
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
fn thin_variant(layout: &Layout<'_>, code: &Code, shape_required: &[String]) -> Value {
    let form = Form::Code(code);
    let (props, required) = object_body(layout, &layout.envelope(form), form, Openness::Closed);
    let names_code = layout
        .discriminant()
        .path
        .first()
        .map(|m| m.name.value.clone());
    let context = layout
        .spec()
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
pub(super) fn keep_title(schema: Value) -> Value {
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

/// Drops every `description` and `title` (the output shape is compiled by
/// every client that lists tools; the published schema keeps the docs).
/// A member *named* `description` inside `properties` is kept.
pub(super) fn strip_descriptions(v: Value) -> Value {
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
