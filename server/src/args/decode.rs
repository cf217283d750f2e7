//! Decoding a call's raw JSON arguments into the tools' requests
//! ([`super::request`]), collecting every [`Violation`] on the way.
//!
//! Not serde: serde stops at the first problem and its messages name Rust
//! types; an agent needs every problem at once, each with the exact path in
//! its call (`edits[2].old_string`) and a specific code it can act on. So
//! [`decode_multi_edit`], [`decode_multi_edit_files`], [`decode_undo`] and
//! [`decode_list_transactions`] walk the JSON themselves.
//!
//! Each walks for its tool's operation (`Decoder<Op>`), and every code it
//! reports is written `listed!(Op, Code)`: the steps shared by several
//! tools (an object's keys, a file entry, its edits, a path's checks) are
//! compiled once per tool, and each compilation proves that the tool's
//! operation lists every code that step can report (`errors.yaml`'s
//! `edit_arguments` group and the codes of its own). A step reporting a
//! code some tool using it does not list does not build (`cargo build`;
//! the check is a constant evaluated when the step is compiled for that
//! tool, so `cargo check` may not see it).

use serde_json::{Map, Value};

use super::params::{
    DEFAULT_LIST_LIMIT, EditParams, FileEditsParams, ListTransactionsParams, MAX_LIST_LIMIT,
    MultiEditFilesParams, MultiEditParams, OPS, UndoParams, fields,
};
use super::request::{EditArg, EditRequest, FileArgs, FileOp, UndoRequest};
use crate::config::Limits;
use crate::envelopes::Listed;
use crate::listed;
use crate::taxonomy::operation::{self, Operation};
use crate::taxonomy::{Limit, Violation};

/// Most violations one VALIDATION_FAILED lists; the rest are counted in a
/// last entry. Without a cap, 1.1M unknown keys made a 363 MB answer.
pub const MAX_VIOLATIONS: usize = 100;
/// Longest `path` and `message` of a violation, in bytes: they may echo text
/// from the request (a 10 MB relative path, a key of any length).
const MAX_VIOLATION_TEXT: usize = 512;

/// Collects violations while walking the arguments of a call of operation
/// `O`. Each violation's code is a [`Listed<O>`], made by [`listed!`]: each
/// decoding step, compiled for each tool that uses it, is proved to report
/// only codes that tool's operation lists.
struct Decoder<O> {
    violations: Vec<Violation>,
    /// Violations found past [`MAX_VIOLATIONS`]: counted, not listed.
    omitted: usize,
    operation: std::marker::PhantomData<fn() -> O>,
}

impl<O: Operation> Decoder<O> {
    fn new() -> Self {
        Decoder {
            violations: Vec::new(),
            omitted: 0,
            operation: std::marker::PhantomData,
        }
    }

    fn push(&mut self, path: &str, code: Listed<O>, message: impl Into<String>) {
        if self.violations.len() >= MAX_VIOLATIONS {
            self.omitted += 1;
            return;
        }
        self.violations.push(Violation {
            path: clip(path.to_string()),
            code: code.code(),
            message: clip(message.into()),
            limit: None,
        });
    }

