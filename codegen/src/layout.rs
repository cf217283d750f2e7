//! The wire layout of a checked spec's envelopes, worked out once for every
//! emitter.
//!
//! The spec says what the envelope's members carry ([`crate::envelope`]),
//! which fields each code requires or may carry, and where fields live.
//! What an artifact needs is the consequence, per envelope: every member
//! path with what it holds (a value the code pins, or any value of a type),
//! whether it is in every envelope of the code, may be absent, or stands
//! for a fallback when absent (`absent_means`), where the declared fields
//! sit among the members, and how a reader tells one code's envelope from
//! another's. The JSON Schema, Rust, TypeScript, Python and Markdown
//! emitters all read these answers from [`Layout`] and work out none of
//! them themselves, so the artifacts of one spec cannot disagree about an
//! envelope: a payload one accepts as a code, every other reads as that
//! code.
//!
//! Four envelopes are laid out ([`Form`]): a listed code's, a code's this
//! release does not list (the unlisted fallback every artifact has), an
//! unlisted code of a family (`families:`: the unlisted envelope with the
//! family's category fixed), and any envelope at all (one type for every
//! code: the tool output shape, the Rust `ErrorEnvelope` struct, the
//! TypeScript base interface). Which family a code name or number belongs
//! to is decided here too ([`Layout::family_of`]): a listed one is no
//! family's, else the first family whose rule matches.
//!
//! A spec whose envelope has a member `list: true` describes a response
//! around a non-empty list of envelopes (GraphQL's `errors`). Every form
//! above is then one entry of that list, and [`Layout::response`] is the
//! boundary, recorded once: the response's members in wire order, the list
//! among them. An artifact writes its per-envelope types and readers from
//! the forms as for any spec, and the response from this.
//!
//! The names each artifact gives what the layout describes are in
//! [`crate::names`].

use serde_json::Value;

use crate::context::{FieldDef, Placement};
use crate::envelope::{AbsentMeans, Carries, Member, Response};
use crate::spec::{Category, Code, Family, Spec};

/// The layout of a checked spec's envelopes.
#[derive(Debug, Clone)]
pub struct Layout<'s> {
    spec: &'s Spec,
    discriminant: Discriminant<'s>,
    /// The members from the top to the object holding the fields `in:
    /// top_level` (empty: the envelope itself).
    holder: Vec<&'s Member>,
}

/// How a reader tells one code's envelope from another's: the member that
/// carries the code's name (else its number), at its path, and what an
/// envelope without it means.
#[derive(Debug, Clone)]
pub struct Discriminant<'s> {
    /// The members from the top to the member itself (the last one).
    pub path: Vec<&'s Member>,
    /// It holds the code's name (one of its wire names); `false`: its number.
    pub by_name: bool,
    /// The code of an envelope without it (`absent_means`): read along
    /// [`Discriminant::path`], a step that is absent (the member, or an
    /// object around it) means this code.
    pub absent: Fallback<'s>,
    /// Under `code_names: per_category`, the members from the top to the
    /// member carrying `category` (in every envelope): a code is told by
    /// the pair (category, name) read there and at [`Discriminant::path`].
    /// Empty: the name (or number) alone tells a code.
    pub category: Vec<&'s Member>,
}

/// What an envelope without the discriminant means.
#[derive(Debug, Clone)]
pub enum Fallback<'s> {
    /// Every envelope has it.
    None,
    /// This code, whatever the category.
    One(&'s Code),
    /// The code its category names (category key, code), read at the
    /// member carrying `category` (in every envelope, outside any optional
    /// object); an envelope of a category not listed has the discriminant.
    ByCategory {
        /// The members from the top to the member carrying `category`.
        category: Vec<&'s Member>,
        /// Category key and its code, in the spec's order.
        codes: Vec<(&'s str, &'s Code)>,
    },
}

impl<'s> Fallback<'s> {
    /// True when some envelope may lack the discriminant.
    pub fn is_some(&self) -> bool {
        !matches!(self, Fallback::None)
    }

    /// True when an envelope of `code` may lack the discriminant: it is the
    /// fallback code (of its category).
    pub fn is_fallback(&self, code: &Code) -> bool {
        match self {
            Fallback::None => false,
            Fallback::One(c) => c.name.value == code.name.value,
            Fallback::ByCategory { codes, .. } => {
                codes.iter().any(|(_, c)| c.name.value == code.name.value)
            }
        }
    }

