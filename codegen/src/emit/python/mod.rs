//! Python types of the error envelope, `schema/error_envelope.py`.
//!
//! Why: Python client authors get no help from the JSON Schema in their type
//! checker, and the TypeScript declarations are of no use to them. This
//! module gives them the same contract as [`crate::emit_ts`], derived from
//! the same declarations ([`crate::context`]), so the Python, TypeScript and
//! JSON Schema views of an envelope cannot drift. Nothing about splice is
//! hard-coded: codes, categories, context fields and support types all come
//! from the [`Spec`], so another taxonomy gets its own module.
//!
//! Why `TypedDict` (and not dataclasses or classes with a parser): envelopes
//! arrive as parsed JSON, i.e. `dict`s from `json.loads`. A `TypedDict` types
//! such a dict as it is, with no conversion step and no runtime cost, and
//! mypy (like pyright) narrows a union of `TypedDict`s on a `Literal`
//! discriminant: after `if env["error_code"] == "MATCH_NOT_FOUND":` the
//! checker knows `env` is a `MatchNotFoundEnvelope`, whose `code`,
//! `category`, `retryable` and `cause` are literal types and whose required
//! context fields are `Required`. Fields a code may carry are `NotRequired`;
//! fields it may not carry are absent from its `TypedDict`, so reading them
//! after narrowing is a type error. Top-level fields and `context` members
//! are placed exactly as the JSON Schema places them.
//!
//! The module is standard library only (`typing`, `enum`, `dataclasses`) and
//! targets Python 3.11 (`typing.Required`/`NotRequired`, `enum.StrEnum`). It
//! also carries the per-code facts a client needs without reading YAML: a
//! frozen dataclass `CodeInfo` per emitted code in `CODES` (number, category,
//! retryability, cause, title, recovery hint templates, context field names,
//! deprecation).
//!
//! Generated names: `ErrorCode` (a `StrEnum`), the `Literal` aliases
//! `ErrorCodeName`, `Category` and `Cause`, one `<Code>Envelope` and one
//! `<Code>Context` `TypedDict` per code (`MATCH_NOT_FOUND` ->
//! `MatchNotFoundEnvelope`), the union `ErrorEnvelope`, `CodeInfo` and
//! `CODES`; `UnlistedCodeEnvelope` (a code of a later release of the same
//! major version), the union `AnyErrorEnvelope` of both, and `is_listed`, a
//! `typing.TypeGuard` from the one to the other. It narrows the true branch
//! only: a `TypeIs` would narrow both, but on a large union mypy is then
//! slow at every call site that narrows (minutes with Stripe's 175 codes).
//! Operation guards are `TypeGuard`s for the same reason. Declared object types
//! become `TypedDict`s, declared enums `Literal` aliases. `typing` and friends are used qualified
//! (`typing.Literal`), so a declared type name cannot shadow them. The output
//! is deterministic, in spec order.
//!
//! The keys above are splice's own envelope's. The `TypedDict`s follow
//! whatever envelope the spec declares ([`crate::envelope`]): one per code
//! and per nested object of it (`NotFoundEnvelope` holding a
//! `NotFoundEnvelopeError`), keys in wire names. mypy narrows a union of
//! `TypedDict`s on a key of the dict itself, so with a nested discriminant a
//! client narrows the object that holds it (`err = env["error"]`, then
//! `err["status"] == "NOT_FOUND"`).

mod syntax;
mod table;

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::context::{FieldType, OneOf, TypeDef};
use crate::describe::{CodeInfoDocs, GENERATED_HEADER, member_doc};
use crate::envelope::Carries;
use crate::layout::{FieldSlot, Form, Layout, Object, Slot};
use crate::names;
use crate::spec::{ANY_ENVELOPE, Cause, Code, Lifecycle, Spec, UNLISTED_ENVELOPE};

use syntax::{
    Key, blank_lines, comment, docstring, literal_alias, py_bool, py_literal, py_str, typed_dict,
};
use table::{code_info, families, is_listed, operations, subscript, violation_kinds};

