//! Success results of the tools, the bound on their size, and the tools'
//! output schemas.
//!
//! A successful call returns one of these as `structuredContent` (and as
//! compact JSON text). A failed call returns the taxonomy's `ErrorEnvelope`.
//!
//! Field names follow the predecessor, `mcp-multi-edit`, wherever the
//! meaning is the same (`diff_preview`, `final_content`, `file_results`,
//! `files_edited`, `summary`, per-edit `old_string`/`matched`/
//! `occurrences_replaced`), so scripts written for it keep reading them; the
//! README's "Migrating from mcp-multi-edit" lists every difference.
//!
//! The whole answer is bounded ([`fit_answer`], [`MAX_ANSWER_BYTES`]): MCP
//! clients read a message into one buffer (the official TypeScript SDK drops
//! the connection above 10 MiB), and the answer travels twice, as
//! `structuredContent` and as escaped text. Past the bound, whole fields are
//! dropped file by file, the last file first, and each file's `omitted`
//! names what it lost.
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
    /// The edit's old_string, cut to 50 characters (the last three then `...`).
    pub old_string: String,
    /// Always true in a success (an edit that does not match fails the call).
    pub matched: bool,
    /// How many occurrences it replaced (1 unless replace_all).
    pub occurrences_replaced: u64,
    /// 1-based line of its first replacement, in the file as it was when the edit ran.
    pub line: u64,
}

/// How an edit's `old_string` is echoed: at most this many characters.
pub const OLD_STRING_ECHO_CHARS: usize = 50;

/// `old_string` as echoed in [`EditSummary`]: whole up to
/// [`OLD_STRING_ECHO_CHARS`] characters, else its first 47 and `...`.
pub fn echo_old_string(s: &str) -> String {
    match s.char_indices().nth(OLD_STRING_ECHO_CHARS) {
        None => s.to_string(),
        Some(_) => {
            let end = s
                .char_indices()
                .nth(OLD_STRING_ECHO_CHARS - 3)
                .map_or(s.len(), |(i, _)| i);
            format!("{}...", &s[..end])
        }
    }
}

/// The result for one file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileResult {
    /// 0-based index of the file in the call (always 0 for multi_edit).
    pub file_index: u64,
    /// The path as the caller wrote it.
    pub file_path: String,
    /// The entry's op when it is not an edit: create, delete or move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// For a move: the destination, as the caller wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_to: Option<String>,
    /// Whether the content differs from before (false when every edit was a no-op).
    pub changed: bool,
    /// Whether the file was written (false on dry runs and when nothing changed).
    pub written: bool,
    /// Number of edits applied.
    pub edits_applied: u64,
    /// Total number of replacements.
    pub replacements: u64,
    /// Per-edit details, in call order (omitted only to keep the answer within its size limit; see `omitted`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edits: Option<Vec<EditSummary>>,
    /// SHA-256 (hex) of the file's content after the call (at moved_to for a move; for a delete, of the content removed): pass it as expected_sha256 in a follow-up call.
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
    /// Unified diff of the change (dry runs), headed `--- a/<path>` / `+++ b/<path>` with the path's leading `/` removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_preview: Option<String>,
    /// The final content (include_content).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_content: Option<String>,
    /// True if diff_preview or final_content were cut to the per-file output limit (256 KiB each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// Fields left out of this file's result to keep the whole answer within its size limit (final_content, diff_preview, edits); call again with fewer files to see them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<String>,
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
    /// The id of this committed call in the server's undo store: pass it to the `undo` tool to put every file back as it was before the call. Absent on dry runs, when nothing was written, and when the call was not recorded (the message says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<String>,
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
    /// The id of this committed call in the server's undo store: pass it to the `undo` tool to put every file back as it was before the call. Absent on dry runs, when nothing was written, and when the call was not recorded (the message says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<String>,
    /// Number of files in the call (all of them succeeded; `changed` and `written` say which were modified).
    pub files_edited: u64,
    /// Counts over the whole call.
    pub summary: FilesSummary,
    /// One entry per file, in call order.
    pub file_results: Vec<FileResult>,
}