    /// The single fallback code.
    pub fn one(&self) -> Option<&'s Code> {
        match self {
            Fallback::One(c) => Some(c),
            _ => None,
        }
    }

    /// The per-category fallbacks (category key, code); empty for the
    /// other forms.
    pub fn by_category(&self) -> &[(&'s str, &'s Code)] {
        match self {
            Fallback::ByCategory { codes, .. } => codes,
            _ => &[],
        }
    }
}

impl Discriminant<'_> {
    /// The member names of the path, from the top.
    pub fn names(&self) -> Vec<&str> {
        self.path.iter().map(|m| m.name.value.as_str()).collect()
    }

    /// The path joined by dots (`error_code`, `error.status`); `the error
    /// code` for an envelope that carries neither name nor number (which
    /// `check` refuses).
    pub fn dotted(&self) -> String {
        if self.path.is_empty() {
            return "the error code".into();
        }
        self.names().join(".")
    }

    /// The wire name of the member itself (`status`).
    pub fn member_name(&self) -> Option<&str> {
        self.path.last().map(|m| m.name.value.as_str())
    }

    /// True when a code is told by (category, name), not by its name alone.
    pub fn per_category(&self) -> bool {
        !self.category.is_empty()
    }

    /// The member names of [`Discriminant::category`], from the top.
    pub fn category_names(&self) -> Vec<&str> {
        self.category
            .iter()
            .map(|m| m.name.value.as_str())
            .collect()
    }

    /// What `code`'s envelopes hold there: its wire name and aliases, or its
    /// number.
    pub fn values(&self, code: &Code) -> Vec<Value> {
        if self.by_name {
            code.wire_names().map(Value::from).collect()
        } else {
            code.number().into_iter().map(Value::from).collect()
        }
    }
}

/// Which envelope a layout describes.
#[derive(Debug, Clone, Copy)]
pub enum Form<'s> {
    /// An envelope of this listed code: what the code fixes is pinned, its
    /// fields are in it with their own presence.
    Code(&'s Code),
    /// An envelope of a code this release does not list (sent by a server of
    /// a later release of the same major version): the discriminant holds a
    /// name (or number) no release lists, and only the fields `in: envelope`
    /// (the format's own frame) are typed.
    Unlisted,
    /// An envelope of a code this release does not list whose name the
    /// family's rule matches (and no earlier family's): laid out as
    /// [`Form::Unlisted`], with the family's category, and so its
    /// `retryable` and `cause`, fixed.
    Family(&'s Family),
    /// Any envelope of this release, as one type: every member typed for any
    /// code, every declared field optional.
    Any,
}

impl<'s> Form<'s> {
    /// The code of a [`Form::Code`].
    pub fn code(self) -> Option<&'s Code> {
        match self {
            Form::Code(c) => Some(c),
            _ => None,
        }
    }

    /// True for the envelope of a code this release does not list, in a
    /// family or not.
    pub fn is_unlisted(self) -> bool {
        matches!(self, Form::Unlisted | Form::Family(_))
    }
}

/// Whether a member or field is in an envelope of a [`Form`], relative to
/// the object that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// In every envelope of the form.
    Required,
    /// May be absent.
    Optional,
    /// May be absent, and its absence stands for the code `absent_means`
    /// names (the discriminant, and the optional objects on its path).
    Fallback,
}

impl Presence {
    /// In every envelope of the form.
    pub fn is_required(self) -> bool {
        self == Presence::Required
    }
}

/// One object of an envelope: the envelope itself or a nested one.
#[derive(Debug, Clone)]
pub struct Object<'s> {
    /// The members from the top to this object (empty: the envelope itself).
    pub path: Vec<&'s Member>,
    /// What it holds, in wire order: its declared members, and the fields
    /// it holds before its member carrying `context`, or at its end.
    pub slots: Vec<Slot<'s>>,
}

impl<'s> Object<'s> {
    /// The member names of [`Object::path`].
    pub fn names(&self) -> Vec<&'s str> {
        self.path.iter().map(|m| m.name.value.as_str()).collect()
    }

    /// The declared fields this object holds, in slot order.
    pub fn fields(&self) -> impl Iterator<Item = &FieldSlot<'s>> {
        self.slots.iter().filter_map(|s| match s {
            Slot::Field(f) => Some(f),
            _ => None,
        })
    }
}

