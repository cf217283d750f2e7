//! Tool arguments: their published shape and their decoding.
//!
//! [`params`]: the `*Params` structs, one per tool and nested object, the
//! one description of each argument: the tools' input schemas and the
//! fields each object accepts come from them. [`decode`]: the walk over a call's raw JSON that checks every
//! rule and collects every [`crate::taxonomy::Violation`] at once (why not
//! serde is said there). [`request`]: the decoded requests the tools take.
//! The schemas themselves are built in [`crate::tool_schemas`].

mod decode;
mod params;
mod request;
#[cfg(test)]
mod tests;

pub use decode::{
    MAX_VIOLATIONS, decode_list_transactions, decode_multi_edit, decode_multi_edit_files,
    decode_undo,
};
pub use params::{
    DEFAULT_LIST_LIMIT, EditParams, FileEditsParams, ListTransactionsParams, MAX_LIST_LIMIT,
    MultiEditFilesParams, MultiEditParams, OPS, UndoParams, fields,
};
pub use request::{EditArg, EditRequest, FileArgs, FileOp, UndoRequest};
