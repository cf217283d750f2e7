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
        if let Some(envelope) = &draft.envelope
            && !envelope.carries("code_name")
        {
            let first = &draft.families[0];
            self.push(
                Diagnostic::new(
                    first.name.loc,
                    "a family matches codes by name, but the envelope does not carry the code's name",
                )
                .with_label("never read")
                .with_help(
                    "families read the member carrying `code_name`; declare one in `envelope:`, \
                     or list the codes",
                ),
            );
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
        // A listed code named as a family's codes are is of its category.
        for code in &draft.codes {
            let Some(category) = &code.category else {
                continue;
            };
            let names = std::iter::once(code.wire.as_ref().unwrap_or(&code.name))
                .chain(code.aliases.iter());
            for name in names {
                let Some(family) = draft.families.iter().find(|f| {
                    f.rule
                        .as_ref()
                        .is_some_and(|r| r.value.matches(&name.value))
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
                    .with_related(name.loc, format!("`{}` matches `{glob}`", name.value))
                    .with_related(
                        family.rule.as_ref().map_or(family.name.loc, |r| r.loc),
                        format!("its codes are `{}`", theirs.value),
                    )
                    .with_help(format!(
                        "move the code to category `{}`, or narrow family `{}` (or put a family of `{}` before it) so that it does not match `{}`",
                        theirs.value, family.name.value, category.value, name.value
                    )),
                );
                break;
            }
        }
    }
}
