//! The spec as written: what [`crate::lower`] could read of `errors.yaml`,
//! before the cross-cutting checks of [`crate::validate`]. Every entry keeps
//! its source location; a field that could not be read is `None` and has
//! already been reported. [`Draft::finish`] turns a draft that passed every
//! check into the [`Spec`] the emitters use.

use crate::context::{BUILTIN_TYPES, FieldDef, FieldType, MemberDef, Placement, TypeBody, TypeDef};
use crate::span::{Loc, Spanned};
use crate::spec::{Category, Cause, Code, Example, Lifecycle, Param, Spec, Taxonomy};
use crate::yaml::{Node, NodeKind, ScalarType};
use serde_json::Value;

/// The spec as written, before cross-cutting checks. Fields that could not
/// be read are `None` and have already been reported.
#[derive(Debug)]
pub(crate) struct Draft {
    pub taxonomy: Option<DraftTaxonomy>,
    /// The declared envelope, or splice's when the spec has none; `None`
    /// when it could not be read (already reported).
    pub envelope: Option<crate::envelope::Envelope>,
    pub categories: Vec<DraftCategory>,
    pub codes: Vec<DraftCode>,
    pub types: Vec<DraftType>,
    pub fields: Vec<DraftField>,
    /// Part of `types`/`fields` could not be read (already reported): codes
    /// naming an unknown field are then not reported again.
    pub declarations_broken: bool,
    /// `reserved:` entries (numbers unchecked against the codes yet).
    pub reserved: Vec<crate::spec::Reserved>,
    /// `retry:` as read (class names unchecked against the codes yet).
    pub retry: crate::spec::Retry,
    /// `attributes:` as read.
    pub attributes: Vec<crate::spec::AttributeDef>,
    /// `code_groups:` as read (code names unchecked yet).
    pub groups: Vec<DraftGroup>,
    /// `operations:` as read (group and code names unchecked yet).
    pub operations: Vec<DraftOperation>,
    /// `families:` as read (categories and shadowing unchecked yet).
    pub families: Vec<DraftFamily>,
}

/// A family as written; a rule or category that could not be read is
/// `None` (already reported).
#[derive(Debug)]
pub(crate) struct DraftFamily {
    pub name: Spanned<String>,
    pub rule: Option<Spanned<crate::spec::FamilyRule>>,
    pub category: Option<Spanned<String>>,
    pub doc: Option<Spanned<String>>,
}

/// A code group as written.
#[derive(Debug)]
pub(crate) struct DraftGroup {
    pub name: Spanned<String>,
    pub doc: Option<Spanned<String>>,
    /// The codes, flattened (a list an alias put inside the list counts as
    /// its items).
    pub codes: Vec<Spanned<String>>,
}

/// An operation as written.
#[derive(Debug)]
pub(crate) struct DraftOperation {
    pub name: Spanned<String>,
    pub wire: Option<Spanned<String>>,
    pub doc: Option<Spanned<String>>,
    pub groups: Vec<Spanned<String>>,
    /// The codes, flattened like a group's.
    pub codes: Vec<Spanned<String>>,
    /// The `codes:` key, else the name.
    pub codes_at: Loc,
}

impl DraftOperation {
    /// The operation's name on the wire.
    pub(crate) fn wire(&self) -> &Spanned<String> {
        self.wire.as_ref().unwrap_or(&self.name)
    }
}

/// A declared support type as written; type references are still spellings.
#[derive(Debug)]
pub(crate) struct DraftType {
    pub name: Spanned<String>,
    pub doc: Option<Spanned<String>>,
    pub members: Option<Vec<DraftMember>>,
    pub values: Option<Vec<Spanned<String>>>,
    /// One per entry of `values`: its `wire:` spelling, if written.
    pub wires: Vec<Option<Spanned<String>>>,
    /// `union:` as written: the discriminator and (type, tag) pairs.
    pub union: Option<DraftUnion>,
    /// `one_of:` as written: scalar type spellings and `null`.
    pub one_of: Option<Vec<Spanned<String>>>,
    /// `open: true`: an object that may hold members it does not list.
    pub open: bool,
}

/// A `union:` as written: the discriminator and (type name, tag) pairs.
pub(crate) type DraftUnion = (Spanned<String>, Vec<(Spanned<String>, Spanned<String>)>);

#[derive(Debug)]
pub(crate) struct DraftMember {
    pub name: Spanned<String>,
    pub ty: Option<Spanned<String>>,
    pub optional: bool,
    pub doc: Option<Spanned<String>>,
    pub wire: Option<Spanned<String>>,
    pub nullable: bool,
    pub pattern: Option<Spanned<String>>,
    pub format: Option<Spanned<String>>,
}

