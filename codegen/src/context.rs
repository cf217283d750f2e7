//! The declared vocabulary of envelope context fields and their support types.
//!
//! The members every envelope has are declared by the spec's `envelope:`
//! section ([`crate::envelope`]; splice's `success`, `error_code`, `code`,
//! ... when absent). Everything else an envelope may carry is *declared by
//! the spec* in two top-level sections of `errors.yaml`, so a maintainer adds a
//! field (or another project brings its own vocabulary) without touching the
//! generator:
//!
//! ```yaml
//! types:                       # named support types, UpperCamelCase
//!   Limit:
//!     doc: A configured limit that the call exceeded.
//!     members:                 # an object; members are required unless `optional: true`
//!       name: { type: string, doc: "Which limit, e.g. max_file_size." }
//!       max: { type: integer, doc: The limit. }
//!       actual: { type: integer, optional: true, doc: The value seen. }
//!   FileState:
//!     doc: What happened to one file.
//!     enum: [would_succeed, failed]   # an enum of strings ({ name, wire } for another spelling)
//!
//! fields:                      # context fields, lower_snake_case; order = argument order
//!   file_path:
//!     type: string             # string | integer | int32 | int64 | float | boolean | json | error_code
//!                              # | TypeName | map<string, T> | T[]
//!     in: top_level            # top_level (a member of the envelope) | context (inside `context`)
//!     doc: The file the error is about, as the caller wrote it.
//!   limit: { type: Limit, in: context, doc: The limit that was exceeded. }
//! ```
//!
//! Codes then name fields in `context.required` / `context.optional`.
//! Lowering (`crate::lower`) reads these sections into [`FieldDef`]s and
//! [`TypeDef`]s, and checking (`crate::validate`) resolves every type
//! reference; the Rust, JSON Schema,
//! TypeScript, Python and Markdown emitters and the proc macro all derive their
//! shapes from them, so none of them can drift. The format is documented in
//! `docs/spec-format.md` ("Context fields and types").

use std::fmt;

use crate::span::Spanned;

/// Where a context field lives in the envelope JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// A top-level member of the envelope (`file_path`, `edit_status`, ...).
    TopLevel,
    /// A member of the envelope's `context` object (`context.snippet`, ...).
    Context,
    /// A member of the envelope's outermost object, beside the object that
    /// holds the code when that one is nested: botocore's
    /// `ResponseMetadata` beside `Error`.
    Envelope,
}

impl Placement {
    /// The spelling used after `in:` in `errors.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::TopLevel => "top_level",
            Placement::Context => "context",
            Placement::Envelope => "envelope",
        }
    }
}

/// The resolved type of a field or member.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// JSON string, Rust `String`.
    String,
    /// JSON non-negative integer, Rust `u64`.
    Integer,
    /// JSON integer in [-2^31, 2^31), Rust `i32` (`int32`).
    Int32,
    /// JSON integer in [-2^63, 2^63), Rust `i64` (`int64`).
    Int64,
    /// JSON number, Rust `f64` (`float`).
    Float,
    /// JSON boolean, Rust `bool`.
    Boolean,
    /// A taxonomy error code (the `ErrorCode` enum / schema enum).
    ErrorCode,
    /// A declared enum of strings ([`TypeBody::Enum`]), by name.
    Enum(String),
    /// A declared object type ([`TypeBody::Object`]), by name.
    Struct(String),
    /// An array of any of these.
    ArrayOf(Box<FieldType>),
    /// An object with any string keys and values of one type
    /// (`map<string, T>`), Rust `BTreeMap<String, T>`.
    Map(Box<FieldType>),
    /// Any JSON value (`json`), Rust `serde_json::Value`.
    Json,
}

impl FieldType {
    /// True for types whose value can appear in a message template
    /// (strings and integers).
    pub fn is_scalar(&self) -> bool {
        matches!(self, FieldType::String | FieldType::Integer)
    }

