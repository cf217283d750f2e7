//! The JSON Schema (draft 2020-12) of the error envelope.
//!
//! This is the contract clients validate against: it is published as
//! `schema/error-envelope.schema.json` and served by the server as an MCP
//! resource, and the official TypeScript SDK validates every error result
//! against it (through the tool's `outputSchema`). That client compiles
//! schemas with Ajv in its default draft-07 mode, so every rule a client must
//! enforce is written with keywords both dialects understand: `type`,
//! `properties`, `required`, `enum`, `const`, `if`/`then`, `allOf`, boolean
//! schemas and `$ref` into `$defs`. Nothing relies on 2020-12-only keywords
//! (`unevaluatedProperties`, `dependentRequired`, `prefixItems`).
//!
//! Shape:
//! - the always-present fields, with `error_code` an enum of every emitted
//!   code (deprecated ones included, removed ones not);
//! - every context field the spec declares at its [`Placement`], typed from
//!   its declaration ([`crate::context`]), with the declared support types
//!   under `$defs`;
//! - `additionalProperties: false` on the envelope, its `context` and every
//!   support type, so a misspelled field is an error, not silently ignored;
//! - one `allOf` entry per emitted code: `if error_code == X then` its number,
//!   category, `retryable` and `cause` are pinned, its required context fields
//!   are required, and context fields the code may not carry are forbidden.

use serde_json::{Map, Value, json};

use crate::context::{FieldDef, FieldType, Placement, TypeDef};
use crate::spec::{Cause, Code, Lifecycle, Spec};

/// The `$schema` URI of the dialect we emit.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The envelope fields every error carries, in output order.
pub const ALWAYS_PRESENT: [&str; 8] = [
    "success",
    "error_code",
    "code",
    "category",
    "message",
    "retryable",
    "cause",
    "recovery_hints",
];