    /// A breached limit: the violation carries it as data (`limit`).
    fn push_limit(&mut self, path: &str, code: Listed<O>, message: String, limit: Limit) {
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
                listed!(O, InvalidArgument),
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
                    listed!(O, InvalidArgument),
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
                    listed!(O, InvalidArgument),
                    format!("missing required field `{key}`"),
                );
                None
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.push(
                    &p,
                    listed!(O, InvalidArgument),
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
                    listed!(O, InvalidArgument),
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
                    listed!(O, InvalidArgument),
                    format!("missing required field `{key}`"),
                );
                None
            }
            Some(Value::Array(items)) => Some(items),
            Some(other) => {
                self.push(
                    &p,
                    listed!(O, InvalidArgument),
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
                    listed!(O, InvalidSha256),
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
                    listed!(O, InvalidArgument),
                    format!("unknown op `{other}`{hint}; allowed: {}", OPS.join(", ")),
                );
                None
            }
        };
        let create_parents = self.opt_bool(map, path, "create_parents");
        // Fields an op does not take are refused, never ignored: a `content`
        // on an edit entry would otherwise silently do nothing.
        let forbid = |d: &mut Decoder<O>, key: &str, op: &str| {
            if map.get(key).is_some_and(|v| !v.is_null()) {
                d.push(
                    &join(path, key),
                    listed!(O, InvalidArgument),
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
                listed!(O, EmptyEdits),
                "edits is empty; give at least one {old_string, new_string} edit",
            );
            return None;
        }
        if items.len() > limits.max_edits {
            self.push_limit(
                &edits_path,
                listed!(O, TooManyEdits),
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
            let Some(obj) = self.object(&p, item, fields::<EditParams>()) else {
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
                            listed!(O, EmptyOldString),
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
                    listed!(O, DuplicateOldString),
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
            self.push(path, listed!(O, InvalidPath), format!("{name} is empty"));
        } else if file_path.contains('\0') {
            self.push(
                path,
                listed!(O, InvalidPath),
                format!("{name} contains a NUL byte"),
            );
        } else if file_path.len() > limits.max_path_bytes {
            self.push_limit(
                path,
                listed!(O, InvalidPath),
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
                listed!(O, InvalidPath),
                format!(
                    "{name} has a component of {longest} bytes (at most {} per component)",
                    limits.max_name_bytes
                ),
                limit("max_name_bytes", limits.max_name_bytes, longest),
            );
        } else if !file_path.starts_with('/') {
            self.push(
                path,
                listed!(O, RelativePath),
                format!("{name} must be absolute (start with /)"),
            );
        } else if file_path.split('/').any(|c| c == "..") {
            self.push(
                path,
                listed!(O, PathTraversal),
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

/// What a field of a `files` entry is for, for the message refusing it.
fn field_use(key: &str) -> &'static str {
    match key {
        "content" => "content is for op create",
        "move_to" => "move_to is for op move",
        "create_parents" => "create_parents is for op create and move",
        _ => "edits are for op edit and move",
    }
}

/// Decodes `undo` arguments, reporting every problem at once.
pub fn decode_undo(args: &Value) -> Result<UndoRequest, Vec<Violation>> {
    let mut d = Decoder::<operation::Undo>::new();
    let result = d.object("", args, fields::<UndoParams>()).and_then(|map| {
        let dry_run = d.opt_bool(map, "", "dry_run");
        let id = d.string(map, "", "transaction_id").and_then(|text| {
            let id = crate::undo::TransactionId::parse(&text);
            if id.is_none() {
                d.push(
                    "transaction_id",
                    listed!(operation::Undo, InvalidArgument),
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
    let mut d = Decoder::<operation::ListTransactions>::new();
    let result = d
        .object("", args, fields::<ListTransactionsParams>())
        .and_then(|map| match map.get("limit") {
            None | Some(Value::Null) => Some(DEFAULT_LIST_LIMIT),
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_LIST_LIMIT).contains(&n) => Some(n),
                _ => {
                    d.push(
                        "limit",
                        listed!(operation::ListTransactions, InvalidArgument),
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
    let mut d = Decoder::<operation::MultiEdit>::new();
    let result = d
        .object("", args, fields::<MultiEditParams>())
        .and_then(|map| {
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
    let mut d = Decoder::<operation::MultiEditFiles>::new();
    let result = d.object("", args, fields::<MultiEditFilesParams>()).and_then(|map| {
        let dry_run = d.opt_bool(map, "", "dry_run");
        let backup = d.opt_bool(map, "", "backup");
        let include_content = d.opt_bool(map, "", "include_content");
        let items = d.array(map, "", "files")?;
        if items.is_empty() {
            d.push(
                "files",
                listed!(operation::MultiEditFiles, EmptyFiles),
                "files is empty; give at least one {file_path, edits} entry",
            );
            return None;
        }
        if items.len() > limits.max_files {
            d.push_limit(
                "files",
                listed!(operation::MultiEditFiles, TooManyFiles),
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
            let obj = d.object(&p, item, fields::<FileEditsParams>());
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
                listed!(operation::MultiEditFiles, TooManyEdits),
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
                        listed!(operation::MultiEditFiles, MoveOntoItself),
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
                    listed!(operation::MultiEditFiles, DuplicateFilePath),
                    format!("files[{i}] names the same file as files[{first}]; merge their edits into one entry"),
                );
            } else {
                d.push(
                    &format!("files[{i}].{field}"),
                    listed!(operation::MultiEditFiles, PathConflict),
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

fn finish<O: Operation>(
    d: Decoder<O>,
    result: Option<EditRequest>,
) -> Result<EditRequest, Vec<Violation>> {
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

fn finish_with<T, O: Operation>(d: Decoder<O>, result: Option<T>) -> Result<T, Vec<Violation>> {
    match result {
        Some(r) if d.violations.is_empty() => Ok(r),
        _ => {
            let mut v = d.violations;
            if d.omitted > 0 {
                v.push(Violation {
                    path: String::new(),
                    code: listed!(O, InvalidArgument).code(),
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
                    code: listed!(O, InvalidArgument).code(),
                    message: "the arguments could not be decoded".into(),
                    limit: None,
                });
            }
            Err(v)
        }
    }
}