/// One path an `undo` put back.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UndoneFile {
    /// The file's canonical path.
    pub file_path: String,
    /// What the undo does to it: `restore` (its content before the transaction), `recreate` (it was deleted or moved away: written again with its content and mode before), `delete` (the transaction created it, or moved a file there).
    pub action: String,
    /// Whether it was written (false on a dry run).
    pub written: bool,
    /// SHA-256 (hex) of its content after the undo; absent when the undo removes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// Success result of `undo`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UndoSuccess {
    /// Always true.
    pub success: bool,
    /// One-line summary.
    pub message: String,
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// The transaction this call undid.
    pub undone: String,
    /// The id of the undo itself (absent on a dry run, or when it could not be recorded): undo it to redo the transaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction_id: Option<String>,
    /// Every path of the transaction and what the undo did to it.
    pub files: Vec<UndoneFile>,
}

/// One path of a listed transaction.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListedFile {
    /// The file's canonical path.
    pub file_path: String,
    /// What the transaction did to it: edit, create, delete, move_from (the source of a move), move_to (its destination).
    pub operation: String,
}

/// One transaction of `list_transactions`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListedTransaction {
    /// Pass it to `undo`.
    pub transaction_id: String,
    /// When it committed, in milliseconds since the Unix epoch.
    pub time_unix_ms: u64,
    /// When it committed, as RFC 3339 UTC.
    pub time: String,
    /// The tool that made it: multi_edit, multi_edit_files or undo.
    pub tool: String,
    /// For an undo: the transaction it undid (undoing this one redoes that).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// Each path and what the transaction did to it.
    pub files: Vec<ListedFile>,
}

/// Success result of `list_transactions`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListTransactionsSuccess {
    /// Always true.
    pub success: bool,
    /// One-line summary.
    pub message: String,
    /// The most recent transactions the undo store holds, newest first.
    pub transactions: Vec<ListedTransaction>,
}

/// Counts of a `multi_edit_files` success.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FilesSummary {
    /// Files in the call.
    pub total_files: u64,
    /// Files whose edits all applied (every file, in a success).
    pub files_succeeded: u64,
    /// Always 0 in a success: one failing file fails the whole call.
    pub files_failed: u64,
    /// Edits applied over all files.
    pub total_edits: u64,
}

/// The largest answer splice sends, in bytes as they travel: the
/// `structuredContent` JSON plus the text copy, which is that JSON escaped
/// once more inside the JSON-RPC message. 4 MiB, well under the 10 MiB the
/// official TypeScript SDK accepts, with room for the JSON-RPC framing.
pub const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// Room kept under the bound for what cutting adds (`omitted`, the note in
/// `message`) and for the JSON-RPC framing around the two copies.
const ANSWER_SLACK: usize = 64 * 1024;

/// A success answer whose per-file fields can be cut to fit the bound.
pub trait Answer: Serialize {
    /// The per-file results, in call order.
    fn files_mut(&mut self) -> Vec<&mut FileResult>;
    /// The one-line summary, which says what was cut.
    fn message_mut(&mut self) -> &mut String;
}

impl Answer for MultiEditSuccess {
    fn files_mut(&mut self) -> Vec<&mut FileResult> {
        vec![&mut self.file]
    }
    fn message_mut(&mut self) -> &mut String {
        &mut self.message
    }
}

impl Answer for MultiEditFilesSuccess {
    fn files_mut(&mut self) -> Vec<&mut FileResult> {
        self.file_results.iter_mut().collect()
    }
    fn message_mut(&mut self) -> &mut String {
        &mut self.message
    }
}

