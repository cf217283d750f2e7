//! The example envelope of each code in the reference: values from the
//! spec (the code's `example:`, the field's, else one built from the type),
//! the message and the hints that apply rendered, in the declared shape.

use serde_json::{Map, Value, json};

use crate::context::{FieldDef, FieldType, Placement};
use crate::envelope::Carries;
use crate::layout::{Form, Layout, Object, Slot};
use crate::spec::{Code, EXAMPLE_SELF, HintCondition, ParamType, Spec};
use crate::template::Template;

/// The documented envelope of `code`: every required context field, plus
/// the optional ones the code's `example:` names, with its message and
/// hints rendered. Values come from the spec: the code's `example:`, else
/// the field's `example:`, else a value built from the declared type.
/// `None` for removed codes, which no envelope may carry.
pub fn example_envelope(spec: &Spec, code: &Code) -> Option<Value> {
    if !code.is_emitted() {
        return None;
    }
    let mut values: Vec<(String, Value)> = Vec::new();
    for p in &code.params {
        let ty = match p.ty.value {
            ParamType::String => FieldType::String,
            ParamType::Integer => FieldType::Integer,
        };
        let value = example_value(spec, code, &p.name.value, &ty, None, None);
        values.push((p.name.value.clone(), value));
    }
    let mut outside: Vec<(&FieldDef, Value)> = Vec::new();
    let mut context = Map::new();
    let shown: Vec<&FieldDef> = spec
        .fields
        .iter()
        .filter(|f| {
            code.required_context.iter().any(|r| r.value == f.name())
                || (code.example(f.name()).is_some()
                    && code.optional_context.iter().any(|o| o.value == f.name()))
        })
        .collect();
    let ordered = shown
        .iter()
        .filter(|f| f.placement() != Placement::Context)
        .chain(shown.iter().filter(|f| f.placement() == Placement::Context));
    for &field in ordered {
        let written = field.example.as_ref().map(|e| &e.value);
        let pattern = field.pattern.as_ref().map(|p| p.value.as_str());
        let value = example_value(spec, code, field.name(), field.ty(), written, pattern);
        values.push((field.name().to_string(), value.clone()));
        let value = to_wire(spec, field.ty(), &value, 0);
        match field.placement() {
            Placement::TopLevel | Placement::Envelope => outside.push((field, value)),
            Placement::Context => {
                context.insert(field.wire().into(), value);
            }
        }
    }
    // As the server sends it: general hints, and each conditional one whose
    // field has one of its values in this example.
    let applies = |cond: Option<&HintCondition>| {
        cond.is_none_or(|c| {
            values.iter().any(|(name, v)| {
                *name == c.field.value
                    && c.values
                        .iter()
                        .any(|w| v.as_str() == Some(w.value.as_str()))
            })
        })
    };
    let hints = Value::Array(
        code.hints()
            .filter(|(_, cond)| applies(*cond))
            .map(|(h, _)| json!(render(&h.value, &values)))
            .collect(),
    );
    let example = Example {
        code,
        message: json!(render(&code.message.value, &values)),
        hints,
        outside,
        context,
    };
    let layout = Layout::of(spec);
    let env = example.object(&layout.envelope(Form::Code(code)));
    Some(Value::Object(env))
}

/// What [`example_envelope`] places into the declared members.
pub(super) struct Example<'a> {
    code: &'a Code,
    message: Value,
    hints: Value,
    /// The fields outside the context object (`in: top_level` and `in:
    /// envelope`) and their values on the wire.
    outside: Vec<(&'a FieldDef, Value)>,
    /// The context fields, on the wire.
    context: Map<String, Value>,
}

impl Example<'_> {
    /// The envelope object `object` of the example's code: every member,
    /// the fields the example shows where the layout puts them, the context
    /// member when the example has a context field.
    fn object(&self, object: &Object<'_>) -> Map<String, Value> {
        let mut obj = Map::new();
        for slot in &object.slots {
            let value = match slot {
                Slot::Field(f) => {
                    match self
                        .outside
                        .iter()
                        .find(|(g, _)| g.name() == f.field.name())
                    {
                        Some((_, value)) => value.clone(),
                        None => continue,
                    }
                }
                Slot::Context { .. } if self.context.is_empty() => continue,
                Slot::Context { .. } => Value::Object(self.context.clone()),
                Slot::Object { object, .. } => Value::Object(self.object(object)),
                Slot::Member { member, .. } => match &member.carries {
                    Carries::Constant(v) => v.clone(),
                    Carries::CodeName => json!(self.code.wire()),
                    Carries::Number => json!(self.code.number()),
                    Carries::Category => json!(self.code.category.value),
                    Carries::Message => self.message.clone(),
                    Carries::Retryable => json!(self.code.retryable),
                    Carries::Cause => json!(self.code.cause.as_str()),
                    Carries::Hints => self.hints.clone(),
                    Carries::Context | Carries::Object(_) => continue,
                },
            };
            obj.insert(slot.name().to_owned(), value);
        }
        obj
    }
}

