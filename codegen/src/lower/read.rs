//! Reading one value: a mapping's entries (unknown and duplicate keys
//! reported, missing ones too), names in their casing, one-line strings,
//! booleans, numbers, semver versions and the small enumerations of the
//! format, each with the diagnostic for a value of the wrong kind.

use std::collections::HashMap;

use crate::case::Case;
use crate::diagnostic::Diagnostic;
use crate::grammar;
use crate::span::{Loc, Spanned};
use crate::spec::{Cause, SentAs};
use crate::yaml::{Node, NodeKind, ScalarType, Style};

use super::Lower;

/// Rust keywords (strict and reserved, 2024 edition): a parameter becomes a
/// constructor argument, so it cannot be named like one.
pub(super) const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "abstract", "become", "box", "do", "final", "macro", "override",
    "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// "`number` of code `X`", or just "`version`" at the top.
pub(super) fn name_of(key: &str, owner: &str) -> String {
    if owner.is_empty() {
        format!("`{key}`")
    } else {
        format!("`{key}` of {owner}")
    }
}

pub(super) fn wrong_type(node: &Node, key: &str, owner: &str, expected: &str) -> Diagnostic {
    let d = Diagnostic::new(
        node.loc,
        format!(
            "{} must be {expected}, found {}",
            name_of(key, owner),
            node.describe()
        ),
    );
    match &node.kind {
        NodeKind::Scalar(_, Style::Quoted)
            if expected == "an integer" || expected.starts_with("`true`") =>
        {
            d.with_help("remove the quotes")
        }
        NodeKind::Scalar(s, _) if expected.starts_with("a list") && !s.is_empty() => {
            d.with_help(format!("write a list, even of one item: `[{s}]`"))
        }
        _ => d,
    }
}

pub(super) fn missing(owner_loc: Loc, owner: &str, key: &str) -> Diagnostic {
    let what = match key {
        "number" => "its numeric id, inside the category's range",
        "category" => "the key of its category",
        "since" => "the taxonomy version that introduced it, e.g. `1.0.0`",
        "title" => "a one-line summary, lowercase, no final period",
        "message" => {
            "the message template, with `{param}` placeholders, or give its category a default `message`"
        }
        "explanation" => "a Markdown explanation: what happened, an example, how to fix",
        "range" => "its inclusive numeric range, e.g. `[1000, 1999]`",
        "retryable" => "whether the caller can fix its call and retry (`true`/`false`)",
        "cause" => "who is to blame by default: `input`, `environment` or `server`",
        "version" => "the semver version of the taxonomy, e.g. `1.0.0`",
        "base_uri" => "the base URI of the published schema, e.g. `schema://splice`",
        "reason" => "why the code was removed",
        "type" => "`string` or `integer`",
        "taxonomy" => "`name`, `version` and `base_uri`",
        "categories" => "a mapping of category keys to their range and defaults",
        "codes" => "a mapping of code names to their definitions",
        "name" => "a human name",
        "description" => "a one-line description",
        _ => "a value",
    };
    Diagnostic::new(owner_loc, format!("{owner} is missing `{key}`"))
        .with_label(format!("`{key}` is required here"))
        .with_help(format!("add `{key}:` with {what}"))
}

pub(super) fn duplicate(key: &Spanned<String>, first: Loc, what: &str) -> Diagnostic {
    Diagnostic::new(key.loc, format!("duplicate {what}"))
        .with_label("second definition")
        .with_related(first, "first defined here")
        .with_help("remove one of them")
}

impl Lower {
    pub(super) fn not_keyword(&mut self, name: &Spanned<String>, why: &str) {
        if RUST_KEYWORDS.contains(&name.value.as_str()) {
            self.push(
                Diagnostic::new(name.loc, format!("name `{}` is a Rust keyword", name.value))
                    .with_help(format!("{why}; choose another name")),
            );
        }
    }

    /// The entries of a mapping of names to values (`example:`,
    /// `constants:`); a key written twice is reported and dropped.
    pub(super) fn entries(
        &mut self,
        node: &Node,
        key: &str,
        owner: &str,
        expected: &str,
    ) -> Vec<(Spanned<String>, Node)> {
        let section = key;
        let NodeKind::Map(entries) = &node.kind else {
            self.push(wrong_type(node, key, owner, expected));
            return Vec::new();
        };
        let mut out: Vec<(Spanned<String>, Node)> = Vec::new();
        for (k, v) in entries {
            let Some(key) = self.key(k, &format!("{section} key")) else {
                continue;
            };
            if let Some((first, _)) = out.iter().find(|(name, _)| name.value == key.value) {
                self.push(duplicate(
                    &key,
                    first.loc,
                    &format!("key `{}` in `{section}` of {owner}", key.value),
                ));
                continue;
            }
            out.push((key, v.clone()));
        }
        out
    }

