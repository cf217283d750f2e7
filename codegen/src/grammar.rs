//! The grammar of `errors.yaml`, declared once: each section and object,
//! its keys, the kind of value each key takes, which keys are required, a
//! one-line doc per key, and the values an enumerated key allows.
//!
//! Three readers, so they cannot disagree: the lowering checks keys against
//! it (unknown, missing), the language server completes and explains keys
//! and values from it (`crate::lsp`), and [`json_schema`] turns it into the
//! JSON Schema of the format (`schema/errors-yaml.schema.json`), which
//! editors with yaml-language-server use without our server. Adding a key
//! to the format is one row here; the schema follows (`generate --check`
//! fails until it is regenerated).
//!
//! What the grammar does not say (a code's number inside its category's
//! range, placeholders naming declared fields) is checked by `validate`.

use serde_json::{Value as Json, json};

/// What a name declared by the spec names. Values of [`Value::Name`] refer
/// to one; [`Value::Map`] keys may declare them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A key of `categories:`.
    Category,
    /// A key of `codes:`.
    Code,
    /// A key of `types:`.
    Type,
    /// A key of `fields:`.
    Field,
    /// A member of a declared object type (scoped by its type).
    Member,
    /// A key of `retry.classes:`.
    RetryClass,
    /// A key of `attributes:`.
    Attribute,
    /// A message parameter of a code (scoped by its code).
    Param,
    /// A key of `code_groups:`.
    Group,
    /// A key of `operations:`.
    Operation,
    /// A key of `families:`.
    Family,
}

impl Kind {
    /// How the kind is called in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Category => "category",
            Kind::Code => "code",
            Kind::Type => "type",
            Kind::Field => "context field",
            Kind::Member => "member",
            Kind::RetryClass => "retry class",
            Kind::Attribute => "attribute",
            Kind::Param => "parameter",
            Kind::Group => "code group",
            Kind::Operation => "operation",
            Kind::Family => "family",
        }
    }
}

/// One allowed value of an enumerated key, with what it means.
#[derive(Debug)]
pub struct Choice {
    /// The spelling.
    pub name: &'static str,
    /// One line.
    pub doc: &'static str,
}

