//! Tool arguments: their published shape and their decoding.
//!
//! The `*Params` structs are the tools' input schemas (schemars turns their
//! doc comments into the descriptions a model reads). Arguments are *not*
//! decoded with serde, because serde stops at the first problem and its
//! messages name Rust types; an agent needs every problem at once, each with
//! the exact path in its call (`edits[2].old_string`) and a specific code it
//! can act on. [`decode_multi_edit`] and [`decode_multi_edit_files`] walk the
//! raw JSON and collect every [`Violation`]. A test checks that the decoder
//! and the schemars structs accept the same field names.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::config::Limits;
use crate::taxonomy::{ErrorCode, Limit, Violation};

/// One exact find-and-replace.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditParams {
    /// The exact text to find (whitespace and indentation included). In a file
    /// with CRLF line endings, LF line breaks here match CRLF ones.
    pub old_string: String,
    /// The replacement text. Its line breaks are written in the file's style.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one. Default false.
    #[schemars(extend("default" = false))]
    pub replace_all: Option<bool>,
}

/// Arguments of `multi_edit`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultiEditParams {
    /// Absolute path of an existing file (this tool never creates files) inside the server's allowed roots.
    pub file_path: String,
    /// Edits applied in order, each to the result of the previous one; all succeed or nothing is written. Each old_string at most once per call (the same old_string twice is refused as DUPLICATE_OLD_STRING: merge them or use replace_all).
    #[schemars(length(min = 1))]
    pub edits: Vec<EditParams>,
    /// Validate and return a unified diff (diff_preview) without writing anything. Default false.
    #[schemars(extend("default" = false))]
    pub dry_run: Option<bool>,
    /// Write `<file>.bak` with the original bytes beside the file (only when a write happens; an existing .bak is overwritten). Default true.
    #[schemars(extend("default" = true))]
    pub backup: Option<bool>,
    /// Return the file's final content in the result (final_content). Default false.
    #[schemars(extend("default" = false))]
    pub include_content: Option<bool>,
    /// SHA-256 (64 hex digits) of the content you last read (a previous result's sha256); if the file differs now, nothing is written (STALE_FILE, with the current hash).
    pub expected_sha256: Option<String>,
}

/// One entry of a `multi_edit_files` call: edit a file (the default), or create, delete or move one.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileEditsParams {
    /// Absolute path inside the allowed roots; each path at most once per call. For op edit, delete and move: an existing file; for op create: the file to create.
    pub file_path: String,
    /// What to do with file_path: "edit" (apply edits; the default when op is absent), "create" (write content to a new file), "delete" (remove the file), "move" (rename it to move_to, applying edits if given).
    #[schemars(extend("enum" = ["edit", "create", "delete", "move"]))]
    pub op: Option<String>,
    /// op edit (required) or move (optional): edits applied in order; the same old_string twice is refused (DUPLICATE_OLD_STRING).
    #[schemars(length(min = 1))]
    pub edits: Option<Vec<EditParams>>,
    /// op create only: the new file's whole content. Refused with FILE_ALREADY_EXISTS if file_path exists, unless expected_sha256 is the hash of the file it replaces.
    pub content: Option<String>,
    /// op move only: absolute destination path inside the allowed roots; refused with FILE_ALREADY_EXISTS if it exists. The file keeps its mode.
    pub move_to: Option<String>,
    /// op create and move: create missing parent directories of the new path (else PARENT_DIRECTORY_MISSING). Default false.
    #[schemars(extend("default" = false))]
    pub create_parents: Option<bool>,
    /// SHA-256 (64 hex digits) of the content you last read of this file (for create: of the existing file it may replace).
    pub expected_sha256: Option<String>,
}

/// Arguments of `multi_edit_files`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MultiEditFilesParams {
    /// Files to edit, create, delete or move (at most 100 entries by default); every entry is validated and computed before anything is written, and the whole set is committed atomically (all or nothing, even across a crash).
    #[schemars(length(min = 1))]
    pub files: Vec<FileEditsParams>,
    /// Validate and return a unified diff per file (diff_preview) without writing anything. Default false.
    #[schemars(extend("default" = false))]
    pub dry_run: Option<bool>,
    /// Write `<file>.bak` beside every edited file with its original bytes (also for a create that replaces a file; not for new files, deletes and moves). Default true.
    #[schemars(extend("default" = true))]
    pub backup: Option<bool>,
    /// Return each file's final content in the result (final_content). Default false.
    #[schemars(extend("default" = false))]
    pub include_content: Option<bool>,
}

/// Arguments of `undo`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoParams {
    /// The transaction_id a committed multi_edit, multi_edit_files or undo call answered, or one that list_transactions lists.
    pub transaction_id: String,
    /// Check that the undo would apply and say what it would do, without writing anything. Default false.
    #[schemars(extend("default" = false))]
    pub dry_run: Option<bool>,
}

