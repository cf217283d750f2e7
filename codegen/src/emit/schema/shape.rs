//! The envelope as a tool advertises it in its `outputSchema`: one closed
//! object typing every member once, and a thin variant per code that pins
//! only the member holding the code's name and the code's closed context.
//! See [`emit_output_shape`] for why it is not the published schema.

use serde_json::{Map, Value, json};

use crate::envelope::Carries;
use crate::layout::{Form, Layout};
use crate::spec::{Code, Operation, Spec};

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
    shape_of(spec, None)
}

/// The output shape of one operation: [`emit_output_shape`] narrowed to
/// the codes `op` raises. Its variants are those codes' only, and codes
/// that differ in nothing but their name share one ([`shared_variants`]);
/// the member holding the code is typed by the variants alone; the members
/// typed once are the envelope's and the fields some code of `op` may
/// carry; `ErrorCode` (what `violations[].code` and the like hold) lists
/// the codes of `op`, violation kinds included; and `$defs` keeps only
/// what these reach. A client compiles, for each tool, the errors that
/// tool can return and nothing else.
pub fn emit_operation_output_shape(spec: &Spec, op: &Operation) -> Value {
    shape_of(spec, Some(op))
}

/// [`emit_operation_output_shape`] as compact JSON text (what the
/// generated Rust carries as each operation's `OUTPUT_SHAPE`).
pub fn emit_operation_output_shape_string(spec: &Spec, op: &Operation) -> String {
    emit_operation_output_shape(spec, op).to_string()
}

fn shape_of(spec: &Spec, op: Option<&Operation>) -> Value {
    let layout = Layout::of(spec);
    let raised: Option<Vec<&Code>> = op.map(|op| spec.operation_codes(op));
    let raises = |code: &Code| {
        raised
            .as_ref()
            .is_none_or(|r| r.iter().any(|c| c.name.value == code.name.value))
    };
    let (props, required) = object_body(
        &layout,
        &layout.envelope(Form::Any),
        Form::Any,
        Openness::Closed,
    );
    let mut defs = Map::new();
    let mut codes_def = error_code_def(spec);
    if let Some(raised) = &raised {
        codes_def = enum_schema(raised.iter().flat_map(|c| c.wire_names()));
    }
    defs.insert("ErrorCode".into(), codes_def);
    for def in &spec.types {
        let schema = match (def.values(), def.union(), def.one_of()) {
            (Some(_), _, _) => enum_schema(def.wire_values().into_iter()),
            (None, Some(u), _) => union_schema(spec, def, u, Openness::Closed),
            (None, None, Some(o)) => one_of_schema(def, o, Openness::Closed),
            (None, None, None) => struct_schema(def, Openness::Closed),
        };
        defs.insert(def.name.value.clone(), strip_descriptions(schema));
    }
    // A violation kind never is an envelope's own code (it arrives as
    // `violations[].code`, which `ErrorCode` still types).
    let thin: Vec<Thin<'_>> = spec
        .enveloped_codes()
        .filter(|c| raises(c))
        .map(|code| Thin {
            code,
            variant: thin_variant(&layout, code, &required),
            context: context_def(&layout, code, Openness::Closed).map(keep_title),
        })
        .collect();
    let variants = if op.is_some() {
        shared_variants(spec, thin, &mut defs)
    } else {
        thin.into_iter()
            .map(|t| {
                if let Some(context) = t.context {
                    defs.insert(t.code.context_type_name(), context);
                }
                t.variant
            })
            .collect()
    };
    let mut props = props;
    if op.is_some() {
        // The variants pin the code's name to the operation's codes, so the
        // member holding it needs no `ErrorCode` of its own: an enum is
        // among the dearest keywords to compile (Ajv unrolls it into one
        // comparison per name).
        if let Some(member) = layout.discriminant().path.first()
            && let Some(schema) = props.get_mut(&member.name.value)
        {
            replace_first(
                schema,
                &json!({"$ref": "#/$defs/ErrorCode"}),
                &json!({"type": "string"}),
            );
        }
    }
    if let Some(raised) = &raised {
        // The fields no code of the operation carries leave the closed
        // object (a top-level one, or one `in: envelope`).
        let unused: Vec<&str> = spec
            .fields
            .iter()
            .filter(|f| f.placement() != crate::context::Placement::Context)
            .filter(|f| {
                !raised.iter().any(|c| {
                    c.required_context
                        .iter()
                        .chain(&c.optional_context)
                        .any(|n| n.value == f.name())
                })
            })
            .map(|f| f.wire())
            .collect();
        drop_properties(&mut props, &unused);
    }
    if variants.is_empty() {
        // Nothing of the operation is an envelope of its own.
        let mut shape = json!({
            "$id": spec.taxonomy.schema_id(),
            "description": "This operation returns no error envelope.",
            "not": {},
        });
        if let Some(op) = op {
            shape["description"] = json!(format!(
                "Operation `{}` returns no error envelope.",
                op.wire()
            ));
        }
        return shape;
    }
    let mut shape = json!({
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
    });
    if op.is_some() {
        prune_defs(&mut shape);
    }
    shape
}

