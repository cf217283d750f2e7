//! The JSON Schemas the tools advertise in `tools/list`: each tool's
//! `inputSchema` (from its params struct, [`crate::args`], in a portable
//! subset every client accepts) and
//! `outputSchema` (its success type, [`crate::response`], or the error
//! envelope narrowed to the codes its operation lists in `errors.yaml`).
//!
//! The output schema advertised for each tool is a top-level
//! `"type": "object"` holding an `anyOf` of the two (the official TypeScript
//! client rejects an `outputSchema` without a top-level object type, and
//! validates error results against it too).
//!
//! `anyOf`, not `oneOf`: no answer is both a success and an envelope (a
//! success has the file fields every envelope lacks, `success` differs), so
//! both accept the same answers, but a validator checks every branch of a
//! `oneOf` to prove only one matches, and so checked every success against
//! the envelope's per-code variants too. The official TypeScript client
//! validates each success against the `outputSchema` (Ajv). Through it, the
//! bench floor answering with splice's answer took 74-99 µs longer per call
//! under this schema with `oneOf` than under none, 70 µs with `anyOf` and
//! 23 µs with the success branch alone (two runs; in a third, `oneOf` 37 µs
//! and `anyOf` 14 µs over the success branch alone; noisy, see
//! bench/README). An `anyOf` stops at the success branch.

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

use crate::taxonomy::operation::Operation;

/// A tool's `inputSchema`: the params struct's schema ([`crate::args`]'s
/// `*Params`) in the portable subset ([`portable`]), without schemars' Rust
/// integer formats.
///
/// The root's description (the params struct's doc, "Arguments of `x`") is
/// left out: the tool's own description says it, and every byte here goes
/// into the model's context on every turn.
pub fn input<T: JsonSchema>() -> Map<String, Value> {
    let mut v = Value::Object(portable_schema::<T>());
    strip_int_formats(&mut v);
    match v {
        Value::Object(mut m) => {
            m.remove("description");
            m
        }
        _ => Map::new(),
    }
}

/// The JSON Schema of a params struct, as an MCP tool input schema object,
/// in the portable subset every client accepts ([`portable`]).
fn portable_schema<T: JsonSchema>() -> Map<String, Value> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut v = serde_json::to_value(generator.into_root_schema_for::<T>()).unwrap_or_default();
    portable(&mut v);
    match v {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Rewrites a schema into the subset that strict tool-schema consumers
/// accept (Gemini CLI, Zed and Copilot CLI have rejected the rest): no
/// `$schema`, `$ref`/`$defs` (subschemas are inlined by the generator), no
/// nullable type arrays (`["boolean", "null"]` becomes `"boolean"`: an
/// absent member is how a caller leaves an option out), no `default: null`,
/// no Rust type names as `title`. Optional members stay out of `required`.
fn portable(v: &mut Value) {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("$schema");
                map.remove("title");
                if map.get("default") == Some(&Value::Null) {
                    map.remove("default");
                }
                if let Some(Value::Array(types)) = map.get_mut("type") {
                    types.retain(|t| t != "null");
                    if types.len() == 1 {
                        let only = types.remove(0);
                        map.insert("type".into(), only);
                    }
                }
                // "properties" holds member names, not keywords: walk the
                // member schemas without treating a member called "title"
                // as an annotation.
                for (k, child) in map.iter_mut() {
                    if k == "properties" {
                        if let Value::Object(props) = child {
                            props.values_mut().for_each(walk);
                        }
                    } else {
                        walk(child);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(v);
}

/// A tool's `outputSchema`: its success type `T` or an error of its
/// operation `O`, an envelope whose code `O` lists in `errors.yaml`
/// (`O::OUTPUT_SHAPE`). A client compiles, for each tool, the errors that
/// tool can return and nothing else, and one that validates answers
/// (the official TypeScript client does) refuses a code the tool never
/// declared.
pub fn output<T: JsonSchema, O: Operation>() -> Map<String, Value> {
    output_schema(success_schema::<T>(), envelope_shape::<O>())
}

/// The schema of a success type with `success` pinned to `true`, so that it
/// and the error envelope (`success: false`) are mutually exclusive.
fn success_schema<T: JsonSchema>() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    if let Some(props) = v.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert("success".into(), json!({"type": "boolean", "const": true}));
    }
    if let Some(obj) = v.as_object_mut() {
        obj.remove("$schema");
    }
    strip_int_formats(&mut v);
    v
}

/// Removes the `format` schemars puts on Rust integers (`uint64`, `uint`,
/// `int32`, ...). They are not JSON Schema formats: the official TypeScript
/// client's validator warns about each unknown one, and `minimum: 0` already
/// says what a client needs to know.
pub fn strip_int_formats(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let is_int_format = map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("uint") || f.starts_with("int"));
            if is_int_format {
                map.remove("format");
            }
            map.values_mut().for_each(strip_int_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_int_formats),
        _ => {}
    }
}

