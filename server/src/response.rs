//! Success results of the tools.
//!
//! A successful call returns one of these as `structuredContent` (and as
//! compact JSON text). A failed call returns the taxonomy's `ErrorEnvelope`.
//! How large an answer may grow is decided in [`crate::tools::answer_cap`],
//! and the schemas the tools advertise for these types are built in
//! [`crate::tool_schemas`].
//!
//! Field names follow the predecessor, `mcp-multi-edit`, wherever the
//! meaning is the same (`diff_preview`, `final_content`, `file_results`,
//! `files_edited`, `summary`, per-edit `old_string`/`matched`/
//! `occurrences_replaced`), so scripts written for it keep reading them; the
//! README's "Migrating from mcp-multi-edit" lists every difference.

use schemars::JsonSchema;
use serde::Serialize;

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