    /// The spelling used in `errors.yaml` (`string`, `Limit`, `Violation[]`).
    pub fn spelling(&self) -> String {
        match self {
            FieldType::String => "string".into(),
            FieldType::Integer => "integer".into(),
            FieldType::Int32 => "int32".into(),
            FieldType::Int64 => "int64".into(),
            FieldType::Float => "float".into(),
            FieldType::Boolean => "boolean".into(),
            FieldType::ErrorCode => "error_code".into(),
            FieldType::Enum(n) | FieldType::Struct(n) => n.clone(),
            FieldType::ArrayOf(t) => format!("{}[]", t.spelling()),
            FieldType::Map(t) => format!("map<string, {}>", t.spelling()),
            FieldType::Json => "json".into(),
        }
    }

    /// The declared type this one names, directly or as array items.
    pub fn named(&self) -> Option<&str> {
        match self {
            FieldType::Enum(n) | FieldType::Struct(n) => Some(n),
            FieldType::ArrayOf(t) | FieldType::Map(t) => t.named(),
            _ => None,
        }
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spelling())
    }
}

/// The built-in type names a type reference may use besides declared types.
pub const BUILTIN_TYPES: &[&str] = &[
    "string",
    "integer",
    "boolean",
    "error_code",
    "int32",
    "int64",
    "float",
    "json",
];

/// The values `format:` may take: JSON Schema 2020-12 formats of strings.
pub const FORMATS: &[&str] = &["uri", "date-time", "duration"];

/// What `pattern:` and `format:` constrain a string to, for doc comments:
/// ` (format: uri)`, ` (pattern: ^a+$)`, or nothing.
pub fn constraint_note(
    pattern: Option<&Spanned<String>>,
    format: Option<&Spanned<String>>,
) -> String {
    let mut note = String::new();
    if let Some(f) = format {
        note.push_str(&format!(" (format: {})", f.value));
    }
    if let Some(p) = pattern {
        note.push_str(&format!(" (pattern: {})", p.value));
    }
    note
}

impl FieldType {
    /// True when a value of the type may hold a float (Rust types holding
    /// one cannot derive `Eq`).
    pub fn holds_float(&self) -> bool {
        match self {
            FieldType::Float => true,
            FieldType::ArrayOf(t) | FieldType::Map(t) => t.holds_float(),
            _ => false,
        }
    }
}

/// One member of a declared object type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberDef {
    /// lower_snake JSON/Rust name.
    pub name: Spanned<String>,
    /// Its type.
    pub ty: Spanned<FieldType>,
    /// Required in JSON (`Option` in Rust otherwise, omitted when absent).
    pub required: bool,
    /// One-line doc, becomes rustdoc, schema `description` and TS comments.
    pub doc: Spanned<String>,
    /// `wire:`, the member's name in JSON when it differs from `name`
    /// (`@type`, `retryDelay`, `type`).
    pub wire: Option<Spanned<String>>,
    /// `nullable: true`: the member may be JSON `null`.
    pub nullable: bool,
    /// `pattern:` of a string member (ECMA-262 regular expression).
    pub pattern: Option<Spanned<String>>,
    /// `format:` of a string member, one of [`FORMATS`].
    pub format: Option<Spanned<String>>,
}

impl MemberDef {
    /// The member's name in JSON: `wire:` if written, else its name.
    pub fn wire(&self) -> &str {
        self.wire.as_ref().map_or(&self.name.value, |w| &w.value)
    }
}

/// What a declared type is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeBody {
    /// An object with these members, in order.
    Object(Vec<MemberDef>),
    /// One of these strings (lower_snake, unique); Rust variants are their
    /// UpperCamel forms.
    Enum(Vec<Spanned<String>>),
    /// One of several object types, told apart by a discriminator member
    /// (`union:`; google.rpc `details[]` keyed by `@type`).
    Union(Union),
    /// A value of one of several scalar types, told apart by its JSON type
    /// (`one_of:`; JSON-RPC's `id`: a string, a number or `null`).
    OneOf(OneOf),
}