/// The errors of operation `O` as advertised inside its tool's
/// `outputSchema`: the flat, closed shape the taxonomy compiler generates
/// for the envelope (why it is not the published schema is said at
/// `ENVELOPE_OUTPUT_SHAPE`), narrowed to the codes `O` lists, each in one
/// variant that says its context, codes with the same context sharing one
/// (`O::OUTPUT_SHAPE`). The published schema stays the
/// contract: it is the resource [`crate::taxonomy::SCHEMA_ID`], and the
/// tests validate every error the server sends against it as well as
/// against its tool's shape.
///
/// The text is generated by `taxonomy!` at build time; if it ever failed to
/// parse, that is a bug in the taxonomy compiler, and the server refuses to
/// start (`mcp::tools` builds every output schema in `Splice::new`) rather
/// than advertise a `null` where the envelope's shape belongs.
fn envelope_shape<O: Operation>() -> Value {
    let shape: Value = serde_json::from_str(O::OUTPUT_SHAPE).unwrap_or_else(|e| {
        panic!(
            "taxonomy!'s OUTPUT_SHAPE of operation `{}` is not JSON: {e}",
            O::NAME
        )
    });
    assert!(
        shape.is_object(),
        "taxonomy!'s OUTPUT_SHAPE of operation `{}` is not a JSON object: {shape}",
        O::NAME
    );
    shape
}

