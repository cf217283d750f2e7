//! The checked model of `errors.yaml`.
//!
//! Everything downstream (the Rust, JSON Schema, Markdown and TypeScript
//! emitters, the compatibility diff, the proc macro) is a pure function of a
//! [`Spec`]. A `Spec` only exists after lowering (`crate::lower`) *and*
//! checking (`crate::validate`) succeeded, driven by [`crate::load`], so emitters may assume every invariant listed on these
//! types without re-checking it.
//!
//! Every node keeps the [`Loc`](crate::span::Loc) it came from so that later stages (the diff,
//! the macro) can still point at the spec.

// Re-exported: they were defined here before `span` existed.
pub use crate::span::{Loc, Spanned};

/// The whole taxonomy, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// `taxonomy:` metadata.
    pub taxonomy: Taxonomy,
    /// The wire shape of an envelope (`envelope:`, or splice's own).
    pub envelope: crate::envelope::Envelope,
    /// Categories in file order; their ranges do not overlap.
    pub categories: Vec<Category>,
    /// Codes in file order, including deprecated and removed ones.
    pub codes: Vec<Code>,
    /// Declared context fields (`fields:`), in canonical order: the order of
    /// constructor arguments and of schema properties.
    pub fields: Vec<crate::context::FieldDef>,
    /// Declared support types (`types:`), in file order.
    pub types: Vec<crate::context::TypeDef>,
    /// Numbers no code may take (`reserved:`), in file order, each with
    /// why: a non-error member of the taxonomy (gRPC's `OK = 0`), or a
    /// number that was never released. Distinct, and used by no code.
    pub reserved: Vec<Reserved>,
    /// What `retryable` means in this taxonomy, and its named retry classes
    /// (`retry:`).
    pub retry: Retry,
    /// Per-code typed attributes (`attributes:`), in file order.
    pub attributes: Vec<AttributeDef>,
    /// Named groups of codes shared by operations (`code_groups:`), in
    /// file order.
    pub groups: Vec<CodeGroup>,
    /// The operations and the codes each may raise (`operations:`), in
    /// file order; empty when the spec declares none.
    pub operations: Vec<Operation>,
    /// Families of codes this release does not list (`families:`), in file
    /// order, which is their precedence.
    pub families: Vec<Family>,
}

/// A family of codes (`families:`): the codes whose wire name starts or
/// ends with a fixed text (botocore's `*NotFound`, `Throttling*`). A code
/// this release does not list, but whose name the family's rule matches,
/// gets the family's category, and with it its `retryable` and `cause`.
///
/// Precedence is that of `match` arms: a name some code of the spec has
/// (its wire name or an alias) is that code's, never a family's; among the
/// families, the first in file order whose rule matches wins. `check`
/// refuses a family that an earlier one shadows whole, and a code whose
/// name its first matching family would claim for another category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// lower_snake name, e.g. `not_found`; the generated names derive from
    /// it (`ErrorFamily::NotFound`).
    pub name: Spanned<String>,
    /// Which wire names it holds.
    pub rule: Spanned<FamilyRule>,
    /// The key of its codes' category.
    pub category: Spanned<String>,
    /// One line: what its codes have in common.
    pub doc: Spanned<String>,
}

/// The rule of a [`Family`]: a fixed, non-empty text the wire name starts
/// or ends with. No regular expressions: a Rust reader would need a regex
/// engine in its users' builds, and whether two of them overlap cannot be
/// decided in general, while prefixes and suffixes compare exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FamilyRule {
    /// `prefix:`: the wire name starts with it (`Throttling`).
    Prefix(String),
    /// `suffix:`: the wire name ends with it (`NotFound`).
    Suffix(String),
    /// `range: [low, high]`: the code's number lies in it, inclusive (an
    /// HTTP-like `4xx`); only where codes are told apart by number.
    Range(i64, i64),
}

impl FamilyRule {
    /// True when `wire` (a code's name on the wire) is of the rule; never
    /// for a range.
    pub fn matches(&self, wire: &str) -> bool {
        match self {
            FamilyRule::Prefix(p) => wire.starts_with(p.as_str()),
            FamilyRule::Suffix(s) => wire.ends_with(s.as_str()),
            FamilyRule::Range(..) => false,
        }
    }

    /// True when the code number `n` is of the rule (a range's).
    pub fn matches_number(&self, n: i64) -> bool {
        match self {
            FamilyRule::Range(lo, hi) => (*lo..=*hi).contains(&n),
            _ => false,
        }
    }