/// A declared context field as written.
#[derive(Debug)]
pub(crate) struct DraftField {
    pub name: Spanned<String>,
    pub placement: Option<Spanned<Placement>>,
    pub ty: Option<Spanned<String>>,
    pub doc: Option<Spanned<String>>,
    /// `example:` as written; checked against `ty` by [`crate::validate`].
    pub example: Option<Node>,
    pub wire: Option<Spanned<String>>,
    pub pattern: Option<Spanned<String>>,
    pub format: Option<Spanned<String>>,
}

impl DraftField {
    /// The field's name in JSON.
    pub(crate) fn wire(&self) -> &Spanned<String> {
        self.wire.as_ref().unwrap_or(&self.name)
    }
}

impl DraftMember {
    /// The member's name in JSON.
    pub(crate) fn wire(&self) -> &Spanned<String> {
        self.wire.as_ref().unwrap_or(&self.name)
    }
}

impl DraftCode {
    /// The code's name on the wire.
    pub(crate) fn wire(&self) -> &Spanned<String> {
        self.wire.as_ref().unwrap_or(&self.name)
    }
}

impl std::fmt::Display for DraftField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name.value)
    }
}

impl Draft {
    /// The declared field named `name`, if it was readable.
    pub(crate) fn field(&self, name: &str) -> Option<&DraftField> {
        self.fields.iter().find(|f| f.name.value == name)
    }

    /// Resolves a type spelling (`string`, `Limit`, `Violation[]`) against
    /// the built-in and declared types; `Err` holds the unknown base name.
    pub(crate) fn resolve(&self, spelling: &str) -> Result<FieldType, String> {
        let spelling = spelling.trim();
        if let Some(inner) = spelling.strip_suffix("[]") {
            return Ok(FieldType::ArrayOf(Box::new(self.resolve(inner)?)));
        }
        if let Some((key, value)) = map_parts(spelling) {
            if key != "string" {
                return Err(key.to_owned());
            }
            return Ok(FieldType::Map(Box::new(self.resolve(value)?)));
        }
        match spelling {
            "string" => Ok(FieldType::String),
            "integer" => Ok(FieldType::Integer),
            "int32" => Ok(FieldType::Int32),
            "int64" => Ok(FieldType::Int64),
            "float" => Ok(FieldType::Float),
            "boolean" => Ok(FieldType::Boolean),
            "error_code" => Ok(FieldType::ErrorCode),
            "json" => Ok(FieldType::Json),
            other => match self.types.iter().find(|t| t.name.value == other) {
                Some(t) if t.values.is_some() => Ok(FieldType::Enum(other.to_owned())),
                // A union is referred to by name like an object.
                Some(_) => Ok(FieldType::Struct(other.to_owned())),
                None => Err(other.to_owned()),
            },
        }
    }

    /// Every name a type reference may use, for "did you mean".
    pub(crate) fn type_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = BUILTIN_TYPES.to_vec();
        names.extend(self.types.iter().map(|t| t.name.value.as_str()));
        names
    }
}

#[derive(Debug)]
pub(crate) struct DraftTaxonomy {
    pub name: Option<Spanned<String>>,
    pub version: Option<Spanned<semver::Version>>,
    pub base_uri: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub numbered: Option<Spanned<bool>>,
    pub range_block: Option<Spanned<i64>>,
    pub unraised_codes: Option<Spanned<crate::spec::Unraised>>,
    pub hints: Option<Spanned<crate::spec::HintsRule>>,
    pub code_names: Option<Spanned<crate::spec::CodeNames>>,
}

#[derive(Debug)]
pub(crate) struct DraftCategory {
    pub key: Spanned<String>,
    pub ranges: Vec<Spanned<(i64, i64)>>,
    pub description: Option<Spanned<String>>,
    pub retryable: Option<Spanned<bool>>,
    pub cause: Option<Spanned<Cause>>,
    pub retry_classes: Option<Vec<Spanned<String>>>,
    /// The defaults its codes inherit when they do not write their own
    /// (`message`, `params`, `recovery_hints`, `context`).
    pub defaults: CategoryDefaults,
}