/// Arguments of `list_transactions`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTransactionsParams {
    /// At most this many transactions, newest first (1 to 1000). Default 20.
    #[schemars(range(min = 1, max = 1000), extend("default" = 20))]
    pub limit: Option<u64>,
}

/// Decoded arguments of `undo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoRequest {
    /// The transaction to undo.
    pub transaction_id: crate::undo::TransactionId,
    /// Do not write.
    pub dry_run: bool,
}

/// Most transactions one `list_transactions` call returns.
pub const MAX_LIST_LIMIT: u64 = 1000;
/// How many `list_transactions` returns when `limit` is absent.
pub const DEFAULT_LIST_LIMIT: u64 = 20;

/// A decoded edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditArg {
    /// Text to find.
    pub old_string: String,
    /// Replacement.
    pub new_string: String,
    /// Replace every occurrence.
    pub replace_all: bool,
}

/// What one entry does with its path.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FileOp {
    /// Apply `edits` to an existing file.
    #[default]
    Edit,
    /// Write `content` to a new file (or over the file `expected_sha256` names).
    Create { content: String },
    /// Remove an existing file.
    Delete,
    /// Rename an existing file to `to` (absolute, as written), applying `edits`.
    Move { to: String },
}

impl FileOp {
    /// The name callers write in `op`.
    pub fn name(&self) -> &'static str {
        match self {
            FileOp::Edit => "edit",
            FileOp::Create { .. } => "create",
            FileOp::Delete => "delete",
            FileOp::Move { .. } => "move",
        }
    }
}

/// A decoded file request (the one file of `multi_edit`, or one of `multi_edit_files`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileArgs {
    /// The path as the caller wrote it.
    pub file_path: String,
    /// Edits in order (empty for create and delete, and for a move without edits).
    pub edits: Vec<EditArg>,
    /// The hash the caller says it read, lowercase hex.
    pub expected_sha256: Option<String>,
    /// The operation (always [`FileOp::Edit`] for `multi_edit`).
    pub op: FileOp,
    /// Create missing parent directories of a created or moved-to path.
    pub create_parents: bool,
}

impl FileArgs {
    /// An edit of `file_path` (what every `multi_edit` call is).
    pub fn edit(file_path: String, edits: Vec<EditArg>, expected_sha256: Option<String>) -> Self {
        FileArgs {
            file_path,
            edits,
            expected_sha256,
            op: FileOp::Edit,
            create_parents: false,
        }
    }
}

/// Decoded arguments of either tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditRequest {
    /// The files, in call order (exactly one for `multi_edit`).
    pub files: Vec<FileArgs>,
    /// Do not write.
    pub dry_run: bool,
    /// Write `.bak` files.
    pub backup: bool,
    /// Return final contents.
    pub include_content: bool,
}

/// Most violations one VALIDATION_FAILED lists; the rest are counted in a
/// last entry. Without a cap, 1.1M unknown keys made a 363 MB answer.
pub const MAX_VIOLATIONS: usize = 100;
/// Longest `path` and `message` of a violation, in bytes: they may echo text
/// from the request (a 10 MB relative path, a key of any length).
const MAX_VIOLATION_TEXT: usize = 512;

/// Collects violations while walking the arguments.
#[derive(Default)]
struct Decoder {
    violations: Vec<Violation>,
    /// Violations found past [`MAX_VIOLATIONS`]: counted, not listed.
    omitted: usize,
}

impl Decoder {
    fn push(&mut self, path: &str, code: ErrorCode, message: impl Into<String>) {
        if self.violations.len() >= MAX_VIOLATIONS {
            self.omitted += 1;
            return;
        }
        self.violations.push(Violation {
            path: clip(path.to_string()),
            code,
            message: clip(message.into()),
            limit: None,
        });
    }

    /// A breached limit: the violation carries it as data (`limit`).
    fn push_limit(&mut self, path: &str, code: ErrorCode, message: String, limit: Limit) {
        let listed = self.violations.len();
        self.push(path, code, message);
        if self.violations.len() > listed {
            self.violations[listed].limit = Some(limit);
        }
    }

