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

use crate::context::FieldType;
use crate::describe::{GENERATED_HEADER, member_doc, retry_and_attributes};
use crate::envelope::Carries;
use crate::layout::{FieldSlot, Form, Layout, Object, Presence, Slot};
use crate::spec::{ANY_ENVELOPE, Cause, Code, Lifecycle, Spec, UNLISTED_ENVELOPE};

use runtime::runtime_declarations;

/// The declarations of a checked spec.
pub fn emit(spec: &Spec) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// {GENERATED_HEADER}\n\
         // {} error taxonomy {}; JSON Schema: {}\n",
        crate::text::comment_line(&spec.taxonomy.name.value),
        spec.taxonomy.version.value,
        crate::text::comment_line(&spec.taxonomy.schema_id())
    );

    let layout = Layout::of(spec);
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

    if layout.carries("category") {
        doc(&mut out, "", "The category of an error code.");
        out.push_str("export type Category =\n");
        union(
            &mut out,
            spec.categories.iter().map(|c| string_literal(&c.key.value)),
        );
    }

    if layout.carries("cause") {
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
        if def.open {
            // `unknown` admits every listed member's type, as an index
            // signature must.
            doc(&mut out, "  ", "Members the type does not list, as sent.");
            out.push_str("  [member: string]: unknown;\n");
        }
        out.push_str("}\n\n");
    }

    if let Some(context) = layout.path_to("context").and_then(|p| p.last().copied()) {
        doc(
            &mut out,
            "",
            &format!(
                "Every member the `{}` object may have; each code narrows it.",
                context.name.value
            ),
        );
        out.push_str("export interface ErrorContext {\n");
        for f in layout.context_fields(Form::Any) {
            doc(&mut out, "  ", f.field.doc());
            let _ = writeln!(
                out,
                "  {}?: {};",
                prop(f.field.wire()),
                ts_type(f.field.ty())
            );
        }
        out.push_str("}\n\n");
    }

    doc(&mut out, "", "The fields every error envelope carries.");
    out.push_str("export interface ErrorEnvelopeBase {\n");
    members(
        &mut out,
        &layout,
        &layout.envelope(Form::Any),
        Form::Any,
        "  ",
    );
    out.push_str("}\n\n");

    // A violation kind arrives inside another envelope: no interface of
    // its own, no member of the union.
    let enveloped: Vec<&Code> = codes
        .iter()
        .copied()
        .filter(|c| !c.is_violation_kind())
        .collect();
    for code in &enveloped {
        code_interface(&mut out, &layout, code);
    }

    doc(
        &mut out,
        "",
        &format!(
            "An error envelope: switch on `{}` to narrow it to one code.",
            layout.discriminant().dotted()
        ),
    );
    out.push_str("export type ErrorEnvelope =\n");
    union(&mut out, enveloped.iter().map(|c| c.envelope_type_name()));
    unlisted(&mut out, &layout);
    response(&mut out, &layout);
    for op in &spec.operations {
        let text = format!("The errors of operation `{}`: {}", op.wire(), op.doc.value);
        doc(&mut out, "", &text);
        let _ = writeln!(out, "export type {} =", op.error_type_name());
        union(
            &mut out,
            spec.operation_codes(op)
                .into_iter()
                .filter(|c| !c.is_violation_kind())
                .map(|c| c.envelope_type_name()),
        );
    }
    runtime_declarations(&mut out, &layout);
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// `ErrorResponse`: the response around the list of envelopes (a member
/// `list: true`), the list a non-empty tuple of any envelope. Nothing for a
/// spec without a list.
fn response(out: &mut String, layout: &Layout<'_>) {
    use crate::envelope::Holds;
    let Some(response) = layout.response() else {
        return;
    };
    doc(
        out,
        "",
        &format!(
            "The response around the errors: `{}` holds at least one envelope; `codesOf` reads \
             the code of each.",
            response.list().name.value
        ),
    );
    let _ = writeln!(out, "export interface {} {{", crate::names::ERROR_RESPONSE);
    for m in &response.members {
        if let Some(d) = &m.doc {
            doc(out, "  ", &d.value);
        }
        let ty = match &m.holds {
            Holds::List => format!("[{ANY_ENVELOPE}, ...{ANY_ENVELOPE}[]]"),
            Holds::Constant(v) => v.to_string(),
            Holds::Typed { .. } => ts_type(m.ty().expect("a typed member has its type")),
        };
        let optional = if m.required { "" } else { "?" };
        let _ = writeln!(out, "  {}{optional}: {ty};", prop(&m.name.value));
    }
    out.push_str("}\n\n");
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

fn code_interface(out: &mut String, layout: &Layout<'_>, code: &Code) {
    let mut text = match code.number() {
        Some(n) => format!("`{}` ({n}): {}.", code.name.value, code.title.value),
        None => format!("`{}`: {}.", code.name.value, code.title.value),
    };
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
    let form = Form::Code(code);
    members(out, layout, &layout.envelope(form), form, "  ");
    out.push_str("}\n\n");
}

/// True when `carries` differs from the base interface's type in `form`,
/// so the top level of an interface extending the base restates it: in a
/// code's interface what the code pins (its name, number, category,
/// `retryable`, `cause`), its `context` and the nested objects; in the
/// unlisted one what a later code widens (its name, category, `context`)
/// and the objects holding such a member.
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

/// The slots of `object` in an envelope of `form`, one a line at `indent`:
/// `ErrorEnvelopeBase` ([`Form::Any`]) has every member but `context`,
/// typed for any code; a code's interface and the unlisted one extend it,
/// so their top level writes only what differs from it ([`pinned`]), and
/// nested objects whole, as inline object types. The fields of a code are
/// where the layout puts them; the unlisted interface writes the fields
/// `in: envelope` after its members.
fn members(
    out: &mut String,
    layout: &Layout<'_>,
    object: &Object<'_>,
    form: Form<'_>,
    indent: &str,
) {
    let top = object.path.is_empty();
    for slot in &object.slots {
        let m = match (slot, form) {
            (Slot::Field(f), Form::Code(_)) => {
                field(out, f, indent);
                continue;
            }
            (Slot::Field(_), _) => continue,
            (slot, _) => slot
                .member()
                .expect("a slot that is not a field is a member"),
        };
        if top && !matches!(form, Form::Any) && !pinned(&m.carries, form) {
            continue;
        }
        let name = prop(&m.name.value);
        let opt = if slot.presence().is_required() {
            ""
        } else {
            "?"
        };
        if matches!(form, Form::Any) {
            if matches!(m.carries, Carries::Context) {
                continue;
            }
            let text = member_doc(layout, m);
            if !text.is_empty() {
                doc(out, indent, &text);
            }
        }
        let ty = match (slot, &m.carries, form) {
            (Slot::Object { object, .. }, _, _) => {
                let _ = writeln!(out, "{indent}{name}{opt}: {{");
                members(out, layout, object, form, &format!("{indent}  "));
                let _ = writeln!(out, "{indent}}};");
                continue;
            }
            (Slot::Context { fields, .. }, _, Form::Code(_)) => {
                context(out, fields, &name, slot.presence(), indent);
                continue;
            }
            (Slot::Context { .. }, _, _) => {
                let _ = writeln!(out, "{indent}{name}?: Record<string, unknown>;");
                continue;
            }
            (_, Carries::Constant(v), _) => v.to_string(),
            (_, Carries::CodeName, Form::Code(c)) => c
                .wire_names()
                .map(string_literal)
                .collect::<Vec<_>>()
                .join(" | "),
            (_, Carries::CodeName | Carries::Category, Form::Unlisted) => "string".into(),
            (_, Carries::CodeName, _) => "ErrorCode".into(),
            (_, Carries::Number, Form::Code(c)) => c
                .number()
                .map_or_else(|| "number".into(), |n| n.to_string()),
            (_, Carries::Number, _) => "number".into(),
            (_, Carries::Category, Form::Code(c)) => string_literal(&c.category.value),
            (_, Carries::Category, _) => "Category".into(),
            (_, Carries::Retryable, Form::Code(c)) => c.retryable.to_string(),
            (_, Carries::Retryable, _) => "boolean".into(),
            (_, Carries::Cause, Form::Code(c)) => string_literal(c.cause.as_str()),
            (_, Carries::Cause, _) => "Cause".into(),
            (_, Carries::Message, _) => "string".into(),
            (_, Carries::Hints, _) => "string[]".into(),
            (_, Carries::Context | Carries::Object(_), _) => "Record<string, unknown>".into(),
        };
        let _ = writeln!(out, "{indent}{name}{opt}: {ty};");
    }
}

/// `name: type;` of a field in a code's interface: its constant when the
/// code fixes one, `?` when it may be absent.
fn field(out: &mut String, f: &FieldSlot<'_>, indent: &str) {
    let _ = writeln!(out, "{indent}{};", field_member(f));
}

/// `name: type` (or `name?: type`) of a field of a code.
fn field_member(f: &FieldSlot<'_>) -> String {
    let opt = if f.presence.is_required() { "" } else { "?" };
    let ty = match &f.constant {
        Some(v) => v.to_string(),
        None => ts_type(f.field.ty()),
    };
    format!("{}{opt}: {ty}", prop(f.field.wire()))
}

/// The member carrying `context` in a code's interface: the code's context
/// fields, required when one of them is; an empty object for a code that
/// carries none.
fn context(
    out: &mut String,
    fields: &[FieldSlot<'_>],
    name: &str,
    presence: Presence,
    indent: &str,
) {
    if fields.is_empty() {
        let _ = writeln!(out, "{indent}{name}?: Record<string, never>;");
        return;
    }
    let members: Vec<String> = fields.iter().map(field_member).collect();
    let opt = if presence.is_required() { "" } else { "?" };
    let _ = writeln!(out, "{indent}{name}{opt}: {{ {} }};", members.join("; "));
}

/// The names of the members that tell a later code's envelope how to be
/// handled (message, retryable, cause, hints), as the envelope spells them.
fn handled_by<'s>(layout: &Layout<'s>) -> Vec<&'s str> {
    ["message", "retryable", "cause", "hints"]
        .into_iter()
        .filter_map(|p| layout.path_to(p))
        .filter_map(|p| p.last().map(|m| m.name.value.as_str()))
        .collect()
}

