//! The tool table: every tool of the server as one entry, its definition
//! in `tools/list` and how a call of it is decoded into the work
//! [`super::Splice`] schedules. Dispatch reads the table and nothing else,
//! so a new tool is one entry in [`TOOLS`] (with its definition beside it)
//! and a module under [`crate::tools`].

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde::Serialize;
use serde_json::Value;

use crate::args::{
    self, EditRequest, ListTransactionsParams, MultiEditFilesParams, MultiEditParams, UndoParams,
};
use crate::commit::{Committer, Wait};
use crate::config::{Config, Limits};
use crate::envelopes::{self, CallFailure};
use crate::response::{
    ListTransactionsSuccess, MultiEditFilesSuccess, MultiEditSuccess, UndoSuccess,
};
use crate::taxonomy::operation::{self, Operation};
use crate::taxonomy::{ErrorEnvelope, Violation};
use crate::{tool_schemas, tools};

/// Name of the single-file tool.
pub const MULTI_EDIT: &str = "multi_edit";
/// Name of the multi-file tool.
pub const MULTI_EDIT_FILES: &str = "multi_edit_files";
/// Name of the tool that undoes a committed call.
pub const UNDO: &str = "undo";
/// Name of the read-only tool that lists what can be undone.
pub const LIST_TRANSACTIONS: &str = "list_transactions";

/// One tool of the server.
pub(super) struct Entry {
    pub name: &'static str,
    /// Its definition in `tools/list` (built once, in `Splice::new`).
    pub define: fn() -> Tool,
    /// Decodes a call's arguments, within `limits`, into the work to run.
    pub decode: fn(&Value, &Limits) -> Result<Work, Vec<Violation>>,
    /// The envelope of a failure around the tool's own work
    /// ([`envelopes::call_failure`] for its operation).
    pub fail: Fail,
}

