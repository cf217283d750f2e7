//! The TypeScript module of the error envelope: `schema/error-envelope.js`
//! (run time) and its declarations `schema/error-envelope.d.ts`, which a
//! client imports as `./error-envelope.js`.
//!
//! For client authors: `ErrorEnvelope` is a union discriminated on
//! `error_code`, so `switch (e.error_code)` narrows to one interface whose
//! required context fields are non-optional and whose `code`, `category`,
//! `retryable` and `cause` are literal types. The shapes come from the same
//! declarations as the JSON Schema ([`crate::context`]), so the two agree.
//!
//! What a server sends is an `AnyErrorEnvelope` (a later release of the same
//! major version may send a code this one does not list). `isListed(env)` is
//! a real run-time check (the `.js`, against `LISTED_CODES`) declared as the
//! type predicate `env is ErrorEnvelope`: after `if (!isListed(env)) return`,
//! the unlisted variant (whose `error_code` is `string`, so a `switch` alone
//! cannot remove it) is gone and the `switch` narrows each case.

use std::fmt::Write as _;

use crate::context::{FieldDef, FieldType, Placement};
use crate::emit_markdown::GENERATED_HEADER;
use crate::spec::{ANY_ENVELOPE, Cause, Code, Lifecycle, Spec, UNLISTED_ENVELOPE};

/// The declarations of a checked spec.
pub fn emit(spec: &Spec) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// {GENERATED_HEADER}\n\
         // {} error taxonomy {}; JSON Schema: {}\n",
        spec.taxonomy.name.value,
        spec.taxonomy.version.value,
        spec.taxonomy.schema_id()
    );

    doc(&mut out, "", "Every error code an envelope may carry.");
    out.push_str("export type ErrorCode =\n");
    let codes: Vec<&Code> = spec.emitted_codes().collect();
    union(
        &mut out,
        codes
            .iter()
            .flat_map(|c| c.wire_names())
            .map(string_literal),
    );

    doc(
        &mut out,
        "",
        "The category of an error code, from its numeric range.",
    );
    out.push_str("export type Category =\n");
    union(
        &mut out,
        spec.categories.iter().map(|c| string_literal(&c.key.value)),
    );

    doc(
        &mut out,
        "",
        "Who is to blame: the caller's input, the environment, or the server itself.",
    );
    out.push_str("export type Cause =\n");
    union(
        &mut out,
        Cause::ALL.iter().map(|c| string_literal(c.as_str())),
    );

    for def in &spec.types {
        if def.values().is_some() {
            doc(&mut out, "", &def.doc.value);
            let _ = writeln!(out, "export type {} =", def.name.value);
            union(&mut out, def.wire_values().into_iter().map(string_literal));
        }
    }
    for def in &spec.types {
        if let Some(u) = def.union() {
            doc(&mut out, "", &def.doc.value);
            let _ = writeln!(out, "export type {} =", def.name.value);
            union(
                &mut out,
                u.variants.iter().map(|v| {
                    format!(
                        "({{ {}: {} }} & {})",
                        prop(&u.discriminator.value),
                        string_literal(&v.tag.value),
                        v.ty.value
                    )
                }),
            );
        }
    }
    for def in spec.types.iter().filter(|d| d.is_object()) {
        doc(&mut out, "", &def.doc.value);
        let _ = writeln!(out, "export interface {} {{", def.name.value);
        for m in def.members() {
            let note = crate::context::constraint_note(m.pattern.as_ref(), m.format.as_ref());
            doc(&mut out, "  ", &format!("{}{note}", m.doc.value));
            let opt = if m.required { "" } else { "?" };
            let null = if m.nullable { " | null" } else { "" };
            let _ = writeln!(
                out,
                "  {}{opt}: {}{null};",
                prop(m.wire()),
                ts_type(&m.ty.value)
            );
        }
        out.push_str("}\n\n");
    }

    doc(
        &mut out,
        "",
        "Every member the `context` object may have; each code narrows it.",
    );
    out.push_str("export interface ErrorContext {\n");
    for f in spec.fields_at(Placement::Context) {
        doc(&mut out, "  ", f.doc());
        let _ = writeln!(out, "  {}?: {};", prop(f.wire()), ts_type(f.ty()));
    }
    out.push_str("}\n\n");

    doc(&mut out, "", "The fields every error envelope carries.");
    out.push_str("export interface ErrorEnvelopeBase {\n");
    let base: [(&str, &str, &str); 8] = [
        ("success", "false", "Always false for an error."),
        (
            "error_code",
            "ErrorCode",
            "The error code; discriminates ErrorEnvelope.",
        ),
        ("code", "number", "The numeric id of error_code."),
        ("category", "Category", "The category of error_code."),
        ("message", "string", "What went wrong, in one line."),
        (
            "retryable",
            "boolean",
            "True when the caller can fix its call and retry.",
        ),
        ("cause", "Cause", "Who is to blame."),
        (
            "recovery_hints",
            "string[]",
            "General guidance for recovering, most relevant first.",
        ),
    ];
    for (name, ty, text) in base {
        doc(&mut out, "  ", text);
        let _ = writeln!(out, "  {name}: {ty};");
    }
    out.push_str("}\n\n");

    for code in &codes {
        code_interface(&mut out, spec, code);
    }

    doc(
        &mut out,
        "",
        "An error envelope: switch on `error_code` to narrow it to one code.",
    );
    out.push_str("export type ErrorEnvelope =\n");
    union(&mut out, codes.iter().map(|c| c.envelope_type_name()));
    unlisted(&mut out);
    runtime_declarations(&mut out);
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// A property name: as written when it is an identifier, else quoted
/// (`"@type"`).
fn prop(name: &str) -> String {
    let mut chars = name.chars();
    let ident = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.to_owned()
    } else {
        string_literal(name)
    }
}

