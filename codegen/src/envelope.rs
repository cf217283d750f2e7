//! The wire shape of an error envelope, declared by the spec.
//!
//! An existing API already has an error format: google.rpc.Status wraps
//! `{code, message, status, details}` in `error`, RFC 9457 is a flat
//! `type`/`title`/`status`/`detail`, a JSON-RPC error is `{code, message,
//! data}`. So the compiler does not own member names: the `envelope:`
//! section of `errors.yaml` lists the members, their nesting and presence,
//! and which spec-level property each one carries (the code's name, its
//! number, its category, `retryable`, `cause`, the hints, the message, the
//! `context` object, or a constant). A spec without `envelope:` gets
//! [`Envelope::splice_default`], splice's own envelope, so existing specs
//! produce what they always produced.
//!
//! Declared fields `in: top_level` live in the object that holds the member
//! carrying the code's name (or, without one, its number):
//! [`Envelope::fields_path`]. Fields `in: context` live in the member that
//! carries `context`.
//!
//! Some formats answer with a list of errors: GraphQL's response is
//! `{"errors": [ {error}, ... ], "data": ...}`. A top-level member declared
//! `list: true` is the boundary between that response and one error: its
//! `members` are one entry's, and they are what [`Envelope::members`] holds,
//! so everything said of an envelope is said of one entry. The members
//! beside it are the response's ([`Envelope::response`]): constants, and
//! members holding any value of a type (`type:`, GraphQL's `data`).

use serde_json::Value;

use crate::context::FieldType;
use crate::span::{Loc, Spanned};

/// What a spec-level property a member of the envelope carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Carries {
    /// The same value in every envelope (splice's `success: false`, a
    /// JSON-RPC `jsonrpc: "2.0"`).
    Constant(Value),
    /// The code's name (`MATCH_NOT_FOUND`).
    CodeName,
    /// The code's number.
    Number,
    /// The key of the code's category.
    Category,
    /// The code's resolved `retryable`.
    Retryable,
    /// The code's resolved `cause` (blame).
    Cause,
    /// The rendered recovery hints, a non-empty list of strings.
    Hints,
    /// The rendered message.
    Message,
    /// The object holding the fields declared `in: context`; present when
    /// the code carries one.
    Context,
    /// A nested object of more members.
    Object(Vec<Member>),
}

/// The spellings of [`Carries`] after `carries:` (all but objects).
pub const CARRIES: &[&str] = &[
    "constant",
    "code_name",
    "number",
    "category",
    "retryable",
    "cause",
    "hints",
    "message",
    "context",
];

impl Carries {
    /// The spelling after `carries:`; `members` for an object.
    pub fn as_str(&self) -> &'static str {
        match self {
            Carries::Constant(_) => "constant",
            Carries::CodeName => "code_name",
            Carries::Number => "number",
            Carries::Category => "category",
            Carries::Retryable => "retryable",
            Carries::Cause => "cause",
            Carries::Hints => "hints",
            Carries::Message => "message",
            Carries::Context => "context",
            Carries::Object(_) => "members",
        }
    }
}

/// What an envelope without the member carrying the code name means
/// (`absent_means:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbsentMeans {
    /// This code, whatever the category (RFC 9457's `about:blank`).
    One(Spanned<String>),
    /// Per category key, the code of an envelope of that category (Stripe's
    /// `api_error` without `code`); a category not listed has no fallback,
    /// and its envelopes carry the member.
    ByCategory {
        /// Category key and code identifier, in file order.
        entries: Vec<(Spanned<String>, Spanned<String>)>,
        /// The whole mapping.
        loc: Loc,
    },
}

impl AbsentMeans {
    /// Every code it names, with where.
    pub fn codes(&self) -> Vec<&Spanned<String>> {
        match self {
            AbsentMeans::One(code) => vec![code],
            AbsentMeans::ByCategory { entries, .. } => entries.iter().map(|(_, c)| c).collect(),
        }
    }

    /// Where it is written.
    pub fn loc(&self) -> Loc {
        match self {
            AbsentMeans::One(code) => code.loc,
            AbsentMeans::ByCategory { loc, .. } => *loc,
        }
    }
}

