//! The `envelope:` section: the members of the wire envelope and their
//! nesting, what each carries, `optional`, `absent_means` and `doc`; a
//! property carried twice, or no member telling codes apart, is reported
//! here.

use crate::diagnostic::{Diagnostic, list};
use crate::envelope::{AbsentMeans, CARRIES, Carries, Envelope, Member as EnvMember};
use crate::grammar;
use crate::span::{Loc, Spanned};
use crate::yaml::{Node, NodeKind, ScalarType};

use super::Lower;
use super::read::wrong_type;

impl Lower {
    /// The `envelope:` section: the members of the wire envelope, nested
    /// objects included. `None` when part of it could not be read (already
    /// reported).
    pub(super) fn envelope(&mut self, node: &Node, key_loc: Loc) -> Option<Envelope> {
        let (members, mut broken) = self.envelope_members(node, "`envelope`", key_loc);
        let envelope = Envelope {
            members,
            declared: true,
        };
        // Each property is carried at most once, anywhere in the tree.
        let mut seen: Vec<(&'static str, Loc)> = Vec::new();
        fn walk(members: &[EnvMember], out: &mut Vec<(&'static str, Loc)>) {
            for m in members {
                match &m.carries {
                    Carries::Object(inner) => walk(inner, out),
                    Carries::Constant(_) => {}
                    other => out.push((other.as_str(), m.name.loc)),
                }
            }
        }
        let mut all = Vec::new();
        walk(&envelope.members, &mut all);
        for (property, loc) in all {
            if let Some((_, first)) = seen.iter().find(|(p, _)| *p == property) {
                self.push(
                    Diagnostic::new(
                        loc,
                        format!("`{property}` is carried by two members of `envelope`"),
                    )
                    .with_label("second member")
                    .with_related(*first, "first member carrying it")
                    .with_help(
                        "each property of a code is carried by one member; remove one of them",
                    ),
                );
                broken = true;
            } else {
                seen.push((property, loc));
            }
        }
        if !broken && !envelope.carries("code_name") && !envelope.carries("number") {
            self.push(
                Diagnostic::new(
                    key_loc,
                    "`envelope` carries neither the code name nor the number",
                )
                .with_label("no member tells the codes apart")
                .with_help("add a member with `carries: code_name` or `carries: number`"),
            );
            broken = true;
        }
        (!broken).then_some(envelope)
    }

    /// The members of one object of the envelope that could be read, and
    /// whether anything could not (already reported).
    pub(super) fn envelope_members(
        &mut self,
        node: &Node,
        owner: &str,
        owner_loc: Loc,
    ) -> (Vec<EnvMember>, bool) {
        let NodeKind::Map(_) = &node.kind else {
            self.push(
                Diagnostic::new(
                    owner_loc,
                    format!("{owner} must be a mapping of member names"),
                )
                .with_help("e.g. `error_code: { carries: code_name }`"),
            );
            return (Vec::new(), true);
        };
        let Some(entries) = self.named_entries(node, "envelope", "member") else {
            return (Vec::new(), true);
        };
        if entries.is_empty() {
            self.push(
                Diagnostic::new(owner_loc, format!("{owner} has no members"))
                    .with_help("list at least the member that carries the code, e.g. `error_code: { carries: code_name }`"),
            );
            return (Vec::new(), true);
        }
        let mut out = Vec::new();
        let mut broken = false;
        for (name, value) in entries {
            let what = format!("envelope member `{}`", name.value);
            let Some(f) = self.object(value, &what, &grammar::ENVELOPE_MEMBER, name.loc, &what)
            else {
                broken = true;
                continue;
            };
            let optional = f
                .get("optional")
                .and_then(|n| self.boolean(n, "optional", &what))
                .is_some_and(|b| b.value);
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &what));
            let carries = match (f.get("carries"), f.get("members")) {
                (Some(_), Some(_)) => {
                    self.push(
                        Diagnostic::new(
                            f.key_loc("members").unwrap_or(name.loc),
                            format!("{what} has both `carries` and `members`"),
                        )
                        .with_related(f.key_loc("carries").unwrap_or(name.loc), "`carries` here")
                        .with_help("a member either carries one property or is an object of `members`"),
                    );
                    None
                }
                (None, None) => {
                    self.push(
                        Diagnostic::new(name.loc, format!("{what} has neither `carries` nor `members`"))
                            .with_help(format!("add `carries:` with one of {}, or `members:` for a nested object", list(CARRIES))),
                    );
                    None
                }
                (None, Some(inner)) => {
                    let owner = format!("`members` of {what}");
                    let (inner, inner_broken) = self.envelope_members(
                        inner,
                        &owner,
                        f.key_loc("members").unwrap_or(name.loc),
                    );
                    broken |= inner_broken;
                    Some(Carries::Object(inner))
                }
                (Some(c), None) => self.string(c, "carries", &what).and_then(|c| {
                    Some(match c.value.as_str() {
                        "constant" => {
                            let Some(v) = f.get("value") else {
                                self.push(
                                    Diagnostic::new(c.loc, format!("{what} carries a constant but has no `value`"))
                                        .with_help("add `value:` with the string, integer or boolean every envelope has there"),
                                );
                                return None;
                            };
                            match v.scalar_type() {
                                Some(ScalarType::Str) | Some(ScalarType::Bool(_)) | Some(ScalarType::Int(_)) => {
                                    let json = match v.scalar_type() {
                                        Some(ScalarType::Int(n)) => match i64::try_from(n) {
                                            Ok(n) => serde_json::Value::from(n),
                                            Err(_) => {
                                                self.push(Diagnostic::new(v.loc, format!("`value` of {what} is out of range: {n}")));
                                                return None;
                                            }
                                        },
                                        _ => crate::draft::to_json(v),
                                    };
                                    Carries::Constant(json)
                                }
                                _ => {
                                    self.push(wrong_type(v, "value", &what, "a string, an integer or a boolean"));
                                    return None;
                                }
                            }
                        }
                        "code_name" => Carries::CodeName,
                        "number" => Carries::Number,
                        "category" => Carries::Category,
                        "retryable" => Carries::Retryable,
                        "cause" => Carries::Cause,
                        "hints" => Carries::Hints,
                        "message" => Carries::Message,
                        "context" => Carries::Context,
                        other => {
                            self.push(
                                Diagnostic::new(c.loc, format!("unknown property `{other}` carried by {what}"))
                                    .suggesting(c.loc, other, grammar::names(grammar::CARRIES), "expected one of"),
                            );
                            return None;
                        }
                    })
                }),
            };
            if let (Some(v), Some(c)) = (f.get("value"), &carries)
                && !matches!(c, Carries::Constant(_))
            {
                self.push(
                    Diagnostic::new(
                        v.loc,
                        format!("{what} has a `value` but does not carry a constant"),
                    )
                    .with_help("`value:` goes with `carries: constant`; remove it"),
                );
                broken = true;
            }
            if optional && matches!(carries, Some(Carries::Context)) {
                self.push(
                    Diagnostic::new(
                        f.key_loc("optional").unwrap_or(name.loc),
                        format!("{what} carries `context` and cannot be declared optional"),
                    )
                    .with_help("the context member is present exactly when the code carries context fields; remove `optional`"),
                );
                broken = true;
            }
            let absent_means = f
                .get("absent_means")
                .and_then(|n| self.absent_means(n, &what));
            if let (Some(a), Some(c)) = (&absent_means, &carries)
                && !matches!(c, Carries::CodeName)
            {
                self.push(
                    Diagnostic::new(
                        a.loc(),
                        format!("{what} has `absent_means` but does not carry `code_name`"),
                    )
                    .with_help("`absent_means:` names the code of an envelope without the member that carries the code's name; move it there or remove it"),
                );
                broken = true;
            }
            let pattern = f
                .get("pattern")
                .and_then(|n| self.line(n, "pattern", &what));
            let format = f.get("format").and_then(|n| self.format(n, &what));
            match carries {
                Some(carries) => out.push(EnvMember {
                    name,
                    // A code name with `absent_means` may be absent.
                    required: !optional
                        && absent_means.is_none()
                        && !matches!(carries, Carries::Context),
                    carries,
                    doc,
                    absent_means,
                    pattern,
                    format,
                }),
                None => broken = true,
            }
        }
        (out, broken)
    }

