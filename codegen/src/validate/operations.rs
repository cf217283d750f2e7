//! The rules of `code_groups:` and `operations:`: every name resolves (a
//! code the spec emits, a declared group), each operation raises each code
//! once, operations differ on the wire and in the names generated for them,
//! and, when the taxonomy says so (`unraised_codes: error`), every emitted
//! code is raised by some operation.

use crate::case::Case;
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::draft::Draft;
use crate::span::Spanned;

use super::Validator;

impl Validator<'_> {
    pub(super) fn operations(&mut self, draft: &Draft) {
        for g in &draft.groups {
            let subject = format!("code group `{}`", g.name.value);
            if g.codes.is_empty() {
                self.push(
                    Diagnostic::new(g.name.loc, format!("{subject} lists no code"))
                        .with_help("list the codes its operations raise, or drop the group"),
                );
            }
            self.code_names(draft, &g.codes, &subject);
        }
        let mut wires: Vec<&Spanned<String>> = Vec::new();
        let mut types: Vec<(String, &Spanned<String>)> = Vec::new();
        for op in &draft.operations {
            let subject = format!("operation `{}`", op.name.value);
            for g in &op.groups {
                if draft.groups.iter().any(|d| d.name.value == g.value) {
                    continue;
                }
                let names = draft.groups.iter().map(|d| d.name.value.as_str());
                let mut d = Diagnostic::new(
                    g.loc,
                    format!("{subject} names unknown code group `{}`", g.value),
                )
                .with_label("not a group of this spec");
                d = match did_you_mean(&g.value, names) {
                    Some(c) => d
                        .with_help(format!("did you mean `{c}`?"))
                        .with_suggestion(g.loc, c),
                    None => d.with_help("declare it under `code_groups:`, or list its codes"),
                };
                self.push(d);
            }
            for (i, g) in op.groups.iter().enumerate() {
                if let Some(first) = op.groups[..i].iter().find(|f| f.value == g.value) {
                    self.push(
                        Diagnostic::new(
                            g.loc,
                            format!("{subject} lists code group `{}` twice", g.value),
                        )
                        .with_label("second time")
                        .with_related(first.loc, "first time")
                        .with_help("list each group once"),
                    );
                }
            }
            self.code_names(draft, &op.codes, &subject);
            // A code listed directly that one of its groups already raises.
            for c in &op.codes {
                let through = op.groups.iter().find_map(|g| {
                    let group = draft.groups.iter().find(|d| d.name.value == g.value)?;
                    group.codes.iter().any(|x| x.value == c.value).then_some(g)
                });
                if let Some(g) = through {
                    self.push(
                        Diagnostic::new(
                            c.loc,
                            format!(
                                "{subject} lists `{}`, which its group `{}` already raises",
                                c.value, g.value
                            ),
                        )
                        .with_label("listed twice")
                        .with_related(g.loc, "raised through this group")
                        .with_help("drop it from `codes:`; the group says it"),
                    );
                }
            }
            let wire = op.wire();
            if let Some(first) = wires.iter().find(|w| w.value == wire.value) {
                self.push(
                    Diagnostic::new(
                        wire.loc,
                        format!(
                            "operations `{}` and this one have the same name on the wire",
                            first.value
                        ),
                    )
                    .with_label(format!("`{}` again", wire.value))
                    .with_related(first.loc, "first operation with this name")
                    .with_help("each operation is one name on the wire; rename one, or merge them"),
                );
            } else {
                wires.push(wire);
            }
            let ty = Case::UpperCamel.convert(&op.name.value) + "Error";
            if let Some((_, first)) = types.iter().find(|(t, _)| *t == ty) {
                self.push(
                    Diagnostic::new(
                        op.name.loc,
                        format!(
                            "operation `{}` gets the generated name `{ty}`, as `{}` does",
                            op.name.value, first.value
                        ),
                    )
                    .with_related(first.loc, "the other operation")
                    .with_help("rename one of the operations"),
                );
            } else {
                types.push((ty.clone(), &op.name));
            }
            if let Some(t) = draft.types.iter().find(|t| t.name.value == ty) {
                self.push(
                    Diagnostic::new(
                        t.name.loc,
                        format!(
                            "type name `{}` is the name generated for the errors of operation `{}`",
                            t.name.value, op.name.value
                        ),
                    )
                    .with_related(op.name.loc, "this operation")
                    .with_help("choose another name for the type, or rename the operation"),
                );
            }
        }
        self.unraised(draft);
    }

    /// Each of `names` (listed by `subject`) is an emitted code, listed once.
    fn code_names(&mut self, draft: &Draft, names: &[Spanned<String>], subject: &str) {
        for (i, c) in names.iter().enumerate() {
            if let Some(first) = names[..i].iter().find(|f| f.value == c.value) {
                self.push(
                    Diagnostic::new(c.loc, format!("{subject} lists `{}` twice", c.value))
                        .with_label("second time")
                        .with_related(first.loc, "first time")
                        .with_help("list each code once"),
                );
                continue;
            }
            let known = draft.codes.iter().any(|d| d.name.value == c.value);
            let before = self.diags.len();
            self.emitted_code(
                draft,
                &c.value,
                c.loc,
                subject,
                "list a code declared under `codes:`",
            );
            // The "did you mean" of an unknown code is also a fix.
            if !known && self.diags.len() > before {
                let names = draft
                    .codes
                    .iter()
                    .filter(|d| d.removed.is_none())
                    .map(|d| d.name.value.as_str());
                if let Some(fix) = did_you_mean(&c.value, names)
                    && let Some(d) = self.diags.last_mut()
                {
                    d.suggestion = Some(crate::diagnostic::Suggestion {
                        loc: c.loc,
                        replacement: fix.to_owned(),
                    });
                }
            }
        }
    }

    /// `unraised_codes: error`: every emitted code is raised by an
    /// operation (when the spec declares any).
    fn unraised(&mut self, draft: &Draft) {
        let strict = draft
            .taxonomy
            .as_ref()
            .and_then(|t| t.unraised_codes.as_ref())
            .is_some_and(|u| u.value == crate::spec::Unraised::Error);
        if !strict || draft.operations.is_empty() {
            return;
        }
        let raised = |name: &str| {
            draft.operations.iter().any(|op| {
                op.codes.iter().any(|c| c.value == name)
                    || op.groups.iter().any(|g| {
                        draft
                            .groups
                            .iter()
                            .find(|d| d.name.value == g.value)
                            .is_some_and(|d| d.codes.iter().any(|c| c.value == name))
                    })
            })
        };
        for code in draft
            .codes
            .iter()
            .filter(|c| c.removed.is_none() && c.deprecated.is_none())
        {
            if !raised(&code.name.value) {
                self.push(unraised(&code.name, true));
            }
        }
    }
}

/// The report of an active code no operation raises: an error under
/// `unraised_codes: error`, else a warning ([`crate::lint`]).
pub(crate) fn unraised(name: &Spanned<String>, error: bool) -> Diagnostic {
    let d = Diagnostic::new(
        name.loc,
        format!("no operation raises code `{}`", name.value),
    )
    .with_label("raised by no operation")
    .with_help(
        "add it to the `codes:` of the operations that raise it (or to one of their \
         `code_groups:`), or deprecate it if nothing sends it any more",
    );
    if error { d } else { d.warning() }
}