fn code_interface(out: &mut String, spec: &Spec, code: &Code) {
    let mut text = format!(
        "`{}` ({}): {}.",
        code.name.value, code.number.value, code.title.value
    );
    if let Lifecycle::Deprecated {
        since, replaced_by, ..
    } = &code.lifecycle
    {
        text.push_str(&format!(
            "\n@deprecated since {}: use `{}`.",
            since.value, replaced_by.value
        ));
    }
    doc(out, "", &text);
    let _ = writeln!(
        out,
        "export interface {} extends ErrorEnvelopeBase {{",
        code.envelope_type_name()
    );
    let _ = writeln!(
        out,
        "  error_code: {};",
        code.wire_names()
            .map(string_literal)
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let ty = |f: &FieldDef| match spec.constant_json(code, f) {
        Some(v) => v.to_string(),
        None => ts_type(f.ty()),
    };
    let _ = writeln!(out, "  code: {};", code.number.value);
    let _ = writeln!(out, "  category: {};", string_literal(&code.category.value));
    let _ = writeln!(out, "  retryable: {};", code.retryable);
    let _ = writeln!(out, "  cause: {};", string_literal(code.cause.as_str()));
    let required = |f: &FieldDef| {
        code.required_context
            .iter()
            .any(|r| r.value == f.name.value)
    };
    let optional = |f: &FieldDef| {
        code.optional_context
            .iter()
            .any(|r| r.value == f.name.value)
    };
    for f in spec.fields_at(Placement::TopLevel) {
        if required(f) {
            let _ = writeln!(out, "  {}: {};", prop(f.wire()), ty(f));
        } else if optional(f) {
            let _ = writeln!(out, "  {}?: {};", prop(f.wire()), ts_type(f.ty()));
        }
    }
    let members: Vec<String> = spec
        .fields_at(Placement::Context)
        .filter_map(|f| {
            if required(f) {
                Some(format!("{}: {}", prop(f.wire()), ty(f)))
            } else if optional(f) {
                Some(format!("{}?: {}", prop(f.wire()), ts_type(f.ty())))
            } else {
                None
            }
        })
        .collect();
    let any_required = spec.fields_at(Placement::Context).any(required);
    if members.is_empty() {
        out.push_str("  context?: Record<string, never>;\n");
    } else {
        let opt = if any_required { "" } else { "?" };
        let _ = writeln!(out, "  context{opt}: {{ {} }};", members.join("; "));
    }
    out.push_str("}\n\n");
}

/// The envelope of a code this release does not list, and the union of
/// everything a server of the same major version may send (the published
/// schema's last variant; see `emit_schema`'s forward compatibility).
fn unlisted(out: &mut String) {
    doc(
        out,
        "",
        "An envelope whose `error_code` this release does not list: a server of a later \
         release of the same major version sent it. Handle it by the members every envelope \
         has (`message`, `retryable`, `cause`, `recovery_hints`).",
    );
    let _ = writeln!(
        out,
        "export interface {UNLISTED_ENVELOPE} extends Omit<ErrorEnvelopeBase, \"error_code\" | \"category\"> {{\n  \
         error_code: string;\n  category: string;\n  context?: Record<string, unknown>;\n}}\n"
    );
    doc(
        out,
        "",
        "What any server of the same major version may send. Switch on `error_code` of an \
         `ErrorEnvelope` once the code is one this release lists (`ErrorCode`).",
    );
    let _ = writeln!(
        out,
        "export type {ANY_ENVELOPE} = ErrorEnvelope | {UNLISTED_ENVELOPE};\n"
    );
}

/// The declarations of what `error-envelope.js` exports.
fn runtime_declarations(out: &mut String) {
    doc(
        out,
        "",
        "Every code this release lists, in the order of `ErrorCode` (run time, from \
         `error-envelope.js`).",
    );
    out.push_str("export declare const LISTED_CODES: readonly ErrorCode[];\n\n");
    doc(
        out,
        "",
        "Codes that arrive only as `violations[].code`, never as an envelope's own \
         `error_code` (run time, from `error-envelope.js`).",
    );
    out.push_str("export declare const VIOLATION_KINDS: readonly ErrorCode[];\n\n");
    doc(
        out,
        "",
        "True when this release lists `env.error_code`. A type predicate: after \
         `if (!isListed(env)) return ...`, `env` is an `ErrorEnvelope` and \
         `switch (env.error_code)` narrows each case to its code.",
    );
    let _ = writeln!(
        out,
        "export declare function isListed(env: {ANY_ENVELOPE}): env is ErrorEnvelope;\n"
    );
}

/// `schema/error-envelope.js`: the run-time half of the module whose types
/// [`emit`] declares. An ES module without dependencies.
pub fn emit_js(spec: &Spec) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// {GENERATED_HEADER}\n\
         // {} error taxonomy {}; types: error-envelope.d.ts\n",
        spec.taxonomy.name.value, spec.taxonomy.version.value,
    );
    doc(&mut out, "", "Every code this release lists.");
    out.push_str("export const LISTED_CODES = Object.freeze([\n");
    for name in spec.emitted_codes().flat_map(|c| c.wire_names()) {
        let _ = writeln!(out, "  {},", string_literal(name));
    }
    out.push_str("]);\n\n");
    doc(
        &mut out,
        "",
        "Codes that arrive only as `violations[].code`, never as an envelope's own `error_code`.",
    );
    out.push_str("export const VIOLATION_KINDS = Object.freeze([\n");
    for code in spec.emitted_codes().filter(|c| c.is_violation_kind()) {
        let _ = writeln!(out, "  {},", string_literal(code.wire()));
    }
    out.push_str("]);\n\nconst LISTED = new Set(LISTED_CODES);\n\n");
    doc(
        &mut out,
        "",
        "True when this release lists `env.error_code`; false for a code of a later release \
         (or anything that is not an envelope).",
    );
    out.push_str(
        "export function isListed(env) {\n  \
         return typeof env === \"object\" && env !== null && LISTED.has(env.error_code);\n}\n",
    );
    out
}

