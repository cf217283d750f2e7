//! The run-time half of the Python module: `CODES` (a `CodeInfo` per code),
//! `VIOLATION_KINDS`, and `is_listed` / `code_info`, which read a received
//! envelope's code at its path.

use std::fmt::Write as _;

use crate::context::FieldDef;
use crate::layout::{Fallback, Layout};
use crate::spec::{ANY_ENVELOPE, Code, FamilyRule, Lifecycle, Spec};

use super::syntax::{blank_lines, comment, docstring, py_bool, py_str, py_tuple, py_tuple_inline};

/// `VIOLATION_KINDS`: the codes sent only as `violations[].code`
/// (`sent_as: violation`).
pub(super) fn violation_kinds(out: &mut String, layout: &Layout<'_>, codes: &[&Code]) {
    blank_lines(out, 2);
    comment(
        out,
        "",
        &format!(
            "Codes that arrive only as `violations[].code`, never as an envelope's own \
             `{}` (`sent_as: violation`).",
            layout.discriminant().dotted()
        ),
    );
    let kinds: Vec<String> = codes
        .iter()
        .filter(|c| c.is_violation_kind())
        .map(|c| format!("{:?}", c.wire()))
        .collect();
    let set = if kinds.is_empty() {
        String::new()
    } else {
        let items: String = kinds.iter().map(|k| format!("        {k},\n")).collect();
        format!("\n    {{\n{items}    }}\n")
    };
    let _ = writeln!(
        out,
        "VIOLATION_KINDS: typing.Final[frozenset[str]] = frozenset({set})"
    );
}

/// `base["a"]["b"]` for the path `a.b`.
pub(super) fn subscript(base: &str, path: &[&str]) -> String {
    let mut text = base.to_string();
    for step in path {
        let _ = write!(text, "[{}]", py_str(step));
    }
    text
}

/// `is_listed(env)`: the run-time check that narrows an `AnyErrorEnvelope`
/// to an `ErrorEnvelope` of this release.
pub(super) fn is_listed(out: &mut String, layout: &Layout<'_>) {
    if layout.discriminant().absent.is_some() {
        absent_reader(out, layout);
    }
    blank_lines(out, 2);
    let _ = writeln!(
        out,
        "def is_listed(env: {ANY_ENVELOPE}) -> \"typing.TypeGuard[ErrorEnvelope]\":"
    );
    let discriminant = layout.discriminant();
    docstring(
        out,
        "    ",
        &format!(
            "True when this release lists the envelope's code: a `TypeGuard`, so `env` is an\n\
             `ErrorEnvelope` (then `{}` narrows it) when it is true; when it\n\
             is false, `env` stays an `AnyErrorEnvelope` (read the members every envelope has).",
            discriminant.dotted()
        ),
    );
    let read = discriminant_read(layout);
    let kinds = layout.spec().emitted_codes().any(|c| c.is_violation_kind());
    if discriminant.per_category() {
        // `code_info` reads the pair (category, name).
        let _ = writeln!(out, "    info = code_info(env)");
        if kinds {
            let _ = writeln!(
                out,
                "    return info is not None and info.name not in VIOLATION_KINDS"
            );
        } else {
            let _ = writeln!(out, "    return info is not None");
        }
    } else if !discriminant.by_name {
        let _ = writeln!(out, "    return {read} in LISTED_NUMBERS");
    } else if kinds {
        // A violation kind is in `CODES` but has no envelope of its own.
        let _ = writeln!(out, "    code = {read}");
        let _ = writeln!(
            out,
            "    return code in CODES and code not in VIOLATION_KINDS"
        );
    } else {
        let _ = writeln!(out, "    return {read} in CODES");
    }
    code_info_fn(out, layout);
    codes_of(out, layout);
}

