//! One code at a time: its texts, its context lists, the placeholders of
//! its templates, the conditions of its hints, its lifecycle, its retry
//! classes and attributes; and the code named by `absent_means`.

use crate::context::FieldType;
use crate::diagnostic::{Diagnostic, did_you_mean, list, suggest};
use crate::draft::{Draft, DraftCode};
use crate::envelope::AbsentMeans;
use crate::span::Spanned;
use crate::template::{Template, TemplateError};
use crate::yaml::ScalarType;

use super::Validator;
use super::declarations::describe_type;

impl Validator<'_> {
    /// Each name of a `retry_classes:` list is declared under
    /// `retry.classes`, once.
    pub(super) fn retry_class_names(
        &mut self,
        draft: &Draft,
        list: &[Spanned<String>],
        owner: &str,
    ) {
        let declared: Vec<&str> = draft
            .retry
            .classes
            .iter()
            .map(|c| c.name.value.as_str())
            .collect();
        for (i, name) in list.iter().enumerate() {
            if let Some(first) = list[..i].iter().find(|n| n.value == name.value) {
                self.push(
                    Diagnostic::new(
                        name.loc,
                        format!("retry class `{}` is listed twice in {owner}", name.value),
                    )
                    .with_related(first.loc, "first listed here")
                    .with_help("list each class once"),
                );
            } else if !declared.contains(&name.value.as_str()) {
                let close = did_you_mean(&name.value, declared.iter().copied());
                let help = if declared.is_empty() {
                    "declare it first: `retry: { classes: { throttling: Retried after a backoff. } }`"
                        .to_string()
                } else {
                    suggest(&name.value, &declared, "the declared retry classes are")
                };
                self.push(
                    Diagnostic::new(
                        name.loc,
                        format!("unknown retry class `{}` in {owner}", name.value),
                    )
                    .with_label("not declared under `retry.classes`")
                    .with_help(help)
                    .with_suggestion_opt(name.loc, close),
                );
            }
        }
    }

    /// A code's own retry classes are declared, and a code in any retry
    /// class (its own or its category's) is retryable.
    pub(super) fn retry(&mut self, draft: &Draft, code: &DraftCode) {
        let owner = format!("code `{}`", code.name.value);
        if let Some(list) = &code.retry_classes {
            self.retry_class_names(draft, list, &owner);
        }
        let category = code
            .category
            .as_ref()
            .and_then(|k| draft.categories.iter().find(|c| c.key.value == k.value));
        let classes = code
            .retry_classes
            .as_ref()
            .or_else(|| category.and_then(|c| c.retry_classes.as_ref()));
        let retryable = code
            .retryable
            .as_ref()
            .or_else(|| category.and_then(|c| c.retryable.as_ref()));
        if let (Some(classes), Some(r)) = (classes, retryable)
            && let Some(first) = classes.first()
            && !r.value
            && code.removed.is_none()
        {
            self.push(
                Diagnostic::new(
                    first.loc,
                    format!(
                        "{owner} is in retry class `{}` but is not retryable",
                        first.value
                    ),
                )
                .with_related(r.loc, "`retryable: false` here")
                .with_help(
                    "a retry class says how the code is retried: make the code `retryable: true`, \
                     or give it `retry_classes: []`",
                ),
            );
        }
    }

    /// A code's `attributes:` name declared attributes with values of their
    /// types, and it gives every `required: true` attribute.
    pub(super) fn attributes(&mut self, draft: &Draft, code: &DraftCode) {
        use crate::spec::AttributeType;
        let owner = format!("code `{}`", code.name.value);
        let names: Vec<&str> = draft
            .attributes
            .iter()
            .map(|a| a.name.value.as_str())
            .collect();
        for (key, node) in &code.attributes {
            let Some(def) = draft.attributes.iter().find(|a| a.name.value == key.value) else {
                let close = did_you_mean(&key.value, names.iter().copied());
                let help = if names.is_empty() {
                    "declare it first under the top-level `attributes:` section".to_string()
                } else {
                    suggest(&key.value, &names, "the declared attributes are")
                };
                self.push(
                    Diagnostic::new(
                        key.loc,
                        format!("unknown attribute `{}` in {owner}", key.value),
                    )
                    .with_label("not declared under `attributes`")
                    .with_help(help)
                    .with_suggestion_opt(key.loc, close),
                );
                continue;
            };
            let ok = match (def.ty.value, node.scalar_type()) {
                (AttributeType::String, Some(ScalarType::Str)) => {
                    let text = node.as_scalar().unwrap_or_default();
                    if def.format.as_ref().is_some_and(|f| f.value == "uri")
                        && (!text.contains(':') || text.contains(char::is_whitespace))
                    {
                        self.push(
                            Diagnostic::new(
                                node.loc,
                                format!(
                                    "attribute `{}` of {owner} is not a URI: `{text}`",
                                    key.value
                                ),
                            )
                            .with_help(
                                "write an absolute URI, e.g. `https://example.com/errors/not-found`",
                            ),
                        );
                    }
                    true
                }
                (AttributeType::Integer, Some(ScalarType::Int(n))) => i64::try_from(n).is_ok(),
                (AttributeType::Boolean, Some(ScalarType::Bool(_))) => true,
                _ => false,
            };
            if !ok {
                let expected = match def.ty.value {
                    AttributeType::String => "a string",
                    AttributeType::Integer => "an integer",
                    AttributeType::Boolean => "`true` or `false`",
                };
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!(
                            "attribute `{}` of {owner} must be {expected}, found {}",
                            key.value,
                            node.describe()
                        ),
                    )
                    .with_related(def.ty.loc, "declared type"),
                );
            }
        }
        if code.removed.is_some() {
            return;
        }
        for def in draft.attributes.iter().filter(|a| a.required) {
            if !code
                .attributes
                .iter()
                .any(|(k, _)| k.value == def.name.value)
            {
                self.push(
                    Diagnostic::new(
                        code.name.loc,
                        format!("{owner} has no attribute `{}`", def.name.value),
                    )
                    .with_related(def.name.loc, "declared `required: true` here")
                    .with_help(format!(
                        "add `attributes: {{ {}: ... }}` to the code",
                        def.name.value
                    )),
                );
            }
        }
    }

    /// `absent_means:` names emitted codes; its mapping form is keyed by
    /// categories, each naming a code of that category, and the envelope
    /// carries the category in every envelope (a reader of an envelope
    /// without the code member reads the category to know the code).
    pub(super) fn absent_means(&mut self, draft: &Draft) {
        let Some(envelope) = draft.envelope.as_ref() else {
            return;
        };
        let Some(absent) = envelope.absent_means() else {
            return;
        };
        for code in absent.codes() {
            self.emitted_code(
                draft,
                &code.value,
                code.loc,
                "`absent_means` of the member carrying `code_name`",
                "name a code of this spec by its identifier (not its wire name)",
            );
        }
        let AbsentMeans::ByCategory { entries, loc } = absent else {
            return;
        };
        self.category_everywhere(
            envelope,
            *loc,
            "`absent_means` maps categories to codes",
            "per category",
            "a reader tells an envelope's category by the member carrying `category`: \
             add one (`type: { carries: category }`), or name one code \
             (`absent_means: CODE`)",
            "but `absent_means` is per category",
            "a reader of an envelope without the code member reads its category: \
             remove `optional`, or name one code (`absent_means: CODE`)",
        );
        for (key, code) in entries {
            if !draft.categories.iter().any(|c| c.key.value == key.value) {
                let keys: Vec<&str> = draft
                    .categories
                    .iter()
                    .map(|c| c.key.value.as_str())
                    .collect();
                let help = match did_you_mean(&key.value, keys.iter().copied()) {
                    Some(k) => format!("did you mean `{k}`?"),
                    None => format!("the categories are {}", list(&keys)),
                };
                self.push(
                    Diagnostic::new(
                        key.loc,
                        format!("unknown category `{}` in `absent_means`", key.value),
                    )
                    .with_label("not a category of this spec")
                    .with_help(help),
                );
                continue;
            }
            let Some(c) = draft
                .codes
                .iter()
                .find(|c| c.name.value == code.value && c.removed.is_none())
            else {
                continue;
            };
            let Some(category) = &c.category else {
                continue;
            };
            if category.value != key.value {
                self.push(
                    Diagnostic::new(
                        code.loc,
                        format!(
                            "`absent_means` lists code `{}` under category `{}`, but its category is `{}`",
                            code.value, key.value, category.value
                        ),
                    )
                    .with_label(format!("in `{}`", category.value))
                    .with_related(category.loc, "its category")
                    .with_help(format!(
                        "an envelope of category `{}` without the code member is a code of that \
                         category: name one, or list `{}` under `{}`",
                        key.value, code.value, category.value
                    )),
                );
            }
        }
    }

    /// A member carries `category` in every envelope: it is not optional,
    /// nor inside an optional object. `what` (at `loc`, labelled `label`)
    /// is the rule that needs it; `missing` and `optional` are the help
    /// lines, `because` ends the message about an optional member.
    #[allow(clippy::too_many_arguments)]
    fn category_everywhere(
        &mut self,
        envelope: &crate::envelope::Envelope,
        loc: crate::span::Loc,
        what: &str,
        label: &str,
        missing: &str,
        because: &str,
        optional: &str,
    ) {
        match envelope.path_of("category") {
            None => self.push(
                Diagnostic::new(
                    loc,
                    format!("{what}, but no envelope member carries `category`"),
                )
                .with_label(label.to_owned())
                .with_help(missing.to_owned()),
            ),
            Some(names) => {
                let path = crate::envelope::members_along(&envelope.members, &names);
                for m in path.iter().filter(|m| !m.required) {
                    let which = if path.last().is_some_and(|l| std::ptr::eq(*l, *m)) {
                        format!("envelope member `{}` carries `category`", m.name.value)
                    } else {
                        format!(
                            "envelope member `{}` holds the member carrying `category`",
                            m.name.value
                        )
                    };
                    self.push(
                        Diagnostic::new(m.name.loc, format!("{which} and is optional, {because}"))
                            .with_label("optional here")
                            .with_related(loc, label.to_owned())
                            .with_help(optional.to_owned()),
                    );
                }
            }
        }
    }

    /// `code_names: per_category` tells codes by (category, name): the
    /// envelope carries the code's name (not only its number) and its
    /// category in every envelope, and no family is declared (a family
    /// matches a name alone).
    pub(super) fn per_category_names(&mut self, draft: &Draft) {
        let Some(rule) = draft
            .taxonomy
            .as_ref()
            .and_then(|t| t.code_names.as_ref())
            .filter(|r| r.value == crate::spec::CodeNames::PerCategory)
        else {
            return;
        };
        let Some(envelope) = draft.envelope.as_ref() else {
            return;
        };
        if !envelope.carries("code_name") {
            self.push(
                Diagnostic::new(
                    rule.loc,
                    "`code_names: per_category` needs the code's name on the wire, but no envelope member carries `code_name`",
                )
                .with_label("names per category")
                .with_help(
                    "a reader tells a code by its category and name: add a member \
                     `{ carries: code_name }`, or drop `code_names`",
                ),
            );
        }
        self.category_everywhere(
            envelope,
            rule.loc,
            "`code_names: per_category` tells codes by (category, name)",
            "names per category",
            "a reader tells a code by its category and name: add a member \
             (`type: { carries: category }`), or drop `code_names`",
            "but `code_names` is `per_category`",
            "a reader reads the category of every envelope to know its code: \
             remove `optional`, or drop `code_names`",
        );
        // A value of type `error_code` (splice's `violations[].code`) is a
        // name without its category: refused while a name is two codes'.
        let mut shared: Vec<(&str, &str, &str)> = Vec::new();
        for (i, a) in draft.codes.iter().enumerate() {
            for b in &draft.codes[i + 1..] {
                if let Some(n) = std::iter::once(a.wire()).chain(a.aliases.iter()).find(|n| {
                    b.wire().value == n.value || b.aliases.iter().any(|x| x.value == n.value)
                }) {
                    shared.push((n.value.as_str(), &a.name.value, &b.name.value));
                }
            }
        }
        if let Some((name, a, b)) = shared.first() {
            fn names_a_code(ty: &crate::context::FieldType) -> bool {
                use crate::context::FieldType;
                match ty {
                    FieldType::ErrorCode => true,
                    FieldType::ArrayOf(t) | FieldType::Map(t) => names_a_code(t),
                    _ => false,
                }
            }
            let uses = draft
                .fields
                .iter()
                .map(|f| (f.ty.as_ref(), format!("field `{}`", f.name.value)))
                .chain(draft.types.iter().flat_map(|t| {
                    t.members.iter().flatten().map(move |m| {
                        (
                            m.ty.as_ref(),
                            format!("member `{}` of type `{}`", m.name.value, t.name.value),
                        )
                    })
                }));
            for (ty, owner) in uses {
                let Some(ty) = ty else { continue };
                if !draft.resolve(&ty.value).is_ok_and(|t| names_a_code(&t)) {
                    continue;
                }
                self.push(
                    Diagnostic::new(
                        ty.loc,
                        format!(
                            "{owner} holds a code name without its category, but `{name}` is the name of codes `{a}` and `{b}`"
                        ),
                    )
                    .with_label("a code by name alone")
                    .with_related(rule.loc, "names per category")
                    .with_help(
                        "a value of type `error_code` tells a code by its name alone: give the \
                         codes distinct names, or drop `code_names`",
                    ),
                );
            }
        }
        // An operation's guards (`isCancelOrderError`, `is_cancel_order_error`)
        // and output shape test a name alone.
        if let Some(op) = draft.operations.first() {
            self.push(
                Diagnostic::new(
                    op.name.loc,
                    "`operations` are declared, but `code_names` is `per_category`",
                )
                .with_label("an operation")
                .with_related(rule.loc, "names per category")
                .with_help(
                    "an operation's generated guards tell its codes by name alone, which under \
                     `per_category` does not tell a code: drop `operations`, or drop `code_names`",
                ),
            );
        }
        for f in &draft.families {
            self.push(
                Diagnostic::new(
                    f.name.loc,
                    format!(
                        "family `{}` is declared, but `code_names` is `per_category`",
                        f.name.value
                    ),
                )
                .with_label("a family")
                .with_related(rule.loc, "names per category")
                .with_help(
                    "a family matches a code's name alone, which under `per_category` \
                     does not tell a code: list its codes, or drop `code_names`",
                ),
            );
        }
    }

    pub(super) fn code(
        &mut self,
        draft: &Draft,
        code: &DraftCode,
        version: Option<&Spanned<semver::Version>>,
    ) {
        let name = &code.name.value;
        let owner = format!("code `{name}`");

        if let Some(cat) = &code.category
            && !draft.categories.iter().any(|c| c.key.value == cat.value)
        {
            let keys: Vec<&str> = draft
                .categories
                .iter()
                .map(|c| c.key.value.as_str())
                .collect();
            let close = did_you_mean(&cat.value, keys.iter().copied());
            let help = match close {
                Some(k) => format!("did you mean `{k}`?"),
                None if keys.is_empty() => "declare the category under `categories:`".to_string(),
                None => format!("the categories are {}", list(&keys)),
            };
            self.push(
                Diagnostic::new(
                    cat.loc,
                    format!("unknown category `{}` in {owner}", cat.value),
                )
                .with_label("not declared under `categories`")
                .with_help(help)
                .with_suggestion_opt(cat.loc, close),
            );
        }

        self.title(code, &owner);
        for (field, key, help) in [
            (
                &code.explanation,
                "explanation",
                "explain what happened, give an example, and say how to fix it",
            ),
            (
                &code.message,
                "message",
                "write the one-line message template",
            ),
        ] {
            if let Some(f) = field
                && f.value.trim().is_empty()
            {
                self.push(
                    Diagnostic::new(f.loc, format!("`{key}` of {owner} is empty")).with_help(help),
                );
            }
        }

        let removed = code.removed.is_some();
        let hints_required = draft
            .taxonomy
            .as_ref()
            .and_then(|t| t.hints.as_ref())
            .is_none_or(|h| h.value == crate::spec::HintsRule::Required);
        match &code.recovery_hints {
            _ if !hints_required => {}
            None if !removed && !code.recovery_hints_broken => self.push(
                Diagnostic::new(code.name.loc, format!("{owner} has no `recovery_hints`"))
                    .with_label("`recovery_hints` is required here")
                    .with_help("add `recovery_hints:` with at least one piece of general guidance for the caller"),
            ),
            Some(h) if h.value.is_empty() && !removed => self.push(
                Diagnostic::new(h.loc, format!("`recovery_hints` of {owner} is empty"))
                    .with_help("give at least one piece of general guidance for the caller"),
            ),
            _ => {}
        }
        for hint in code.recovery_hints.iter().flat_map(|h| &h.value) {
            if hint.value.trim().is_empty() {
                self.push(
                    Diagnostic::new(
                        hint.loc,
                        format!("empty hint in `recovery_hints` of {owner}"),
                    )
                    .with_help("write the guidance, or remove the entry"),
                );
            }
        }

        for p in &code.params {
            self.non_empty(
                &p.description,
                &format!("`description` of parameter `{}` of {owner}", p.name.value),
                "say in a few words what the parameter holds",
            );
        }
        if let Some(reason) = code.removed.as_ref().and_then(|r| r.reason.as_ref()) {
            self.non_empty(
                reason,
                &format!("`removed.reason` of {owner}"),
                "say why the code was removed",
            );
        }
        self.context(draft, code, &owner);
        self.hint_conditions(draft, code, &owner);
        self.code_examples(draft, code, &owner);
        self.constants(draft, code, &owner);
        self.templates(draft, code, &owner);
        self.lifecycle(draft, code, &owner, version);
    }

    pub(super) fn title(&mut self, code: &DraftCode, owner: &str) {
        let Some(title) = &code.title else { return };
        let t = title.value.trim();
        if t.is_empty() {
            self.push(
                Diagnostic::new(title.loc, format!("`title` of {owner} is empty"))
                    .with_help("write a one-line summary, lowercase, no final period"),
            );
            return;
        }
        let first_word = t.split_whitespace().next().unwrap_or("");
        // An acronym (`SHA-256`, `UTF-8`) may start a title; a capitalised
        // word may not.
        let acronym = first_word.chars().filter(|c| c.is_alphabetic()).count() > 1
            && first_word.chars().all(|c| !c.is_lowercase());
        if t.chars().next().is_some_and(char::is_uppercase) && !acronym {
            let mut fixed = String::new();
            let mut chars = t.chars();
            if let Some(c) = chars.next() {
                fixed.extend(c.to_lowercase());
            }
            fixed.push_str(chars.as_str().trim_end_matches('.'));
            self.push(
                Diagnostic::new(
                    title.loc,
                    format!("`title` of {owner} must start with a lowercase letter"),
                )
                .with_help(format!(
                    "titles are fragments like rustc messages: `{fixed}`"
                )),
            );
        }
        if t.ends_with('.') {
            self.push(
                Diagnostic::new(
                    self.inside(title.loc, ".", t.matches('.').count() - 1),
                    format!("`title` of {owner} ends with a period"),
                )
                .with_help("remove the final period"),
            );
        }
    }

    /// Each `when:` of a recovery hint names an enum field the code carries,
    /// and values that enum declares.
    pub(super) fn hint_conditions(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
        let carried: Vec<&str> = code
            .required_context
            .iter()
            .chain(&code.optional_context)
            .map(|f| f.value.as_str())
            .collect();
        for cond in code.hint_conditions.iter().flatten() {
            let name = cond.field.value.as_str();
            let Some(field) = draft.field(name) else {
                if draft.declarations_broken {
                    continue;
                }
                let close = did_you_mean(name, carried.iter().copied());
                let help = match close {
                    Some(n) => format!("did you mean `{n}`?"),
                    None if carried.is_empty() => format!(
                        "{owner} carries no context field; a hint that depends on what happened \
                         needs a field that says it"
                    ),
                    None => format!("the fields {owner} carries are {}", list(&carried)),
                };
                self.push(
                    Diagnostic::new(
                        cond.field.loc,
                        format!(
                            "unknown field `{name}` in the condition of a recovery hint of {owner}"
                        ),
                    )
                    .with_label("not declared under `fields:`")
                    .with_help(help)
                    .with_suggestion_opt(cond.field.loc, close),
                );
                continue;
            };
            if !carried.contains(&name) {
                self.push(
                    Diagnostic::new(
                        cond.field.loc,
                        format!(
                            "a recovery hint of {owner} depends on `{name}`, which {owner} does not carry"
                        ),
                    )
                    .with_label("not in the code's `context`")
                    .with_help(format!(
                        "add `{name}` to `context.optional` of {owner}, or make the hint general"
                    )),
                );
                continue;
            }
            let Some(ty) = field.ty.as_ref() else {
                continue;
            };
            let values = match draft.resolve(&ty.value) {
                Ok(FieldType::Enum(e)) => draft
                    .types
                    .iter()
                    .find(|t| t.name.value == e)
                    .and_then(|t| t.values.as_ref()),
                Ok(_) => {
                    self.push(
                        Diagnostic::new(
                            cond.field.loc,
                            format!(
                                "a recovery hint of {owner} depends on `{name}`, which is a `{}`, not an enum",
                                ty.value
                            ),
                        )
                        .with_help("a hint can depend only on a context field whose type is a declared enum"),
                    );
                    continue;
                }
                Err(_) => continue,
            };
            let Some(values) = values else {
                continue;
            };
            let declared: Vec<&str> = values.iter().map(|v| v.value.as_str()).collect();
            for v in &cond.values {
                if declared.contains(&v.value.as_str()) {
                    continue;
                }
                let close = did_you_mean(&v.value, declared.iter().copied());
                let help = match close {
                    Some(n) => format!("did you mean `{n}`?"),
                    None => format!("`{}` is one of {}", ty.value, list(&declared)),
                };
                self.push(
                    Diagnostic::new(
                        v.loc,
                        format!(
                            "unknown value `{}` of `{name}` in the condition of a recovery hint of {owner}",
                            v.value
                        ),
                    )
                    .with_label(format!("not a value of `{}`", ty.value))
                    .with_help(help)
                    .with_suggestion_opt(v.loc, close),
                );
            }
        }
    }

    pub(super) fn context(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
        let declared: Vec<&str> = draft.fields.iter().map(|f| f.name.value.as_str()).collect();
        for f in code.required_context.iter().chain(&code.optional_context) {
            if draft.field(&f.value).is_none() && !draft.declarations_broken {
                let mut close = None;
                let help = if declared.is_empty() {
                    format!(
                        "declare it under the top-level `fields:` section: `{}: {{ type: string, in: top_level, doc: ... }}`",
                        f.value
                    )
                } else {
                    match did_you_mean(&f.value, declared.iter().copied())
                        .inspect(|n| close = Some(*n))
                    {
                        Some(n) => format!(
                            "did you mean `{n}`? or declare `{}` under `fields:`",
                            f.value
                        ),
                        None => format!(
                            "declare it under `fields:`; the declared fields are {}",
                            list(&declared)
                        ),
                    }
                };
                self.push(
                    Diagnostic::new(
                        f.loc,
                        format!("unknown context field `{}` in {owner}", f.value),
                    )
                    .with_label("not declared under `fields:`")
                    .with_help(help)
                    .with_suggestion_opt(f.loc, close),
                );
            }
        }
        for (list, which) in [
            (&code.required_context, "required"),
            (&code.optional_context, "optional"),
        ] {
            for (i, f) in list.iter().enumerate() {
                if let Some(first) = list[..i].iter().find(|g| g.value == f.value) {
                    self.push(
                        Diagnostic::new(
                            f.loc,
                            format!(
                                "context field `{}` is listed twice in `{which}` of {owner}",
                                f.value
                            ),
                        )
                        .with_label("second mention")
                        .with_related(first.loc, "first mention")
                        .with_help("remove one of them"),
                    );
                }
            }
        }
        for f in &code.optional_context {
            if let Some(r) = code.required_context.iter().find(|r| r.value == f.value) {
                self.push(
                    Diagnostic::new(
                        f.loc,
                        format!(
                            "context field `{}` of {owner} is both required and optional",
                            f.value
                        ),
                    )
                    .with_label("listed as optional")
                    .with_related(r.loc, "listed as required")
                    .with_help("keep it in exactly one of `required` and `optional`"),
                );
            }
        }
        for p in &code.params {
            if draft.field(&p.name.value).is_some() {
                self.push(
                    Diagnostic::new(p.name.loc, format!("parameter `{}` of {owner} has the name of a context field", p.name.value))
                        .with_help(format!(
                            "use the context field instead: list `{}` under `context.required` and use `{{{}}}` directly; \
                             or rename the parameter",
                            p.name.value, p.name.value
                        )),
                );
            }
        }
    }

    /// Placeholders in the message and hints name declared parameters or
    /// required scalar context fields; every parameter is used somewhere.
    pub(super) fn templates(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
        let scalar = |f: &crate::draft::DraftField| {
            f.ty.as_ref()
                .is_some_and(|t| draft.resolve(&t.value).is_ok_and(|t| t.is_scalar()))
        };
        let type_of =
            |f: &crate::draft::DraftField| f.ty.as_ref().and_then(|t| draft.resolve(&t.value).ok());
        let mut used: Vec<&str> = Vec::new();
        let mut templates: Vec<(&Spanned<String>, String)> = Vec::new();
        if let Some(m) = &code.message {
            templates.push((m, "`message`".to_string()));
        }
        for h in code.recovery_hints.iter().flat_map(|h| &h.value) {
            templates.push((h, "a recovery hint".to_string()));
        }
        // A name the help of an invalid placeholder can show: this code's
        // own, never another taxonomy's.
        let example = code
            .params
            .iter()
            .map(|p| p.name.value.as_str())
            .chain(code.required_context.iter().map(|f| f.value.as_str()))
            .next()
            .unwrap_or("name");
        for (t, where_) in templates {
            let template = Template::parse(&t.value);
            for e in &template.errors {
                let d = match e {
                    &TemplateError::Unbalanced { offset, brace } => {
                        let nth = t.value[..offset].matches(brace).count();
                        let (needle, help) = if brace == '{' {
                            (
                                "{",
                                "close the placeholder with `}`, or write `{{` for a literal brace",
                            )
                        } else {
                            (
                                "}",
                                "open the placeholder with `{`, or write `}}` for a literal brace",
                            )
                        };
                        Diagnostic::new(
                            self.inside(t.loc, needle, nth),
                            format!("unbalanced `{brace}` in {where_} of {owner}"),
                        )
                        .with_help(help)
                    }
                    TemplateError::BadName { offset, text } => {
                        let needle = format!("{{{text}}}");
                        let nth = t.value[..*offset].matches(needle.as_str()).count();
                        Diagnostic::new(
                            self.inside(t.loc, &needle, nth),
                            format!("invalid placeholder `{needle}` in {where_} of {owner}"),
                        )
                        .with_help(format!(
                            "a placeholder is the name of a parameter or of a required context field of this code, like `{{{example}}}`; \
                             write `{{{{` and `}}}}` for literal braces"
                        ))
                    }
                };
                self.push(d);
            }
            for (name, offset) in template.placeholders() {
                used.push(name);
                if code.params.iter().any(|q| q.name.value == name)
                    || code.broken_params.iter().any(|b| b == name)
                {
                    continue;
                }
                let field = draft.field(name);
                let listed = code.required_context.iter().any(|r| r.value == name);
                if field.is_none() && listed {
                    // An undeclared field: reported once, at the list.
                    continue;
                }
                let required = field.and_then(|f| {
                    code.required_context
                        .iter()
                        .find(|r| r.value == f.name.value)
                });
                if field.is_some_and(scalar) && required.is_some()
                    || field.is_some_and(|f| type_of(f).is_none())
                    || field.is_some() && code.context_broken
                {
                    continue;
                }
                // Only now (an error) is it worth locating the placeholder.
                let needle = format!("{{{}}}", name);
                let nth = t.value[..offset].matches(needle.as_str()).count();
                let loc = self.inside(t.loc, &needle, nth);
                let d = match (field, required) {
                    (Some(f), Some(_)) => Diagnostic::new(
                        loc,
                        format!("placeholder `{needle}` in {where_} of {owner} names context field `{f}`, which is not a string or integer"),
                    )
                    .with_help(format!("`{f}` is {}; only string and integer fields can be written into a message", type_of(f).map_or("not a scalar", |t| describe_type(&t)))),
                    (Some(f), None) if code.optional_context.iter().any(|o| o.value == f.name.value) => Diagnostic::new(
                        loc,
                        format!("placeholder `{needle}` in {where_} of {owner} names optional context field `{f}`"),
                    )
                    .with_help(format!("a message can only use fields that are always present: move `{f}` to `context.required`")),
                    (Some(f), None) => Diagnostic::new(
                        loc,
                        format!("placeholder `{needle}` in {where_} of {owner} names context field `{f}`, which this code does not carry"),
                    )
                    .with_help(format!("add `{f}` to `context.required` of this code")),
                    (None, _) => {
                        let mut names: Vec<&str> = code.params.iter().map(|q| q.name.value.as_str()).collect();
                        names.extend(
                            code.required_context
                                .iter()
                                .filter(|r| draft.field(&r.value).is_some_and(scalar))
                                .map(|r| r.value.as_str()),
                        );
                        let help = match did_you_mean(name, names.iter().copied()) {
                            Some(n) => format!("did you mean `{{{n}}}`?"),
                            None => format!(
                                "declare it under `params:` (`{}: {{ type: string, description: ... }}`), or use a required context field",
                                name
                            ),
                        };
                        Diagnostic::new(loc, format!("unknown placeholder `{needle}` in {where_} of {owner}"))
                            .with_label("not a parameter or required context field")
                            .with_help(help)
                    }
                };
                self.push(d);
            }
        }
        for p in &code.params {
            if !used.contains(&p.name.value.as_str()) {
                self.push(
                    Diagnostic::new(
                        p.name.loc,
                        format!("parameter `{}` of {owner} is never used", p.name.value),
                    )
                    .with_label("declared here")
                    .with_help(format!(
                        "use `{{{}}}` in `message` or a recovery hint, or remove the parameter",
                        p.name.value
                    )),
                );
            }
        }
    }

    pub(super) fn lifecycle(
        &mut self,
        draft: &Draft,
        code: &DraftCode,
        owner: &str,
        version: Option<&Spanned<semver::Version>>,
    ) {
        if let (Some(d), Some(r)) = (&code.deprecated, &code.removed) {
            self.push(
                Diagnostic::new(r.loc, format!("{owner} is both deprecated and removed"))
                    .with_related(d.loc, "deprecated here")
                    .with_help("a removed code is no longer emitted; delete the `deprecated` block and keep `removed`"),
            );
        }
        let mut versions: Vec<(&Spanned<semver::Version>, String)> = Vec::new();
        if let Some(s) = &code.since {
            versions.push((s, format!("`since` of {owner}")));
        }
        if let Some(d) = &code.deprecated {
            if let Some(s) = &d.since {
                versions.push((s, format!("`deprecated.since` of {owner}")));
            }
            if let Some(by) = &d.replaced_by {
                self.replaced_by(draft, code, by, owner);
            }
        }
        if let Some(r) = &code.removed
            && let Some(s) = &r.since
        {
            versions.push((s, format!("`removed.since` of {owner}")));
        }
        if let Some(v) = version {
            for (s, what) in &versions {
                if s.value > v.value {
                    self.push(
                        Diagnostic::new(
                            s.loc,
                            format!(
                                "{what} is {}, later than the taxonomy version {}",
                                s.value, v.value
                            ),
                        )
                        .with_related(v.loc, "taxonomy version")
                        .with_help(format!(
                            "bump `taxonomy.version` to at least {}, or correct `since`",
                            s.value
                        )),
                    );
                }
            }
        }
        if let Some(intro) = &code.since {
            for (s, what) in versions.iter().skip(1) {
                if s.value < intro.value {
                    self.push(
                        Diagnostic::new(
                            s.loc,
                            format!(
                                "{what} is {}, before the code was introduced in {}",
                                s.value, intro.value
                            ),
                        )
                        .with_related(intro.loc, "introduced here")
                        .with_help(
                            "a code can only be deprecated or removed after it was introduced",
                        ),
                    );
                }
            }
        }
    }

    pub(super) fn replaced_by(
        &mut self,
        draft: &Draft,
        code: &DraftCode,
        by: &Spanned<String>,
        owner: &str,
    ) {
        if by.value == code.name.value {
            self.push(
                Diagnostic::new(by.loc, format!("{owner} is replaced by itself"))
                    .with_help("name a different, active code in `replaced_by`"),
            );
            return;
        }
        let Some(target) = draft.codes.iter().find(|c| c.name.value == by.value) else {
            let close = did_you_mean(&by.value, draft.codes.iter().map(|c| c.name.value.as_str()));
            let help = match close {
                Some(n) => format!("did you mean `{n}`?"),
                None => "name an active code defined in this file".to_string(),
            };
            self.push(
                Diagnostic::new(
                    by.loc,
                    format!("`replaced_by` of {owner} names unknown code `{}`", by.value),
                )
                .with_help(help)
                .with_suggestion_opt(by.loc, close),
            );
            return;
        };
        let state = if target.removed.is_some() {
            "removed"
        } else if target.deprecated.is_some() {
            "deprecated"
        } else {
            return;
        };
        self.push(
            Diagnostic::new(
                by.loc,
                format!("`replaced_by` of {owner} names {state} code `{}`", by.value),
            )
            .with_related(target.name.loc, format!("`{}` is {state}", by.value))
            .with_help("point at the active code that replaces both of them"),
        );
    }
}
