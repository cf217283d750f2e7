//! Rules that look at more than one node at a time.
//!
//! [`crate::lower`] checks that each value has the right shape; this module
//! checks that the values agree with each other: numbers are unique and
//! inside their category's range, ranges follow SPEC-003 and do not overlap,
//! templates only name declared parameters, context lists are consistent,
//! lifecycle references point at codes that exist, and versions are not in
//! the future. Every rule runs on whatever could be read, and every failure
//! is reported; nothing stops at the first problem.
//!
//! Fields that could not be read are `None` in the draft and were already
//! reported, so rules skip them rather than pile follow-up errors on top.

mod codes;
mod declarations;
mod envelope;
mod examples;
mod families;
mod numbers;
mod operations;

pub(crate) use operations::unraised;

use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::draft::Draft;
use crate::span::{Loc, Spanned};
use crate::yaml::LineIndex;

/// Runs every cross-cutting rule on `draft`, pushing problems to `diags`.
/// `source` is the spec text, used to point inside strings.
pub(crate) fn check(draft: &Draft, source: &str, diags: &mut Vec<Diagnostic>) {
    let mut v = Validator {
        source,
        lines: LineIndex::new(source),
        diags,
    };
    if let Some(name) = draft.taxonomy.as_ref().and_then(|t| t.name.as_ref()) {
        v.non_empty(
            name,
            "`name` of `taxonomy`",
            "give the taxonomy a human name, e.g. `splice`",
        );
    }
    let range_block = draft.taxonomy.as_ref().and_then(|t| t.range_block.as_ref());
    v.categories(&draft.categories, range_block);
    v.declarations(draft);
    v.generated_names(draft);
    v.field_examples(draft);
    v.numbers(draft);
    for a in &draft.attributes {
        if crate::names::ERROR_CODE_METHODS.contains(&a.name.value.as_str()) {
            v.push(
                Diagnostic::new(
                    a.name.loc,
                    format!("attribute `{}` takes the name of a generated method", a.name.value),
                )
                .with_help(format!(
                    "the Rust `ErrorCode::{}()` already exists, and each attribute becomes a method of that name; rename the attribute",
                    a.name.value
                )),
            );
        }
    }
    for c in &draft.categories {
        if let Some(list) = &c.retry_classes {
            v.retry_class_names(draft, list, &format!("category `{}`", c.key.value));
        }
    }
    v.absent_means(draft);
    v.per_category_names(draft);
    v.envelope(draft);
    v.operations(draft);
    v.families(draft);
    let version = draft.taxonomy.as_ref().and_then(|t| t.version.as_ref());
    for code in &draft.codes {
        let reported = v.diags.len();
        v.code(draft, code, version);
        v.retry(draft, code);
        v.attributes(draft, code);
        // A problem in a value the code took from its category is written
        // at the category: say which code it is a problem for.
        if let Some(category) = &code.inherited.category {
            for d in &mut v.diags[reported..] {
                if code.inherited.covers(d.loc) {
                    d.related.push((
                        code.name.loc,
                        format!(
                            "code `{}` inherits this from category `{}`",
                            code.name.value, category.value
                        ),
                    ));
                }
            }
        }
    }
}

struct Validator<'a> {
    source: &'a str,
    /// Built once: every diagnostic inside a string is located through it.
    lines: LineIndex<'a>,
    diags: &'a mut Vec<Diagnostic>,
}

impl Validator<'_> {
    /// `name`, written at `loc` by `subject`, is an emitted code of the spec:
    /// not removed, not unknown (then a "did you mean", else `otherwise`).
    fn emitted_code(
        &mut self,
        draft: &Draft,
        name: &str,
        loc: Loc,
        subject: &str,
        otherwise: &str,
    ) {
        match draft.codes.iter().find(|c| c.name.value == name) {
            Some(c) if c.removed.is_some() => self.push(
                Diagnostic::new(loc, format!("{subject} names removed code `{name}`"))
                    .with_label("removed")
                    .with_help("a removed code never appears in an envelope; name an emitted code"),
            ),
            Some(_) => {}
            None => {
                let names = draft
                    .codes
                    .iter()
                    .filter(|c| c.removed.is_none())
                    .map(|c| c.name.value.as_str());
                let help = match did_you_mean(name, names) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => otherwise.to_owned(),
                };
                self.push(
                    Diagnostic::new(loc, format!("{subject} names unknown code `{name}`"))
                        .with_label("not a code of this spec")
                        .with_help(help),
                );
            }
        }
    }

    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Where `needle` is written inside the node at `loc`, if it appears
    /// verbatim in the source (it does unless escapes or folding changed
    /// it); otherwise the whole node.
    fn inside(&self, loc: Loc, needle: &str, nth: usize) -> Loc {
        let text = self.source.get(loc.start..loc.end).unwrap_or("");
        match text.match_indices(needle).nth(nth) {
            Some((at, _)) => self
                .lines
                .loc(loc.start + at, loc.start + at + needle.len()),
            None => loc,
        }
    }

    /// Reports `text` if it is blank.
    fn non_empty(&mut self, text: &Spanned<String>, what: &str, help: &str) {
        if text.value.trim().is_empty() {
            self.push(Diagnostic::new(text.loc, format!("{what} is empty")).with_help(help));
        }
    }
}
