//! The fixed vocabulary of envelope context fields, owned by codegen.
//!
//! `errors.yaml` may only name these fields in a code's `context.required` /
//! `context.optional` lists. Each field has one JSON type and one place in the
//! envelope (top level, or inside the `context` object). The support types
//! (match location, per-edit status, ...) are described here once as data, so
//! the Rust emitter and the JSON Schema emitter derive the same shapes from
//! the same table and cannot drift.
//!
//! Adding a field is a codegen change (new variant, new row in the tables
//! below), not a spec change: the vocabulary is part of the envelope contract.

use std::fmt;

/// Where a context field lives in the envelope JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// A top-level member of the envelope (`file_path`, `edit_status`, ...).
    TopLevel,
    /// A member of the envelope's `context` object (`context.snippet`, ...).
    Context,
}

/// The JSON/Rust type of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// JSON string, Rust `String`.
    String,
    /// JSON non-negative integer, Rust `u64`.
    Integer,
    /// JSON boolean, Rust `bool`.
    Boolean,
    /// One of the listed strings; Rust enum named by the first element of the
    /// tuple, variants in UpperCamel of each string.
    Enum(&'static str, &'static [&'static str]),
    /// A taxonomy error code (the `ErrorCode` enum / schema enum).
    ErrorCode,
    /// An object of a support type from [`SUPPORT_TYPES`].
    Struct(&'static str),
    /// An array of a support type from [`SUPPORT_TYPES`].
    ArrayOf(&'static str),
    /// An array of non-negative integers (JSON), `Vec<u64>` (Rust).
    Integers,
}

/// One member of a support type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberDef {
    /// snake_case JSON/Rust name.
    pub name: &'static str,
    /// Its type.
    pub ty: FieldType,
    /// Required in JSON (`Option` in Rust otherwise, omitted when absent).
    pub required: bool,
    /// One-line doc, becomes rustdoc, schema `description` and TS comments.
    pub doc: &'static str,
}

/// A support type used by context fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StructDef {
    /// UpperCamel name, same in Rust, the schema's `$defs` and TypeScript.
    pub name: &'static str,
    /// One-line doc.
    pub doc: &'static str,
    /// Members in order.
    pub members: &'static [MemberDef],
}

/// Support types, in the order emitters should print them.
pub const SUPPORT_TYPES: &[StructDef] = &[
    StructDef {
        name: "MatchLocation",
        doc: "One place where old_string occurs in the file.",
        members: &[
            MemberDef {
                name: "line",
                ty: FieldType::Integer,
                required: true,
                doc: "1-based line number of the first character of the match.",
            },
            MemberDef {
                name: "column",
                ty: FieldType::Integer,
                required: true,
                doc: "1-based column (in characters) of the first character of the match.",
            },
            MemberDef {
                name: "snippet",
                ty: FieldType::String,
                required: true,
                doc: "Raw surrounding lines (no line numbers), ready to copy into a more specific old_string.",
            },
        ],
    },
    StructDef {
        name: "EditStatus",
        doc: "Status of one edit that did not succeed; edits that would succeed are absent.",
        members: &[
            MemberDef {
                name: "edit_index",
                ty: FieldType::Integer,
                required: true,
                doc: "0-based index of the edit in the call's edits array.",
            },
            MemberDef {
                name: "status",
                ty: FieldType::Enum("EditState", &["failed", "skipped"]),
                required: true,
                doc: "failed: this edit caused the error; skipped: not attempted because an earlier edit failed.",
            },
            MemberDef {
                name: "error_code",
                ty: FieldType::ErrorCode,
                required: false,
                doc: "For a failed edit, the code of its failure.",
            },
            MemberDef {
                name: "message",
                ty: FieldType::String,
                required: false,
                doc: "For a failed edit, a one-line description.",
            },
            MemberDef {
                name: "old_string_preview",
                ty: FieldType::String,
                required: false,
                doc: "The first characters of the edit's old_string, to correlate without counting.",
            },
        ],
    },
    StructDef {
        name: "FileStatus",
        doc: "Status of one file of a multi-file call.",
        members: &[
            MemberDef {
                name: "file_index",
                ty: FieldType::Integer,
                required: true,
                doc: "0-based index of the file in the call's files array.",
            },
            MemberDef {
                name: "file_path",
                ty: FieldType::String,
                required: true,
                doc: "The path as the caller wrote it.",
            },
            MemberDef {
                name: "status",
                ty: FieldType::Enum(
                    "FileState",
                    &["would_succeed", "failed", "skipped", "rolled_back"],
                ),
                required: true,
                doc: "would_succeed: validated, not written; failed: caused the error; skipped: not attempted; rolled_back: written, then restored.",
            },
            MemberDef {
                name: "error_code",
                ty: FieldType::ErrorCode,
                required: false,
                doc: "For a failed file, the code of its failure.",
            },
        ],
    },
    StructDef {
        name: "Violation",
        doc: "One problem found while validating the arguments.",
        members: &[
            MemberDef {
                name: "path",
                ty: FieldType::String,
                required: true,
                doc: "Where in the arguments, e.g. edits[2].old_string or files[1].file_path.",
            },
            MemberDef {
                name: "code",
                ty: FieldType::ErrorCode,
                required: true,
                doc: "The specific code of this problem (e.g. EMPTY_OLD_STRING).",
            },
            MemberDef {
                name: "message",
                ty: FieldType::String,
                required: true,
                doc: "What is wrong, in one line.",
            },
        ],
    },
    StructDef {
        name: "RollbackReport",
        doc: "What was undone after a multi-file commit failed part-way.",
        members: &[
            MemberDef {
                name: "attempted",
                ty: FieldType::Boolean,
                required: true,
                doc: "Whether any file had been replaced and needed restoring.",
            },
            MemberDef {
                name: "restored",
                ty: FieldType::Integer,
                required: true,
                doc: "Number of files restored to their original bytes.",
            },
            MemberDef {
                name: "failed",
                ty: FieldType::Integer,
                required: true,
                doc: "Number of files that could not be restored (0 unless the environment failed again).",
            },
        ],
    },
    StructDef {
        name: "Limit",
        doc: "A configured limit that the call exceeded.",
        members: &[
            MemberDef {
                name: "name",
                ty: FieldType::String,
                required: true,
                doc: "Which limit, e.g. max_file_size.",
            },
            MemberDef {
                name: "max",
                ty: FieldType::Integer,
                required: true,
                doc: "The limit.",
            },
            MemberDef {
                name: "actual",
                ty: FieldType::Integer,
                required: false,
                doc: "The value seen, when known without reading past the limit.",
            },
        ],
    },
];

/// Looks a support type up by name.
pub fn support_type(name: &str) -> Option<&'static StructDef> {
    SUPPORT_TYPES.iter().find(|s| s.name == name)
}

