//! The envelope as every artifact reads it: a reader can tell the codes
//! apart in every envelope (the member carrying the code's name, else its
//! number, and the objects around it, are in every envelope unless
//! `absent_means` says which code an envelope without them has), the fields
//! declared `in: context` have a member to live in, the names the Rust
//! types give the members, the fields and the nested objects do not meet,
//! nor do the Python `TypedDict`s of the nested objects, and a number a
//! member carries as its constant is one JavaScript holds exactly.
//!
//! A spec these rules accept generates in every emitter ([`crate::layout`]
//! lays it out, the emitters write the layout), so no emitter refuses a
//! spec of its own.

use crate::context::Placement;
use crate::diagnostic::Diagnostic;
use crate::draft::Draft;
use crate::envelope::{Carries, Envelope, Member};
use crate::names;
use crate::span::{Loc, Spanned};

use super::Validator;

impl Validator<'_> {
    /// Every rule of this module, on a draft whose envelope could be read.
    pub(super) fn envelope(&mut self, draft: &Draft) {
        let Some(envelope) = &draft.envelope else {
            return;
        };
        self.discriminant_presence(envelope);
        self.context_member(draft, envelope);
        self.rust_names(draft, envelope);
        self.python_names(draft, envelope);
        self.member_constants(&envelope.members);
        self.response_names(draft, envelope);
        self.member_constraints(draft, &envelope.members);
    }

    /// `pattern:` and `format:` of a member constrain a string, so the
    /// member carries one; and every value it can hold that the spec spells
    /// out (a constant, the codes' wire names and aliases, the category
    /// keys) matches the pattern.
    fn member_constraints(&mut self, draft: &Draft, members: &[Member]) {
        for m in members {
            if let Carries::Object(inner) = &m.carries {
                self.member_constraints(draft, inner);
            }
            let what = format!("envelope member `{}`", m.name.value);
            if !m.holds_string() {
                for (key, c) in [("pattern", &m.pattern), ("format", &m.format)] {
                    if let Some(c) = c {
                        self.push(
                            Diagnostic::new(
                                c.loc,
                                format!(
                                    "`{key}` of {what} needs a string, but it carries {}",
                                    carried_kind(&m.carries)
                                ),
                            )
                            .with_help(format!(
                                "`{key}` constrains a member carrying `code_name`, `category`, \
                                 `message` or a string constant; drop it"
                            )),
                        );
                    }
                }
                continue;
            }
            let Some(pattern) = &m.pattern else { continue };
            let values: Vec<(&Spanned<String>, String)> = match &m.carries {
                Carries::CodeName => draft
                    .codes
                    .iter()
                    .filter(|c| c.removed.is_none())
                    .flat_map(|c| {
                        std::iter::once((
                            c.wire(),
                            format!("the wire name of code `{}`", c.name.value),
                        ))
                        .chain(
                            c.aliases
                                .iter()
                                .map(|a| (a, format!("an alias of code `{}`", c.name.value))),
                        )
                    })
                    .collect(),
                Carries::Category => draft
                    .categories
                    .iter()
                    .map(|c| (&c.key, format!("the key of category `{}`", c.key.value)))
                    .collect(),
                _ => Vec::new(),
            };
            let constant = match &m.carries {
                Carries::Constant(serde_json::Value::String(s)) => {
                    Some(Spanned::new(s.clone(), m.name.loc))
                }
                _ => None,
            };
            let values = values
                .into_iter()
                .chain(
                    constant
                        .as_ref()
                        .map(|c| (c, "the constant value".to_owned())),
                )
                .map(|(value, owner)| {
                    (
                        value.loc,
                        value.value.as_str(),
                        format!(
                            "{owner} does not match the `pattern` of {what}: `{}`",
                            value.value
                        ),
                    )
                });
            self.pattern_refuses(
                pattern,
                values,
                "the schema holds the member to the pattern, so an envelope with this value \
                 would be refused; change the value, or correct the pattern",
            );
        }
    }

    /// A number a member carries as its constant is one every target holds
    /// exactly: above 2^53 - 1 a JavaScript reader sees another number than
    /// the schema's `const`.
    fn member_constants(&mut self, members: &[Member]) {
        for m in members {
            match &m.carries {
                Carries::Object(inner) => self.member_constants(inner),
                Carries::Constant(serde_json::Value::Number(n))
                    if n.as_i64().map_or_else(
                        || n.as_u64().is_some(),
                        |i| i.unsigned_abs() > names::MAX_SAFE_INTEGER as u64,
                    ) =>
                {
                    self.push(
                        Diagnostic::new(
                            m.name.loc,
                            format!(
                                "the constant {n} of envelope member `{}` is beyond 2^53 - 1",
                                m.name.value
                            ),
                        )
                        .with_help(
                            "JavaScript numbers hold integers exactly only up to 2^53 - 1, so a \
                             reader would see another number; write the constant as a string",
                        ),
                    );
                }
                _ => {}
            }
        }
    }

    /// The response around a list of envelopes is `ErrorResponse` in every
    /// artifact, so no declared type takes the name, and the Rust fields of
    /// its members (their wire names in lower_snake_case) do not meet.
    fn response_names(&mut self, draft: &Draft, envelope: &Envelope) {
        let Some(response) = &envelope.response else {
            return;
        };
        let list = response.list();
        if let Some(t) = draft
            .types
            .iter()
            .find(|t| t.name.value == names::ERROR_RESPONSE)
        {
            self.push(
                Diagnostic::new(
                    t.name.loc,
                    format!("type name `{}` is the response's", names::ERROR_RESPONSE),
                )
                .with_related(list.name.loc, "the list that makes the envelope a response")
                .with_help(format!(
                    "the response around the list `{}` is `{}` in every artifact; rename the type",
                    list.name.value,
                    names::ERROR_RESPONSE
                )),
            );
        }
        let mut seen: Vec<(String, &Spanned<String>)> = Vec::new();
        for m in &response.members {
            let rust = names::rust_member_field(&m.name.value);
            if let Some((_, first)) = seen.iter().find(|(r, _)| *r == rust) {
                self.push(
                    Diagnostic::new(
                        m.name.loc,
                        format!(
                            "`{}` and `{}` are both `{rust}` in the Rust `{}`",
                            m.name.value,
                            first.value,
                            names::ERROR_RESPONSE
                        ),
                    )
                    .with_related(first.loc, "first here")
                    .with_help(
                        "the Rust field of a member is its wire name in lower_snake_case; rename \
                         one of them",
                    ),
                );
            } else {
                seen.push((rust, &m.name));
            }
        }
    }

    /// The Python `TypedDict` of each nested object (the envelope's type
    /// followed by each member on the path, [`names::python_object_dict`])
    /// is unique, and is not a declared type's name for any code's
    /// envelope or the unlisted one. Python spells a path step other than
    /// Rust (`innerError` is `Innererror`), so the Rust check does not
    /// cover it.
    fn python_names(&mut self, draft: &Draft, envelope: &Envelope) {
        let mut objects: Vec<(String, String, Loc)> = Vec::new();
        python_objects(&envelope.members, &mut Vec::new(), &mut objects);
        if objects.is_empty() {
            return;
        }
        // The envelope type of each code and the unlisted one, once for
        // every object.
        let bases: Vec<String> = draft
            .codes
            .iter()
            .map(|c| crate::case::Case::UpperCamel.convert(&c.name.value) + "Envelope")
            .chain([crate::spec::UNLISTED_ENVELOPE.to_string()])
            .collect();
        for (i, (suffix, wire, loc)) in objects.iter().enumerate() {
            if let Some((_, first, first_loc)) = objects[..i].iter().find(|(s, _, _)| s == suffix) {
                self.push(
                    Diagnostic::new(
                        *loc,
                        format!(
                            "the objects `{wire}` and `{first}` both get the Python TypedDict \
                             `<envelope>{suffix}`"
                        ),
                    )
                    .with_related(*first_loc, "that object")
                    .with_help(
                        "Python names a nested object's TypedDict by its envelope's type and \
                         each member on its path, every character that is not a letter or a \
                         digit a word break, each word capitalized and the rest lower case; \
                         rename one of the members",
                    ),
                );
                continue;
            }
            for base in &bases {
                let name = format!("{base}{suffix}");
                if let Some(t) = draft.types.iter().find(|t| t.name.value == name) {
                    self.push(
                        Diagnostic::new(
                            t.name.loc,
                            format!(
                                "type name `{name}` is the Python TypedDict of the envelope \
                                 object `{wire}`"
                            ),
                        )
                        .with_related(*loc, "that object")
                        .with_help("rename the type or the member"),
                    );
                }
            }
        }
    }

    /// The member that tells codes apart, and each object around it, is in
    /// every envelope, unless `absent_means` names the code of an envelope
    /// without it: otherwise an envelope without it is every code's, and
    /// no reader can say which.
    fn discriminant_presence(&mut self, envelope: &Envelope) {
        let by_name = envelope.carries("code_name");
        let property = if by_name { "code_name" } else { "number" };
        let Some(names) = envelope.path_of(property) else {
            return;
        };
        let path = crate::envelope::members_along(&envelope.members, &names);
        let Some(discriminant) = path.last() else {
            return;
        };
        if discriminant.absent_means.is_some() {
            return;
        }
        for m in &path {
            if m.required {
                continue;
            }
            let what = if std::ptr::eq(*m, *discriminant) {
                format!("envelope member `{}` carries `{property}`", m.name.value)
            } else {
                format!(
                    "envelope member `{}` holds the member carrying `{property}`",
                    m.name.value
                )
            };
            let help = if by_name {
                "every reader tells the codes apart by this member: remove `optional`, or name the \
                 code of an envelope without it with `absent_means:` on the member carrying \
                 `code_name`"
            } else {
                "every reader tells the codes apart by this member: remove `optional`"
            };
            self.push(
                Diagnostic::new(
                    m.name.loc,
                    format!("{what} and is optional, with no `absent_means`"),
                )
                .with_label("optional here")
                .with_help(help),
            );
        }
    }

    /// A field declared `in: context` lives in the member carrying
    /// `context`, so the envelope has one.
    fn context_member(&mut self, draft: &Draft, envelope: &Envelope) {
        if envelope.carries("context") {
            return;
        }
        for f in &draft.fields {
            if f.placement.as_ref().map(|p| p.value) == Some(Placement::Context) {
                self.push(
                    Diagnostic::new(
                        f.name.loc,
                        format!(
                            "field `{}` is declared `in: context` but no envelope member carries `context`",
                            f.name.value
                        ),
                    )
                    .with_help(
                        "add a member with `carries: context`, or declare the field `in: top_level`",
                    ),
                );
            }
        }
    }

    /// The Rust field of each member (its wire name in lower_snake_case) and
    /// of each field an object holds is unique in that object, and the
    /// struct of each nested object ([`names::rust_object_struct`] and its
    /// unlisted twin) is unique and not the name of another item.
    fn rust_names(&mut self, draft: &Draft, envelope: &Envelope) {
        let holder = envelope.fields_path();
        let mut structs: Vec<([String; 2], Loc)> = Vec::new();
        self.rust_object_names(
            draft,
            &envelope.members,
            &mut Vec::new(),
            &holder,
            &mut structs,
        );
        for (i, (pair, loc)) in structs.iter().enumerate() {
            let taken = pair.iter().find(|name| {
                names::RUST_ITEMS.contains(&name.as_str())
                    || draft.types.iter().any(|t| t.name.value == **name)
            });
            if let Some(name) = taken {
                self.push(
                    Diagnostic::new(
                        *loc,
                        format!("this object's Rust struct `{name}` is the name of another item"),
                    )
                    .with_help("rename the member or the declared type"),
                );
            } else if let Some((_, first)) = structs[..i].iter().find(|(p, _)| p[0] == pair[0]) {
                self.push(
                    Diagnostic::new(
                        *loc,
                        format!(
                            "this object's Rust struct `{}` is also another object's",
                            pair[0]
                        ),
                    )
                    .with_related(*first, "that object")
                    .with_help(
                        "the struct of a nested object is `ErrorEnvelope` followed by each member \
                         name on its path in UpperCamelCase; rename one of the members",
                    ),
                );
            }
        }
    }

    fn rust_object_names<'e>(
        &mut self,
        draft: &Draft,
        members: &'e [Member],
        path: &mut Vec<&'e str>,
        holder: &[&str],
        structs: &mut Vec<([String; 2], Loc)>,
    ) {
        let mut seen: Vec<(String, &str, Loc)> = Vec::new();
        let members_named = members.iter().map(|m| {
            (
                names::rust_member_field(&m.name.value),
                m.name.value.as_str(),
                m.name.loc,
            )
        });
        let holds_top_level = path.as_slice() == holder;
        let fields = draft
            .fields
            .iter()
            .filter(|f| match f.placement.as_ref().map(|p| p.value) {
                Some(Placement::TopLevel) => holds_top_level,
                Some(Placement::Envelope) => path.is_empty(),
                _ => false,
            });
        // A field named like a member of its object is reported as such
        // (`validate::declarations`), not again here.
        let fields_named = fields
            .filter(|f| !members.iter().any(|m| m.name.value == f.name.value))
            .map(|f| (f.name.value.clone(), f.name.value.as_str(), f.name.loc));
        for (rust, wire, loc) in members_named.chain(fields_named) {
            if let Some((_, first, first_loc)) = seen.iter().find(|(r, _, _)| *r == rust) {
                self.push(
                    Diagnostic::new(
                        loc,
                        format!("`{wire}` and `{first}` are both `{rust}` in the Rust types"),
                    )
                    .with_related(*first_loc, "first here")
                    .with_help(
                        "the Rust field of a member is its wire name in lower_snake_case, a \
                         field's is its name; rename one of them",
                    ),
                );
            } else {
                seen.push((rust, wire, loc));
            }
        }
        for m in members {
            if let Carries::Object(inner) = &m.carries {
                path.push(&m.name.value);
                structs.push((
                    [
                        names::rust_object_struct(path),
                        names::rust_unlisted_struct(path),
                    ],
                    m.name.loc,
                ));
                self.rust_object_names(draft, inner, path, holder, structs);
                path.pop();
            }
        }
    }
}

/// Each nested object under `members`: its Python name after the
/// envelope's ([`names::python_object_dict`] with an empty base), its path
/// as written, and where its member is.
fn python_objects<'e>(
    members: &'e [Member],
    path: &mut Vec<&'e str>,
    out: &mut Vec<(String, String, Loc)>,
) {
    for m in members {
        if let Carries::Object(inner) = &m.carries {
            path.push(&m.name.value);
            out.push((
                names::python_object_dict("", path),
                path.join("."),
                m.name.loc,
            ));
            python_objects(inner, path, out);
            path.pop();
        }
    }
}

/// What a member that holds no string carries, for a diagnostic.
fn carried_kind(carries: &Carries) -> String {
    match carries {
        Carries::Object(_) => "nested members".to_owned(),
        Carries::Constant(v) => format!("the constant {v}"),
        other => format!("`{}`", other.as_str()),
    }
}