/// `FamilyInfo`, `FAMILIES` and `family_of(env)`: the family of a code
/// this release does not list, and what the family says of it. Nothing when
/// the spec declares no family.
pub(super) fn families(out: &mut String, layout: &Layout<'_>) {
    let families = layout.families();
    if families.is_empty() {
        return;
    }
    let by_number = families.iter().any(|f| f.rule.value.by_number());
    blank_lines(out, 2);
    out.push_str("@dataclasses.dataclass(frozen=True)\nclass FamilyInfo:\n");
    docstring(
        out,
        "    ",
        if by_number {
            "A family of codes: an unlisted code whose number lies in `low` to `high`\n\
             has its category, retryability and cause."
        } else {
            "A family of codes: an unlisted code whose name starts (`prefix`) or ends\n\
             (`suffix`) with its `text` has its category, retryability and cause."
        },
    );
    out.push('\n');
    let name_ty = format!(
        "typing.Literal[{}]",
        families
            .iter()
            .map(|f| py_str(&f.name.value))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut rows = vec![("name", name_ty.as_str(), "Its name in the spec.")];
    if by_number {
        rows.extend([
            (
                "rule",
                "typing.Literal[\"range\"]",
                "Its codes' numbers lie in `low` to `high`.",
            ),
            ("low", "int", "The lowest number of its codes."),
            ("high", "int", "The highest number of its codes."),
        ]);
    } else {
        rows.extend([
            (
                "rule",
                "typing.Literal[\"prefix\", \"suffix\"]",
                "Whether the code's name starts or ends with `text`.",
            ),
            (
                "text",
                "str",
                "The text its codes' names start or end with.",
            ),
        ]);
    }
    rows.extend([
        ("category", "Category", "The category of its codes."),
        ("retryable", "bool", "Whether its codes are retryable."),
        ("cause", "Cause", "Who is to blame for its codes."),
        ("doc", "str", "One line: what its codes have in common."),
    ]);
    for (field, ty, text) in rows {
        comment(out, "    ", text);
        let _ = writeln!(out, "    {field}: {ty}");
    }
    blank_lines(out, 2);
    comment(
        out,
        "",
        "Every family, in precedence order: the first whose rule matches a name wins.",
    );
    out.push_str("FAMILIES: typing.Final[tuple[FamilyInfo, ...]] = (\n");
    for f in families {
        let category = layout.family_category(f);
        let rule = match f.rule.value {
            FamilyRule::Range(lo, hi) => format!("low={lo},\n        high={hi}"),
            _ => format!("text={}", py_str(f.rule.value.text())),
        };
        let _ = writeln!(
            out,
            "    FamilyInfo(\n        name={},\n        rule={},\n        {rule},\n        \
             category={},\n        retryable={},\n        cause={},\n        doc={},\n    ),",
            py_str(&f.name.value),
            py_str(f.rule.value.key()),
            py_str(&f.category.value),
            py_bool(category.retryable.value),
            py_str(category.cause.value.as_str()),
            py_str(&f.doc.value),
        );
    }
    out.push_str(")\n");
    blank_lines(out, 2);
    let names: String = if by_number {
        comment(
            out,
            "",
            "The numbers no family claims: every code's, removed and reserved ones too.",
        );
        layout
            .spec()
            .numbers_outside_families()
            .into_iter()
            .map(|n| format!("        {n},\n"))
            .collect()
    } else {
        comment(
            out,
            "",
            "The names no family claims: every code's, removed ones too.",
        );
        layout
            .names_outside_families()
            .into_iter()
            .map(|n| format!("        {},\n", py_str(n)))
            .collect()
    };
    let set = if names.is_empty() {
        String::new()
    } else {
        format!("\n    {{\n{names}    }}\n")
    };
    let _ = writeln!(
        out,
        "_NOT_FAMILY: typing.Final[frozenset[{}]] = frozenset({set})",
        if by_number { "int" } else { "str" }
    );
    blank_lines(out, 2);
    let _ = writeln!(
        out,
        "def family_of(env: {ANY_ENVELOPE}) -> FamilyInfo | None:"
    );
    docstring(
        out,
        "    ",
        &format!(
            "The family of the code `{}` names.\n\n\
             None for a code this release lists (a listed code always wins) and for\n\
             one of no family.",
            layout.discriminant().dotted()
        ),
    );
    if by_number {
        // `bool` is an `int` in Python; JSON `true` is no code number.
        let _ = write!(
            out,
            "    code: object = {}\n    \
             if not isinstance(code, int) or isinstance(code, bool) or code in _NOT_FAMILY:\n        \
             return None\n    \
             for family in FAMILIES:\n        \
             if family.low <= code <= family.high:\n            \
             return family\n    \
             return None\n",
            discriminant_read(layout)
        );
        return;
    }
    let _ = write!(
        out,
        "    code: object = {}\n    \
         if not isinstance(code, str) or code in _NOT_FAMILY:\n        \
         return None\n    \
         for family in FAMILIES:\n        \
         if family.rule == \"prefix\" and code.startswith(family.text):\n            \
         return family\n        \
         if family.rule == \"suffix\" and code.endswith(family.text):\n            \
         return family\n    \
         return None\n",
        discriminant_read(layout)
    );
}

/// `OperationInfo`, `OPERATIONS` and one `is_<operation>_error` per
/// operation: which codes each operation raises, at run time.
pub(super) fn operations(out: &mut String, layout: &Layout<'_>) {
    let spec = layout.spec();
    if spec.operations.is_empty() {
        return;
    }
    blank_lines(out, 2);
    out.push_str("@dataclasses.dataclass(frozen=True)\nclass OperationInfo:\n");
    docstring(out, "    ", "An operation and the codes it raises.");
    out.push('\n');
    for (field, ty, text) in [
        ("name", "str", "Its name in the spec."),
        (
            "wire",
            "str",
            "Its name on the wire (the tool, the API call).",
        ),
        ("doc", "str", "One line: what it does."),
        (
            "codes",
            "tuple[ErrorCodeName, ...]",
            "Every code it raises, violation kinds included, in spec order.",
        ),
    ] {
        comment(out, "    ", text);
        let _ = writeln!(out, "    {field}: {ty}");
    }
    blank_lines(out, 2);
    comment(out, "", "Every operation, by its name on the wire.");
    out.push_str("OPERATIONS: typing.Final[dict[str, OperationInfo]] = {\n");
    for op in &spec.operations {
        let codes = py_tuple_inline(
            spec.operation_codes(op)
                .into_iter()
                .map(|c| py_str(c.wire())),
        );
        let _ = writeln!(
            out,
            "    {}: OperationInfo(\n        name={},\n        wire={},\n        doc={},\n        codes={codes},\n    ),",
            py_str(op.wire()),
            py_str(&op.name.value),
            py_str(op.wire()),
            py_str(&op.doc.value),
        );
    }
    out.push_str("}\n");
    let discriminant = layout.discriminant();
    let read = discriminant_read(layout);
    for op in &spec.operations {
        let raised = spec
            .operation_codes(op)
            .into_iter()
            .filter(|c| !c.is_violation_kind());
        let members: Vec<String> = if discriminant.by_name {
            raised.flat_map(|c| c.wire_names().map(py_str)).collect()
        } else {
            raised
                .filter_map(|c| c.number())
                .map(|n| n.to_string())
                .collect()
        };
        let set = format!(
            "_{}_CODES",
            crate::case::Case::ScreamingSnake.convert(&op.name.value)
        );
        let ty = if discriminant.by_name { "str" } else { "int" };
        blank_lines(out, 2);
        let items = if members.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", members.join(", "))
        };
        let _ = writeln!(
            out,
            "{set}: typing.Final[frozenset[{ty}]] = frozenset({items})"
        );
        blank_lines(out, 2);
        let _ = writeln!(
            out,
            "def is_{}_error(env: {ANY_ENVELOPE}) -> \"typing.TypeGuard[{}]\":",
            op.name.value,
            op.error_type_name()
        );
        docstring(
            out,
            "    ",
            &format!(
                "True when the envelope's code is one operation `{}` raises: a `TypeGuard`,\n\
                 so `env` is then a `{}`.",
                op.wire(),
                op.error_type_name()
            ),
        );
        let _ = writeln!(out, "    return {read} in {set}");
    }
}

