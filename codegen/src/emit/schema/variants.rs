//! The variants of the envelope: one per listed code (`<Code>Envelope`, its
//! context in `<Code>Context`), the unlisted one, and the object bodies the
//! output shape reuses. Each is the [`Layout`] of its form written as a
//! schema: a slot becomes a property, required when the layout says it is in
//! every envelope of the form.

use serde_json::{Map, Value, json};

use crate::envelope::{Carries, Member};
use crate::layout::{FieldSlot, Form, Layout, Object, Slot};
use crate::spec::{Cause, Code, Family, FamilyRule, HintsRule, UNLISTED_ENVELOPE};

use super::types::{close, constrained, type_schema, with_description};
use super::{Openness, variant_description};

/// The pattern of an error code name (SCREAMING_SNAKE_CASE).
const CODE_PATTERN: &str = "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$";

/// The name the docs use for the member that tells codes apart.
pub(super) fn discriminant<'l>(layout: &'l Layout<'_>) -> &'l str {
    layout
        .discriminant()
        .member_name()
        .unwrap_or("the error code")
}

/// The schema of a member carrying one property of the code, or a
/// constant, in an envelope of `form`, with the member's `pattern` and
/// `format` where it is any string (a `const` or `enum` is checked against
/// them by `check`; the output shape holds no constraints, as for fields).
fn carried(layout: &Layout<'_>, member: &Member, form: Form<'_>) -> Value {
    let schema = carried_value(layout, member, form);
    if matches!(form, Form::Any) || schema.get("type") != Some(&json!("string")) {
        return schema;
    }
    match (&member.pattern, schema.get("pattern").is_some()) {
        // The unlisted code's own pattern stays; the member's is added.
        (Some(p), true) => {
            let mut schema = super::types::constrained(schema, None, member.format.as_ref(), false);
            schema["allOf"] = json!([{"pattern": p.value}]);
            schema
        }
        _ => super::types::constrained(
            schema,
            member.pattern.as_ref(),
            member.format.as_ref(),
            false,
        ),
    }
}

