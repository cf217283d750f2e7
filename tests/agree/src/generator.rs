//! Random `errors.yaml` specs and the payloads each one's codes send.
//!
//! [`sample`] turns a seed into a [`Sample`]: the text of a spec and, for
//! every code it lists and for a code a later release adds, a payload as a
//! server of that spec would write it, with what every reader must make of
//! it: the code's wire name (or unlisted), what the Rust types write back,
//! and a corrupted copy that no variant accepts.
//!
//! The generator knows the wire layout from its own model (what it chose to
//! write in the spec), not from splice-codegen's: the payloads are an
//! independent oracle for every artifact. It covers the grammar of today:
//! splice's own envelope and declared ones (flat, or with the code in a
//! nested object that may be optional), the code told by name, by number or
//! both, taxonomies without numbers (`numbered: false`), `absent_means` on
//! the code name, constant members, members carrying the category,
//! `retryable`, cause, hints, message and context, `pattern` on the members
//! carrying the code name, the category, the message or a string constant
//! (the schema refuses a value outside it, which the other artifacts, as
//! their docs say, do not check), fields `in: top_level`, `in: context` and
//! `in: envelope` with wire names, required and optional per code,
//! per-code `constants:`, code wire names and aliases (the empty one
//! included), and types: enums (with wire names), objects (optional and
//! nullable members, wire names, a recursive list of itself; open ones,
//! whose values carry a member they do not list), `one_of` of scalars (with
//! `null`) and of non-scalar types (a list of strings or of objects, an
//! object type: a member that is a string in one payload and a list of
//! objects in another), `json`, lists, maps, `pattern` and `format`; and
//! code families (`families:`: prefixes and suffixes of the wire name,
//! ranges of the number), with a later code of each family and one of
//! none; a code deprecated in favour of another, a removed code and a
//! reserved number (`reserved:`), with the later code sent under the
//! removed code's name, or where codes are told apart by number only,
//! under the removed or reserved number, which no artifact accepts.
//!
//! To extend it (hostile names, new constructs), add a choice to the model
//! ([`Spec`]), write it in [`Spec::yaml`] and follow it in the payloads
//! ([`Spec::payloads`]). Every choice is drawn from one seeded RNG, so a
//! seed names one spec on every machine.
//!
//! This file is also compiled into `build.rs` (`#[path]`), which expands
//! the specs of fixed seeds into Rust modules: it uses nothing of the crate.

use std::fmt::Write as _;

use proptest::prelude::Rng as _;
use proptest::test_runner::{RngAlgorithm, TestRng};
use serde_json::{Map, Value, json};

/// One generated spec and its payloads.
pub struct Sample {
    /// The seed it came from.
    pub seed: u64,
    /// The text of `errors.yaml`.
    pub yaml: String,
    /// A payload per listed code (some with only the required members, some
    /// with every member), the `absent_means` code without its code name,
    /// and a code a later release adds (of each family, and of none).
    pub payloads: Vec<Payload>,
    /// The rules of its name families, in order: (`prefix`?, text).
    pub family_rules: Vec<(bool, String)>,
    /// The ranges of its range families, in order.
    pub family_ranges: Vec<(i64, i64)>,
    /// With a list of errors (`list: true`): the list member's name; the
    /// payloads are then its entries, and [`Sample::responses`] the
    /// documents.
    pub list: Option<String>,
    /// Responses of several payloads (listed, unlisted, the `absent_means`
    /// code), and refused ones (an empty list, a response-level corruption,
    /// an entry no artifact accepts); empty without a list.
    pub responses: Vec<ResponsePayload>,
    /// How many values of a `one_of` its payloads hold that are of a
    /// non-scalar type of it (a list, an object).
    pub one_of_non_scalars: u64,
}

/// A response around a list of payloads, and what every reader makes of it.
pub struct ResponsePayload {
    /// What it is, for messages.
    pub label: String,
    /// The response.
    pub value: Value,
    /// The wire name of each entry's listed code, in order; `None`:
    /// unlisted.
    pub codes: Vec<Option<String>>,
    /// What the Rust types write back: each entry as its payload's `back`.
    pub back: Value,
    /// No artifact accepts it: the schema refuses it, the Rust types too.
    pub refused: bool,
}

/// A response around the list of errors (`list: true`): the list member's
/// name, an optional `data` of any value, a constant.
struct List {
    name: String,
    data: bool,
    constant: Option<(String, Value)>,
}

impl Sample {
    /// True when a family's rule matches the code name `wire`.
    pub fn families_matching(&self, wire: &str) -> bool {
        self.family_rules.iter().any(|(prefix, text)| {
            if *prefix {
                wire.starts_with(text.as_str())
            } else {
                wire.ends_with(text.as_str())
            }
        })
    }
}

/// One payload and what every reader makes of it; the default is a listed
/// payload that every artifact accepts as it is.
#[derive(Default)]
pub struct Payload {
    /// What it is, for messages.
    pub label: String,
    /// The payload.
    pub value: Value,
    /// The listed code it is (identifier, wire name); `None`: unlisted.
    pub code: Option<(String, String)>,
    /// For an unlisted code, the family it is of (`families:`), as every
    /// reader must give it: its name, its category's key, `retryable` and
    /// cause.
    pub family: Option<FamilyAnswer>,
    /// What the Rust types write back: the payload, an alias read as the
    /// code's wire name.
    pub back: Value,
    /// A copy no variant of the schema accepts (a member of the wrong type,
    /// a required field left out, a constant of another code).
    pub corrupt: Option<Value>,
    /// No artifact accepts it (an envelope without its code name of a
    /// category `absent_means` gives no code): the schema has no variant
    /// for it, the run times read no listed code, the Rust types refuse it.
    pub refused: bool,
    /// Only the JSON Schema refuses it: a member holds a message outside
    /// its `pattern`, which the TypeScript, Python and Rust types name in
    /// a doc comment and do not check, so they read it as `code` and the
    /// Rust types write it back unchanged.
    pub schema_refuses: bool,
}

/// What a reader says of an unlisted code's family.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyAnswer {
    /// The family's name.
    pub name: String,
    /// Its category's key.
    pub category: String,
    /// Its category's `retryable`.
    pub retryable: bool,
    /// Its category's cause.
    pub cause: String,
}

/// The seeded RNG every choice is drawn from.
struct Rng(TestRng);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..16].copy_from_slice(b"splice-a");
        Rng(TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
    }
    /// `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }
    /// True with probability `percent`/100.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A scalar type of the grammar.
#[derive(Clone, Copy, PartialEq)]
enum Scalar {
    String,
    Integer,
    Int32,
    Int64,
    Float,
    Boolean,
}

impl Scalar {
    const ALL: [Scalar; 6] = [
        Scalar::String,
        Scalar::Integer,
        Scalar::Int32,
        Scalar::Int64,
        Scalar::Float,
        Scalar::Boolean,
    ];
    fn name(self) -> &'static str {
        match self {
            Scalar::String => "string",
            Scalar::Integer => "integer",
            Scalar::Int32 => "int32",
            Scalar::Int64 => "int64",
            Scalar::Float => "float",
            Scalar::Boolean => "boolean",
        }
    }
    fn value(self, rng: &mut Rng) -> Value {
        match self {
            Scalar::String => json!(*rng.pick(&["x", "hello world", "ünï", "a\"b", ""])),
            // `integer` is non-negative; `int64` and `int32` are signed.
            Scalar::Integer => json!(*rng.pick(&[0i64, 7, 1_000_000_007])),
            Scalar::Int64 => json!(*rng.pick(&[0i64, 7, -3, 1_000_000_007])),
            Scalar::Int32 => json!(*rng.pick(&[0i64, 42, -2_147_483_648])),
            Scalar::Float => json!(*rng.pick(&[0.5f64, -2.25, 1e10])),
            Scalar::Boolean => json!(rng.chance(50)),
        }
    }
    /// A value of another JSON type than this one's.
    fn wrong(self) -> Value {
        match self {
            Scalar::String => json!(12),
            _ => json!("not a value of this type"),
        }
    }
}

/// A type a field or a member has.
#[derive(Clone)]
enum Ty {
    Scalar(Scalar),
    /// Any JSON value (`json`).
    Json,
    /// A string with `pattern: "^[a-z]+$"`.
    Lower,
    /// A string with a `format:`, by index in [`FORMATS`].
    Format(usize),
    /// A declared type, by index in [`Spec::types`].
    Named(usize),
    List(Box<Ty>),
    Map(Box<Ty>),
}

/// A declared type.
enum TypeDef {
    /// Values: (name, wire).
    Enum(Vec<(String, Option<String>)>),
    /// Members: (name, wire, type, optional, nullable); `recursive`: an
    /// optional member `children` that is a list of this type; `open`:
    /// `open: true`, its values carry a member it does not list.
    Object {
        members: Vec<ObjMember>,
        recursive: bool,
        open: bool,
    },
    /// `one_of` of scalars, `null` too when `nullable`, and of the
    /// non-scalar types `more` (a list, an object type;
    /// see [`Spec::choose_one_of`]).
    OneOf(Vec<Scalar>, bool, Vec<Ty>),
    /// A tagged union: the discriminator, and (object type, tag) pairs.
    Union(String, Vec<(usize, String)>),
}

struct ObjMember {
    name: String,
    wire: Option<String>,
    ty: Ty,
    optional: bool,
    nullable: bool,
}

/// Where a field lives.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    TopLevel,
    Context,
    Envelope,
}

struct Field {
    name: String,
    wire: Option<String>,
    ty: Ty,
    place: Place,
}

impl Field {
    fn wire(&self) -> &str {
        self.wire.as_deref().unwrap_or(&self.name)
    }
}

/// What a declared member carries.
#[derive(Clone, PartialEq)]
enum Carries {
    CodeName,
    Number,
    Category,
    Retryable,
    Cause,
    Hints,
    Message,
    Context,
    Constant(Value),
}

struct Member {
    name: String,
    carries: Carries,
    optional: bool,
    /// `absent_means`: by index in [`Spec::codes`].
    absent_means: Option<usize>,
    /// `pattern:` (see [`Spec::choose_constraints`]).
    pattern: Option<&'static str>,
}

/// The declared envelope: the members of the outer object, and the object
/// holding the code (`None`: the outer one).
struct Envelope {
    outer: Vec<Member>,
    /// The nested object holding the code: its name, whether it is
    /// optional, its members.
    inner: Option<(String, bool, Vec<Member>)>,
}

struct Category {
    key: String,
    range: (i64, i64),
    retryable: bool,
    cause: &'static str,
    /// The recovery hint its codes inherit (`recovery_hints:` of the
    /// category), see [`Spec::choose_defaults`].
    default_hint: Option<String>,
    /// The context lists its codes inherit (`context:` of the category):
    /// fields by index, required and optional.
    default_context: Option<(Vec<usize>, Vec<usize>)>,
}

/// A family of codes (`families:`): a prefix or suffix of the wire name,
/// or a range of the number.
struct Family {
    name: String,
    /// `true`: `prefix:`, `false`: `suffix:` (when `range` is `None`).
    prefix: bool,
    text: String,
    /// `range: [low, high]`, in a spec whose codes are told by number.
    range: Option<(i64, i64)>,
    category: usize,
}

impl Family {
    fn matches_number(&self, n: i64) -> bool {
        self.range.is_some_and(|(lo, hi)| (lo..=hi).contains(&n))
    }

    fn matches(&self, wire: &str) -> bool {
        if self.range.is_some() {
            false
        } else if self.prefix {
            wire.starts_with(self.text.as_str())
        } else {
            wire.ends_with(self.text.as_str())
        }
    }

    /// Every name `later` matches, this one matches too.
    fn covers(&self, later: &Family) -> bool {
        if let (Some((lo, hi)), Some((l, h))) = (self.range, later.range) {
            return lo <= l && h <= hi;
        }
        self.range.is_none()
            && later.range.is_none()
            && self.prefix == later.prefix
            && if self.prefix {
                later.text.starts_with(self.text.as_str())
            } else {
                later.text.ends_with(self.text.as_str())
            }
    }
}

struct Code {
    id: String,
    wire: Option<String>,
    aliases: Vec<String>,
    number: i64,
    category: usize,
    /// Fields by index: required, optional.
    required: Vec<usize>,
    optional: Vec<usize>,
    /// The per-code constant of [`Spec::pinned`].
    constant: Option<Value>,
    /// `None` only when hints are optional (see [`Spec::hints_optional`]).
    hint: Option<String>,
}