/// The kind of value a key takes.
#[derive(Debug)]
pub enum Value {
    /// One line of text.
    Line,
    /// Markdown, any length.
    Markdown,
    /// A message template with `{placeholder}`s.
    Template,
    /// An integer.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// A semantic version, `1.2.0`.
    Semver,
    /// One of a fixed set of spellings.
    Enum(&'static [Choice]),
    /// The name of something the spec declares.
    Name(Kind),
    /// A type spelling: a built-in or declared type, `T[]`, `map<string, T>`.
    TypeSpelling,
    /// A scalar of any type (a constant's value).
    Scalar,
    /// Anything (an example value).
    Any,
    /// A list of values.
    List(&'static Value),
    /// An object with fixed keys.
    Object(&'static Object),
    /// A mapping keyed by names: `keys` says what they are.
    Map {
        /// What the keys are.
        keys: MapKeys,
        /// The value of every entry.
        value: &'static Value,
    },
    /// Any of these (a hint is a template or an object).
    Either(&'static [Value]),
}

/// The keys of a [`Value::Map`].
#[derive(Debug, Clone, Copy)]
pub enum MapKeys {
    /// Each key declares a name of this kind, written in this case.
    Declares(Kind, crate::case::Case),
    /// Each key names something declared elsewhere.
    Refers(Kind),
    /// Each key is an integer.
    Integers,
    /// Any string (wire names of envelope members).
    Any,
}

/// An object with fixed keys.
#[derive(Debug)]
pub struct Object {
    /// What it is called in messages and in the schema (`code`, `type`).
    pub name: &'static str,
    /// One line.
    pub doc: &'static str,
    /// Its keys, in the order the docs list them.
    pub keys: &'static [Key],
}

/// One key of an object.
#[derive(Debug)]
pub struct Key {
    /// The key.
    pub name: &'static str,
    /// Its value.
    pub value: Value,
    /// Whether an object without it is refused.
    pub required: bool,
    /// One line: what it means.
    pub doc: &'static str,
}

impl Object {
    /// The key named `name`.
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        // `keys` is 'static, so is each element.
        let keys: &'static [Key] = self.keys;
        keys.iter().find(|k| k.name == name)
    }

    /// Every key name, in order.
    pub fn key_names(&self) -> Vec<&'static str> {
        self.keys.iter().map(|k| k.name).collect()
    }

    /// The required key names, in order.
    pub fn required(&self) -> Vec<&'static str> {
        self.keys
            .iter()
            .filter(|k| k.required)
            .map(|k| k.name)
            .collect()
    }
}

const fn key(name: &'static str, value: Value, doc: &'static str) -> Key {
    Key {
        name,
        value,
        required: false,
        doc,
    }
}

const fn required(name: &'static str, value: Value, doc: &'static str) -> Key {
    Key {
        name,
        value,
        required: true,
        doc,
    }
}

use crate::case::Case;

/// `cause:` values.
pub static CAUSES: &[Choice] = &[
    Choice {
        name: "input",
        doc: "The caller's arguments: the caller can fix its call.",
    },
    Choice {
        name: "environment",
        doc: "The environment: file system state, permissions, disk, other processes.",
    },
    Choice {
        name: "server",
        doc: "The server itself: a bug or an unimplemented feature.",
    },
];

/// `in:` values of a field.
pub static PLACEMENTS: &[Choice] = &[
    Choice {
        name: "top_level",
        doc: "A member of the object that holds the code (beside `error_code`).",
    },
    Choice {
        name: "context",
        doc: "A member of the object carried by the `context` member.",
    },
    Choice {
        name: "envelope",
        doc: "A member of the outermost object, beside a nested object that holds the code.",
    },
];

/// `carries:` values of an envelope member.
pub static CARRIES: &[Choice] = &[
    Choice {
        name: "constant",
        doc: "The same `value` in every envelope.",
    },
    Choice {
        name: "code_name",
        doc: "The code's name (its `wire:` spelling if it has one).",
    },
    Choice {
        name: "number",
        doc: "The code's number.",
    },
    Choice {
        name: "category",
        doc: "The key of the code's category.",
    },
    Choice {
        name: "retryable",
        doc: "The code's resolved `retryable`.",
    },
    Choice {
        name: "cause",
        doc: "The code's resolved `cause`.",
    },
    Choice {
        name: "hints",
        doc: "The rendered recovery hints, a list of strings (non-empty unless the taxonomy makes hints optional).",
    },
    Choice {
        name: "message",
        doc: "The rendered message.",
    },
    Choice {
        name: "context",
        doc: "The object of the fields declared `in: context`.",
    },
];

/// `sent_as:` values of a code.
pub static SENT_AS: &[Choice] = &[
    Choice {
        name: "envelope",
        doc: "As an envelope's own code (the default).",
    },
    Choice {
        name: "violation",
        doc: "Only as a violation kind inside another envelope, never as its own code.",
    },
];

/// `unraised_codes:` values of the taxonomy.
pub static UNRAISED: &[Choice] = &[
    Choice {
        name: "warning",
        doc: "A code no operation raises is a warning; the spec loads (the default).",
    },
    Choice {
        name: "error",
        doc: "A code no operation raises is an error; the spec does not load.",
    },
];

/// `hints:` values of the taxonomy.
pub static HINTS: &[Choice] = &[
    Choice {
        name: "required",
        doc: "Every emitted code has at least one general recovery hint (the default).",
    },
    Choice {
        name: "optional",
        doc: "A code may have no recovery hints (a format that carries none).",
    },
];

/// `code_names:` values of the taxonomy.
pub static CODE_NAMES: &[Choice] = &[
    Choice {
        name: "unique",
        doc: "A code's wire name and aliases are unique across the taxonomy (the default).",
    },
    Choice {
        name: "per_category",
        doc: "A code's wire name and aliases are unique within its category; a code is told by (category, name).",
    },
];

/// `type:` values of a message parameter.
pub static PARAM_TYPES: &[Choice] = &[
    Choice {
        name: "string",
        doc: "Any text.",
    },
    Choice {
        name: "integer",
        doc: "A non-negative integer.",
    },
];

/// `type:` values of an attribute.
pub static ATTRIBUTE_TYPES: &[Choice] = &[
    Choice {
        name: "string",
        doc: "Text.",
    },
    Choice {
        name: "integer",
        doc: "A signed integer.",
    },
    Choice {
        name: "boolean",
        doc: "`true` or `false`.",
    },
];

/// `format:` values of a string.
pub static FORMATS: &[Choice] = &[
    Choice {
        name: "uri",
        doc: "An absolute URI.",
    },
    Choice {
        name: "date-time",
        doc: "An RFC 3339 date and time.",
    },
    Choice {
        name: "duration",
        doc: "An ISO 8601 duration.",
    },
];

/// The built-in types a type spelling may use besides declared ones.
pub static BUILTIN_TYPES: &[Choice] = &[
    Choice {
        name: "string",
        doc: "JSON string.",
    },
    Choice {
        name: "integer",
        doc: "JSON non-negative integer (Rust `u64`).",
    },
    Choice {
        name: "boolean",
        doc: "JSON boolean.",
    },
    Choice {
        name: "error_code",
        doc: "A code of this taxonomy.",
    },
    Choice {
        name: "int32",
        doc: "JSON integer in [-2^31, 2^31) (Rust `i32`).",
    },
    Choice {
        name: "int64",
        doc: "JSON integer in [-2^63, 2^63) (Rust `i64`).",
    },
    Choice {
        name: "float",
        doc: "JSON number (Rust `f64`).",
    },
    Choice {
        name: "json",
        doc: "Any JSON value (Rust `serde_json::Value`).",
    },
];

/// The spellings of `choices`, in order.
pub fn names(choices: &'static [Choice]) -> impl Iterator<Item = &'static str> {
    choices.iter().map(|c| c.name)
}

/// The whole file.
pub static SPEC: Object = Object {
    name: "the spec",
    doc: "An error taxonomy: its categories, codes, context fields and types (docs/spec-format.md).",
    keys: &[
        required(
            "taxonomy",
            Value::Object(&TAXONOMY),
            "Name, version and base URI of the taxonomy.",
        ),
        key(
            "envelope",
            Value::Map {
                keys: MapKeys::Any,
                value: &Value::Object(&ENVELOPE_MEMBER),
            },
            "The wire shape of an error, member by member (default: splice's own envelope).",
        ),
        required(
            "categories",
            Value::Map {
                keys: MapKeys::Declares(Kind::Category, Case::LowerSnake),
                value: &Value::Object(&CATEGORY),
            },
            "Categories: a numeric range and the defaults their codes inherit.",
        ),
        key(
            "types",
            Value::Map {
                keys: MapKeys::Declares(Kind::Type, Case::UpperCamel),
                value: &Value::Object(&TYPE),
            },
            "Support types of context fields: objects, enums, unions.",
        ),
        key(
            "fields",
            Value::Map {
                keys: MapKeys::Declares(Kind::Field, Case::LowerSnake),
                value: &Value::Object(&FIELD),
            },
            "The context fields codes may carry; their order is the constructors' argument order.",
        ),
        required(
            "codes",
            Value::Map {
                keys: MapKeys::Declares(Kind::Code, Case::ScreamingSnake),
                value: &Value::Object(&CODE),
            },
            "The error codes.",
        ),
        key(
            "reserved",
            Value::Map {
                keys: MapKeys::Integers,
                value: &Value::Line,
            },
            "Numbers no code may take, each with why.",
        ),
        key(
            "retry",
            Value::Object(&RETRY),
            "What `retryable` means in this taxonomy, and its retry classes.",
        ),
        key(
            "attributes",
            Value::Map {
                keys: MapKeys::Declares(Kind::Attribute, Case::LowerSnake),
                value: &Value::Object(&ATTRIBUTE),
            },
            "Typed per-code attributes (an HTTP status, a documentation URI).",
        ),
        key(
            "code_groups",
            Value::Map {
                keys: MapKeys::Declares(Kind::Group, Case::LowerSnake),
                value: &Value::Object(&CODE_GROUP),
            },
            "Named lists of codes that several operations raise, written once.",
        ),
        key(
            "operations",
            Value::Map {
                keys: MapKeys::Declares(Kind::Operation, Case::LowerSnake),
                value: &Value::Object(&OPERATION),
            },
            "The operations (tools, API calls) and the codes each may raise.",
        ),
        key(
            "families",
            Value::Map {
                keys: MapKeys::Declares(Kind::Family, Case::LowerSnake),
                value: &Value::Object(&FAMILY),
            },
            "Families of codes by a prefix or suffix of their wire name, or a range of their number: an unlisted code of one gets its category. The first matching family wins; a listed code always does.",
        ),
    ],
};

/// One entry of `families:`.
pub static FAMILY: Object = Object {
    name: "family",
    doc: "Codes whose wire name starts or ends with a fixed text, or whose number lies in a range; write exactly one of `prefix`, `suffix` and `range`.",
    keys: &[
        key(
            "prefix",
            Value::Line,
            "The family's codes' wire names start with it (`Throttling`).",
        ),
        key(
            "suffix",
            Value::Line,
            "The family's codes' wire names end with it (`NotFound`).",
        ),
        key(
            "range",
            Value::List(&Value::Integer),
            "Inclusive `[low, high]` of the family's codes' numbers, where the envelope tells codes apart by number only.",
        ),
        required(
            "category",
            Value::Name(Kind::Category),
            "The category (and so `retryable` and `cause`) of an unlisted code of the family.",
        ),
        required(
            "doc",
            Value::Line,
            "One line: what its codes have in common.",
        ),
    ],
};

/// A list of code names; an item that is itself a list (a YAML alias of an
/// anchored list) stands for its items.
const CODE_LIST_VALUE: Value = Value::List(&Value::Either(&[
    Value::Name(Kind::Code),
    Value::List(&Value::Name(Kind::Code)),
]));

/// One entry of `code_groups:`.
pub static CODE_GROUP: Object = Object {
    name: "code group",
    doc: "A named list of codes that several operations raise.",
    keys: &[
        required(
            "doc",
            Value::Line,
            "One line: what the codes have in common.",
        ),
        required("codes", CODE_LIST_VALUE, "Its codes."),
    ],
};

/// One entry of `operations:`.
pub static OPERATION: Object = Object {
    name: "operation",
    doc: "An operation (a tool, an API call) and the codes it may raise.",
    keys: &[
        required("doc", Value::Line, "One line: what the operation does."),
        key(
            "wire",
            Value::Line,
            "Its name on the wire when it differs from its identifier (`PutItem`).",
        ),
        key(
            "groups",
            Value::List(&Value::Name(Kind::Group)),
            "Code groups it raises every code of.",
        ),
        key(
            "codes",
            CODE_LIST_VALUE,
            "The codes it raises besides its groups'.",
        ),
    ],
};

/// `taxonomy:`.
pub static TAXONOMY: Object = Object {
    name: "taxonomy",
    doc: "Name, version and base URI of the taxonomy.",
    keys: &[
        required("name", Value::Line, "Human name of the taxonomy."),
        required(
            "version",
            Value::Semver,
            "Semver of the error contract (not of any crate); bumped on every released change.",
        ),
        required(
            "base_uri",
            Value::Line,
            "The schema `$id` is `{base_uri}/error-envelope/v{major}`.",
        ),
        key(
            "description",
            Value::Markdown,
            "Markdown paragraph for the generated reference.",
        ),
        key(
            "numbered",
            Value::Boolean,
            "Whether every code has a unique `number` (default `true`); `false`: codes are told apart by name only.",
        ),
        key(
            "range_block",
            Value::Integer,
            "Every category range lies inside one block of this many numbers (1000: 1000-1999, ...).",
        ),
        key(
            "unraised_codes",
            Value::Enum(UNRAISED),
            "With `operations:`, whether a code no operation raises is a `warning` (default) or an `error`.",
        ),
        key(
            "hints",
            Value::Enum(HINTS),
            "Whether every emitted code needs `recovery_hints` (`required`, the default) or may have none (`optional`).",
        ),
        key(
            "code_names",
            Value::Enum(CODE_NAMES),
            "Whether a code's wire name is `unique` across the taxonomy (default) or only within its category (`per_category`).",
        ),
    ],
};

/// One member of `envelope:`.
pub static ENVELOPE_MEMBER: Object = Object {
    name: "envelope member",
    doc: "One member of the envelope: the property of the code it carries, or nested members.",
    keys: &[
        key(
            "carries",
            Value::Enum(CARRIES),
            "The property of the code the member holds.",
        ),
        key(
            "value",
            Value::Scalar,
            "With `carries: constant`: the value in every envelope.",
        ),
        key(
            "members",
            Value::Map {
                keys: MapKeys::Any,
                value: &Value::Object(&ENVELOPE_MEMBER),
            },
            "Instead of `carries`: a nested object of more members.",
        ),
        key(
            "list",
            Value::Boolean,
            "At the top of `envelope`, with `members`: the member is a non-empty list of errors (GraphQL's `errors`), each entry laid out by its `members`; the members beside it are the response's.",
        ),
        key(
            "type",
            Value::TypeSpelling,
            "Beside a `list: true` member, instead of `carries`: a member of the response holding any value of this type (GraphQL's `data`: `json`).",
        ),
        key(
            "optional",
            Value::Boolean,
            "The member may be absent (default: always present).",
        ),
        key(
            "absent_means",
            Value::Either(&[
                Value::Name(Kind::Code),
                Value::Map {
                    keys: MapKeys::Refers(Kind::Category),
                    value: &Value::Name(Kind::Code),
                },
            ]),
            "With `carries: code_name`: the code of an envelope without the member, or per category key the code of an envelope of that category without it (the envelope carries `category`).",
        ),
        key(
            "pattern",
            Value::Line,
            "On a member carrying a string (`code_name`, `category`, `message`, a string constant): an ECMA-262 regular expression it must match.",
        ),
        key(
            "format",
            Value::Enum(FORMATS),
            "On a member carrying a string: its format.",
        ),
        key(
            "doc",
            Value::Line,
            "The member's description in the schema.",
        ),
    ],
};

static RANGE: Value = Value::List(&Value::Integer);

/// One entry of `categories:`.
pub static CATEGORY: Object = Object {
    name: "category",
    doc: "A category: a numeric range and the defaults its codes inherit.",
    keys: &[
        key(
            "range",
            Value::Either(&[Value::List(&Value::Integer), Value::List(&RANGE)]),
            "Inclusive numeric range `[low, high]`, or several: `[[1000, 1099], [1500, 1599]]`.",
        ),
        required(
            "description",
            Value::Line,
            "One line: what the category's errors have in common.",
        ),
        required(
            "retryable",
            Value::Boolean,
            "Default `retryable` of its codes.",
        ),
        required(
            "cause",
            Value::Enum(CAUSES),
            "Default blame of its codes: input, environment or server.",
        ),
        key(
            "retry_classes",
            Value::List(&Value::Name(Kind::RetryClass)),
            "Default retry classes of its codes.",
        ),
        key(
            "message",
            Value::Template,
            "Default message template of its codes that write none.",
        ),
        key(
            "params",
            Value::Map {
                keys: MapKeys::Declares(Kind::Param, Case::LowerSnake),
                value: &Value::Object(&PARAM),
            },
            "Default message parameters of its codes that write no `params`.",
        ),
        key(
            "recovery_hints",
            Value::List(&Value::Either(&[Value::Template, Value::Object(&HINT)])),
            "Default recovery hints of its codes that write none.",
        ),
        key(
            "context",
            Value::Object(&CONTEXT),
            "Default context fields of its codes that write no `context`.",
        ),
    ],
};

/// One entry of `types:`.
pub static TYPE: Object = Object {
    name: "type",
    doc: "A support type: an object (`members`), an enum of strings (`enum`), a tagged union (`union`) or a union of types told apart by their JSON type (`one_of`).",
    keys: &[
        required("doc", Value::Line, "One line: what the type holds."),
        key(
            "members",
            Value::Map {
                keys: MapKeys::Declares(Kind::Member, Case::LowerSnake),
                value: &Value::Object(&MEMBER),
            },
            "An object: its members, required unless `optional: true`.",
        ),
        key(
            "enum",
            Value::List(&Value::Either(&[Value::Line, Value::Object(&ENUM_VALUE)])),
            "An enum of strings (`{ name, wire }` for another spelling on the wire).",
        ),
        key(
            "union",
            Value::Object(&UNION),
            "A tagged union of object types, told apart by a discriminator member.",
        ),
        key(
            "one_of",
            Value::List(&Value::Line),
            "A union of types (and `null`), each of another JSON type: scalars, a list, an object.",
        ),
        key(
            "open",
            Value::Boolean,
            "An object that may hold members it does not list; readers keep them as they are.",
        ),
    ],
};

/// An enum value written as a mapping.
pub static ENUM_VALUE: Object = Object {
    name: "enum value",
    doc: "An enum value with another spelling on the wire.",
    keys: &[
        required(
            "name",
            Value::Line,
            "The value's name in the spec and in code.",
        ),
        required("wire", Value::Line, "The value on the wire."),
    ],
};

/// `union:` of a type.
pub static UNION: Object = Object {
    name: "union",
    doc: "A tagged union of object types.",
    keys: &[
        required(
            "discriminator",
            Value::Line,
            "The member whose value tells the variants apart (`@type`).",
        ),
        required(
            "variants",
            Value::Map {
                keys: MapKeys::Refers(Kind::Type),
                value: &Value::Line,
            },
            "Each variant's object type and its tag.",
        ),
    ],
};

/// One member of an object type.
pub static MEMBER: Object = Object {
    name: "member",
    doc: "One member of an object type.",
    keys: &[
        required("type", Value::TypeSpelling, "Its type."),
        key(
            "optional",
            Value::Boolean,
            "The member may be absent (default: required).",
        ),
        required("doc", Value::Line, "One line: what it holds."),
        key(
            "wire",
            Value::Line,
            "Its name in JSON when it differs from its name (`@type`, `retryDelay`).",
        ),
        key("nullable", Value::Boolean, "The member may be JSON `null`."),
        key(
            "pattern",
            Value::Line,
            "An ECMA-262 regular expression a string must match.",
        ),
        key(
            "format",
            Value::Enum(FORMATS),
            "A JSON Schema format of a string.",
        ),
    ],
};

/// One entry of `fields:`.
pub static FIELD: Object = Object {
    name: "field",
    doc: "A context field codes may carry.",
    keys: &[
        required("type", Value::TypeSpelling, "Its type."),
        required(
            "in",
            Value::Enum(PLACEMENTS),
            "Where it lives in the envelope.",
        ),
        required("doc", Value::Line, "One line: what it holds."),
        key(
            "example",
            Value::Any,
            "A value of `type`, for the docs' example envelopes.",
        ),
        key(
            "wire",
            Value::Line,
            "Its name in JSON when it differs from its name.",
        ),
        key("nullable", Value::Boolean, "The field may be JSON `null`."),
        key(
            "pattern",
            Value::Line,
            "An ECMA-262 regular expression a string must match.",
        ),
        key(
            "format",
            Value::Enum(FORMATS),
            "A JSON Schema format of a string.",
        ),
    ],
};

/// One entry of `codes:`.
pub static CODE: Object = Object {
    name: "code",
    doc: "An error code.",
    keys: &[
        key(
            "number",
            Value::Integer,
            "Unique forever, inside its category's range; required when the taxonomy is numbered, refused when it is not.",
        ),
        required("category", Value::Name(Kind::Category), "Its category."),
        key(
            "retryable",
            Value::Boolean,
            "Overrides the category's `retryable`.",
        ),
        key(
            "cause",
            Value::Enum(CAUSES),
            "Overrides the category's `cause`.",
        ),
        required(
            "since",
            Value::Semver,
            "The taxonomy version that introduced the code.",
        ),
        required(
            "title",
            Value::Line,
            "One line, lowercase start, no final period.",
        ),
        key(
            "message",
            Value::Template,
            "The message template; `{name}` is a parameter or a required scalar context field. Required unless its category gives one.",
        ),
        key(
            "params",
            Value::Map {
                keys: MapKeys::Declares(Kind::Param, Case::LowerSnake),
                value: &Value::Object(&PARAM),
            },
            "Typed template parameters, in constructor order.",
        ),
        key(
            "recovery_hints",
            Value::List(&Value::Either(&[Value::Template, Value::Object(&HINT)])),
            "General guidance (templates); `{ text, when }` for a hint sent under a condition.",
        ),
        key(
            "context",
            Value::Object(&CONTEXT),
            "The declared context fields the code carries.",
        ),
        key(
            "deprecated",
            Value::Object(&DEPRECATED),
            "Still emitted; clients should move to `replaced_by`.",
        ),
        key(
            "removed",
            Value::Object(&REMOVED),
            "Never emitted again; the number stays reserved.",
        ),
        key(
            "sent_as",
            Value::Enum(SENT_AS),
            "How the code reaches clients: as an envelope (default) or only as a violation kind.",
        ),
        required(
            "explanation",
            Value::Markdown,
            "Markdown, rustc error-index style: what happened, an example, how to fix.",
        ),
        key(
            "example",
            Value::Map {
                keys: MapKeys::Refers(Kind::Field),
                value: &Value::Any,
            },
            "Example values of its parameters and context fields for the docs.",
        ),
        key(
            "wire",
            Value::Line,
            "Its name on the wire when it differs from its identifier.",
        ),
        key(
            "aliases",
            Value::List(&Value::Line),
            "More names on the wire that mean this code (accepted, never sent).",
        ),
        key(
            "constants",
            Value::Map {
                keys: MapKeys::Refers(Kind::Field),
                value: &Value::Scalar,
            },
            "The fixed value of a declared field in every envelope of this code.",
        ),
        key(
            "retry_classes",
            Value::List(&Value::Name(Kind::RetryClass)),
            "The retry classes it belongs to (default: its category's).",
        ),
        key(
            "attributes",
            Value::Map {
                keys: MapKeys::Refers(Kind::Attribute),
                value: &Value::Scalar,
            },
            "Its values of the declared attributes.",
        ),
    ],
};

/// One entry of a code's `params:`.
pub static PARAM: Object = Object {
    name: "parameter",
    doc: "A typed message parameter.",
    keys: &[
        required("type", Value::Enum(PARAM_TYPES), "`string` or `integer`."),
        required("description", Value::Line, "What it holds."),
    ],
};

/// A recovery hint with a condition.
pub static HINT: Object = Object {
    name: "recovery hint",
    doc: "A hint sent only when an enum context field has one of some values.",
    keys: &[
        required("text", Value::Template, "The hint."),
        required(
            "when",
            Value::Map {
                keys: MapKeys::Refers(Kind::Field),
                value: &Value::Either(&[Value::Line, Value::List(&Value::Line)]),
            },
            "`{ field: value }` or `{ field: [value, ...] }`.",
        ),
    ],
};

/// A code's `context:`.
pub static CONTEXT: Object = Object {
    name: "context",
    doc: "The declared context fields a code carries.",
    keys: &[
        key(
            "required",
            Value::List(&Value::Name(Kind::Field)),
            "Fields every envelope of the code carries (constructor arguments).",
        ),
        key(
            "optional",
            Value::List(&Value::Name(Kind::Field)),
            "Fields an envelope of the code may carry (builder setters).",
        ),
    ],
};

/// A code's `deprecated:`.
pub static DEPRECATED: Object = Object {
    name: "deprecated",
    doc: "The code is still emitted; clients should move on.",
    keys: &[
        required(
            "since",
            Value::Semver,
            "The taxonomy version that deprecated it.",
        ),
        key(
            "replaced_by",
            Value::Name(Kind::Code),
            "An active code that replaces it.",
        ),
        key("note", Value::Line, "A note for the docs."),
    ],
};

/// A code's `removed:`.
pub static REMOVED: Object = Object {
    name: "removed",
    doc: "The code is never emitted again; its number stays reserved.",
    keys: &[
        required(
            "since",
            Value::Semver,
            "The taxonomy version that removed it.",
        ),
        required("reason", Value::Line, "Why."),
    ],
};

/// `retry:`.
pub static RETRY: Object = Object {
    name: "retry",
    doc: "What `retryable` means, and the named retry classes.",
    keys: &[
        key(
            "meaning",
            Value::Line,
            "One line: what `retryable: true` promises.",
        ),
        key(
            "classes",
            Value::Map {
                keys: MapKeys::Declares(Kind::RetryClass, Case::LowerSnake),
                value: &Value::Line,
            },
            "Retry classes, each with one line on how a client retries it.",
        ),
    ],
};

/// One entry of `attributes:`.
pub static ATTRIBUTE: Object = Object {
    name: "attribute",
    doc: "A typed per-code attribute.",
    keys: &[
        required(
            "type",
            Value::Enum(ATTRIBUTE_TYPES),
            "`string`, `integer` or `boolean`.",
        ),
        required("doc", Value::Line, "One line: what it holds."),
        key(
            "format",
            Value::Enum(FORMATS),
            "A JSON Schema format of a string attribute.",
        ),
        key(
            "required",
            Value::Boolean,
            "Every emitted code must give it.",
        ),
    ],
};

/// One step from a value into what it contains, by the key or item it is
/// reached through.
pub enum Step<'a> {
    /// The value of this key of a mapping.
    Key(&'a str),
    /// An item of a list.
    Item,
}

impl Value {
    /// The value reached from this one through `step`, if the grammar has
    /// one there. An [`Value::Either`] goes into the first alternative that
    /// has it.
    pub fn step(&'static self, step: &Step<'_>) -> Option<&'static Value> {
        match (self, step) {
            (Value::Object(o), Step::Key(k)) => o.key(k).map(|k| &k.value),
            (Value::Map { value, .. }, Step::Key(_)) => Some(value),
            (Value::List(item), Step::Item) => Some(item),
            (Value::Either(alts), _) => alts.iter().find_map(|a| a.step(step)),
            _ => None,
        }
    }

    /// The object this value is, or may be (the first of an
    /// [`Value::Either`]).
    pub fn object(&'static self) -> Option<&'static Object> {
        match self {
            Value::Object(o) => Some(o),
            Value::Either(alts) => alts.iter().find_map(Value::object),
            _ => None,
        }
    }
}

/// The root of the grammar, as a value.
pub static ROOT: Value = Value::Object(&SPEC);

/// The value at `path` from the root (keys and items), if the grammar has
/// one there.
pub fn at(path: &[Step<'_>]) -> Option<&'static Value> {
    path.iter().try_fold(&ROOT, |v, s| v.step(s))
}

/// The JSON Schema (2020-12) of the format: one definition per object,
/// closed (`additionalProperties: false`), so a misspelled key is an error
/// in any editor that reads it. It has no `$id`: editors find it by path
/// (the modeline), and its `$ref`s resolve inside the document. Names and references are strings; whether
/// they resolve is for `check` and the language server.
pub fn json_schema() -> Json {
    let mut defs = serde_json::Map::new();
    let root = object_schema(&SPEC, &mut defs);
    let mut schema = serde_json::Map::new();
    schema.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    schema.insert("title".into(), json!("splice errors.yaml"));
    if let Json::Object(root) = root {
        for (k, v) in root {
            schema.insert(k, v);
        }
    }
    schema.insert("$defs".into(), Json::Object(defs));
    Json::Object(schema)
}

/// [`json_schema`] as the committed file holds it.
pub fn json_schema_string() -> String {
    let mut text = serde_json::to_string_pretty(&json_schema()).expect("JSON values serialize");
    text.push('\n');
    text
}

fn def_name(o: &Object) -> String {
    crate::case::Case::UpperCamel.convert(&o.name.replace(' ', "_"))
}

fn object_schema(o: &'static Object, defs: &mut serde_json::Map<String, Json>) -> Json {
    let mut properties = serde_json::Map::new();
    for k in o.keys {
        let mut v = value_schema(&k.value, defs);
        if let Json::Object(m) = &mut v {
            m.insert("description".into(), json!(k.doc));
        } else {
            v = json!({ "description": k.doc });
        }
        properties.insert(k.name.into(), v);
    }
    let mut out = serde_json::Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("description".into(), json!(o.doc));
    out.insert("properties".into(), Json::Object(properties));
    let required = o.required();
    if !required.is_empty() {
        out.insert("required".into(), json!(required));
    }
    out.insert("additionalProperties".into(), json!(false));
    Json::Object(out)
}

fn value_schema(v: &'static Value, defs: &mut serde_json::Map<String, Json>) -> Json {
    match v {
        Value::Line | Value::Markdown | Value::Template | Value::TypeSpelling => {
            json!({ "type": "string" })
        }
        Value::Name(_) => json!({ "type": "string", "minLength": 1 }),
        Value::Integer => json!({ "type": "integer" }),
        Value::Boolean => json!({ "type": "boolean" }),
        Value::Semver => json!({
            "type": "string",
            "pattern": r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$"
        }),
        Value::Enum(choices) => json!({
            "enum": choices.iter().map(|c| c.name).collect::<Vec<_>>(),
            "markdownEnumDescriptions": choices.iter().map(|c| c.doc).collect::<Vec<_>>(),
        }),
        Value::Scalar => json!({ "type": ["string", "integer", "number", "boolean", "null"] }),
        Value::Any => json!({}),
        Value::List(item) => json!({ "type": "array", "items": value_schema(item, defs) }),
        Value::Object(o) => {
            let name = def_name(o);
            if !defs.contains_key(&name) {
                // Reserve the name first: objects may contain themselves.
                defs.insert(name.clone(), Json::Null);
                let schema = object_schema(o, defs);
                defs.insert(name.clone(), schema);
            }
            json!({ "$ref": format!("#/$defs/{name}") })
        }
        Value::Map { keys, value } => {
            let names = match keys {
                MapKeys::Declares(_, case) => json!({ "pattern": case_pattern(*case) }),
                MapKeys::Integers => json!({ "pattern": "^-?[0-9]+$" }),
                MapKeys::Refers(_) | MapKeys::Any => json!({ "minLength": 1 }),
            };
            json!({
                "type": "object",
                "propertyNames": names,
                "additionalProperties": value_schema(value, defs),
            })
        }
        Value::Either(alts) => json!({
            "anyOf": alts.iter().map(|a| value_schema(a, defs)).collect::<Vec<_>>(),
        }),
    }
}

/// The pattern a name in `case` matches (what `check` requires).
fn case_pattern(case: Case) -> &'static str {
    match case {
        Case::LowerSnake => "^[a-z][a-z0-9]*(_[a-z0-9]+)*$",
        Case::ScreamingSnake => "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$",
        Case::UpperCamel => "^[A-Z][A-Za-z0-9]*$",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_reach_nested_objects() {
        let v = at(&[Step::Key("codes"), Step::Key("X"), Step::Key("context")]).unwrap();
        assert_eq!(v.object().unwrap().name, "context");
        let hint = at(&[
            Step::Key("codes"),
            Step::Key("X"),
            Step::Key("recovery_hints"),
            Step::Item,
        ])
        .unwrap();
        assert_eq!(hint.object().unwrap().name, "recovery hint");
        let nested = at(&[
            Step::Key("envelope"),
            Step::Key("error"),
            Step::Key("members"),
            Step::Key("code"),
        ])
        .unwrap();
        assert_eq!(nested.object().unwrap().name, "envelope member");
    }

    #[test]
    fn enumerations_agree_with_the_model() {
        let eq = |choices: &'static [Choice], model: Vec<&str>| {
            assert_eq!(names(choices).collect::<Vec<_>>(), model);
        };
        eq(
            CAUSES,
            crate::spec::Cause::ALL.iter().map(|c| c.as_str()).collect(),
        );
        eq(
            SENT_AS,
            crate::spec::SentAs::ALL
                .iter()
                .map(|c| c.as_str())
                .collect(),
        );
        eq(CARRIES, crate::envelope::CARRIES.to_vec());
        eq(
            UNRAISED,
            crate::spec::Unraised::ALL
                .iter()
                .map(|c| c.as_str())
                .collect(),
        );
        eq(FORMATS, crate::context::FORMATS.to_vec());
        eq(BUILTIN_TYPES, crate::context::BUILTIN_TYPES.to_vec());
    }

    #[test]
    fn the_schema_names_every_object_once() {
        let schema = json_schema();
        let defs = schema["$defs"].as_object().unwrap();
        for name in [
            "Code",
            "Category",
            "Type",
            "Field",
            "EnvelopeMember",
            "RecoveryHint",
            "Operation",
            "CodeGroup",
        ] {
            assert_eq!(defs[name]["type"], "object", "{name}");
            assert_eq!(defs[name]["additionalProperties"], false, "{name}");
        }
        assert_eq!(
            schema["required"],
            json!(["taxonomy", "categories", "codes"])
        );
    }
}
