//! Lowering the spanned YAML tree into a [`Draft`].
//!
//! This is where the *shape* of `errors.yaml` is checked: unknown or
//! duplicate keys, missing keys, wrong types, name casing, semver strings,
//! context field names, causes and ranges. Lowering never stops at a problem:
//! a field that cannot be read is left out of the [`Draft`] (so it causes no
//! follow-up errors) and checking goes on, so one run reports everything.

mod codes;
mod declarations;
mod envelope;
mod operations;
mod read;
mod sections;

use crate::diagnostic::{Diagnostic, list, list_all};
use crate::draft::Draft;
use crate::envelope::Envelope;
use crate::grammar;
use crate::span::{Loc, Spanned};
use crate::yaml::{Node, NodeKind, ScalarType, Style};

use read::{duplicate, missing, name_of, wrong_type};

/// The entries of a mapping by key, first occurrence only; problems already
/// reported.
struct Fields<'n> {
    entries: Vec<(&'static str, &'n Node, &'n Node)>,
}

impl<'n> Fields<'n> {
    fn get(&self, key: &str) -> Option<&'n Node> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, _, v)| *v)
    }

    fn key_loc(&self, key: &str) -> Option<Loc> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, k, _)| k.loc)
    }
}

struct Lower {
    diags: Vec<Diagnostic>,
}

/// Reads `root` into a draft; `diags` (the parser's warnings) gains every
/// problem found. `None` when the document is not a mapping at all.
pub(crate) fn lower(root: &Node, diags: Vec<Diagnostic>) -> (Option<Draft>, Vec<Diagnostic>) {
    let mut lower = Lower { diags };
    let draft = lower.root(root);
    (draft, lower.diags)
}

impl Lower {
    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn root(&mut self, root: &Node) -> Option<Draft> {
        let f = self.object(root, "the spec", &grammar::SPEC, root.loc, "the spec")?;
        let taxonomy = f
            .get("taxonomy")
            .and_then(|n| self.taxonomy(n, f.key_loc("taxonomy").unwrap_or(n.loc)));
        let numbered = taxonomy
            .as_ref()
            .and_then(|t| t.numbered.as_ref())
            .is_none_or(|n| n.value);
        let envelope = match f.get("envelope") {
            None => Some(Envelope::splice_default_for(numbered)),
            Some(n) => self.envelope(n, f.key_loc("envelope").unwrap_or(n.loc)),
        };
        let categories = f
            .get("categories")
            .map(|n| self.categories(n))
            .unwrap_or_default();
        let reported = self.diags.len();
        let types = f.get("types").map(|n| self.types(n)).unwrap_or_default();
        let fields = f
            .get("fields")
            .map(|n| self.declared_fields(n))
            .unwrap_or_default();
        let declarations_broken = self.diags.len() > reported;
        let codes = f
            .get("codes")
            .map(|n| self.codes(n, numbered, &categories))
            .unwrap_or_default();
        let reserved = f
            .get("reserved")
            .map(|n| self.reserved(n))
            .unwrap_or_default();
        let retry = f.get("retry").map(|n| self.retry(n)).unwrap_or_default();
        let attributes = f
            .get("attributes")
            .map(|n| self.attribute_defs(n))
            .unwrap_or_default();
        let groups = f
            .get("code_groups")
            .map(|n| self.code_groups(n))
            .unwrap_or_default();
        let operations = f
            .get("operations")
            .map(|n| self.operations(n))
            .unwrap_or_default();
        let families = f
            .get("families")
            .map(|n| self.families(n))
            .unwrap_or_default();
        Some(Draft {
            families,
            groups,
            operations,
            retry,
            attributes,
            reserved,
            taxonomy,
            envelope,
            categories,
            codes,
            types,
            fields,
            declarations_broken,
        })
    }

    // ---- shapes -------------------------------------------------------