/// Removes the properties named `names` from `props` and from the nested
/// objects among them (a declared envelope's `error` object).
fn drop_properties(props: &mut Map<String, Value>, names: &[&str]) {
    props.retain(|k, _| !names.contains(&k.as_str()));
    for v in props.values_mut() {
        if let Some(Value::Object(inner)) = v.get_mut("properties") {
            drop_properties(inner, names);
        }
    }
}

/// Drops the `$defs` of `shape` that nothing outside them reaches, through
/// any chain of `$ref`s.
fn prune_defs(shape: &mut Value) {
    let Some(Value::Object(defs)) = shape.get("$defs").cloned() else {
        return;
    };
    let mut root = shape.clone();
    if let Some(o) = root.as_object_mut() {
        o.remove("$defs");
    }
    let mut reached: Vec<String> = Vec::new();
    let mut todo = refs(&root);
    while let Some(name) = todo.pop() {
        if reached.contains(&name) {
            continue;
        }
        if let Some(def) = defs.get(&name) {
            todo.extend(refs(def));
        }
        reached.push(name);
    }
    if let Some(Value::Object(d)) = shape.get_mut("$defs") {
        d.retain(|name, _| reached.contains(name));
    }
}

/// The names of the `#/$defs/...` every `$ref` in `v` points at.
fn refs(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                match (k.as_str(), child) {
                    ("$ref", Value::String(r)) => {
                        if let Some(name) = r.strip_prefix("#/$defs/") {
                            out.push(name.to_owned());
                        }
                    }
                    _ => out.extend(refs(child)),
                }
            }
        }
        Value::Array(items) => {
            for i in items {
                out.extend(refs(i));
            }
        }
        _ => {}
    }
    out
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

/// One code's thin variant and its closed context (`None` when the code
/// carries no context field).
struct Thin<'a> {
    code: &'a Code,
    variant: Value,
    context: Option<Value>,
}

impl Thin<'_> {
    /// What the variant says besides the code's name: the variant with its
    /// title and the code's name left out, and its context's schema
    /// without its title. Two codes with the same key differ in nothing a
    /// client could tell apart but the name.
    fn key(&self) -> String {
        let mut v = self.variant.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("title");
        }
        replace_first(&mut v, &name_schema(self.code), &Value::Null);
        replace_first(&mut v, &context_ref(self.code), &Value::Null);
        let mut context = self.context.clone().unwrap_or(Value::Null);
        if let Some(o) = context.as_object_mut() {
            o.remove("title");
        }
        format!("{v}|{context}")
    }
}