/// The module of a checked spec.
pub fn emit(spec: &Spec) -> String {
    let layout = Layout::of(spec);
    let mut out = String::new();
    let name = &spec.taxonomy.name.value;
    let version = &spec.taxonomy.version.value;
    let _ = writeln!(
        out,
        "# {GENERATED_HEADER}\n\
         # {} error taxonomy {version}; JSON Schema: {}",
        crate::text::comment_line(name),
        crate::text::comment_line(&spec.taxonomy.schema_id())
    );
    docstring(
        &mut out,
        "",
        &format!(
            "Python types of the {name} error envelope (taxonomy {version}).\n\n\
             Envelopes arrive as parsed JSON: annotate the dict as `AnyErrorEnvelope` (a\n\
             server of a later minor release may send a code this module does not list),\n\
             narrow it with `is_listed(env)` to `ErrorEnvelope`, then {}\n\
             TypedDict. `CODES` maps every code to its {}category, retryability,\n\
             cause and recovery hints. Standard library only; Python 3.11 or later.",
            how_to_narrow(&layout),
            if spec.taxonomy.numbered() {
                "number, "
            } else {
                ""
            }
        ),
    );
    out.push_str("\nimport dataclasses\nimport enum\nimport typing\n\n");
    let _ = writeln!(out, "TAXONOMY_NAME: typing.Final = {}", py_str(name));
    let _ = writeln!(
        out,
        "TAXONOMY_VERSION: typing.Final = {}",
        py_str(&version.to_string())
    );
    let _ = writeln!(
        out,
        "SCHEMA_ID: typing.Final = {}\n",
        py_str(&spec.taxonomy.schema_id())
    );

    let codes: Vec<&Code> = spec.emitted_codes().collect();
    comment(&mut out, "", "Every error code an envelope may carry.");
    literal_alias(
        &mut out,
        "ErrorCodeName",
        codes.iter().flat_map(|c| c.wire_names()).map(py_str),
    );

    blank_lines(&mut out, 2);
    let _ = writeln!(out, "class ErrorCode(enum.StrEnum):");
    docstring(
        &mut out,
        "    ",
        &if layout.discriminant().by_name {
            format!(
                "Every error code an envelope may carry, as an enum (`ErrorCode({})`).",
                subscript("env", &layout.discriminant().names())
            )
        } else {
            "Every error code of the taxonomy, as an enum.".to_string()
        },
    );
    out.push('\n');
    for code in &codes {
        if let Lifecycle::Deprecated {
            since, replaced_by, ..
        } = &code.lifecycle
        {
            comment(
                &mut out,
                "    ",
                &format!(
                    "Deprecated since {}: use {}.",
                    since.value, replaced_by.value
                ),
            );
        }
        let _ = writeln!(out, "    {0} = {1}", code.name.value, py_str(code.wire()));
    }
    let aliases: Vec<String> = codes
        .iter()
        .flat_map(|c| {
            c.aliases
                .iter()
                .map(move |a| format!("{}: cls.{}", py_str(&a.value), c.name.value))
        })
        .collect();
    if !aliases.is_empty() {
        out.push_str(
            "\n    @classmethod\n    def _missing_(cls, value: object) -> \"ErrorCode | None\":\n",
        );
        docstring(
            &mut out,
            "        ",
            "Aliases: other names on the wire of a code.",
        );
        let _ = writeln!(
            out,
            "        aliases: dict[object, ErrorCode] = {{{}}}\n        return aliases.get(value)",
            aliases.join(", ")
        );
    }
    blank_lines(&mut out, 2);

    comment(&mut out, "", "The category of an error code.");
    literal_alias(
        &mut out,
        "Category",
        spec.categories.iter().map(|c| py_str(&c.key.value)),
    );
    comment(
        &mut out,
        "",
        "Who is to blame: the caller's input, the environment, or the server itself.",
    );
    literal_alias(
        &mut out,
        "Cause",
        Cause::ALL.iter().map(|c| py_str(c.as_str())),
    );

    // Enums first: they reference nothing. Then objects in spec order; a
    // reference to an object declared later is quoted (a forward reference).
    for def in &spec.types {
        if def.values().is_some() {
            comment(&mut out, "", &def.doc.value);
            literal_alias(
                &mut out,
                &def.name.value,
                def.wire_values().into_iter().map(py_str),
            );
        }
    }
    let mut defined: HashSet<&str> = HashSet::new();
    // Unions of scalars reference built-in types only.
    for def in &spec.types {
        if let Some(o) = def.one_of().filter(|o| o.is_scalar()) {
            one_of_alias(&mut out, def, o, &defined, false);
            defined.insert(&def.name.value);
        }
    }
    // Open objects reference nothing: a mapping (see `open_type`).
    for def in spec.types.iter().filter(|d| d.is_object() && d.open) {
        open_type(&mut out, &def.name.value, def, &defined);
        defined.insert(&def.name.value);
    }
    for def in spec.types.iter().filter(|d| d.is_object() && !d.open) {
        object_type(&mut out, def, &defined);
        defined.insert(&def.name.value);
    }
    // Unions last: one TypedDict per variant (its members and the
    // discriminator pinned to the tag), and the union of them.
    for def in &spec.types {
        let Some(u) = def.union() else { continue };
        let mut names = Vec::new();
        for v in &u.variants {
            let Some(vdef) = spec.type_def(&v.ty.value) else {
                continue;
            };
            let name = format!("{}{}", def.name.value, v.ty.value);
            if vdef.open {
                open_type(&mut out, &name, vdef, &defined);
                names.push(name);
                continue;
            }
            let mut keys = vec![Key {
                name: u.discriminator.value.clone(),
                ty: format!("typing.Literal[{}]", py_str(&v.tag.value)),
                doc: format!("Always {} for a `{}`.", v.tag.value, v.ty.value),
            }];
            keys.extend(member_keys(vdef, &defined));
            typed_dict(&mut out, &name, &vdef.doc.value, &keys);
            names.push(name);
        }
        comment(&mut out, "", &def.doc.value);
        let _ = writeln!(
            out,
            "{}: typing.TypeAlias = {}",
            def.name.value,
            names.join(" | ")
        );
        defined.insert(&def.name.value);
    }
    // A `one_of` of lists, objects or enums may name a type declared
    // after it, or be named by one declared before: its alias is a string
    // (a forward reference mypy reads; nothing evaluates it at run time).
    let every: HashSet<&str> = spec.types.iter().map(|d| d.name.value.as_str()).collect();
    for def in &spec.types {
        let Some(o) = def.one_of().filter(|o| !o.is_scalar()) else {
            continue;
        };
        blank_lines(&mut out, 2);
        one_of_alias(&mut out, def, o, &every, true);
        defined.insert(&def.name.value);
    }

    // A violation kind arrives inside another envelope: no type of its own.
    let enveloped: Vec<&Code> = codes
        .iter()
        .copied()
        .filter(|c| !c.is_violation_kind())
        .collect();
    for code in &enveloped {
        code_types(&mut out, &layout, code, &defined);
    }

    blank_lines(&mut out, 2);
    comment(
        &mut out,
        "",
        &format!(
            "An error envelope: compare `{}` with a code {} to narrow it to one code.",
            layout.discriminant().dotted(),
            if layout.discriminant().by_name {
                "name"
            } else {
                "number"
            }
        ),
    );
    union_alias(&mut out, "ErrorEnvelope", &enveloped);
    unlisted(&mut out, &layout, &defined);
    response(&mut out, &layout, &defined);
    for op in &spec.operations {
        blank_lines(&mut out, 2);
        comment(
            &mut out,
            "",
            &format!("The errors of operation `{}`: {}", op.wire(), op.doc.value),
        );
        let raised: Vec<&Code> = spec
            .operation_codes(op)
            .into_iter()
            .filter(|c| !c.is_violation_kind())
            .collect();
        union_alias(&mut out, &op.error_type_name(), &raised);
    }

    blank_lines(&mut out, 2);
    out.push_str("@dataclasses.dataclass(frozen=True)\nclass CodeInfo:\n");
    docstring(
        &mut out,
        "    ",
        if layout.carries("hints") {
            "What the taxonomy says about one error code.\n\n\
             `recovery_hints` are the spec's templates: an envelope carries them with\n\
             their `{placeholders}` filled in, the general ones always and a conditional\n\
             one (`hint_conditions[i]` is `(field, values)`) only when its context field\n\
             has one of the values."
        } else {
            "What the taxonomy says about one error code.\n\n\
             `recovery_hints` are the spec's templates, with their `{placeholders}`; the\n\
             envelope does not carry them. A conditional one (`hint_conditions[i]` is\n\
             `(field, values)`) applies only when its context field has one of the values."
        },
    );
    out.push('\n');
    let docs = CodeInfoDocs::of(&layout);
    let declared_fields = [
        (
            "retry_classes",
            "tuple[str, ...]",
            docs.retry_classes.as_deref(),
        ),
        (
            "attributes",
            "typing.Mapping[str, str | int | bool]",
            docs.attributes.as_deref(),
        ),
    ]
    .into_iter()
    .filter_map(|(f, t, d)| Some((f, t, d?)));
    for (field, ty, text) in [
        ("name", "ErrorCodeName", docs.name.as_str()),
        ("number", "int", docs.number.as_str()),
        ("category", "Category", "Its category."),
        ("retryable", "bool", docs.retryable.as_str()),
        ("cause", "Cause", "Who is to blame."),
        ("title", "str", "One-line title."),
    ]
    .into_iter()
    // A taxonomy without numbers: `CodeInfo` has no `number`.
    .filter(|(field, ..)| *field != "number" || spec.taxonomy.numbered())
    .chain(declared_fields)
    .chain([
        (
            "recovery_hints",
            "tuple[str, ...]",
            "Recovery hint templates, most relevant first.",
        ),
        (
            "hint_conditions",
            "tuple[tuple[str, tuple[str, ...]] | None, ...]",
            "Per hint: None (general), or the field and values for which it is sent.",
        ),
        (
            "required_fields",
            "tuple[str, ...]",
            "Context fields every envelope of this code carries.",
        ),
        (
            "optional_fields",
            "tuple[str, ...]",
            "Context fields an envelope of this code may carry.",
        ),
        (
            "deprecated_since",
            "str | None",
            "The taxonomy version that deprecated the code, if it is deprecated.",
        ),
        (
            "replaced_by",
            "ErrorCodeName | None",
            "The code to use instead, if it is deprecated.",
        ),
    ]) {
        comment(&mut out, "    ", text);
        let _ = writeln!(out, "    {field}: {ty}");
    }

    blank_lines(&mut out, 2);
    comment(
        &mut out,
        "",
        if layout.discriminant().per_category() {
            "Every error code an envelope may carry, by (category, name), in spec order."
        } else {
            "Every error code an envelope may carry, by name, in spec order."
        },
    );
    // Under `code_names: per_category` a name tells a code only within its
    // category: the table is keyed by (category, name).
    let per_category = layout.discriminant().per_category();
    let key = |code: &Code, name: &str| {
        if per_category {
            format!("({}, {})", py_str(&code.category.value), py_str(name))
        } else {
            py_str(name)
        }
    };
    let _ = writeln!(
        out,
        "CODES: typing.Final[dict[{}, CodeInfo]] = {{",
        if per_category {
            "tuple[str, str]"
        } else {
            "str"
        }
    );
    for code in &codes {
        code_info(&mut out, spec, code, &key(code, code.wire()));
    }
    out.push_str("}\n");
    for code in &codes {
        for alias in &code.aliases {
            let _ = writeln!(
                out,
                "CODES[{}] = CODES[{}]",
                key(code, &alias.value),
                key(code, code.wire())
            );
        }
    }
    if !spec.envelope.declared || codes.iter().any(|c| c.is_violation_kind()) {
        violation_kinds(&mut out, &layout, &codes);
    }
    if !layout.discriminant().by_name {
        blank_lines(&mut out, 2);
        comment(&mut out, "", "The number of every code this release lists.");
        let numbers: String = enveloped
            .iter()
            .filter_map(|c| c.number())
            .map(|n| format!("        {n},\n"))
            .collect();
        let _ = writeln!(
            out,
            "LISTED_NUMBERS: typing.Final[frozenset[int]] = frozenset(\n    {{\n{numbers}    }}\n)"
        );
    }
    is_listed(&mut out, &layout);
    families(&mut out, &layout);
    operations(&mut out, &layout);
    out
}