    /// True when the rule reads the code's number, not its name.
    pub fn by_number(&self) -> bool {
        matches!(self, FamilyRule::Range(..))
    }

    /// True when every name `later` matches, this rule matches too: the
    /// later family can never be reached behind this one.
    pub fn covers(&self, later: &FamilyRule) -> bool {
        match (self, later) {
            (FamilyRule::Prefix(a), FamilyRule::Prefix(b)) => b.starts_with(a.as_str()),
            (FamilyRule::Suffix(a), FamilyRule::Suffix(b)) => b.ends_with(a.as_str()),
            (FamilyRule::Range(lo, hi), FamilyRule::Range(l, h)) => lo <= l && h <= hi,
            _ => false,
        }
    }

    /// True when some code (by name or by number) may match both rules.
    pub fn may_overlap(&self, other: &FamilyRule) -> bool {
        match (self, other) {
            (FamilyRule::Range(lo, hi), FamilyRule::Range(l, h)) => lo <= h && l <= hi,
            (FamilyRule::Range(..), _) | (_, FamilyRule::Range(..)) => false,
            _ => self.covers(other) || other.covers(self) || self.key() != other.key(),
        }
    }

    /// The key that writes the rule in `errors.yaml`.
    pub fn key(&self) -> &'static str {
        match self {
            FamilyRule::Prefix(_) => "prefix",
            FamilyRule::Suffix(_) => "suffix",
            FamilyRule::Range(..) => "range",
        }
    }

    /// The text the rule compares with (empty for a range).
    pub fn text(&self) -> &str {
        match self {
            FamilyRule::Prefix(t) | FamilyRule::Suffix(t) => t,
            FamilyRule::Range(..) => "",
        }
    }

    /// `Throttling*` / `*NotFound` / `400..=499`: the rule for docs and
    /// messages.
    pub fn glob(&self) -> String {
        match self {
            FamilyRule::Prefix(p) => format!("{p}*"),
            FamilyRule::Suffix(s) => format!("*{s}"),
            FamilyRule::Range(lo, hi) => format!("{lo}..={hi}"),
        }
    }
}

impl Family {
    /// `not_found` -> `NotFound`: the Rust variant of `ErrorFamily`.
    pub fn type_name(&self) -> String {
        crate::case::Case::UpperCamel.convert(&self.name.value)
    }

    /// The name of its variant in the envelope schema:
    /// `NotFoundFamilyEnvelope`.
    pub fn envelope_type_name(&self) -> String {
        self.type_name() + "FamilyEnvelope"
    }
}

/// A named list of codes that several operations raise (`code_groups:`):
/// argument decoding, the file system. Written once, listed by name in
/// each operation's `groups:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeGroup {
    /// lower_snake name, e.g. `reading`.
    pub name: Spanned<String>,
    /// One line: what the codes have in common.
    pub doc: Spanned<String>,
    /// Its codes, as listed (emitted codes, each once).
    pub codes: Vec<Spanned<String>>,
}

/// One operation (an MCP tool, an API call) and the codes it may raise
/// (`operations:`): Smithy's `errors: [...]` on an operation, botocore's
/// `errors` of an operation of a service model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// lower_snake name, e.g. `multi_edit`; the generated names derive
    /// from it (`MultiEditError`, `isMultiEditError`).
    pub name: Spanned<String>,
    /// `wire:`, the operation's name on the wire when it differs from its
    /// identifier (`PutItem`).
    pub wire: Option<Spanned<String>>,
    /// One line: what the operation does.
    pub doc: Spanned<String>,
    /// The groups it raises every code of, as listed.
    pub groups: Vec<Spanned<String>>,
    /// The codes it raises besides its groups', as listed.
    pub codes: Vec<Spanned<String>>,
    /// Where a code is added to the operation: its `codes:` key when
    /// written, else the operation's name.
    pub codes_at: Loc,
}

impl Operation {
    /// The operation's name on the wire: `wire:` if written, else its name.
    pub fn wire(&self) -> &str {
        self.wire.as_ref().map_or(&self.name.value, |w| &w.value)
    }

    /// `multi_edit` -> `MultiEdit`: the base of every generated name.
    pub fn type_name(&self) -> String {
        crate::case::Case::UpperCamel.convert(&self.name.value)
    }

    /// The name of its union of envelopes in the schema, TypeScript and
    /// Python, and of its Rust error type: `MultiEditError`.
    pub fn error_type_name(&self) -> String {
        self.type_name() + "Error"
    }
}