impl Code {
    fn wire(&self) -> &str {
        self.wire.as_deref().unwrap_or(&self.id)
    }

    /// Its wire name and aliases.
    fn wire_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.wire()).chain(self.aliases.iter().map(String::as_str))
    }
}

/// The formats of `format:`, and values of each.
const FORMATS: &[(&str, [&str; 3])] = &[
    (
        "uri",
        [
            "https://example.com/a?b=c",
            "urn:isbn:0451450523",
            "mailto:a@example.com",
        ],
    ),
    (
        "date-time",
        [
            "2026-11-29T11:58:00Z",
            "1985-04-12T23:20:50.52Z",
            "1996-12-19T16:39:57-08:00",
        ],
    ),
    ("duration", ["PT5S", "P1DT2H", "PT0.5S"]),
];

/// The `pattern` of a member carrying the code name: no digits.
const NO_DIGITS: &str = "^[^0-9]*$";
/// The `pattern` of a member carrying the category.
const LOWER_KEY: &str = "^[a-z_]+$";
/// The `pattern` of a member carrying the message: RFC 6749's printable
/// ASCII without `"` and `\`.
const PRINTABLE: &str = "^[\\x20-\\x21\\x23-\\x5B\\x5D-\\x7E]*$";
/// The `pattern` of a member carrying a string constant.
const DOTTED: &str = "^[0-9]+\\.[0-9]+$";

/// The code name of the payload of a later release's code.
const LATER_CODE: &str = "LATER_CODE";

/// The model of one spec.
struct Spec {
    /// `None`: splice's own envelope.
    envelope: Option<Envelope>,
    categories: Vec<Category>,
    types: Vec<(String, TypeDef)>,
    fields: Vec<Field>,
    /// A field each code gives a constant (`constants:`), by index.
    pinned: Option<usize>,
    codes: Vec<Code>,
    /// The codes have numbers (`taxonomy.numbered`, the default); `false`
    /// only when no member carries one (see [`Spec::choose_numbering`]).
    numbered: bool,
    /// `taxonomy.hints: optional`: a code may have no hint.
    hints_optional: bool,
    /// `families:`, in precedence order (see [`Spec::choose_families`]).
    families: Vec<Family>,
    /// `absent_means` per category (category, code), by index; empty: the
    /// single form, if any (see [`Spec::choose_fallbacks`]).
    fallbacks: Vec<(usize, usize)>,
    /// Values of a union drawn so far: they cycle through its variants,
    /// the last first (the one `evolve` adds), so a release's payloads
    /// show every variant.
    union_draws: std::cell::Cell<usize>,
    /// Values of a `one_of` with non-scalar types drawn so far: they cycle
    /// through its scalar draw and each of those types, which
    /// are drawn from a stream of their own seeded with `side_seed`, so
    /// every other value of a seed stays what it was.
    one_of_draws: std::cell::Cell<u64>,
    /// How many of those were of a non-scalar type.
    one_of_non_scalars: std::cell::Cell<u64>,
    side_seed: u64,
    /// The response around a list of errors (see [`Spec::choose_list`]).
    list: Option<List>,
    /// `taxonomy.code_names: per_category`: a code shares its wire name
    /// with a code of another category (see [`Spec::choose_pairs`]).
    per_category: bool,
    /// A code deprecated in favour of the first, by index (see
    /// [`Spec::choose_lifecycle`]).
    deprecated: Option<usize>,
    /// A removed code: its number (in a numbered taxonomy).
    removed: Option<i64>,
    /// A reserved number (`reserved:`).
    reserved: Option<i64>,
}

/// The name of the removed code.
const REMOVED_CODE: &str = "GONE_FOR_GOOD";

/// The sample of `seed`.
pub fn sample(seed: u64) -> Sample {
    let mut rng = Rng::new(seed);
    let mut spec = Spec::generate(&mut rng);
    spec.choose_numbering(seed);
    spec.choose_side(seed);
    spec.choose_defaults(seed);
    spec.choose_families(seed);
    spec.choose_fallbacks(seed);
    spec.choose_pairs(seed);
    spec.choose_list(seed);
    spec.choose_one_of(seed);
    spec.choose_constraints(seed);
    spec.choose_lifecycle(seed);
    let yaml = spec.yaml(seed);
    let payloads = spec.payloads(&mut rng);
    let responses = spec.responses(seed, &payloads);
    Sample {
        seed,
        yaml,
        list: spec.list.as_ref().map(|l| l.name.clone()),
        responses,
        payloads,
        one_of_non_scalars: spec.one_of_non_scalars.get(),
        family_rules: spec
            .families
            .iter()
            .filter(|f| f.range.is_none())
            .map(|f| (f.prefix, f.text.clone()))
            .collect(),
        family_ranges: spec.families.iter().filter_map(|f| f.range).collect(),
    }
}

/// Names of members and fields no two of which meet in any target
/// (lower_snake_case, UpperCamelCase, Python and TypeScript keys).
struct Names {
    taken: Vec<String>,
}

impl Names {
    fn norm(name: &str) -> String {
        name.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    }
    /// The first of `pool` (from a random start) not yet taken.
    fn take(&mut self, rng: &mut Rng, pool: &[&str]) -> String {
        let start = rng.below(pool.len());
        for i in 0..pool.len() {
            let name = pool[(start + i) % pool.len()];
            if !self.taken.contains(&Names::norm(name)) {
                self.taken.push(Names::norm(name));
                return name.to_owned();
            }
        }
        // Pools are larger than any spec's need; a numbered name is free.
        let mut n = self.taken.len();
        loop {
            let name = format!("{}{n}", pool[0]);
            if !self.taken.contains(&Names::norm(&name)) {
                self.taken.push(Names::norm(&name));
                return name;
            }
            n += 1;
        }
    }
}

/// The member a value of an open type carries besides its listed ones (no
/// member pool holds it).
pub const OTHER_MEMBER: &str = "x-other";

const CODE_POOL: &[&str] = &[
    "code",
    "status",
    "error_code",
    "errorCode",
    "type",
    "reason",
];
const NUMBER_POOL: &[&str] = &["number", "code_number", "httpStatus", "num"];
const WRAP_POOL: &[&str] = &["error", "extensions", "problem", "Error"];
const OTHER_POOL: &[&str] = &[
    "message",
    "detail",
    "title",
    "category",
    "kind",
    "retryable",
    "retry",
    "cause",
    "blame",
    "hints",
    "recovery_hints",
    "context",
    "data",
    "details",
    "meta",
    "version",
    "jsonrpc",
    "success",
];
const FIELD_POOL: &[&str] = &[
    "file_path",
    "retry_after",
    "resource",
    "limit",
    "request_id",
    "trace",
    "owner",
    "region",
    "attempt",
    "labels",
    "location",
    "reason_text",
    "quota",
    "tags",
];
const TYPE_POOL: &[&str] = &["Detail", "Kind", "Node", "Amount", "Level", "Entry", "Id"];
const CODE_IDS: &[&str] = &[
    "NOT_FOUND",
    "TIMED_OUT",
    "BAD_INPUT",
    "CONFLICT",
    "UNAVAILABLE",
    "DENIED",
    "TOO_LARGE",
];

impl Spec {
    fn generate(rng: &mut Rng) -> Spec {
        let mut names = Names { taken: Vec::new() };
        let categories = Spec::categories(rng);
        let ncodes = 1 + rng.below(4);
        let types = Spec::types(rng);
        let envelope = (!rng.chance(15)).then(|| Spec::envelope(rng, &mut names));
        let has_context = envelope.as_ref().is_none_or(|e| {
            e.outer
                .iter()
                .chain(e.inner.iter().flat_map(|i| i.2.iter()))
                .any(|m| m.carries == Carries::Context)
        });
        let nested = envelope.as_ref().is_some_and(|e| e.inner.is_some());
        let mut fields = Vec::new();
        for _ in 0..rng.below(5) {
            let mut places = vec![Place::TopLevel];
            if has_context {
                places.push(Place::Context);
            }
            if nested {
                places.push(Place::Envelope);
            }
            let place = *rng.pick(&places);
            let name = names.take(rng, FIELD_POOL);
            let wire = rng.chance(25).then(|| {
                let mut w = name.replace('_', "-");
                w.push_str("-w");
                names.taken.push(Names::norm(&w));
                w
            });
            let ty = Spec::ty(rng, &types, 1);
            fields.push(Field {
                name,
                wire,
                ty,
                place,
            });
        }
        // A field each code pins, a string at the top.
        let pinned = rng.chance(30).then(|| {
            let name = names.take(rng, &["problem_type", "grpc_status", "aws_code"]);
            fields.push(Field {
                name,
                wire: None,
                ty: Ty::Scalar(Scalar::String),
                place: Place::TopLevel,
            });
            fields.len() - 1
        });
        let by_name = envelope.as_ref().is_none_or(|e| {
            e.outer
                .iter()
                .chain(e.inner.iter().flat_map(|i| i.2.iter()))
                .any(|m| m.carries == Carries::CodeName)
        });
        let mut ids: Vec<&str> = CODE_IDS.to_vec();
        let mut codes = Vec::new();
        let mut used_numbers = Vec::new();
        for i in 0..ncodes {
            let id = ids.remove(rng.below(ids.len())).to_owned();
            let category = rng.below(categories.len());
            let (lo, hi) = categories[category].range;
            let mut number = lo + rng.below((hi - lo + 1) as usize) as i64;
            while used_numbers.contains(&number) {
                number = if number == hi { lo } else { number + 1 };
            }
            used_numbers.push(number);
            // The first code's wire name, when it has one, is the empty
            // string (Kubernetes' `"reason": ""`); so is the second code's
            // alias when the empty name is still free.
            let wire = (by_name && rng.chance(25)).then(|| {
                if i == 0 {
                    String::new()
                } else {
                    format!("urn:err:{}", id.to_lowercase())
                }
            });
            let aliases = if by_name && rng.chance(25) {
                let empty_free = codes
                    .first()
                    .is_some_and(|c: &Code| c.wire.as_deref() != Some(""));
                if i == 1 && empty_free {
                    vec![String::new()]
                } else {
                    vec![format!("{}_ALIAS", id)]
                }
            } else {
                Vec::new()
            };
            let mut required = Vec::new();
            let mut optional = Vec::new();
            for (f, _) in fields.iter().enumerate() {
                if Some(f) == pinned {
                    continue;
                }
                match rng.below(3) {
                    0 => required.push(f),
                    1 => optional.push(f),
                    _ => {}
                }
            }
            codes.push(Code {
                id,
                wire,
                aliases,
                number,
                category,
                required,
                optional,
                constant: pinned.map(|_| json!(format!("https://example.com/p/{i}"))),
                hint: Some(
                    (*rng.pick(&["Retry later", "Check the input", "Ask an admin"])).to_owned(),
                ),
            });
        }
        let mut spec = Spec {
            envelope,
            categories,
            types,
            fields,
            pinned,
            codes,
            numbered: true,
            hints_optional: false,
            families: Vec::new(),
            fallbacks: Vec::new(),
            union_draws: std::cell::Cell::new(0),
            one_of_draws: std::cell::Cell::new(0),
            one_of_non_scalars: std::cell::Cell::new(0),
            side_seed: 0,
            list: None,
            per_category: false,
            deprecated: None,
            removed: None,
            reserved: None,
        };
        spec.place_absent_means(rng);
        spec
    }

    /// `absent_means` names a code only the member carrying the code name
    /// may leave out: point it at one of the codes.
    fn place_absent_means(&mut self, rng: &mut Rng) {
        let n = self.codes.len();
        let Some(env) = &mut self.envelope else {
            return;
        };
        let inner_optional = env.inner.as_ref().is_some_and(|i| i.1);
        for m in env
            .outer
            .iter_mut()
            .chain(env.inner.iter_mut().flat_map(|i| i.2.iter_mut()))
        {
            if m.carries == Carries::CodeName && (inner_optional || m.absent_means.is_some()) {
                m.absent_means = Some(rng.below(n));
            }
        }
    }

    fn categories(rng: &mut Rng) -> Vec<Category> {
        let mut out = vec![Category {
            key: "client".into(),
            range: (1, 99),
            retryable: false,
            cause: "input",
            default_hint: None,
            default_context: None,
        }];
        if rng.chance(60) {
            out.push(Category {
                key: "server".into(),
                range: (100, 199),
                retryable: true,
                cause: "server",
                default_hint: None,
                default_context: None,
            });
        }
        out
    }