/// `name: typing.TypeAlias = typing.Union[...]` of the envelopes of
/// `codes` (`typing.Never` when there is none).
fn union_alias(out: &mut String, name: &str, codes: &[&Code]) {
    if codes.is_empty() {
        let _ = writeln!(out, "{name}: typing.TypeAlias = typing.Never");
    } else {
        let _ = writeln!(out, "{name}: typing.TypeAlias = typing.Union[");
        for code in codes {
            let _ = writeln!(out, "    {},", code.envelope_type_name());
        }
        out.push_str("]\n");
    }
}

/// The module docstring's words on narrowing an `ErrorEnvelope` to one
/// code's `TypedDict`, then a line break: on the discriminant itself when it
/// is a top-level member, else on the object that holds it (a type checker
/// narrows `err = env["error"]` on `err["status"]`, not `env`).
fn how_to_narrow(layout: &Layout<'_>) -> String {
    let path = layout.discriminant().names();
    let what = if layout.discriminant().by_name {
        "name"
    } else {
        "number"
    };
    match path.split_last() {
        Some((last, [])) => format!(
            "compare\n`{}` with a code {what} to narrow it to that code's",
            subscript("env", &[last])
        ),
        Some((last, holder)) => format!(
            "take\n`err = {}` and compare `{}` with a code {what}\nto narrow `err` to that code's",
            subscript("env", holder),
            subscript("err", &[last])
        ),
        None => "narrow it to a code's".to_string(),
    }
}

