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
    v
}

/// The published envelope schema, embedded for use inside `oneOf`.
fn envelope_schema() -> Value {
    let mut v: Value =
        serde_json::from_str(crate::resources::ENVELOPE_SCHEMA).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        obj.remove("$schema");
    }
    v
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
        "oneOf": [success, envelope_schema()],
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