/// What `check` makes of an emitted code that no operation raises
/// (`taxonomy.unraised_codes`), when the spec declares operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unraised {
    /// A warning: the spec still loads (the default).
    #[default]
    Warning,
    /// An error: the spec does not load.
    Error,
}

impl Unraised {
    /// Every value, in the order the docs list them.
    pub const ALL: &'static [Unraised] = &[Unraised::Warning, Unraised::Error];

    /// The spelling in `errors.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Unraised::Warning => "warning",
            Unraised::Error => "error",
        }
    }
}

/// Whether every emitted code needs recovery hints (`taxonomy.hints`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HintsRule {
    /// Every emitted code has at least one general hint (the default, and
    /// splice's own rule: an agent always gets guidance).
    #[default]
    Required,
    /// A code may have none: a format whose errors carry no hints
    /// (Kubernetes' `Status`, OAuth's token errors).
    Optional,
}

impl HintsRule {
    /// Every value, in the order the docs list them.
    pub const ALL: &'static [HintsRule] = &[HintsRule::Required, HintsRule::Optional];

    /// The spelling in `errors.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            HintsRule::Required => "required",
            HintsRule::Optional => "optional",
        }
    }
}

/// Where a code's wire name (and each alias) is unique
/// (`taxonomy.code_names`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CodeNames {
    /// Across the whole taxonomy (the default, and splice's own rule): the
    /// name alone tells a code.
    #[default]
    Unique,
    /// Within the code's category: a code is told by the pair (category,
    /// name), as Stripe's `type` + `code`.
    PerCategory,
}

impl CodeNames {
    /// Every value, in the order the docs list them.
    pub const ALL: &'static [CodeNames] = &[CodeNames::Unique, CodeNames::PerCategory];

    /// The spelling in `errors.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            CodeNames::Unique => "unique",
            CodeNames::PerCategory => "per_category",
        }
    }
}

/// splice's meaning of `retryable: true`, the default when a spec does not
/// declare `retry.meaning`.
pub const DEFAULT_RETRY_MEANING: &str = "the caller can fix its call and retry";

/// The `retry:` section: what `retryable` means, and the named classes of
/// retry a code may belong to (Smithy's `@retryable(throttling)`, botocore's
/// throttling and transient errors).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Retry {
    /// One line: what `retryable: true` promises (`None`:
    /// [`DEFAULT_RETRY_MEANING`]).
    pub meaning: Option<Spanned<String>>,
    /// Declared retry classes, in file order.
    pub classes: Vec<RetryClass>,
}

/// One declared retry class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryClass {
    /// lower_snake name, e.g. `throttling`.
    pub name: Spanned<String>,
    /// One line: how a client retries a code of this class.
    pub doc: Spanned<String>,
}

/// The type of a per-code attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttributeType {
    /// Text (`&'static str` in Rust).
    String,
    /// A signed integer (`i64` in Rust).
    Integer,
    /// `true`/`false`.
    Boolean,
}

impl AttributeType {
    /// The spelling in `errors.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            AttributeType::String => "string",
            AttributeType::Integer => "integer",
            AttributeType::Boolean => "boolean",
        }
    }
}

/// One declared per-code attribute (`attributes:`): a typed value a code
/// has in every artifact (the docs, the Rust `ErrorCode::attributes()`, the
/// client tables), not a member of the envelope on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttributeDef {
    /// lower_snake name, e.g. `http_status`.
    pub name: Spanned<String>,
    /// Its type.
    pub ty: Spanned<AttributeType>,
    /// `uri` for a string that must be an absolute URI.
    pub format: Option<Spanned<String>>,
    /// One line: what it holds.
    pub doc: Spanned<String>,
    /// Every emitted code must give it (`required: true`).
    pub required: bool,
}

/// One entry of `reserved:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reserved {
    /// The number.
    pub number: Spanned<i64>,
    /// Why no code may take it, one line.
    pub reason: Spanned<String>,
}

