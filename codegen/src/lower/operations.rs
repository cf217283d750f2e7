//! The `code_groups:` and `operations:` sections: which codes each
//! operation may raise, read as written. Whether the names resolve (a code
//! of the spec, a declared group) is for `validate`.

use crate::case::Case;
use crate::diagnostic::Diagnostic;
use crate::draft::{DraftFamily, DraftGroup, DraftOperation};
use crate::grammar;
use crate::span::Spanned;
use crate::spec::{FamilyRule, Unraised};
use crate::yaml::{Node, NodeKind, ScalarType};

use super::Lower;
use super::read::wrong_type;

/// How deep lists of codes may nest through aliases (`[*reading, X]`,
/// where `reading` is itself `[*files, Y]`): far more than a spec needs.
const MAX_NESTING: usize = 16;

impl Lower {
    /// `code_groups:`: name to `{ doc, codes }`.
    pub(super) fn code_groups(&mut self, node: &Node) -> Vec<DraftGroup> {
        let Some(entries) = self.named_entries(node, "code_groups", "code group") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "code group name");
            let owner = format!("code group `{}`", name.value);
            let Some(f) = self.object(value, &owner, &grammar::CODE_GROUP, name.loc, &owner) else {
                continue;
            };
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &owner));
            let codes = f
                .get("codes")
                .map(|n| self.code_list(n, "codes", &owner))
                .unwrap_or_default();
            out.push(DraftGroup { name, doc, codes });
        }
        out
    }

    /// `families:`: name to `{ prefix | suffix, category, doc }`, exactly
    /// one non-empty rule each.
    pub(super) fn families(&mut self, node: &Node) -> Vec<DraftFamily> {
        let Some(entries) = self.named_entries(node, "families", "family") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "family name");
            let owner = format!("family `{}`", name.value);
            let Some(f) = self.object(value, &owner, &grammar::FAMILY, name.loc, &owner) else {
                continue;
            };
            let mut rules = Vec::new();
            for key in ["prefix", "suffix"] {
                let Some(n) = f.get(key) else { continue };
                let Some(text) = self.line(n, key, &owner) else {
                    // Unreadable: reported; do not also say it is missing.
                    rules.push(None);
                    continue;
                };
                if text.value.is_empty() {
                    self.push(
                        Diagnostic::new(text.loc, format!("`{key}` of {owner} is empty"))
                            .with_label("matches every code")
                            .with_help(format!(
                                "give the text every wire name of the family {}s with; \
                                 a family of every code is the unlisted code itself",
                                if key == "prefix" { "start" } else { "end" }
                            )),
                    );
                    rules.push(None);
                    continue;
                }
                let rule = match key {
                    "prefix" => FamilyRule::Prefix(text.value),
                    _ => FamilyRule::Suffix(text.value),
                };
                rules.push(Some(Spanned::new(rule, text.loc)));
            }
            if let Some(n) = f.get("range") {
                rules.push(
                    self.range(n, &owner)
                        .map(|r| Spanned::new(FamilyRule::Range(r.value.0, r.value.1), r.loc)),
                );
            }
            let rule = match rules.as_slice() {
                [one] => one.clone(),
                [] => {
                    self.push(
                        Diagnostic::new(name.loc, format!("{owner} has no rule"))
                            .with_label("which codes are of it?")
                            .with_help(
                                "add `prefix:` (the text its codes' wire names start with), \
                                 `suffix:` (the text they end with) or `range: [low, high]` \
                                 (their numbers)",
                            ),
                    );
                    None
                }
                _ => {
                    let at = f
                        .key_loc("range")
                        .or(f.key_loc("suffix"))
                        .unwrap_or(name.loc);
                    self.push(
                        Diagnostic::new(at, format!("{owner} has more than one rule"))
                            .with_label("a second rule")
                            .with_help(
                                "a family has one rule; split it into two families, the \
                                 more specific first",
                            ),
                    );
                    None
                }
            };
            let category = f
                .get("category")
                .and_then(|n| self.line(n, "category", &owner));
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &owner));
            out.push(DraftFamily {
                name,
                rule,
                category,
                doc,
            });
        }
        out
    }

    /// `operations:`: name to `{ doc, wire?, groups?, codes? }`.
    pub(super) fn operations(&mut self, node: &Node) -> Vec<DraftOperation> {
        let Some(entries) = self.named_entries(node, "operations", "operation") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "operation name");
            self.not_keyword(&name, "an operation names generated items");
            let owner = format!("operation `{}`", name.value);
            let Some(f) = self.object(value, &owner, &grammar::OPERATION, name.loc, &owner) else {
                continue;
            };
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &owner));
            let wire = f.get("wire").and_then(|n| self.wire(n, &owner));
            let groups = f
                .get("groups")
                .map(|n| self.code_list(n, "groups", &owner))
                .unwrap_or_default();
            let codes = f
                .get("codes")
                .map(|n| self.code_list(n, "codes", &owner))
                .unwrap_or_default();
            let codes_at = f.key_loc("codes").unwrap_or(name.loc);
            out.push(DraftOperation {
                name,
                wire,
                doc,
                groups,
                codes,
                codes_at,
            });
        }
        out
    }

    /// A list of names (`codes:`, `groups:`); an item that is a list (an
    /// alias of an anchored list) stands for its items.
    fn code_list(&mut self, node: &Node, key: &str, owner: &str) -> Vec<Spanned<String>> {
        let mut out = Vec::new();
        match &node.kind {
            NodeKind::Seq(_) => self.flatten(node, key, owner, 0, &mut out),
            _ if node.scalar_type() == Some(ScalarType::Null) => {}
            _ => self.push(wrong_type(node, key, owner, "a list of names")),
        }
        out
    }

    fn flatten(
        &mut self,
        node: &Node,
        key: &str,
        owner: &str,
        depth: usize,
        out: &mut Vec<Spanned<String>>,
    ) {
        let NodeKind::Seq(items) = &node.kind else {
            if let Some(name) = self.line(node, key, owner) {
                out.push(name);
            }
            return;
        };
        if depth > MAX_NESTING {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!("`{key}` of {owner} nests lists more than {MAX_NESTING} deep"),
                )
                .with_help("write the names, or alias one list of them"),
            );
            return;
        }
        for item in items {
            self.flatten(item, key, owner, depth + 1, out);
        }
    }

    /// `unraised_codes:` of the taxonomy.
    pub(super) fn unraised(&mut self, node: &Node, owner: &str) -> Option<Spanned<Unraised>> {
        let all = Unraised::ALL;
        self.keyword(
            node,
            "unraised_codes",
            owner,
            all,
            Unraised::as_str,
            grammar::UNRAISED,
        )
    }
}