/// The envelope of a code this release does not list, and the union of
/// everything a server of the same major version may send (the published
/// schema's last variant; see `emit_schema`'s forward compatibility).
fn unlisted(out: &mut String, layout: &Layout<'_>, defined: &HashSet<&str>) {
    envelope_dicts(
        out,
        layout,
        &layout.envelope(Form::Unlisted),
        &Dicts {
            code: None,
            name: UNLISTED_ENVELOPE.to_string(),
            defined,
        },
        &format!(
            "An envelope whose `{}` this release does not list: a server of a later release \
             of the same major version sent it. Handle it by the members every envelope has.",
            layout.discriminant().dotted()
        ),
    );
    blank_lines(out, 2);
    comment(
        out,
        "",
        "What any server of the same major version may send; `is_listed` narrows it.",
    );
    let _ = writeln!(
        out,
        "{ANY_ENVELOPE}: typing.TypeAlias = ErrorEnvelope | {UNLISTED_ENVELOPE}"
    );
}

/// `ErrorResponse`: the response around the list of envelopes (a member
/// `list: true`). Nothing for a spec without a list.
fn response(out: &mut String, layout: &Layout<'_>, defined: &HashSet<&str>) {
    use crate::envelope::Holds;
    let Some(response) = layout.response() else {
        return;
    };
    let keys: Vec<Key> = response
        .members
        .iter()
        .map(|m| {
            let (ty, doc) = match &m.holds {
                Holds::List => (
                    format!("list[{ANY_ENVELOPE}]"),
                    "The errors, at least one.".to_owned(),
                ),
                Holds::Constant(v) => (
                    format!("typing.Literal[{}]", py_literal(v)),
                    format!("Always {v}."),
                ),
                Holds::Typed { .. } => (
                    py_type(m.ty().expect("a typed member has its type"), defined),
                    format!("The response's `{}`.", m.name.value),
                ),
            };
            let required = if m.required {
                "Required"
            } else {
                "NotRequired"
            };
            Key {
                name: m.name.value.clone(),
                ty: format!("typing.{required}[{ty}]"),
                doc: m.doc.as_ref().map_or(doc, |d| d.value.clone()),
            }
        })
        .collect();
    typed_dict(
        out,
        crate::names::ERROR_RESPONSE,
        &format!(
            "The response around the errors: `{}` holds at least one envelope;\n\
             `codes_of` reads the code of each.",
            response.list().name.value
        ),
        &keys,
    );
}

