//! Categories and numbers: ranges are well formed, inside one block of
//! `range_block` when the taxonomy declares one, and do not overlap; every
//! code's number is unique (removed codes and `reserved:` numbers
//! included) and inside its category's range.

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;
use crate::draft::{Draft, DraftCategory, DraftCode};
use crate::envelope::{Carries, Member};
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
    /// its category's range; in a taxonomy that is not numbered, nothing
    /// holds a number.
    pub(super) fn numbers(&mut self, draft: &Draft) {
        if let Some(numbered) = draft.taxonomy.as_ref().and_then(|t| t.numbered.as_ref())
            && !numbered.value
        {
            self.unnumbered(draft, numbered.loc);
            return;
        }
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
                    .with_suggestion_opt(number.loc, next_free(draft, code))
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
            self.push(
                d.with_help(help)
                    .with_suggestion_opt(number.loc, next_free(draft, code)),
            );
        }
    }
}

impl Validator<'_> {
    /// `numbered: false` (at `at`): no code has a `number`, no category a
    /// `range`, no number is `reserved`, there is no `range_block`, and no
    /// envelope member carries `number`. Each is reported where it is
    /// written, with what to do.
    fn unnumbered(&mut self, draft: &Draft, at: Loc) {
        let refuse = |loc: Loc, what: String, help: &str| {
            Diagnostic::new(
                loc,
                format!("{what}, but the taxonomy's codes are not numbered"),
            )
            .with_related(at, "`numbered: false` here")
            .with_help(help.to_owned())
        };
        let mut found = Vec::new();
        if let Some(block) = draft.taxonomy.as_ref().and_then(|t| t.range_block.as_ref()) {
            found.push(refuse(
                block.loc,
                "`taxonomy` has a `range_block`".into(),
                "drop `range_block`: it constrains category ranges of numbers",
            ));
        }
        for cat in &draft.categories {
            for range in &cat.ranges {
                found.push(refuse(
                    range.loc,
                    format!("category `{}` has a `range`", cat.key.value),
                    "drop `range`: without numbers a category is a key and its defaults; \
                     or drop `numbered: false` and number every code",
                ));
            }
        }
        for code in &draft.codes {
            if let Some(number) = &code.number {
                found.push(refuse(
                    number.loc,
                    format!("code `{}` has a `number`", code.name.value),
                    "drop `number`: codes of this taxonomy are told apart by name; \
                     or drop `numbered: false` and number every code",
                ));
            }
        }
        for r in &draft.reserved {
            found.push(refuse(
                r.number.loc,
                format!("number {} is `reserved`", r.number.value),
                "drop the `reserved:` section: without numbers there is nothing to reserve \
                 (a removed code keeps its name)",
            ));
        }
        if let Some(envelope) = &draft.envelope {
            number_members(&envelope.members, &mut |m| {
                found.push(refuse(
                    m.name.loc,
                    format!("envelope member `{}` carries `number`", m.name.value),
                    "drop the member, or give it `carries: constant` with a `value`; \
                     a reader tells the codes apart by the member carrying `code_name`",
                ));
            });
        }
        for d in found {
            self.push(d);
        }
    }
}

/// Calls `f` on each member (nested ones too) carrying `number`.
fn number_members<'m>(members: &'m [Member], f: &mut impl FnMut(&'m Member)) {
    for m in members {
        match &m.carries {
            Carries::Number => f(m),
            Carries::Object(inner) => number_members(inner, f),
            _ => {}
        }
    }
}

/// The number a code of `code`'s category would take next: the first
/// number after the highest one the category's codes use, inside its
/// ranges, taken by no code (removed ones included) and not reserved; else
/// the first such number anywhere in its ranges. `None` when the category
/// has no range or no free number.
fn next_free(draft: &Draft, code: &DraftCode) -> Option<String> {
    let key = &code.category.as_ref()?.value;
    let cat = draft.categories.iter().find(|c| &c.key.value == key)?;
    let taken = |n: i64| {
        draft
            .codes
            .iter()
            .any(|c| c.number.as_ref().is_some_and(|m| m.value == n))
            || draft.reserved.iter().any(|r| r.number.value == n)
    };
    let inside = |n: i64| cat.ranges.iter().any(|r| r.value.0 <= n && n <= r.value.1);
    let highest = draft
        .codes
        .iter()
        .filter(|c| !std::ptr::eq(*c, code) && c.category.as_ref().is_some_and(|k| &k.value == key))
        .filter_map(|c| c.number.as_ref().map(|n| n.value))
        .filter(|&n| inside(n))
        .max();
    // Ranges are bounded by the checks on them, but a scan stops early
    // all the same: a spec holds far fewer codes than this.
    const SCAN: i64 = 100_000;
    let after = highest.and_then(|h| {
        (h.saturating_add(1)..h.saturating_add(SCAN))
            .take_while(|&n| cat.ranges.iter().any(|r| n <= r.value.1))
            .find(|&n| inside(n) && !taken(n))
    });
    after
        .or_else(|| {
            cat.ranges.iter().find_map(|r| {
                (r.value.0..=r.value.1.min(r.value.0.saturating_add(SCAN))).find(|&n| !taken(n))
            })
        })
        .map(|n| n.to_string())
}