/// The example of the parameter or field `name` of type `ty` in an envelope
/// of `code`: the code's own `example:` entry, else `field_example` (the
/// field's `example:`), else one built from the type (matching `pattern`,
/// the field's `pattern:`). An `error_code` value `self` becomes the code's
/// name.
pub(super) fn example_value(
    spec: &Spec,
    code: &Code,
    name: &str,
    ty: &FieldType,
    field_example: Option<&Value>,
    pattern: Option<&str>,
) -> Value {
    match code.constant(name).or(code.example(name)).or(field_example) {
        Some(v) => resolve_self(spec, &code.name.value, ty, v, 0),
        None => type_example(spec, code, name, ty, pattern, 0),
    }
}

/// `value` (checked against `ty`) with every `error_code` value `self`
/// replaced by `code`.
pub(super) fn resolve_self(
    spec: &Spec,
    code: &str,
    ty: &FieldType,
    value: &Value,
    depth: usize,
) -> Value {
    match (ty, value) {
        (FieldType::ErrorCode, Value::String(s)) if s == EXAMPLE_SELF => json!(code),
        (FieldType::Map(value), Value::Object(entries)) if depth < MAX_EXAMPLE_DEPTH => {
            Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), resolve_self(spec, code, value, v, depth + 1)))
                    .collect(),
            )
        }
        (FieldType::ArrayOf(item), Value::Array(items)) if depth < MAX_EXAMPLE_DEPTH => {
            Value::Array(
                items
                    .iter()
                    .map(|v| resolve_self(spec, code, item, v, depth + 1))
                    .collect(),
            )
        }
        (FieldType::Struct(t), Value::Object(members)) if depth < MAX_EXAMPLE_DEPTH => {
            let defs = spec.type_def(t).map(|d| d.members()).unwrap_or_default();
            Value::Object(
                members
                    .iter()
                    .map(|(k, v)| {
                        let v = match defs.iter().find(|m| &m.name.value == k) {
                            Some(m) => resolve_self(spec, code, &m.ty.value, v, depth + 1),
                            None => v.clone(),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            )
        }
        _ => value.clone(),
    }
}

/// An example value (written with the spec's names: member names, enum
/// value names, code names) as it is on the wire: every `wire:` applied.
pub(super) fn to_wire(spec: &Spec, ty: &FieldType, value: &Value, depth: usize) -> Value {
    match (ty, value) {
        (FieldType::ErrorCode, Value::String(s)) => {
            json!(spec.code(s).map_or(s.as_str(), |c| c.wire()))
        }
        (FieldType::Enum(t), Value::String(s)) => {
            json!(spec.type_def(t).map_or(s.as_str(), |d| d.wire_of(s)))
        }
        (FieldType::ArrayOf(item), Value::Array(items)) if depth < MAX_EXAMPLE_DEPTH => {
            Value::Array(
                items
                    .iter()
                    .map(|v| to_wire(spec, item, v, depth + 1))
                    .collect(),
            )
        }
        (FieldType::Map(value), Value::Object(entries)) if depth < MAX_EXAMPLE_DEPTH => {
            Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), to_wire(spec, value, v, depth + 1)))
                    .collect(),
            )
        }
        (FieldType::Struct(t), Value::Object(members))
            if depth < MAX_EXAMPLE_DEPTH && spec.type_def(t).and_then(|d| d.union()).is_some() =>
        {
            let u = spec.type_def(t).and_then(|d| d.union()).expect("a union");
            let tag = members.get(&u.discriminator.value).and_then(Value::as_str);
            match u
                .variants
                .iter()
                .find(|v| Some(v.tag.value.as_str()) == tag)
            {
                Some(v) => to_wire(
                    spec,
                    &FieldType::Struct(v.ty.value.clone()),
                    value,
                    depth + 1,
                ),
                None => value.clone(),
            }
        }
        (FieldType::Struct(t), _)
            if depth < MAX_EXAMPLE_DEPTH && spec.type_def(t).and_then(|d| d.one_of()).is_some() =>
        {
            // `check` allows one member per JSON type: the value's JSON
            // type picks the member whose `wire:` names apply (a scalar
            // has none).
            let o = spec.type_def(t).and_then(|d| d.one_of()).expect("a one_of");
            let member = o.types.iter().map(|m| &m.value).find(|m| {
                matches!(
                    (value, m),
                    (Value::Array(_), FieldType::ArrayOf(_))
                        | (Value::Object(_), FieldType::Map(_) | FieldType::Struct(_))
                        | (Value::String(_), FieldType::Enum(_) | FieldType::ErrorCode)
                )
            });
            match member {
                Some(m) => to_wire(spec, m, value, depth + 1),
                None => value.clone(),
            }
        }
        (FieldType::Struct(t), Value::Object(members)) if depth < MAX_EXAMPLE_DEPTH => {
            let def = spec.type_def(t);
            Value::Object(
                members
                    .iter()
                    .map(|(k, v)| match def.and_then(|d| d.member(k)) {
                        Some(m) => (
                            m.wire().to_owned(),
                            to_wire(spec, &m.ty.value, v, depth + 1),
                        ),
                        None => (k.clone(), v.clone()),
                    })
                    .collect(),
            )
        }
        _ => value.clone(),
    }
}