fn object_type(out: &mut String, def: &TypeDef, defined: &HashSet<&str>) {
    let keys = member_keys(def, defined);
    typed_dict(out, &def.name.value, &def.doc.value, &keys);
}

/// A `one_of` type: the alias of the union of its types (and `None` when
/// it lists `null`). `quoted` writes the union as a string, a forward
/// reference mypy reads and nothing evaluates at run time, for a union that
/// names types declared after it.
fn one_of_alias(out: &mut String, def: &TypeDef, o: &OneOf, known: &HashSet<&str>, quoted: bool) {
    comment(out, "", &def.doc.value);
    let mut types: Vec<String> = o.types.iter().map(|t| py_type(&t.value, known)).collect();
    if o.null.is_some() {
        types.push("None".into());
    }
    let union = types.join(" | ");
    let union = if quoted { py_str(&union) } else { union };
    let _ = writeln!(out, "{}: typing.TypeAlias = {union}\n", def.name.value);
}

/// An open object type (`open: true`): `typing.Mapping[str, object]`, its
/// listed members in the comment. A `TypedDict` refuses keys it does not
/// list in a dict display, and mypy (through 2.4) does not implement PEP
/// 728's `extra_items`, which would allow them; a mapping admits every
/// value the schema admits, and a reader narrows the members it needs.
fn open_type(out: &mut String, name: &str, def: &TypeDef, defined: &HashSet<&str>) {
    blank_lines(out, 2);
    let mut text = format!(
        "{}\n\nOpen: it may hold members it does not list. Listed members:",
        def.doc.value
    );
    for k in member_keys(def, defined) {
        let _ = write!(text, "\n  {}: {} -- {}", py_str(&k.name), k.ty, k.doc);
    }
    comment(out, "", &text);
    let _ = writeln!(
        out,
        "{name}: typing.TypeAlias = typing.Mapping[str, object]\n"
    );
}