/// `taxonomy:` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taxonomy {
    /// Human name, e.g. `splice`.
    pub name: Spanned<String>,
    /// Semver version of the taxonomy (the error contract), not of the crate.
    pub version: Spanned<semver::Version>,
    /// Base URI; the envelope schema `$id` is
    /// `{base_uri}/error-envelope/v{major}`.
    pub base_uri: Spanned<String>,
    /// Optional one-paragraph description (Markdown).
    pub description: Option<Spanned<String>>,
    /// `numbered:`: whether every code has a number (the default), or
    /// codes are told apart by name only (`numbered: false`, Kubernetes'
    /// reasons, OAuth's `error`). See [`Taxonomy::numbered`].
    pub numbered: Option<Spanned<bool>>,
    /// When given, every category range lies inside one block of this many
    /// numbers (splice's SPEC-003: 1000, validation 1xxx, domain 2xxx, ...).
    pub range_block: Option<Spanned<i64>>,
    /// `unraised_codes:`: whether an emitted code no operation raises is a
    /// warning (the default) or an error.
    pub unraised_codes: Option<Spanned<Unraised>>,
    /// `hints:`: whether every emitted code needs recovery hints. See
    /// [`Taxonomy::hints`].
    pub hints: Option<Spanned<HintsRule>>,
    /// `code_names:`: whether a code's wire name is unique across the
    /// taxonomy or only within its category. See [`Taxonomy::code_names`].
    pub code_names: Option<Spanned<CodeNames>>,
}

impl Taxonomy {
    /// Where a code's wire names are unique: across the taxonomy (the
    /// default) or within its category.
    pub fn code_names(&self) -> CodeNames {
        self.code_names
            .as_ref()
            .map_or(CodeNames::Unique, |c| c.value)
    }

    /// True when codes are told apart by (category, name).
    pub fn per_category(&self) -> bool {
        self.code_names() == CodeNames::PerCategory
    }

    /// Whether every emitted code has recovery hints (the default) or may
    /// have none.
    pub fn hints(&self) -> HintsRule {
        self.hints.as_ref().map_or(HintsRule::Required, |h| h.value)
    }

    /// Every code has a unique number (the default). When not, no code,
    /// category range, reservation or envelope member has one.
    pub fn numbered(&self) -> bool {
        self.numbered.as_ref().is_none_or(|n| n.value)
    }

    /// The `$id` of the published envelope schema (also its MCP resource URI).
    pub fn schema_id(&self) -> String {
        format!(
            "{}/error-envelope/v{}",
            self.base_uri.value.trim_end_matches('/'),
            self.version.value.major
        )
    }
}

/// Who is to blame for a failure. Independent of `retryable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    /// The caller's arguments (the agent can fix its call).
    Input,
    /// The environment: file system state, permissions, disk, other processes.
    Environment,
    /// splice itself (a bug or an unimplemented feature).
    Server,
}

impl Cause {
    /// Every cause, in declaration order.
    pub const ALL: [Cause; 3] = [Cause::Input, Cause::Environment, Cause::Server];

    /// The spelling used in `errors.yaml`, the envelope and the schema.
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Input => "input",
            Cause::Environment => "environment",
            Cause::Server => "server",
        }
    }
}

/// A category: a numeric range and the defaults its codes inherit.
///
/// `retryable`, `cause` and `retry_classes` are kept here because every
/// artifact names them per category too. The text defaults (`message`,
/// `params`, `recovery_hints`, `context`) are not: they are resolved into
/// each [`Code`] that does not write its own when the spec is lowered, so
/// every consumer sees a code's effective values only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    /// lower_snake key, e.g. `validation`.
    pub key: Spanned<String>,
    /// Inclusive numeric ranges, e.g. 1000..=1999, that hold every code of
    /// the category and no other (one, or several: gRPC's caller and server
    /// codes interleave); empty when the spec gives none (the category's
    /// codes then take numbers outside every range).
    pub ranges: Vec<Spanned<(i64, i64)>>,
    /// One-line description.
    pub description: Spanned<String>,
    /// Default `retryable` for codes of this category.
    pub retryable: Spanned<bool>,
    /// Default `cause` for codes of this category.
    pub cause: Spanned<Cause>,
    /// Default retry classes of its codes (`retry_classes:`).
    pub retry_classes: Vec<Spanned<String>>,
}

/// Lifecycle state of a code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lifecycle {
    /// Emitted and supported.
    Active,
    /// Still emitted for compatibility; new code should use `replaced_by`.
    Deprecated {
        /// Taxonomy version that deprecated it.
        since: Spanned<semver::Version>,
        /// An active code that replaces it.
        replaced_by: Spanned<String>,
        /// Optional note.
        note: Option<Spanned<String>>,
    },
    /// Never emitted again; its number is reserved forever.
    Removed {
        /// Taxonomy version that removed it.
        since: Spanned<semver::Version>,
        /// Why.
        reason: Spanned<String>,
    },
}