/// Nesting beyond this is copied as written (the YAML reader already caps
/// nesting lower; this only bounds the recursion on its own).
pub(super) const MAX_EXAMPLE_DEPTH: usize = 64;

/// A value of `ty` built from the declarations, for a parameter or field
/// without an example: strings name the field (or match its `pattern`, see
/// [`crate::pattern`]), integers are small, an error code is the
/// envelope's own, enums take their first value, objects fill their
/// required members, arrays hold one item.
pub(super) fn type_example(
    spec: &Spec,
    code: &Code,
    name: &str,
    ty: &FieldType,
    pattern: Option<&str>,
    depth: usize,
) -> Value {
    match ty {
        FieldType::String => {
            let natural = format!("example {}", name.replace('_', " "));
            // `check` refuses a pattern this cannot satisfy where an
            // example needs it (`validate::declarations`).
            json!(
                pattern
                    .and_then(|p| crate::pattern::example(p, &natural).ok())
                    .unwrap_or(natural)
            )
        }
        FieldType::Integer | FieldType::Int32 | FieldType::Int64 => json!(1),
        FieldType::Float => json!(1.5),
        FieldType::Map(value) if depth < 8 => {
            json!({"key": type_example(spec, code, name, value, None, depth + 1)})
        }
        FieldType::Map(_) => json!({}),
        FieldType::Boolean => json!(true),
        FieldType::Json => json!({"any": ["JSON", 1, true, null]}),
        FieldType::ErrorCode => json!(code.name.value),
        FieldType::Enum(t) => spec
            .type_def(t)
            .and_then(|d| d.values()?.first())
            .map_or(Value::Null, |v| json!(v.value)),
        FieldType::Struct(t) if spec.type_def(t).and_then(|d| d.union()).is_some() => {
            let u = spec.type_def(t).and_then(|d| d.union()).expect("a union");
            let Some(v) = u.variants.first() else {
                return json!({});
            };
            let mut obj = type_example(
                spec,
                code,
                name,
                &FieldType::Struct(v.ty.value.clone()),
                None,
                depth + 1,
            );
            if let Value::Object(map) = &mut obj {
                map.insert(u.discriminator.value.clone(), json!(v.tag.value));
            }
            obj
        }
        FieldType::Struct(t) if spec.type_def(t).and_then(|d| d.one_of()).is_some() => {
            // The first member type's example (or `null` when it is all).
            match spec.type_def(t).and_then(|d| d.one_of()?.types.first()) {
                Some(first) => type_example(spec, code, name, &first.value, None, depth + 1),
                None => Value::Null,
            }
        }
        FieldType::Struct(t) => {
            let mut obj = Map::new();
            for m in spec.type_def(t).map(|d| d.members()).unwrap_or_default() {
                if m.required && depth < 8 {
                    obj.insert(
                        m.name.value.clone(),
                        type_example(
                            spec,
                            code,
                            &m.name.value,
                            &m.ty.value,
                            m.pattern.as_ref().map(|p| p.value.as_str()),
                            depth + 1,
                        ),
                    );
                }
            }
            Value::Object(obj)
        }
        FieldType::ArrayOf(item) if depth < 8 => {
            json!([type_example(spec, code, name, item, None, depth + 1)])
        }
        FieldType::ArrayOf(_) => json!([]),
    }
}

/// Renders a message template: `{name}` becomes the value's text (strings
/// unquoted), `{{` and `}}` are literal braces. An unknown placeholder is
/// left as written (the checker rejects those before we get here).
pub fn render(template: &str, values: &[(String, Value)]) -> String {
    Template::parse(template).render(|name| {
        values
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| match v {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            })
    })
}