    fn types(rng: &mut Rng) -> Vec<(String, TypeDef)> {
        let mut types: Vec<(String, TypeDef)> = Vec::new();
        let mut pool: Vec<&str> = TYPE_POOL.to_vec();
        for _ in 0..rng.below(4) {
            let name = pool.remove(rng.below(pool.len())).to_owned();
            let def = match rng.below(3) {
                0 => {
                    let mut values = Vec::new();
                    for (i, v) in ["alpha", "beta_two", "gamma"].iter().enumerate() {
                        if i == 0 || rng.chance(60) {
                            let wire = rng.chance(30).then(|| v.to_uppercase());
                            values.push(((*v).to_owned(), wire));
                        }
                    }
                    TypeDef::Enum(values)
                }
                1 => {
                    let mut members = Vec::new();
                    let mut local = Names { taken: Vec::new() };
                    for _ in 0..1 + rng.below(3) {
                        let mname = local.take(rng, &["name", "value", "count", "note", "at"]);
                        let wire = rng.chance(25).then(|| format!("@{mname}"));
                        members.push(ObjMember {
                            name: mname,
                            wire,
                            ty: Spec::ty(rng, &types, 0),
                            optional: rng.chance(40),
                            nullable: rng.chance(20),
                        });
                    }
                    TypeDef::Object {
                        members,
                        recursive: rng.chance(30),
                        open: false,
                    }
                }
                _ => {
                    let mut scalars = vec![Scalar::String];
                    scalars.push(*rng.pick(&[Scalar::Int64, Scalar::Boolean, Scalar::Float]));
                    TypeDef::OneOf(scalars, rng.chance(40), Vec::new())
                }
            };
            types.push((name, def));
        }
        types
    }

    /// Makes about half of the object types open (`open: true`), and about
    /// a third of the string fields (but the pinned one) and string members
    /// `json`. Drawn from an RNG of its own, as [`Spec::choose_numbering`]
    /// is; a `json` value takes one draw, as the string it replaces did.
    fn choose_side(&mut self, seed: u64) {
        let mut side = Rng::new(seed.rotate_left(29) ^ 0x6f70_656e);
        for (_, def) in &mut self.types {
            if let TypeDef::Object { open, .. } = def {
                *open = side.chance(50);
            }
        }
        let mut side = Rng::new(seed.rotate_left(13) ^ 0x6a73_6f6e);
        for (i, f) in self.fields.iter_mut().enumerate() {
            if matches!(f.ty, Ty::Scalar(Scalar::String))
                && Some(i) != self.pinned
                && side.chance(35)
            {
                f.ty = Ty::Json;
            }
        }
        for (_, def) in &mut self.types {
            if let TypeDef::Object { members, .. } = def {
                for m in members {
                    if matches!(m.ty, Ty::Scalar(Scalar::String)) && side.chance(35) {
                        m.ty = Ty::Json;
                    }
                }
            }
        }
    }

    /// A type made of scalars and `types`, `depth` more lists or maps deep.
    /// Three specs in ten whose codes no member carries by number (splice's
    /// own envelope then drops its `code`) are not numbered
    /// (`numbered: false`): no code has a `number`, no category a `range`.
    /// Drawn from an RNG of its own, so that the rest of each seed's spec
    /// and payloads stays what it was before the choice existed.
    fn choose_numbering(&mut self, seed: u64) {
        let carried = self.envelope.as_ref().is_some_and(|e| {
            e.outer
                .iter()
                .chain(e.inner.iter().flat_map(|i| i.2.iter()))
                .any(|m| m.carries == Carries::Number)
        });
        self.numbered = carried || !Rng::new(!seed).chance(30);
    }

    /// Whether hints are optional (then some codes have none), and which
    /// categories give their codes a default hint or context: the one of
    /// their first code, which the codes with the same value inherit
    /// rather than write. Drawn from a stream of its own, like the
    /// numbering, so every other choice of a seed stays the same.
    fn choose_defaults(&mut self, seed: u64) {
        let mut rng = Rng::new(seed.rotate_left(32) ^ 0xdefa);
        self.hints_optional = rng.chance(35);
        if self.hints_optional {
            // A category's first code, whose hint may become the default,
            // keeps it more often than the others, which then opt out.
            let mut seen = Vec::new();
            for c in &mut self.codes {
                let first = !seen.contains(&c.category);
                seen.push(c.category);
                if rng.chance(if first { 30 } else { 60 }) {
                    c.hint = None;
                }
            }
        }
        for (k, cat) in self.categories.iter_mut().enumerate() {
            let Some(first) = self.codes.iter().find(|c| c.category == k) else {
                continue;
            };
            if rng.chance(50) {
                cat.default_hint = first.hint.clone();
            }
            if rng.chance(50) {
                cat.default_context = Some((first.required.clone(), first.optional.clone()));
            }
        }
    }

    /// `absent_means` per category, in about two specs in three whose code
    /// name may be absent: the envelope carries the category in every
    /// envelope (not in an optional object), in a member of its own
    /// (`error_type`, at the top) when no member carries it; each category
    /// with codes gets one of them as its fallback at even odds, at least
    /// one category does. Drawn from a stream of its own, like the
    /// numbering.
    fn choose_fallbacks(&mut self, seed: u64) {
        const MEMBER: &str = "error_type";
        let mut rng = Rng::new(seed.rotate_left(19) ^ 0xfa11_bac5);
        if self.absent_code().is_none() || !rng.chance(65) {
            return;
        }
        let taken = self
            .members()
            .any(|m| Names::norm(&m.name) == Names::norm(MEMBER))
            || self
                .fields
                .iter()
                .any(|f| Names::norm(&f.name) == Names::norm(MEMBER));
        let Some(env) = &mut self.envelope else {
            return;
        };
        let inner_optional = env.inner.as_ref().is_some_and(|i| i.1);
        let category = env
            .outer
            .iter()
            .map(|m| (m, false))
            .chain(env.inner.iter().flat_map(|i| i.2.iter().map(|m| (m, true))))
            .find(|(m, _)| m.carries == Carries::Category);
        match category {
            Some((m, inner)) if m.optional || (inner && inner_optional) => return,
            Some(_) => {}
            None if taken => return,
            None => env.outer.push(Member {
                name: MEMBER.to_owned(),
                carries: Carries::Category,
                optional: false,
                absent_means: None,
                pattern: None,
            }),
        }
        let mut fallbacks = Vec::new();
        for k in 0..self.categories.len() {
            let of: Vec<usize> = (0..self.codes.len())
                .filter(|&i| self.codes[i].category == k)
                .collect();
            if !of.is_empty() && rng.chance(50) {
                fallbacks.push((k, of[rng.below(of.len())]));
            }
        }
        if fallbacks.is_empty() {
            let code = rng.below(self.codes.len());
            fallbacks.push((self.codes[code].category, code));
        }
        self.fallbacks = fallbacks;
    }

    /// Codes unique only within their category (`code_names:
    /// per_category`), in about half the specs that can have it: a declared
    /// envelope carrying the code name, no families, codes in two categories
    /// or more. The category is then in every envelope: its member made
    /// required (unless it is in an optional object: then no pairs), or one
    /// of its own added (`error_type`, at the top), as for
    /// [`Spec::choose_fallbacks`]. A code takes the wire name of a code of
    /// another category. Drawn from a stream of its own, like the
    /// numbering, so every other choice of a seed stays the same.
    fn choose_pairs(&mut self, seed: u64) {
        const MEMBER: &str = "error_type";
        let mut rng = Rng::new(seed.rotate_left(37) ^ 0x9a12);
        if self.envelope.is_none() || !self.families.is_empty() || !rng.chance(50) {
            return;
        }
        let named = self.members().any(|m| m.carries == Carries::CodeName);
        let categories = self
            .codes
            .iter()
            .map(|c| c.category)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let taken = self
            .members()
            .any(|m| Names::norm(&m.name) == Names::norm(MEMBER))
            || self
                .fields
                .iter()
                .any(|f| Names::norm(&f.name) == Names::norm(MEMBER));
        if !named || categories < 2 {
            return;
        }
        let Some(env) = &mut self.envelope else {
            return;
        };
        let inner_optional = env.inner.as_ref().is_some_and(|i| i.1);
        let outer = env
            .outer
            .iter_mut()
            .find(|m| m.carries == Carries::Category);
        if let Some(m) = outer {
            m.optional = false;
        } else if let Some(m) = env
            .inner
            .as_mut()
            .and_then(|i| i.2.iter_mut().find(|m| m.carries == Carries::Category))
        {
            if inner_optional {
                return;
            }
            m.optional = false;
        } else if taken {
            return;
        } else {
            env.outer.push(Member {
                name: MEMBER.to_owned(),
                carries: Carries::Category,
                optional: false,
                absent_means: None,
                pattern: None,
            });
        }
        let code = rng.below(self.codes.len());
        let others: Vec<usize> = (0..self.codes.len())
            .filter(|&i| self.codes[i].category != self.codes[code].category)
            .collect();
        if others.is_empty() {
            return;
        }
        let other = others[rng.below(others.len())];
        self.codes[code].wire = Some(self.codes[other].wire().to_owned());
        self.per_category = true;
    }

    /// Whether a declared envelope is one entry of a response's list of
    /// errors (`list: true`, GraphQL's `errors`), and the response's other
    /// members. Drawn from a stream of its own, like the numbering, so every
    /// other choice of a seed stays the same.
    fn choose_list(&mut self, seed: u64) {
        let mut rng = Rng::new(seed.rotate_left(53) ^ 0x1157);
        if self.envelope.is_none() || !rng.chance(40) {
            return;
        }
        self.list = Some(List {
            name: rng.pick(&["errors", "issues"]).to_string(),
            data: rng.chance(70),
            constant: rng.chance(40).then(|| {
                (
                    "response_version".to_owned(),
                    rng.pick(&[json!("2.0"), json!(1)]).clone(),
                )
            }),
        });
    }

