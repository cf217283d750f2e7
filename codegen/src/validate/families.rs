//! The rules of `families:`: each family names a category of the spec, the
//! envelope carries the code's name (a family's rule reads it), no family
//! is shadowed whole by an earlier one (it could never match), and a listed
//! code whose name a family's rule matches is in that family's category.
//!
//! A listed code always wins over a family, so the last rule is not about
//! which one a reader picks: a family says "codes named so are of this
//! category", and a listed code of another category named so makes that
//! promise false for the codes a client does know, which is the kind of
//! surprise a client of the family would act on (retry a `Throttling*`
//! code that is not retryable).

use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::draft::Draft;

use super::Validator;

impl Validator<'_> {
    pub(super) fn families(&mut self, draft: &Draft) {
        if draft.families.is_empty() {
            return;
        }
        // A rule reads what tells codes apart on the wire: the name, or,
        // for a range, the number where no member carries the name.
        if let Some(envelope) = &draft.envelope {
            let by_name = envelope.carries("code_name");
            let by_number = !by_name && envelope.carries("number");
            for family in &draft.families {
                let Some(rule) = &family.rule else { continue };
                let (ok, what) = if rule.value.by_number() {
                    (
                        by_number,
                        "a `range` family matches codes by number, but the envelope tells codes apart by name (or carries no number)",
                    )
                } else {
                    (
                        by_name,
                        "a family matches codes by name, but the envelope does not carry the code's name",
                    )
                };
                if ok {
                    continue;
                }
                self.push(
                    Diagnostic::new(rule.loc, what)
                        .with_label("never read")
                        .with_help(if rule.value.by_number() {
                            "use `prefix:` or `suffix:` on the code's name, or list the codes"
                        } else {
                            "families read the member carrying `code_name`; declare one in `envelope:`, \
                             or list the codes"
                        }),
                );
            }
        }
        for (i, family) in draft.families.iter().enumerate() {
            let subject = format!("family `{}`", family.name.value);
            if let Some(category) = &family.category
                && !draft
                    .categories
                    .iter()
                    .any(|c| c.key.value == category.value)
            {
                let keys = draft.categories.iter().map(|c| c.key.value.as_str());
                let mut d = Diagnostic::new(
                    category.loc,
                    format!("{subject} names unknown category `{}`", category.value),
                )
                .with_label("not a category of this spec");
                d = match did_you_mean(&category.value, keys) {
                    Some(c) => d
                        .with_help(format!("did you mean `{c}`?"))
                        .with_suggestion(category.loc, c),
                    None => d.with_help("name a key of `categories:`"),
                };
                self.push(d);
            }
            let Some(rule) = &family.rule else { continue };
            let earlier = draft.families[..i]
                .iter()
                .find(|e| e.rule.as_ref().is_some_and(|r| r.value.covers(&rule.value)));
            if let Some(earlier) = earlier {
                let at = earlier.rule.as_ref().map_or(earlier.name.loc, |r| r.loc);
                self.push(
                    Diagnostic::new(
                        rule.loc,
                        format!(
                            "{subject} can never match: family `{}` comes first and matches every code it would",
                            earlier.name.value
                        ),
                    )
                    .with_label("shadowed")
                    .with_related(
                        at,
                        format!(
                            "`{}` matches every name `{}` matches",
                            earlier.rule.as_ref().map_or(String::new(), |r| r.value.glob()),
                            rule.value.glob()
                        ),
                    )
                    .with_help(format!(
                        "families match in file order, the first match wins: move `{}` above `{}`",
                        family.name.value, earlier.name.value
                    )),
                );
            }
            let type_name = crate::case::Case::UpperCamel.convert(&family.name.value) + "Family";
            if let Some(code) = draft
                .codes
                .iter()
                .find(|c| crate::case::Case::UpperCamel.convert(&c.name.value) == type_name)
            {
                self.push(
                    Diagnostic::new(
                        family.name.loc,
                        format!(
                            "{subject} and code `{}` would generate the same schema variant `{type_name}Envelope`",
                            code.name.value
                        ),
                    )
                    .with_related(code.name.loc, "the code")
                    .with_help("rename the family"),
                );
            }
        }
        // A listed code named (or numbered) as a family's codes are is of
        // its category.
        for code in &draft.codes {
            let Some(category) = &code.category else {
                continue;
            };
            let names = std::iter::once(code.wire.as_ref().unwrap_or(&code.name))
                .chain(code.aliases.iter())
                .map(|n| (n.loc, n.value.clone(), None));
            let number = code
                .number
                .as_ref()
                .map(|n| (n.loc, n.value.to_string(), Some(n.value)));
            for (loc, shown, number) in names.chain(number) {
                let Some(family) = draft.families.iter().find(|f| {
                    f.rule.as_ref().is_some_and(|r| match number {
                        Some(n) => r.value.matches_number(n),
                        None => r.value.matches(&shown),
                    })
                }) else {
                    continue;
                };
                let Some(theirs) = &family.category else {
                    continue;
                };
                if theirs.value == category.value {
                    continue;
                }
                let glob = family
                    .rule
                    .as_ref()
                    .map_or(String::new(), |r| r.value.glob());
                self.push(
                    Diagnostic::new(
                        category.loc,
                        format!(
                            "code `{}` is named as family `{}`'s codes (`{glob}`) but is in category `{}`, not `{}`",
                            code.name.value, family.name.value, category.value, theirs.value
                        ),
                    )
                    .with_label("another category")
                    .with_related(loc, format!("`{shown}` matches `{glob}`"))
                    .with_related(
                        family.rule.as_ref().map_or(family.name.loc, |r| r.loc),
                        format!("its codes are `{}`", theirs.value),
                    )
                    .with_help(format!(
                        "move the code to category `{}`, or narrow family `{}` (or put a family of `{}` before it) so that it does not match `{shown}`",
                        theirs.value, family.name.value, category.value
                    )),
                );
                break;
            }
        }
    }
}