/// One member of an object, or a declared field it holds.
#[derive(Debug, Clone)]
pub enum Slot<'s> {
    /// A member carrying a property of the code, or a constant.
    Member {
        /// As declared.
        member: &'s Member,
        /// In this form.
        presence: Presence,
    },
    /// A nested object.
    Object {
        /// As declared.
        member: &'s Member,
        /// In this form.
        presence: Presence,
        /// Its own layout.
        object: Object<'s>,
    },
    /// The member carrying `context`, and the context fields of the form
    /// (none for [`Form::Unlisted`], whose context this release cannot type;
    /// none for a code that carries no context field, whose envelope has
    /// no context, or an empty one).
    Context {
        /// As declared.
        member: &'s Member,
        /// In this form: required when the code requires a context field.
        presence: Presence,
        /// The fields declared `in: context` the form carries.
        fields: Vec<FieldSlot<'s>>,
    },
    /// A declared field `in: top_level` (in the object holding the
    /// discriminant) or `in: envelope` (in the outermost object).
    Field(FieldSlot<'s>),
}

impl<'s> Slot<'s> {
    /// Whether the slot is in every envelope of the form, relative to its
    /// object.
    pub fn presence(&self) -> Presence {
        match self {
            Slot::Member { presence, .. }
            | Slot::Object { presence, .. }
            | Slot::Context { presence, .. } => *presence,
            Slot::Field(f) => f.presence,
        }
    }

    /// Its name on the wire.
    pub fn name(&self) -> &'s str {
        match self {
            Slot::Member { member, .. }
            | Slot::Object { member, .. }
            | Slot::Context { member, .. } => &member.name.value,
            Slot::Field(f) => f.field.wire(),
        }
    }

    /// The declared member, unless the slot is a field.
    pub fn member(&self) -> Option<&'s Member> {
        match self {
            Slot::Member { member, .. }
            | Slot::Object { member, .. }
            | Slot::Context { member, .. } => Some(member),
            Slot::Field(_) => None,
        }
    }
}

/// A declared field in an envelope of a [`Form`].
#[derive(Debug, Clone)]
pub struct FieldSlot<'s> {
    /// As declared.
    pub field: &'s FieldDef,
    /// In this form.
    pub presence: Presence,
    /// The value the form's code fixes for it (`constants:`), in its wire
    /// spelling.
    pub constant: Option<Value>,
}

impl<'s> Layout<'s> {
    /// The layout of `spec`'s envelopes.
    pub fn of(spec: &'s Spec) -> Layout<'s> {
        let envelope = &spec.envelope;
        let by_name = envelope.carries("code_name");
        let path = crate::envelope::members_along(
            &spec.envelope.members,
            &envelope
                .path_of(if by_name { "code_name" } else { "number" })
                .unwrap_or_default(),
        );
        let absent = match envelope.absent_means() {
            None => Fallback::None,
            Some(AbsentMeans::One(code)) => {
                spec.code(&code.value).map_or(Fallback::None, Fallback::One)
            }
            Some(AbsentMeans::ByCategory { entries, .. }) => Fallback::ByCategory {
                category: crate::envelope::members_along(
                    &spec.envelope.members,
                    &envelope.path_of("category").unwrap_or_default(),
                ),
                codes: entries
                    .iter()
                    .filter_map(|(k, c)| Some((k.value.as_str(), spec.code(&c.value)?)))
                    .collect(),
            },
        };
        let category = if spec.taxonomy.per_category() {
            crate::envelope::members_along(
                &spec.envelope.members,
                &envelope.path_of("category").unwrap_or_default(),
            )
        } else {
            Vec::new()
        };
        let mut holder = path.clone();
        holder.pop();
        Layout {
            spec,
            discriminant: Discriminant {
                path,
                by_name,
                absent,
                category,
            },
            holder,
        }
    }

    /// The spec laid out.
    pub fn spec(&self) -> &'s Spec {
        self.spec
    }