/// Bytes `s` takes inside a JSON string (without the quotes), escaped the
/// way serde_json escapes: `"`, `\` and the short control escapes take two
/// bytes, other control characters six.
fn escaped_len(s: &str) -> usize {
    s.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0x00..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// Bytes the answer `v` takes on the wire: its compact JSON (the
/// `structuredContent`) plus the same JSON as an escaped string (the text copy).
pub fn wire_size(v: &impl Serialize) -> usize {
    let json = serde_json::to_string(v).unwrap_or_default();
    json.len() + escaped_len(&json)
}

/// What removing the member `"name":value,` saves on the wire (both copies).
fn member_cost(name: &str, value: &impl Serialize) -> usize {
    let member = format!(
        "\"{name}\":{},",
        serde_json::to_string(value).unwrap_or_default()
    );
    member.len() + escaped_len(&member)
}

/// The fields cut, in the order they go: the final content first (the
/// caller has it on disk), then the diff, then the per-edit details.
pub const CUT_ORDER: [&str; 3] = ["final_content", "diff_preview", "edits"];

/// Keeps `answer` within `max` bytes on the wire ([`wire_size`]). When it is
/// larger, drops [`CUT_ORDER`]'s fields file by file, from the last file
/// backwards, one kind of field at a time, until it fits; each file's
/// `omitted` names what it lost and `message` says so. Returns whether
/// anything was cut. The fields that stay (paths, hashes, counts) are small
/// and bounded by the argument limits, so the answer then fits.
pub fn fit_answer<A: Answer>(answer: &mut A, max: usize) -> bool {
    let total = wire_size(answer);
    if total <= max {
        return false;
    }
    let mut excess = total - max.saturating_sub(ANSWER_SLACK).min(total);
    let mut cut = [0usize; CUT_ORDER.len()];
    for (kind, name) in CUT_ORDER.iter().enumerate() {
        for f in answer.files_mut().into_iter().rev() {
            if excess == 0 {
                break;
            }
            let saved = match kind {
                0 => f.final_content.take().map(|v| member_cost(name, &v)),
                1 => f.diff_preview.take().map(|v| member_cost(name, &v)),
                _ => f.edits.take().map(|v| member_cost(name, &v)),
            };
            if let Some(saved) = saved {
                excess = excess.saturating_sub(saved);
                f.omitted.push((*name).to_string());
                cut[kind] += 1;
            }
        }
    }
    let parts: Vec<String> = CUT_ORDER
        .iter()
        .zip(cut)
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} for {n} file(s)"))
        .collect();
    if !parts.is_empty() {
        let note = format!(
            "; answer limited to {} MiB: omitted {} (see each file's `omitted`; \
             call again with fewer files to see them)",
            max / (1024 * 1024),
            parts.join(", ")
        );
        answer.message_mut().push_str(&note);
    }
    !parts.is_empty()
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

/// The envelope as advertised inside a tool's `outputSchema`: the flat,
/// closed shape the taxonomy compiler generates for it
/// (`ENVELOPE_OUTPUT_SHAPE`; why it is not the published schema is said
/// there). The published schema stays the contract: it is the resource
/// [`crate::taxonomy::SCHEMA_ID`], and the tests validate every error the
/// server sends against it as well as against this shape.
///
/// The text is generated by `taxonomy!` at build time; if it ever failed to
/// parse, that is a bug in the taxonomy compiler, and the server refuses to
/// start (`mcp::tools` builds every output schema in `Splice::new`) rather
/// than advertise a `null` where the envelope's shape belongs.
fn envelope_shape() -> Value {
    let shape: Value = serde_json::from_str(crate::taxonomy::ENVELOPE_OUTPUT_SHAPE)
        .unwrap_or_else(|e| panic!("taxonomy!'s ENVELOPE_OUTPUT_SHAPE is not JSON: {e}"));
    assert!(
        shape.is_object(),
        "taxonomy!'s ENVELOPE_OUTPUT_SHAPE is not a JSON object: {shape}"
    );
    shape
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

/// `outputSchema` of `undo`.
pub fn undo_output_schema() -> Map<String, Value> {
    output_schema(success_schema::<UndoSuccess>())
}

/// `outputSchema` of `list_transactions`.
pub fn list_transactions_output_schema() -> Map<String, Value> {
    output_schema(success_schema::<ListTransactionsSuccess>())
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
    fn the_envelope_shape_is_the_generated_object_in_every_output_schema() {
        let shape = envelope_shape();
        assert_eq!(shape["type"], "object", "{shape}");
        assert!(shape["properties"]["error_code"].is_object(), "{shape}");
        for schema in [multi_edit_output_schema(), multi_edit_files_output_schema()] {
            assert_eq!(schema["oneOf"][1], shape);
        }
    }

    #[test]
    fn output_schemas_are_small_and_carry_no_rust_integer_formats() {
        for schema in [multi_edit_output_schema(), multi_edit_files_output_schema()] {
            let v = Value::Object(schema);
            let text = serde_json::to_string(&v).unwrap();
            assert!(text.len() < 16_000, "outputSchema is {} bytes", text.len());
            assert!(!text.contains("\"format\":\"uint"), "{text}");
            assert!(!has_key(&v["oneOf"][1], "oneOf"));
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

    fn file(i: usize, diff: &str, content: &str) -> FileResult {
        FileResult {
            op: None,
            moved_to: None,
            file_index: i as u64,
            file_path: format!("/r/f{i}.txt"),
            changed: true,
            written: false,
            edits_applied: 1,
            replacements: 1,
            edits: Some(vec![EditSummary {
                edit_index: 0,
                old_string: echo_old_string("x"),
                matched: true,
                occurrences_replaced: 1,
                line: 1,
            }]),
            sha256: "0".repeat(64),
            line_ending: "lf".into(),
            bom: false,
            eol_translated: false,
            backup_path: None,
            diff_preview: Some(diff.to_string()),
            final_content: Some(content.to_string()),
            truncated: None,
            omitted: Vec::new(),
        }
    }

    fn answer(files: Vec<FileResult>) -> MultiEditFilesSuccess {
        let n = files.len() as u64;
        MultiEditFilesSuccess {
            success: true,
            message: "dry run".into(),
            dry_run: true,
            transaction_id: None,
            files_edited: n,
            summary: FilesSummary {
                total_files: n,
                files_succeeded: n,
                files_failed: 0,
                total_edits: n,
            },
            file_results: files,
        }
    }

    #[test]
    fn wire_size_counts_both_copies_exactly() {
        let a = answer(vec![file(0, "--- a/x\n\"q\"\t\u{1}é\n", "\\ \r\n")]);
        let json = serde_json::to_string(&a).unwrap();
        let text_copy = serde_json::to_string(&Value::String(json.clone())).unwrap();
        assert_eq!(wire_size(&a), json.len() + text_copy.len() - 2);
    }

    #[test]
    fn a_large_answer_is_cut_file_by_file_and_says_so() {
        // 100 files with a diff and a content at the per-file cap, full of
        // characters that escaping doubles: ~100 MB unbounded.
        let big = "\"line\"\n".repeat(256 * 1024 / 8);
        let mut a = answer((0..100).map(|i| file(i, &big, &big)).collect());
        assert!(fit_answer(&mut a, MAX_ANSWER_BYTES));
        let size = wire_size(&a);
        assert!(size <= MAX_ANSWER_BYTES, "{size}");
        // Contents went first, from every file; then diffs from the back.
        assert!(a.file_results.iter().all(|f| f.final_content.is_none()));
        let kept = a
            .file_results
            .iter()
            .take_while(|f| f.diff_preview.is_some())
            .count();
        assert!(kept > 0 && kept < 100, "{kept}");
        assert!(
            a.file_results[kept..]
                .iter()
                .all(|f| f.diff_preview.is_none() && f.omitted == ["final_content", "diff_preview"])
        );
        assert_eq!(a.file_results[0].omitted, ["final_content"]);
        assert!(a.file_results.iter().all(|f| f.edits.is_some()));
        assert!(
            a.message.contains(&format!(
                "omitted final_content for 100 file(s), diff_preview for {} file(s)",
                100 - kept
            )),
            "{}",
            a.message
        );
        // Nothing more was cut than needed: one more diff would not fit.
        assert!(size + member_cost("diff_preview", &big) > MAX_ANSWER_BYTES - ANSWER_SLACK);
    }

    #[test]
    fn a_small_answer_is_untouched_and_old_strings_are_echoed_like_the_predecessor() {
        let mut a = answer(vec![file(0, "d", "c")]);
        assert!(!fit_answer(&mut a, MAX_ANSWER_BYTES));
        assert_eq!(a.message, "dry run");
        assert!(a.file_results[0].omitted.is_empty());
        assert_eq!(echo_old_string(&"é".repeat(50)), "é".repeat(50));
        assert_eq!(
            echo_old_string(&"é".repeat(51)),
            format!("{}...", "é".repeat(47))
        );
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
