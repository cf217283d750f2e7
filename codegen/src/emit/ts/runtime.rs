//! What the TypeScript module does at run time: `error-envelope.js`
//! (`LISTED_CODES`, `isListed`, the `CODES` table and `codeInfo`) and the
//! declarations of those exports in `error-envelope.d.ts`.

use std::fmt::Write as _;

use crate::context::FieldDef;
use crate::describe::{CodeInfoDocs, GENERATED_HEADER};
use crate::layout::{Fallback, Layout};
use crate::spec::{ANY_ENVELOPE, AttributeType, Cause, Code, FamilyRule, Lifecycle, Spec};

use super::{doc, prop, string_literal};

/// True when the module lists the codes sent only as `violations[].code`
/// (splice's `sent_as: violation`): with splice's envelope, or when a code
/// is sent so.
pub(super) fn has_violation_kinds(spec: &Spec) -> bool {
    !spec.envelope.declared || spec.emitted_codes().any(|c| c.is_violation_kind())
}

/// The declarations of what `error-envelope.js` exports.
pub(super) fn runtime_declarations(out: &mut String, layout: &Layout<'_>) {
    let spec = layout.spec();
    let disc = layout.discriminant().dotted();
    let (listed, order) = if layout.discriminant().by_name {
        ("ErrorCode", "in the order of `ErrorCode`")
    } else {
        ("number", "by number, in spec order")
    };
    doc(
        out,
        "",
        &format!(
            "Every code this release sends as an envelope's own code, {order} (run time, \
             from `error-envelope.js`)."
        ),
    );
    let _ = writeln!(
        out,
        "export declare const LISTED_CODES: readonly {listed}[];\n"
    );
    if has_violation_kinds(spec) {
        doc(
            out,
            "",
            &format!(
                "Codes that arrive only as `violations[].code`, never as an envelope's own \
                 `{disc}` (run time, from `error-envelope.js`)."
            ),
        );
        out.push_str("export declare const VIOLATION_KINDS: readonly ErrorCode[];\n\n");
    }
    doc(
        out,
        "",
        &format!(
            "True when this release lists `env.{disc}`. A type predicate: after \
             `if (!isListed(env)) return ...`, `env` is an `ErrorEnvelope` and \
             `switch (env.{disc})` narrows each case to its code."
        ),
    );
    let _ = writeln!(
        out,
        "export declare function isListed(env: {ANY_ENVELOPE}): env is ErrorEnvelope;\n"
    );
    code_info_declarations(out, layout);
    family_declarations(out, layout);
    operation_declarations(out, layout);
}