/// How the run time reads the discriminant of `env`: `env["error_code"]`,
/// or `_code_of(env)` ([`absent_reader`]) when an envelope without it has
/// the `absent_means` code.
fn discriminant_read(layout: &Layout<'_>) -> String {
    let discriminant = layout.discriminant();
    if discriminant.absent.is_some() {
        return "_code_of(env)".into();
    }
    subscript("env", &discriminant.names())
}

/// `_code_of(env)`: the code name of `env` read along the discriminant's
/// path, where a member that is absent (the code name, or an object around
/// it) means the `absent_means` code (with a code per category, the one the
/// envelope's category names, `None` for a category without one); `None`
/// when a step is not an object. The schema, the Rust and the JavaScript
/// readers read it so. Typed `object`, so it type-checks whatever the
/// `TypedDict`s say of the members on the way.
fn absent_reader(out: &mut String, layout: &Layout<'_>) {
    fn keys_of(names: Vec<&str>) -> String {
        let keys: Vec<String> = names.into_iter().map(py_str).collect();
        if keys.len() == 1 {
            format!("({},)", keys[0])
        } else {
            format!("({})", keys.join(", "))
        }
    }
    blank_lines(out, 2);
    let keys = keys_of(layout.discriminant().names());
    let (absent, meaning) = match &layout.discriminant().absent {
        Fallback::ByCategory { category, codes } => {
            let entries: String = codes
                .iter()
                .map(|(k, c)| format!("    {}: {},\n", py_str(k), py_str(c.wire())))
                .collect();
            comment(
                out,
                "",
                "The code of an envelope without its code name, by the envelope's category.",
            );
            let _ = writeln!(
                out,
                "_ABSENT_MEANS: typing.Final[dict[str, str]] = {{\n{entries}}}"
            );
            blank_lines(out, 2);
            out.push_str("def _absent_code(env: object) -> object:\n");
            docstring(
                out,
                "    ",
                "The code its category names for an envelope without a code name; None for a\n\
                 category without one, or when the category is not there.",
            );
            let keys = keys_of(category.iter().map(|m| m.name.value.as_str()).collect());
            let _ = write!(
                out,
                "    value = env\n    \
                 for key in {keys}:\n        \
                 if not isinstance(value, dict) or key not in value:\n            \
                 return None\n        \
                 value = value[key]\n    \
                 return _ABSENT_MEANS.get(value) if isinstance(value, str) else None\n"
            );
            blank_lines(out, 2);
            (
                "_absent_code(env)".to_owned(),
                "The code its category names (`_absent_code`) when a member on the way is\n\
                 absent (`absent_means`),"
                    .to_owned(),
            )
        }
        Fallback::One(c) => (
            py_str(c.wire()),
            format!(
                "{} when a member on the way is absent (`absent_means`),",
                py_str(c.wire())
            ),
        ),
        Fallback::None => return,
    };
    out.push_str("def _code_of(env: object) -> object:\n");
    docstring(
        out,
        "    ",
        &format!(
            "The code name at `{}`.\n\n\
             {meaning}\n\
             None when one is not an object.",
            layout.discriminant().dotted(),
        ),
    );
    let _ = write!(
        out,
        "    value = env\n    \
         for key in {keys}:\n        \
         if not isinstance(value, dict):\n            \
         return None\n        \
         if key not in value:\n            \
         return {absent}\n        \
         value = value[key]\n    \
         return value\n"
    );
}