    fn object<'v>(
        &mut self,
        path: &str,
        value: &'v Value,
        allowed: &[&str],
    ) -> Option<&'v Map<String, Value>> {
        let Some(map) = value.as_object() else {
            self.push(
                path,
                ErrorCode::InvalidArgument,
                format!("{} must be an object, found {}", label(path), kind(value)),
            );
            return None;
        };
        for key in map.keys() {
            if !allowed.contains(&key.as_str()) {
                let hint = closest(key, allowed)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                self.push(
                    &join(path, key),
                    ErrorCode::InvalidArgument,
                    format!(
                        "unknown field `{key}`{hint}; allowed: {}",
                        allowed.join(", ")
                    ),
                );
            }
        }
        Some(map)
    }

    fn string(&mut self, map: &Map<String, Value>, path: &str, key: &str) -> Option<String> {
        let p = join(path, key);
        match map.get(key) {
            None => {
                self.push(
                    &p,
                    ErrorCode::InvalidArgument,
                    format!("missing required field `{key}`"),
                );
                None
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.push(
                    &p,
                    ErrorCode::InvalidArgument,
                    format!("`{key}` must be a string, found {}", kind(other)),
                );
                None
            }
        }
    }

    fn opt_string(&mut self, map: &Map<String, Value>, path: &str, key: &str) -> Option<String> {
        match map.get(key) {
            None | Some(Value::Null) => None,
            Some(_) => self.string(map, path, key),
        }
    }

    fn opt_bool(&mut self, map: &Map<String, Value>, path: &str, key: &str) -> Option<bool> {
        match map.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                self.push(
                    &join(path, key),
                    ErrorCode::InvalidArgument,
                    format!("`{key}` must be a boolean, found {}", kind(other)),
                );
                None
            }
        }
    }

    fn array<'v>(
        &mut self,
        map: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Option<&'v Vec<Value>> {
        let p = join(path, key);
        match map.get(key) {
            None => {
                self.push(
                    &p,
                    ErrorCode::InvalidArgument,
                    format!("missing required field `{key}`"),
                );
                None
            }
            Some(Value::Array(items)) => Some(items),
            Some(other) => {
                self.push(
                    &p,
                    ErrorCode::InvalidArgument,
                    format!("`{key}` must be an array, found {}", kind(other)),
                );
                None
            }
        }
    }

    fn file(&mut self, map: &Map<String, Value>, path: &str, limits: &Limits) -> Option<FileArgs> {
        let file_path = self.string(map, path, "file_path");
        if let Some(fp) = &file_path {
            self.check_path(&join(path, "file_path"), fp, limits);
        }
        let expected_sha256 = self.opt_string(map, path, "expected_sha256").and_then(|h| {
            if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) {
                Some(h.to_ascii_lowercase())
            } else {
                self.push(
                    &join(path, "expected_sha256"),
                    ErrorCode::InvalidSha256,
                    "expected_sha256 must be 64 hexadecimal digits (the SHA-256 of the file's bytes)",
                );
                None
            }
        });
        let op_name = self.opt_string(map, path, "op");
        let op = match op_name.as_deref() {
            None | Some("edit") => Some("edit"),
            Some(o @ ("create" | "delete" | "move")) => Some(o),
            Some(other) => {
                let hint = closest(other, OPS)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                self.push(
                    &join(path, "op"),
                    ErrorCode::InvalidArgument,
                    format!("unknown op `{other}`{hint}; allowed: {}", OPS.join(", ")),
                );
                None
            }
        };
        let create_parents = self.opt_bool(map, path, "create_parents");
        // Fields an op does not take are refused, never ignored: a `content`
        // on an edit entry would otherwise silently do nothing.
        let forbid = |d: &mut Decoder, key: &str, op: &str| {
            if map.get(key).is_some_and(|v| !v.is_null()) {
                d.push(
                    &join(path, key),
                    ErrorCode::InvalidArgument,
                    format!("`{key}` is not allowed with op {op}; {}", field_use(key)),
                );
                true
            } else {
                false
            }
        };
        let op = match op? {
            "edit" => {
                let a = forbid(self, "content", "edit");
                let b = forbid(self, "move_to", "edit");
                let c = forbid(self, "create_parents", "edit");
                let edits = self.edits(map, path, limits);
                (!(a || b || c)).then_some(())?;
                (FileOp::Edit, edits?)
            }
            "create" => {
                let a = forbid(self, "edits", "create");
                let b = forbid(self, "move_to", "create");
                let content = self.string(map, path, "content");
                (!(a || b)).then_some(())?;
                (FileOp::Create { content: content? }, Vec::new())
            }
            "delete" => {
                let a = forbid(self, "edits", "delete");
                let b = forbid(self, "content", "delete");
                let c = forbid(self, "move_to", "delete");
                let d = forbid(self, "create_parents", "delete");
                (!(a || b || c || d)).then_some(())?;
                (FileOp::Delete, Vec::new())
            }
            _ => {
                let a = forbid(self, "content", "move");
                let to = self.string(map, path, "move_to");
                if let Some(t) = &to {
                    self.check_path(&join(path, "move_to"), t, limits);
                }
                let edits = match map.get("edits") {
                    None | Some(Value::Null) => Some(Vec::new()),
                    Some(_) => self.edits(map, path, limits),
                };
                (!a).then_some(())?;
                (FileOp::Move { to: to? }, edits?)
            }
        };
        Some(FileArgs {
            file_path: file_path?,
            edits: op.1,
            expected_sha256,
            op: op.0,
            create_parents: create_parents.unwrap_or(false),
        })
    }

    fn edits(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        limits: &Limits,
    ) -> Option<Vec<EditArg>> {
        let items = self.array(map, path, "edits")?;
        let edits_path = join(path, "edits");
        if items.is_empty() {
            self.push(
                &edits_path,
                ErrorCode::EmptyEdits,
                "edits is empty; give at least one {old_string, new_string} edit",
            );
            return None;
        }
        if items.len() > limits.max_edits {
            self.push_limit(
                &edits_path,
                ErrorCode::TooManyEdits,
                format!(
                    "{} edits exceed the limit of {} per file; split the call",
                    items.len(),
                    limits.max_edits
                ),
                limit("max_edits", limits.max_edits, items.len()),
            );
            return None;
        }
        // Every edit is decoded even after a bad one, and the duplicate check
        // runs over all that decoded: one call reports every problem.
        let mut out: Vec<(usize, EditArg)> = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = format!("{edits_path}[{i}]");
            let Some(obj) = self.object(&p, item, &["old_string", "new_string", "replace_all"])
            else {
                ok = false;
                continue;
            };
            let old = self.string(obj, &p, "old_string");
            let new = self.string(obj, &p, "new_string");
            let replace_all = self.opt_bool(obj, &p, "replace_all").unwrap_or(false);
            match (old, new) {
                (Some(old_string), Some(new_string)) => {
                    if old_string.is_empty() {
                        self.push(
                            &join(&p, "old_string"),
                            ErrorCode::EmptyOldString,
                            "old_string is empty; it must be the exact text to replace",
                        );
                        ok = false;
                    }
                    out.push((
                        i,
                        EditArg {
                            old_string,
                            new_string,
                            replace_all,
                        },
                    ));
                }
                (Some(old_string), None) => {
                    // Still checked for duplicates below.
                    out.push((
                        i,
                        EditArg {
                            old_string,
                            new_string: String::new(),
                            replace_all,
                        },
                    ));
                    ok = false;
                }
                _ => ok = false,
            }
        }
        // The same old_string twice in one file is almost always a mistake:
        // the second edit would see the text the first one wrote. (Empty
        // ones are already EMPTY_OLD_STRING.)
        for (k, (i, e)) in out.iter().enumerate() {
            if e.old_string.is_empty() {
                continue;
            }
            if let Some((first, _)) = out[..k].iter().find(|(_, p)| p.old_string == e.old_string) {
                self.push(
                    &format!("{edits_path}[{i}].old_string"),
                    ErrorCode::DuplicateOldString,
                    format!("edits[{i}] has the same old_string as edits[{first}]; merge them or use replace_all"),
                );
                ok = false;
            }
        }
        ok.then(|| out.into_iter().map(|(_, e)| e).collect())
    }

    fn check_path(&mut self, path: &str, file_path: &str, limits: &Limits) {
        let name = path.rsplit('.').next().unwrap_or("file_path");
        if file_path.is_empty() {
            self.push(path, ErrorCode::InvalidPath, format!("{name} is empty"));
        } else if file_path.contains('\0') {
            self.push(
                path,
                ErrorCode::InvalidPath,
                format!("{name} contains a NUL byte"),
            );
        } else if file_path.len() > limits.max_path_bytes {
            self.push_limit(
                path,
                ErrorCode::InvalidPath,
                format!(
                    "{name} is too long ({} bytes, at most {})",
                    file_path.len(),
                    limits.max_path_bytes
                ),
                limit("max_path_bytes", limits.max_path_bytes, file_path.len()),
            );
        } else if let Some(longest) = file_path
            .split('/')
            .map(str::len)
            .max()
            .filter(|&n| n > limits.max_name_bytes)
        {
            self.push_limit(
                path,
                ErrorCode::InvalidPath,
                format!(
                    "{name} has a component of {longest} bytes (at most {} per component)",
                    limits.max_name_bytes
                ),
                limit("max_name_bytes", limits.max_name_bytes, longest),
            );
        } else if !file_path.starts_with('/') {
            self.push(
                path,
                ErrorCode::RelativePath,
                format!("{name} must be absolute (start with /)"),
            );
        } else if file_path.split('/').any(|c| c == "..") {
            self.push(
                path,
                ErrorCode::PathTraversal,
                format!("{name} must not contain `..` components"),
            );
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn label(path: &str) -> &str {
    if path.is_empty() {
        "the arguments"
    } else {
        path
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn closest<'a>(key: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|a| (strsim::jaro_winkler(key, a), *a))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, a)| a)
}

const MULTI_EDIT_FIELDS: &[&str] = &[
    "file_path",
    "edits",
    "dry_run",
    "backup",
    "include_content",
    "expected_sha256",
];
const MULTI_EDIT_FILES_FIELDS: &[&str] = &["files", "dry_run", "backup", "include_content"];
const FILE_FIELDS: &[&str] = &[
    "file_path",
    "op",
    "edits",
    "content",
    "move_to",
    "create_parents",
    "expected_sha256",
];
const OPS: &[&str] = &["edit", "create", "delete", "move"];

/// What a field of a `files` entry is for, for the message refusing it.
fn field_use(key: &str) -> &'static str {
    match key {
        "content" => "content is for op create",
        "move_to" => "move_to is for op move",
        "create_parents" => "create_parents is for op create and move",
        _ => "edits are for op edit and move",
    }
}

const UNDO_FIELDS: &[&str] = &["transaction_id", "dry_run"];
const LIST_TRANSACTIONS_FIELDS: &[&str] = &["limit"];

/// Decodes `undo` arguments, reporting every problem at once.
pub fn decode_undo(args: &Value) -> Result<UndoRequest, Vec<Violation>> {
    let mut d = Decoder::default();
    let result = d.object("", args, UNDO_FIELDS).and_then(|map| {
        let dry_run = d.opt_bool(map, "", "dry_run");
        let id = d.string(map, "", "transaction_id").and_then(|text| {
            let id = crate::undo::TransactionId::parse(&text);
            if id.is_none() {
                d.push(
                    "transaction_id",
                    ErrorCode::InvalidArgument,
                    "transaction_id is not a transaction id (like 019a2b3c4d5e-00001f2a-00000003): \
                     copy it from a call's answer or from list_transactions",
                );
            }
            id
        });
        Some(UndoRequest {
            transaction_id: id?,
            dry_run: dry_run.unwrap_or(false),
        })
    });
    finish_with(d, result)
}

/// Decodes `list_transactions` arguments: the limit.
pub fn decode_list_transactions(args: &Value) -> Result<u64, Vec<Violation>> {
    let mut d = Decoder::default();
    let result = d
        .object("", args, LIST_TRANSACTIONS_FIELDS)
        .and_then(|map| match map.get("limit") {
            None | Some(Value::Null) => Some(DEFAULT_LIST_LIMIT),
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_LIST_LIMIT).contains(&n) => Some(n),
                _ => {
                    d.push(
                        "limit",
                        ErrorCode::InvalidArgument,
                        format!("limit must be an integer from 1 to {MAX_LIST_LIMIT}, found {v}"),
                    );
                    None
                }
            },
        });
    finish_with(d, result)
}

