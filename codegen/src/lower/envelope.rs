//! The `envelope:` section: the members of the wire envelope and their
//! nesting, what each carries, `optional`, `absent_means` and `doc`; a
//! property carried twice, or no member telling codes apart, is reported
//! here. A top-level member `list: true` splits the section into a response
//! (the members beside it: constants and `type:` members) and one entry of
//! its list (its `members`); what a code carries is each entry's.

use crate::diagnostic::{Diagnostic, list};
use crate::envelope::{
    AbsentMeans, CARRIES, Carries, Envelope, Holds, Member as EnvMember, Response, ResponseMember,
};
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
        let mut top = Vec::new();
        let (members, mut broken) =
            self.envelope_members(node, "`envelope`", key_loc, Some(&mut top));
        let (members, response) = match self.response(members, top) {
            Some(split) => split,
            None => {
                broken = true;
                (Vec::new(), None)
            }
        };
        let envelope = Envelope {
            members,
            declared: true,
            response,
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
        mut top: Option<&mut Vec<(usize, ResponseMember, Vec<EnvMember>)>>,
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
        for (position, (name, value)) in entries.into_iter().enumerate() {
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
            let is_list = f
                .get("list")
                .and_then(|n| self.boolean(n, "list", &what))
                .is_some_and(|b| b.value);
            let ty = f.get("type").and_then(|n| self.line(n, "type", &what));
            if is_list || ty.is_some() {
                let key = if is_list { "list" } else { "type" };
                let key_loc = f.key_loc(key).unwrap_or(name.loc);
                let Some(out) = top.as_deref_mut() else {
                    self.push(
                        Diagnostic::new(key_loc, format!("{what} is nested and has `{key}`"))
                            .with_label("inside an object")
                            .with_help(if is_list {
                                "the list of errors is a member at the top of `envelope`; move it there"
                            } else {
                                "a `type:` member is the response's, at the top of `envelope` beside \
                                 the `list: true` member; for a typed member of one error, declare a \
                                 field `in: envelope` or `in: top_level`"
                            }),
                    );
                    broken = true;
                    continue;
                };
                // Keys that say what an entry's member carries do not
                // apply here.
                let foreign: &[&str] = if is_list {
                    &[
                        "carries",
                        "value",
                        "type",
                        "absent_means",
                        "pattern",
                        "format",
                        "optional",
                    ]
                } else {
                    &[
                        "carries",
                        "value",
                        "members",
                        "absent_means",
                        "pattern",
                        "format",
                    ]
                };
                let mut ok = true;
                for k in foreign {
                    if let Some(loc) = f.key_loc(k) {
                        let help = match (is_list, *k) {
                            (true, "optional") => "a response with errors always has its list of \
                             errors (GraphQL: `errors` is present and \
                             non-empty); remove `optional`"
                                .to_owned(),
                            (true, "carries" | "value") => "the list holds the errors; what each \
                             carries goes in its `members`"
                                .to_owned(),
                            (true, _) => format!(
                                "`{k}` belongs on a member inside the list's `members`; move it there"
                            ),
                            (false, _) => format!(
                                "a member with `type:` holds any value of that type; remove `{k}`"
                            ),
                        };
                        self.push(
                            Diagnostic::new(loc, format!("{what} has `{key}` and `{k}`"))
                                .with_related(key_loc, format!("`{key}` here"))
                                .with_help(help),
                        );
                        ok = false;
                    }
                }
                let holds = if is_list {
                    let Some(inner) = f.get("members") else {
                        self.push(
                            Diagnostic::new(key_loc, format!("{what} is a list with no `members`"))
                                .with_help(
                                    "`members:` declares one error of the list, e.g. \
                                     `members: { message: { carries: message }, code: { carries: code_name } }`",
                                ),
                        );
                        broken = true;
                        continue;
                    };
                    let owner = format!("`members` of {what}");
                    let (inner, inner_broken) = self.envelope_members(
                        inner,
                        &owner,
                        f.key_loc("members").unwrap_or(name.loc),
                        None,
                    );
                    broken |= inner_broken || !ok;
                    if ok && !inner_broken {
                        out.push((
                            position,
                            ResponseMember {
                                name,
                                holds: Holds::List,
                                required: true,
                                doc,
                            },
                            inner,
                        ));
                    }
                    continue;
                } else {
                    Holds::Typed {
                        spelling: ty.expect("a `type:` member has its type"),
                        ty: None,
                    }
                };
                broken |= !ok;
                if ok {
                    out.push((
                        position,
                        ResponseMember {
                            name,
                            holds,
                            required: !optional,
                            doc,
                        },
                        Vec::new(),
                    ));
                }
                continue;
            }
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
                        None,
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

    /// Splits the top-level members at the list, when one is declared
    /// `list: true`: the envelope's members become the list's, and the
    /// members beside it, with the list at its place, the response's.
    /// Without a list, the members as they are, and no `type:` member.
    /// `None` when something is reported.
    #[allow(clippy::type_complexity)]
    fn response(
        &mut self,
        members: Vec<EnvMember>,
        top: Vec<(usize, ResponseMember, Vec<EnvMember>)>,
    ) -> Option<(Vec<EnvMember>, Option<Response>)> {
        let lists: Vec<&ResponseMember> = top
            .iter()
            .map(|(_, m, _)| m)
            .filter(|m| m.holds == Holds::List)
            .collect();
        if lists.is_empty() {
            let mut ok = true;
            for (_, m, _) in &top {
                self.push(
                    Diagnostic::new(
                        m.name.loc,
                        format!(
                            "envelope member `{}` has `type:` but no member is `list: true`",
                            m.name.value
                        ),
                    )
                    .with_help(
                        "a `type:` member is a member of a response beside its list of errors; \
                         for a typed member of the envelope, declare a field `in: envelope` or \
                         `in: top_level`",
                    ),
                );
                ok = false;
            }
            return ok.then_some((members, None));
        }
        let mut ok = true;
        if let [first, second, ..] = lists.as_slice() {
            self.push(
                Diagnostic::new(
                    second.name.loc,
                    format!(
                        "envelope members `{}` and `{}` are both lists",
                        first.name.value, second.name.value
                    ),
                )
                .with_label("second list")
                .with_related(first.name.loc, "first list")
                .with_help("a response holds one list of errors; declare one member `list: true`"),
            );
            ok = false;
        }
        let list_name = lists[0].name.value.clone();
        // The members beside the list: only constants are the response's;
        // what a code carries is each error's.
        let mut beside = Vec::new();
        for m in members {
            match &m.carries {
                Carries::Constant(v) => beside.push(ResponseMember {
                    holds: Holds::Constant(v.clone()),
                    required: m.required,
                    doc: m.doc,
                    name: m.name,
                }),
                other => {
                    let (what, help) = match other {
                        Carries::Object(_) => (
                            "is an object".to_owned(),
                            format!(
                                "a member of the response beside `{list_name}` is a constant or \
                                 has `type:` (a declared object type); move the object into \
                                 `members` of `{list_name}` if it is each error's"
                            ),
                        ),
                        c => (
                            format!("carries `{}`", c.as_str()),
                            format!(
                                "what a code carries is each error's: move the member into \
                                 `members` of `{list_name}`"
                            ),
                        ),
                    };
                    self.push(
                        Diagnostic::new(
                            m.name.loc,
                            format!(
                                "envelope member `{}` {what} beside the list `{list_name}`",
                                m.name.value
                            ),
                        )
                        .with_label("outside the list")
                        .with_help(help),
                    );
                    ok = false;
                }
            }
        }
        if !ok {
            return None;
        }
        // Back in wire order: the list and the `type:` members at their
        // positions, the constants, which kept their order, in the others.
        let mut entry = Vec::new();
        let mut members = Vec::new();
        let mut specials = top.into_iter().peekable();
        let mut beside = beside.into_iter();
        loop {
            let special_due = specials
                .peek()
                .is_some_and(|(at, _, _)| *at == members.len());
            let constant = if special_due { None } else { beside.next() };
            let m = match constant {
                Some(m) => m,
                None => match specials.next() {
                    Some((_, m, inner)) => {
                        if m.holds == Holds::List {
                            entry = inner;
                        }
                        m
                    }
                    None => break,
                },
            };
            members.push(m);
        }
        Some((entry, Some(Response { members })))
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