/// `code_info(env)`: the `CodeInfo` of a received envelope's code (as
/// TypeScript's `codeInfo`), read at the discriminant; `None` for a code of
/// a later release. Without the code's name on the wire, by number.
/// `codes_of(response)`: the `CodeInfo` of each envelope of the response's
/// list, in order. Nothing for a spec without a list.
fn codes_of(out: &mut String, layout: &Layout<'_>) {
    let Some(response) = layout.response() else {
        return;
    };
    blank_lines(out, 2);
    let _ = writeln!(
        out,
        "def codes_of(response: {}) -> list[CodeInfo | None]:",
        crate::names::ERROR_RESPONSE
    );
    docstring(
        out,
        "    ",
        &format!(
            "The `CodeInfo` of each envelope of `response[{}]`, in order: None for a code\n\
             of a later release.",
            py_str(&response.list().name.value)
        ),
    );
    let _ = writeln!(
        out,
        "    return [code_info(env) for env in response[{}]]",
        py_str(&response.list().name.value)
    );
}

fn code_info_fn(out: &mut String, layout: &Layout<'_>) {
    let by_name = layout.discriminant().by_name;
    if !by_name {
        blank_lines(out, 2);
        comment(out, "", "Every listed code's `CodeInfo`, by number.");
        out.push_str(
            "_BY_NUMBER: typing.Final[dict[int, CodeInfo]] = {\n    \
             info.number: info for info in CODES.values()\n}\n",
        );
    }
    blank_lines(out, 2);
    let _ = writeln!(
        out,
        "def code_info(env: {ANY_ENVELOPE}) -> CodeInfo | None:"
    );
    docstring(
        out,
        "    ",
        &format!(
            "What the taxonomy says about the code `{}` names: its {}category,\n\
             retryability and the rest of its `CodeInfo`, also what the envelope does not carry.\n\
             None for a code of a later release.",
            layout.discriminant().dotted(),
            if layout.spec().taxonomy.numbered() {
                "number, "
            } else {
                ""
            }
        ),
    );
    let table = if by_name { "CODES" } else { "_BY_NUMBER" };
    if layout.discriminant().per_category() {
        // Typed `object` on the way, as `_code_of`: the pair is looked up
        // only when both are strings.
        let category = layout.discriminant().category_names();
        let _ = writeln!(
            out,
            "    code: object = {}\n    \
             category: object = {}\n    \
             if isinstance(category, str) and isinstance(code, str):\n        \
             return CODES.get((category, code))\n    \
             return None",
            discriminant_read(layout),
            subscript("env", &category),
        );
    } else if layout.discriminant().absent.is_some() {
        // `dict.get` takes a key of the dict's type.
        let _ = writeln!(
            out,
            "    code = {}\n    return {table}.get(code) if isinstance(code, str) else None",
            discriminant_read(layout)
        );
    } else {
        let _ = writeln!(out, "    return {table}.get({})", discriminant_read(layout));
    }
}