    /// The responses of a spec with a list of errors, from its payloads:
    /// the accepted ones three at a time in order (so a response mixes
    /// listed codes, unlisted ones and the `absent_means` code), each with
    /// `data` (null, an object or absent) and the constant; then refused
    /// ones: an empty list, the constant of another response or no list
    /// at all, and an entry no artifact accepts among accepted ones. Drawn
    /// from no RNG of the spec.
    fn responses(&self, seed: u64, payloads: &[Payload]) -> Vec<ResponsePayload> {
        let Some(list) = &self.list else {
            return Vec::new();
        };
        let mut rng = Rng::new(seed.rotate_left(59) ^ 0x4e5);
        let around = |entries: Vec<Value>, rng: &mut Rng| -> Value {
            let mut r = Map::new();
            r.insert(list.name.clone(), Value::Array(entries));
            if list.data {
                match rng.below(3) {
                    0 => {
                        r.insert("data".into(), Value::Null);
                    }
                    1 => {
                        r.insert("data".into(), json!({"hero": {"name": null}}));
                    }
                    _ => {}
                }
            }
            if let Some((name, value)) = &list.constant {
                r.insert(name.clone(), value.clone());
            }
            Value::Object(r)
        };
        let accepted: Vec<&Payload> = payloads
            .iter()
            .filter(|p| !p.refused && !p.schema_refuses)
            .collect();
        let mut out = Vec::new();
        for (i, group) in accepted.chunks(3).enumerate() {
            let value = around(group.iter().map(|p| p.value.clone()).collect(), &mut rng);
            let mut back = value.clone();
            back[&list.name] = Value::Array(group.iter().map(|p| p.back.clone()).collect());
            out.push(ResponsePayload {
                label: format!(
                    "response {i} ({})",
                    group
                        .iter()
                        .map(|p| p.label.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                value,
                codes: group
                    .iter()
                    .map(|p| p.code.as_ref().map(|c| c.1.clone()))
                    .collect(),
                back,
                refused: false,
            });
        }
        let refused = |label: &str, value: Value| ResponsePayload {
            label: label.to_owned(),
            back: value.clone(),
            value,
            codes: Vec::new(),
            refused: true,
        };
        out.push(refused("an empty list", around(Vec::new(), &mut rng)));
        let first = accepted.first().map(|p| p.value.clone());
        if let Some(first) = first {
            let mut corrupt = around(vec![first.clone()], &mut rng);
            let label = match &list.constant {
                Some((name, value)) => {
                    corrupt[name] = if value.is_string() {
                        json!(2)
                    } else {
                        json!("1")
                    };
                    "another response's constant"
                }
                None => {
                    corrupt
                        .as_object_mut()
                        .expect("an object")
                        .remove(&list.name);
                    "no list"
                }
            };
            out.push(refused(label, corrupt));
            if let Some(bad) = payloads.iter().find(|p| p.refused) {
                out.push(refused(
                    &format!("an entry no artifact accepts ({})", bad.label),
                    around(vec![first, bad.value.clone()], &mut rng),
                ));
            }
        }
        out
    }

    /// Gives about two thirds of the `one_of` types non-scalar types
    /// besides their scalars: an object type where there is one, and a
    /// list (of strings, or of an object type) in half of those and in
    /// every other. Only object types whose values cannot hold the
    /// `one_of`, so every value is finite. Drawn from a stream of its own, like the numbering; the
    /// values of those types are drawn from another (see
    /// [`Spec::one_of_draws`]).
    fn choose_one_of(&mut self, seed: u64) {
        let mut rng = Rng::new(seed.rotate_left(43) ^ 0x0e0f);
        self.side_seed = seed.rotate_left(7) ^ 0x5eed_0e0f;
        for i in 0..self.types.len() {
            if !matches!(self.types[i].1, TypeDef::OneOf(..)) || !rng.chance(70) {
                continue;
            }
            let objects: Vec<usize> = (0..self.types.len())
                .filter(|j| {
                    matches!(self.types[*j].1, TypeDef::Object { .. })
                        && !self.reaches(&Ty::Named(*j), i, &mut Vec::new())
                })
                .collect();
            let mut more = Vec::new();
            let object = !objects.is_empty();
            if !object || rng.chance(50) {
                let item = if !objects.is_empty() && rng.chance(50) {
                    Ty::Named(*rng.pick(&objects))
                } else {
                    Ty::Scalar(Scalar::String)
                };
                more.push(Ty::List(Box::new(item)));
            }
            if object {
                more.push(Ty::Named(*rng.pick(&objects)));
            }
            if let TypeDef::OneOf(_, _, m) = &mut self.types[i].1 {
                *m = more;
            }
        }
    }

    /// In three specs of ten a code deprecated in favour of the first, in
    /// three a removed code (`GONE_FOR_GOOD`), and in three of a numbered
    /// taxonomy a reserved number: numbers no code and no family has.
    /// Drawn from a stream of its own, like the numbering.
    fn choose_lifecycle(&mut self, seed: u64) {
        let mut rng = Rng::new(seed.rotate_left(17) ^ 0x11fe);
        if self.codes.len() > 1 && rng.chance(30) {
            self.deprecated = Some(1 + rng.below(self.codes.len() - 1));
        }
        let free = |spec: &Spec, from: i64| {
            (from..=99).find(|n| {
                spec.codes.iter().all(|c| c.number != *n)
                    && spec.families.iter().all(|f| !f.matches_number(*n))
                    && spec.removed != Some(*n)
            })
        };
        let removed = rng.chance(30);
        let reserved = rng.chance(30);
        // A family of another category must not claim its name.
        let claimed = self
            .families
            .iter()
            .any(|f| f.matches(REMOVED_CODE) && f.category != 0);
        if removed && !claimed {
            self.removed = if self.numbered {
                free(self, 1)
            } else {
                Some(0)
            };
        }
        if reserved && self.numbered {
            self.reserved = free(self, 0);
        }
    }

    /// Whether a value of `ty` may hold a value of the declared type `t`,
    /// at any depth (`seen`: the declared types already followed).
    fn reaches(&self, ty: &Ty, t: usize, seen: &mut Vec<usize>) -> bool {
        match ty {
            Ty::Named(n) if *n == t => true,
            Ty::Named(n) if seen.contains(n) => false,
            Ty::Named(n) => {
                seen.push(*n);
                match &self.types[*n].1 {
                    TypeDef::Enum(_) => false,
                    TypeDef::Object { members, .. } => {
                        members.iter().any(|m| self.reaches(&m.ty, t, seen))
                    }
                    TypeDef::OneOf(_, _, more) => more.iter().any(|m| self.reaches(m, t, seen)),
                    TypeDef::Union(_, variants) => variants
                        .iter()
                        .any(|(v, _)| self.reaches(&Ty::Named(*v), t, seen)),
                }
            }
            Ty::List(inner) | Ty::Map(inner) => self.reaches(inner, t, seen),
            Ty::Scalar(_) | Ty::Json | Ty::Lower | Ty::Format(_) => false,
        }
    }

    /// `format` on about a third of the string fields left (`uri` on half
    /// of the pinned ones, whose constants are URIs), and `pattern` on
    /// about two in five envelope members carrying the code name, the
    /// category or the message, and four in five of those carrying a string
    /// constant (three in five of the others become the string `1.0` with
    /// it): patterns every name, key, message and constant the spec and its
    /// payloads hold match. Drawn from a stream of its own, like
    /// the numbering; a value of a format takes one draw, as the string it
    /// replaces did.
    fn choose_constraints(&mut self, seed: u64) {
        let mut rng = Rng::new(seed.rotate_left(23) ^ 0xc0de_5eed);
        for (i, f) in self.fields.iter_mut().enumerate() {
            if !matches!(f.ty, Ty::Scalar(Scalar::String)) {
                continue;
            }
            if Some(i) == self.pinned {
                if rng.chance(50) {
                    f.ty = Ty::Format(0);
                }
            } else if rng.chance(35) {
                f.ty = Ty::Format(rng.below(FORMATS.len()));
            }
        }
        let Some(env) = &mut self.envelope else {
            return;
        };
        for m in env
            .outer
            .iter_mut()
            .chain(env.inner.iter_mut().flat_map(|i| i.2.iter_mut()))
        {
            m.pattern = match &m.carries {
                Carries::CodeName if rng.chance(40) => Some(NO_DIGITS),
                Carries::Category if rng.chance(40) => Some(LOWER_KEY),
                Carries::Message if rng.chance(40) => Some(PRINTABLE),
                Carries::Constant(Value::String(_)) if rng.chance(80) => Some(DOTTED),
                Carries::Constant(_) if rng.chance(60) => {
                    m.carries = Carries::Constant(json!("1.0"));
                    Some(DOTTED)
                }
                _ => None,
            };
        }
    }

    /// A copy of `payload` whose member with a `pattern` holds a string
    /// outside it (the code name, else the category, else the message):
    /// the schema refuses it in every variant.
    fn breaks_pattern(&self, payload: &Value) -> Option<Value> {
        let outside = [
            // A SCREAMING_SNAKE_CASE name, which only the pattern refuses.
            (Carries::CodeName, "LATER_CODE_2"),
            (Carries::Category, "Later_Category"),
            (Carries::Message, "said \"no\""),
        ];
        for (what, bad) in outside {
            if !self
                .members()
                .any(|m| m.carries == what && m.pattern.is_some())
            {
                continue;
            }
            let (path, key) = self.path_of(&what)?;
            let mut c = payload.clone();
            Spec::set(&mut c, &path, &key, json!(bad));
            return Some(c);
        }
        None
    }

    /// Code families, in half the specs whose envelope carries the code's
    /// name: one to three, each a prefix or suffix of a listed code's wire
    /// name (so that listed codes fall inside its pattern, and it takes
    /// their category) or a made-up text. A family `check` would refuse
    /// (shadowed by an earlier one, or claiming a listed code of another
    /// category) is not kept, nor one matching the later release's code
    /// [`Spec::unlisted`] sends, which stays a code of no family. Drawn
    /// from a stream of its own, like the numbering.
    fn choose_families(&mut self, seed: u64) {
        let mut rng = Rng::new(seed.rotate_left(47) ^ 0xfa51);
        let by_name = self.envelope.as_ref().is_none_or(|e| {
            e.outer
                .iter()
                .chain(e.inner.iter().flat_map(|i| i.2.iter()))
                .any(|m| m.carries == Carries::CodeName)
        });
        if !rng.chance(50) {
            return;
        }
        if !by_name {
            self.choose_range_families(&mut rng);
            return;
        }
        const MADE_UP: &[&str] = &["Throttl", "Zz", "_LIMIT", "urn:fam:", "Gone", "ED"];
        for k in 0..1 + rng.below(3) {
            let prefix = rng.chance(50);
            let (text, category) = if rng.chance(70) {
                let code = &self.codes[rng.below(self.codes.len())];
                let chars: Vec<char> = code.wire().chars().collect();
                if chars.is_empty() {
                    continue;
                }
                let n = 1 + rng.below(chars.len().min(5));
                let text: String = if prefix {
                    chars[..n].iter().collect()
                } else {
                    chars[chars.len() - n..].iter().collect()
                };
                (text, code.category)
            } else {
                (
                    (*rng.pick(MADE_UP)).to_owned(),
                    rng.below(self.categories.len()),
                )
            };
            let family = Family {
                name: format!("fam_{}", (b'a' + k as u8) as char),
                prefix,
                text,
                range: None,
                category,
            };
            if self.families.iter().any(|e| e.covers(&family)) || family.matches(LATER_CODE) {
                continue;
            }
            self.families.push(family);
            let claims_another = self.codes.iter().any(|c| {
                c.wire_names().any(|n| {
                    self.families
                        .iter()
                        .find(|f| f.matches(n))
                        .is_some_and(|f| f.category != c.category)
                })
            });
            if claims_another {
                self.families.pop();
            }
        }
    }

    /// Range families, where codes are told apart by number: around a
    /// listed code's number (so that it falls inside, and the family takes
    /// its category) or a made-up block of numbers no code has; kept as
    /// [`Spec::choose_families`] keeps them, and never over the later
    /// release's numbers (5000 to 5999, see [`Spec::unlisted`]).
    fn choose_range_families(&mut self, rng: &mut Rng) {
        if !self.numbered {
            return;
        }
        for k in 0..1 + rng.below(3) {
            let (lo, hi, category) = if rng.chance(60) {
                let code = &self.codes[rng.below(self.codes.len())];
                (
                    code.number - rng.below(5) as i64,
                    code.number + rng.below(5) as i64,
                    code.category,
                )
            } else {
                let lo = 200 + 100 * rng.below(8) as i64;
                (lo, lo + 99, rng.below(self.categories.len()))
            };
            if lo <= 5999 && hi >= 5000 {
                continue;
            }
            let family = Family {
                name: format!("fam_{}", (b'a' + k as u8) as char),
                prefix: false,
                text: String::new(),
                range: Some((lo, hi)),
                category,
            };
            if self.families.iter().any(|e| e.covers(&family)) {
                continue;
            }
            self.families.push(family);
            let claims_another = self.codes.iter().any(|c| {
                self.families
                    .iter()
                    .find(|f| f.matches_number(c.number))
                    .is_some_and(|f| f.category != c.category)
            });
            if claims_another {
                self.families.pop();
            }
        }
    }

    /// The family every reader gives the unlisted code number `n`.
    fn family_of_number(&self, n: i64) -> Option<FamilyAnswer> {
        if self.codes.iter().any(|c| c.number == n) {
            return None;
        }
        let f = self.families.iter().find(|f| f.matches_number(n))?;
        let cat = &self.categories[f.category];
        Some(FamilyAnswer {
            name: f.name.clone(),
            category: cat.key.clone(),
            retryable: cat.retryable,
            cause: cat.cause.to_owned(),
        })
    }

    /// The family every reader gives the unlisted code name `wire`.
    fn family_of(&self, wire: &str) -> Option<FamilyAnswer> {
        if self.codes.iter().any(|c| c.wire_names().any(|n| n == wire)) {
            return None;
        }
        let f = self.families.iter().find(|f| f.matches(wire))?;
        let cat = &self.categories[f.category];
        Some(FamilyAnswer {
            name: f.name.clone(),
            category: cat.key.clone(),
            retryable: cat.retryable,
            cause: cat.cause.to_owned(),
        })
    }

    fn ty(rng: &mut Rng, types: &[(String, TypeDef)], depth: usize) -> Ty {
        match rng.below(10) {
            0..=3 => Ty::Scalar(*rng.pick(&Scalar::ALL)),
            4 => Ty::Lower,
            5 | 6 if !types.is_empty() => Ty::Named(rng.below(types.len())),
            7 if depth > 0 => Ty::List(Box::new(Spec::ty(rng, types, depth - 1))),
            8 if depth > 0 => Ty::Map(Box::new(Spec::ty(rng, types, depth - 1))),
            _ => Ty::Scalar(Scalar::String),
        }
    }

    fn envelope(rng: &mut Rng, names: &mut Names) -> Envelope {
        let by_name = rng.chance(80);
        let by_number = !by_name || rng.chance(40);
        let nested = rng.chance(50);
        let inner_optional = nested && by_name && rng.chance(50);
        let mut code_members = Vec::new();
        if by_name {
            code_members.push(Member {
                name: names.take(rng, CODE_POOL),
                carries: Carries::CodeName,
                optional: false,
                // A flat envelope's code name may be absent too.
                absent_means: (!inner_optional && rng.chance(25)).then_some(0),
                pattern: None,
            });
        }
        if by_number {
            code_members.push(Member {
                name: names.take(rng, NUMBER_POOL),
                carries: Carries::Number,
                optional: by_name && rng.chance(30),
                absent_means: None,
                pattern: None,
            });
        }
        let mut others = Vec::new();
        let other = |carries: Carries, optional: bool, names: &mut Names, rng: &mut Rng| Member {
            name: names.take(rng, OTHER_POOL),
            carries,
            optional,
            absent_means: None,
            pattern: None,
        };
        if rng.chance(85) {
            let optional = rng.chance(30);
            others.push(other(Carries::Message, optional, names, rng));
        }
        for carries in [
            Carries::Category,
            Carries::Retryable,
            Carries::Cause,
            Carries::Hints,
        ] {
            if rng.chance(25) {
                let optional = rng.chance(30);
                others.push(other(carries, optional, names, rng));
            }
        }
        if rng.chance(60) {
            others.push(other(Carries::Context, false, names, rng));
        }
        if rng.chance(30) {
            let value = rng.pick(&[json!("2.0"), json!(false), json!(1)]).clone();
            others.push(other(Carries::Constant(value), false, names, rng));
        }
        // Interleave the code members with the others.
        for m in code_members {
            let at = rng.below(others.len() + 1);
            others.insert(at, m);
        }
        if !nested {
            return Envelope {
                outer: others,
                inner: None,
            };
        }
        // The code's object; each other member inside it or beside it.
        let wrap = names.take(rng, WRAP_POOL);
        let mut inner = Vec::new();
        let mut outer = Vec::new();
        for m in others {
            let code = matches!(m.carries, Carries::CodeName | Carries::Number);
            if code || rng.chance(60) {
                inner.push(m);
            } else {
                outer.push(m);
            }
        }
        Envelope {
            outer,
            inner: Some((wrap, inner_optional, inner)),
        }
    }

    fn members(&self) -> impl Iterator<Item = &Member> {
        self.envelope.iter().flat_map(|e| {
            e.outer
                .iter()
                .chain(e.inner.iter().flat_map(|i| i.2.iter()))
        })
    }

    fn absent_code(&self) -> Option<usize> {
        self.members().find_map(|m| m.absent_means)
    }
}

/// A YAML double-quoted string.
fn q(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

impl Spec {
    fn ty_name(&self, ty: &Ty) -> String {
        match ty {
            Ty::Scalar(s) => s.name().to_owned(),
            Ty::Json => "json".to_owned(),
            Ty::Lower | Ty::Format(_) => "string".to_owned(),
            Ty::Named(i) => self.types[*i].0.clone(),
            Ty::List(t) => format!("{}[]", self.ty_name(t)),
            Ty::Map(t) => format!("map<string, {}>", self.ty_name(t)),
        }
    }

    /// `type: ...` and what goes with it (`pattern`, `format`).
    fn ty_keys(&self, ty: &Ty) -> String {
        let constraint = match ty {
            Ty::Lower => ", pattern: \"^[a-z]+$\"".to_owned(),
            Ty::Format(f) => format!(", format: {}", FORMATS[*f].0),
            _ => String::new(),
        };
        format!("type: {}{constraint}", q(&self.ty_name(ty)))
    }

    fn yaml(&self, seed: u64) -> String {
        let mut y = String::new();
        let _ = writeln!(y, "# Generated by splice-agree from seed {seed}.");
        let _ = writeln!(
            y,
            "taxonomy:\n  name: agree-{seed}\n  version: 1.0.0\n  base_uri: https://example.com/agree"
        );
        if !self.numbered {
            y.push_str("  numbered: false\n");
        }
        if self.hints_optional {
            y.push_str("  hints: optional\n");
        }
        if self.per_category {
            y.push_str("  code_names: per_category\n");
        }
        if let Some(env) = &self.envelope {
            y.push_str("envelope:\n");
            // With a list of errors, the envelope is one entry of it.
            let indent = match &self.list {
                Some(list) => {
                    let _ = writeln!(
                        y,
                        "  {}:\n    list: true\n    doc: The errors.\n    members:",
                        q(&list.name)
                    );
                    "      "
                }
                None => "  ",
            };
            let inner_at = self.codes.len() % (env.outer.len() + 1);
            for (i, m) in env.outer.iter().enumerate() {
                if i == inner_at {
                    self.inner_yaml(&mut y, env, indent);
                }
                self.member_yaml(&mut y, m, indent);
            }
            if inner_at >= env.outer.len() {
                self.inner_yaml(&mut y, env, indent);
            }
            if let Some(list) = &self.list {
                if list.data {
                    y.push_str("  data: { type: json, optional: true, doc: The result. }\n");
                }
                if let Some((name, value)) = &list.constant {
                    let _ = writeln!(y, "  {}: {{ carries: constant, value: {value} }}", q(name));
                }
            }
        }
        y.push_str("categories:\n");
        for c in &self.categories {
            let _ = writeln!(y, "  {}:", c.key);
            if self.numbered {
                let _ = writeln!(y, "    range: [{}, {}]", c.range.0, c.range.1);
            }
            let _ = writeln!(
                y,
                "    description: The {} category.\n    retryable: {}\n    cause: {}",
                c.key, c.retryable, c.cause
            );
            if let Some((required, optional)) = &c.default_context {
                self.context_yaml(&mut y, required, optional);
            }
            if let Some(h) = &c.default_hint {
                let _ = writeln!(y, "    recovery_hints:\n      - {h}");
            }
        }
        if !self.types.is_empty() {
            y.push_str("types:\n");
            for (name, def) in &self.types {
                let _ = writeln!(y, "  {name}:\n    doc: The {name} type.");
                match def {
                    TypeDef::Enum(values) => {
                        y.push_str("    enum:\n");
                        for (v, wire) in values {
                            match wire {
                                Some(w) => {
                                    let _ = writeln!(y, "      - {{ name: {v}, wire: {} }}", q(w));
                                }
                                None => {
                                    let _ = writeln!(y, "      - {v}");
                                }
                            }
                        }
                    }
                    TypeDef::Object {
                        members,
                        recursive,
                        open,
                    } => {
                        if *open {
                            y.push_str("    open: true\n");
                        }
                        y.push_str("    members:\n");
                        for m in members {
                            let _ = write!(y, "      {}: {{ {}", m.name, self.ty_keys(&m.ty));
                            if let Some(w) = &m.wire {
                                let _ = write!(y, ", wire: {}", q(w));
                            }
                            if m.optional {
                                y.push_str(", optional: true");
                            }
                            if m.nullable {
                                y.push_str(", nullable: true");
                            }
                            y.push_str(", doc: A member. }\n");
                        }
                        if *recursive {
                            let _ = writeln!(
                                y,
                                "      children: {{ type: \"{name}[]\", optional: true, doc: The same nested. }}"
                            );
                        }
                    }
                    TypeDef::OneOf(scalars, null, more) => {
                        let mut items: Vec<String> =
                            scalars.iter().map(|s| s.name().to_owned()).collect();
                        items.extend(more.iter().map(|t| q(&self.ty_name(t))));
                        if *null {
                            items.push("\"null\"".into());
                        }
                        let _ = writeln!(y, "    one_of: [{}]", items.join(", "));
                    }
                    TypeDef::Union(discriminator, variants) => {
                        let _ = writeln!(
                            y,
                            "    union:\n      discriminator: {}\n      variants:",
                            q(discriminator)
                        );
                        for (t, tag) in variants {
                            let _ = writeln!(y, "        {}: {}", self.types[*t].0, q(tag));
                        }
                    }
                }
            }
        }
        if !self.fields.is_empty() {
            y.push_str("fields:\n");
            for f in &self.fields {
                let place = match f.place {
                    Place::TopLevel => "top_level",
                    Place::Context => "context",
                    Place::Envelope => "envelope",
                };
                let _ = write!(y, "  {}: {{ {}, in: {place}", f.name, self.ty_keys(&f.ty));
                if let Some(w) = &f.wire {
                    let _ = write!(y, ", wire: {}", q(w));
                }
                y.push_str(", doc: A field. }\n");
            }
        }
        if !self.families.is_empty() {
            y.push_str("families:\n");
            for f in &self.families {
                let rule = match f.range {
                    Some((lo, hi)) => format!("range: [{lo}, {hi}]"),
                    None => format!(
                        "{}: {}",
                        if f.prefix { "prefix" } else { "suffix" },
                        q(&f.text)
                    ),
                };
                let _ = writeln!(
                    y,
                    "  {}:\n    {rule}\n    category: {}\n    doc: The {} family.",
                    f.name, self.categories[f.category].key, f.name
                );
            }
        }
        if let Some(n) = self.reserved {
            let _ = writeln!(y, "reserved:\n  {n}: never given out");
        }
        y.push_str("codes:\n");
        if let Some(n) = self.removed {
            let _ = writeln!(y, "  {REMOVED_CODE}:");
            if self.numbered {
                let _ = writeln!(y, "    number: {n}");
            }
            let _ = writeln!(
                y,
                "    category: {}\n    since: 1.0.0\n    title: the gone error\n    message: \"gone\"\n    explanation: No longer sent.\n    recovery_hints:\n      - Upgrade\n    removed: {{ since: 1.0.0, reason: No longer sent. }}",
                self.categories[0].key
            );
        }
        for c in &self.codes {
            let cat = &self.categories[c.category];
            let _ = writeln!(y, "  {}:", c.id);
            if self.numbered {
                let _ = writeln!(y, "    number: {}", c.number);
            }
            let _ = writeln!(
                y,
                "    category: {}\n    since: 1.0.0\n    title: the {} error\n    message: {}\n    explanation: The {} error.",
                cat.key,
                c.id.to_lowercase(),
                q(&format!("{} happened", c.id.to_lowercase())),
                c.id
            );
            // What the category gives is inherited, not written.
            match (&c.hint, &cat.default_hint) {
                (Some(h), Some(d)) if h == d => {}
                (Some(h), _) => {
                    let _ = writeln!(y, "    recovery_hints:\n      - {h}");
                }
                (None, Some(_)) => y.push_str("    recovery_hints: []\n"),
                (None, None) => {}
            }
            if let Some(w) = &c.wire {
                let _ = writeln!(y, "    wire: {}", q(w));
            }
            if self.deprecated.is_some_and(|d| self.codes[d].id == c.id) {
                let _ = writeln!(
                    y,
                    "    deprecated: {{ since: 1.0.0, replaced_by: {} }}",
                    self.codes[0].id
                );
            }
            if !c.aliases.is_empty() {
                let aliases: Vec<String> = c.aliases.iter().map(|a| q(a)).collect();
                let _ = writeln!(y, "    aliases: [{}]", aliases.join(", "));
            }
            if let (Some(f), Some(v)) = (self.pinned, &c.constant) {
                let _ = writeln!(y, "    constants:\n      {}: {v}", self.fields[f].name);
            }
            match &cat.default_context {
                Some((r, o)) if *r == c.required && *o == c.optional => {}
                Some(_) => self.context_yaml(&mut y, &c.required, &c.optional),
                None if c.required.is_empty() && c.optional.is_empty() => {}
                None => self.context_yaml(&mut y, &c.required, &c.optional),
            }
        }
        y
    }

    /// `context:` of a code or a category (`context: {}` when both lists
    /// are empty, which opts a code out of its category's).
    fn context_yaml(&self, y: &mut String, required: &[usize], optional: &[usize]) {
        if required.is_empty() && optional.is_empty() {
            y.push_str("    context: {}\n");
            return;
        }
        y.push_str("    context:\n");
        let list = |ids: &[usize]| {
            ids.iter()
                .map(|i| self.fields[*i].name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !required.is_empty() {
            let _ = writeln!(y, "      required: [{}]", list(required));
        }
        if !optional.is_empty() {
            let _ = writeln!(y, "      optional: [{}]", list(optional));
        }
    }

    fn inner_yaml(&self, y: &mut String, env: &Envelope, indent: &str) {
        let Some((name, optional, members)) = &env.inner else {
            return;
        };
        let _ = writeln!(y, "{indent}{}:", q(name));
        if *optional {
            let _ = writeln!(y, "{indent}  optional: true");
        }
        let _ = writeln!(
            y,
            "{indent}  doc: The object holding the code.\n{indent}  members:"
        );
        for m in members {
            self.member_yaml(y, m, &format!("{indent}    "));
        }
    }

    fn member_yaml(&self, y: &mut String, m: &Member, indent: &str) {
        let carries = match &m.carries {
            Carries::CodeName => "code_name".to_owned(),
            Carries::Number => "number".to_owned(),
            Carries::Category => "category".to_owned(),
            Carries::Retryable => "retryable".to_owned(),
            Carries::Cause => "cause".to_owned(),
            Carries::Hints => "hints".to_owned(),
            Carries::Message => "message".to_owned(),
            Carries::Context => "context".to_owned(),
            Carries::Constant(v) => format!("constant, value: {v}"),
        };
        let _ = write!(y, "{indent}{}: {{ carries: {carries}", q(&m.name));
        if let Some(p) = m.pattern {
            let _ = write!(y, ", pattern: {}", q(p));
        }
        if m.optional {
            y.push_str(", optional: true");
        }
        if let Some(code) = m.absent_means {
            if self.fallbacks.is_empty() {
                let _ = write!(y, ", absent_means: {}", self.codes[code].id);
            } else {
                let each: Vec<String> = self
                    .fallbacks
                    .iter()
                    .map(|&(k, c)| format!("{}: {}", self.categories[k].key, self.codes[c].id))
                    .collect();
                let _ = write!(y, ", absent_means: {{ {} }}", each.join(", "));
            }
        }
        y.push_str(" }\n");
    }
}

impl Spec {
    /// A value of `ty`, `depth` levels of recursion left.
    fn value(&self, rng: &mut Rng, ty: &Ty, depth: usize) -> Value {
        match ty {
            Ty::Scalar(s) => s.value(rng),
            // One draw, as the string it replaces (`choose_side`) takes.
            Ty::Json => [
                Value::Null,
                json!("text"),
                json!(-3.5),
                json!([1, "two", null, false]),
                json!({"k": {"n": [true, null]}, "": ""}),
            ][rng.below(5)]
            .clone(),
            Ty::Lower => json!(*rng.pick(&["abc", "z", "splice"])),
            // One draw, as the string it replaces (`choose_constraints`).
            Ty::Format(f) => json!(*rng.pick(&FORMATS[*f].1)),
            Ty::List(t) => {
                let n = rng.below(3);
                Value::Array((0..n).map(|_| self.value(rng, t, depth)).collect())
            }
            Ty::Map(t) => {
                let mut m = Map::new();
                for k in ["k", "other key"].iter().take(rng.below(3)) {
                    m.insert((*k).to_owned(), self.value(rng, t, depth));
                }
                Value::Object(m)
            }
            Ty::Named(i) => match &self.types[*i].1 {
                TypeDef::Enum(values) => {
                    let (name, wire) = rng.pick(values);
                    json!(wire.as_deref().unwrap_or(name))
                }
                TypeDef::OneOf(scalars, null, more) => {
                    let scalar = if *null && rng.chance(25) {
                        Value::Null
                    } else {
                        rng.pick(scalars).value(rng)
                    };
                    if more.is_empty() {
                        return scalar;
                    }
                    let n = self.one_of_draws.get();
                    self.one_of_draws.set(n + 1);
                    match (n % (more.len() as u64 + 1)) as usize {
                        0 => scalar,
                        k => {
                            self.one_of_non_scalars
                                .set(self.one_of_non_scalars.get() + 1);
                            let mut side =
                                Rng::new(self.side_seed ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                            self.value(&mut side, &more[k - 1], depth)
                        }
                    }
                }
                TypeDef::Union(discriminator, variants) => {
                    let n = self.union_draws.get();
                    self.union_draws.set(n + 1);
                    let (t, tag) = &variants[variants.len() - 1 - n % variants.len()];
                    let mut v = self.value(rng, &Ty::Named(*t), depth);
                    if let Value::Object(m) = &mut v {
                        m.insert(discriminator.clone(), json!(tag));
                    }
                    v
                }
                TypeDef::Object {
                    members,
                    recursive,
                    open,
                } => {
                    let mut m = Map::new();
                    for member in members {
                        if member.optional && rng.chance(40) {
                            continue;
                        }
                        let wire = member.wire.as_deref().unwrap_or(&member.name);
                        let v = if member.nullable && rng.chance(30) {
                            Value::Null
                        } else {
                            self.value(rng, &member.ty, depth)
                        };
                        m.insert(wire.to_owned(), v);
                    }
                    if *recursive && depth > 0 && rng.chance(50) {
                        let n = 1 + rng.below(2);
                        let children = (0..n).map(|_| self.value(rng, ty, depth - 1)).collect();
                        m.insert("children".into(), Value::Array(children));
                    }
                    if *open {
                        // Drawn from no RNG: the other draws of a seed stay
                        // what they were without open types.
                        m.insert(
                            OTHER_MEMBER.to_owned(),
                            json!({"depth": depth, "any": [1, "two", null, true, {}]}),
                        );
                    }
                    Value::Object(m)
                }
            },
        }
    }

    /// A value of none of the JSON types `ty` allows.
    fn wrong(&self, ty: &Ty) -> Value {
        match ty {
            Ty::Scalar(s) => s.wrong(),
            Ty::Json => unreachable!("every value is a `json` (the corruption skips such fields)"),
            Ty::Lower => json!("UPPER"),
            // `format` is an annotation the schema's validators do not
            // check unless asked to: only another JSON type is refused.
            Ty::Format(_) => json!(12),
            Ty::List(_) => json!({"not": "a list"}),
            Ty::Map(_) => json!([1]),
            Ty::Named(i) => match &self.types[*i].1 {
                // A string not among the values may be one a later
                // release adds, so the schema may take it; a number is none.
                TypeDef::Enum(_) => json!(12),
                TypeDef::Object { .. } => json!([]),
                TypeDef::OneOf(..) => json!([[]]),
                TypeDef::Union(..) => json!("a string"),
            },
        }
    }

    /// Sets `key` of the object at `path` (created as needed) of `payload`.
    fn set(payload: &mut Value, path: &[&str], key: &str, value: Value) {
        let mut at = payload;
        for step in path {
            at = at
                .as_object_mut()
                .expect("objects on the way")
                .entry((*step).to_owned())
                .or_insert_with(|| json!({}));
        }
        at.as_object_mut()
            .expect("an object")
            .insert(key.to_owned(), value);
    }

    /// Removes `key` from the object at `path` in `payload`.
    fn remove(payload: &mut Value, path: &[&str], key: &str) {
        let mut at = payload;
        for step in path {
            at = &mut at[*step];
        }
        if let Some(object) = at.as_object_mut() {
            object.remove(key);
        }
    }

    fn payloads(&self, rng: &mut Rng) -> Vec<Payload> {
        let mut out = Vec::new();
        for (i, code) in self.codes.iter().enumerate() {
            for full in [false, true] {
                let (value, corrupt) = self.listed(rng, code, full, None);
                out.push(Payload {
                    label: format!(
                        "{} ({})",
                        code.id,
                        if full {
                            "every member"
                        } else {
                            "required members"
                        }
                    ),
                    back: value.clone(),
                    value,
                    code: Some((code.id.clone(), code.wire().to_owned())),
                    corrupt,
                    ..Default::default()
                });
            }
            // The first code with a message outside the message member's
            // pattern, which only the schema checks.
            if i == 0
                && self
                    .members()
                    .any(|m| m.carries == Carries::Message && m.pattern.is_some())
                && let Some((path, key)) = self.path_of(&Carries::Message)
            {
                let mut value = out.last().expect("the full payload").value.clone();
                Spec::set(&mut value, &path, &key, json!("said \"no\""));
                out.push(Payload {
                    label: format!("{} with a message outside its pattern", code.id),
                    back: value.clone(),
                    value,
                    code: Some((code.id.clone(), code.wire().to_owned())),
                    schema_refuses: true,
                    ..Default::default()
                });
            }
            for alias in &code.aliases {
                let (value, _) = self.listed(rng, code, true, Some(alias));
                let back = self.with_code_name(&value, code.wire());
                out.push(Payload {
                    label: format!("{} by its alias {alias}", code.id),
                    value,
                    back,
                    code: Some((code.id.clone(), code.wire().to_owned())),
                    ..Default::default()
                });
            }
            let fallback = if self.fallbacks.is_empty() {
                self.absent_code() == Some(i)
            } else {
                self.fallbacks.iter().any(|&(_, c)| c == i)
            };
            if fallback {
                let (value, _) = self.listed(rng, code, false, None);
                let value = self.without_code_name(&value);
                out.push(Payload {
                    label: format!("{} without its code name (absent_means)", code.id),
                    back: value.clone(),
                    value,
                    code: Some((code.id.clone(), code.wire().to_owned())),
                    ..Default::default()
                });
            }
            // The first code of a category without a fallback, without its
            // code name: no code at all.
            let first_of_category =
                self.codes.iter().position(|c| c.category == code.category) == Some(i);
            if !self.fallbacks.is_empty()
                && first_of_category
                && !self.fallbacks.iter().any(|&(k, _)| k == code.category)
            {
                let (value, _) = self.listed(rng, code, false, None);
                let value = self.without_code_name(&value);
                out.push(Payload {
                    label: format!(
                        "{} without its code name, of category {} without a fallback",
                        code.id, self.categories[code.category].key
                    ),
                    back: value.clone(),
                    value,
                    code: None,
                    refused: true,
                    ..Default::default()
                });
            }
        }
        let value = self.unlisted(rng);
        let later = value.clone();
        out.push(Payload {
            label: "a code of a later release".into(),
            back: value.clone(),
            family: self.later_family(&value),
            corrupt: self.breaks_pattern(&value),
            value,
            code: None,
            ..Default::default()
        });
        // The later code with a removed code's name (of its category), or
        // where codes are told apart by number only, a removed or reserved
        // number: no artifact accepts it.
        let by_name = self.path_of(&Carries::CodeName).is_some();
        let mut gone = Vec::new();
        match self.removed {
            Some(_) if by_name => gone.push((
                "the removed code's name",
                Carries::CodeName,
                json!(REMOVED_CODE),
            )),
            Some(n) => gone.push(("the removed code's number", Carries::Number, json!(n))),
            None => {}
        }
        if let (Some(n), false) = (self.reserved, by_name) {
            gone.push(("a reserved number", Carries::Number, json!(n)));
        }
        for (label, what, v) in gone {
            let Some((path, key)) = self.path_of(&what) else {
                continue;
            };
            let mut value = later.clone();
            Spec::set(&mut value, &path, &key, v);
            // In the removed code's category: under `per_category`, the
            // name in another category is another code.
            if let Some((path, key)) = self.path_of(&Carries::Category) {
                Spec::set(&mut value, &path, &key, json!(self.categories[0].key));
            }
            out.push(Payload {
                label: label.into(),
                back: value.clone(),
                value,
                code: None,
                refused: true,
                ..Default::default()
            });
        }
        // A later code of each family's text: of that family, or of an
        // earlier one that matches it too.
        for f in &self.families {
            if let Some((lo, hi)) = f.range {
                // The first number of the range no code has.
                let Some(n) = (lo..=hi).find(|n| self.codes.iter().all(|c| c.number != *n)) else {
                    continue;
                };
                let Some(of) = self.families.iter().find(|g| g.matches_number(n)) else {
                    continue;
                };
                let value = self.family_code(rng, "LATER_IN_RANGE", n, of.category);
                let corrupt = self.path_of(&Carries::Category).map(|(path, key)| {
                    let mut c = value.clone();
                    Spec::set(&mut c, &path, &key, json!("later_category"));
                    c
                });
                out.push(Payload {
                    label: format!("a later code numbered {n} of range family {}", f.name),
                    back: value.clone(),
                    value,
                    code: None,
                    family: self.family_of_number(n),
                    corrupt,
                    ..Default::default()
                });
                continue;
            }
            let wire = if f.prefix {
                format!("{}Later", f.text)
            } else {
                format!("Later{}", f.text)
            };
            let family = self.family_of(&wire);
            let Some(of) = self.families.iter().find(|g| g.matches(&wire)) else {
                continue;
            };
            if family.is_none() {
                // A listed code's name.
                continue;
            }
            let number = 6000 + rng.below(1000) as i64;
            let value = self.family_code(rng, &wire, number, of.category);
            // Its category is fixed by the family: another one is refused.
            let corrupt = self.path_of(&Carries::Category).map(|(path, key)| {
                let mut c = value.clone();
                Spec::set(&mut c, &path, &key, json!("later_category"));
                c
            });
            out.push(Payload {
                label: format!("a later code {wire:?} of family {}", f.name),
                back: value.clone(),
                value,
                code: None,
                family,
                corrupt,
                ..Default::default()
            });
        }
        if self.per_category {
            out.extend(self.mixed_pairs(&later));
        }
        out
    }

    /// Under `code_names: per_category`, the later code's payload `later`
    /// with a listed name: in a category this release does not know, and
    /// in each category of the spec that lists no code of that name. Each
    /// is a code of a later release, in every artifact.
    fn mixed_pairs(&self, later: &Value) -> Vec<Payload> {
        let Some((path, key)) = self.path_of(&Carries::Category) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut shared: Vec<&str> = Vec::new();
        for code in &self.codes {
            let name = code.wire();
            if !shared.contains(&name)
                && self
                    .codes
                    .iter()
                    .filter(|c| c.wire_names().any(|w| w == name))
                    .count()
                    > 1
            {
                shared.push(name);
            }
        }
        for name in shared {
            let categories = std::iter::once("later_category").chain(
                self.categories
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| {
                        !self
                            .codes
                            .iter()
                            .any(|c| c.category == *k && c.wire_names().any(|w| w == name))
                    })
                    .map(|(_, c)| c.key.as_str()),
            );
            for category in categories {
                let mut value = self.with_code_name(later, name);
                Spec::set(&mut value, &path, &key, json!(category));
                out.push(Payload {
                    label: format!("the listed name {name:?} in category {category:?}"),
                    back: value.clone(),
                    value,
                    code: None,
                    ..Default::default()
                });
            }
        }
        out
    }

    /// The family of the later release's code in `payload` (see
    /// [`Spec::unlisted`]): by its name, or by its number where codes are
    /// told apart by number.
    fn later_family(&self, payload: &Value) -> Option<FamilyAnswer> {
        if self.families.iter().any(|f| f.range.is_some()) {
            let (path, key) = self.path_of(&Carries::Number)?;
            let mut at = payload;
            for step in &path {
                at = &at[*step];
            }
            return self.family_of_number(at[key.as_str()].as_i64()?);
        }
        self.family_of(LATER_CODE)
    }

    /// A payload of the unlisted code `wire` numbered `number` of a family
    /// whose category is `category`.
    fn family_code(&self, rng: &mut Rng, wire: &str, number: i64, category: usize) -> Value {
        let code = Code {
            id: "FAMILY_CODE".into(),
            wire: Some(wire.to_owned()),
            aliases: Vec::new(),
            number,
            category,
            required: Vec::new(),
            optional: Vec::new(),
            constant: None,
            hint: Some("Upgrade".into()),
        };
        self.listed(rng, &code, false, None).0
    }

    /// The payload with the code name replaced by `name`.
    fn with_code_name(&self, payload: &Value, name: &str) -> Value {
        let mut out = payload.clone();
        if let Some((path, key)) = self.path_of(&Carries::CodeName) {
            Spec::set(&mut out, &path, &key, json!(name));
        }
        out
    }

    /// The path (objects, then the member) of the member carrying `what`.
    fn path_of(&self, what: &Carries) -> Option<(Vec<&str>, String)> {
        let Some(env) = &self.envelope else {
            let key = match what {
                Carries::CodeName => "error_code",
                Carries::Number => "code",
                Carries::Context => "context",
                _ => return None,
            };
            return Some((Vec::new(), key.to_owned()));
        };
        if let Some(m) = env.outer.iter().find(|m| &m.carries == what) {
            return Some((Vec::new(), m.name.clone()));
        }
        let (name, _, members) = env.inner.as_ref()?;
        let m = members.iter().find(|m| &m.carries == what)?;
        Some((vec![name.as_str()], m.name.clone()))
    }

    /// The payload of the `absent_means` code without its code name: the
    /// optional object holding it left out when nothing the code requires
    /// lives in it, else just the member.
    fn without_code_name(&self, payload: &Value) -> Value {
        let mut out = payload.clone();
        let Some((path, key)) = self.path_of(&Carries::CodeName) else {
            return out;
        };
        let env = self.envelope.as_ref().expect("absent_means is declared");
        if let (Some((wrap, true, _)), [_]) = (&env.inner, path.as_slice()) {
            let inner = &out[wrap.as_str()];
            let only_code = inner
                .as_object()
                .is_some_and(|o| o.keys().all(|k| *k == key));
            if only_code {
                out.as_object_mut()
                    .expect("an object")
                    .remove(wrap.as_str());
                return out;
            }
        }
        let mut at = &mut out;
        for step in &path {
            at = &mut at[*step];
        }
        at.as_object_mut().expect("an object").remove(&key);
        out
    }

    /// A payload of `code`: the required members and fields, every optional
    /// one too when `full`; the code name `alias` instead of its wire name;
    /// and a corrupted copy.
    fn listed(
        &self,
        rng: &mut Rng,
        code: &Code,
        full: bool,
        alias: Option<&str>,
    ) -> (Value, Option<Value>) {
        let cat = &self.categories[code.category];
        let mut p = json!({});
        let context_fields: Vec<usize> = code
            .required
            .iter()
            .chain(if full {
                code.optional.iter()
            } else {
                [].iter()
            })
            .copied()
            .collect();
        let code_name = alias.unwrap_or(code.wire()).to_owned();
        let message = format!("{} happened", code.id.to_lowercase());
        let has_context = context_fields
            .iter()
            .any(|f| self.fields[*f].place == Place::Context);
        match &self.envelope {
            None => {
                p["success"] = json!(false);
                p["error_code"] = json!(code_name);
                if self.numbered {
                    p["code"] = json!(code.number);
                }
                p["category"] = json!(cat.key);
                p["message"] = json!(message);
                p["retryable"] = json!(cat.retryable);
                p["cause"] = json!(cat.cause);
                p["recovery_hints"] = json!(code.hint.iter().collect::<Vec<_>>());
            }
            Some(env) => {
                let wrap = env.inner.as_ref().map(|i| i.0.as_str());
                let groups: [(&[Member], Vec<&str>); 2] = [
                    (&env.outer, Vec::new()),
                    (
                        env.inner.as_ref().map_or(&[][..], |i| &i.2[..]),
                        wrap.into_iter().collect(),
                    ),
                ];
                for (members, path) in groups {
                    if !path.is_empty() {
                        Spec::set(&mut p, &[], path[0], json!({}));
                    }
                    for m in members {
                        let v = match &m.carries {
                            Carries::CodeName => json!(code_name),
                            Carries::Number => json!(code.number),
                            Carries::Category => json!(cat.key),
                            Carries::Retryable => json!(cat.retryable),
                            Carries::Cause => json!(cat.cause),
                            Carries::Hints => json!(code.hint.iter().collect::<Vec<_>>()),
                            Carries::Message => json!(message),
                            Carries::Context => continue,
                            Carries::Constant(v) => v.clone(),
                        };
                        if m.optional && !full && m.carries != Carries::CodeName {
                            continue;
                        }
                        Spec::set(&mut p, &path, &m.name, v);
                    }
                }
            }
        }
        // The fields, each where it lives.
        let context = self.path_of(&Carries::Context);
        let holder: Vec<&str> = match &self.envelope {
            Some(Envelope {
                inner: Some((w, _, _)),
                ..
            }) => vec![w.as_str()],
            _ => Vec::new(),
        };
        if has_context && let Some((path, key)) = &context {
            Spec::set(&mut p, path, key, json!({}));
        }
        for f in &context_fields {
            let field = &self.fields[*f];
            let v = self.value(rng, &field.ty, 2);
            match field.place {
                Place::TopLevel => Spec::set(&mut p, &holder, field.wire(), v),
                Place::Envelope => Spec::set(&mut p, &[], field.wire(), v),
                Place::Context => {
                    let (path, key) = context.as_ref().expect("a context member");
                    let mut at = path.clone();
                    at.push(key);
                    Spec::set(&mut p, &at, field.wire(), v);
                }
            }
        }
        if let (Some(f), Some(v)) = (self.pinned, &code.constant) {
            Spec::set(&mut p, &holder, self.fields[f].wire(), v.clone());
        }
        // The corrupted copy: a required field of the wrong type, else the
        // code's constant changed, else the code name of the wrong type.
        let mut corrupt = p.clone();
        if let Some(f) = code.required.first() {
            let field = &self.fields[*f];
            if matches!(field.ty, Ty::Json) {
                // No value is not a JSON value: leave the field out.
                let mut at = holder.clone();
                if field.place == Place::Envelope {
                    at.clear();
                }
                if field.place == Place::Context {
                    let (path, key) = context.as_ref().expect("a context member");
                    at = path.clone();
                    at.push(key);
                }
                Spec::remove(&mut corrupt, &at, field.wire());
                return (p, Some(corrupt));
            }
            let wrong = self.wrong(&field.ty);
            match field.place {
                Place::TopLevel => Spec::set(&mut corrupt, &holder, field.wire(), wrong),
                Place::Envelope => Spec::set(&mut corrupt, &[], field.wire(), wrong),
                Place::Context => {
                    let (path, key) = context.as_ref().expect("a context member");
                    let mut at = path.clone();
                    at.push(key);
                    Spec::set(&mut corrupt, &at, field.wire(), wrong);
                }
            }
        } else if let Some(f) = self.pinned {
            Spec::set(
                &mut corrupt,
                &holder,
                self.fields[f].wire(),
                json!("https://example.com/other"),
            );
        } else if let Some((path, key)) = self.path_of(&Carries::CodeName) {
            Spec::set(&mut corrupt, &path, &key, json!(17.5));
        } else if let Some((path, key)) = self.path_of(&Carries::Number) {
            Spec::set(&mut corrupt, &path, &key, json!("seven"));
        }
        (p, Some(corrupt))
    }

    /// A payload of a code this spec does not list.
    fn unlisted(&self, rng: &mut Rng) -> Value {
        let number = 5000 + rng.below(1000) as i64;
        let code = Code {
            id: LATER_CODE.into(),
            wire: None,
            aliases: Vec::new(),
            number,
            category: 0,
            required: Vec::new(),
            optional: Vec::new(),
            constant: None,
            hint: Some("Upgrade".into()),
        };
        let (mut p, _) = self.listed(rng, &code, false, None);
        // Its category is one this release does not know either.
        if let Some((path, key)) = self.path_of(&Carries::Category) {
            Spec::set(&mut p, &path, &key, json!("later_category"));
        }
        p
    }
}

/// A spec and the next release of it: one change drawn from the seed.
pub struct Evolution {
    /// The seed both came from.
    pub seed: u64,
    /// What changed, for messages.
    pub change: String,
    /// The released spec, version 1.0.0.
    pub old: String,
    /// The next release, version 2.0.0 (so only the verdict of each change
    /// matters, not the version rule).
    pub new: String,
    /// Envelopes a server of the next release sends, from the generator's
    /// own model (see [`Sample::payloads`]).
    pub new_payloads: Vec<Value>,
}

/// The spec of `seed` and a release with one change: a code added,
/// removed, renamed, renumbered, moved to another category, given another
/// wire name or an alias; an enum value added; a field a code carries
/// added (required or optional) or dropped; a per-code constant changed; a
/// required member added to an object type some code's envelopes hold;
/// and the additions the released schema's unlisted envelope may refuse: a
/// code with a negative number, a code spelled outside
/// `SCREAMING_SNAKE_CASE`, a code removed and its spelling given to a new
/// code or an alias. In three specs of ten the released one has a tagged
/// union every code carries (`Shape`, one variant), and the change is then
/// often a variant added to it.
pub fn evolve(seed: u64) -> Evolution {
    let mut rng = Rng::new(seed);
    let mut spec = Spec::generate(&mut rng);
    spec.choose_numbering(seed);
    if rng.chance(30) {
        spec.add_union();
    }
    let old = spec.yaml(seed);
    let change = spec.mutate(&mut rng);
    let new = spec
        .yaml(seed)
        .replacen("  version: 1.0.0\n", "  version: 2.0.0\n", 1);
    let new_payloads = spec
        .payloads(&mut rng)
        .into_iter()
        .map(|p| p.value)
        .collect();
    Evolution {
        seed,
        change,
        old,
        new,
        new_payloads,
    }
}

impl Spec {
    /// Applies one change drawn from `rng`; says which. A change that does
    /// not apply to this spec (no enum to extend, say) falls back to adding
    /// a code.
    fn mutate(&mut self, rng: &mut Rng) -> String {
        let k = rng.below(self.codes.len());
        let by_name = self.envelope.as_ref().is_none_or(|e| {
            e.outer
                .iter()
                .chain(e.inner.iter().flat_map(|i| i.2.iter()))
                .any(|m| m.carries == Carries::CodeName)
        });
        let referenced = |spec: &Spec, k: usize| {
            spec.envelope.as_ref().is_some_and(|e| {
                e.outer
                    .iter()
                    .chain(e.inner.iter().flat_map(|i| i.2.iter()))
                    .any(|m| m.absent_means == Some(k))
            })
        };
        if rng.chance(40)
            && let Some(change) = self.add_variant()
        {
            return change;
        }
        match rng.below(15) {
            0 if self.codes.len() > 1 && !referenced(self, k) => {
                let code = self.codes.remove(k);
                if let Some(env) = &mut self.envelope {
                    for m in env
                        .outer
                        .iter_mut()
                        .chain(env.inner.iter_mut().flat_map(|i| i.2.iter_mut()))
                    {
                        if let Some(a) = &mut m.absent_means
                            && *a > k
                        {
                            *a -= 1;
                        }
                    }
                }
                format!("code {} removed", code.id)
            }
            1 => match self.free_id() {
                Some(id) => {
                    let before = std::mem::replace(&mut self.codes[k].id, id.clone());
                    format!("code {before} renamed {id}")
                }
                None => self.add_code(rng),
            },
            // Numbers exist only in a numbered taxonomy.
            2 if self.numbered => match self.free_number(rng, self.codes[k].category) {
                Some(n) => {
                    self.codes[k].number = n;
                    format!("code {} renumbered {n}", self.codes[k].id)
                }
                None => self.add_code(rng),
            },
            3 if self.categories.len() > 1 => {
                let to = (self.codes[k].category + 1) % self.categories.len();
                match self.free_number(rng, to) {
                    Some(n) => {
                        self.codes[k].category = to;
                        self.codes[k].number = n;
                        format!(
                            "code {} moved to {}",
                            self.codes[k].id, self.categories[to].key
                        )
                    }
                    None => self.add_code(rng),
                }
            }
            4 if by_name => {
                let wire = format!("urn:changed:{}", self.codes[k].id.to_lowercase());
                self.codes[k].wire = Some(wire.clone());
                format!("code {} wire name {wire}", self.codes[k].id)
            }
            5 if by_name => {
                let alias = format!("{}_OTHER", self.codes[k].id);
                self.codes[k].aliases.push(alias.clone());
                format!("code {} alias {alias}", self.codes[k].id)
            }
            6 => {
                for (name, def) in &mut self.types {
                    if let TypeDef::Enum(values) = def {
                        values.push(("delta".to_owned(), None));
                        return format!("type {name} value delta added");
                    }
                }
                self.add_code(rng)
            }
            n @ 7..=9 => {
                let code = &mut self.codes[k];
                let pinned = self.pinned;
                let carried = |f: &usize| code.required.contains(f) || code.optional.contains(f);
                if n == 9 && !code.optional.is_empty() {
                    let f = code.optional.remove(rng.below(code.optional.len()));
                    return format!("code {} no longer carries {}", code.id, self.fields[f].name);
                }
                let free: Vec<usize> = (0..self.fields.len())
                    .filter(|f| !carried(f) && Some(*f) != pinned)
                    .collect();
                if free.is_empty() {
                    return self.add_code(rng);
                }
                let f = free[rng.below(free.len())];
                let how = if n == 7 {
                    code.required.push(f);
                    "required"
                } else {
                    code.optional.push(f);
                    "optional"
                };
                format!("code {} carries {} ({how})", code.id, self.fields[f].name)
            }
            11 => {
                // An object type a field every envelope of some code has
                // holds directly gets a required member.
                let carried = |t: usize| {
                    self.fields.iter().enumerate().any(|(f, field)| {
                        mentions(&field.ty, t) && self.codes.iter().any(|c| c.required.contains(&f))
                    })
                };
                let Some(t) = (0..self.types.len())
                    .find(|t| matches!(self.types[*t].1, TypeDef::Object { .. }) && carried(*t))
                else {
                    return self.add_code(rng);
                };
                let (name, TypeDef::Object { members, .. }) = &mut self.types[t] else {
                    unreachable!("chosen as an object");
                };
                members.push(ObjMember {
                    name: "added_member".to_owned(),
                    wire: None,
                    ty: Ty::Scalar(Scalar::Boolean),
                    optional: false,
                    nullable: false,
                });
                format!("type {name} member added_member added (required)")
            }
            12 if self.numbered => {
                // A code with a negative number, in a category of its own
                // (the released schema's unlisted envelope refuses negative
                // numbers when every released number was non-negative).
                let category = match self.categories.iter().position(|c| c.range.1 < 0) {
                    Some(c) => c,
                    None => {
                        self.categories.push(Category {
                            key: "legacy".into(),
                            range: (-99, -1),
                            retryable: false,
                            cause: "input",
                            default_hint: None,
                            default_context: None,
                        });
                        self.categories.len() - 1
                    }
                };
                match self.add_code_in(rng, category) {
                    Some(k) => format!(
                        "code {} added with the negative number {}",
                        self.codes[k].id, self.codes[k].number
                    ),
                    None => "nothing changed".to_owned(),
                }
            }
            13 if by_name => {
                // A new code whose wire name is not SCREAMING_SNAKE_CASE.
                let category = rng.below(self.categories.len());
                match self.add_code_in(rng, category) {
                    Some(k) => {
                        let wire = format!("urn:new:{}", self.codes[k].id.to_lowercase());
                        self.codes[k].wire = Some(wire.clone());
                        format!("code {} added, spelled {wire}", self.codes[k].id)
                    }
                    None => "nothing changed".to_owned(),
                }
            }
            14 if by_name && self.codes.len() > 1 && !referenced(self, k) => {
                // A code removed and a new one spelled as it on the wire
                // (by `wire:`, or by an alias of another code).
                let removed = self.codes.remove(k);
                if let Some(env) = &mut self.envelope {
                    for m in env
                        .outer
                        .iter_mut()
                        .chain(env.inner.iter_mut().flat_map(|i| i.2.iter_mut()))
                    {
                        if let Some(a) = &mut m.absent_means
                            && *a > k
                        {
                            *a -= 1;
                        }
                    }
                }
                let spelling = removed.wire().to_owned();
                if rng.chance(50) {
                    let j = rng.below(self.codes.len());
                    self.codes[j].aliases.push(spelling.clone());
                    return format!(
                        "code {} removed, its spelling {spelling} made an alias of {}",
                        removed.id, self.codes[j].id
                    );
                }
                let category = rng.below(self.categories.len());
                match self.add_code_in(rng, category) {
                    Some(j) => {
                        self.codes[j].wire = Some(spelling.clone());
                        format!(
                            "code {} removed, code {} added spelled {spelling}",
                            removed.id, self.codes[j].id
                        )
                    }
                    None => format!("code {} removed", removed.id),
                }
            }
            10 if self.pinned.is_some() => {
                self.codes[k].constant = Some(json!("https://example.com/p/changed"));
                format!("code {} constant changed", self.codes[k].id)
            }
            _ => self.add_code(rng),
        }
    }

    /// A tagged union `Shape` (discriminator `kind`, one variant `Circle`)
    /// and a context field `shape` of it that every code carries, placed
    /// like the spec's first field (none without fields).
    fn add_union(&mut self) {
        let Some(place) = self.fields.first().map(|f| f.place) else {
            return;
        };
        self.types.push((
            "Circle".to_owned(),
            TypeDef::Object {
                members: vec![ObjMember {
                    name: "radius".to_owned(),
                    wire: None,
                    ty: Ty::Scalar(Scalar::Int64),
                    optional: false,
                    nullable: false,
                }],
                recursive: false,
                open: false,
            },
        ));
        let circle = self.types.len() - 1;
        self.types.push((
            "Shape".to_owned(),
            TypeDef::Union("kind".to_owned(), vec![(circle, "circle".to_owned())]),
        ));
        self.fields.push(Field {
            name: "shape".to_owned(),
            wire: None,
            ty: Ty::Named(self.types.len() - 1),
            place,
        });
        let f = self.fields.len() - 1;
        for c in &mut self.codes {
            c.required.push(f);
        }
    }

    /// A variant `Square` added to the union of [`Spec::add_union`].
    fn add_variant(&mut self) -> Option<String> {
        let u = self
            .types
            .iter()
            .position(|(_, d)| matches!(d, TypeDef::Union(..)))?;
        self.types.push((
            "Square".to_owned(),
            TypeDef::Object {
                members: vec![ObjMember {
                    name: "side".to_owned(),
                    wire: None,
                    ty: Ty::Scalar(Scalar::Int64),
                    optional: false,
                    nullable: false,
                }],
                recursive: false,
                open: false,
            },
        ));
        let square = self.types.len() - 1;
        let TypeDef::Union(_, variants) = &mut self.types[u].1 else {
            unreachable!("found as a union");
        };
        variants.push((square, "square".to_owned()));
        Some("type Shape variant square added".to_owned())
    }

    fn free_id(&self) -> Option<String> {
        CODE_IDS
            .iter()
            .find(|id| self.codes.iter().all(|c| c.id != **id))
            .map(|id| (*id).to_owned())
    }

    fn free_number(&self, rng: &mut Rng, category: usize) -> Option<i64> {
        let (lo, hi) = self.categories[category].range;
        let start = lo + rng.below((hi - lo + 1) as usize) as i64;
        (0..=hi - lo)
            .map(|i| lo + (start - lo + i) % (hi - lo + 1))
            .find(|n| self.codes.iter().all(|c| c.number != *n))
    }

    /// A code added with a fresh name and number, no wire name or alias,
    /// carrying some fields.
    fn add_code(&mut self, rng: &mut Rng) -> String {
        let category = rng.below(self.categories.len());
        match self.add_code_in(rng, category) {
            Some(k) => format!("code {} added", self.codes[k].id),
            None => "nothing changed".to_owned(),
        }
    }

    /// [`Spec::add_code`] in `category`: the new code's index, `None` when
    /// no name or number is free.
    fn add_code_in(&mut self, rng: &mut Rng, category: usize) -> Option<usize> {
        let id = self.free_id()?;
        let number = self.free_number(rng, category)?;
        let mut required = Vec::new();
        let mut optional = Vec::new();
        for f in 0..self.fields.len() {
            if Some(f) == self.pinned {
                continue;
            }
            match rng.below(3) {
                0 => required.push(f),
                1 => optional.push(f),
                _ => {}
            }
        }
        self.codes.push(Code {
            id: id.clone(),
            wire: None,
            aliases: Vec::new(),
            number,
            category,
            required,
            optional,
            constant: self.pinned.map(|_| json!("https://example.com/p/added")),
            hint: Some("Retry later".to_owned()),
        });
        Some(self.codes.len() - 1)
    }
}

/// Whether a value of `ty` is, or directly holds, the declared type `t`.
fn mentions(ty: &Ty, t: usize) -> bool {
    match ty {
        Ty::Named(n) => *n == t,
        Ty::List(inner) | Ty::Map(inner) => mentions(inner, t),
        Ty::Scalar(_) | Ty::Json | Ty::Lower | Ty::Format(_) => false,
    }
}