    /// `absent_means:` of a member: a code identifier, or a mapping from
    /// category key to code identifier.
    fn absent_means(&mut self, node: &Node, what: &str) -> Option<AbsentMeans> {
        let NodeKind::Map(entries) = &node.kind else {
            return self
                .string(node, "absent_means", what)
                .map(AbsentMeans::One);
        };
        if entries.is_empty() {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!("`absent_means` of {what} is an empty mapping"),
                )
                .with_help(
                    "name the code of an envelope without the member (`absent_means: CODE`), \
                         or map category keys to codes (`absent_means: { api_error: API_ERROR }`)",
                ),
            );
            return None;
        }
        let mut out = Vec::new();
        let mut broken = false;
        for (key, value) in entries {
            let owner = format!("`absent_means` of {what}");
            let key = self.string(key, "category key", &owner);
            let code = key
                .as_ref()
                .and_then(|k| self.string(value, &k.value, &owner));
            match (key, code) {
                (Some(k), Some(c)) => {
                    if let Some((first, _)) = out
                        .iter()
                        .find(|(f, _): &&(Spanned<String>, Spanned<String>)| f.value == k.value)
                    {
                        self.push(
                            Diagnostic::new(
                                k.loc,
                                format!("category `{}` is listed twice in {owner}", k.value),
                            )
                            .with_label("again here")
                            .with_related(first.loc, "first here")
                            .with_help("a category has one fallback code; remove one entry"),
                        );
                        broken = true;
                    } else {
                        out.push((k, c));
                    }
                }
                _ => broken = true,
            }
        }
        (!broken).then_some(AbsentMeans::ByCategory {
            entries: out,
            loc: node.loc,
        })
    }
}
