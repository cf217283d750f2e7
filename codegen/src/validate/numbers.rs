//! Categories and numbers: ranges are well formed, inside one block of
//! `range_block` when the taxonomy declares one, and do not overlap; every
//! code's number is unique (removed codes and `reserved:` numbers
//! included) and inside its category's range.

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;
use crate::draft::{Draft, DraftCategory, DraftCode};
use crate::span::{Loc, Spanned};

use super::Validator;

pub(super) fn reused(at: Loc, n: i64, removed: &str, removed_loc: Loc) -> Diagnostic {
    Diagnostic::new(
        at,
        format!("number {n} belongs to removed code `{removed}`; numbers are never reused"),
    )
    .with_label("reuses a removed number")
    .with_related(
        removed_loc,
        format!("`{removed}` was removed but keeps its number"),
    )
    .with_help("pick an unused number inside the category's range")
}

impl Validator<'_> {
    pub(super) fn categories(
        &mut self,
        categories: &[DraftCategory],
        range_block: Option<&Spanned<i64>>,
    ) {
        for (i, cat) in categories.iter().enumerate() {
            if let Some(d) = &cat.description
                && d.value.trim().is_empty()
            {
                self.push(
                    Diagnostic::new(
                        d.loc,
                        format!("`description` of category `{}` is empty", cat.key.value),
                    )
                    .with_help("say in one line which failures belong to this category"),
                );
            }
            for (j, range) in cat.ranges.iter().enumerate() {
                let (lo, hi) = range.value;
                if let Some(block) = range_block
                    && lo.div_euclid(block.value) != hi.div_euclid(block.value)
                {
                    let size = block.value;
                    let start = lo.div_euclid(size) * size;
                    self.push(
                        Diagnostic::new(
                            range.loc,
                            format!(
                                "`range` of category `{}` spans more than one block of {size}: [{lo}, {hi}]",
                                cat.key.value
                            ),
                        )
                        .with_label(format!("crosses a multiple of {size}"))
                        .with_related(block.loc, "`taxonomy.range_block` declares the blocks")
                        .with_help(format!(
                            "each category range lies inside one block of {size} numbers; use e.g. `[{start}, {}]`, \
                             or drop `range_block` if this taxonomy has no such rule",
                            start + size - 1
                        )),
                    );
                }
                let earlier = categories[..i]
                    .iter()
                    .flat_map(|o| o.ranges.iter().map(move |r| (o, r)))
                    .chain(cat.ranges[..j].iter().map(|r| (cat, r)));
                for (other, o) in earlier {
                    let (olo, ohi) = o.value;
                    if lo <= ohi && olo <= hi {
                        let message = if std::ptr::eq(other, cat) {
                            format!(
                                "ranges of category `{}` overlap: [{lo}, {hi}] and [{olo}, {ohi}]",
                                cat.key.value
                            )
                        } else {
                            format!(
                                "`range` of category `{}` overlaps category `{}`: [{lo}, {hi}] and [{olo}, {ohi}]",
                                cat.key.value, other.key.value
                            )
                        };
                        self.push(
                            Diagnostic::new(range.loc, message)
                                .with_label("overlapping range")
                                .with_related(o.loc, format!("range of `{}`", other.key.value))
                                .with_help("every number must belong to exactly one category; make the ranges disjoint"),
                        );
                    }
                }
            }
        }
    }

    /// Unique numbers, removed numbers never reused, and each number inside
    /// its category's range.
    pub(super) fn numbers(&mut self, draft: &Draft) {
        let mut seen: HashMap<i64, &DraftCode> = HashMap::new();
        for code in &draft.codes {
            let Some(number) = &code.number else { continue };
            if let Some(r) = draft
                .reserved
                .iter()
                .find(|r| r.number.value == number.value)
            {
                self.push(
                    Diagnostic::new(
                        number.loc,
                        format!(
                            "number {} of code `{}` is reserved: {}",
                            number.value, code.name.value, r.reason.value
                        ),
                    )
                    .with_label("reserved number")
                    .with_related(r.number.loc, "reserved here")
                    .with_help("pick a number that is neither reserved nor used; reserved numbers are never reused"),
                );
            }
            if let Some(first) = seen.get(&number.value) {
                let first_loc = first.number.as_ref().map_or(first.name.loc, |n| n.loc);
                let n = number.value;
                let d = if first.removed.is_some() {
                    reused(number.loc, n, &first.name.value, first_loc)
                } else if code.removed.is_some() {
                    reused(first_loc, n, &code.name.value, number.loc)
                } else {
                    Diagnostic::new(
                        number.loc,
                        format!(
                            "number {n} of code `{}` is already used by code `{}`",
                            code.name.value, first.name.value
                        ),
                    )
                    .with_label("duplicate number")
                    .with_related(first_loc, format!("used by `{}` here", first.name.value))
                    .with_help("give each code its own number inside its category's range")
                };
                self.push(d);
            } else {
                seen.insert(number.value, code);
            }
            let Some(cat_key) = &code.category else {
                continue;
            };
            let Some(cat) = draft
                .categories
                .iter()
                .find(|c| c.key.value == cat_key.value)
            else {
                continue;
            };
            let holder = |n: i64| {
                draft.categories.iter().find_map(|c| {
                    c.ranges
                        .iter()
                        .find(|r| r.value.0 <= n && n <= r.value.1)
                        .map(|r| (c, r))
                })
            };
            if cat.ranges.is_empty() {
                // A category without a range: its numbers stay out of the
                // ranges of the others.
                if let Some((other, r)) = holder(number.value) {
                    self.push(
                        Diagnostic::new(
                            number.loc,
                            format!(
                                "number {} of code `{}` is inside the range of category `{}`",
                                number.value, code.name.value, other.key.value
                            ),
                        )
                        .with_label("belongs to another category")
                        .with_related(r.loc, format!("range of `{}`", other.key.value))
                        .with_help(format!(
                            "category `{}` has no range, so its codes take numbers outside every range; \
                             pick another number, or change `category` to `{}`",
                            cat.key.value, other.key.value
                        )),
                    );
                }
                continue;
            }
            if cat
                .ranges
                .iter()
                .any(|r| r.value.0 <= number.value && number.value <= r.value.1)
            {
                continue;
            }
            let shown = cat
                .ranges
                .iter()
                .map(|r| format!("[{}, {}]", r.value.0, r.value.1))
                .collect::<Vec<_>>()
                .join(", ");
            let help = match holder(number.value) {
                Some((o, _)) => format!(
                    "pick a number in {shown}, or change `category` to `{}` whose range contains {}",
                    o.key.value, number.value
                ),
                None => format!("pick a number in {shown}"),
            };
            let mut d = Diagnostic::new(
                number.loc,
                format!(
                    "number {} of code `{}` is outside the range of category `{}` {shown}",
                    number.value, code.name.value, cat.key.value
                ),
            )
            .with_label("outside the category's range");
            for r in &cat.ranges {
                d = d.with_related(r.loc, format!("range of `{}`", cat.key.value));
            }
            self.push(d.with_help(help));
        }
    }
}