    /// Checks that `node` is a mapping with the keys the grammar gives
    /// `shape` (once each, the required ones present); returns its entries.
    fn object<'n>(
        &mut self,
        node: &'n Node,
        owner: &str,
        shape: &grammar::Object,
        owner_loc: Loc,
        owner_label: &str,
    ) -> Option<Fields<'n>> {
        self.fields(
            node,
            owner,
            &shape.key_names(),
            &shape.required(),
            owner_loc,
            owner_label,
        )
    }

    /// Checks that `node` is a mapping whose keys are in `allowed` (once
    /// each) and include `required`; returns its entries.
    fn fields<'n>(
        &mut self,
        node: &'n Node,
        owner: &str,
        allowed: &[&'static str],
        required: &[&str],
        owner_loc: Loc,
        owner_label: &str,
    ) -> Option<Fields<'n>> {
        let NodeKind::Map(entries) = &node.kind else {
            let expected = if required.is_empty() {
                format!("a mapping with {}", list(allowed))
            } else {
                format!("a mapping with {}", list_all(required))
            };
            let d = match node.scalar_type() {
                Some(ScalarType::Null) => Diagnostic::new(owner_loc, format!("{owner} is empty"))
                    .with_label(format!("{owner_label} has no value"))
                    .with_help(format!("expected {expected}")),
                _ => Diagnostic::new(
                    node.loc,
                    format!("{owner} must be a mapping, found {}", node.describe()),
                )
                .with_help(format!("expected {expected}")),
            };
            self.push(d);
            return None;
        };
        let mut fields = Fields {
            entries: Vec::new(),
        };
        for (k, v) in entries {
            let Some(key) = self.key(k, "key") else {
                continue;
            };
            if let Some((_, first, _)) = fields
                .entries
                .iter()
                .find(|(name, _, _)| *name == key.value)
            {
                self.push(duplicate(
                    &key,
                    first.loc,
                    &format!("key `{}` in {owner}", key.value),
                ));
                continue;
            }
            if !allowed.contains(&key.value.as_str()) {
                let mut d =
                    Diagnostic::new(key.loc, format!("unknown key `{}` in {owner}", key.value))
                        .with_label("unknown key");
                // `{ doc: The limit, in bytes. }`: the comma ended the value
                // and its rest became a key without a value. A single word
                // is taken for the rest of a value when it ends like a
                // sentence (`{ doc: The reason, UPPER_SNAKE_CASE. }`); keys
                // never do.
                let valueless =
                    matches!(&v.kind, NodeKind::Scalar(text, Style::Plain) if text.is_empty());
                let prose = key.value.contains(' ') || key.value.ends_with(['.', '!', '?', ')']);
                if valueless && prose {
                    d = d.with_help(format!(
                        "`{}` looks like the rest of the previous value: inside `{{ ... }}` a comma \
                         ends a value; quote the value (\"...\") that contains the comma",
                        key.value
                    ));
                } else {
                    d = d.suggesting(
                        key.loc,
                        &key.value,
                        allowed.iter().copied(),
                        "expected one of",
                    );
                }
                self.push(d);
                continue;
            }
            let name = allowed
                .iter()
                .find(|a| **a == key.value)
                .copied()
                .unwrap_or_default();
            fields.entries.push((name, k, v));
        }
        for key in required {
            if fields.get(key).is_none() {
                self.push(missing(owner_loc, owner, key));
            }
        }
        Some(fields)
    }

    // ---- scalars ------------------------------------------------------

    fn string(&mut self, node: &Node, key: &str, owner: &str) -> Option<Spanned<String>> {
        match (&node.kind, node.scalar_type()) {
            (NodeKind::Scalar(s, _), Some(ScalarType::Str)) => {
                Some(Spanned::new(s.clone(), node.loc))
            }
            (NodeKind::Scalar(..), Some(ScalarType::Null)) => {
                self.push(
                    Diagnostic::new(node.loc, format!("{} has no value", name_of(key, owner)))
                        .with_help(format!("write a string after `{key}:`"))
                        .with_label("empty"),
                );
                None
            }
            (NodeKind::Scalar(s, _), _) => {
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!(
                            "{} must be a string, found {}",
                            name_of(key, owner),
                            node.describe()
                        ),
                    )
                    .with_help(format!("quote it: `\"{s}\"`")),
                );
                None
            }
            _ => {
                self.push(wrong_type(node, key, owner, "a string"));
                None
            }
        }
    }
}
