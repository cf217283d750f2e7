//! The `types:` and `fields:` sections as written: object types and their
//! members, enums (with wire spellings), tagged unions, unions of scalars,
//! and the declared fields with their placement. Type references stay
//! spellings; `crate::validate` resolves them.

use crate::case::Case;
use crate::context::{BUILTIN_TYPES, Placement};
use crate::diagnostic::Diagnostic;
use crate::draft::{DraftField, DraftMember, DraftType};
use crate::grammar;
use crate::span::Spanned;
use crate::yaml::{Node, NodeKind, ScalarType};

use super::Lower;
use super::read::wrong_type;

impl Lower {
    /// The `types:` section: named objects (`members:`) and enums (`enum:`).
    pub(super) fn types(&mut self, node: &Node) -> Vec<DraftType> {
        let Some(entries) = self.named_entries(node, "types", "type") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::UpperCamel, "type name");
            if BUILTIN_TYPES.contains(&name.value.to_ascii_lowercase().as_str())
                || crate::names::GENERATED_TYPE_NAMES.contains(&name.value.as_str())
            {
                self.push(
                    Diagnostic::new(name.loc, format!("type name `{}` is reserved", name.value))
                        .with_help("the compiler generates a type of that name; choose another"),
                );
            }
            let owner = format!("type `{}`", name.value);
            let Some(f) = self.object(value, &owner, &grammar::TYPE, name.loc, &owner) else {
                continue;
            };
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &owner));
            let members = f.get("members").and_then(|n| self.members(n, &owner));
            let values = f.get("enum").and_then(|n| {
                let NodeKind::Seq(items) = &n.kind else {
                    self.push(wrong_type(n, "enum", &owner, "a list of strings"));
                    return None;
                };
                if items.is_empty() {
                    self.push(
                        Diagnostic::new(n.loc, format!("`enum` of {owner} has no values"))
                            .with_help("list at least one value, e.g. `enum: [failed, skipped]`"),
                    );
                    return None;
                }
                let mut values = Vec::new();
                for item in items {
                    if let NodeKind::Map(_) = &item.kind {
                        let what = format!("a value of `enum` of {owner}");
                        let Some(g) =
                            self.object(item, &what, &grammar::ENUM_VALUE, item.loc, &what)
                        else {
                            continue;
                        };
                        let name = g.get("name").and_then(|n| self.string(n, "name", &what));
                        let wire = g.get("wire").and_then(|n| self.wire(n, &what));
                        if let (Some(name), Some(wire)) = (name, wire) {
                            self.check_case(&name, Case::LowerSnake, "enum value");
                            values.push((name, Some(wire)));
                        }
                        continue;
                    }
                    let Some(v) = self.string(item, "enum", &owner) else {
                        continue;
                    };
                    if !Case::LowerSnake.matches(&v.value) {
                        let ident = Case::LowerSnake.convert(&v.value);
                        self.push(
                            Diagnostic::new(
                                v.loc,
                                format!("enum value `{}` is not lower_snake_case", v.value),
                            )
                            .with_help(format!(
                                "the value names a Rust variant; to keep `{}` on the wire, write `{{ name: {}, wire: {} }}`",
                                v.value,
                                if Case::LowerSnake.matches(&ident) { ident.as_str() } else { "a_name" },
                                v.value
                            )),
                        );
                    }
                    values.push((v, None));
                }
                Some(values)
            });
            let (values, wires) = match values {
                Some(v) => {
                    let (values, wires): (Vec<_>, Vec<_>) = v.into_iter().unzip();
                    (Some(values), wires)
                }
                None => (None, Vec::new()),
            };
            let union = f.get("union").and_then(|n| {
                let what = format!("`union` of {owner}");
                let loc = f.key_loc("union").unwrap_or(n.loc);
                let g = self.object(n, &what, &grammar::UNION, loc, &what)?;
                let discriminator = g.get("discriminator").and_then(|n| self.wire(n, &what));
                let variants = g.get("variants").and_then(|n| {
                    let entries = self.entries(
                        n,
                        "variants",
                        &what,
                        "a mapping of object type names to their tags",
                    );
                    if entries.is_empty() {
                        self.push(
                            Diagnostic::new(n.loc, format!("{what} has no variants"))
                                .with_help("map at least one object type to its tag: `{ ErrorInfo: type.googleapis.com/google.rpc.ErrorInfo }`"),
                        );
                        return None;
                    }
                    let mut out = Vec::new();
                    for (ty, tag) in entries {
                        if let Some(tag) = self.wire(&tag, &format!("variant `{}` of {what}", ty.value)) {
                            out.push((ty, tag));
                        }
                    }
                    Some(out)
                });
                Some((discriminator?, variants?))
            });
            let one_of = f.get("one_of").and_then(|n| {
                let NodeKind::Seq(items) = &n.kind else {
                    self.push(wrong_type(
                        n,
                        "one_of",
                        &owner,
                        "a list of scalar types, e.g. `[string, int64, \"null\"]`",
                    ));
                    return None;
                };
                let mut out = Vec::new();
                for item in items {
                    // `null` written plainly is YAML's null; it means the
                    // JSON null here, as the quoted `"null"` does.
                    if let (NodeKind::Scalar(..), Some(ScalarType::Null)) =
                        (&item.kind, item.scalar_type())
                    {
                        out.push(Spanned::new("null".to_owned(), item.loc));
                        continue;
                    }
                    if let Some(t) = self.string(item, "one_of", &owner) {
                        out.push(t);
                    }
                }
                Some(out)
            });
            let open = f
                .get("open")
                .and_then(|n| self.boolean(n, "open", &owner))
                .filter(|b| b.value);
            if let Some(open) = &open {
                if f.get("members").is_none() {
                    self.push(
                        Diagnostic::new(
                            f.key_loc("open").unwrap_or(open.loc),
                            format!("{owner} is `open` but is not an object"),
                        )
                        .with_label("only an object type lists members")
                        .with_help("drop `open: true`, or declare the type with `members:`"),
                    );
                }
                for m in members.iter().flatten() {
                    if m.name.value == crate::context::OTHER_MEMBERS {
                        self.push(
                            Diagnostic::new(
                                m.name.loc,
                                format!(
                                    "member `{}` of the open {owner} is named like the Rust field that keeps its unlisted members",
                                    m.name.value
                                ),
                            )
                            .with_related(f.key_loc("open").unwrap_or(open.loc), "the type is open here")
                            .with_help(format!(
                                "rename the member and keep its JSON name with `wire: {}`",
                                crate::context::OTHER_MEMBERS
                            )),
                        );
                    }
                }
            }
            let kinds = ["members", "enum", "union", "one_of"];
            let written: Vec<&str> = kinds.into_iter().filter(|k| f.get(k).is_some()).collect();
            if written.len() > 1 && written.contains(&"one_of") {
                self.push(
                    Diagnostic::new(
                        f.key_loc("one_of").unwrap_or(name.loc),
                        format!(
                            "{owner} has `one_of` and `{}`",
                            written.iter().find(|k| **k != "one_of").unwrap_or(&"members")
                        ),
                    )
                    .with_help("a type is an object (`members`), an enum (`enum`), a tagged union (`union`) or a union of scalars (`one_of`)"),
                );
            }
            if f.get("union").is_some() && (f.get("members").is_some() || f.get("enum").is_some()) {
                self.push(
                    Diagnostic::new(
                        f.key_loc("union").unwrap_or(name.loc),
                        format!("{owner} has `union` and `members` or `enum`"),
                    )
                    .with_help("a type is an object (`members`), an enum (`enum`) or a tagged union (`union`)"),
                );
            }
            match (f.get("members"), f.get("enum")) {
                (None, None) if f.get("union").is_some() || f.get("one_of").is_some() => {}
                (Some(_), Some(_)) => self.push(
                    Diagnostic::new(
                        f.key_loc("enum").unwrap_or(name.loc),
                        format!("{owner} has both `members` and `enum`"),
                    )
                    .with_related(f.key_loc("members").unwrap_or(name.loc), "`members` here")
                    .with_help(
                        "a type is either an object (`members`) or an enum of strings (`enum`)",
                    ),
                ),
                (None, None) => self.push(
                    Diagnostic::new(
                        name.loc,
                        format!("{owner} has neither `members` nor `enum`"),
                    )
                    .with_help("add `members:` (an object) or `enum: [a, b]` (strings)"),
                ),
                _ => {}
            }
            out.push(DraftType {
                name,
                doc,
                members,
                values,
                wires,
                union,
                one_of,
                open: open.is_some(),
            });
        }
        out
    }

    /// The `members:` of an object type.
    pub(super) fn members(&mut self, node: &Node, owner: &str) -> Option<Vec<DraftMember>> {
        let entries = self.named_entries(node, "members", "member")?;
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "member name");
            self.not_keyword(&name, "members become struct fields");
            let what = format!("member `{}` of {owner}", name.value);
            let Some(f) = self.object(value, &what, &grammar::MEMBER, name.loc, &what) else {
                continue;
            };
            let ty = f.get("type").and_then(|n| self.string(n, "type", &what));
            let optional = f
                .get("optional")
                .and_then(|n| self.boolean(n, "optional", &what))
                .is_some_and(|b| b.value);
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &what));
            let wire = f.get("wire").and_then(|n| self.wire(n, &what));
            let nullable = f
                .get("nullable")
                .and_then(|n| self.boolean(n, "nullable", &what))
                .is_some_and(|b| b.value);
            let pattern = f
                .get("pattern")
                .and_then(|n| self.line(n, "pattern", &what));
            let format = f.get("format").and_then(|n| self.format(n, &what));
            out.push(DraftMember {
                name,
                ty,
                optional,
                doc,
                wire,
                nullable,
                pattern,
                format,
            });
        }
        Some(out)
    }

    /// The `fields:` section: the context fields codes may name.
    pub(super) fn declared_fields(&mut self, node: &Node) -> Vec<DraftField> {
        let Some(entries) = self.named_entries(node, "fields", "field") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "field name");
            self.not_keyword(&name, "fields become constructor arguments and methods");
            let what = format!("field `{}`", name.value);
            let Some(f) = self.object(value, &what, &grammar::FIELD, name.loc, &what) else {
                continue;
            };
            let ty = f.get("type").and_then(|n| self.string(n, "type", &what));
            let placement = f.get("in").and_then(|n| {
                let s = self.string(n, "in", &what)?;
                match s.value.as_str() {
                    "top_level" => Some(Spanned::new(Placement::TopLevel, s.loc)),
                    "context" => Some(Spanned::new(Placement::Context, s.loc)),
                    "envelope" => Some(Spanned::new(Placement::Envelope, s.loc)),
                    other => {
                        self.push(
                            Diagnostic::new(
                                s.loc,
                                format!("unknown placement `{other}` of {what}"),
                            )
                            .suggesting(
                                s.loc,
                                other,
                                grammar::names(grammar::PLACEMENTS),
                                "expected",
                            ),
                        );
                        None
                    }
                }
            });
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &what));
            let wire = f.get("wire").and_then(|n| self.wire(n, &what));
            if let Some(n) = f.get("nullable") {
                self.push(
                    Diagnostic::new(
                        f.key_loc("nullable").unwrap_or(n.loc),
                        format!("{what} cannot be `nullable`"),
                    )
                    .with_help(
                        "a context field a code may leave out is listed in its `context.optional`; \
                         `nullable` is for members of a type",
                    ),
                );
            }
            let pattern = f
                .get("pattern")
                .and_then(|n| self.line(n, "pattern", &what));
            let format = f.get("format").and_then(|n| self.format(n, &what));
            out.push(DraftField {
                pattern,
                format,
                name,
                placement,
                ty,
                doc,
                example: f.get("example").cloned(),
                wire,
            });
        }
        out
    }
}