/// An untagged union: each value is a JSON value of one of `types` (no two
/// of the same JSON type), or `null` when `null` is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneOf {
    /// Built-in scalar types (`string`, `integer`, `int32`, `int64`,
    /// `float`, `boolean`), enums and `error_code` (JSON strings), lists
    /// (`T[]`, JSON arrays), declared objects, tagged unions and maps (JSON
    /// objects), in the order written; each JSON type once.
    pub types: Vec<Spanned<FieldType>>,
    /// Where `null` was listed, if it was: the value may be JSON `null`.
    pub null: Option<Spanned<()>>,
}

impl OneOf {
    /// The Rust variant name of a member type (`String`, `Int64`, `List`,
    /// `Map`, a declared type's name); `Null` is `null`'s. Unique within
    /// one `one_of` (checked by validate).
    pub fn variant(ty: &FieldType) -> String {
        match ty {
            FieldType::String => "String".into(),
            FieldType::Integer => "Integer".into(),
            FieldType::Int32 => "Int32".into(),
            FieldType::Int64 => "Int64".into(),
            FieldType::Float => "Float".into(),
            FieldType::Boolean => "Boolean".into(),
            FieldType::ErrorCode => "ErrorCode".into(),
            FieldType::Enum(name) | FieldType::Struct(name) => name.clone(),
            FieldType::ArrayOf(_) => "List".into(),
            FieldType::Map(_) => "Map".into(),
            FieldType::Json => "Json".into(),
        }
    }

    /// True when every member type is a built-in scalar.
    pub fn is_scalar(&self) -> bool {
        self.types.iter().all(|t| {
            matches!(
                t.value,
                FieldType::String
                    | FieldType::Integer
                    | FieldType::Int32
                    | FieldType::Int64
                    | FieldType::Float
                    | FieldType::Boolean
            )
        })
    }

    /// Each entry as the spec spells it (`int64`, `string`, `null` last),
    /// with where it is written.
    pub fn entries(&self) -> Vec<(String, crate::span::Loc)> {
        let mut entries: Vec<(String, crate::span::Loc)> = self
            .types
            .iter()
            .map(|t| (t.value.spelling(), t.loc))
            .collect();
        entries.extend(self.null.as_ref().map(|n| ("null".to_owned(), n.loc)));
        entries
    }
}

/// A tagged union: each value is an object of one of `variants`, with the
/// member `discriminator` set to that variant's tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Union {
    /// The wire name of the member that holds the tag (`@type`).
    pub discriminator: Spanned<String>,
    /// Declared object types and their tags, in order.
    pub variants: Vec<UnionVariant>,
}

/// One variant of a [`Union`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnionVariant {
    /// A declared object type.
    pub ty: Spanned<String>,
    /// The discriminator's value for it.
    pub tag: Spanned<String>,
}

/// A declared support type (`types:` section).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDef {
    /// UpperCamel name, same in Rust, the schema's `$defs` and TypeScript.
    pub name: Spanned<String>,
    /// One-line doc.
    pub doc: Spanned<String>,
    /// Object members or enum values.
    pub body: TypeBody,
    /// For an enum, one entry per value of [`TypeBody::Enum`], in order: the
    /// value's spelling in JSON when it differs from its name (`wire:`,
    /// e.g. `API_DISABLED` for `api_disabled`). Empty for an object.
    pub wires: Vec<Option<Spanned<String>>>,
    /// `open: true` (objects only): a value may hold members the type does
    /// not list (Azure's `innererror`), which readers keep as they are and
    /// writers send back unchanged. A closed object's unlisted members are
    /// ignored by clients and refused by the strict schema.
    pub open: bool,
}