/// Decodes `multi_edit` arguments, reporting every problem at once.
pub fn decode_multi_edit(args: &Value, limits: &Limits) -> Result<EditRequest, Vec<Violation>> {
    let mut d = Decoder::default();
    let result = d.object("", args, MULTI_EDIT_FIELDS).and_then(|map| {
        let dry_run = d.opt_bool(map, "", "dry_run");
        let backup = d.opt_bool(map, "", "backup");
        let include_content = d.opt_bool(map, "", "include_content");
        let file = d.file(map, "", limits);
        Some(EditRequest {
            files: vec![file?],
            dry_run: dry_run.unwrap_or(false),
            backup: backup.unwrap_or(true),
            include_content: include_content.unwrap_or(false),
        })
    });
    finish(d, result)
}

/// Decodes `multi_edit_files` arguments, reporting every problem at once.
pub fn decode_multi_edit_files(
    args: &Value,
    limits: &Limits,
) -> Result<EditRequest, Vec<Violation>> {
    let mut d = Decoder::default();
    let result = d.object("", args, MULTI_EDIT_FILES_FIELDS).and_then(|map| {
        let dry_run = d.opt_bool(map, "", "dry_run");
        let backup = d.opt_bool(map, "", "backup");
        let include_content = d.opt_bool(map, "", "include_content");
        let items = d.array(map, "", "files")?;
        if items.is_empty() {
            d.push(
                "files",
                ErrorCode::EmptyFiles,
                "files is empty; give at least one {file_path, edits} entry",
            );
            return None;
        }
        if items.len() > limits.max_files {
            d.push_limit(
                "files",
                ErrorCode::TooManyFiles,
                format!(
                    "{} files exceed the limit of {} per call; split the call",
                    items.len(),
                    limits.max_files
                ),
                limit("max_files", limits.max_files, items.len()),
            );
            return None;
        }
        let mut files = Vec::with_capacity(items.len());
        // Every entry's path, also of entries with other problems, so that a
        // duplicate is reported together with them.
        let mut paths: Vec<Option<&str>> = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = format!("files[{i}]");
            let obj = d.object(&p, item, FILE_FIELDS);
            paths.push(
                obj.and_then(|m| m.get("file_path"))
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty()),
            );
            match obj.and_then(|m| d.file(m, &p, limits)) {
                Some(f) => files.push(f),
                None => ok = false,
            }
        }
        let total: usize = files.iter().map(|f| f.edits.len()).sum();
        if ok && total > limits.max_edits * limits.max_files.max(1) {
            let max = limits.max_edits * limits.max_files.max(1);
            d.push_limit(
                "files",
                ErrorCode::TooManyEdits,
                format!("{total} edits in one call exceed the limit of {max}"),
                limit("max_edits_per_call", max, total),
            );
            return None;
        }
        // Lexically identical paths are caught here; the same file through a
        // symlink or another spelling is caught after resolution. Two edit
        // entries of one file are DUPLICATE_FILE_PATH (merge them); a path
        // that a create, delete or move also names is PATH_CONFLICT.
        let mut named: Vec<(&str, usize, bool)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let Some(path) = paths[i] else { continue };
            let op = item.get("op").and_then(Value::as_str).unwrap_or("edit");
            named.push((path, i, op == "edit"));
            if op == "move"
                && let Some(to) = item.get("move_to").and_then(Value::as_str)
                && !to.is_empty()
            {
                if to == path {
                    d.push(
                        &format!("files[{i}].move_to"),
                        ErrorCode::MoveOntoItself,
                        format!("files[{i}] moves {path} onto itself; give a different move_to"),
                    );
                    ok = false;
                } else {
                    named.push((to, i, false));
                }
            }
        }
        for (k, &(path, i, edit)) in named.iter().enumerate() {
            let Some(&(_, first, first_edit)) = named[..k].iter().find(|(p, j, _)| *p == path && *j != i) else {
                continue;
            };
            let field = if paths[i] == Some(path) { "file_path" } else { "move_to" };
            if edit && first_edit {
                d.push(
                    &format!("files[{i}].{field}"),
                    ErrorCode::DuplicateFilePath,
                    format!("files[{i}] names the same file as files[{first}]; merge their edits into one entry"),
                );
            } else {
                d.push(
                    &format!("files[{i}].{field}"),
                    ErrorCode::PathConflict,
                    format!("files[{i}] names {path}, which files[{first}] also names; one transaction may change a path only once"),
                );
            }
            ok = false;
        }
        ok.then_some(EditRequest {
            files,
            dry_run: dry_run.unwrap_or(false),
            backup: backup.unwrap_or(true),
            include_content: include_content.unwrap_or(false),
        })
    });
    finish(d, result)
}

