//! The `codes:` section: each code's keys, its parameters, recovery hints
//! (and their `when:` conditions), context lists, lifecycle, examples and
//! constants, read as written; and the defaults a category gives its codes
//! (`message`, `params`, `recovery_hints`, `context`), resolved here into
//! each code that does not write its own, so that validation checks, and
//! every emitter sees, a code's effective values.

use crate::case::Case;
use crate::diagnostic::Diagnostic;
use crate::draft::{
    CategoryDefaults, DefaultContext, DefaultHints, DefaultParams, DraftCategory, DraftCode,
    DraftDeprecated, DraftRemoved, Inherited,
};
use crate::grammar;
use crate::span::{Loc, Spanned};
use crate::spec::{CodeNames, HintCondition, HintsRule, Param, ParamType};
use crate::yaml::{Node, NodeKind};

use super::Lower;
use super::read::{RUST_KEYWORDS, duplicate, wrong_type};

impl Lower {
    /// `hints:` of the taxonomy: `required` or `optional`.
    pub(super) fn hints_rule(&mut self, node: &Node, owner: &str) -> Option<Spanned<HintsRule>> {
        self.keyword(
            node,
            "hints",
            owner,
            HintsRule::ALL,
            HintsRule::as_str,
            grammar::HINTS,
        )
    }

    /// `code_names:` of the taxonomy: `unique` or `per_category`.
    pub(super) fn code_names(&mut self, node: &Node, owner: &str) -> Option<Spanned<CodeNames>> {
        self.keyword(
            node,
            "code_names",
            owner,
            CodeNames::ALL,
            CodeNames::as_str,
            grammar::CODE_NAMES,
        )
    }

    /// The defaults a category gives its codes, read with the same rules
    /// as a code's own keys.
    pub(super) fn category_defaults(
        &mut self,
        f: &super::Fields<'_>,
        owner: &str,
    ) -> CategoryDefaults {
        let message = f
            .get("message")
            .and_then(|n| self.line(n, "message", owner));
        let params = f.get("params").map(|n| {
            let (params, broken) = self.params(n, owner);
            DefaultParams {
                loc: n.loc,
                params,
                broken,
            }
        });
        let (recovery_hints, recovery_hints_broken) = match f.get("recovery_hints") {
            Some(n) => match self.hints(n, owner) {
                Some((hints, conditions)) => (Some(DefaultHints { hints, conditions }), false),
                None => (None, true),
            },
            None => (None, false),
        };
        let context = f.get("context").map(|n| {
            let reported = self.diags.len();
            let (required, optional) =
                self.context(n, owner, f.key_loc("context").unwrap_or(n.loc));
            DefaultContext {
                loc: n.loc,
                required,
                optional,
                broken: self.diags.len() > reported,
            }
        });
        CategoryDefaults {
            message,
            params,
            recovery_hints,
            recovery_hints_broken,
            context,
        }
    }

