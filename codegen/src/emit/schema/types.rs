//! The schemas of values: a declared field's or member's type (open or
//! closed), the `$defs` of declared object types, enums, tagged unions and
//! unions of scalars, and the `ErrorCode` enum.

use serde_json::{Map, Value, json};

use crate::context::{FieldType, TypeDef};
use crate::spec::Spec;

use super::Openness;

/// `schema` with a string's `pattern` and `format`, and `null` allowed
/// when `nullable`.
pub(super) fn constrained(
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
pub(super) fn close(schema: &mut Map<String, Value>, openness: Openness) {
    if openness == Openness::Closed {
        schema.insert("additionalProperties".into(), json!(false));
    }
}

/// Adds `description` to a schema, unless it is a bare `$ref` (Ajv's
/// draft-07 mode and 2020-12 disagree about `$ref` siblings).
pub(super) fn with_description(mut schema: Value, doc: &str) -> Value {
    if let Value::Object(map) = &mut schema
        && !map.contains_key("$ref")
    {
        map.insert("description".into(), json!(doc));
    }
    schema
}

/// The schema of a value of type `ty`.
pub(super) fn type_schema(ty: &FieldType, openness: Openness) -> Value {
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
        FieldType::Json => json!({}),
        FieldType::Enum(name) => open_string(name),
        FieldType::ErrorCode => open_string("ErrorCode"),
        FieldType::Struct(name) => json!({"$ref": format!("#/$defs/{name}")}),
        FieldType::ArrayOf(item) => json!({"type": "array", "items": type_schema(item, openness)}),
    }
}

pub(super) fn error_code_def(spec: &Spec) -> Value {
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

/// A string of `values`, each once (under `code_names: per_category` two
/// codes may share a name), in first-seen order.
pub(super) fn enum_schema<'a>(values: impl Iterator<Item = &'a str>) -> Value {
    let mut seen: Vec<&str> = Vec::new();
    for v in values {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    json!({"type": "string", "enum": seen})
}

/// A tagged union: `oneOf` one object per variant, each the variant's
/// members plus the discriminator pinned to its tag.
pub(super) fn union_schema(
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

/// A `one_of`: `anyOf` each member type's schema (and `null`). The
/// members differ in JSON type, so at most one matches a value; `anyOf`
/// spares validators the check that no second one does. Scalars are the
/// same in every schema; a list, an object or an enum among the members
/// follows `openness` as anywhere else.
pub(super) fn one_of_schema(def: &TypeDef, o: &crate::context::OneOf, openness: Openness) -> Value {
    let mut any_of: Vec<Value> = o
        .types
        .iter()
        .map(|t| type_schema(&t.value, openness))
        .collect();
    if o.null.is_some() {
        any_of.push(json!({"type": "null"}));
    }
    json!({"title": def.name.value, "description": def.doc.value, "anyOf": any_of})
}

pub(super) fn struct_schema(def: &TypeDef, openness: Openness) -> Value {
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
    if def.open {
        // Open in every schema, the strict one and the output shape too:
        // the members it does not list are part of the contract.
        schema.insert("additionalProperties".into(), json!(true));
    } else {
        close(&mut schema, openness);
    }
    Value::Object(schema)
}