/// `text` cut to [`MAX_VIOLATION_TEXT`] bytes (on a character boundary),
/// saying how much was cut.
fn clip(mut text: String) -> String {
    if text.len() <= MAX_VIOLATION_TEXT {
        return text;
    }
    let total = text.len();
    let mut end = MAX_VIOLATION_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!("… ({} of {total} bytes shown)", end));
    text
}

fn finish(d: Decoder, result: Option<EditRequest>) -> Result<EditRequest, Vec<Violation>> {
    finish_with(d, result)
}

/// A limit as data: its name, maximum and the value seen.
fn limit(name: &str, max: usize, actual: usize) -> Limit {
    Limit {
        name: name.to_string(),
        max: max as u64,
        actual: Some(actual as u64),
    }
}

fn finish_with<T>(d: Decoder, result: Option<T>) -> Result<T, Vec<Violation>> {
    match result {
        Some(r) if d.violations.is_empty() => Ok(r),
        _ => {
            let mut v = d.violations;
            if d.omitted > 0 {
                v.push(Violation {
                    path: String::new(),
                    code: ErrorCode::InvalidArgument,
                    message: format!(
                        "{} more problem(s) not listed (at most {MAX_VIOLATIONS} are); fix these and call again to see the rest",
                        d.omitted
                    ),
                    limit: None,
                });
            }
            if v.is_empty() {
                // Unreachable by construction (every None pushes a violation),
                // but never return an empty VALIDATION_FAILED.
                v.push(Violation {
                    path: String::new(),
                    code: ErrorCode::InvalidArgument,
                    message: "the arguments could not be decoded".into(),
                    limit: None,
                });
            }
            Err(v)
        }
    }
}