/// The keys of an object type's `TypedDict`.
fn member_keys(def: &TypeDef, defined: &HashSet<&str>) -> Vec<Key> {
    def.members()
        .iter()
        .map(|m| {
            let mut ty = py_type(&m.ty.value, defined);
            if m.nullable {
                // A forward reference is a string, which `| None` cannot
                // join when the class is built: the whole is one string.
                ty = match ty.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                    Some(name) => py_str(&format!("{name} | None")),
                    None => format!("{ty} | None"),
                };
            }
            Key {
                name: m.wire().to_owned(),
                ty: if m.required {
                    ty
                } else {
                    format!("typing.NotRequired[{ty}]")
                },
                doc: format!(
                    "{}{}",
                    m.doc.value,
                    crate::context::constraint_note(m.pattern.as_ref(), m.format.as_ref())
                ),
            }
        })
        .collect()
}

/// The key of a declared field in a `TypedDict` of `form`: a code's
/// constant as a `Literal`, `Required` or `NotRequired` as the layout says.
fn field_key(f: &FieldSlot<'_>, form: Form<'_>, defined: &HashSet<&str>) -> Key {
    let ty = match &f.constant {
        Some(v) => format!("typing.Literal[{}]", py_literal(v)),
        None => py_type(f.field.ty(), defined),
    };
    let ty = match (form, f.presence.is_required()) {
        (Form::Code(_), true) => format!("typing.Required[{ty}]"),
        _ => format!("typing.NotRequired[{ty}]"),
    };
    Key {
        name: f.field.wire().to_string(),
        ty,
        doc: f.field.doc().to_string(),
    }
}

/// `<Code>Context` and `<Code>Envelope` of one emitted code.
fn code_types(out: &mut String, layout: &Layout<'_>, code: &Code, defined: &HashSet<&str>) {
    let form = Form::Code(code);
    if let Some(context) = layout.path_to("context").and_then(|p| p.last().copied()) {
        let context_keys: Vec<Key> = layout
            .context_fields(form)
            .iter()
            .map(|f| field_key(f, form, defined))
            .collect();
        typed_dict(
            out,
            &code.context_type_name(),
            &format!(
                "The `{}` object of an envelope whose {} is `{}`.",
                context.name.value,
                layout.discriminant().dotted(),
                code.name.value
            ),
            &context_keys,
        );
    }

    let mut doc = format!("{}: {}.", code_span_number(code), code.title.value);
    if let Lifecycle::Deprecated {
        since, replaced_by, ..
    } = &code.lifecycle
    {
        let _ = write!(
            doc,
            "\n\nDeprecated since {}: use `{}`.",
            since.value, replaced_by.value
        );
    }
    envelope_dicts(
        out,
        layout,
        &layout.envelope(form),
        &Dicts {
            code: Some(code),
            name: code.envelope_type_name(),
            defined,
        },
        &doc,
    );
}

/// What [`envelope_dicts`] builds: one code's `TypedDict`s (`code`) or the
/// unlisted ones.
struct Dicts<'a> {
    code: Option<&'a Code>,
    /// The `TypedDict` of the top level; a nested object's is this name
    /// followed by its path (`NotFoundEnvelopeError`).
    name: String,
    /// The declared types already written (a later one is quoted).
    defined: &'a HashSet<&'a str>,
}

