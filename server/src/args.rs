//! Tool arguments: their published shape and their decoding.
//!
//! [`params`]: the `*Params` structs, one per tool and nested object, which
//! are both the tools' input schemas and the list of fields each object
//! accepts. [`decode`]: the walk over a call's raw JSON that checks every
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
    EditParams, FileEditsParams, ListTransactionsParams, MultiEditFilesParams, MultiEditParams,
    UndoParams,
};
pub use request::{
    DEFAULT_LIST_LIMIT, EditArg, EditRequest, FileArgs, FileOp, MAX_LIST_LIMIT, UndoRequest,
};