fn ts_type(ty: &FieldType) -> String {
    match ty {
        FieldType::String => "string".into(),
        FieldType::Integer | FieldType::Int32 | FieldType::Int64 | FieldType::Float => {
            "number".into()
        }
        FieldType::Map(value) => format!("Record<string, {}>", ts_type(value)),
        FieldType::Boolean => "boolean".into(),
        FieldType::Enum(name) | FieldType::Struct(name) => name.clone(),
        FieldType::ErrorCode => "ErrorCode".into(),
        FieldType::ArrayOf(item) => format!("{}[]", ts_type(item)),
    }
}

/// `| "A"\n  | "B";` on separate lines, or `never;` for an empty union.
fn union(out: &mut String, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        out.push_str("  never;\n\n");
        return;
    }
    for (i, item) in items.iter().enumerate() {
        let end = if i + 1 == items.len() { ";" } else { "" };
        let _ = writeln!(out, "  | {item}{end}");
    }
    out.push('\n');
}

/// A JSDoc comment; `*/` in the text cannot end it early.
fn doc(out: &mut String, indent: &str, text: &str) {
    let text = text.trim().replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{indent}/** {} */", lines[0]);
    } else {
        let _ = writeln!(out, "{indent}/**");
        for line in lines {
            let _ = writeln!(out, "{indent} * {line}");
        }
        let _ = writeln!(out, "{indent} */");
    }
}

/// A TypeScript string literal (JSON string syntax is valid TypeScript).
fn string_literal(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_fixture as fixture;

    #[test]
    fn union_is_discriminated_and_narrowed() {
        let ts = emit(&fixture());
        assert!(ts.contains(
            "export type ErrorEnvelope =\n  | BadPathEnvelope\n  | MatchNotFoundEnvelope\n  | OldThingEnvelope\n  | DiskFullEnvelope;\n"
        ));
        assert!(ts.contains("  error_code: \"MATCH_NOT_FOUND\";\n  code: 2000;\n"));
        assert!(ts.contains("  edit_index: number;\n"));
        assert!(ts.contains("  file_index?: number;\n"));
        assert!(ts.contains("  context: { snippet: string };\n"));
        assert!(ts.contains("@deprecated since 2.0.0: use `MATCH_NOT_FOUND`."));
        assert!(
            !ts.contains("GONE"),
            "removed codes are not part of the union"
        );
    }

    #[test]
    fn the_runtime_lists_the_emitted_codes_and_is_declared() {
        let spec = fixture();
        let js = emit_js(&spec);
        assert!(js.contains(
            "export const LISTED_CODES = Object.freeze([\n  \"BAD_PATH\",\n  \"MATCH_NOT_FOUND\",\n  \"OLD_THING\",\n  \"DISK_FULL\",\n]);\n"
        ));
        assert!(!js.contains("GONE"));
        let ts = emit(&spec);
        assert!(ts.contains("export declare const LISTED_CODES: readonly ErrorCode[];"));
        assert!(ts.contains(
            "export declare function isListed(env: AnyErrorEnvelope): env is ErrorEnvelope;"
        ));
    }

    #[test]
    fn braces_balance() {
        let ts = emit(&fixture());
        assert_eq!(ts.matches('{').count(), ts.matches('}').count());
        assert!(ts.ends_with(";\n"));
    }
}