/// The type of a message-template parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// Any text.
    String,
    /// A non-negative integer (`u64` in Rust).
    Integer,
}

/// A declared message parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// lower_snake name, used as `{name}` in templates and as the Rust
    /// constructor argument name.
    pub name: Spanned<String>,
    /// Its type.
    pub ty: Spanned<ParamType>,
    /// What it holds.
    pub description: Spanned<String>,
}

/// When a recovery hint applies: the envelope carries the context field
/// `field` (an enum field the code carries) with one of `values`. An
/// envelope without the field gets only the general hints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintCondition {
    /// The declared field the condition reads.
    pub field: Spanned<String>,
    /// The enum values for which the hint applies.
    pub values: Vec<Spanned<String>>,
}

impl HintCondition {
    /// `roots_source is server` / `roots_source is client or client_empty`,
    /// for docs and diff messages.
    pub fn describe(&self) -> String {
        let values: Vec<String> = self
            .values
            .iter()
            .map(|v| format!("`{}`", v.value))
            .collect();
        let values = match values.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => values.join(""),
        };
        format!("`{}` is {values}", self.field.value)
    }
}

impl Code {
    /// The hints with their conditions, in spec order.
    pub fn hints(&self) -> impl Iterator<Item = (&Spanned<String>, Option<&HintCondition>)> {
        self.recovery_hints
            .iter()
            .enumerate()
            .map(|(i, h)| (h, self.hint_conditions.get(i).and_then(Option::as_ref)))
    }
}

/// How a server following the spec delivers a code to its clients
/// (`sent_as:` of a code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SentAs {
    /// As an envelope's own `error_code` (the default). The code may also
    /// appear as a violation kind.
    #[default]
    Envelope,
    /// Only as a violation kind: `violations[].code` of the envelope that
    /// lists the problems of a call's arguments, never as an envelope's own
    /// `error_code`. It is a value of `ErrorCode`, not a variant of the
    /// published schema or the client types: a client would otherwise wait
    /// for an envelope that never comes.
    Violation,
}

impl SentAs {
    /// Every value, in the order the docs list them.
    pub const ALL: &'static [SentAs] = &[SentAs::Envelope, SentAs::Violation];

    /// The spelling in `errors.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            SentAs::Envelope => "envelope",
            SentAs::Violation => "violation",
        }
    }
}

/// One error code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    /// SCREAMING_SNAKE name, e.g. `MATCH_NOT_FOUND`.
    pub name: Spanned<String>,
    /// Numeric id, unique, inside its category's range; `None` exactly
    /// when the taxonomy is not [numbered](Taxonomy::numbered).
    pub number: Option<Spanned<i64>>,
    /// Category key.
    pub category: Spanned<String>,
    /// Explicit override of the category's `retryable`, if written.
    pub retryable_override: Option<Spanned<bool>>,
    /// Explicit override of the category's `cause`, if written.
    pub cause_override: Option<Spanned<Cause>>,
    /// Resolved `retryable` (override or category default).
    pub retryable: bool,
    /// Resolved `cause` (override or category default).
    pub cause: Cause,
    /// One-line title, lowercase start, no final period.
    pub title: Spanned<String>,
    /// Long explanation in Markdown (what happened, an example, how to fix).
    pub explanation: Spanned<String>,
    /// Message template with `{param}` placeholders, its own or its
    /// category's (then located at the category's).
    pub message: Spanned<String>,
    /// Declared template parameters, in file order: its own, or its
    /// category's when it writes no `params`.
    pub params: Vec<Param>,
    /// Recovery hints (general guidance), its own or its category's;
    /// non-empty unless removed or the taxonomy makes hints optional
    /// ([`Taxonomy::hints`]). May use `{param}` placeholders.
    pub recovery_hints: Vec<Spanned<String>>,
    /// One entry per hint of `recovery_hints`, in the same order: `None` for
    /// a general hint (always sent), or the condition under which the hint
    /// applies (`when: { roots_source: [client, client_empty] }`).
    pub hint_conditions: Vec<Option<HintCondition>>,
    /// Context fields every envelope of this code carries.
    /// Names of declared fields ([`Spec::fields`]).
    pub required_context: Vec<Spanned<String>>,
    /// Context fields an envelope of this code may carry.
    /// Names of declared fields ([`Spec::fields`]).
    pub optional_context: Vec<Spanned<String>>,
    /// Taxonomy version that introduced the code.
    pub since: Spanned<semver::Version>,
    /// Active, deprecated or removed.
    pub lifecycle: Lifecycle,
    /// `sent_as:` if written (the default is [`SentAs::Envelope`]).
    pub sent_as: Option<Spanned<SentAs>>,
    /// `example:` of the code, in file order: example values of its
    /// parameters and of context fields it carries, overriding the fields'
    /// own examples in this code's documented envelope.
    pub examples: Vec<Example>,
    /// `wire:`, the code's name on the wire when it differs from its
    /// SCREAMING_SNAKE identifier (`ThrottlingException`).
    pub wire: Option<Spanned<String>>,
    /// `aliases:`, more names on the wire that mean this code (botocore's
    /// five spellings of throttling); accepted when reading, never sent.
    pub aliases: Vec<Spanned<String>>,
    /// `constants:`, the fixed value of a declared field in every envelope
    /// of this code (the AWS code string, RFC 9457's `type` URI), written
    /// with the spec's names (an enum value by its name). Each such field
    /// is also in `required_context`; a constructor never asks for it.
    pub constants: Vec<Example>,
    /// The retry classes the code belongs to, resolved: its own
    /// `retry_classes:`, else its category's. Empty, or the code is
    /// retryable.
    pub retry_classes: Vec<Spanned<String>>,
    /// Its values of the declared attributes, in the order of
    /// `Spec::attributes` (absent ones left out).
    pub attributes: Vec<Example>,
}