/// One entry of `CODES`, under `key` (its name, or (category, name)).
pub(super) fn code_info(out: &mut String, spec: &Spec, code: &Code, key: &str) {
    let (since, replaced_by) = match &code.lifecycle {
        Lifecycle::Deprecated {
            since, replaced_by, ..
        } => (
            py_str(&since.value.to_string()),
            // In its wire name, as `ErrorCodeName` spells it.
            py_str(
                spec.code(&replaced_by.value)
                    .map_or(replaced_by.value.as_str(), |c| c.wire()),
            ),
        ),
        _ => ("None".to_string(), "None".to_string()),
    };
    let names = |fields: Vec<&FieldDef>| py_tuple(fields.iter().map(|f| py_str(f.wire())));
    let _ = writeln!(out, "    {key}: CodeInfo(");
    let _ = writeln!(out, "        name={},", py_str(code.wire()));
    if let Some(n) = code.number() {
        let _ = writeln!(out, "        number={n},");
    }
    let _ = writeln!(out, "        category={},", py_str(&code.category.value));
    let _ = writeln!(out, "        retryable={},", py_bool(code.retryable));
    let _ = writeln!(out, "        cause={},", py_str(code.cause.as_str()));
    let _ = writeln!(out, "        title={},", py_str(&code.title.value));
    if !spec.retry.classes.is_empty() {
        let _ = writeln!(
            out,
            "        retry_classes={},",
            py_tuple(code.retry_classes.iter().map(|c| py_str(&c.value)))
        );
    }
    if !spec.attributes.is_empty() {
        let pairs: Vec<String> = code
            .attributes
            .iter()
            .map(|a| {
                let v = match &a.value.value {
                    serde_json::Value::Bool(b) => py_bool(*b).to_string(),
                    serde_json::Value::String(s) => py_str(s),
                    other => other.to_string(),
                };
                format!("{}: {v}", py_str(&a.name.value))
            })
            .collect();
        let _ = writeln!(out, "        attributes={{{}}},", pairs.join(", "));
    }
    let _ = writeln!(
        out,
        "        recovery_hints={},",
        py_tuple(code.recovery_hints.iter().map(|h| py_str(&h.value)))
    );
    let _ = writeln!(
        out,
        "        hint_conditions={},",
        py_tuple(
            spec.hint_conditions_on_the_wire(code)
                .into_iter()
                .map(|cond| match cond {
                    None => "None".to_string(),
                    Some((field, values)) => format!(
                        "({}, {})",
                        py_str(field),
                        py_tuple_inline(values.into_iter().map(py_str))
                    ),
                })
        )
    );
    let _ = writeln!(
        out,
        "        required_fields={},",
        names(spec.required_fields(code))
    );
    let _ = writeln!(
        out,
        "        optional_fields={},",
        names(spec.optional_fields(code))
    );
    let _ = writeln!(out, "        deprecated_since={since},");
    let _ = writeln!(out, "        replaced_by={replaced_by},");
    out.push_str("    ),\n");
}