macro_rules! context_fields {
    ($( $variant:ident => $name:literal, $placement:ident, $ty:expr, $doc:literal; )*) => {
        /// A context field an envelope may carry.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ContextField {
            $(
                #[doc = $doc]
                $variant,
            )*
        }

        impl ContextField {
            /// Every field, in canonical order (the order of constructor
            /// arguments and of schema properties).
            pub const ALL: &'static [ContextField] = &[$(ContextField::$variant),*];

            /// The snake_case name used in `errors.yaml` and JSON.
            pub fn name(self) -> &'static str {
                match self { $(ContextField::$variant => $name,)* }
            }

            /// Where the field lives in the envelope.
            pub fn placement(self) -> Placement {
                match self { $(ContextField::$variant => Placement::$placement,)* }
            }

            /// Its type.
            pub fn ty(self) -> FieldType {
                match self { $(ContextField::$variant => $ty,)* }
            }

            /// One-line description.
            pub fn doc(self) -> &'static str {
                match self { $(ContextField::$variant => $doc,)* }
            }
        }
    };
}

context_fields! {
    FilePath => "file_path", TopLevel, FieldType::String,
        "The file the error is about, as the caller wrote it.";
    FileIndex => "file_index", TopLevel, FieldType::Integer,
        "0-based index of the file in a multi-file call.";
    EditIndex => "edit_index", TopLevel, FieldType::Integer,
        "0-based index of the edit the error is about.";
    EditStatus => "edit_status", TopLevel, FieldType::ArrayOf("EditStatus"),
        "The failed edit and every skipped edit after it; succeeded edits are absent.";
    FileStatuses => "file_statuses", TopLevel, FieldType::ArrayOf("FileStatus"),
        "One entry per file of a multi-file call.";
    Rollback => "rollback", TopLevel, FieldType::Struct("RollbackReport"),
        "What was undone when a multi-file commit failed part-way.";
    Violations => "violations", TopLevel, FieldType::ArrayOf("Violation"),
        "Every problem found in the arguments, each with its own code.";
    BackupPath => "backup_path", TopLevel, FieldType::String,
        "Where the backup of the original file is (or was to be) written.";
    Snippet => "snippet", Context, FieldType::String,
        "Raw lines of the file around where the edit most plausibly aimed (no line numbers).";
    MatchLocations => "match_locations", Context, FieldType::ArrayOf("MatchLocation"),
        "Where old_string occurs, capped; match_count gives the total.";
    MatchCount => "match_count", Context, FieldType::Integer,
        "Total number of occurrences of old_string.";
    SnippetStartLine => "snippet_start_line", Context, FieldType::Integer,
        "1-based line of the file (as the earlier edits of the call left it) where snippet starts.";
    MatchLines => "match_lines", Context, FieldType::Integers,
        "The 1-based line of every occurrence of old_string, in order, one entry per occurrence (the first 1,000).";
    ExpectedSha256 => "expected_sha256", Context, FieldType::String,
        "The SHA-256 (hex) of the content the caller said it read.";
    CurrentSha256 => "current_sha256", Context, FieldType::String,
        "The SHA-256 (hex) of the file's current content on disk.";
    Limit => "limit", Context, FieldType::Struct("Limit"),
        "The limit that was exceeded.";
    OsError => "os_error", Context, FieldType::String,
        "The operating system's error name (e.g. ENOSPC), never a raw message or path outside the roots.";
    FileType => "file_type", Context, FieldType::String,
        "What the path is instead of a regular file (directory, fifo, socket, ...).";
    JournalDir => "journal_dir", Context, FieldType::String,
        "The server's commit journal directory (its own state, not a file of the call).";
}

impl ContextField {
    /// Parses a spec spelling.
    pub fn from_name(name: &str) -> Option<ContextField> {
        ContextField::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// True for fields whose value can appear in a message template
    /// (strings and integers).
    pub fn is_scalar(self) -> bool {
        matches!(self.ty(), FieldType::String | FieldType::Integer)
    }
}

impl fmt::Display for ContextField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_referenced_support_type_exists() {
        for f in ContextField::ALL {
            if let FieldType::Struct(n) | FieldType::ArrayOf(n) = f.ty() {
                assert!(support_type(n).is_some(), "{f} refers to missing type {n}");
            }
        }
        for s in SUPPORT_TYPES {
            for m in s.members {
                if let FieldType::Struct(n) | FieldType::ArrayOf(n) = m.ty {
                    assert!(support_type(n).is_some(), "{}.{} -> {n}", s.name, m.name);
                }
            }
        }
    }

    #[test]
    fn names_round_trip_and_are_unique() {
        for f in ContextField::ALL {
            assert_eq!(ContextField::from_name(f.name()), Some(*f));
        }
        let mut names: Vec<_> = ContextField::ALL.iter().map(|f| f.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ContextField::ALL.len());
    }
}
