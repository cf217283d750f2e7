//! What a client sends: one struct per tool (and per nested object), in the
//! shape `tools/list` advertises. They are the one description of each
//! argument's name and type: schemars turns each struct into the tool's
//! input schema ([`crate::tool_schemas::input`]) and its doc comments into
//! the descriptions a model reads, and the decoder ([`super::decode`])
//! accepts exactly the fields each struct declares ([`fields`]), in the
//! order declared (the order its "allowed:" messages list them). So a new
//! argument is a new field here, read by the decoder; the tests check that
//! the decoder reads every field declared here.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

/// Most transactions one `list_transactions` call returns.
pub const MAX_LIST_LIMIT: u64 = 1000;
/// How many `list_transactions` returns when `limit` is absent.
pub const DEFAULT_LIST_LIMIT: u64 = 20;
/// What an entry of `multi_edit_files` may do with its path (`op`).
pub const OPS: &[&str] = &["edit", "create", "delete", "move"];

/// The fields `T` accepts, by their names on the wire, in declaration
/// order: the list serde's derive hands to `deserialize_struct`, read by a
/// deserializer that takes the list and declines the rest (the way
/// serde-rs/serde#1110 shows; serde has no other public way to ask).
/// Empty for a type that is not a struct.
pub fn fields<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    /// Why the read stops: always, once the list is taken (no allocation,
    /// unlike serde's own value error, since the decoder asks per object).
    #[derive(Debug)]
    struct Declined;

    impl std::fmt::Display for Declined {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("only a struct's fields are read")
        }
    }

    impl std::error::Error for Declined {}

    impl de::Error for Declined {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Declined
        }
    }

    struct Fields<'a>(&'a mut &'static [&'static str]);

    impl<'de> Deserializer<'de> for Fields<'_> {
        type Error = Declined;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Declined> {
            Err(Declined)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Declined> {
            *self.0 = fields;
            Err(Declined)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }

    let mut found: &'static [&'static str] = &[];
    let _ = T::deserialize(Fields(&mut found));
    found
}

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
    #[schemars(extend("enum" = OPS))]
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
    #[schemars(range(min = 1, max = MAX_LIST_LIMIT), extend("default" = DEFAULT_LIST_LIMIT))]
    pub limit: Option<u64>,
}