/// The Rust field of an open object type that holds the members it does
/// not list (`#[serde(flatten)]`); no member of an open type may take it.
pub const OTHER_MEMBERS: &str = "other_members";

impl TypeDef {
    /// The members of an object type; empty for an enum or a union.
    pub fn members(&self) -> &[MemberDef] {
        match &self.body {
            TypeBody::Object(m) => m,
            _ => &[],
        }
    }

    /// The values of an enum type; `None` otherwise.
    pub fn values(&self) -> Option<&[Spanned<String>]> {
        match &self.body {
            TypeBody::Enum(v) => Some(v),
            _ => None,
        }
    }

    /// The union of a tagged-union type; `None` otherwise.
    pub fn union(&self) -> Option<&Union> {
        match &self.body {
            TypeBody::Union(u) => Some(u),
            _ => None,
        }
    }

    /// The scalar union of a `one_of:` type; `None` otherwise.
    pub fn one_of(&self) -> Option<&OneOf> {
        match &self.body {
            TypeBody::OneOf(o) => Some(o),
            _ => None,
        }
    }

    /// True for an object type (`members:`).
    pub fn is_object(&self) -> bool {
        matches!(self.body, TypeBody::Object(_))
    }

    /// The JSON spellings of an enum's values, in order (each value's
    /// `wire:`, else the value itself); empty for an object.
    pub fn wire_values(&self) -> Vec<&str> {
        self.values()
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, v)| {
                self.wires
                    .get(i)
                    .and_then(Option::as_ref)
                    .map_or(v.value.as_str(), |w| w.value.as_str())
            })
            .collect()
    }

    /// The JSON spelling of the enum value `value` (its `wire:`, else
    /// itself).
    pub fn wire_of<'a>(&'a self, value: &'a str) -> &'a str {
        self.values()
            .unwrap_or_default()
            .iter()
            .position(|v| v.value == value)
            .and_then(|i| self.wires.get(i)?.as_ref())
            .map_or(value, |w| w.value.as_str())
    }

    /// The member named `name`.
    pub fn member(&self, name: &str) -> Option<&MemberDef> {
        self.members().iter().find(|m| m.name.value == name)
    }
}

/// A declared context field (`fields:` section).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDef {
    /// lower_snake name used in `errors.yaml`, JSON and Rust.
    pub name: Spanned<String>,
    /// Where the field lives in the envelope.
    pub placement: Spanned<Placement>,
    /// Its type.
    pub ty: Spanned<FieldType>,
    /// One-line description.
    pub doc: Spanned<String>,
    /// `example:`, a value of `ty` used in documented envelopes (an
    /// `error_code` value `self` names the envelope's own code); a code's
    /// own `example:` overrides it.
    pub example: Option<Spanned<serde_json::Value>>,
    /// `wire:`, the field's name in JSON when it differs from `name`
    /// (`retryDelay`, `@type`, `type`).
    pub wire: Option<Spanned<String>>,
    /// `pattern:` of a string field (ECMA-262 regular expression).
    pub pattern: Option<Spanned<String>>,
    /// `format:` of a string field, one of [`FORMATS`].
    pub format: Option<Spanned<String>>,
}

impl FieldDef {
    /// The snake_case name.
    pub fn name(&self) -> &str {
        &self.name.value
    }

    /// The field's name in JSON: `wire:` if written, else its name.
    pub fn wire(&self) -> &str {
        self.wire.as_ref().map_or(&self.name.value, |w| &w.value)
    }

    /// Where the field lives.
    pub fn placement(&self) -> Placement {
        self.placement.value
    }

    /// Its type.
    pub fn ty(&self) -> &FieldType {
        &self.ty.value
    }

    /// One-line description.
    pub fn doc(&self) -> &str {
        &self.doc.value
    }

    /// True for fields whose value can appear in a message template.
    pub fn is_scalar(&self) -> bool {
        self.ty.value.is_scalar()
    }
}

impl fmt::Display for FieldDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