/// [`carried`] without the member's constraints.
fn carried_value(layout: &Layout<'_>, member: &Member, form: Form<'_>) -> Value {
    let spec = layout.spec();
    let code = form.code();
    let unlisted = form.is_unlisted();
    let named = discriminant(layout);
    // A family fixes what its category does.
    if let Form::Family(f) = form {
        let category = layout.family_category(f);
        match member.carries {
            Carries::Category => return json!({"const": f.category.value}),
            Carries::Retryable => return json!({"const": category.retryable.value}),
            Carries::Cause => return json!({"const": category.cause.value.as_str()}),
            _ => {}
        }
    }
    let schema = match (&member.carries, code) {
        (Carries::Constant(v), _) => json!({"const": v}),
        (Carries::CodeName, Some(c)) if c.aliases.is_empty() => return json!({"const": c.wire()}),
        (Carries::CodeName, Some(c)) => {
            return json!({"enum": c.wire_names().collect::<Vec<_>>()});
        }
        (Carries::CodeName, None) if unlisted => code_name_outside(layout, form),
        (Carries::CodeName, None) => return json!({"$ref": "#/$defs/ErrorCode"}),
        (Carries::Number, Some(c)) => return json!({"const": c.number()}),
        (Carries::Number, None) => {
            let description =
                format!("The numeric id of {named}; fixed per code and never reused.");
            // Non-negative unless the taxonomy numbers its codes below zero.
            let mut n = if spec.codes.iter().all(|c| c.number() >= Some(0)) {
                json!({"type": "integer", "minimum": 0, "description": description})
            } else {
                json!({"type": "integer", "description": description})
            };
            if unlisted && !layout.discriminant().by_name {
                // A reserved number is never given out, not even by a later
                // release, so it is no more valid than a listed one here.
                let taken = spec
                    .codes
                    .iter()
                    .filter(|c| !c.is_violation_kind())
                    .filter_map(Code::number);
                let reserved = spec.reserved.iter().map(|r| r.number.value);
                let listed = json!({"enum": taken.chain(reserved).collect::<Vec<_>>()});
                let families = layout.families();
                let earlier = match form {
                    Form::Family(f) => {
                        let at = families
                            .iter()
                            .position(|e| std::ptr::eq(e, f))
                            .unwrap_or(families.len());
                        &families[..at]
                    }
                    _ => families,
                };
                n["not"] = if earlier.is_empty() {
                    listed
                } else {
                    let mut any = vec![listed];
                    any.extend(earlier.iter().filter_map(|e| match e.rule.value {
                        FamilyRule::Range(lo, hi) => Some(json!({"minimum": lo, "maximum": hi})),
                        _ => None,
                    }));
                    json!({"anyOf": any})
                };
                n["description"] = json!(if spec.reserved.is_empty() {
                    "A code number this release does not list."
                } else {
                    "A code number this release does not list and no release may take (not a reserved one)."
                });
                if let Form::Family(f) = form
                    && let FamilyRule::Range(lo, hi) = f.rule.value
                {
                    n["minimum"] = json!(lo);
                    n["maximum"] = json!(hi);
                    n["description"] = json!(format!(
                        "A code number of family {} ({lo} to {hi}) this release does not list.",
                        f.name.value
                    ));
                }
            }
            n
        }
        (Carries::Category, Some(c)) => return json!({"const": c.category.value}),
        (Carries::Category, None) if unlisted => json!({
            "type": "string",
            "description": format!("The category of {named}; may be one this release does not list."),
        }),
        (Carries::Category, None) => json!({
            "type": "string",
            "enum": spec.categories.iter().map(|c| c.key.value.as_str()).collect::<Vec<_>>(),
            "description": format!("The category of {named}."),
        }),
        (Carries::Message, _) => {
            json!({"type": "string", "description": "What went wrong, in one line."})
        }
        (Carries::Retryable, Some(c)) => return json!({"const": c.retryable}),
        (Carries::Retryable, None) => json!({
            "type": "boolean",
            "description": format!("True when {}.", spec.retry_meaning())
        }),
        (Carries::Cause, Some(c)) => return json!({"const": c.cause.as_str()}),
        (Carries::Cause, None) => json!({
            "type": "string",
            "enum": Cause::ALL.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "description": "Who is to blame: input (the caller's arguments), environment (the file system, other processes) or server (the server itself)."
        }),
        (Carries::Hints, _) => {
            let mut hints = json!({
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "description": "General guidance for recovering, most relevant first."
            });
            // A taxonomy whose codes may have no hints sends an empty list.
            if spec.taxonomy.hints() == HintsRule::Optional {
                hints.as_object_mut().map(|h| h.remove("minItems"));
            }
            hints
        }
        // The layout gives objects and the context slots of their own.
        (Carries::Context | Carries::Object(_), _) => json!({"type": "object"}),
    };
    match &member.doc {
        Some(doc) => with_description(schema, &doc.value),
        None => schema,
    }
}

/// The code name of an unlisted envelope ([`Form::Unlisted`]) or of a
/// family's ([`Form::Family`]): never a name a code has, in the family's
/// rule and in no earlier family's, or in no family's at all.
fn code_name_outside(layout: &Layout<'_>, form: Form<'_>) -> Value {
    let spec = layout.spec();
    // Removed codes too: their names are never used again. A violation kind
    // has no variant, so it is a code like one a later release adds, should
    // an envelope ever carry it.
    // Under `code_names: per_category` a listed name is unlisted in
    // another category: the variant excludes the listed pairs instead
    // ([`listed_pairs`]).
    if layout.discriminant().per_category() {
        return json!({
            "type": "string",
            "description": "A code name this release does not list in the envelope's category.",
        });
    }
    let listed = json!({"enum": layout.names_outside_families()});
    let families: Vec<&Family> = layout
        .families()
        .iter()
        .filter(|f| !f.rule.value.by_number())
        .collect();
    let (rule, earlier, description) = match form {
        Form::Family(f) => {
            let at = families
                .iter()
                .position(|e| std::ptr::eq(*e, f))
                .unwrap_or(families.len());
            (
                Some(family_pattern(&f.rule.value)),
                &families[..at],
                format!(
                    "A code of family {} (`{}`) this release does not list.",
                    f.name.value,
                    f.rule.value.glob()
                ),
            )
        }
        _ => (
            None,
            &families[..],
            String::from("A code this release does not list."),
        ),
    };
    let mut schema = Map::new();
    schema.insert("type".into(), json!("string"));
    // A taxonomy that spells codes otherwise on the wire
    // (`ThrottlingException`), or names families by their wire spelling,
    // may add codes spelled so too.
    let spelled = spec
        .codes
        .iter()
        .any(|c| c.wire.is_some() || !c.aliases.is_empty());
    match rule {
        Some(p) => {
            schema.insert("pattern".into(), json!(p));
        }
        None if !spelled && families.is_empty() => {
            schema.insert("pattern".into(), json!(CODE_PATTERN));
        }
        None => {}
    }
    let not = if earlier.is_empty() {
        listed
    } else {
        let mut any = vec![listed];
        any.extend(
            earlier
                .iter()
                .map(|e| json!({"pattern": family_pattern(&e.rule.value)})),
        );
        json!({"anyOf": any})
    };
    // Key order as the published schemas have it: `description` last after
    // a `pattern`, else before `not`.
    if schema.contains_key("pattern") {
        schema.insert("not".into(), not);
        schema.insert("description".into(), json!(description));
    } else {
        schema.insert("description".into(), json!(description));
        schema.insert("not".into(), not);
    }
    Value::Object(schema)
}