/// One member of the envelope or of a nested object of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member's name on the wire, any string.
    pub name: Spanned<String>,
    /// What it carries.
    pub carries: Carries,
    /// Always present (`optional: true` makes it absent-able). The
    /// `context` member is present exactly when the code carries context.
    pub required: bool,
    /// One-line description; emitters fall back to a default per property.
    pub doc: Option<Spanned<String>>,
    /// On the member carrying the code name: the code an envelope without
    /// the member has (`absent_means:`; RFC 9457's absent `type` is
    /// `about:blank`). Such a member is optional.
    pub absent_means: Option<AbsentMeans>,
    /// On a member carrying a string: an ECMA-262 regular expression it
    /// matches (RFC 6749's character set of `error_description`), as
    /// `pattern:` of a field.
    pub pattern: Option<Spanned<String>>,
    /// On a member carrying a string: one of [`crate::context::FORMATS`].
    pub format: Option<Spanned<String>>,
}

impl Member {
    fn plain(name: &str, carries: Carries, doc: Option<&str>) -> Member {
        Member {
            name: Spanned::new(name.to_string(), Loc::default()),
            carries,
            required: true,
            doc: doc.map(|d| Spanned::new(d.to_string(), Loc::default())),
            absent_means: None,
            pattern: None,
            format: None,
        }
    }

    /// True when the member holds a string: the code's name, its
    /// category, its message or a string constant (what `pattern:` and
    /// `format:` may constrain).
    pub fn holds_string(&self) -> bool {
        match &self.carries {
            Carries::CodeName | Carries::Category | Carries::Message => true,
            Carries::Constant(v) => v.is_string(),
            _ => false,
        }
    }
}

/// The declared envelope: its top-level members, in wire order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// Top-level members, in wire (and schema property) order; with a
    /// [`Response`], the members of one entry of its list.
    pub members: Vec<Member>,
    /// Written in the spec (`false`: [`Envelope::splice_default`]).
    pub declared: bool,
    /// The response around a list of envelopes, when a member is declared
    /// `list: true`.
    pub response: Option<Response>,
}

/// The response that holds a non-empty list of envelopes (a member declared
/// `list: true`), and the members beside the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// Its members in wire order, the list among them.
    pub members: Vec<ResponseMember>,
}

impl Response {
    /// The member holding the list of envelopes.
    pub fn list(&self) -> &ResponseMember {
        self.members
            .iter()
            .find(|m| m.holds == Holds::List)
            .expect("a response has its list")
    }
}

/// One member of a [`Response`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseMember {
    /// The member's name on the wire.
    pub name: Spanned<String>,
    /// What it holds.
    pub holds: Holds,
    /// Always present (`optional: true` makes it absent-able; the list is
    /// always present).
    pub required: bool,
    /// One-line description.
    pub doc: Option<Spanned<String>>,
}

impl ResponseMember {
    /// The type of a [`Holds::Typed`] member; `None` for the list or a
    /// constant.
    pub fn ty(&self) -> Option<&FieldType> {
        match &self.holds {
            Holds::Typed { ty, .. } => Some(
                ty.as_ref()
                    .expect("a checked spec's response types are resolved"),
            ),
            _ => None,
        }
    }
}

/// What a member of a [`Response`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holds {
    /// The non-empty list of envelopes, each laid out by
    /// [`Envelope::members`].
    List,
    /// The same value in every response.
    Constant(Value),
    /// Any value of a type (`type:`), as a field's type is spelled.
    Typed {
        /// As written.
        spelling: Spanned<String>,
        /// Resolved when the spec is checked (`Draft::finish`); always set
        /// in a [`crate::spec::Spec`].
        ty: Option<FieldType>,
    },
}

impl Envelope {
    /// splice's own envelope, used when the spec has no `envelope:`:
    /// `success` (false), `error_code`, `code`, `category`, `message`,
    /// `retryable`, `cause`, `recovery_hints`, then the top-level fields and
    /// `context`.
    pub fn splice_default() -> Envelope {
        Envelope::splice_default_for(true)
    }

    /// splice's own envelope for a taxonomy that is `numbered` or not:
    /// without numbers, it has no `code` member.
    pub fn splice_default_for(numbered: bool) -> Envelope {
        let mut envelope = Envelope {
            members: vec![
                Member::plain(
                    "success",
                    Carries::Constant(Value::Bool(false)),
                    Some("Always false for an error."),
                ),
                Member::plain("error_code", Carries::CodeName, None),
                Member::plain("code", Carries::Number, None),
                Member::plain("category", Carries::Category, None),
                Member::plain("message", Carries::Message, None),
                Member::plain("retryable", Carries::Retryable, None),
                Member::plain("cause", Carries::Cause, None),
                Member::plain("recovery_hints", Carries::Hints, None),
                Member {
                    required: false,
                    ..Member::plain("context", Carries::Context, None)
                },
            ],
            declared: false,
            response: None,
        };
        if !numbered {
            envelope
                .members
                .retain(|m| !matches!(m.carries, Carries::Number));
        }
        envelope
    }