/// How a tool answers a [`CallFailure`].
pub(super) type Fail = fn(CallFailure<'_>) -> ErrorEnvelope;

/// Every tool, in the order `tools/list` shows them.
pub(super) const TOOLS: [Entry; 4] = [
    Entry {
        name: MULTI_EDIT,
        define: multi_edit,
        decode: |a, limits| {
            let req = args::decode_multi_edit(a, limits)?;
            Ok(Work::Files(
                req,
                |cfg, c, req, wait| answer(tools::multi_edit::run(cfg, c, req, wait)),
                |req, index| tools::lock_timeout::<operation::MultiEdit>(req, index).into(),
            ))
        },
        fail: envelopes::call_failure::<operation::MultiEdit>,
    },
    Entry {
        name: MULTI_EDIT_FILES,
        define: multi_edit_files,
        decode: |a, limits| {
            let req = args::decode_multi_edit_files(a, limits)?;
            Ok(Work::Files(
                req,
                |cfg, c, req, wait| answer(tools::multi_edit_files::run(cfg, c, req, wait)),
                |req, index| tools::lock_timeout::<operation::MultiEditFiles>(req, index).into(),
            ))
        },
        fail: envelopes::call_failure::<operation::MultiEditFiles>,
    },
    Entry {
        name: UNDO,
        define: undo,
        decode: |a, _| {
            let req = args::decode_undo(a)?;
            Ok(Work::Plain {
                // The restored contents, twice (the record and the change).
                footprint: |cfg| {
                    cfg.undo.store().map_or(0, |s| {
                        s.limits().max_bytes.min(cfg.limits.max_file_size * 4)
                    })
                },
                op: Box::new(move |cfg, c, wait| answer(tools::undo::run(cfg, c, &req, wait))),
            })
        },
        fail: envelopes::call_failure::<operation::Undo>,
    },
    Entry {
        name: LIST_TRANSACTIONS,
        define: list_transactions,
        decode: |a, _| {
            let limit = args::decode_list_transactions(a)?;
            Ok(Work::Plain {
                footprint: |_| 0,
                op: Box::new(move |cfg, _, _| answer(tools::list_transactions::run(cfg, limit))),
            })
        },
        fail: envelopes::call_failure::<operation::ListTransactions>,
    },
];

/// The entry of the tool called `name`.
pub(super) fn find(name: &str) -> Option<&'static Entry> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The tools' names as a sentence: "a, b, c and d".
pub(super) fn names() -> String {
    let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// A decoded call, ready to run once its roots are known.
pub(super) enum Work {
    /// A call that writes the files it names: it waits its turn on each of
    /// them, then is admitted by what its files may cost
    /// ([`tools::footprint`]).
    Files(EditRequest, FilesOp, LockTimeout),
    /// Any other call: admitted by the memory `footprint` says it may hold
    /// under the call's configuration.
    Plain {
        footprint: fn(&Config) -> u64,
        op: PlainOp,
    },
}

/// How a [`Work::Files`] call runs, off the event loop (`run_blocking`).
pub(super) type FilesOp =
    fn(&Config, &Committer, &EditRequest, Wait<'_>) -> Result<Answer, ErrorEnvelope>;

/// The answer to a [`Work::Files`] call that waited behind other calls on
/// file `index` until its lock deadline ([`tools::lock_timeout`]).
pub(super) type LockTimeout = fn(&EditRequest, usize) -> ErrorEnvelope;

/// How a [`Work::Plain`] call runs, off the event loop (`run_blocking`).
pub(super) type PlainOp =
    Box<dyn FnOnce(&Config, &Committer, Wait<'_>) -> Result<Answer, ErrorEnvelope> + Send>;

/// A tool's success value, serialized once it is back from the blocking
/// pool.
pub(super) type Answer = Box<dyn ToJson + Send>;

/// A success value as JSON (a `Serialize` that can be boxed).
pub(super) trait ToJson {
    fn to_json(&self) -> serde_json::Result<Value>;
}

impl<T: Serialize> ToJson for T {
    fn to_json(&self) -> serde_json::Result<Value> {
        serde_json::to_value(self)
    }
}

/// A tool's result as the scheduler takes it: the one point where an
/// error of the tool's operation becomes a plain envelope.
fn answer<T: Serialize + Send + 'static, O: Operation>(
    result: Result<T, operation::Error<O>>,
) -> Result<Answer, ErrorEnvelope> {
    match result {
        Ok(success) => Ok(Box::new(success) as Answer),
        Err(e) => Err(e.into_envelope()),
    }
}

/// The tool definitions (input schemas from the params structs, output
/// schemas = success | envelope, annotations), in the table's order.
pub fn tools() -> Vec<Tool> {
    TOOLS.iter().map(|t| (t.define)()).collect()
}

/// The annotations of a tool that writes files.
fn writes(title: &str) -> ToolAnnotations {
    ToolAnnotations::with_title(title)
        .read_only(false)
        .destructive(true)
        .idempotent(false)
        .open_world(false)
}

/// The definition of `multi_edit`.
fn multi_edit() -> Tool {
    Tool::new(
        MULTI_EDIT,
        format!(
            "Apply exact find-and-replace edits to one existing file, in order, all or nothing; \
             never creates files. Each old_string must match exactly once, or set replace_all. \
             LF line breaks match CRLF files; line endings, BOM and final newline are preserved. \
             The file is written atomically, with a <file>.bak copy of the original by default. \
             Failures return a structured error envelope (error_code, retryable, \
             recovery_hints, context; schema: the resource {}).",
            crate::taxonomy::SCHEMA_ID
        ),
        Arc::new(tool_schemas::input::<MultiEditParams>()),
    )
    .with_raw_output_schema(Arc::new(tool_schemas::output::<
        MultiEditSuccess,
        operation::MultiEdit,
    >()))
    .with_annotations(writes("Multi-edit one file"))
}

/// The definition of `multi_edit_files`.
fn multi_edit_files() -> Tool {
    Tool::new(
        MULTI_EDIT_FILES,
        "Edit, create, delete and move files as one transaction: every entry is validated \
             and computed first, then all are committed atomically through a crash-recoverable \
             journal, or none is. An entry is {file_path, edits} (as in multi_edit), or has op \
             \"create\" with content, op \"delete\", or op \"move\" with move_to (edits \
             optional); create_parents: true makes missing directories. A \
             <file>.bak is written beside each edited file by default. Each path may be named \
             once. Failures name the file (file_index, file_path) and give a status for every \
             file. Answers are limited to 4 MiB: past \
             that, diffs and contents are left out file by file and each file's `omitted` says \
             so.",
        Arc::new(tool_schemas::input::<MultiEditFilesParams>()),
    )
    .with_raw_output_schema(Arc::new(tool_schemas::output::<
        MultiEditFilesSuccess,
        operation::MultiEditFiles,
    >()))
    .with_annotations(writes("Multi-edit several files atomically"))
}

/// The definition of `undo`.
fn undo() -> Tool {
    Tool::new(
        UNDO,
        "Undo one committed call of this server by its transaction_id. Every file it \
             touched goes back to its state before the call (contents restored, deleted files \
             back with their mode, moves reversed, created files removed), as one atomic, \
             journaled transaction, but only if every one of those files is still exactly as \
             the call left it; otherwise nothing is changed and UNDO_CONFLICT lists each file \
             that changed since. The undo answers its own transaction_id: undoing that redoes \
             the call. Undo writes no .bak files.",
        Arc::new(tool_schemas::input::<UndoParams>()),
    )
    .with_raw_output_schema(Arc::new(
        tool_schemas::output::<UndoSuccess, operation::Undo>(),
    ))
    .with_annotations(writes("Undo a committed call"))
}

/// The definition of `list_transactions`.
fn list_transactions() -> Tool {
    Tool::new(
        LIST_TRANSACTIONS,
        "List the most recent committed calls that undo can still take, newest first: \
             transaction_id, time, tool, and what the call did to each file (edit, create, \
             delete, move_from, move_to). Only calls whose files are all inside the allowed \
             roots are listed; past a bound the oldest are dropped.",
        Arc::new(tool_schemas::input::<ListTransactionsParams>()),
    )
    .with_raw_output_schema(Arc::new(tool_schemas::output::<
        ListTransactionsSuccess,
        operation::ListTransactions,
    >()))
    .with_annotations(
        ToolAnnotations::with_title("List undoable calls")
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
}