/// The ECMA-262 pattern of a family's rule: its text with the syntax
/// characters escaped (no other escape: with the `u` flag validators use,
/// an escaped letter or `_` is an error), anchored at its end.
fn family_pattern(rule: &FamilyRule) -> String {
    let mut text = String::new();
    for c in rule.text().chars() {
        if "^$\\.*+?()[]{}|".contains(c) {
            text.push('\\');
        }
        text.push(c);
    }
    match rule {
        FamilyRule::Prefix(_) => format!("^{text}"),
        FamilyRule::Suffix(_) => format!("{text}$"),
        // Read by number: no pattern on the name.
        FamilyRule::Range(..) => String::new(),
    }
}

/// The properties and required members of `object` in an envelope of
/// `form`.
pub(super) fn object_body(
    layout: &Layout<'_>,
    object: &Object<'_>,
    form: Form<'_>,
    openness: Openness,
) -> (Map<String, Value>, Vec<String>) {
    let mut props = Map::new();
    let mut required: Vec<String> = Vec::new();
    for slot in &object.slots {
        // A code without context fields has no context property.
        if let (Slot::Context { fields, .. }, Form::Code(_)) = (slot, form)
            && fields.is_empty()
        {
            continue;
        }
        let schema = match slot {
            Slot::Object { member, object, .. } => {
                let (p, r) = object_body(layout, object, form, openness);
                let mut o = Map::new();
                if let Some(doc) = &member.doc {
                    o.insert("description".into(), json!(doc.value));
                }
                o.insert("type".into(), json!("object"));
                o.insert("properties".into(), Value::Object(p));
                o.insert("required".into(), json!(r));
                if matches!(form, Form::Any) {
                    o.insert("additionalProperties".into(), json!(false));
                } else {
                    close(&mut o, openness);
                }
                Value::Object(o)
            }
            Slot::Context { .. } => match form {
                Form::Code(code) => {
                    json!({"$ref": format!("#/$defs/{}", code.context_type_name())})
                }
                Form::Unlisted | Form::Family(_) => {
                    json!({"type": "object", "description": "Details about the failure."})
                }
                // Each code's variant closes it as its `<Code>Context`.
                Form::Any => json!({"type": "object"}),
            },
            Slot::Member { member, .. } => carried(layout, member, form),
            Slot::Field(f) => field_slot_schema(f, form, openness),
        };
        if slot.presence().is_required() {
            required.push(slot.name().to_owned());
        }
        props.insert(slot.name().to_owned(), schema);
    }
    (props, required)
}

/// The schema of a field in an envelope of `form`: its type, or the value
/// the code fixes for it (`constants:`); typed once, closed and without
/// constraints or docs in the output shape.
fn field_slot_schema(slot: &FieldSlot<'_>, form: Form<'_>, openness: Openness) -> Value {
    let field = slot.field;
    match (&slot.constant, form) {
        (Some(v), _) => json!({"const": v, "description": field.doc()}),
        (None, Form::Any) => type_schema(field.ty(), Openness::Closed),
        (None, _) => {
            let schema = constrained(
                type_schema(field.ty(), openness),
                field.pattern.as_ref(),
                field.format.as_ref(),
                false,
            );
            with_description(schema, field.doc())
        }
    }
}

/// The variant of one emitted code: `<Code>Envelope`.
pub(super) fn variant(layout: &Layout<'_>, code: &Code, openness: Openness) -> Value {
    let form = Form::Code(code);
    let (props, required) = object_body(layout, &layout.envelope(form), form, openness);
    let mut v = Map::new();
    v.insert("title".into(), json!(code.envelope_type_name()));
    v.insert("description".into(), json!(variant_description(code)));
    if code.is_deprecated() {
        v.insert("deprecated".into(), json!(true));
    }
    v.insert("type".into(), json!("object"));
    v.insert("properties".into(), Value::Object(props));
    v.insert("required".into(), json!(required));
    close(&mut v, openness);
    Value::Object(v)
}

