//! Success results of the tools, and the tools' output schemas.
//!
//! A successful call returns one of these as `structuredContent` (and as
//! compact JSON text). A failed call returns the taxonomy's `ErrorEnvelope`.
//! The output schema advertised for each tool is a top-level
//! `"type": "object"` holding a `oneOf` of the two (the official TypeScript
//! client rejects an `outputSchema` without a top-level object type, and
//! validates error results against it too).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// What one edit did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EditSummary {
    /// 0-based index of the edit.
    pub edit_index: u64,
    /// How many occurrences it replaced (1 unless replace_all).
    pub replacements: u64,
    /// 1-based line of its first replacement, in the file as it was when the edit ran.
    pub line: u64,
}

/// The result for one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileResult {
    /// 0-based index of the file in the call (always 0 for multi_edit).
    pub file_index: u64,
    /// The path as the caller wrote it.
    pub file_path: String,
    /// Whether the content differs from before (false when every edit was a no-op).
    pub changed: bool,
    /// Whether the file was written (false on dry runs and when nothing changed).
    pub written: bool,
    /// Number of edits applied.
    pub edits_applied: u64,
    /// Total number of replacements.
    pub replacements: u64,
    /// Per-edit details.
    pub edits: Vec<EditSummary>,
    /// SHA-256 (hex) of the file's content after the call: pass it as expected_sha256 in a follow-up call.
    pub sha256: String,
    /// The file's line endings: lf, crlf, mixed or none.
    pub line_ending: String,
    /// Whether the file starts with a UTF-8 byte order mark (kept as is).
    pub bom: bool,
    /// Whether LF line breaks in old_string were matched against CRLF ones.
    pub eol_translated: bool,
    /// Where the backup of the original bytes was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup_path: Option<String>,
    /// Unified diff of the change (dry runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The final content (include_content).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// True if diff or content were cut to the output limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
}

/// Success result of `multi_edit`: the one file's result, flattened.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MultiEditSuccess {
    /// Always true.
    pub success: bool,
    /// One-line summary.
    pub message: String,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// The file's result (`file_index` is always 0).
    #[serde(flatten)]
    pub file: FileResult,
}

/// Success result of `multi_edit_files`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MultiEditFilesSuccess {
    /// Always true.
    pub success: bool,
    /// One-line summary.
    pub message: String,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// One entry per file, in call order.
    pub files: Vec<FileResult>,
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

/// The envelope as advertised inside a tool's `outputSchema`: the published
/// schema's shape (every member, its type, the code enum, the closed
/// `context`) without its per-code rules (`allOf`) and without descriptions.
///
/// Why not the whole published schema: clients compile every `outputSchema`
/// when they list tools; the per-code rules are most of its 49 KB and made
/// the official TypeScript client's `listTools` several times slower than the
/// server's own start-up. The full schema stays the contract: it is the
/// resource `schema://splice/error-envelope/v1` and
/// `schema/error-envelope.schema.json`, and the tests validate every error
/// the server sends against it as well as against this shape.
fn envelope_shape() -> Value {
    let mut v: Value =
        serde_json::from_str(crate::resources::ENVELOPE_SCHEMA).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        obj.remove("$schema");
        obj.remove("allOf");
        obj.remove("title");
        obj.insert(
            "description".into(),
            json!(
                "An error envelope. Which members each error_code carries: resource \
                 schema://splice/error-envelope/v1."
            ),
        );
    }
    strip_descriptions(&mut v, true);
    v
}

/// Drops every `description` below the top level (they stay in the published schema).
fn strip_descriptions(v: &mut Value, top: bool) {
    match v {
        Value::Object(map) => {
            if !top {
                map.remove("description");
            }
            // A member named "description" inside `properties` is a property,
            // not an annotation; the envelope has none, but stay correct.
            for (k, child) in map.iter_mut() {
                if k == "properties" {
                    if let Value::Object(props) = child {
                        props
                            .values_mut()
                            .for_each(|p| strip_descriptions(p, false));
                    }
                } else {
                    strip_descriptions(child, false);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| strip_descriptions(i, false)),
        _ => {}
    }
}

/// Builds `{type: object, $defs, oneOf: [success, envelope]}`. The success
/// schema's `$defs` move to the top level (its `#/$defs/...` references are
/// relative to the document root); the envelope keeps its own `$id`, so its
/// references resolve inside it.
fn output_schema(mut success: Value) -> Map<String, Value> {
    let defs = success
        .as_object_mut()
        .and_then(|o| o.remove("$defs"))
        .unwrap_or_else(|| json!({}));
    let v = json!({
        "type": "object",
        "$defs": defs,
        "oneOf": [success, envelope_shape()],
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// `outputSchema` of `multi_edit`.
pub fn multi_edit_output_schema() -> Map<String, Value> {
    output_schema(success_schema::<MultiEditSuccess>())
}

/// `outputSchema` of `multi_edit_files`.
pub fn multi_edit_files_output_schema() -> Map<String, Value> {
    output_schema(success_schema::<MultiEditFilesSuccess>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_key(v: &Value, key: &str) -> bool {
        match v {
            Value::Object(m) => m.contains_key(key) || m.values().any(|c| has_key(c, key)),
            Value::Array(a) => a.iter().any(|c| has_key(c, key)),
            _ => false,
        }
    }

    #[test]
    fn output_schemas_are_small_and_carry_no_rust_integer_formats() {
        for schema in [multi_edit_output_schema(), multi_edit_files_output_schema()] {
            let v = Value::Object(schema);
            let text = serde_json::to_string(&v).unwrap();
            assert!(text.len() < 16_000, "outputSchema is {} bytes", text.len());
            assert!(!text.contains("\"format\":\"uint"), "{text}");
            assert!(!has_key(&v["oneOf"][1], "allOf"));
            // The envelope shape still names every code and closes `context`.
            let codes = v["oneOf"][1]["$defs"]["ErrorCode"]["enum"]
                .as_array()
                .unwrap();
            assert!(codes.iter().any(|c| c == "MATCH_NOT_FOUND"));
            assert_eq!(
                v["oneOf"][1]["properties"]["context"]["additionalProperties"],
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
}
