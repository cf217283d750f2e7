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
//!
//! The words above are for splice's own envelope. The interfaces follow
//! whatever envelope the spec declares ([`crate::envelope`]): members in
//! their wire names, nested objects as inline object types, the
//! discriminant (the member carrying the code's name, else its number) at
//! its path. `switch (env.error.status)` on a nested discriminant narrows
//! `env.error`, the object that holds it.

mod runtime;

pub use runtime::emit_js;

use std::fmt::Write as _;

use crate::context::{FieldDef, FieldType, Placement};
use crate::describe::{GENERATED_HEADER, discriminant_path, member_doc, retry_and_attributes};
use crate::envelope::{Carries, Member};
use crate::spec::{ANY_ENVELOPE, Cause, Code, Lifecycle, Spec, UNLISTED_ENVELOPE};

use runtime::{names_on_the_wire, runtime_declarations};

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

    let env = &spec.envelope;
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

    if env.carries("category") {
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
    }

    if env.carries("cause") {
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
    }

    for def in &spec.types {
        if def.values().is_some() {
            doc(&mut out, "", &def.doc.value);
            let _ = writeln!(out, "export type {} =", def.name.value);
            union(&mut out, def.wire_values().into_iter().map(string_literal));
        }
    }
    for def in &spec.types {
        if let Some(o) = def.one_of() {
            doc(&mut out, "", &def.doc.value);
            let _ = writeln!(out, "export type {} =", def.name.value);
            let null = o.null.as_ref().map(|_| "null".to_owned());
            union(
                &mut out,
                o.types.iter().map(|t| ts_type(&t.value)).chain(null),
            );
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

    if let Some(context) = env.path_of("context") {
        doc(
            &mut out,
            "",
            &format!(
                "Every member the `{}` object may have; each code narrows it.",
                context.last().expect("a path names its member")
            ),
        );
        out.push_str("export interface ErrorContext {\n");
        for f in spec.fields_at(Placement::Context) {
            doc(&mut out, "  ", f.doc());
            let _ = writeln!(out, "  {}?: {};", prop(f.wire()), ts_type(f.ty()));
        }
        out.push_str("}\n\n");
    }

    doc(&mut out, "", "The fields every error envelope carries.");
    out.push_str("export interface ErrorEnvelopeBase {\n");
    members(
        &mut out,
        spec,
        &env.members,
        &mut Vec::new(),
        Form::Base,
        "  ",
    );
    out.push_str("}\n\n");

    for code in &codes {
        code_interface(&mut out, spec, code);
    }

    doc(
        &mut out,
        "",
        &format!(
            "An error envelope: switch on `{}` to narrow it to one code.",
            discriminant_path(spec)
        ),
    );
    out.push_str("export type ErrorEnvelope =\n");
    union(&mut out, codes.iter().map(|c| c.envelope_type_name()));
    unlisted(&mut out, spec);
    runtime_declarations(&mut out, spec);
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
    text.push_str(&retry_and_attributes(code, "\n"));
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
    members(
        out,
        spec,
        &spec.envelope.members,
        &mut Vec::new(),
        Form::Code(code),
        "  ",
    );
    out.push_str("}\n\n");
}

/// Which type of the envelope [`members`] writes.
#[derive(Clone, Copy)]
enum Form<'c> {
    /// `ErrorEnvelopeBase`: every member but `context`, typed for any code.
    Base,
    /// One code's interface, which extends the base: at the top level only
    /// what the code pins (its name, number, category, `retryable`,
    /// `cause`), its fields and `context`; nested objects in full.
    Code(&'c Code),
    /// `UnlistedCodeEnvelope`, which extends the base minus what it
    /// overrides: at the top level only the members whose type a later code
    /// widens (its name, category, `context`); nested objects in full.
    Unlisted,
}

/// True when `carries` differs from the base type in `form` (so the
/// top level of an interface extending the base writes it).
fn pinned(carries: &Carries, form: Form<'_>) -> bool {
    match (carries, form) {
        (Carries::Object(inner), Form::Unlisted) => inner.iter().any(|m| pinned(&m.carries, form)),
        (Carries::Object(_), Form::Code(_)) => true,
        (
            Carries::CodeName
            | Carries::Number
            | Carries::Category
            | Carries::Retryable
            | Carries::Cause
            | Carries::Context,
            Form::Code(_),
        ) => true,
        (Carries::CodeName | Carries::Category | Carries::Context, Form::Unlisted) => true,
        _ => false,
    }
}

/// The members of the envelope object at `path` (`members` are its
/// members), one a line at `indent`. At the top level of a code's or the
/// unlisted interface only what differs from the base is written (the
/// interface extends it); nested objects are written whole, as inline
/// object types. The object that holds the top-level fields gets them
/// before its `context` member, or at its end (as in the schema).
fn members(
    out: &mut String,
    spec: &Spec,
    object: &[Member],
    path: &mut Vec<String>,
    form: Form<'_>,
    indent: &str,
) {
    let top = path.is_empty();
    let code = match form {
        Form::Code(code) => Some(code),
        _ => None,
    };
    let held: Vec<&FieldDef> = match code {
        Some(_) => spec.fields_held_at(path).collect(),
        None => Vec::new(),
    };
    let mut fields_done = held.is_empty();
    for m in object {
        if matches!(m.carries, Carries::Context) && !fields_done {
            fields(
                out,
                spec,
                &held,
                code.expect("only a code's form holds fields"),
                indent,
            );
            fields_done = true;
        }
        if top && !matches!(form, Form::Base) && !pinned(&m.carries, form) {
            continue;
        }
        let name = prop(&m.name.value);
        let required = match form {
            Form::Code(c) => m.required_for(Some(&c.name.value)),
            Form::Unlisted => m.required_for(None),
            Form::Base => m.required,
        };
        let opt = if required { "" } else { "?" };
        if matches!(form, Form::Base) {
            if matches!(m.carries, Carries::Context) {
                continue;
            }
            let text = member_doc(spec, m);
            if !text.is_empty() {
                doc(out, indent, &text);
            }
        }
        let ty = match (&m.carries, form) {
            (Carries::Object(inner), _) => {
                let _ = writeln!(out, "{indent}{name}{opt}: {{");
                path.push(m.name.value.clone());
                members(out, spec, inner, path, form, &format!("{indent}  "));
                path.pop();
                let _ = writeln!(out, "{indent}}};");
                continue;
            }
            (Carries::Context, Form::Code(code)) => {
                context(out, spec, code, &name, indent);
                continue;
            }
            (Carries::Context, _) => {
                let _ = writeln!(out, "{indent}{name}?: Record<string, unknown>;");
                continue;
            }
            (Carries::Constant(v), _) => v.to_string(),
            (Carries::CodeName, Form::Code(c)) => c
                .wire_names()
                .map(string_literal)
                .collect::<Vec<_>>()
                .join(" | "),
            (Carries::CodeName, Form::Unlisted) | (Carries::Category, Form::Unlisted) => {
                "string".into()
            }
            (Carries::CodeName, _) => "ErrorCode".into(),
            (Carries::Number, Form::Code(c)) => c.number.value.to_string(),
            (Carries::Number, _) => "number".into(),
            (Carries::Category, Form::Code(c)) => string_literal(&c.category.value),
            (Carries::Category, _) => "Category".into(),
            (Carries::Retryable, Form::Code(c)) => c.retryable.to_string(),
            (Carries::Retryable, _) => "boolean".into(),
            (Carries::Cause, Form::Code(c)) => string_literal(c.cause.as_str()),
            (Carries::Cause, _) => "Cause".into(),
            (Carries::Message, _) => "string".into(),
            (Carries::Hints, _) => "string[]".into(),
        };
        let _ = writeln!(out, "{indent}{name}{opt}: {ty};");
    }
    if !fields_done {
        fields(
            out,
            spec,
            &held,
            code.expect("only a code's form holds fields"),
            indent,
        );
    }
}

/// The fields of an object (`held`: `in: top_level` or `in: envelope`)
/// that `code` carries, in spec order.
fn fields(out: &mut String, spec: &Spec, held: &[&FieldDef], code: &Code, indent: &str) {
    for &f in held {
        if is_required(code, f) {
            let _ = writeln!(
                out,
                "{indent}{}: {};",
                prop(f.wire()),
                field_ty(spec, code, f)
            );
        } else if is_optional(code, f) {
            let _ = writeln!(out, "{indent}{}?: {};", prop(f.wire()), ts_type(f.ty()));
        }
    }
}

/// The member carrying `context` in `code`'s interface: the fields
/// declared `in: context` that the code carries, required when one of them
/// is.
fn context(out: &mut String, spec: &Spec, code: &Code, name: &str, indent: &str) {
    let members: Vec<String> = spec
        .fields_at(Placement::Context)
        .filter_map(|f| {
            if is_required(code, f) {
                Some(format!("{}: {}", prop(f.wire()), field_ty(spec, code, f)))
            } else if is_optional(code, f) {
                Some(format!("{}?: {}", prop(f.wire()), ts_type(f.ty())))
            } else {
                None
            }
        })
        .collect();
    let any_required = spec
        .fields_at(Placement::Context)
        .any(|f| is_required(code, f));
    if members.is_empty() {
        let _ = writeln!(out, "{indent}{name}?: Record<string, never>;");
    } else {
        let opt = if any_required { "" } else { "?" };
        let _ = writeln!(out, "{indent}{name}{opt}: {{ {} }};", members.join("; "));
    }
}

/// The type of a field `code` requires: its constant when the code fixes
/// one, else its declared type.
fn field_ty(spec: &Spec, code: &Code, f: &FieldDef) -> String {
    match spec.constant_json(code, f) {
        Some(v) => v.to_string(),
        None => ts_type(f.ty()),
    }
}

fn is_required(code: &Code, f: &FieldDef) -> bool {
    code.required_context
        .iter()
        .any(|r| r.value == f.name.value)
}

fn is_optional(code: &Code, f: &FieldDef) -> bool {
    code.optional_context
        .iter()
        .any(|r| r.value == f.name.value)
}

/// The names of the members that tell a later code's envelope how to be
/// handled (message, retryable, cause, hints), as the envelope spells them.
pub(crate) fn handled_by(spec: &Spec) -> Vec<&str> {
    ["message", "retryable", "cause", "hints"]
        .into_iter()
        .filter_map(|p| spec.envelope.path_of(p))
        .map(|p| *p.last().expect("a path names its member"))
        .collect()
}

/// The envelope of a code this release does not list, and the union of
/// everything a server of the same major version may send (the published
/// schema's last variant; see `emit_schema`'s forward compatibility).
fn unlisted(out: &mut String, spec: &Spec) {
    let disc = discriminant_path(spec);
    let handles: Vec<String> = handled_by(spec)
        .into_iter()
        .map(|n| format!("`{n}`"))
        .collect();
    let by = if handles.is_empty() {
        String::from(".")
    } else {
        format!(" ({}).", handles.join(", "))
    };
    doc(
        out,
        "",
        &format!(
            "An envelope whose `{disc}` this release does not list: a server of a later \
             release of the same major version sent it. Handle it by the members every envelope \
             has{by}"
        ),
    );
    let overridden: Vec<String> = spec
        .envelope
        .members
        .iter()
        .filter(|m| pinned(&m.carries, Form::Unlisted) && !matches!(m.carries, Carries::Context))
        .map(|m| string_literal(&m.name.value))
        .collect();
    if overridden.is_empty() {
        let _ = writeln!(
            out,
            "export interface {UNLISTED_ENVELOPE} extends ErrorEnvelopeBase {{"
        );
    } else {
        let _ = writeln!(
            out,
            "export interface {UNLISTED_ENVELOPE} extends Omit<ErrorEnvelopeBase, {}> {{",
            overridden.join(" | ")
        );
    }
    members(
        out,
        spec,
        &spec.envelope.members,
        &mut Vec::new(),
        Form::Unlisted,
        "  ",
    );
    // Fields `in: envelope` frame every code's error (JSON-RPC's `id`), so
    // an unlisted code's envelope may carry them too.
    for f in spec.fields_at(Placement::Envelope) {
        doc(out, "  ", f.doc());
        let _ = writeln!(out, "  {}?: {};", prop(f.wire()), ts_type(f.ty()));
    }
    out.push_str("}\n\n");
    let lists = if names_on_the_wire(spec) {
        " (`ErrorCode`)"
    } else {
        ""
    };
    doc(
        out,
        "",
        &format!(
            "What any server of the same major version may send. Switch on `{disc}` of an \
             `ErrorEnvelope` once the code is one this release lists{lists}."
        ),
    );
    let _ = writeln!(
        out,
        "export type {ANY_ENVELOPE} = ErrorEnvelope | {UNLISTED_ENVELOPE};\n"
    );
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
            if line.is_empty() {
                let _ = writeln!(out, "{indent} *");
            } else {
                let _ = writeln!(out, "{indent} * {line}");
            }
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
    fn the_code_table_comes_from_the_spec_and_is_declared() {
        let spec = fixture();
        let js = emit_js(&spec);
        assert!(js.contains(
            "  \"DISK_FULL\": Object.freeze({\n    name: \"DISK_FULL\",\n    number: 4000,\n    \
             category: \"external\",\n    retryable: false,\n    cause: \"environment\",\n"
        ));
        assert!(
            js.contains("    deprecatedSince: \"2.0.0\",\n    replacedBy: \"MATCH_NOT_FOUND\",\n")
        );
        assert!(js.contains("export const CODES = Object.freeze(CODE_TABLE);"));
        assert!(js.contains(
            "  const key = env.error_code;\n  \
             return typeof key === \"string\" && Object.hasOwn(CODES, key) ? CODES[key] : undefined;\n"
        ));
        assert!(!js.contains("GONE"), "removed codes are not in the table");
        // No retry classes or attributes declared: no such members.
        assert!(!js.contains("retryClasses") && !js.contains("attributes:"));
        let ts = emit(&spec);
        assert!(ts.contains("export declare const CODES: Readonly<Record<ErrorCode, CodeInfo>>;"));
        assert!(ts.contains("export declare function codeInfo(env: ErrorEnvelope): CodeInfo;\n"));
        assert!(ts.contains(
            "export declare function codeInfo(env: AnyErrorEnvelope): CodeInfo | undefined;\n"
        ));
        assert!(ts.contains("  readonly category: Category;\n"));
    }

    /// A code deprecated in favour of one whose wire name is not its
    /// identifier: `replacedBy` (and Python's `replaced_by`) name it as
    /// `ErrorCode` spells it, and the aliases key the same entry.
    #[test]
    fn the_code_table_names_codes_on_the_wire() {
        let text = format!(
            "{}  OLD_THROTTLED:\n    number: 3\n    category: server\n    since: 1.0.0\n    \
             title: the old throttling code\n    message: throttled\n    \
             recovery_hints: [Wait, then retry]\n    \
             deprecated: {{ since: 1.0.0, replaced_by: THROTTLED }}\n    \
             explanation: Replaced.\n",
            include_str!("../../../tests/fixtures/constructs.yaml")
        );
        let spec =
            crate::load_str(&text, "constructs.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
        let js = emit_js(&spec);
        assert!(
            js.contains("    replacedBy: \"ThrottlingException\",\n"),
            "{js}"
        );
        assert!(js.contains("CODE_TABLE[\"Throttling\"] = CODE_TABLE[\"ThrottlingException\"];\n"));
        let py = crate::emit_python::emit(&spec);
        assert!(
            py.contains("        replaced_by=\"ThrottlingException\",\n"),
            "{py}"
        );
    }

    #[test]
    fn braces_balance() {
        let ts = emit(&fixture());
        assert_eq!(ts.matches('{').count(), ts.matches('}').count());
        assert!(ts.ends_with(";\n"));
    }
}