/// The envelope of a code this release does not list, and the union of
/// everything a server of the same major version may send (the published
/// schema's last variant; see `emit_schema`'s forward compatibility).
fn unlisted(out: &mut String, layout: &Layout<'_>) {
    let spec = layout.spec();
    let disc = layout.discriminant().dotted();
    let handles: Vec<String> = handled_by(layout)
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
    let envelope = layout.envelope(Form::Unlisted);
    members(out, layout, &envelope, Form::Unlisted, "  ");
    // Fields `in: envelope` frame every code's error (JSON-RPC's `id`), so
    // an unlisted code's envelope may carry them too.
    for f in envelope.fields() {
        doc(out, "  ", f.field.doc());
        let _ = writeln!(
            out,
            "  {}?: {};",
            prop(f.field.wire()),
            ts_type(f.field.ty())
        );
    }
    out.push_str("}\n\n");
    let lists = if layout.discriminant().by_name {
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
        FieldType::Json => "unknown".into(),
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
    let text = crate::text::jsdoc(text.trim());
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
    crate::text::json_str(s)
}

#[cfg(test)]
mod tests {

    /// A code or alias spelled `__proto__` is an entry of the JavaScript
    /// table, not its prototype: `codeInfo` finds both (node runs the
    /// generated module; skipped with a reason when node is missing, unless
    /// `CI=true`).
    #[test]
    fn a_code_spelled_proto_is_an_entry_of_the_table() {
        let text = include_str!("../../../tests/fixtures/constructs.yaml").replacen(
            "    wire: ThrottlingException\n",
            "    wire: __proto__\n",
            1,
        );
        codes_found_under_node(&text, "__proto__", "Throttling");
        // The same with an alias so spelled.
        let text = include_str!("../../../tests/fixtures/constructs.yaml").replacen(
            "    aliases: [Throttling, ",
            "    aliases: [__proto__, ",
            1,
        );
        codes_found_under_node(&text, "ThrottlingException", "__proto__");
    }

    /// Runs the JavaScript module of `text` under node: `codeInfo` finds
    /// the code number 1 by `a` and by `b`, and the table's prototype is
    /// `Object.prototype`.
    fn codes_found_under_node(text: &str, a: &str, b: &str) {
        let spec =
            crate::load_str(text, "constructs.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
        let js = emit_js(&spec);
        assert!(
            js.contains("  [\"__proto__\"]: Object.freeze({\n")
                || js.contains("Object.defineProperty(CODE_TABLE, \"__proto__\", {"),
            "{js}"
        );
        let dir = tempfile::tempdir().unwrap();
        let module = dir.path().join("errors.mjs");
        std::fs::write(&module, &js).unwrap();
        let script = format!(
            "const m = await import({:?});\n\
             const a = m.codeInfo({{ error_code: {a:?} }});\n\
             const b = m.codeInfo({{ error_code: {b:?} }});\n\
             if (!a || a.number !== 1 || !b || b.number !== 1 || Object.getPrototypeOf(m.CODES) !== Object.prototype) {{\n\
               console.error(JSON.stringify([a, b])); process.exit(1);\n\
             }}\n",
            module.display().to_string()
        );
        match std::process::Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .output()
        {
            Ok(out) => assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) if std::env::var("CI").as_deref() != Ok("true") => {
                eprintln!("skipped: node is not available ({e})");
            }
            Err(e) => panic!("node is required in CI: {e}"),
        }
    }
    use super::*;
    use crate::test_fixture as fixture;

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