/// One entry of a code's `example:` map, checked against the declared type
/// of the parameter or field it names. An `error_code` value `self` (at any
/// depth) stands for the code whose envelope is being built; see
/// [`EXAMPLE_SELF`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// The parameter or context field it is an example of.
    pub name: Spanned<String>,
    /// The value, as JSON.
    pub value: Spanned<serde_json::Value>,
}

/// The example value of type `error_code` that names the code of the
/// envelope it appears in (`error_code: self` in an `EditStatus` example
/// shared by every code that carries the field).
pub const EXAMPLE_SELF: &str = "self";

impl Code {
    /// Its number, when the taxonomy is numbered.
    pub fn number(&self) -> Option<i64> {
        self.number.as_ref().map(|n| n.value)
    }

    /// `NAME (number)`, or `NAME` in a taxonomy without numbers: how a
    /// code is introduced in a description.
    pub fn name_and_number(&self) -> String {
        match self.number() {
            Some(n) => format!("{} ({n})", self.name.value),
            None => self.name.value.clone(),
        }
    }

    /// The code's name on the wire (the value of the member carrying
    /// `code_name`, of an `error_code` field): `wire:` if written, else its
    /// name.
    pub fn wire(&self) -> &str {
        self.wire.as_ref().map_or(&self.name.value, |w| &w.value)
    }

    /// The constant value of the field `field` in this code's envelopes.
    pub fn constant(&self, field: &str) -> Option<&serde_json::Value> {
        self.constants
            .iter()
            .find(|c| c.name.value == field)
            .map(|c| &c.value.value)
    }

    /// Every name on the wire that means this code: its wire name, then
    /// its aliases.
    pub fn wire_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.wire()).chain(self.aliases.iter().map(|a| a.value.as_str()))
    }

    /// True unless the code is removed (removed codes generate no Rust
    /// variant and are not valid envelope codes).
    pub fn is_emitted(&self) -> bool {
        !matches!(self.lifecycle, Lifecycle::Removed { .. })
    }

    /// True if deprecated.
    pub fn is_deprecated(&self) -> bool {
        matches!(self.lifecycle, Lifecycle::Deprecated { .. })
    }

    /// How the code reaches clients (`sent_as:`, default `envelope`).
    pub fn sent_as(&self) -> SentAs {
        self.sent_as.as_ref().map_or(SentAs::Envelope, |s| s.value)
    }

    /// True if the code arrives only as a violation kind, never as an
    /// envelope's own `error_code`.
    pub fn is_violation_kind(&self) -> bool {
        self.sent_as() == SentAs::Violation
    }

    /// The name the JSON Schema, TypeScript and Python emitters give this
    /// code's envelope type: `MATCH_NOT_FOUND` -> `MatchNotFoundEnvelope`.
    pub fn envelope_type_name(&self) -> String {
        crate::case::Case::UpperCamel.convert(&self.name.value) + "Envelope"
    }

    /// The name of this code's context type: `MatchNotFoundContext`.
    pub fn context_type_name(&self) -> String {
        crate::case::Case::UpperCamel.convert(&self.name.value) + "Context"
    }

    /// The code's own example of the parameter or field `name`, as written
    /// (`self` not yet replaced).
    pub fn example(&self, name: &str) -> Option<&serde_json::Value> {
        self.examples
            .iter()
            .find(|e| e.name.value == name)
            .map(|e| &e.value.value)
    }
}

