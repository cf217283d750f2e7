//! What the decoder gives the tools: the arguments checked against every
//! rule and the limits, with their defaults filled in.

/// Decoded arguments of `undo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoRequest {
    /// The transaction to undo.
    pub transaction_id: crate::undo::TransactionId,
    /// Do not write.
    pub dry_run: bool,
}

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