/// The `TypedDict` of the envelope object `object`, after those of its
/// nested objects (which it names), its keys in the layout's order.
fn envelope_dicts(
    out: &mut String,
    layout: &Layout<'_>,
    object: &Object<'_>,
    dicts: &Dicts<'_>,
    doc: &str,
) {
    let spec = layout.spec();
    let form = match dicts.code {
        Some(code) => Form::Code(code),
        None => Form::Unlisted,
    };
    let dict_name = |path: &[&str]| names::python_object_dict(&dicts.name, path);
    let unlisted = dicts.code.is_none();
    let mut keys = Vec::new();
    for slot in &object.slots {
        let m = match slot {
            Slot::Field(f) => {
                keys.push(field_key(f, form, dicts.defined));
                continue;
            }
            slot => slot
                .member()
                .expect("a slot that is not a field is a member"),
        };
        let ty = match (slot, &m.carries, dicts.code) {
            (Slot::Object { object: inner, .. }, _, _) => {
                let text = m.doc.as_ref().map_or_else(
                    || format!("The `{}` object of {}.", m.name.value, dicts.name),
                    |d| d.value.clone(),
                );
                envelope_dicts(out, layout, inner, dicts, &text);
                dict_name(&inner.names())
            }
            // As in the schema: `context` is required when a context field is.
            (Slot::Context { presence, .. }, _, Some(code)) => {
                if presence.is_required() {
                    format!("typing.Required[{}]", code.context_type_name())
                } else {
                    format!("typing.NotRequired[{}]", code.context_type_name())
                }
            }
            (Slot::Context { .. }, _, None) => "typing.NotRequired[dict[str, object]]".into(),
            (_, Carries::Constant(v), _) => format!("typing.Literal[{}]", py_literal(v)),
            (_, Carries::CodeName, Some(c)) => format!(
                "typing.Literal[{}]",
                c.wire_names().map(py_str).collect::<Vec<_>>().join(", ")
            ),
            (_, Carries::CodeName, None) | (_, Carries::Category, None) => "str".into(),
            (_, Carries::Number, Some(c)) => match c.number() {
                Some(n) => format!("typing.Literal[{n}]"),
                None => "int".into(),
            },
            (_, Carries::Number, None) => "int".into(),
            (_, Carries::Category, Some(c)) => {
                format!("typing.Literal[{}]", py_str(&c.category.value))
            }
            (_, Carries::Retryable, Some(c)) => {
                format!("typing.Literal[{}]", py_bool(c.retryable))
            }
            (_, Carries::Retryable, None) => "bool".into(),
            (_, Carries::Cause, Some(c)) => {
                format!("typing.Literal[{}]", py_str(c.cause.as_str()))
            }
            (_, Carries::Cause, None) => "Cause".into(),
            (_, Carries::Message, _) => "str".into(),
            (_, Carries::Hints, _) => "list[str]".into(),
            (_, Carries::Context | Carries::Object(_), _) => "dict[str, object]".into(),
        };
        let ty = if slot.presence().is_required() || matches!(slot, Slot::Context { .. }) {
            ty
        } else {
            format!("typing.NotRequired[{ty}]")
        };
        let named_by_number = !layout.discriminant().by_name;
        let note = crate::context::constraint_note(m.pattern.as_ref(), m.format.as_ref());
        let doc = match &m.carries {
            Carries::Constant(_) if unlisted && !spec.envelope.declared => {
                "Always False for an error.".into()
            }
            Carries::CodeName if unlisted => format!("A code this release does not list.{note}"),
            Carries::Number if unlisted && named_by_number => {
                "A code number this release does not list.".into()
            }
            Carries::Number if unlisted => "Its numeric id.".into(),
            Carries::Category if unlisted => {
                format!("Its category; may be one this release does not list.{note}")
            }
            _ => member_doc(layout, m),
        };
        keys.push(Key {
            name: m.name.value.clone(),
            ty,
            doc,
        });
    }
    typed_dict(out, &dict_name(&object.names()), doc, &keys);
}

/// The Python type of `ty`; objects not yet `defined` are quoted.
fn py_type(ty: &FieldType, defined: &HashSet<&str>) -> String {
    match ty {
        FieldType::String => "str".into(),
        FieldType::Integer | FieldType::Int32 | FieldType::Int64 => "int".into(),
        FieldType::Float => "float".into(),
        FieldType::Map(value) => format!("dict[str, {}]", py_type(value, defined)),
        FieldType::Boolean => "bool".into(),
        FieldType::Json => "object".into(),
        FieldType::ErrorCode => "ErrorCodeName".into(),
        FieldType::Enum(name) => name.clone(),
        FieldType::Struct(name) if defined.contains(name.as_str()) => name.clone(),
        FieldType::Struct(name) => py_str(name),
        FieldType::ArrayOf(item) => format!("list[{}]", py_type(item, defined)),
    }
}

