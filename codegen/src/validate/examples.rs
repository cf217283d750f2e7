//! Example and constant values: `example:` of a field, a code's
//! `example:` map and its `constants:`, each a value of the declared type
//! (an `error_code` value names an emitted code, or is `self`), and a
//! string of a field or member with a `pattern:` one the pattern matches,
//! since the documentation shows the example as an envelope the schema
//! must accept.

use crate::context::FieldType;
use crate::diagnostic::{Diagnostic, did_you_mean, list, suggest};
use crate::draft::{Draft, DraftCode};
use crate::span::{Loc, Spanned};
use crate::spec::{EXAMPLE_SELF, ParamType};
use crate::yaml::{Node, NodeKind, ScalarType};

use super::Validator;

impl Validator<'_> {
    pub(super) fn field_examples(&mut self, draft: &Draft) {
        for f in &draft.fields {
            let (Some(node), Some(ty)) = (&f.example, &f.ty) else {
                continue;
            };
            let Ok(ty) = draft.resolve(&ty.value) else {
                continue; // reported as an unknown type
            };
            let what = format!("example of field `{}`", f.name.value);
            self.example(draft, node, &ty, &what, "");
            self.matches_pattern(node, f.pattern.as_ref(), &what);
        }
    }

    /// `node`, a string with the `pattern` of its field or member, is one
    /// the pattern matches: found anywhere in it, as JSON Schema's
    /// `pattern` (ECMA-262) and the `regex` crate both search. A pattern
    /// the `regex` crate does not read (ECMA-262 syntax it lacks, such as
    /// look-around) is not checked here.
    fn matches_pattern(&mut self, node: &Node, pattern: Option<&Spanned<String>>, what: &str) {
        let (Some(pattern), Some(ScalarType::Str), Some(text)) =
            (pattern, node.scalar_type(), node.as_scalar())
        else {
            return;
        };
        self.pattern_refuses(
            pattern,
            [(
                node.loc,
                text,
                format!("{what} does not match its `pattern`: `{text}`"),
            )],
            "the schema holds this value to the pattern, and the reference shows it in an \
             envelope; write a value the pattern matches, or correct the pattern",
        );
    }

    /// Each of `values` (where it is written, its text, the message when
    /// the pattern refuses it) that `pattern` does not match, reported at
    /// the value with the pattern beside it and `help`. A pattern the
    /// `regex` crate does not read checks nothing (see
    /// [`Self::matches_pattern`]).
    pub(super) fn pattern_refuses<'t>(
        &mut self,
        pattern: &Spanned<String>,
        values: impl IntoIterator<Item = (Loc, &'t str, String)>,
        help: &str,
    ) {
        let Ok(re) = regex::Regex::new(&pattern.value) else {
            return;
        };
        for (loc, text, message) in values {
            if re.is_match(text) {
                continue;
            }
            self.push(
                Diagnostic::new(loc, message)
                    .with_label(format!("not matched by `{}`", pattern.value))
                    .with_related(pattern.loc, "the pattern")
                    .with_help(help),
            );
        }
    }

    /// `constants:` of a code: declared fields of a scalar or enum type,
    /// not also listed in `context`, each with a value of its type.
    pub(super) fn constants(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
        for (key, node) in &code.constants {
            let name = key.value.as_str();
            let Some(field) = draft.field(name) else {
                if draft.declarations_broken {
                    continue;
                }
                let names: Vec<&str> = draft.fields.iter().map(|f| f.name.value.as_str()).collect();
                self.push(
                    Diagnostic::new(
                        key.loc,
                        format!("unknown field `{name}` in `constants` of {owner}"),
                    )
                    .with_label("not declared under `fields`")
                    .with_help(suggest(
                        name,
                        &names,
                        "the declared fields are",
                    )),
                );
                continue;
            };
            if let Some(listed) = code
                .required_context
                .iter()
                .chain(&code.optional_context)
                .find(|f| f.value == name)
            {
                self.push(
                    Diagnostic::new(
                        listed.loc,
                        format!("field `{name}` of {owner} is a constant and is also listed in `context`"),
                    )
                    .with_related(key.loc, "the constant")
                    .with_help("a constant is carried by every envelope of the code; remove it from `context`"),
                );
            }
            let Some(ty) = field.ty.as_ref().and_then(|t| draft.resolve(&t.value).ok()) else {
                continue;
            };
            if !matches!(
                ty,
                FieldType::String
                    | FieldType::Integer
                    | FieldType::Int32
                    | FieldType::Int64
                    | FieldType::Boolean
                    | FieldType::Enum(_)
            ) {
                self.push(
                    Diagnostic::new(
                        key.loc,
                        format!("field `{name}` of type `{ty}` cannot be a constant of {owner}"),
                    )
                    .with_help("a constant is a string, an integer, a boolean or an enum value"),
                );
                continue;
            }
            let what = format!("constant `{name}` of {owner}");
            self.example(draft, node, &ty, &what, "");
            self.matches_pattern(node, field.pattern.as_ref(), &what);
            // The schema's `const`, and the literal types of TypeScript,
            // hold the number a JavaScript reader compares with.
            if let Some(ScalarType::Int(n)) = node.scalar_type()
                && n.unsigned_abs() > crate::names::MAX_SAFE_INTEGER as u128
            {
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!("constant `{name}` of {owner} is beyond 2^53 - 1: {n}"),
                    )
                    .with_help(
                        "JavaScript numbers hold integers exactly only up to 2^53 - 1, so a \
                         reader would see another number; declare the field a string",
                    ),
                );
            }
        }
    }

    pub(super) fn code_examples(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
        let carried = || code.required_context.iter().chain(&code.optional_context);
        for (key, node) in &code.examples {
            let name = key.value.as_str();
            let what = format!("example of `{name}` in {owner}");
            if let Some(p) = code.params.iter().find(|p| p.name.value == name) {
                let ty = match p.ty.value {
                    ParamType::String => FieldType::String,
                    ParamType::Integer => FieldType::Integer,
                };
                self.example(draft, node, &ty, &what, "");
                continue;
            }
            if carried().any(|f| f.value == name) {
                let field = draft.field(name);
                if let Some(ty) = field
                    .and_then(|f| f.ty.as_ref())
                    .and_then(|t| draft.resolve(&t.value).ok())
                {
                    self.example(draft, node, &ty, &what, "");
                }
                self.matches_pattern(node, field.and_then(|f| f.pattern.as_ref()), &what);
                continue;
            }
            if code.broken_params.iter().any(|p| p == name) || code.context_broken {
                continue; // already reported
            }
            let mut names: Vec<&str> = code.params.iter().map(|p| p.name.value.as_str()).collect();
            names.extend(carried().map(|f| f.value.as_str()));
            let help = match did_you_mean(name, names.iter().copied()) {
                Some(n) => format!("did you mean `{n}`?"),
                None if names.is_empty() => {
                    "the code has no parameters or context fields to give examples of; remove the entry"
                        .to_string()
                }
                None => format!("the code's parameters and context fields are {}", list(&names)),
            };
            let also = if draft.field(name).is_some() {
                format!(
                    "; add it to `context` of {owner} first, or give the field itself an example"
                )
            } else {
                String::new()
            };
            self.push(
                Diagnostic::new(
                    key.loc,
                    format!("`example` of {owner} names `{name}`, which is neither a parameter nor a context field of the code"),
                )
                .with_label("not a parameter or carried field")
                .with_help(format!("{help}{also}")),
            );
        }
    }

    /// Checks `node` against `ty`; `path` is where inside the example
    /// (`[0].status`), empty at its root.
    pub(super) fn example(
        &mut self,
        draft: &Draft,
        node: &Node,
        ty: &FieldType,
        what: &str,
        path: &str,
    ) {
        let subject = if path.is_empty() {
            what.to_string()
        } else {
            format!("`{path}` in {what}")
        };
        let mismatch = |expected: &str, help: String| {
            Diagnostic::new(
                node.loc,
                format!("{subject} must be {expected}, found {}", node.describe()),
            )
            .with_label(format!("not {expected}"))
            .with_help(help)
        };
        let declared = format!("the declared type is `{ty}`");
        let scalar = node.scalar_type();
        match ty {
            FieldType::String => {
                if scalar != Some(ScalarType::Str) {
                    let help = if matches!(node.kind, NodeKind::Scalar(..)) {
                        format!("{declared}; quote the value (\"...\") to make it a string")
                    } else {
                        declared
                    };
                    self.push(mismatch("a string", help));
                }
            }
            FieldType::Integer => match scalar {
                Some(ScalarType::Int(n)) if n < 0 => self.push(
                    Diagnostic::new(node.loc, format!("{subject} is a negative integer: {n}"))
                        .with_label("negative")
                        .with_help("integers of the envelope are non-negative; write 0 or more"),
                ),
                Some(ScalarType::Int(n)) if u64::try_from(n).is_err() => self.push(
                    Diagnostic::new(node.loc, format!("{subject} is out of range: {n}"))
                        .with_label("larger than 18446744073709551615")
                        .with_help("integers of the envelope are 64-bit unsigned"),
                ),
                Some(ScalarType::Int(_)) => {}
                _ => {
                    let help = match &node.kind {
                        NodeKind::Scalar(t, _)
                            if scalar == Some(ScalarType::Str)
                                && t.trim().parse::<u64>().is_ok() =>
                        {
                            "remove the quotes".to_string()
                        }
                        _ => declared,
                    };
                    self.push(mismatch("a non-negative integer", help));
                }
            },
            FieldType::Int32 | FieldType::Int64 => {
                let (low, high) = if *ty == FieldType::Int32 {
                    (i128::from(i32::MIN), i128::from(i32::MAX))
                } else {
                    (i128::from(i64::MIN), i128::from(i64::MAX))
                };
                match scalar {
                    Some(ScalarType::Int(n)) if n < low || n > high => self.push(
                        Diagnostic::new(node.loc, format!("{subject} is out of range: {n}"))
                            .with_label(format!("not in [{low}, {high}]"))
                            .with_help(format!("{declared}; write an integer in [{low}, {high}]")),
                    ),
                    Some(ScalarType::Int(_)) => {}
                    _ => self.push(mismatch("an integer", declared)),
                }
            }
            FieldType::Float => {
                if !matches!(scalar, Some(ScalarType::Int(_) | ScalarType::Float)) {
                    self.push(mismatch("a number", declared));
                }
            }
            FieldType::Map(value) => {
                let NodeKind::Map(entries) = &node.kind else {
                    self.push(mismatch(
                        "a mapping",
                        format!("{declared}; write `{{ key: value }}`"),
                    ));
                    return;
                };
                for (k, v) in entries {
                    let key = k.as_scalar().unwrap_or_default();
                    let inner = if path.is_empty() {
                        key.to_string()
                    } else {
                        format!("{path}.{key}")
                    };
                    self.example(draft, v, value, what, &inner);
                }
            }
            // Any value is a JSON value.
            FieldType::Json => {}
            FieldType::Boolean => {
                if !matches!(scalar, Some(ScalarType::Bool(_))) {
                    self.push(mismatch("`true` or `false`", declared));
                }
            }
            FieldType::ErrorCode => {
                let Some(text) = node.as_scalar().filter(|_| scalar == Some(ScalarType::Str))
                else {
                    self.push(mismatch(
                        "an error code",
                        format!("write a code of this spec, or `{EXAMPLE_SELF}` for the code of the envelope"),
                    ));
                    return;
                };
                if text == EXAMPLE_SELF {
                    return;
                }
                self.emitted_code(
                    draft,
                    text,
                    node.loc,
                    &subject,
                    &format!(
                        "name a code of this spec, or write `{EXAMPLE_SELF}` for the code of the envelope"
                    ),
                );
            }
            FieldType::Enum(t) => {
                let Some(values) = draft
                    .types
                    .iter()
                    .find(|d| &d.name.value == t)
                    .and_then(|d| d.values.as_ref())
                else {
                    return;
                };
                let names: Vec<&str> = values.iter().map(|v| v.value.as_str()).collect();
                match node.as_scalar().filter(|_| scalar == Some(ScalarType::Str)) {
                    Some(v) if names.contains(&v) => {}
                    Some(v) => self.push(
                        Diagnostic::new(
                            node.loc,
                            format!("{subject} is not a value of enum `{t}`: `{v}`"),
                        )
                        .with_label("unknown value")
                        .with_help(suggest(v, &names, "the values are")),
                    ),
                    None => self.push(mismatch(
                        &format!("a value of enum `{t}`"),
                        format!("the values are {}", list(&names)),
                    )),
                }
            }
            FieldType::Struct(t)
                if draft
                    .types
                    .iter()
                    .any(|d| &d.name.value == t && d.union.is_some()) =>
            {
                let Some((discriminator, variants)) = draft
                    .types
                    .iter()
                    .find(|d| &d.name.value == t)
                    .and_then(|d| d.union.as_ref())
                else {
                    return;
                };
                let NodeKind::Map(entries) = &node.kind else {
                    self.push(mismatch(
                        &format!("an object of union `{t}`"),
                        format!(
                            "write a mapping with `{}` and the variant's members",
                            discriminator.value
                        ),
                    ));
                    return;
                };
                let tag = entries
                    .iter()
                    .find(|(k, _)| k.as_scalar() == Some(discriminator.value.as_str()))
                    .and_then(|(_, v)| v.as_scalar());
                let tags: Vec<&str> = variants.iter().map(|(_, g)| g.value.as_str()).collect();
                let Some((variant, _)) =
                    variants.iter().find(|(_, g)| Some(g.value.as_str()) == tag)
                else {
                    self.push(
                        Diagnostic::new(
                            node.loc,
                            format!(
                                "{subject} has no `{}` naming a variant of union `{t}`",
                                discriminator.value
                            ),
                        )
                        .with_help(format!("the tags are {}", list(&tags))),
                    );
                    return;
                };
                let mut rest = node.clone();
                if let NodeKind::Map(entries) = &mut rest.kind {
                    entries.retain(|(k, _)| k.as_scalar() != Some(discriminator.value.as_str()));
                }
                self.example(
                    draft,
                    &rest,
                    &FieldType::Struct(variant.value.clone()),
                    what,
                    path,
                );
            }
            FieldType::Struct(t)
                if draft
                    .types
                    .iter()
                    .any(|d| &d.name.value == t && d.one_of.is_some()) =>
            {
                let Some(written) = draft
                    .types
                    .iter()
                    .find(|d| &d.name.value == t)
                    .and_then(|d| d.one_of.as_ref())
                else {
                    return;
                };
                let fits = |w: &str| match (w, scalar) {
                    ("null", Some(ScalarType::Null)) => true,
                    ("string", Some(ScalarType::Str)) => true,
                    ("boolean", Some(ScalarType::Bool(_))) => true,
                    ("float", Some(ScalarType::Int(_) | ScalarType::Float)) => true,
                    ("integer", Some(ScalarType::Int(n))) => u64::try_from(n).is_ok(),
                    ("int32", Some(ScalarType::Int(n))) => i32::try_from(n).is_ok(),
                    ("int64", Some(ScalarType::Int(n))) => i64::try_from(n).is_ok(),
                    _ => false,
                };
                let scalar_fits = written.iter().any(|w| fits(&w.value));
                // A list, an object or an enum: the member of the value's
                // JSON type checks it (`check` allows one per JSON type).
                let resolved: Vec<FieldType> = written
                    .iter()
                    .filter_map(|w| draft.resolve(&w.value).ok())
                    .collect();
                let member = resolved.iter().find(|ty| match (&node.kind, ty) {
                    (NodeKind::Seq(_), FieldType::ArrayOf(_)) => true,
                    (NodeKind::Map(_), FieldType::Map(_) | FieldType::Struct(_)) => true,
                    (NodeKind::Scalar(..), FieldType::Enum(_) | FieldType::ErrorCode) => {
                        scalar == Some(ScalarType::Str)
                    }
                    _ => false,
                });
                if scalar_fits {
                } else if let Some(ty) = member {
                    self.example(draft, node, ty, what, path);
                } else {
                    let spelled: Vec<&str> = written.iter().map(|w| w.value.as_str()).collect();
                    self.push(mismatch(
                        &format!("a value of type `{t}`"),
                        format!("`{t}` is one of {}", list(&spelled)),
                    ));
                }
            }
            FieldType::Struct(t) => {
                let Some(def) = draft.types.iter().find(|d| &d.name.value == t) else {
                    return;
                };
                let Some(members) = def.members.as_ref() else {
                    return;
                };
                let NodeKind::Map(entries) = &node.kind else {
                    self.push(mismatch(
                        &format!("an object of type `{t}`"),
                        format!(
                            "write a mapping of its members, e.g. `{{ {}: ... }}`",
                            members.first().map_or("", |m| m.name.value.as_str())
                        ),
                    ));
                    return;
                };
                let names: Vec<&str> = members.iter().map(|m| m.name.value.as_str()).collect();
                let mut seen: Vec<(&str, Loc)> = Vec::new();
                for (k, v) in entries {
                    let key = k.as_scalar().unwrap_or_default();
                    let inner = if path.is_empty() {
                        key.to_string()
                    } else {
                        format!("{path}.{key}")
                    };
                    if let Some((_, first)) = seen.iter().find(|(n, _)| *n == key) {
                        self.push(
                            Diagnostic::new(
                                k.loc,
                                format!("member `{key}` is written twice in {subject}"),
                            )
                            .with_label("second mention")
                            .with_related(*first, "first mention")
                            .with_help("remove one of them"),
                        );
                        continue;
                    }
                    seen.push((key, k.loc));
                    let Some(m) = members.iter().find(|m| m.name.value == key) else {
                        // An open type's value may hold any other member,
                        // written as it is sent.
                        if def.open {
                            continue;
                        }
                        self.push(
                            Diagnostic::new(k.loc, format!("unknown member `{key}` in {subject}"))
                                .with_label(format!("not a member of `{t}`"))
                                .with_help(suggest(
                                    key,
                                    &names,
                                    &format!("the members of `{t}` are"),
                                )),
                        );
                        continue;
                    };
                    if m.nullable && v.scalar_type() == Some(ScalarType::Null) {
                        continue;
                    }
                    if let Some(mty) = m.ty.as_ref().and_then(|s| draft.resolve(&s.value).ok()) {
                        self.example(draft, v, &mty, what, &inner);
                    }
                    self.matches_pattern(v, m.pattern.as_ref(), &format!("`{inner}` in {what}"));
                }
                for m in members.iter().filter(|m| !m.optional) {
                    if !seen.iter().any(|(n, _)| *n == m.name.value) {
                        self.push(
                            Diagnostic::new(node.loc, format!("{subject} is missing member `{}` of `{t}`", m.name.value))
                                .with_label(format!("`{}` is required", m.name.value))
                                .with_help(format!("add `{}: ...`; members are required unless declared `optional: true`", m.name.value)),
                        );
                    }
                }
            }
            FieldType::ArrayOf(item) => {
                let NodeKind::Seq(items) = &node.kind else {
                    self.push(mismatch(
                        "a list",
                        format!("{declared}; write a list, even of one item: `[...]`"),
                    ));
                    return;
                };
                for (i, v) in items.iter().enumerate() {
                    self.example(draft, v, item, what, &format!("{path}[{i}]"));
                }
            }
        }
    }
}