/// What a category gives the codes that do not write their own, read like
/// a code's keys. Each key is inherited on its own: a code that writes
/// `message` but no `params` still gets the category's `params`.
#[derive(Debug, Default, Clone)]
pub(crate) struct CategoryDefaults {
    pub message: Option<Spanned<String>>,
    /// `params:`, when written.
    pub params: Option<DefaultParams>,
    /// `recovery_hints:`, when written and readable.
    pub recovery_hints: Option<DefaultHints>,
    /// `recovery_hints` was written but could not be read.
    pub recovery_hints_broken: bool,
    /// `context:`, when written.
    pub context: Option<DefaultContext>,
}

/// A category's `params:`.
#[derive(Debug, Clone)]
pub(crate) struct DefaultParams {
    /// Where the mapping is written.
    pub loc: Loc,
    /// The readable parameters.
    pub params: Vec<Param>,
    /// The names of the unreadable ones (already reported).
    pub broken: Vec<String>,
}

/// A category's `recovery_hints:`.
#[derive(Debug, Clone)]
pub(crate) struct DefaultHints {
    /// The list, located at the list.
    pub hints: Spanned<Vec<Spanned<String>>>,
    /// One per hint, as `Code::hint_conditions`.
    pub conditions: Vec<Option<crate::spec::HintCondition>>,
}

/// A category's `context:`.
#[derive(Debug, Clone)]
pub(crate) struct DefaultContext {
    /// Where the mapping is written.
    pub loc: Loc,
    pub required: Vec<Spanned<String>>,
    pub optional: Vec<Spanned<String>>,
    /// Part of it could not be read (already reported).
    pub broken: bool,
}

/// Which keys a code took from its category (`Inherited::category` names
/// it), for diagnostics and the docs.
#[derive(Debug, Default, Clone)]
pub(crate) struct Inherited {
    /// The category's key, where the code names it.
    pub category: Option<Spanned<String>>,
    /// Where each inherited value is written in the category.
    pub locs: Vec<Loc>,
}

impl Inherited {
    /// Whether `loc` lies inside a value the code inherited.
    pub(crate) fn covers(&self, loc: Loc) -> bool {
        self.locs
            .iter()
            .any(|l| l.start <= loc.start && loc.end <= l.end && l.end > l.start)
    }
}

#[derive(Debug)]
pub(crate) struct DraftCode {
    pub name: Spanned<String>,
    pub number: Option<Spanned<i64>>,
    pub category: Option<Spanned<String>>,
    pub retryable: Option<Spanned<bool>>,
    pub cause: Option<Spanned<Cause>>,
    pub title: Option<Spanned<String>>,
    pub explanation: Option<Spanned<String>>,
    pub message: Option<Spanned<String>>,
    pub params: Vec<Param>,
    /// Names of declared parameters that could not be read (already
    /// reported); templates may use them without a follow-up error.
    pub broken_params: Vec<String>,
    /// The list (with the location of the list itself) when written.
    pub recovery_hints: Option<Spanned<Vec<Spanned<String>>>>,
    /// One entry per hint of `recovery_hints` (see `Code::hint_conditions`).
    pub hint_conditions: Vec<Option<crate::spec::HintCondition>>,
    /// `sent_as:` if written and readable.
    pub sent_as: Option<Spanned<crate::spec::SentAs>>,
    /// Part of `context` could not be read (already reported); templates
    /// naming context fields are then not checked.
    pub context_broken: bool,
    /// `recovery_hints` was written but is not a list (already reported).
    pub recovery_hints_broken: bool,
    pub required_context: Vec<Spanned<String>>,
    pub optional_context: Vec<Spanned<String>>,
    pub since: Option<Spanned<semver::Version>>,
    pub deprecated: Option<DraftDeprecated>,
    pub removed: Option<DraftRemoved>,
    /// The entries of `example:` as written (duplicates already reported and
    /// dropped); keys are checked against the params and carried fields, and
    /// values against their types, by [`crate::validate`].
    pub examples: Vec<(Spanned<String>, Node)>,
    /// `wire:` of the code, if written.
    pub wire: Option<Spanned<String>>,
    /// `aliases:` of the code.
    pub aliases: Vec<Spanned<String>>,
    /// `retry_classes:` of the code, if written.
    pub retry_classes: Option<Vec<Spanned<String>>>,
    /// `attributes:` of the code as written; checked by [`crate::validate`].
    pub attributes: Vec<(Spanned<String>, Node)>,
    /// `constants:` as written: field name and value, checked by
    /// [`crate::validate`].
    pub constants: Vec<(Spanned<String>, Node)>,
    /// The keys it took from its category's defaults.
    pub inherited: Inherited,
}

#[derive(Debug)]
pub(crate) struct DraftDeprecated {
    /// The `deprecated` key.
    pub loc: Loc,
    pub since: Option<Spanned<semver::Version>>,
    pub replaced_by: Option<Spanned<String>>,
    pub note: Option<Spanned<String>>,
}