/// The envelope schema of a checked spec.
pub fn emit(spec: &Spec) -> Value {
    let mut root = Map::new();
    root.insert("$schema".into(), json!(DIALECT));
    root.insert("$id".into(), json!(spec.taxonomy.schema_id()));
    root.insert(
        "title".into(),
        json!(format!("{} error envelope", spec.taxonomy.name.value)),
    );
    root.insert("description".into(), json!(description(spec)));
    root.insert("type".into(), json!("object"));
    root.insert("required".into(), json!(ALWAYS_PRESENT));
    root.insert("properties".into(), Value::Object(properties(spec)));
    root.insert("additionalProperties".into(), json!(false));
    root.insert(
        "allOf".into(),
        Value::Array(spec.emitted_codes().map(|c| rule(spec, c)).collect()),
    );
    root.insert("$defs".into(), Value::Object(defs(spec)));
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
        "The JSON object a {} tool returns when a call fails (taxonomy version {}). \
         Generated from errors.yaml; see docs/errors.md for every code.",
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

fn properties(spec: &Spec) -> Map<String, Value> {
    let mut props = Map::new();
    props.insert(
        "success".into(),
        json!({"const": false, "description": "Always false for an error."}),
    );
    props.insert("error_code".into(), json!({"$ref": "#/$defs/ErrorCode"}));
    props.insert(
        "code".into(),
        json!({
            "type": "integer",
            "minimum": 0,
            "description": "The numeric id of error_code; fixed per code and never reused."
        }),
    );
    props.insert(
        "category".into(),
        json!({
            "type": "string",
            "enum": spec.categories.iter().map(|c| c.key.value.as_str()).collect::<Vec<_>>(),
            "description": "The category of error_code, from its numeric range."
        }),
    );
    props.insert(
        "message".into(),
        json!({"type": "string", "description": "What went wrong, in one line."}),
    );
    props.insert(
        "retryable".into(),
        json!({
            "type": "boolean",
            "description": "True when the caller can fix its call and retry."
        }),
    );
    props.insert(
        "cause".into(),
        json!({
            "type": "string",
            "enum": Cause::ALL.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "description": "Who is to blame: input (the caller's arguments), environment (the file system, other processes) or server (the server itself)."
        }),
    );
    props.insert(
        "recovery_hints".into(),
        json!({
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": "General guidance for recovering, most relevant first."
        }),
    );
    for field in spec.fields_at(Placement::TopLevel) {
        props.insert(field.name().into(), field_schema(field));
    }
    let mut context = Map::new();
    for field in spec.fields_at(Placement::Context) {
        context.insert(field.name().into(), field_schema(field));
    }
    props.insert(
        "context".into(),
        json!({
            "type": "object",
            "description": "Details about the failure; which members are present depends on error_code.",
            "properties": context,
            "additionalProperties": false
        }),
    );
    props
}

fn field_schema(field: &FieldDef) -> Value {
    let mut schema = type_schema(field.ty());
    if let Value::Object(map) = &mut schema
        && !map.contains_key("$ref")
    {
        map.insert("description".into(), json!(field.doc()));
    }
    schema
}

/// The schema of a value of type `ty`. `$ref` schemas get no siblings: Ajv's
/// draft-07 mode and 2020-12 disagree about them.
fn type_schema(ty: &FieldType) -> Value {
    match ty {
        FieldType::String => json!({"type": "string"}),
        FieldType::Integer => json!({"type": "integer", "minimum": 0}),
        FieldType::Boolean => json!({"type": "boolean"}),
        FieldType::Enum(name) | FieldType::Struct(name) => {
            json!({"$ref": format!("#/$defs/{name}")})
        }
        FieldType::ErrorCode => json!({"$ref": "#/$defs/ErrorCode"}),
        FieldType::ArrayOf(item) => json!({"type": "array", "items": type_schema(item)}),
    }
}

fn defs(spec: &Spec) -> Map<String, Value> {
    let mut defs = Map::new();
    let codes: Vec<&str> = spec
        .emitted_codes()
        .map(|c| c.name.value.as_str())
        .collect();
    let deprecated: Vec<&str> = spec
        .emitted_codes()
        .filter(|c| c.is_deprecated())
        .map(|c| c.name.value.as_str())
        .collect();
    let mut doc = String::from("An error code of the taxonomy.");
    if !deprecated.is_empty() {
        doc.push_str(&format!(
            " Deprecated (still valid, not to be relied on): {}.",
            deprecated.join(", ")
        ));
    }
    defs.insert(
        "ErrorCode".into(),
        json!({"type": "string", "enum": codes, "description": doc}),
    );
    // Objects, then enums, each in declaration order.
    for def in &spec.types {
        if def.values().is_none() {
            defs.insert(def.name.value.clone(), struct_schema(def));
        }
    }
    for def in &spec.types {
        if let Some(values) = def.values() {
            let values: Vec<&str> = values.iter().map(|v| v.value.as_str()).collect();
            defs.insert(
                def.name.value.clone(),
                json!({"type": "string", "enum": values, "description": def.doc.value}),
            );
        }
    }
    defs
}

fn struct_schema(def: &TypeDef) -> Value {
    let mut props = Map::new();
    for member in def.members() {
        let mut schema = type_schema(&member.ty.value);
        if let Value::Object(map) = &mut schema
            && !map.contains_key("$ref")
        {
            map.insert("description".into(), json!(member.doc.value));
        }
        props.insert(member.name.value.clone(), schema);
    }
    let required: Vec<&str> = def
        .members()
        .iter()
        .filter(|m| m.required)
        .map(|m| m.name.value.as_str())
        .collect();
    json!({
        "type": "object",
        "description": def.doc.value,
        "properties": props,
        "required": required,
        "additionalProperties": false
    })
}

/// `if error_code == X then ...` for one emitted code.
fn rule(spec: &Spec, code: &Code) -> Value {
    let allowed = |f: &FieldDef| {
        code.required_context
            .iter()
            .any(|r| r.value == f.name.value)
            || code
                .optional_context
                .iter()
                .any(|o| o.value == f.name.value)
    };
    let required_at = |placement: Placement| -> Vec<&str> {
        // Canonical order, not file order, so reordering the spec's list
        // does not churn the artifact.
        spec.fields_at(placement)
            .filter(|f| {
                code.required_context
                    .iter()
                    .any(|r| r.value == f.name.value)
            })
            .map(|f| f.name())
            .collect()
    };
    let top_required = required_at(Placement::TopLevel);
    let ctx_required = required_at(Placement::Context);

    let mut then_props = Map::new();
    then_props.insert("code".into(), json!({"const": code.number.value}));
    then_props.insert("category".into(), json!({"const": code.category.value}));
    then_props.insert("retryable".into(), json!({"const": code.retryable}));
    then_props.insert("cause".into(), json!({"const": code.cause.as_str()}));
    for field in spec.fields_at(Placement::TopLevel).filter(|f| !allowed(f)) {
        then_props.insert(field.name().into(), json!(false));
    }
    let mut ctx = Map::new();
    if !ctx_required.is_empty() {
        ctx.insert("required".into(), json!(ctx_required));
    }
    let forbidden: Map<String, Value> = spec
        .fields_at(Placement::Context)
        .filter(|f| !allowed(f))
        .map(|f| (f.name().to_string(), json!(false)))
        .collect();
    if !forbidden.is_empty() {
        ctx.insert("properties".into(), Value::Object(forbidden));
    }
    if !ctx.is_empty() {
        then_props.insert("context".into(), Value::Object(ctx));
    }

    let mut then = Map::new();
    let mut required: Vec<&str> = top_required;
    if !ctx_required.is_empty() {
        required.push("context");
    }
    if !required.is_empty() {
        then.insert("required".into(), json!(required));
    }
    then.insert("properties".into(), Value::Object(then_props));

    let mut entry = Map::new();
    entry.insert("description".into(), json!(rule_description(spec, code)));
    entry.insert(
        "if".into(),
        json!({
            "properties": {"error_code": {"const": code.name.value}},
            "required": ["error_code"]
        }),
    );
    entry.insert("then".into(), Value::Object(then));
    Value::Object(entry)
}

fn rule_description(_spec: &Spec, code: &Code) -> String {
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
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_fixture as fixture;

    #[test]
    fn error_code_enum_lists_emitted_codes_only() {
        let schema = emit(&fixture());
        assert_eq!(
            schema["$defs"]["ErrorCode"]["enum"],
            json!(["BAD_PATH", "MATCH_NOT_FOUND", "OLD_THING", "DISK_FULL"])
        );
        assert_eq!(schema["$id"], "schema://demo/error-envelope/v2");
    }

    #[test]
    fn rule_pins_number_and_requires_context_by_placement() {
        let schema = emit(&fixture());
        let rule = schema["allOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["if"]["properties"]["error_code"]["const"] == "MATCH_NOT_FOUND")
            .unwrap();
        let then = &rule["then"];
        assert_eq!(then["properties"]["code"]["const"], 2000);
        assert_eq!(
            then["required"],
            json!(["file_path", "edit_index", "edit_status", "context"])
        );
        assert_eq!(
            then["properties"]["context"]["required"],
            json!(["snippet"])
        );
        // Not in the code's lists: forbidden.
        assert_eq!(then["properties"]["backup_path"], json!(false));
        assert_eq!(
            then["properties"]["context"]["properties"]["limit"],
            json!(false)
        );
        // In its optional list: allowed.
        assert!(then["properties"].get("file_index").is_none());
    }

    #[test]
    fn every_ref_resolves() {
        let schema = emit(&fixture());
        let text = schema.to_string();
        for piece in text.split("\"#/$defs/").skip(1) {
            let name = &piece[..piece.find('"').unwrap()];
            assert!(schema["$defs"].get(name).is_some(), "dangling $ref {name}");
        }
    }

    #[test]
    fn string_form_ends_with_newline() {
        let text = emit_string(&fixture());
        assert!(text.ends_with("}\n") && text.starts_with("{\n  \"$schema\""));
    }
}
