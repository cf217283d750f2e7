//! The small top-level sections: `taxonomy:`, `categories:` (and their
//! ranges), `reserved:`, `retry:` and `attributes:`.

use crate::case::Case;
use crate::diagnostic::Diagnostic;
use crate::draft::{DraftCategory, DraftTaxonomy};
use crate::grammar;
use crate::span::{Loc, Spanned};
use crate::yaml::{Node, NodeKind, ScalarType};

use super::Lower;
use super::read::wrong_type;

impl Lower {
    /// The `reserved:` section: a mapping of number to why no code may take
    /// it (`0: OK is success, not an error`).
    pub(super) fn reserved(&mut self, node: &Node) -> Vec<crate::spec::Reserved> {
        let owner = "`reserved`";
        let NodeKind::Map(entries) = &node.kind else {
            if node.scalar_type() != Some(ScalarType::Null) {
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!("{owner} must be a mapping, found {}", node.describe()),
                    )
                    .with_help("map each reserved number to why: `reserved: { 0: OK is success, not an error }`"),
                );
            }
            return Vec::new();
        };
        let mut out: Vec<crate::spec::Reserved> = Vec::new();
        for (key, value) in entries {
            let Some(number) = self.number(key, owner) else {
                continue;
            };
            if let Some(first) = out.iter().find(|r| r.number.value == number.value) {
                self.push(
                    Diagnostic::new(
                        number.loc,
                        format!("number {} is reserved twice", number.value),
                    )
                    .with_label("second reservation")
                    .with_related(first.number.loc, "first reservation")
                    .with_help("keep one entry, with one reason"),
                );
                continue;
            }
            let what = format!("reserved number {}", number.value);
            if let Some(reason) = self.line(value, "reason", &what) {
                out.push(crate::spec::Reserved { number, reason });
            }
        }
        out
    }

    /// The `retry:` section: what `retryable` means (`meaning`, one line)
    /// and the named retry classes (`classes`, name to one-line doc).
    pub(super) fn retry(&mut self, node: &Node) -> crate::spec::Retry {
        let owner = "`retry`";
        let Some(f) = self.object(node, owner, &grammar::RETRY, node.loc, owner) else {
            return crate::spec::Retry::default();
        };
        let meaning = f
            .get("meaning")
            .and_then(|n| self.line(n, "meaning", owner));
        let mut classes = Vec::new();
        if let Some(n) = f.get("classes")
            && let Some(entries) = self.named_entries(n, "retry.classes", "retry class")
        {
            for (name, value) in entries {
                self.check_case(&name, Case::LowerSnake, "retry class");
                let what = format!("retry class `{}`", name.value);
                if let Some(doc) = self.line(value, "doc", &what) {
                    classes.push(crate::spec::RetryClass { name, doc });
                }
            }
        }
        crate::spec::Retry { meaning, classes }
    }

    /// The `attributes:` section: per-code typed attributes, name to `{
    /// type, doc, format?, required? }`.
    pub(super) fn attribute_defs(&mut self, node: &Node) -> Vec<crate::spec::AttributeDef> {
        let Some(entries) = self.named_entries(node, "attributes", "attribute") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "attribute name");
            self.not_keyword(&name, "an attribute becomes a Rust field");
            let owner = format!("attribute `{}`", name.value);
            let Some(f) = self.object(value, &owner, &grammar::ATTRIBUTE, name.loc, &owner) else {
                continue;
            };
            let ty = f.get("type").and_then(|n| {
                let s = self.line(n, "type", &owner)?;
                let ty = match s.value.as_str() {
                    "string" => crate::spec::AttributeType::String,
                    "integer" => crate::spec::AttributeType::Integer,
                    "boolean" => crate::spec::AttributeType::Boolean,
                    other => {
                        self.push(
                            Diagnostic::new(s.loc, format!("unknown type `{other}` of {owner}"))
                                .suggesting(
                                    s.loc,
                                    other,
                                    grammar::names(grammar::ATTRIBUTE_TYPES),
                                    "an attribute is one of",
                                ),
                        );
                        return None;
                    }
                };
                Some(Spanned::new(ty, s.loc))
            });
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &owner));
            let format = f.get("format").and_then(|n| self.format(n, &owner));
            if let (Some(fmt), Some(t)) = (&format, &ty)
                && t.value != crate::spec::AttributeType::String
            {
                self.push(
                    Diagnostic::new(fmt.loc, format!("`format` of {owner} needs `type: string`"))
                        .with_help(
                            "a format constrains text; remove it, or make the attribute a string",
                        ),
                );
            }
            let required = f
                .get("required")
                .and_then(|n| self.boolean(n, "required", &owner))
                .is_some_and(|r| r.value);
            if let (Some(ty), Some(doc)) = (ty, doc) {
                out.push(crate::spec::AttributeDef {
                    name,
                    ty,
                    format,
                    doc,
                    required,
                });
            }
        }
        out
    }

    /// A list of retry class names (`retry_classes:` of a category or a
    /// code); names are checked against `retry.classes` by validate.
    pub(super) fn retry_class_list(
        &mut self,
        node: &Node,
        owner: &str,
    ) -> Option<Vec<Spanned<String>>> {
        let NodeKind::Seq(items) = &node.kind else {
            self.push(wrong_type(
                node,
                "retry_classes",
                owner,
                "a list of retry class names",
            ));
            return None;
        };
        Some(
            items
                .iter()
                .filter_map(|i| self.line(i, "retry_classes", owner))
                .collect(),
        )
    }

    pub(super) fn taxonomy(&mut self, node: &Node, key_loc: Loc) -> Option<DraftTaxonomy> {
        let owner = "`taxonomy`";
        let f = self.object(node, owner, &grammar::TAXONOMY, key_loc, "taxonomy")?;
        let name = f.get("name").and_then(|n| self.line(n, "name", owner));
        let version = f
            .get("version")
            .and_then(|n| self.version(n, "version", owner));
        let base_uri = f
            .get("base_uri")
            .and_then(|n| self.line(n, "base_uri", owner));
        if let Some(uri) = &base_uri
            && (uri.value.trim().is_empty()
                || uri.value.chars().any(char::is_whitespace)
                || !uri.value.contains(':'))
        {
            self.push(
                Diagnostic::new(
                    uri.loc,
                    format!("`base_uri` of {owner} is not a URI: `{}`", uri.value),
                )
                .with_help("write an absolute URI without spaces, e.g. `schema://splice`"),
            );
        }
        let description = f
            .get("description")
            .and_then(|n| self.string(n, "description", owner));
        let range_block = f.get("range_block").and_then(|n| match n.scalar_type() {
            Some(ScalarType::Int(v)) if v > 0 && i64::try_from(v).is_ok() => {
                Some(Spanned::new(v as i64, n.loc))
            }
            _ => {
                self.push(
                    wrong_type(n, "range_block", owner, "a positive integer")
                        .with_help("e.g. `range_block: 1000`: each category's range then lies inside one thousand (1000-1999, 2000-2999, ...)"),
                );
                None
            }
        });
        let numbered = f
            .get("numbered")
            .and_then(|n| self.boolean(n, "numbered", owner));
        let unraised_codes = f
            .get("unraised_codes")
            .and_then(|n| self.unraised(n, owner));
        let hints = f.get("hints").and_then(|n| self.hints_rule(n, owner));
        let code_names = f.get("code_names").and_then(|n| self.code_names(n, owner));
        Some(DraftTaxonomy {
            hints,
            code_names,
            unraised_codes,
            name,
            version,
            base_uri,
            description,
            numbered,
            range_block,
        })
    }

    pub(super) fn categories(&mut self, node: &Node) -> Vec<DraftCategory> {
        let Some(entries) = self.named_entries(node, "categories", "category") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in entries {
            self.check_case(&key, Case::LowerSnake, "category key");
            let owner = format!("category `{}`", key.value);
            let Some(f) = self.object(value, &owner, &grammar::CATEGORY, key.loc, &owner) else {
                continue;
            };
            let ranges = f
                .get("range")
                .map_or_else(Vec::new, |n| self.ranges(n, &owner));
            let description = f
                .get("description")
                .and_then(|n| self.string(n, "description", &owner));
            let retryable = f
                .get("retryable")
                .and_then(|n| self.boolean(n, "retryable", &owner));
            let cause = f.get("cause").and_then(|n| self.cause(n, &owner));
            let retry_classes = f
                .get("retry_classes")
                .and_then(|n| self.retry_class_list(n, &owner));
            let defaults = self.category_defaults(&f, &owner);
            out.push(DraftCategory {
                key,
                ranges,
                description,
                retryable,
                cause,
                retry_classes,
                defaults,
            });
        }
        out
    }

    /// `range`: one `[low, high]`, or a list of them (`[[0, 0], [3, 5]]`).
    pub(super) fn ranges(&mut self, node: &Node, owner: &str) -> Vec<Spanned<(i64, i64)>> {
        match &node.kind {
            NodeKind::Seq(items) if items.iter().any(|i| matches!(i.kind, NodeKind::Seq(_))) => {
                items.iter().filter_map(|i| self.range(i, owner)).collect()
            }
            NodeKind::Seq(items) if items.is_empty() => {
                self.push(
                    Diagnostic::new(node.loc, format!("`range` of {owner} is an empty list"))
                        .with_help("write `[low, high]`, a list of them, or drop `range`"),
                );
                Vec::new()
            }
            _ => self.range(node, owner).into_iter().collect(),
        }
    }

    pub(super) fn range(&mut self, node: &Node, owner: &str) -> Option<Spanned<(i64, i64)>> {
        let bad = |node: &Node| {
            Diagnostic::new(
                node.loc,
                format!("`range` of {owner} must be a list of two integers `[low, high]`"),
            )
            .with_help("write the inclusive bounds, e.g. `range: [1000, 1999]`, or several: `range: [[0, 0], [3, 5]]`")
        };
        let NodeKind::Seq(items) = &node.kind else {
            self.push(bad(node));
            return None;
        };
        let ints: Vec<Option<i128>> = items
            .iter()
            .map(|n| match n.scalar_type() {
                Some(ScalarType::Int(v)) => Some(v),
                _ => None,
            })
            .collect();
        // Two integers, but not numbers a code can have: say so, rather
        // than that they are not integers.
        if let [Some(_), Some(_)] = ints.as_slice() {
            let mut out_of_range = false;
            for (n, v) in items.iter().zip(&ints) {
                if let Some(v) = *v
                    && i64::try_from(v).is_err()
                {
                    out_of_range = true;
                    self.push(
                        Diagnostic::new(
                            n.loc,
                            format!("`range` of {owner} has a bound out of range: {v}"),
                        )
                        .with_label("not a code number")
                        .with_help(format!(
                            "code numbers are 64-bit integers, from {} to {}; write the range inside them",
                            i64::MIN,
                            i64::MAX
                        )),
                    );
                }
            }
            if out_of_range {
                return None;
            }
        }
        let bounds: Vec<Option<i64>> = ints
            .iter()
            .map(|v| v.and_then(|v| i64::try_from(v).ok()))
            .collect();
        match bounds.as_slice() {
            [Some(lo), Some(hi)] if lo <= hi => Some(Spanned::new((*lo, *hi), node.loc)),
            [Some(lo), Some(hi)] => {
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!("`range` of {owner} is empty: {lo} is greater than {hi}"),
                    )
                    .with_help(format!("write the low bound first: `[{hi}, {lo}]`")),
                );
                None
            }
            _ => {
                self.push(bad(node));
                None
            }
        }
    }
}