    /// The entries of a map keyed by user-chosen names (categories, codes),
    /// duplicates reported and dropped.
    pub(super) fn named_entries<'n>(
        &mut self,
        node: &'n Node,
        key: &str,
        what: &str,
    ) -> Option<Vec<(Spanned<String>, &'n Node)>> {
        let NodeKind::Map(entries) = &node.kind else {
            if node.scalar_type() == Some(ScalarType::Null) {
                return Some(Vec::new());
            }
            self.push(wrong_type(
                node,
                key,
                "the spec",
                &format!("a mapping keyed by {what} name"),
            ));
            return None;
        };
        let mut out: Vec<(Spanned<String>, &Node)> = Vec::new();
        let mut seen: HashMap<&str, Loc> = HashMap::new();
        for (k, v) in entries {
            let Some(name) = self.key(k, &format!("{what} name")) else {
                continue;
            };
            if let Some(&first) = seen.get(k.as_scalar().unwrap_or_default()) {
                self.push(
                    Diagnostic::new(
                        name.loc,
                        format!("{what} `{}` is defined twice", name.value),
                    )
                    .with_label("second definition")
                    .with_related(first, "first defined here")
                    .with_help(format!(
                        "give each {what} a unique name, or merge the two entries"
                    )),
                );
                continue;
            }
            seen.insert(k.as_scalar().unwrap_or_default(), name.loc);
            out.push((name, v));
        }
        Some(out)
    }

    /// A mapping key: any one-line scalar's text (a key is a name, and
    /// names reach comments and identifiers).
    pub(super) fn key(&mut self, node: &Node, what: &str) -> Option<Spanned<String>> {
        match &node.kind {
            NodeKind::Scalar(s, _) if s.contains('\n') => {
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!("{what} `{}` spans lines", s.escape_debug()),
                    )
                    .with_help("a name is one line: remove the line break"),
                );
                None
            }
            NodeKind::Scalar(s, _) => Some(Spanned::new(s.clone(), node.loc)),
            _ => {
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!("{what} must be a plain string, found {}", node.describe()),
                    )
                    .with_help("complex YAML keys are not supported"),
                );
                None
            }
        }
    }

    pub(super) fn check_case(&mut self, name: &Spanned<String>, case: Case, what: &str) {
        if case.matches(&name.value) {
            return;
        }
        let fixed = case.convert(&name.value);
        let help = if case.matches(&fixed) {
            format!("rename it to `{fixed}`")
        } else {
            format!("use {}, e.g. `{}`", case.describe(), case.example())
        };
        self.push(
            Diagnostic::new(
                name.loc,
                format!("{what} `{}` is not {}", name.value, case.describe()),
            )
            .with_help(help),
        );
    }

    /// A one-line string: a trailing newline (from a block scalar) is
    /// dropped; an embedded newline is an error.
    pub(super) fn line(&mut self, node: &Node, key: &str, owner: &str) -> Option<Spanned<String>> {
        let mut s = self.string(node, key, owner)?;
        let trimmed = s.value.trim_end_matches('\n').len();
        s.value.truncate(trimmed);
        if s.value.contains('\n') {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!("{} must be a single line", name_of(key, owner)),
                )
                .with_help("use a folded block (`>-`) or join the lines"),
            );
            return None;
        }
        Some(s)
    }

    /// `format:`, one of [`crate::context::FORMATS`].
    pub(super) fn format(&mut self, node: &Node, owner: &str) -> Option<Spanned<String>> {
        let s = self.line(node, "format", owner)?;
        if crate::context::FORMATS.contains(&s.value.as_str()) {
            return Some(s);
        }
        self.push(
            Diagnostic::new(node.loc, format!("unknown format `{}` of {owner}", s.value))
                .suggesting(
                    s.loc,
                    &s.value,
                    grammar::names(grammar::FORMATS),
                    "the formats are",
                ),
        );
        None
    }

    /// `wire:`, a name on the wire: any one-line string but an empty one.
    pub(super) fn wire(&mut self, node: &Node, owner: &str) -> Option<Spanned<String>> {
        let s = self.line(node, "wire", owner)?;
        if s.value.is_empty() {
            self.push(
                Diagnostic::new(node.loc, format!("`wire` of {owner} is empty")).with_help(
                    "write the name used on the wire, or drop `wire` to use the identifier",
                ),
            );
            return None;
        }
        Some(s)
    }

    /// `wire:` of a code: any one-line string, the empty one included
    /// (Kubernetes' `metav1.Status` says `"reason": ""` for
    /// `StatusReasonUnknown`).
    pub(super) fn code_wire(&mut self, node: &Node, owner: &str) -> Option<Spanned<String>> {
        if node.scalar_type() == Some(ScalarType::Null) {
            self.push(
                Diagnostic::new(node.loc, format!("`wire` of {owner} has no value"))
                    .with_label("empty")
                    .with_help(
                        "write the name used on the wire (`wire: \"\"` for the empty name), \
                         or drop `wire` to use the code's name",
                    ),
            );
            return None;
        }
        self.line(node, "wire", owner)
    }

    /// Item `index` (from 0) of `aliases:` of a code: one more name on the
    /// wire for it, any one-line string, the empty one included.
    pub(super) fn alias(
        &mut self,
        node: &Node,
        index: usize,
        owner: &str,
    ) -> Option<Spanned<String>> {
        let what = format!("alias {} of {owner}", index + 1);
        let problem = match (&node.kind, node.scalar_type()) {
            (NodeKind::Scalar(s, _), Some(ScalarType::Str)) if !s.contains('\n') => {
                return Some(Spanned::new(s.clone(), node.loc));
            }
            (NodeKind::Scalar(..), Some(ScalarType::Str)) => {
                Diagnostic::new(node.loc, format!("{what} must be a single line"))
                    .with_help("an alias is one name on the wire; write it on one line")
            }
            (NodeKind::Scalar(..), Some(ScalarType::Null)) => {
                Diagnostic::new(node.loc, format!("{what} has no value"))
                    .with_label("empty")
                    .with_help(
                        "write the name on the wire this alias stands for (`\"\"` for the empty \
                         name), or drop the item",
                    )
            }
            (NodeKind::Scalar(s, _), _) => Diagnostic::new(
                node.loc,
                format!("{what} must be a string, found {}", node.describe()),
            )
            .with_help(format!("quote it: `\"{s}\"`")),
            _ => Diagnostic::new(
                node.loc,
                format!("{what} must be a string, found {}", node.describe()),
            )
            .with_help(
                "an alias is a name on the wire, written as a string: `aliases: [OLD_NAME, \"\"]`",
            ),
        };
        self.push(problem);
        None
    }

    pub(super) fn boolean(&mut self, node: &Node, key: &str, owner: &str) -> Option<Spanned<bool>> {
        match node.scalar_type() {
            Some(ScalarType::Bool(b)) => Some(Spanned::new(b, node.loc)),
            _ => {
                self.push(wrong_type(node, key, owner, "`true` or `false`"));
                None
            }
        }
    }

    pub(super) fn number(&mut self, node: &Node, owner: &str) -> Option<Spanned<i64>> {
        match node.scalar_type() {
            Some(ScalarType::Int(n)) => match i64::try_from(n) {
                Ok(n) => Some(Spanned::new(n, node.loc)),
                Err(_) => {
                    self.push(
                        Diagnostic::new(node.loc, format!("`number` of {owner} is out of range: {n}"))
                            .with_help("numbers are 64-bit integers (negative ones too, e.g. JSON-RPC's `-32700`) inside the category's range"),
                    );
                    None
                }
            },
            _ => {
                self.push(wrong_type(node, "number", owner, "an integer"));
                None
            }
        }
    }

    pub(super) fn version(
        &mut self,
        node: &Node,
        key: &str,
        owner: &str,
    ) -> Option<Spanned<semver::Version>> {
        if matches!(
            node.scalar_type(),
            Some(ScalarType::Float | ScalarType::Int(_))
        ) {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!(
                        "{} must be a semver version, found {}",
                        name_of(key, owner),
                        node.describe()
                    ),
                )
                .with_help("write all three parts, MAJOR.MINOR.PATCH, e.g. `1.0.0`"),
            );
            return None;
        }
        let s = self.string(node, key, owner)?;
        match semver::Version::parse(s.value.trim()) {
            Ok(v) => Some(Spanned::new(v, s.loc)),
            Err(e) => {
                self.push(
                    Diagnostic::new(
                        s.loc,
                        format!("{} is not a semver version: {e}", name_of(key, owner)),
                    )
                    .with_label(format!("`{}`", s.value))
                    .with_help("write it as MAJOR.MINOR.PATCH, e.g. `1.0.0`"),
                );
                None
            }
        }
    }

    pub(super) fn cause(&mut self, node: &Node, owner: &str) -> Option<Spanned<Cause>> {
        self.keyword(
            node,
            "cause",
            owner,
            &Cause::ALL,
            Cause::as_str,
            grammar::CAUSES,
        )
    }

    pub(super) fn sent_as(&mut self, node: &Node, owner: &str) -> Option<Spanned<SentAs>> {
        self.keyword(
            node,
            "sent_as",
            owner,
            SentAs::ALL,
            SentAs::as_str,
            grammar::SENT_AS,
        )
    }

    /// The value of `key`, a keyword: one of `all`, written as `as_str`
    /// spells it. Another string is "unknown `key`", suggesting the
    /// grammar's `choices`.
    pub(super) fn keyword<T: Copy>(
        &mut self,
        node: &Node,
        key: &str,
        owner: &str,
        all: &[T],
        as_str: fn(T) -> &'static str,
        choices: &'static [grammar::Choice],
    ) -> Option<Spanned<T>> {
        let s = self.string(node, key, owner)?;
        match all.iter().find(|v| as_str(**v) == s.value) {
            Some(v) => Some(Spanned::new(*v, s.loc)),
            None => {
                self.push(
                    Diagnostic::new(s.loc, format!("unknown {key} `{}` in {owner}", s.value))
                        .suggesting(s.loc, &s.value, grammar::names(choices), "expected"),
                );
                None
            }
        }
    }
}