    /// The path (member names from the top) of the member carrying
    /// `property` (a [`Carries::as_str`] spelling), if any.
    pub fn path_of(&self, property: &str) -> Option<Vec<&str>> {
        fn walk<'m>(members: &'m [Member], property: &str, path: &mut Vec<&'m str>) -> bool {
            for m in members {
                path.push(&m.name.value);
                if m.carries.as_str() == property {
                    return true;
                }
                if let Carries::Object(inner) = &m.carries
                    && walk(inner, property, path)
                {
                    return true;
                }
                path.pop();
            }
            false
        }
        let mut path = Vec::new();
        walk(&self.members, property, &mut path).then_some(path)
    }

    /// What an envelope without its code-name member means
    /// ([`Member::absent_means`]), if the spec says.
    pub fn absent_means(&self) -> Option<&AbsentMeans> {
        fn walk(members: &[Member]) -> Option<&AbsentMeans> {
            members.iter().find_map(|m| match &m.carries {
                Carries::Object(inner) => walk(inner),
                Carries::CodeName => m.absent_means.as_ref(),
                _ => None,
            })
        }
        walk(&self.members)
    }

    /// The one code an envelope without its code-name member has, when
    /// `absent_means` names one code (not one per category).
    pub fn absent_code(&self) -> Option<&Spanned<String>> {
        match self.absent_means()? {
            AbsentMeans::One(code) => Some(code),
            AbsentMeans::ByCategory { .. } => None,
        }
    }

    /// True when some member carries `property`.
    pub fn carries(&self, property: &str) -> bool {
        self.path_of(property).is_some()
    }

    /// The path of the object that holds the fields declared `in:
    /// top_level`: the parent of the code's name (or number) member; empty
    /// for the top level.
    pub fn fields_path(&self) -> Vec<&str> {
        let mut path = self
            .path_of("code_name")
            .or_else(|| self.path_of("number"))
            .unwrap_or_default();
        path.pop();
        path
    }

    /// The members of the object at `path` (empty: the top level).
    pub fn object_at(&self, path: &[&str]) -> &[Member] {
        let mut members: &[Member] = &self.members;
        for step in path {
            match members.iter().find(|m| m.name.value == *step) {
                Some(Member {
                    carries: Carries::Object(inner),
                    ..
                }) => members = inner,
                _ => return &[],
            }
        }
        members
    }

    /// The member names beside which the top-level fields live: a field
    /// may not take one of them.
    pub fn names_beside_fields(&self) -> Vec<&str> {
        self.object_at(&self.fields_path())
            .iter()
            .map(|m| m.name.value.as_str())
            .collect()
    }

    /// The names of the outermost object's members, beside which the fields
    /// declared `in: envelope` live.
    pub fn names_at_root(&self) -> Vec<&str> {
        self.members.iter().map(|m| m.name.value.as_str()).collect()
    }
}

/// The members from `members` down to the one at `names` (wire names, as
/// [`Envelope::path_of`] gives them), as far as they exist.
pub(crate) fn members_along<'e>(members: &'e [Member], names: &[&str]) -> Vec<&'e Member> {
    let mut members = members;
    let mut out = Vec::new();
    for name in names {
        let Some(m) = members.iter().find(|m| m.name.value == *name) else {
            break;
        };
        if let Carries::Object(inner) = &m.carries {
            members = inner;
        }
        out.push(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_splices_flat_envelope() {
        let env = Envelope::splice_default();
        assert_eq!(env.fields_path(), Vec::<&str>::new());
        assert_eq!(env.path_of("context"), Some(vec!["context"]));
        assert_eq!(
            env.names_beside_fields(),
            [
                "success",
                "error_code",
                "code",
                "category",
                "message",
                "retryable",
                "cause",
                "recovery_hints",
                "context"
            ]
        );
    }

    #[test]
    fn fields_live_beside_a_nested_code_name() {
        let env = Envelope {
            members: vec![Member::plain(
                "error",
                Carries::Object(vec![
                    Member::plain("code", Carries::Number, None),
                    Member::plain("status", Carries::CodeName, None),
                ]),
                None,
            )],
            declared: true,
            response: None,
        };
        assert_eq!(env.fields_path(), ["error"]);
        assert_eq!(env.path_of("number"), Some(vec!["error", "code"]));
        assert_eq!(env.names_beside_fields(), ["code", "status"]);
        assert!(!env.carries("retryable"));
    }
}