    /// The `codes:` section; `number` is a required key of a code when the
    /// taxonomy is `numbered` (a stray one elsewhere is refused in
    /// validation, which sees the whole draft), and `message` unless its
    /// category gives one.
    pub(super) fn codes(
        &mut self,
        node: &Node,
        numbered: bool,
        categories: &[DraftCategory],
    ) -> Vec<DraftCode> {
        let Some(entries) = self.named_entries(node, "codes", "code") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::ScreamingSnake, "code name");
            let owner = format!("code `{}`", name.value);
            // The category is looked up before the keys are checked, so
            // that a `message` it gives is not reported missing.
            let owning = match &value.kind {
                NodeKind::Map(entries) => entries
                    .iter()
                    .find(|(k, _)| k.as_scalar() == Some("category"))
                    .and_then(|(_, v)| v.as_scalar()),
                _ => None,
            }
            .and_then(|key| categories.iter().find(|c| c.key.value == key));
            let defaults = owning.map(|c| &c.defaults);
            let required: Vec<&str> = grammar::CODE
                .keys
                .iter()
                .filter(|k| {
                    k.required
                        || (numbered && k.name == "number")
                        || (k.name == "message" && defaults.is_none_or(|d| d.message.is_none()))
                })
                .map(|k| k.name)
                .collect();
            let Some(f) = self.fields(
                value,
                &owner,
                &grammar::CODE.key_names(),
                &required,
                name.loc,
                &owner,
            ) else {
                continue;
            };
            let number = f.get("number").and_then(|n| self.number(n, &owner));
            let category = f
                .get("category")
                .and_then(|n| self.string(n, "category", &owner));
            let retryable = f
                .get("retryable")
                .and_then(|n| self.boolean(n, "retryable", &owner));
            let cause = f.get("cause").and_then(|n| self.cause(n, &owner));
            let since = f
                .get("since")
                .and_then(|n| self.version(n, "since", &owner));
            let title = f.get("title").and_then(|n| self.line(n, "title", &owner));
            let explanation = f
                .get("explanation")
                .and_then(|n| self.string(n, "explanation", &owner));
            let mut inherited = Inherited {
                category: owning.map(|c| c.key.clone()),
                locs: Vec::new(),
            };
            let mut message = f
                .get("message")
                .and_then(|n| self.line(n, "message", &owner));
            let (mut params, mut broken_params) = f
                .get("params")
                .map(|n| self.params(n, &owner))
                .unwrap_or_default();
            let (mut recovery_hints, mut hint_conditions) = match f.get("recovery_hints") {
                Some(n) => match self.hints(n, &owner) {
                    Some((hints, conditions)) => (Some(hints), conditions),
                    None => (None, Vec::new()),
                },
                None => (None, Vec::new()),
            };
            let mut recovery_hints_broken =
                recovery_hints.is_none() && f.get("recovery_hints").is_some();
            let reported = self.diags.len();
            let (mut required_context, mut optional_context) = match f.get("context") {
                Some(n) => self.context(n, &owner, f.key_loc("context").unwrap_or(n.loc)),
                None => (Vec::new(), Vec::new()),
            };
            let mut context_broken = self.diags.len() > reported;
            if let Some(d) = defaults {
                if f.get("message").is_none()
                    && let Some(m) = &d.message
                {
                    inherited.locs.push(m.loc);
                    message = Some(m.clone());
                }
                if f.get("params").is_none()
                    && let Some(p) = &d.params
                {
                    inherited.locs.push(p.loc);
                    params = p.params.clone();
                    broken_params = p.broken.clone();
                }
                if f.get("recovery_hints").is_none() {
                    if let Some(h) = &d.recovery_hints {
                        inherited.locs.push(h.hints.loc);
                        recovery_hints = Some(h.hints.clone());
                        hint_conditions = h.conditions.clone();
                    }
                    recovery_hints_broken = d.recovery_hints_broken;
                }
                if f.get("context").is_none()
                    && let Some(c) = &d.context
                {
                    inherited.locs.push(c.loc);
                    required_context = c.required.clone();
                    optional_context = c.optional.clone();
                    context_broken = c.broken;
                }
            }
            let deprecated = f.get("deprecated").and_then(|n| {
                let loc = f.key_loc("deprecated").unwrap_or(n.loc);
                let what = format!("`deprecated` of {owner}");
                let g = self.object(n, &what, &grammar::DEPRECATED, loc, &what)?;
                if g.get("replaced_by").is_none() {
                    self.push(
                        Diagnostic::new(loc, format!("{owner} is deprecated without `replaced_by`"))
                            .with_label("deprecated here")
                            .with_help("name the active code that callers should handle instead: `replaced_by: OTHER_CODE`"),
                    );
                }
                Some(DraftDeprecated {
                    loc,
                    since: g.get("since").and_then(|n| self.version(n, "since", &what)),
                    replaced_by: g.get("replaced_by").and_then(|n| self.string(n, "replaced_by", &what)),
                    note: g.get("note").and_then(|n| self.line(n, "note", &what)),
                })
            });
            let removed = f.get("removed").and_then(|n| {
                let loc = f.key_loc("removed").unwrap_or(n.loc);
                let what = format!("`removed` of {owner}");
                let g = self.object(n, &what, &grammar::REMOVED, loc, &what)?;
                Some(DraftRemoved {
                    loc,
                    since: g.get("since").and_then(|n| self.version(n, "since", &what)),
                    reason: g.get("reason").and_then(|n| self.line(n, "reason", &what)),
                })
            });
            let examples = f
                .get("example")
                .map(|n| self.examples(n, &owner))
                .unwrap_or_default();
            let sent_as = f.get("sent_as").and_then(|n| self.sent_as(n, &owner));
            let wire = f.get("wire").and_then(|n| self.code_wire(n, &owner));
            let aliases = match f.get("aliases") {
                Some(n) => match &n.kind {
                    NodeKind::Seq(items) => items
                        .iter()
                        .enumerate()
                        .filter_map(|(i, n)| self.alias(n, i, &owner))
                        .collect(),
                    _ => {
                        self.push(wrong_type(
                            n,
                            "aliases",
                            &owner,
                            "a list of names on the wire",
                        ));
                        Vec::new()
                    }
                },
                None => Vec::new(),
            };
            let constants = f
                .get("constants")
                .map(|n| self.entries(n, "constants", &owner, "a mapping of field names to values"))
                .unwrap_or_default();
            let retry_classes = f
                .get("retry_classes")
                .and_then(|n| self.retry_class_list(n, &owner));
            let attributes = f
                .get("attributes")
                .map(|n| {
                    self.entries(
                        n,
                        "attributes",
                        &owner,
                        "a mapping of attribute names to values",
                    )
                })
                .unwrap_or_default();
            out.push(DraftCode {
                retry_classes,
                attributes,
                wire,
                aliases,
                constants,
                sent_as,
                examples,
                name,
                number,
                category,
                retryable,
                cause,
                title,
                explanation,
                message,
                params,
                broken_params,
                context_broken,
                recovery_hints_broken,
                recovery_hints,
                inherited,
                hint_conditions,
                required_context,
                optional_context,
                since,
                deprecated,
                removed,
            });
        }
        out
    }

    /// The entries of a code's `example:` mapping; a key written twice is
    /// reported and its second entry dropped. Keys and values are checked by
    /// [`crate::validate`], which knows the params and fields.
    pub(super) fn examples(&mut self, node: &Node, owner: &str) -> Vec<(Spanned<String>, Node)> {
        self.entries(
            node,
            "example",
            owner,
            "a mapping of parameter and context field names to example values",
        )
    }

    /// The readable parameters, and the names of the unreadable ones.
    pub(super) fn params(&mut self, node: &Node, owner: &str) -> (Vec<Param>, Vec<String>) {
        let NodeKind::Map(entries) = &node.kind else {
            self.push(wrong_type(
                node,
                "params",
                owner,
                "a mapping of parameter names to `{ type, description }`",
            ));
            return (Vec::new(), Vec::new());
        };
        let mut out: Vec<Param> = Vec::new();
        let mut broken = Vec::new();
        for (k, v) in entries {
            let Some(name) = self.key(k, "parameter name") else {
                continue;
            };
            if let Some(first) = out.iter().find(|p| p.name.value == name.value) {
                self.push(duplicate(
                    &name,
                    first.name.loc,
                    &format!("parameter `{}` of {owner}", name.value),
                ));
                continue;
            }
            self.check_case(&name, Case::LowerSnake, "parameter name");
            if RUST_KEYWORDS.contains(&name.value.as_str()) {
                self.push(
                    Diagnostic::new(
                        name.loc,
                        format!("parameter name `{}` is a Rust keyword", name.value),
                    )
                    .with_help("parameters become constructor arguments; choose another name"),
                );
            }
            let what = format!("parameter `{}` of {owner}", name.value);
            let Some(f) = self.object(v, &what, &grammar::PARAM, name.loc, &what) else {
                broken.push(name.value);
                continue;
            };
            let ty = f.get("type").and_then(|n| {
                let s = self.string(n, "type", &what)?;
                match s.value.as_str() {
                    "string" => Some(Spanned::new(ParamType::String, s.loc)),
                    "integer" => Some(Spanned::new(ParamType::Integer, s.loc)),
                    other => {
                        self.push(
                            Diagnostic::new(s.loc, format!("unknown parameter type `{other}`"))
                                .suggesting(
                                    s.loc,
                                    other,
                                    grammar::names(grammar::PARAM_TYPES),
                                    "expected",
                                ),
                        );
                        None
                    }
                }
            });
            let description = f
                .get("description")
                .and_then(|n| self.line(n, "description", &what));
            match (ty, description) {
                (Some(ty), Some(description)) => out.push(Param {
                    name,
                    ty,
                    description,
                }),
                _ => broken.push(name.value),
            }
        }
        (out, broken)
    }

    /// `recovery_hints`: each entry a string (a general hint) or
    /// `{ text: ..., when: { field: value | [values] } }` (a hint that applies
    /// only when the envelope carries `field` with one of the values; the
    /// field and values are checked in `validate`).
    #[allow(clippy::type_complexity)]
    pub(super) fn hints(
        &mut self,
        node: &Node,
        owner: &str,
    ) -> Option<(Spanned<Vec<Spanned<String>>>, Vec<Option<HintCondition>>)> {
        let NodeKind::Seq(items) = &node.kind else {
            self.push(wrong_type(
                node,
                "recovery_hints",
                owner,
                "a list of strings",
            ));
            return None;
        };
        let mut hints = Vec::new();
        let mut conditions = Vec::new();
        for n in items {
            if !matches!(n.kind, NodeKind::Map(_)) {
                if let Some(h) = self.line(n, "recovery_hints", owner) {
                    hints.push(h);
                    conditions.push(None);
                }
                continue;
            }
            let what = format!("a recovery hint of {owner}");
            let Some(f) = self.object(n, &what, &grammar::HINT, n.loc, &what) else {
                continue;
            };
            let text = f.get("text").and_then(|t| self.line(t, "text", &what));
            let when = f.get("when").and_then(|w| self.condition(w, &what));
            if let (Some(text), Some(when)) = (text, when) {
                hints.push(text);
                conditions.push(Some(when));
            }
        }
        Some((Spanned::new(hints, node.loc), conditions))
    }

    /// `when: { field: value }` or `when: { field: [value, ...] }`.
    pub(super) fn condition(&mut self, node: &Node, owner: &str) -> Option<HintCondition> {
        let what = format!("`when` of {owner}");
        let help = "write `when: { field: value }` or `when: { field: [value, ...] }`, \
                    naming one enum context field the code carries";
        let NodeKind::Map(entries) = &node.kind else {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!("{what} must be a mapping, found {}", node.describe()),
                )
                .with_help(help),
            );
            return None;
        };
        let [(k, v)] = entries.as_slice() else {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!(
                        "{what} must name exactly one field, found {}",
                        entries.len()
                    ),
                )
                .with_help(help),
            );
            return None;
        };
        let field = self.key(k, "field name")?;
        let values: Vec<Spanned<String>> = match &v.kind {
            NodeKind::Seq(items) => items
                .iter()
                .filter_map(|i| self.string(i, &field.value, &what))
                .collect(),
            _ => self.string(v, &field.value, &what).into_iter().collect(),
        };
        if values.is_empty() {
            self.push(
                Diagnostic::new(
                    v.loc,
                    format!("{what} lists no value for `{}`", field.value),
                )
                .with_help(help),
            );
            return None;
        }
        Some(HintCondition { field, values })
    }

    pub(super) fn context(
        &mut self,
        node: &Node,
        owner: &str,
        key_loc: Loc,
    ) -> (Vec<Spanned<String>>, Vec<Spanned<String>>) {
        let what = format!("`context` of {owner}");
        let Some(f) = self.object(node, &what, &grammar::CONTEXT, key_loc, &what) else {
            return (Vec::new(), Vec::new());
        };
        // Whether each name is declared is checked in `validate`, where the
        // `fields:` section is known.
        let mut lists = grammar::CONTEXT.keys.iter().map(|k| k.name).map(|key| {
            let Some(n) = f.get(key) else {
                return Vec::new();
            };
            let NodeKind::Seq(items) = &n.kind else {
                self.push(wrong_type(n, key, &what, "a list of context field names"));
                return Vec::new();
            };
            items
                .iter()
                .filter_map(|item| self.string(item, key, &what))
                .collect()
        });
        let required = lists.next().unwrap_or_default();
        let optional = lists.next().unwrap_or_default();
        (required, optional)
    }
}