/// The variants of one operation's shape. Codes whose thin variants differ
/// only in the code's name (the same context schema, required alike) share
/// one variant, whose name member lists them all (an `enum` titled
/// `OsErrorCode`, which generators make a named type of its own), and one
/// context type named after its members (`OsErrorEnvelope`,
/// `OsErrorContext`); a code alone keeps `<Code>Envelope` and
/// `<Code>Context`.
///
/// A client still narrows on the code: each code is in exactly one variant,
/// which says its context, so the shape accepts and refuses what one
/// variant per code would. What sharing saves is compilation: the official
/// TypeScript SDK compiles every tool's `outputSchema` with Ajv when it
/// lists tools, each variant and each context anew, and most of an
/// operation's codes carry the same context (`os_error`, a `limit`, none).
/// docs/benchmarks.md, "Cold start", has the figures.
fn shared_variants(spec: &Spec, thin: Vec<Thin<'_>>, defs: &mut Map<String, Value>) -> Vec<Value> {
    let mut groups: Vec<(String, Vec<Thin<'_>>)> = Vec::new();
    for t in thin {
        let key = t.key();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, group)) => group.push(t),
            None => groups.push((key, vec![t])),
        }
    }
    let mut taken: Vec<String> = defs.keys().cloned().collect();
    for code in &spec.codes {
        taken.push(code.envelope_type_name());
        taken.push(code.context_type_name());
    }
    let mut variants = Vec::new();
    for (_, mut group) in groups {
        if group.len() == 1 {
            let t = group.remove(0);
            if let Some(context) = t.context {
                defs.insert(t.code.context_type_name(), context);
            }
            variants.push(t.variant);
            continue;
        }
        let first = group.remove(0);
        let names: Vec<&str> = std::iter::once(&first)
            .chain(&group)
            .flat_map(|t| t.code.wire_names())
            .fold(Vec::new(), |mut names, n| {
                if !names.contains(&n) {
                    names.push(n);
                }
                names
            });
        let base = shared_name(first.context.as_ref(), &taken);
        for suffix in ["Envelope", "Context", "Code"] {
            taken.push(format!("{base}{suffix}"));
        }
        let mut v = first.variant;
        replace_first(
            &mut v,
            &name_schema(first.code),
            &json!({"title": format!("{base}Code"), "enum": names}),
        );
        v["title"] = json!(format!("{base}Envelope"));
        if let Some(mut context) = first.context {
            let name = format!("{base}Context");
            replace_first(
                &mut v,
                &context_ref(first.code),
                &json!({"$ref": format!("#/$defs/{name}")}),
            );
            context["title"] = json!(name);
            defs.insert(name, context);
        }
        variants.push(v);
    }
    variants
}

/// The name of a shared variant and its context: the context's members in
/// UpperCamel case (`OsError`, `Limit`), `NoContext` without one, with a
/// number added when a type or another group already has the name with
/// `Envelope`, `Context` or `Code` after it.
fn shared_name(context: Option<&Value>, taken: &[String]) -> String {
    let members: String = context
        .and_then(|c| c.get("properties"))
        .and_then(Value::as_object)
        .map(|p| {
            p.keys()
                .map(|k| crate::case::Case::UpperCamel.convert(k))
                .collect()
        })
        .unwrap_or_default();
    let base = if members.is_empty() {
        "NoContext".to_owned()
    } else {
        members
    };
    let free = |b: &str| {
        ["Envelope", "Context", "Code"]
            .iter()
            .all(|suffix| !taken.contains(&format!("{b}{suffix}")))
    };
    if free(&base) {
        return base;
    }
    (2..)
        .map(|n| format!("{base}{n}"))
        .find(|b| free(b))
        .unwrap_or(base)
}

/// The schema of the member holding the code's name in its thin variant
/// (as `variants::carried` writes it).
fn name_schema(code: &Code) -> Value {
    if code.aliases.is_empty() {
        json!({"const": code.wire()})
    } else {
        json!({"enum": code.wire_names().collect::<Vec<_>>()})
    }
}

/// The reference to the code's own context type.
fn context_ref(code: &Code) -> Value {
    json!({"$ref": format!("#/$defs/{}", code.context_type_name())})
}

/// Replaces the first value equal to `from` in `v` (depth first) by `to`.
fn replace_first(v: &mut Value, from: &Value, to: &Value) -> bool {
    if v == from {
        *v = to.clone();
        return true;
    }
    match v {
        Value::Object(m) => m.values_mut().any(|c| replace_first(c, from, to)),
        Value::Array(a) => a.iter_mut().any(|c| replace_first(c, from, to)),
        _ => false,
    }
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