#[derive(Debug)]
pub(crate) struct DraftRemoved {
    /// The `removed` key.
    pub loc: Loc,
    pub since: Option<Spanned<semver::Version>>,
    pub reason: Option<Spanned<String>>,
}

impl Draft {
    /// Builds the checked model. Only called when no diagnostic was
    /// reported; `None` would mean a check is missing.
    pub(crate) fn finish(self) -> Option<Spec> {
        let mut envelope = self.envelope.clone()?;
        if let Some(response) = &mut envelope.response {
            for m in &mut response.members {
                if let crate::envelope::Holds::Typed { spelling, ty } = &mut m.holds {
                    *ty = Some(self.resolve(&spelling.value).ok()?);
                }
            }
        }
        let resolve = |s: &Option<Spanned<String>>| -> Option<Spanned<FieldType>> {
            let s = s.as_ref()?;
            Some(Spanned::new(self.resolve(&s.value).ok()?, s.loc))
        };
        let types = self
            .types
            .iter()
            .map(|t| {
                let body = match (&t.members, &t.values) {
                    (Some(members), None) => TypeBody::Object(
                        members
                            .iter()
                            .map(|m| {
                                Some(MemberDef {
                                    name: m.name.clone(),
                                    ty: resolve(&m.ty)?,
                                    required: !m.optional,
                                    doc: m.doc.clone()?,
                                    wire: m.wire.clone(),
                                    nullable: m.nullable,
                                    pattern: m.pattern.clone(),
                                    format: m.format.clone(),
                                })
                            })
                            .collect::<Option<Vec<_>>>()?,
                    ),
                    (None, Some(values)) => TypeBody::Enum(values.clone()),
                    (None, None) if t.one_of.is_some() => {
                        let written = t.one_of.as_ref()?;
                        TypeBody::OneOf(crate::context::OneOf {
                            types: written
                                .iter()
                                .filter(|w| w.value != "null")
                                .map(|w| Some(Spanned::new(self.resolve(&w.value).ok()?, w.loc)))
                                .collect::<Option<Vec<_>>>()?,
                            null: written
                                .iter()
                                .find(|w| w.value == "null")
                                .map(|w| Spanned::new((), w.loc)),
                        })
                    }
                    (None, None) => {
                        let (discriminator, variants) = t.union.clone()?;
                        TypeBody::Union(crate::context::Union {
                            discriminator,
                            variants: variants
                                .into_iter()
                                .map(|(ty, tag)| crate::context::UnionVariant { ty, tag })
                                .collect(),
                        })
                    }
                    _ => return None,
                };
                Some(TypeDef {
                    name: t.name.clone(),
                    doc: t.doc.clone()?,
                    wires: if t.values.is_some() {
                        t.wires.clone()
                    } else {
                        Vec::new()
                    },
                    body,
                    open: t.open,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let fields = self
            .fields
            .iter()
            .map(|f| {
                Some(FieldDef {
                    name: f.name.clone(),
                    placement: f.placement.clone()?,
                    ty: resolve(&f.ty)?,
                    doc: f.doc.clone()?,
                    example: f.example.as_ref().map(|n| Spanned::new(to_json(n), n.loc)),
                    wire: f.wire.clone(),
                    pattern: f.pattern.clone(),
                    format: f.format.clone(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let t = self.taxonomy?;
        let taxonomy = Taxonomy {
            name: t.name?,
            version: t.version?,
            base_uri: t.base_uri?,
            description: t.description,
            numbered: t.numbered,
            range_block: t.range_block,
            unraised_codes: t.unraised_codes,
            hints: t.hints,
            code_names: t.code_names,
        };
        let categories = self
            .categories
            .into_iter()
            .map(|c| {
                Some(Category {
                    key: c.key,
                    ranges: c.ranges,
                    description: c.description?,
                    retryable: c.retryable?,
                    cause: c.cause?,
                    retry_classes: c.retry_classes.unwrap_or_default(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let codes = self
            .codes
            .into_iter()
            .map(|c| {
                let key = &c.category.as_ref()?.value;
                let category = categories.iter().find(|k| &k.key.value == key)?;
                let lifecycle = match (c.deprecated, c.removed) {
                    (None, None) => Lifecycle::Active,
                    (Some(d), None) => Lifecycle::Deprecated {
                        since: d.since?,
                        replaced_by: d.replaced_by?,
                        note: d.note,
                    },
                    (None, Some(r)) => Lifecycle::Removed {
                        since: r.since?,
                        reason: r.reason?,
                    },
                    (Some(_), Some(_)) => return None,
                };
                Some(Code {
                    retryable: c
                        .retryable
                        .as_ref()
                        .map_or(category.retryable.value, |r| r.value),
                    cause: c.cause.as_ref().map_or(category.cause.value, |r| r.value),
                    name: c.name,
                    number: if taxonomy.numbered() {
                        Some(c.number?)
                    } else {
                        None
                    },
                    category: c.category?,
                    retryable_override: c.retryable,
                    cause_override: c.cause,
                    title: c.title?,
                    explanation: c.explanation?,
                    message: c.message?,
                    params: c.params,
                    recovery_hints: c.recovery_hints.map(|h| h.value).unwrap_or_default(),
                    hint_conditions: c.hint_conditions,
                    required_context: c
                        .required_context
                        .into_iter()
                        .chain(c.constants.iter().map(|(name, _)| name.clone()))
                        .collect(),
                    aliases: c.aliases,
                    constants: c
                        .constants
                        .iter()
                        .map(|(name, n)| Example {
                            name: name.clone(),
                            value: Spanned::new(to_json(n), n.loc),
                        })
                        .collect(),
                    optional_context: c.optional_context,
                    since: c.since?,
                    lifecycle,
                    sent_as: c.sent_as,
                    wire: c.wire,
                    retry_classes: c
                        .retry_classes
                        .unwrap_or_else(|| category.retry_classes.clone()),
                    attributes: self
                        .attributes
                        .iter()
                        .filter_map(|def| {
                            let (name, n) = c
                                .attributes
                                .iter()
                                .find(|(k, _)| k.value == def.name.value)?;
                            Some(Example {
                                name: name.clone(),
                                value: Spanned::new(to_json(n), n.loc),
                            })
                        })
                        .collect(),
                    examples: c
                        .examples
                        .iter()
                        .map(|(name, n)| Example {
                            name: name.clone(),
                            value: Spanned::new(to_json(n), n.loc),
                        })
                        .collect(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Spec {
            taxonomy,
            envelope,
            categories,
            codes,
            fields,
            types,
            reserved: self.reserved.clone(),
            retry: self.retry,
            attributes: self.attributes,
            groups: self
                .groups
                .into_iter()
                .map(|g| {
                    Some(crate::spec::CodeGroup {
                        name: g.name,
                        doc: g.doc?,
                        codes: g.codes,
                    })
                })
                .collect::<Option<Vec<_>>>()?,
            operations: self
                .operations
                .into_iter()
                .map(|o| {
                    Some(crate::spec::Operation {
                        name: o.name,
                        wire: o.wire,
                        doc: o.doc?,
                        groups: o.groups,
                        codes: o.codes,
                        codes_at: o.codes_at,
                    })
                })
                .collect::<Option<Vec<_>>>()?,
            families: self
                .families
                .into_iter()
                .map(|f| {
                    Some(crate::spec::Family {
                        name: f.name,
                        rule: f.rule?,
                        category: f.category?,
                        doc: f.doc?,
                    })
                })
                .collect::<Option<Vec<_>>>()?,
        })
    }
}

/// `map<K, V>` split into `K` and `V` (trimmed), if `spelling` is one.
pub(crate) fn map_parts(spelling: &str) -> Option<(&str, &str)> {
    let inner = spelling.strip_prefix("map<")?.strip_suffix('>')?;
    let (key, value) = inner.split_once(',')?;
    Some((key.trim(), value.trim()))
}

/// The JSON value of an example that [`crate::validate`] accepted: its
/// scalars are typed by the YAML core schema (a quoted `"12"` stays a
/// string), integers are non-negative, `self` is kept as written.
pub(crate) fn to_json(node: &Node) -> Value {
    match &node.kind {
        NodeKind::Seq(items) => Value::Array(items.iter().map(to_json).collect()),
        NodeKind::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.as_scalar().unwrap_or_default().to_owned(), to_json(v)))
                .collect(),
        ),
        NodeKind::Scalar(text, _) => match node.scalar_type() {
            Some(ScalarType::Null) => Value::Null,
            Some(ScalarType::Bool(b)) => Value::Bool(b),
            Some(ScalarType::Int(n)) => i64::try_from(n)
                .map(Value::from)
                .or_else(|_| u64::try_from(n).map(Value::from))
                .unwrap_or(Value::Null),
            Some(ScalarType::Float) => text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or(Value::Null, Value::Number),
            _ => Value::String(text.clone()),
        },
    }
}