/// The JSON Schema of a params struct, as an MCP tool input schema object,
/// in the portable subset every client accepts ([`portable`]).
pub fn input_schema<T: JsonSchema>() -> serde_json::Map<String, Value> {
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
        _ => serde_json::Map::new(),
    }
}

/// Rewrites a schema into the subset that strict tool-schema consumers
/// accept (Gemini CLI, Zed and Copilot CLI have rejected the rest): no
/// `$schema`, `$ref`/`$defs` (subschemas are inlined by the generator), no
/// nullable type arrays (`["boolean", "null"]` becomes `"boolean"`: an
/// absent member is how a caller leaves an option out), no `default: null`,
/// no Rust type names as `title`. Optional members stay out of `required`.
pub fn portable(v: &mut Value) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limits() -> Limits {
        Limits::default()
    }

    fn codes(v: &[Violation]) -> Vec<(String, ErrorCode)> {
        v.iter().map(|v| (v.path.clone(), v.code)).collect()
    }

    #[test]
    fn valid_call_decodes_with_defaults() {
        let r = decode_multi_edit(
            &json!({"file_path": "/a/b.txt", "edits": [{"old_string": "x", "new_string": "y"}]}),
            &limits(),
        )
        .unwrap();
        assert!(r.backup && !r.dry_run && !r.include_content);
        assert_eq!(r.files[0].edits[0].old_string, "x");
        assert!(!r.files[0].edits[0].replace_all);
    }

    #[test]
    fn every_problem_is_reported_with_its_path() {
        let v = decode_multi_edit(
            &json!({
                "file_path": "rel/path",
                "dry_run": "yes",
                "edit": [],
                "edits": [
                    {"old_string": "", "new_string": "a"},
                    {"old_string": 3, "new_string": "b"},
                    {"new_string": "c"},
                    {"old_string": "d", "new_string": "e", "replace_al": true},
                ],
            }),
            &limits(),
        )
        .unwrap_err();
        let got = codes(&v);
        for want in [
            ("edit", ErrorCode::InvalidArgument),
            ("dry_run", ErrorCode::InvalidArgument),
            ("file_path", ErrorCode::RelativePath),
            ("edits[0].old_string", ErrorCode::EmptyOldString),
            ("edits[1].old_string", ErrorCode::InvalidArgument),
            ("edits[2].old_string", ErrorCode::InvalidArgument),
            ("edits[3].replace_al", ErrorCode::InvalidArgument),
        ] {
            assert!(
                got.contains(&(want.0.to_string(), want.1)),
                "missing {want:?} in {got:?}"
            );
        }
        let unknown = v.iter().find(|v| v.path == "edits[3].replace_al").unwrap();
        assert!(
            unknown.message.contains("did you mean `replace_all`"),
            "{}",
            unknown.message
        );
    }

    #[test]
    fn traversal_empty_edits_duplicates_and_hash() {
        let v = decode_multi_edit(
            &json!({"file_path": "/a/../etc/passwd", "edits": [], "expected_sha256": "xyz"}),
            &limits(),
        )
        .unwrap_err();
        let got = codes(&v);
        assert!(got.contains(&("file_path".into(), ErrorCode::PathTraversal)));
        assert!(got.contains(&("edits".into(), ErrorCode::EmptyEdits)));
        assert!(got.contains(&("expected_sha256".into(), ErrorCode::InvalidSha256)));

        let v = decode_multi_edit(
            &json!({"file_path": "/a", "edits": [
                {"old_string": "x", "new_string": "1"},
                {"old_string": "x", "new_string": "2"}]}),
            &limits(),
        )
        .unwrap_err();
        assert_eq!(
            codes(&v),
            vec![("edits[1].old_string".into(), ErrorCode::DuplicateOldString)]
        );
    }

    #[test]
    fn multi_file_paths_and_duplicates() {
        let v = decode_multi_edit_files(
            &json!({"files": [
                {"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]},
                {"file_path": "/a", "edits": [{"old_string": "z", "new_string": "y"}]},
                {"file_path": "b", "edits": []},
            ]}),
            &limits(),
        )
        .unwrap_err();
        let got = codes(&v);
        assert!(got.contains(&("files[2].file_path".into(), ErrorCode::RelativePath)));
        assert!(got.contains(&("files[2].edits".into(), ErrorCode::EmptyEdits)));
        let v = decode_multi_edit_files(&json!({"files": []}), &limits()).unwrap_err();
        assert_eq!(codes(&v), vec![("files".into(), ErrorCode::EmptyFiles)]);
        let v = decode_multi_edit_files(
            &json!({"files": [
                {"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]},
                {"file_path": "/a", "edits": [{"old_string": "z", "new_string": "y"}]}]}),
            &limits(),
        )
        .unwrap_err();
        assert_eq!(
            codes(&v),
            vec![("files[1].file_path".into(), ErrorCode::DuplicateFilePath)]
        );
    }

    #[test]
    fn limits_are_enforced() {
        let lim = Limits {
            max_edits: 2,
            max_files: 1,
            ..Limits::default()
        };
        let e = json!({"old_string": "x", "new_string": "y"});
        let e2 = json!({"old_string": "z", "new_string": "y"});
        let e3 = json!({"old_string": "w", "new_string": "y"});
        let v =
            decode_multi_edit(&json!({"file_path": "/a", "edits": [e, e2, e3]}), &lim).unwrap_err();
        assert_eq!(codes(&v), vec![("edits".into(), ErrorCode::TooManyEdits)]);
        let f = json!({"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]});
        let v = decode_multi_edit_files(&json!({"files": [f.clone(), f]}), &lim).unwrap_err();
        assert_eq!(codes(&v), vec![("files".into(), ErrorCode::TooManyFiles)]);
    }

    /// A path over `max_path_bytes`, or with a component over
    /// `max_name_bytes`, is an `INVALID_PATH` violation carrying the breached
    /// limit as data; a path at both limits passes.
    #[test]
    fn path_length_limits_are_data() {
        let lim = Limits {
            max_path_bytes: 12,
            max_name_bytes: 4,
            ..Limits::default()
        };
        let edits = json!([{"old_string": "x", "new_string": "y"}]);
        let limit_of = |file_path: &str| {
            let v = decode_multi_edit(&json!({"file_path": file_path, "edits": edits}), &lim)
                .unwrap_err();
            assert_eq!(
                codes(&v),
                vec![("file_path".into(), ErrorCode::InvalidPath)],
                "{file_path}"
            );
            let l = v[0].limit.clone().expect("the limit is data");
            (l.name, l.max, l.actual)
        };
        assert_eq!(
            limit_of("/abcd/efgh/ij/k"),
            ("max_path_bytes".into(), 12, Some(15))
        );
        assert_eq!(limit_of("/abcde/f"), ("max_name_bytes".into(), 4, Some(5)));
        assert!(
            decode_multi_edit(&json!({"file_path": "/abcd/efgh/i", "edits": edits}), &lim).is_ok()
        );
    }

    #[test]
    fn non_object_arguments() {
        let v = decode_multi_edit(&json!([1, 2]), &limits()).unwrap_err();
        assert_eq!(codes(&v), vec![("".into(), ErrorCode::InvalidArgument)]);
    }

    /// The decoder and the published input schemas must accept the same fields.
    #[test]
    fn decoder_fields_match_the_schemas() {
        fn props(schema: &serde_json::Map<String, Value>, pointer: &str) -> Vec<String> {
            let root = Value::Object(schema.clone());
            let mut v: Vec<String> = root
                .pointer(&format!("{pointer}/properties"))
                .and_then(Value::as_object)
                .unwrap_or_else(|| panic!("no properties at {pointer}"))
                .keys()
                .cloned()
                .collect();
            v.sort();
            v
        }
        fn sorted(f: &[&str]) -> Vec<String> {
            let mut v: Vec<String> = f.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        }
        let edit = sorted(&["old_string", "new_string", "replace_all"]);
        let me = input_schema::<MultiEditParams>();
        assert_eq!(props(&me, ""), sorted(MULTI_EDIT_FIELDS));
        assert_eq!(props(&me, "/properties/edits/items"), edit);
        let mf = input_schema::<MultiEditFilesParams>();
        assert_eq!(props(&mf, ""), sorted(MULTI_EDIT_FILES_FIELDS));
        assert_eq!(props(&mf, "/properties/files/items"), sorted(FILE_FIELDS));
        assert_eq!(
            props(&mf, "/properties/files/items/properties/edits/items"),
            edit
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
            ("multi_edit", input_schema::<MultiEditParams>()),
            ("multi_edit_files", input_schema::<MultiEditFilesParams>()),
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
        let r = decode_multi_edit(
            &json!({"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]}),
            &limits(),
        )
        .unwrap();
        assert!(r.backup && !r.dry_run && !r.include_content && !r.files[0].edits[0].replace_all);
    }

    /// Item 10 of issue 15: an EMPTY_OLD_STRING no longer hides a
    /// DUPLICATE_OLD_STRING or a DUPLICATE_FILE_PATH in the same call.
    #[test]
    fn every_problem_at_once_across_edits_and_files() {
        let v = decode_multi_edit(
            &json!({"file_path": "/a", "edits": [
                {"old_string": "", "new_string": "1"},
                {"old_string": "x", "new_string": "2"},
                {"old_string": "x", "new_string": "3"},
                {"old_string": "x"}]}),
            &limits(),
        )
        .unwrap_err();
        let got = codes(&v);
        for want in [
            ("edits[0].old_string", ErrorCode::EmptyOldString),
            ("edits[2].old_string", ErrorCode::DuplicateOldString),
            ("edits[3].old_string", ErrorCode::DuplicateOldString),
            ("edits[3].new_string", ErrorCode::InvalidArgument),
        ] {
            assert!(
                got.contains(&(want.0.into(), want.1)),
                "{want:?} in {got:?}"
            );
        }
        let v = decode_multi_edit_files(
            &json!({"files": [
                {"file_path": "/a", "edits": [{"old_string": "", "new_string": "y"}]},
                {"file_path": "/a", "edits": [{"old_string": "z", "new_string": "y"}]},
                {"file_path": "/b", "edits": []},
                {"file_path": "/b", "edits": [{"old_string": "z", "new_string": "y"}]}]}),
            &limits(),
        )
        .unwrap_err();
        let got = codes(&v);
        for want in [
            ("files[0].edits[0].old_string", ErrorCode::EmptyOldString),
            ("files[1].file_path", ErrorCode::DuplicateFilePath),
            ("files[2].edits", ErrorCode::EmptyEdits),
            ("files[3].file_path", ErrorCode::DuplicateFilePath),
        ] {
            assert!(
                got.contains(&(want.0.into(), want.1)),
                "{want:?} in {got:?}"
            );
        }
    }
}