/// The type the schema, TypeScript and Python emitters generate for an
/// envelope whose code this release does not list (one sent by a server of a
/// later minor release). No code may generate the same name.
pub const UNLISTED_ENVELOPE: &str = "UnlistedCodeEnvelope";

/// The union of [`Code::envelope_type_name`]s and [`UNLISTED_ENVELOPE`] in
/// the TypeScript and Python types: what a client may receive from any
/// server of the same major version.
pub const ANY_ENVELOPE: &str = "AnyErrorEnvelope";

impl Spec {
    /// The category with this key.
    pub fn category(&self, key: &str) -> Option<&Category> {
        self.categories.iter().find(|c| c.key.value == key)
    }

    /// The code with this name.
    pub fn code(&self, name: &str) -> Option<&Code> {
        self.codes.iter().find(|c| c.name.value == name)
    }

    /// The declared context field with this name.
    pub fn field(&self, name: &str) -> Option<&crate::context::FieldDef> {
        self.fields.iter().find(|f| f.name.value == name)
    }

    /// The declared support type with this name.
    pub fn type_def(&self, name: &str) -> Option<&crate::context::TypeDef> {
        self.types.iter().find(|t| t.name.value == name)
    }

    /// Declared fields at `placement`, in canonical order.
    pub fn fields_at(
        &self,
        placement: crate::context::Placement,
    ) -> impl Iterator<Item = &crate::context::FieldDef> {
        self.fields
            .iter()
            .filter(move |f| f.placement.value == placement)
    }

    /// The JSON of the constant of `field` in `code`'s envelopes (an enum
    /// value in its wire spelling), if the code fixes one.
    pub fn constant_json(
        &self,
        code: &Code,
        field: &crate::context::FieldDef,
    ) -> Option<serde_json::Value> {
        let value = code.constant(field.name())?;
        Some(match (field.ty(), value) {
            (crate::context::FieldType::Enum(t), serde_json::Value::String(s)) => {
                serde_json::json!(self.type_def(t).map_or(s.as_str(), |d| d.wire_of(s)))
            }
            _ => value.clone(),
        })
    }