/// `` `NAME` (number) ``, or `` `NAME` `` without numbers.
fn code_span_number(code: &Code) -> String {
    match code.number() {
        Some(n) => format!("`{}` ({n})", code.name.value),
        None => format!("`{}`", code.name.value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture as fixture;

    #[test]
    fn union_and_narrowed_shapes() {
        let py = emit(&fixture());
        assert!(py.contains(
            "ErrorEnvelope: typing.TypeAlias = typing.Union[\n    BadPathEnvelope,\n    MatchNotFoundEnvelope,\n    OldThingEnvelope,\n    DiskFullEnvelope,\n]\n"
        ));
        assert!(py.contains(
            "    error_code: typing.Literal[\"MATCH_NOT_FOUND\"]\n    # The numeric id of error_code.\n    code: typing.Literal[2000]\n"
        ));
        assert!(py.contains("    edit_index: typing.Required[int]\n"));
        assert!(py.contains("    file_index: typing.NotRequired[int]\n"));
        assert!(py.contains("    context: typing.Required[MatchNotFoundContext]\n"));
        assert!(py.contains("    context: typing.NotRequired[BadPathContext]\n"));
        assert!(py.contains("    snippet: typing.Required[str]\n"));
        assert!(py.contains("Deprecated since 2.0.0: use `MATCH_NOT_FOUND`."));
        assert!(
            !py.contains("GONE"),
            "removed codes are not part of the module"
        );
    }

    #[test]
    fn code_table_comes_from_the_spec() {
        let py = emit(&fixture());
        assert!(py.contains(
            "    \"DISK_FULL\": CodeInfo(\n        name=\"DISK_FULL\",\n        number=4000,\n        category=\"external\",\n        retryable=False,\n        cause=\"environment\",\n"
        ));
        assert!(py.contains(
            "        required_fields=(\n            \"file_path\",\n            \"limit\",\n        ),\n"
        ));
        assert!(py.contains("        recovery_hints=(\"Free some space\",),\n"));
        assert!(py.contains(
            "        deprecated_since=\"2.0.0\",\n        replaced_by=\"MATCH_NOT_FOUND\",\n"
        ));
    }

    #[test]
    fn docstrings_and_keywords_are_escaped() {
        let mut out = String::new();
        docstring(&mut out, "", "a \"\"\" b \\ \"c\"");
        assert_eq!(out, "\"\"\"a \\\"\\\"\\\" b \\\\ \"c\\\"\"\"\"\n");
        let mut out = String::new();
        typed_dict(
            &mut out,
            "T",
            "doc",
            &[Key {
                name: "from".into(),
                ty: "str".into(),
                doc: "x".into(),
            }],
        );
        assert!(out.contains(
            "T = typing.TypedDict(\n    \"T\",\n    {\n        # x\n        \"from\": str,\n"
        ));
        // `None` cannot be annotated in a class body, and a class body
        // mangles `__x` into `_T__x`; `__x__` it leaves alone.
        for (name, functional) in [("None", true), ("__x", true), ("__x__", false)] {
            let mut out = String::new();
            let key = Key {
                name: name.into(),
                ty: "str".into(),
                doc: "x".into(),
            };
            typed_dict(&mut out, "T", "doc", &[key]);
            assert_eq!(
                out.contains(&format!("        \"{name}\": str,\n")),
                functional,
                "{out}"
            );
        }
    }

    /// A nullable member of a type the module defines later (a `one_of`
    /// holding a list is one) is one string: `"Kind" | None` raises a
    /// `TypeError` when Python builds the `TypedDict`.
    #[test]
    fn a_nullable_forward_reference_is_one_string() {
        let yaml = "taxonomy: { name: t, version: 1.0.0, base_uri: https://example.com/t }
categories:
  client: { range: [1, 99], description: Client., retryable: false, cause: input }
types:
  Kind: { doc: A kind., one_of: [string, \"string[]\"] }
  Level:
    doc: A level.
    members:
      name: { type: Kind, nullable: true, doc: A member. }
      later: { type: Later, nullable: true, optional: true, doc: A member. }
  Later:
    doc: Declared after its use.
    members:
      at: { type: string, doc: A member. }
fields:
  level: { type: Level, in: top_level, doc: A level. }
codes:
  NOT_FOUND:
    number: 1
    category: client
    since: 1.0.0
    title: not found
    message: Not found
    explanation: Not found.
    recovery_hints: [Retry later]
    context: { required: [level] }
";
        let spec = crate::load_str(yaml, "errors.yaml")
            .unwrap_or_else(|d| panic!("the spec loads:\n{}", d.render()));
        let py = emit(&spec);
        assert!(py.contains("    name: \"Kind | None\"\n"), "{py}");
        assert!(
            py.contains("    later: typing.NotRequired[\"Later | None\"]\n"),
            "{py}"
        );
        assert!(!py.contains("\" | None"), "{py}");
    }

    #[test]
    fn forward_references_are_quoted() {
        let defined = HashSet::from(["A"]);
        let ty = FieldType::ArrayOf(Box::new(FieldType::Struct("B".into())));
        assert_eq!(py_type(&ty, &defined), "list[\"B\"]");
        assert_eq!(py_type(&FieldType::Struct("A".into()), &defined), "A");
    }
}