/// Builds `{type: object, $defs, anyOf: [success, envelope]}`: one
/// self-contained document, every `$ref` a `#/$defs/...` of its own root and
/// no `$id` (issue #27: the envelope used to keep the published schema's
/// `$id` and its own `$defs`, which generators such as
/// json-schema-to-typescript and datamodel-code-generator do not resolve,
/// and which made one Ajv instance holding the published schema too refuse
/// the `$id` twice). The success schema's and the envelope's `$defs` both
/// move to the root; a name both use is a bug the tests catch
/// ([`merge_defs`] panics at start-up, like [`envelope_shape`]).
fn output_schema(mut success: Value, mut envelope: Value) -> Map<String, Value> {
    let mut defs = take_defs(&mut success);
    if let Some(obj) = envelope.as_object_mut() {
        obj.remove("$id");
    }
    merge_defs(&mut defs, take_defs(&mut envelope));
    let v = json!({
        "type": "object",
        "$defs": defs,
        "anyOf": [success, envelope],
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// Removes and returns `schema`'s `$defs` (empty if it has none).
fn take_defs(schema: &mut Value) -> Map<String, Value> {
    match schema.as_object_mut().and_then(|o| o.remove("$defs")) {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    }
}

/// Adds `more` to `defs`; a name in both with different schemas would make
/// one side's references point at the other's type.
fn merge_defs(defs: &mut Map<String, Value>, more: Map<String, Value>) {
    for (name, schema) in more {
        match defs.get(&name) {
            Some(existing) if *existing != schema => {
                panic!("output schema: `$defs/{name}` is both a success type and an envelope type")
            }
            _ => {
                defs.insert(name, schema);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{MultiEditFilesParams, MultiEditParams};
    use crate::response::{
        ListTransactionsSuccess, MultiEditFilesSuccess, MultiEditSuccess, UndoSuccess,
    };
    use crate::taxonomy::operation;

    fn has_key(v: &Value, key: &str) -> bool {
        match v {
            Value::Object(m) => m.contains_key(key) || m.values().any(|c| has_key(c, key)),
            Value::Array(a) => a.iter().any(|c| has_key(c, key)),
            _ => false,
        }
    }

    #[test]
    fn the_envelope_shape_is_the_generated_object_in_every_output_schema() {
        fn check<T: JsonSchema, O: Operation>() {
            let mut shape = envelope_shape::<O>();
            assert_eq!(shape["type"], "object", "{shape}");
            assert!(shape["properties"]["error_code"].is_object(), "{shape}");
            let defs = take_defs(&mut shape);
            shape.as_object_mut().unwrap().remove("$id");
            let schema = output::<T, O>();
            // The shape, its `$id` left out and its `$defs` at the root.
            assert_eq!(schema["anyOf"][1], shape, "{}", O::NAME);
            for (name, def) in &defs {
                assert_eq!(&schema["$defs"][name], def, "{}: {name}", O::NAME);
            }
        }
        check::<MultiEditSuccess, operation::MultiEdit>();
        check::<MultiEditFilesSuccess, operation::MultiEditFiles>();
        check::<UndoSuccess, operation::Undo>();
        check::<ListTransactionsSuccess, operation::ListTransactions>();
    }

    /// Every `$ref` of every output schema is a `#/$defs/NAME` its own root
    /// defines, and no `$id` is embedded: generators and validators resolve
    /// them without knowing any other document (issue #27).
    #[test]
    fn output_schemas_are_self_contained() {
        fn refs(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(r)) = m.get("$ref") {
                        out.push(r.clone());
                    }
                    m.values().for_each(|c| refs(c, out));
                }
                Value::Array(a) => a.iter().for_each(|c| refs(c, out)),
                _ => {}
            }
        }
        for tool in crate::mcp::tools() {
            let schema = Value::Object((*tool.output_schema.clone().unwrap()).clone());
            assert!(!has_key(&schema, "$id"), "{}: {schema}", tool.name);
            let mut found = Vec::new();
            refs(&schema, &mut found);
            assert!(!found.is_empty(), "{}", tool.name);
            for r in found {
                let name = r
                    .strip_prefix("#/$defs/")
                    .unwrap_or_else(|| panic!("{}: {r}", tool.name));
                assert!(
                    schema["$defs"][name].is_object(),
                    "{}: {r} is not defined",
                    tool.name
                );
            }
        }
    }

    #[test]
    fn output_schemas_are_small_and_carry_no_rust_integer_formats() {
        for schema in [
            output::<MultiEditSuccess, operation::MultiEdit>(),
            output::<MultiEditFilesSuccess, operation::MultiEditFiles>(),
        ] {
            let v = Value::Object(schema);
            let text = serde_json::to_string(&v).unwrap();
            assert!(text.len() < 20_000, "outputSchema is {} bytes", text.len());
            assert!(!text.contains("\"format\":\"uint"), "{text}");
            // The envelope shape names the operation's codes, has thin
            // variants (nothing below them but a `$ref`), each code in
            // exactly one, codes with the same context sharing one, and
            // closes `context` through each variant's context type.
            let codes = v["$defs"]["ErrorCode"]["enum"].as_array().unwrap();
            assert!(codes.iter().any(|c| c == "MATCH_NOT_FOUND"));
            let variants = v["anyOf"][1]["oneOf"].as_array().unwrap();
            let mut named: Vec<&Value> = Vec::new();
            for variant in variants {
                assert!(!has_key(&variant["properties"], "oneOf"), "{variant}");
                let code = &variant["properties"]["error_code"];
                match code.get("const") {
                    Some(c) => named.push(c),
                    None => named.extend(code["enum"].as_array().unwrap()),
                }
            }
            let distinct: std::collections::BTreeSet<String> =
                named.iter().map(|c| c.to_string()).collect();
            assert_eq!(distinct.len(), named.len(), "a code in two variants");
            assert!(variants.len() < named.len(), "no variant is shared");
            assert!(named.len() > 10 && named.len() < codes.len());
            assert_eq!(
                v["$defs"]["OsErrorContext"]["additionalProperties"],
                json!(false)
            );
            assert_eq!(
                v["$defs"]["MatchNotFoundContext"]["additionalProperties"],
                json!(false)
            );
        }
    }

    #[test]
    fn int_formats_are_stripped_but_string_formats_kept() {
        let mut v = json!({"a": {"type": "integer", "format": "uint64"},
                           "b": {"type": "string", "format": "uri"},
                           "c": [{"format": "int32"}]});
        strip_int_formats(&mut v);
        assert_eq!(
            v,
            json!({"a": {"type": "integer"}, "b": {"type": "string", "format": "uri"}, "c": [{}]})
        );
    }

    /// Item 6 of issue 15: input schemas in the portable subset, with
    /// defaults that agree with their descriptions.
    #[test]
    fn input_schemas_are_portable() {
        fn check(v: &Value, at: &str, problems: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    for key in [
                        "$ref",
                        "$defs",
                        "definitions",
                        "$schema",
                        "anyOf",
                        "oneOf",
                        "title",
                    ] {
                        if m.contains_key(key) {
                            problems.push(format!("{at}: {key}"));
                        }
                    }
                    if let Some(t) = m.get("type").filter(|t| !t.is_string()) {
                        problems.push(format!("{at}: type {t}"));
                    }
                    if let Some(d) = m.get("default") {
                        let desc = m.get("description").and_then(Value::as_str).unwrap_or("");
                        if d.is_null() || !desc.contains(&format!("Default {d}.")) {
                            problems.push(format!("{at}: default {d} vs {desc:?}"));
                        }
                    }
                    if let Some(Value::Object(props)) = m.get("properties") {
                        for (name, p) in props {
                            if !p.get("description").is_some_and(Value::is_string) {
                                problems.push(format!("{at}.{name}: no description"));
                            }
                            check(p, &format!("{at}.{name}"), problems);
                        }
                    }
                    if let Some(items) = m.get("items") {
                        check(items, &format!("{at}[]"), problems);
                    }
                }
                _ => problems.push(format!("{at}: not an object")),
            }
        }
        for (name, schema) in [
            ("multi_edit", portable_schema::<MultiEditParams>()),
            (
                "multi_edit_files",
                portable_schema::<MultiEditFilesParams>(),
            ),
        ] {
            let v = Value::Object(schema);
            let mut problems = Vec::new();
            check(&v, name, &mut problems);
            assert!(problems.is_empty(), "{problems:#?}\n{v:#}");
            assert_eq!(v["type"], "object");
            let text = v.to_string();
            assert!(!text.contains("\"null\""), "{text}");
            // What a model needs before its first call.
            if name == "multi_edit" {
                assert!(text.contains("never creat"), "{text}");
            } else {
                assert!(
                    text.contains("create_parents") && text.contains("move_to"),
                    "{text}"
                );
            }
            assert!(text.contains(".bak"), "{text}");
            assert!(text.contains("DUPLICATE_OLD_STRING"), "{text}");
            // Optional members are not required; the defaults are the decoder's.
            let required: Vec<&str> = v["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            assert!(!required.contains(&"backup") && !required.contains(&"dry_run"));
            assert_eq!(v["properties"]["backup"]["default"], true);
            assert_eq!(v["properties"]["dry_run"]["default"], false);
        }
        let r = crate::args::decode_multi_edit(
            &json!({"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]}),
            &crate::config::Limits::default(),
        )
        .unwrap();
        assert!(r.backup && !r.dry_run && !r.include_content && !r.files[0].edits[0].replace_all);
    }
}