    /// The response around the list of envelopes, when a member is declared
    /// `list: true`: its members in wire order, the list among them (each
    /// entry of which is laid out by [`Layout::envelope`]).
    pub fn response(&self) -> Option<&'s Response> {
        self.spec.envelope.response.as_ref()
    }

    /// How a reader tells codes apart.
    pub fn discriminant(&self) -> &Discriminant<'s> {
        &self.discriminant
    }

    /// The members from the top to the object holding the fields `in:
    /// top_level` (the parent of the discriminant).
    pub fn holder(&self) -> &[&'s Member] {
        &self.holder
    }

    /// The members from the top to the one carrying `property` (a
    /// [`Carries::as_str`] spelling), if one does.
    pub fn path_to(&self, property: &str) -> Option<Vec<&'s Member>> {
        let names = self.spec.envelope.path_of(property)?;
        Some(crate::envelope::members_along(
            &self.spec.envelope.members,
            &names,
        ))
    }

    /// The listed code (removed ones included, as for a name alone) an
    /// envelope holding `name` at the discriminant, and category key
    /// `category` (read only under `code_names: per_category`), is. Every
    /// reader of every artifact decides so.
    pub fn code_of(&self, category: &str, name: &str) -> Option<&'s Code> {
        let per_category = self.discriminant.per_category();
        self.spec.codes.iter().find(|c| {
            (!per_category || c.category.value == category) && c.wire_names().any(|w| w == name)
        })
    }

    /// Every (category key, wire name) a listed code has, in spec order:
    /// what an unlisted envelope never holds under `per_category`.
    pub fn listed_pairs(&self) -> Vec<(&'s str, &'s str)> {
        self.spec
            .codes
            .iter()
            .filter(|c| !c.is_violation_kind())
            .flat_map(|c| c.wire_names().map(move |w| (c.category.value.as_str(), w)))
            .collect()
    }

    /// The families, in precedence (file) order.
    pub fn families(&self) -> &'s [Family] {
        &self.spec.families
    }

    /// The family of a code name on the wire: `None` for a name a code
    /// has (a listed code always wins), else the first family whose rule
    /// matches it. Every reader of every artifact decides so.
    pub fn family_of(&self, wire: &str) -> Option<&'s Family> {
        self.spec.family_of(wire)
    }

    /// The category of `family`'s codes.
    pub fn family_category(&self, family: &Family) -> &'s Category {
        self.spec.family_category(family)
    }

    /// The names a family never claims ([`Spec::names_outside_families`]),
    /// each once, in spec order.
    pub fn names_outside_families(&self) -> Vec<&'s str> {
        let mut names: Vec<&str> = Vec::new();
        for n in self.spec.names_outside_families() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names
    }

    /// True when a member carries `property`.
    pub fn carries(&self, property: &str) -> bool {
        self.spec.envelope.carries(property)
    }

    /// The envelope of `form`, laid out from the top.
    pub fn envelope(&self, form: Form<'s>) -> Object<'s> {
        self.object(&self.spec.envelope.members, &mut Vec::new(), form)
    }

    /// The context fields of `form`, in canonical order: those the code
    /// carries (with their presence and constants), every one (optional)
    /// for [`Form::Any`], none for [`Form::Unlisted`].
    pub fn context_fields(&self, form: Form<'s>) -> Vec<FieldSlot<'s>> {
        match form {
            Form::Unlisted | Form::Family(_) => Vec::new(),
            _ => self
                .spec
                .fields_at(Placement::Context)
                .filter_map(|f| self.field_slot(f, form))
                .collect(),
        }
    }

    /// `field` in an envelope of `form`; `None` when the form does not
    /// carry it.
    fn field_slot(&self, field: &'s FieldDef, form: Form<'s>) -> Option<FieldSlot<'s>> {
        let presence = match form {
            Form::Code(code) => {
                let listed = |list: &[crate::span::Spanned<String>]| {
                    list.iter().any(|n| n.value == field.name.value)
                };
                if listed(&code.required_context) {
                    Presence::Required
                } else if listed(&code.optional_context) {
                    Presence::Optional
                } else {
                    return None;
                }
            }
            // The format's own frame (JSON-RPC's `id`), whatever the code;
            // the others are the code's, which this release cannot type.
            Form::Unlisted | Form::Family(_) if field.placement() == Placement::Envelope => {
                Presence::Optional
            }
            Form::Unlisted | Form::Family(_) => return None,
            Form::Any => Presence::Optional,
        };
        let constant = form.code().and_then(|c| self.spec.constant_json(c, field));
        Some(FieldSlot {
            field,
            presence,
            constant,
        })
    }

    /// The object whose members are `members`, at `path`.
    fn object(
        &self,
        members: &'s [Member],
        path: &mut Vec<&'s Member>,
        form: Form<'s>,
    ) -> Object<'s> {
        // Fields `in: top_level` live in the object holding the
        // discriminant, fields `in: envelope` in the outermost one.
        let holds_top_level = path.len() == self.holder.len()
            && path
                .iter()
                .zip(&self.holder)
                .all(|(a, b)| std::ptr::eq(*a, *b));
        let outermost = path.is_empty();
        let held: Vec<Slot<'s>> = self
            .spec
            .fields
            .iter()
            .filter(|f| match f.placement() {
                Placement::TopLevel => holds_top_level,
                Placement::Envelope => outermost,
                Placement::Context => false,
            })
            .filter_map(|f| self.field_slot(f, form))
            .map(Slot::Field)
            .collect();
        let mut held = Some(held);
        let mut slots = Vec::new();
        for member in members {
            let slot = match &member.carries {
                Carries::Object(inner) => {
                    path.push(member);
                    let object = self.object(inner, path, form);
                    path.pop();
                    Slot::Object {
                        member,
                        presence: self.object_presence(member, &object),
                        object,
                    }
                }
                Carries::Context => {
                    slots.extend(held.take().into_iter().flatten());
                    let fields = self.context_fields(form);
                    let presence = if fields.iter().any(|f| f.presence.is_required()) {
                        Presence::Required
                    } else {
                        Presence::Optional
                    };
                    Slot::Context {
                        member,
                        presence,
                        fields,
                    }
                }
                _ => Slot::Member {
                    member,
                    presence: self.member_presence(member, form),
                },
            };
            slots.push(slot);
        }
        slots.extend(held.into_iter().flatten());
        Object {
            path: path.clone(),
            slots,
        }
    }

    /// Whether the object `member` is in an envelope of the form `object`
    /// was laid out for: in every one when it is declared so, or when it
    /// holds what the form's code puts in every envelope (the discriminant
    /// of a code other than the `absent_means` one, a field or context the
    /// code requires); else, when it holds the discriminant, its absence
    /// means the `absent_means` code; else it may be absent.
    fn object_presence(&self, member: &Member, object: &Object<'s>) -> Presence {
        if member.required || self.demands(object) {
            Presence::Required
        } else if self.holds_discriminant(object) {
            Presence::Fallback
        } else {
            Presence::Optional
        }
    }

    /// True when `object` holds, at any depth, a slot the form puts in every
    /// envelope because of its code: the discriminant (unless it may be
    /// absent), a required field, a required context.
    fn demands(&self, object: &Object<'s>) -> bool {
        object.slots.iter().any(|slot| match slot {
            Slot::Member { member, presence } => {
                presence.is_required() && self.is_discriminant(member)
            }
            Slot::Object { object, .. } => self.demands(object),
            Slot::Context { presence, .. } => presence.is_required(),
            Slot::Field(f) => f.presence.is_required(),
        })
    }

    /// True when `object` holds the discriminant, at any depth.
    fn holds_discriminant(&self, object: &Object<'s>) -> bool {
        object.slots.iter().any(|slot| match slot {
            Slot::Member { member, .. } => self.is_discriminant(member),
            Slot::Object { object, .. } => self.holds_discriminant(object),
            _ => false,
        })
    }

    fn is_discriminant(&self, member: &Member) -> bool {
        self.discriminant
            .path
            .last()
            .is_some_and(|d| std::ptr::eq(*d, member))
    }

    /// Whether `member` (carrying a property) is in an envelope of `form`.
    fn member_presence(&self, member: &Member, form: Form<'s>) -> Presence {
        if member.absent_means.is_none() {
            return declared(member);
        }
        match form {
            Form::Code(code) if !self.discriminant.absent.is_fallback(code) => Presence::Required,
            Form::Unlisted | Form::Family(_) => Presence::Required,
            _ => Presence::Fallback,
        }
    }
}

/// A member's presence as declared (`optional:`).
fn declared(member: &Member) -> Presence {
    if member.required {
        Presence::Required
    } else {
        Presence::Optional
    }
}