/// `<Code>Context`, for a code that may carry context fields.
pub(super) fn context_def(layout: &Layout<'_>, code: &Code, openness: Openness) -> Option<Value> {
    let form = Form::Code(code);
    let fields = layout.context_fields(form);
    if fields.is_empty() {
        return None;
    }
    let mut props = Map::new();
    let mut required = Vec::new();
    for slot in &fields {
        if slot.presence.is_required() {
            required.push(slot.field.wire());
        }
        props.insert(
            slot.field.wire().into(),
            field_slot_schema(slot, form, openness),
        );
    }
    let mut def = Map::new();
    def.insert("title".into(), json!(code.context_type_name()));
    def.insert(
        "description".into(),
        json!(format!("The context of {}.", code.name.value)),
    );
    def.insert("type".into(), json!("object"));
    def.insert("properties".into(), Value::Object(props));
    def.insert("required".into(), json!(required));
    close(&mut def, openness);
    Some(Value::Object(def))
}

/// The last variant: an error code this release does not list.
pub(super) fn unlisted(layout: &Layout<'_>) -> Value {
    let (props, required) = object_body(
        layout,
        &layout.envelope(Form::Unlisted),
        Form::Unlisted,
        Openness::Open,
    );
    let handles: Vec<&str> = ["message", "retryable", "cause", "hints"]
        .into_iter()
        .filter_map(|p| layout.path_to(p))
        .filter_map(|p| p.last().map(|m| m.name.value.as_str()))
        .collect();
    let by = if handles.is_empty() {
        String::from("Handle it by the members every envelope has.")
    } else {
        format!(
            "Handle it by the members every envelope has: {}.",
            match handles.split_last() {
                Some((last, [])) => last.to_string(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => String::new(),
            }
        )
    };
    let mut variant = json!({
        "title": UNLISTED_ENVELOPE,
        "description": format!("An error code this release does not list, sent by a server of a later \
            release of the same major version. {by}"),
        "type": "object",
        "properties": props,
        "required": required,
    });
    if let Some(not) = listed_pairs(layout) {
        variant["not"] = not;
    }
    variant
}

/// Under `code_names: per_category`, the envelopes holding a listed
/// (category, name) pair, one alternative per category: what the unlisted
/// variant excludes, so a payload still matches exactly one variant.
fn listed_pairs(layout: &Layout<'_>) -> Option<Value> {
    let d = layout.discriminant();
    if !d.per_category() {
        return None;
    }
    let mut by_category: Vec<(&str, Vec<&str>)> = Vec::new();
    for (category, name) in layout.listed_pairs() {
        match by_category.iter_mut().find(|(c, _)| *c == category) {
            Some((_, names)) => {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            None => by_category.push((category, vec![name])),
        }
    }
    let any: Vec<Value> = by_category
        .into_iter()
        .map(|(category, names)| {
            let mut schema = json!({});
            pin(&mut schema, &d.category_names(), json!({"const": category}));
            pin(&mut schema, &d.names(), json!({"enum": names}));
            schema
        })
        .collect();
    Some(json!({"anyOf": any}))
}

/// Adds to `schema` that the member at `path` is present and matches
/// `value`, creating the objects on the way.
fn pin(schema: &mut Value, path: &[&str], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    if !required.contains(&json!(first)) {
        let mut required = required;
        required.push(json!(first));
        schema["required"] = json!(required);
    }
    let property = &mut schema["properties"][*first];
    if rest.is_empty() {
        *property = value;
    } else {
        pin(property, rest, value);
    }
}

/// The variant of a family's codes that this release does not list:
/// `<Family>FamilyEnvelope`, the unlisted envelope with the code name in
/// the family's rule and the family's category, `retryable` and `cause`
/// fixed where the envelope carries them.
pub(super) fn family_variant(layout: &Layout<'_>, family: &Family) -> Value {
    let form = Form::Family(family);
    let (props, required) = object_body(layout, &layout.envelope(form), form, Openness::Open);
    json!({
        "title": family.envelope_type_name(),
        "description": format!(
            "A code of family {} this release does not list (`{}`): {} It is of category `{}`.",
            family.name.value,
            family.rule.value.glob(),
            family.doc.value,
            family.category.value
        ),
        "type": "object",
        "properties": props,
        "required": required,
    })
}