/// `FamilyInfo`, `FAMILIES` and `familyOf`: the family of a code this
/// release does not list, and what the family says of it. Nothing when the
/// spec declares no family.
fn family_declarations(out: &mut String, layout: &Layout<'_>) {
    let spec = layout.spec();
    if spec.families.is_empty() {
        return;
    }
    let union = |items: Vec<&str>| {
        items
            .into_iter()
            .map(string_literal)
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let category_ty = if layout.carries("category") {
        "Category".to_string()
    } else {
        union(
            spec.categories
                .iter()
                .map(|c| c.key.value.as_str())
                .collect(),
        )
    };
    let cause_ty = if layout.carries("cause") {
        "Cause".to_string()
    } else {
        union(Cause::ALL.iter().map(|c| c.as_str()).collect())
    };
    let by_number = spec.families.iter().any(|f| f.rule.value.by_number());
    doc(
        out,
        "",
        if by_number {
            "A family of codes: an unlisted code whose number lies in `low` to `high` has its \
             category, retryability and cause (run time: `FAMILIES`, `familyOf`)."
        } else {
            "A family of codes: an unlisted code whose name starts (`prefix`) or ends (`suffix`) \
             with its `text` has its category, retryability and cause (run time: `FAMILIES`, \
             `familyOf`)."
        },
    );
    out.push_str("export interface FamilyInfo {\n");
    let name_ty = union(
        spec.families
            .iter()
            .map(|f| f.name.value.as_str())
            .collect(),
    );
    let mut rows = vec![("Its name in the spec.", "name", name_ty)];
    if by_number {
        rows.extend([
            (
                "Its codes' numbers lie in `low` to `high`.",
                "rule",
                "\"range\"".to_string(),
            ),
            (
                "The lowest number of its codes.",
                "low",
                "number".to_string(),
            ),
            (
                "The highest number of its codes.",
                "high",
                "number".to_string(),
            ),
        ]);
    } else {
        rows.extend([
            (
                "Whether the code's name starts or ends with `text`.",
                "rule",
                "\"prefix\" | \"suffix\"".to_string(),
            ),
            (
                "The text its codes' names start or end with.",
                "text",
                "string".to_string(),
            ),
        ]);
    }
    rows.extend([
        ("The category of its codes.", "category", category_ty),
        (
            "Whether its codes are retryable.",
            "retryable",
            "boolean".to_string(),
        ),
        ("Who is to blame for its codes.", "cause", cause_ty),
        (
            "One line: what its codes have in common.",
            "doc",
            "string".to_string(),
        ),
    ]);
    for (text, name, ty) in rows {
        doc(out, "  ", text);
        let _ = writeln!(out, "  readonly {name}: {ty};");
    }
    out.push_str("}\n\n");
    doc(
        out,
        "",
        "Every family, in precedence order: the first whose rule matches a name wins \
         (run time, from `error-envelope.js`).",
    );
    out.push_str("export declare const FAMILIES: readonly FamilyInfo[];\n\n");
    let disc = layout.discriminant().dotted();
    doc(
        out,
        "",
        &format!(
            "The family of the code `env.{disc}` names: `undefined` for a code this release \
             lists (a listed code always wins) and for one of no family."
        ),
    );
    let _ = writeln!(
        out,
        "export declare function familyOf(env: {ANY_ENVELOPE}): FamilyInfo | undefined;\n"
    );
}

/// `FAMILIES` and `familyOf`, in `error-envelope.js`.
fn families_js(out: &mut String, layout: &Layout<'_>) {
    let families = layout.families();
    if families.is_empty() {
        return;
    }
    let by_number = families.iter().any(|f| f.rule.value.by_number());
    out.push('\n');
    doc(
        out,
        "",
        "Every family, in precedence order: the first whose rule matches a name wins.",
    );
    out.push_str("export const FAMILIES = Object.freeze([\n");
    for f in families {
        let category = layout.family_category(f);
        let rule = match f.rule.value {
            FamilyRule::Range(lo, hi) => format!("low: {lo}, high: {hi}"),
            _ => format!("text: {}", string_literal(f.rule.value.text())),
        };
        let _ = writeln!(
            out,
            "  Object.freeze({{ name: {}, rule: {}, {rule}, category: {}, retryable: {}, cause: {}, doc: {} }}),",
            string_literal(&f.name.value),
            string_literal(f.rule.value.key()),
            string_literal(&f.category.value),
            category.retryable.value,
            string_literal(category.cause.value.as_str()),
            string_literal(&f.doc.value),
        );
    }
    out.push_str("]);\n\n");
    let names: Vec<String> = if by_number {
        layout
            .spec()
            .numbers_outside_families()
            .into_iter()
            .map(|n| n.to_string())
            .collect()
    } else {
        layout
            .names_outside_families()
            .into_iter()
            .map(string_literal)
            .collect()
    };
    doc(
        out,
        "",
        if by_number {
            "The numbers no family claims: every code's, removed and reserved ones too."
        } else {
            "The names no family claims: every code's, removed ones too."
        },
    );
    let _ = write!(
        out,
        "const NOT_FAMILY = new Set([{}]);\n\n",
        names.join(", ")
    );
    let disc = layout.discriminant().dotted();
    doc(
        out,
        "",
        &format!(
            "The family of the code `env.{disc}` names; undefined for a listed code, a code of \
             no family, or anything that is not an envelope."
        ),
    );
    let access = discriminant_access(layout);
    let (ty, test) = if by_number {
        ("number", "key >= f.low && key <= f.high")
    } else {
        (
            "string",
            "(f.rule === \"prefix\" ? key.startsWith(f.text) : key.endsWith(f.text))",
        )
    };
    let _ = write!(
        out,
        "export function familyOf(env) {{\n  \
         if (typeof env !== \"object\" || env === null) return undefined;\n  \
         const key = {access};\n  \
         if (typeof key !== \"{ty}\" || NOT_FAMILY.has(key)) return undefined;\n  \
         return FAMILIES.find((f) => {test});\n}}\n",
    );
}

/// `OperationInfo`, `OPERATIONS` and one guard per operation
/// (`isMultiEditError`): which codes each operation raises, at run time.
fn operation_declarations(out: &mut String, layout: &Layout<'_>) {
    let spec = layout.spec();
    if spec.operations.is_empty() {
        return;
    }
    doc(out, "", "An operation and the codes it raises.");
    out.push_str(
        "export interface OperationInfo {\n  \
         /** Its name in the spec. */\n  \
         readonly name: string;\n  \
         /** Its name on the wire (the tool, the API call). */\n  \
         readonly wire: string;\n  \
         /** One line: what it does. */\n  \
         readonly doc: string;\n  \
         /** Every code it raises, violation kinds included, in spec order. */\n  \
         readonly codes: readonly ErrorCode[];\n}\n\n",
    );
    doc(
        out,
        "",
        "Every operation, by its name on the wire (run time, from `error-envelope.js`).",
    );
    out.push_str("export declare const OPERATIONS: Readonly<Record<string, OperationInfo>>;\n\n");
    let disc = layout.discriminant().dotted();
    for op in &spec.operations {
        doc(
            out,
            "",
            &format!(
                "True when `env.{disc}` is a code operation `{}` raises: a type predicate, so \
                 `env` is then a `{}`.",
                op.wire(),
                op.error_type_name()
            ),
        );
        let _ = writeln!(
            out,
            "export declare function is{}(env: {ANY_ENVELOPE}): env is {};\n",
            op.error_type_name(),
            op.error_type_name()
        );
    }
}

/// `OPERATIONS` and the guards, in `error-envelope.js`.
fn operations_js(out: &mut String, layout: &Layout<'_>) {
    let spec = layout.spec();
    if spec.operations.is_empty() {
        return;
    }
    out.push('\n');
    doc(out, "", "Every operation, by its name on the wire.");
    out.push_str("export const OPERATIONS = Object.freeze({\n");
    for op in &spec.operations {
        let codes: Vec<String> = spec
            .operation_codes(op)
            .into_iter()
            .map(|c| string_literal(c.wire()))
            .collect();
        let _ = writeln!(
            out,
            "  {}: Object.freeze({{ name: {}, wire: {}, doc: {}, codes: Object.freeze([{}]) }}),",
            string_literal(op.wire()),
            string_literal(&op.name.value),
            string_literal(op.wire()),
            string_literal(&op.doc.value),
            codes.join(", ")
        );
    }
    out.push_str("});\n");
    let by_name = layout.discriminant().by_name;
    let access = discriminant_access(layout);
    for op in &spec.operations {
        let set = format!(
            "{}_CODES",
            crate::case::Case::ScreamingSnake.convert(&op.name.value)
        );
        let members: Vec<String> = spec
            .operation_codes(op)
            .into_iter()
            .filter(|c| !c.is_violation_kind())
            .flat_map(|c| {
                if by_name {
                    c.wire_names().map(string_literal).collect::<Vec<_>>()
                } else {
                    c.number().iter().map(i64::to_string).collect()
                }
            })
            .collect();
        let _ = write!(
            out,
            "\nconst {set} = new Set([{}]);\n\n",
            members.join(", ")
        );
        doc(
            out,
            "",
            &format!(
                "True when `env` is an error operation `{}` raises.",
                op.wire()
            ),
        );
        let _ = write!(
            out,
            "export function is{}(env) {{\n  \
             return typeof env === \"object\" && env !== null && {set}.has({access});\n}}\n",
            op.error_type_name()
        );
    }
}

/// `CodeInfo`, `CODES` and `codeInfo`: what the taxonomy says about each
/// code, at run time. A client reads a received code's category,
/// retryability, retry classes and attributes here, also when the envelope
/// does not carry them (google.rpc.Status has no `retryable` on the wire).
/// The same table as Python's `CODES`, in camelCase.
fn code_info_declarations(out: &mut String, layout: &Layout<'_>) {
    let spec = layout.spec();
    let hints = if layout.carries("hints") {
        "`recoveryHints` are the spec's templates: an envelope carries them with their \
         `{placeholders}` filled in, the general ones always and a conditional one \
         (`hintConditions[i]` is `[field, values]`) only when its context field has one of \
         the values."
    } else {
        "`recoveryHints` are the spec's templates, with their `{placeholders}`; the envelope \
         does not carry them. A conditional one (`hintConditions[i]` is `[field, values]`) \
         applies only when its context field has one of the values."
    };
    doc(
        out,
        "",
        &format!(
            "What the taxonomy says about one error code (run time: `CODES`, `codeInfo`).\n\n{hints}"
        ),
    );
    out.push_str("export interface CodeInfo {\n");
    let docs = CodeInfoDocs::of(layout);
    let category_ty = if layout.carries("category") {
        "Category".to_string()
    } else {
        spec.categories
            .iter()
            .map(|c| string_literal(&c.key.value))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let cause_ty = if layout.carries("cause") {
        "Cause".to_string()
    } else {
        Cause::ALL
            .iter()
            .map(|c| string_literal(c.as_str()))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let mut rows: Vec<(String, &str, String)> = vec![
        (docs.name, "name", "ErrorCode".into()),
        (docs.number, "number", "number".into()),
        ("Its category.".into(), "category", category_ty),
        (docs.retryable, "retryable", "boolean".into()),
        ("Who is to blame.".into(), "cause", cause_ty),
        ("One-line title.".into(), "title", "string".into()),
    ];
    if !spec.taxonomy.numbered() {
        // A taxonomy without numbers: `CodeInfo` has no `number`.
        rows.retain(|(_, name, _)| *name != "number");
    }
    if let Some(text) = docs.retry_classes {
        let ty = spec
            .retry
            .classes
            .iter()
            .map(|c| string_literal(&c.name.value))
            .collect::<Vec<_>>()
            .join(" | ");
        rows.push((text, "retryClasses", format!("readonly ({ty})[]")));
    }
    if let Some(text) = docs.attributes {
        let members: Vec<String> = spec
            .attributes
            .iter()
            .map(|a| {
                let ty = match a.ty.value {
                    AttributeType::String => "string",
                    AttributeType::Integer => "number",
                    AttributeType::Boolean => "boolean",
                };
                let opt = if a.required { "" } else { "?" };
                format!("readonly {}{opt}: {ty}", prop(&a.name.value))
            })
            .collect();
        rows.push((text, "attributes", format!("{{ {} }}", members.join("; "))));
    }
    for (text, name, ty) in [
        (
            "Recovery hint templates, most relevant first.",
            "recoveryHints",
            "readonly string[]",
        ),
        (
            "Per hint: `null` (general), or the field and values for which it is sent.",
            "hintConditions",
            "readonly (readonly [field: string, values: readonly string[]] | null)[]",
        ),
        (
            "Context fields every envelope of this code carries (wire names).",
            "requiredFields",
            "readonly string[]",
        ),
        (
            "Context fields an envelope of this code may carry (wire names).",
            "optionalFields",
            "readonly string[]",
        ),
        (
            "The taxonomy version that deprecated the code, if it is deprecated.",
            "deprecatedSince",
            "string | null",
        ),
        (
            "The code to use instead, if it is deprecated.",
            "replacedBy",
            "ErrorCode | null",
        ),
    ] {
        rows.push((text.into(), name, ty.into()));
    }
    for (text, name, ty) in rows {
        doc(out, "  ", &text);
        let _ = writeln!(out, "  readonly {name}: {ty};");
    }
    out.push_str("}\n\n");
    doc(
        out,
        "",
        if layout.discriminant().per_category() {
            "Every code this release lists, by category and then by name (its aliases too), in \
             spec order (run time, from `error-envelope.js`)."
        } else {
            "Every code this release lists, by name (its aliases too), in spec order (run time, \
             from `error-envelope.js`)."
        },
    );
    if layout.discriminant().per_category() {
        out.push_str(
            "export declare const CODES: Readonly<Record<string, Readonly<Record<string, CodeInfo>>>>;\n\n",
        );
    } else {
        out.push_str("export declare const CODES: Readonly<Record<ErrorCode, CodeInfo>>;\n\n");
    }
    let disc = layout.discriminant().dotted();
    doc(
        out,
        "",
        &format!(
            "The `CodeInfo` of the code `env.{disc}` names: always one for an `ErrorEnvelope`; \
             `undefined` for a code of a later release (or anything that is not an envelope)."
        ),
    );
    out.push_str("export declare function codeInfo(env: ErrorEnvelope): CodeInfo;\n");
    let _ = writeln!(
        out,
        "export declare function codeInfo(env: {ANY_ENVELOPE}): CodeInfo | undefined;\n"
    );
    if let Some(response) = layout.response() {
        doc(
            out,
            "",
            &format!(
                "The `CodeInfo` of each envelope of `response.{}`, in order: `undefined` for a \
                 code of a later release (an empty list for anything that is not a response).",
                response.list().name.value
            ),
        );
        let _ = writeln!(
            out,
            "export declare function codesOf(response: {}): (CodeInfo | undefined)[];\n",
            crate::names::ERROR_RESPONSE
        );
    }
}

/// `schema/error-envelope.js`: the run-time half of the module whose types
/// [`super::emit`] declares. An ES module without dependencies.
pub fn emit_js(spec: &Spec) -> String {
    let layout = Layout::of(spec);
    let by_name = layout.discriminant().by_name;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// {GENERATED_HEADER}\n\
         // {} error taxonomy {}; types: error-envelope.d.ts\n",
        crate::text::comment_line(&spec.taxonomy.name.value),
        spec.taxonomy.version.value,
    );
    doc(
        &mut out,
        "",
        "Every code this release sends as an envelope's own code.",
    );
    out.push_str("export const LISTED_CODES = Object.freeze([\n");
    if by_name {
        // Each name once: under `code_names: per_category` two categories
        // may share one.
        let mut seen: Vec<&str> = Vec::new();
        for name in spec.enveloped_codes().flat_map(|c| c.wire_names()) {
            if !seen.contains(&name) {
                seen.push(name);
                let _ = writeln!(out, "  {},", string_literal(name));
            }
        }
    } else {
        for n in spec.enveloped_codes().filter_map(Code::number) {
            let _ = writeln!(out, "  {n},");
        }
    }
    out.push_str("]);\n\n");
    let disc = layout.discriminant().dotted();
    if has_violation_kinds(spec) {
        doc(
            &mut out,
            "",
            &format!(
                "Codes that arrive only as `violations[].code`, never as an envelope's own `{disc}`."
            ),
        );
        out.push_str("export const VIOLATION_KINDS = Object.freeze([\n");
        for code in spec.emitted_codes().filter(|c| c.is_violation_kind()) {
            let _ = writeln!(out, "  {},", string_literal(code.wire()));
        }
        out.push_str("]);\n\n");
    }
    if layout.discriminant().per_category() {
        doc(
            &mut out,
            "",
            "Every listed (category, name), as `JSON.stringify([category, name])`.",
        );
        out.push_str("const LISTED_PAIRS = new Set([\n");
        for (category, name) in layout.listed_pairs().into_iter().filter(|(c, n)| {
            spec.enveloped_codes()
                .any(|code| code.category.value == *c && code.wire_names().any(|w| w == *n))
        }) {
            let pair = serde_json::to_string(&[category, name]).unwrap_or_default();
            let _ = writeln!(out, "  {},", string_literal(&pair));
        }
        out.push_str("]);\n\n");
    } else {
        out.push_str("const LISTED = new Set(LISTED_CODES);\n\n");
    }
    doc(
        &mut out,
        "",
        &format!(
            "True when this release lists `env.{disc}`; false for a code of a later release \
             (or anything that is not an envelope)."
        ),
    );
    let access = discriminant_access(&layout);
    if layout.discriminant().absent.is_some() {
        absent_reader(&mut out, &layout);
    }
    let per_category = layout.discriminant().per_category();
    if per_category {
        category_reader(&mut out, &layout);
        let _ = write!(
            out,
            "export function isListed(env) {{\n  \
             return typeof env === \"object\" && env !== null && LISTED_PAIRS.has(JSON.stringify([categoryOf(env), {access}]));\n}}\n\n",
        );
    } else {
        let _ = write!(
            out,
            "export function isListed(env) {{\n  \
             return typeof env === \"object\" && env !== null && LISTED.has({access});\n}}\n\n",
        );
    }
    code_table(&mut out, &layout);
    doc(
        &mut out,
        "",
        &format!(
            "The `CodeInfo` of the code `env.{disc}` names; undefined for a code of a later \
             release (or anything that is not an envelope)."
        ),
    );
    let lookup = if per_category {
        "typeof key === \"string\" && typeof category === \"string\" && Object.hasOwn(CODES, category) && Object.hasOwn(CODES[category], key) ? CODES[category][key] : undefined"
    } else if by_name {
        "typeof key === \"string\" && Object.hasOwn(CODES, key) ? CODES[key] : undefined"
    } else {
        "BY_NUMBER.get(key)"
    };
    let _ = write!(
        out,
        "export function codeInfo(env) {{\n  \
         if (typeof env !== \"object\" || env === null) return undefined;\n  \
         const key = {access};\n  \
         {category}return {lookup};\n}}\n",
        category = if per_category {
            "const category = categoryOf(env);\n  "
        } else {
            ""
        },
    );
    if let Some(response) = layout.response() {
        doc(
            &mut out,
            "",
            &format!(
                "The `CodeInfo` of each envelope of `response.{}`, in order: undefined for a \
                 code of a later release (an empty list for anything that is not a response).",
                response.list().name.value
            ),
        );
        let _ = write!(
            out,
            "export function codesOf(response) {{\n  \
             const list = typeof response === \"object\" && response !== null && \
             Object.hasOwn(response, {key}) ? response[{key}] : undefined;\n  \
             return Array.isArray(list) ? list.map((env) => codeInfo(env)) : [];\n}}\n",
            key = string_literal(&response.list().name.value),
        );
    }
    families_js(&mut out, &layout);
    operations_js(&mut out, &layout);
    out
}

/// How the run time reads the discriminant of `env`: `env.error_code`, or
/// `env.error?.status` for a nested one (whatever `env.error` is, the read
/// cannot throw); `codeOf(env)` ([`absent_reader`]) when an envelope
/// without it has the `absent_means` code.
fn discriminant_access(layout: &Layout<'_>) -> String {
    let discriminant = layout.discriminant();
    if discriminant.absent.is_some() {
        return "codeOf(env)".into();
    }
    let mut access = String::from("env");
    for (i, step) in discriminant.names().into_iter().enumerate() {
        let optional = if i == 0 { "" } else { "?" };
        if prop(step) == step {
            let _ = write!(access, "{optional}.{step}");
        } else {
            let dot = if i == 0 { "" } else { "?." };
            let _ = write!(access, "{dot}[{}]", string_literal(step));
        }
    }
    access
}

/// `categoryOf(env)`: under `code_names: per_category`, the category of
/// `env` read along the path of the member carrying it; undefined when a
/// step is not an object or is absent.
fn category_reader(out: &mut String, layout: &Layout<'_>) {
    let keys: Vec<String> = layout
        .discriminant()
        .category_names()
        .into_iter()
        .map(string_literal)
        .collect();
    doc(
        out,
        "",
        &format!(
            "The category at `env.{}`: with the code name, it tells a code (`code_names: \
             per_category`); undefined when a member on the way is absent or not an object.",
            layout.discriminant().category_names().join(".")
        ),
    );
    let _ = write!(
        out,
        "function categoryOf(env) {{\n  \
         let value = env;\n  \
         for (const key of [{}]) {{\n    \
         if (typeof value !== \"object\" || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;\n    \
         value = value[key];\n  \
         }}\n  \
         return value;\n}}\n\n",
        keys.join(", ")
    );
}

/// `codeOf(env)`: the code name of `env` read along the discriminant's
/// path, where a member that is absent (the code name, or an object around
/// it) means the `absent_means` code (with a code per category, the one the
/// envelope's category names, undefined for a category without one);
/// `undefined` when a step is not an object. The schema, the Rust and the
/// Python readers read it so.
fn absent_reader(out: &mut String, layout: &Layout<'_>) {
    let keys = |names: Vec<&str>| -> String {
        names
            .into_iter()
            .map(string_literal)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (absent, meaning) = match &layout.discriminant().absent {
        Fallback::ByCategory { category, codes } => {
            doc(
                out,
                "",
                "The code of an envelope without its code name, by the envelope's category.",
            );
            out.push_str("const ABSENT_MEANS = new Map([\n");
            for (k, c) in codes {
                let _ = writeln!(
                    out,
                    "  [{}, {}],",
                    string_literal(k),
                    string_literal(c.wire())
                );
            }
            out.push_str("]);\n\n");
            doc(
                out,
                "",
                "The code its category names for an envelope without a code name; undefined for \
                 a category without one, or when the category is not there.",
            );
            let _ = write!(
                out,
                "function absentCode(env) {{\n  \
                 let value = env;\n  \
                 for (const key of [{}]) {{\n    \
                 if (typeof value !== \"object\" || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;\n    \
                 value = value[key];\n  \
                 }}\n  \
                 return typeof value === \"string\" ? ABSENT_MEANS.get(value) : undefined;\n}}\n\n",
                keys(category.iter().map(|m| m.name.value.as_str()).collect()),
            );
            (
                "absentCode(env)".to_owned(),
                "the code its category names (`absentCode`)".to_owned(),
            )
        }
        Fallback::One(c) => (string_literal(c.wire()), format!("`{}`", c.wire())),
        Fallback::None => return,
    };
    doc(
        out,
        "",
        &format!(
            "The code name at `env.{}`: {meaning} when a member on the way is absent \
             (`absent_means`), undefined when one is not an object.",
            layout.discriminant().dotted()
        ),
    );
    let _ = write!(
        out,
        "function codeOf(env) {{\n  \
         let value = env;\n  \
         for (const key of [{}]) {{\n    \
         if (typeof value !== \"object\" || value === null || Array.isArray(value)) return undefined;\n    \
         if (!Object.hasOwn(value, key)) return {absent};\n    \
         value = value[key];\n  \
         }}\n  \
         return value;\n}}\n\n",
        keys(layout.discriminant().names()),
    );
}

/// `CODES` (and, without the code's name on the wire, `BY_NUMBER`): one
/// frozen `CodeInfo` per emitted code, keyed by its wire name, an alias
/// key naming the same object.
fn code_table(out: &mut String, layout: &Layout<'_>) {
    let spec = layout.spec();
    doc(
        out,
        "",
        if layout.discriminant().per_category() {
            "What the taxonomy says about each code it lists, by category and then by name (its \
             aliases too), in spec order."
        } else {
            "What the taxonomy says about each code it lists, by name (its aliases too), in spec order."
        },
    );
    // Under `code_names: per_category` the table is keyed by category,
    // then by name within it.
    let per_category = layout.discriminant().per_category();
    let mut categories: Vec<&str> = Vec::new();
    for code in spec.emitted_codes() {
        if !categories.contains(&code.category.value.as_str()) {
            categories.push(&code.category.value);
        }
    }
    let groups: Vec<Option<&str>> = if per_category {
        categories.into_iter().map(Some).collect()
    } else {
        vec![None]
    };
    out.push_str("const CODE_TABLE = {\n");
    let strings = |items: Vec<String>| format!("Object.freeze([{}])", items.join(", "));
    for group in &groups {
        if let Some(category) = group {
            let _ = writeln!(out, "  {}: {{", table_key(category));
        }
        for code in spec
            .emitted_codes()
            .filter(|c| group.is_none_or(|g| c.category.value == g))
        {
            // A key written `"__proto__":` would set the table's prototype
            // instead of adding an entry; a computed key always adds one.
            let _ = writeln!(out, "  {}: Object.freeze({{", table_key(code.wire()));
            let _ = writeln!(out, "    name: {},", string_literal(code.wire()));
            if let Some(n) = code.number() {
                let _ = writeln!(out, "    number: {n},");
            }
            let _ = writeln!(
                out,
                "    category: {},",
                string_literal(&code.category.value)
            );
            let _ = writeln!(out, "    retryable: {},", code.retryable);
            let _ = writeln!(out, "    cause: {},", string_literal(code.cause.as_str()));
            let _ = writeln!(out, "    title: {},", string_literal(&code.title.value));
            if !spec.retry.classes.is_empty() {
                let classes = code
                    .retry_classes
                    .iter()
                    .map(|c| string_literal(&c.value))
                    .collect();
                let _ = writeln!(out, "    retryClasses: {},", strings(classes));
            }
            if !spec.attributes.is_empty() {
                let pairs: Vec<String> = code
                    .attributes
                    .iter()
                    .map(|a| format!("{}: {}", prop(&a.name.value), a.value.value))
                    .collect();
                let pairs = if pairs.is_empty() {
                    String::new()
                } else {
                    format!(" {} ", pairs.join(", "))
                };
                let _ = writeln!(out, "    attributes: Object.freeze({{{pairs}}}),");
            }
            let hints = code
                .recovery_hints
                .iter()
                .map(|h| string_literal(&h.value))
                .collect();
            let _ = writeln!(out, "    recoveryHints: {},", strings(hints));
            let conditions = spec
                .hint_conditions_on_the_wire(code)
                .into_iter()
                .map(|cond| match cond {
                    None => "null".to_string(),
                    Some((field, values)) => format!(
                        "Object.freeze([{}, {}])",
                        string_literal(field),
                        strings(values.into_iter().map(string_literal).collect())
                    ),
                })
                .collect();
            let _ = writeln!(out, "    hintConditions: {},", strings(conditions));
            let names = |fields: Vec<&FieldDef>| {
                strings(fields.iter().map(|f| string_literal(f.wire())).collect())
            };
            let _ = writeln!(
                out,
                "    requiredFields: {},",
                names(spec.required_fields(code))
            );
            let _ = writeln!(
                out,
                "    optionalFields: {},",
                names(spec.optional_fields(code))
            );
            let (since, replaced_by) = match &code.lifecycle {
                Lifecycle::Deprecated {
                    since, replaced_by, ..
                } => (
                    string_literal(&since.value.to_string()),
                    // In its wire name, as `ErrorCode` spells it.
                    string_literal(
                        spec.code(&replaced_by.value)
                            .map_or(replaced_by.value.as_str(), |c| c.wire()),
                    ),
                ),
                _ => ("null".to_string(), "null".to_string()),
            };
            let _ = writeln!(out, "    deprecatedSince: {since},");
            let _ = writeln!(out, "    replacedBy: {replaced_by},");
            out.push_str("  }),\n");
        }
        if group.is_some() {
            out.push_str("  },\n");
        }
    }
    out.push_str("};\n");
    for code in spec.emitted_codes() {
        let table = if per_category {
            format!("CODE_TABLE[{}]", string_literal(&code.category.value))
        } else {
            "CODE_TABLE".to_owned()
        };
        for alias in &code.aliases {
            // Assigning `__proto__` sets the prototype; defining it adds
            // the entry.
            let _ = if alias.value == "__proto__" {
                writeln!(
                    out,
                    "Object.defineProperty({table}, \"__proto__\", {{ value: {table}[{}], enumerable: true }});",
                    string_literal(code.wire())
                )
            } else {
                writeln!(
                    out,
                    "{table}[{}] = {table}[{}];",
                    string_literal(&alias.value),
                    string_literal(code.wire())
                )
            };
        }
    }
    if per_category {
        out.push_str(
            "export const CODES = Object.freeze(Object.fromEntries(Object.entries(CODE_TABLE).map(([category, codes]) => [category, Object.freeze(codes)])));\n\n",
        );
    } else {
        out.push_str("export const CODES = Object.freeze(CODE_TABLE);\n\n");
    }
    if !layout.discriminant().by_name {
        out.push_str(
            "const BY_NUMBER = new Map(Object.values(CODES).map((info) => [info.number, info]));\n\n",
        );
    }
}

/// The key of a code in an object literal: the wire name as a string, or a
/// computed key for `__proto__` (written plainly, it sets the prototype).
fn table_key(wire: &str) -> String {
    if wire == "__proto__" {
        format!("[{}]", string_literal(wire))
    } else {
        string_literal(wire)
    }
}