    /// Per recovery hint of `code`: `None` when it is always sent, else the
    /// field it depends on and the values for which it is sent, both in
    /// their wire spelling (as the client tables `CODES` give them).
    pub fn hint_conditions_on_the_wire<'s>(
        &'s self,
        code: &'s Code,
    ) -> Vec<Option<(&'s str, Vec<&'s str>)>> {
        code.hints()
            .map(|(_, cond)| {
                let c = cond?;
                let field = self.field(&c.field.value);
                let def = field.and_then(|f| self.type_def(f.ty().named()?));
                let values = c
                    .values
                    .iter()
                    .map(|v| def.map_or(v.value.as_str(), |d| d.wire_of(&v.value)))
                    .collect();
                Some((field.map_or(c.field.value.as_str(), |f| f.wire()), values))
            })
            .collect()
    }

    /// The required context fields of `code`, in canonical order.
    pub fn required_fields(&self, code: &Code) -> Vec<&crate::context::FieldDef> {
        self.fields
            .iter()
            .filter(|f| {
                code.required_context
                    .iter()
                    .any(|r| r.value == f.name.value)
            })
            .collect()
    }

    /// The optional context fields of `code`, in the order the code lists them.
    pub fn optional_fields(&self, code: &Code) -> Vec<&crate::context::FieldDef> {
        code.optional_context
            .iter()
            .filter_map(|o| self.field(&o.value))
            .collect()
    }

    /// What `retryable: true` means in this taxonomy.
    pub fn retry_meaning(&self) -> &str {
        self.retry
            .meaning
            .as_ref()
            .map_or(DEFAULT_RETRY_MEANING, |m| &m.value)
    }

    /// The declared retry class with this name.
    pub fn retry_class(&self, name: &str) -> Option<&RetryClass> {
        self.retry.classes.iter().find(|c| c.name.value == name)
    }

    /// The value of attribute `name` for `code`, if it has one.
    pub fn attribute<'c>(&self, code: &'c Code, name: &str) -> Option<&'c serde_json::Value> {
        code.attributes
            .iter()
            .find(|a| a.name.value == name)
            .map(|a| &a.value.value)
    }

    /// The category of `family` (checked to exist).
    pub fn family_category(&self, family: &Family) -> &Category {
        self.category(&family.category.value)
            .expect("`check` refuses a family of an unknown category")
    }

    /// The names on the wire that are never a family's, whichever rule
    /// matches them: every wire name and alias of a code sent as an
    /// envelope's own code, removed ones included (their names are never
    /// given out again). The schema's unlisted variant excludes the same.
    pub fn names_outside_families(&self) -> impl Iterator<Item = &str> {
        self.codes
            .iter()
            .filter(|c| !c.is_violation_kind())
            .flat_map(Code::wire_names)
    }

    /// The family a code name on the wire belongs to: `None` when a code
    /// has that name ([`Spec::names_outside_families`]), else the first
    /// family in file order whose rule matches it.
    pub fn family_of(&self, wire: &str) -> Option<&Family> {
        if self.names_outside_families().any(|n| n == wire) {
            return None;
        }
        self.families.iter().find(|f| f.rule.value.matches(wire))
    }

    /// The numbers that are never a family's: every number of a code sent
    /// as an envelope's own code (removed ones included) and every reserved
    /// one, as the schema's unlisted variant excludes them.
    pub fn numbers_outside_families(&self) -> Vec<i64> {
        let mut out: Vec<i64> = self
            .codes
            .iter()
            .filter(|c| !c.is_violation_kind())
            .filter_map(Code::number)
            .chain(self.reserved.iter().map(|r| r.number.value))
            .collect();
        out.dedup();
        out
    }

    /// The family of a code number on the wire, for a taxonomy whose codes
    /// are told apart by number: `None` for a number a code has or a
    /// reserved one, else the first range family that holds it.
    pub fn family_of_number(&self, n: i64) -> Option<&Family> {
        if self.numbers_outside_families().contains(&n) {
            return None;
        }
        self.families
            .iter()
            .find(|f| f.rule.value.matches_number(n))
    }

    /// The first family in file order whose rule matches `wire`, whether
    /// or not a code has that name: the family a listed code must agree
    /// with.
    pub fn first_family_matching(&self, wire: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.rule.value.matches(wire))
    }

    /// Codes that may appear in an envelope (active and deprecated).
    pub fn emitted_codes(&self) -> impl Iterator<Item = &Code> {
        self.codes.iter().filter(|c| c.is_emitted())
    }

    /// Codes sent as an envelope's own code (emitted, not `sent_as:
    /// violation`): the variants of the published schema.
    pub fn enveloped_codes(&self) -> impl Iterator<Item = &Code> {
        self.emitted_codes().filter(|c| !c.is_violation_kind())
    }

    /// The operation with this name.
    pub fn operation(&self, name: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.name.value == name)
    }

    /// The code group with this name.
    pub fn group(&self, name: &str) -> Option<&CodeGroup> {
        self.groups.iter().find(|g| g.name.value == name)
    }

    /// Whether operation `op` raises the code named `code` (listed by the
    /// operation or by one of its groups).
    pub fn raises(&self, op: &Operation, code: &str) -> bool {
        op.codes.iter().any(|c| c.value == code)
            || op.groups.iter().any(|g| {
                self.group(&g.value)
                    .is_some_and(|g| g.codes.iter().any(|c| c.value == code))
            })
    }

    /// Every code operation `op` raises, its groups' and its own, in the
    /// spec's order of codes.
    pub fn operation_codes<'s>(&'s self, op: &Operation) -> Vec<&'s Code> {
        self.emitted_codes()
            .filter(|c| self.raises(op, &c.name.value))
            .collect()
    }

    /// The operations that raise the code named `code`, in file order.
    pub fn operations_raising<'s>(&'s self, code: &str) -> Vec<&'s Operation> {
        self.operations
            .iter()
            .filter(|o| self.raises(o, code))
            .collect()
    }

    /// Active codes no operation raises, in spec order; empty when the
    /// spec declares no operation (every code is then anyone's). A
    /// deprecated code is not counted: it stays for older clients, whether
    /// or not an operation still raises it.
    pub fn unraised_codes(&self) -> Vec<&Code> {
        if self.operations.is_empty() {
            return Vec::new();
        }
        self.emitted_codes()
            .filter(|c| !c.is_deprecated())
            .filter(|c| self.operations_raising(&c.name.value).is_empty())
            .collect()
    }
}
