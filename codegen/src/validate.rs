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

use std::collections::HashMap;

use crate::context::FieldType;
use crate::diagnostic::{Diagnostic, did_you_mean, list, suggest};
use crate::draft::{Draft, DraftCategory, DraftCode};
use crate::span::{Loc, Spanned};
use crate::spec::{EXAMPLE_SELF, ParamType};
use crate::template::{Template, TemplateError};
use crate::yaml::{Node, NodeKind, ScalarType, loc_of_range};

/// Runs every cross-cutting rule on `draft`, pushing problems to `diags`.
/// `source` is the spec text, used to point inside strings.
pub(crate) fn check(draft: &Draft, source: &str, diags: &mut Vec<Diagnostic>) {
    let mut v = Validator { source, diags };
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
        if crate::emit_rust::ERROR_CODE_METHODS.contains(&a.name.value.as_str()) {
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
    let version = draft.taxonomy.as_ref().and_then(|t| t.version.as_ref());
    for code in &draft.codes {
        v.code(draft, code, version);
        v.retry(draft, code);
        v.attributes(draft, code);
    }
}

struct Validator<'a> {
    source: &'a str,
    diags: &'a mut Vec<Diagnostic>,
}

impl Validator<'_> {
    /// Each name of a `retry_classes:` list is declared under
    /// `retry.classes`, once.
    fn retry_class_names(&mut self, draft: &Draft, list: &[Spanned<String>], owner: &str) {
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
                    .with_help(help),
                );
            }
        }
    }

    /// A code's own retry classes are declared, and a code in any retry
    /// class (its own or its category's) is retryable.
    fn retry(&mut self, draft: &Draft, code: &DraftCode) {
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
    fn attributes(&mut self, draft: &Draft, code: &DraftCode) {
        use crate::spec::AttributeType;
        let owner = format!("code `{}`", code.name.value);
        let names: Vec<&str> = draft
            .attributes
            .iter()
            .map(|a| a.name.value.as_str())
            .collect();
        for (key, node) in &code.attributes {
            let Some(def) = draft.attributes.iter().find(|a| a.name.value == key.value) else {
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
                    .with_help(help),
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

    /// `absent_means:` names an emitted code.
    fn absent_means(&mut self, draft: &Draft) {
        let Some(code) = draft.envelope.as_ref().and_then(|e| e.absent_code()) else {
            return;
        };
        self.emitted_code(
            draft,
            &code.value,
            code.loc,
            "`absent_means` of the member carrying `code_name`",
            "name a code of this spec by its identifier (not its wire name)",
        );
    }

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
            Some((at, _)) => {
                loc_of_range(self.source, loc.start + at, loc.start + at + needle.len())
            }
            None => loc,
        }
    }

    /// Reports `text` if it is blank.
    fn non_empty(&mut self, text: &Spanned<String>, what: &str, help: &str) {
        if text.value.trim().is_empty() {
            self.push(Diagnostic::new(text.loc, format!("{what} is empty")).with_help(help));
        }
    }

    fn categories(&mut self, categories: &[DraftCategory], range_block: Option<&Spanned<i64>>) {
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
    fn numbers(&mut self, draft: &Draft) {
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

    fn code(
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
            let help = match did_you_mean(&cat.value, keys.iter().copied()) {
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
                .with_help(help),
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
        match &code.recovery_hints {
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

    /// A declared type must not take the name the TypeScript and Python
    /// emitters give a code's envelope or context (`MATCH_NOT_FOUND` ->
    /// `MatchNotFoundEnvelope`, `MatchNotFoundContext`): the generated
    /// files would declare it twice.
    fn generated_names(&mut self, draft: &Draft) {
        for code in &draft.codes {
            let stem = crate::case::Case::UpperCamel.convert(&code.name.value);
            if format!("{stem}Envelope") == crate::spec::UNLISTED_ENVELOPE {
                self.push(
                    Diagnostic::new(
                        code.name.loc,
                        format!("code name `{}` is reserved", code.name.value),
                    )
                    .with_help(format!(
                        "the compiler generates `{}` for envelopes of codes a later release adds; \
                         choose another name",
                        crate::spec::UNLISTED_ENVELOPE
                    )),
                );
            }
        }
        for t in &draft.types {
            for code in &draft.codes {
                let stem = crate::case::Case::UpperCamel.convert(&code.name.value);
                for suffix in ["Envelope", "Context"] {
                    if t.name.value == format!("{stem}{suffix}") {
                        self.push(
                            Diagnostic::new(
                                t.name.loc,
                                format!(
                                    "type name `{}` is the name generated for the {} of code `{}`",
                                    t.name.value,
                                    suffix.to_ascii_lowercase(),
                                    code.name.value
                                ),
                            )
                            .with_related(code.name.loc, "this code")
                            .with_help("choose another name for the type"),
                        );
                    }
                }
            }
        }
    }

    /// The `types:` and `fields:` sections: every type reference resolves,
    /// enum values are unique, and no object contains itself without an
    /// array in between (it would have no finite value).
    fn declarations(&mut self, draft: &Draft) {
        // `draft.envelope` is splice's when the spec declares none; `None`
        // only for a declared one that failed to load (already reported).
        if let Some(envelope) = &draft.envelope {
            for f in &draft.fields {
                if let Some(p) = &f.placement
                    && p.value == crate::context::Placement::Envelope
                    && envelope.fields_path().is_empty()
                {
                    self.push(
                        Diagnostic::new(
                            p.loc,
                            format!(
                                "field `{}` is declared `in: envelope`, but the code is already in the envelope's outermost object",
                                f.name.value
                            ),
                        )
                        .with_help(
                            "`in: envelope` places a field beside the object that holds the code when that \
                             object is nested (botocore's `ResponseMetadata` beside `Error`); here write `in: top_level`",
                        ),
                    );
                }
                let (beside, object) = beside_field(envelope, f);
                if beside.contains(&f.name.value.as_str()) {
                    self.push(
                        Diagnostic::new(
                            f.name.loc,
                            format!("field name `{}` is an envelope member", f.name.value),
                        )
                        .with_help(format!(
                            "{} of {object}; choose another name",
                            members_phrase(&beside)
                        )),
                    );
                }
            }
        }
        self.wire_names(draft);
        self.unions(draft);
        self.one_ofs(draft);
        self.string_constraints(draft);
        let names = draft.type_names();
        let mut refs: Vec<(&Spanned<String>, String)> = Vec::new();
        for t in &draft.types {
            for m in t.members.iter().flatten() {
                if let Some(ty) = &m.ty {
                    refs.push((
                        ty,
                        format!("member `{}` of type `{}`", m.name.value, t.name.value),
                    ));
                }
            }
            if let Some(values) = &t.values {
                for (i, v) in values.iter().enumerate() {
                    if let Some(first) = values[..i].iter().find(|w| w.value == v.value) {
                        self.push(
                            Diagnostic::new(
                                v.loc,
                                format!(
                                    "enum value `{}` of type `{}` is listed twice",
                                    v.value, t.name.value
                                ),
                            )
                            .with_label("second mention")
                            .with_related(first.loc, "first mention")
                            .with_help("enum values must be unique; remove one of them"),
                        );
                    }
                }
            }
        }
        for f in &draft.fields {
            if let Some(ty) = &f.ty {
                refs.push((ty, format!("field `{}`", f.name.value)));
            }
        }
        for (ty, owner) in refs {
            if let Some((key, _)) = crate::draft::map_parts(ty.value.trim())
                && key != "string"
            {
                self.push(
                    Diagnostic::new(
                        ty.loc,
                        format!("the keys of a map must be `string`, found `{key}` in {owner}"),
                    )
                    .with_label("not `string`")
                    .with_help("JSON object keys are strings: write `map<string, T>`"),
                );
                continue;
            }
            if let Err(unknown) = draft.resolve(&ty.value) {
                self.push(
                    Diagnostic::new(ty.loc, format!("unknown type `{unknown}` in {owner}"))
                        .with_label("not a built-in or declared type")
                        .with_help(suggest(&unknown, &names, "the types are")),
                );
            }
        }
        // Containment without an array: an edge from an object to each object
        // a required member names directly. Each cycle is reported once, at
        // its first type in file order.
        let mut reported: Vec<Vec<&str>> = Vec::new();
        for t in &draft.types {
            let mut path: Vec<&str> = vec![t.name.value.as_str()];
            let mut steps: Vec<String> = Vec::new();
            if let Some(member) = cycle_from(draft, t, &mut path, &mut steps) {
                let mut set = path.clone();
                set.sort_unstable();
                if reported.contains(&set) {
                    continue;
                }
                reported.push(set);
                let chain = format!("{} -> {}", steps.join(" -> "), t.name.value);
                self.push(
                    Diagnostic::new(member, format!("type `{}` contains itself: {chain}", t.name.value))
                        .with_label("this member starts the cycle")
                        .with_help("a value of it would be infinite; make a member of the cycle an array (`T[]`) or `optional: true`"),
                );
            }
        }
    }

    /// Names on the wire (`wire:`, else the identifier) are unique where
    /// they share an object: top-level fields with each other and with the
    /// envelope's members, context fields, the members of a type, the
    /// values of an enum, and codes.
    fn wire_names(&mut self, draft: &Draft) {
        use crate::context::Placement;
        if let Some(envelope) = &draft.envelope {
            for f in &draft.fields {
                let (beside, object) = beside_field(envelope, f);
                if let Some(w) = &f.wire
                    && beside.contains(&w.value.as_str())
                {
                    self.push(
                        Diagnostic::new(
                            w.loc,
                            format!(
                                "wire name `{}` of field `{}` is an envelope member",
                                w.value, f.name.value
                            ),
                        )
                        .with_help(format!(
                            "{} of {object}; choose another wire name",
                            members_phrase(&beside)
                        )),
                    );
                }
            }
        }
        for placement in [Placement::TopLevel, Placement::Context, Placement::Envelope] {
            let fields: Vec<(&Spanned<String>, bool, String)> = draft
                .fields
                .iter()
                .filter(|f| f.placement.as_ref().is_some_and(|p| p.value == placement))
                .map(|f| {
                    (
                        f.wire(),
                        f.wire.is_some(),
                        format!("field `{}`", f.name.value),
                    )
                })
                .collect();
            self.unique_wires(&fields, &format!("fields `in: {}`", placement.as_str()));
        }
        for t in &draft.types {
            if let Some(members) = &t.members {
                let members: Vec<_> = members
                    .iter()
                    .map(|m| {
                        (
                            m.wire(),
                            m.wire.is_some(),
                            format!("member `{}`", m.name.value),
                        )
                    })
                    .collect();
                self.unique_wires(&members, &format!("the members of type `{}`", t.name.value));
            }
            if let Some(values) = &t.values {
                let values: Vec<_> = values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let wire = t.wires.get(i).and_then(Option::as_ref);
                        (
                            wire.unwrap_or(v),
                            wire.is_some(),
                            format!("value `{}`", v.value),
                        )
                    })
                    .collect();
                self.unique_wires(&values, &format!("the values of enum `{}`", t.name.value));
            }
        }
        let codes: Vec<_> = draft
            .codes
            .iter()
            .flat_map(|c| {
                std::iter::once((
                    c.wire(),
                    c.wire.is_some(),
                    format!("code `{}`", c.name.value),
                ))
                .chain(
                    c.aliases
                        .iter()
                        .map(|a| (a, true, format!("an alias of code `{}`", c.name.value))),
                )
            })
            .collect();
        self.unique_wires(&codes, "the codes");
    }

    /// A union's variants are distinct declared object types with distinct
    /// tags, none with a member spelled like the discriminator.
    fn unions(&mut self, draft: &Draft) {
        for t in &draft.types {
            let Some((discriminator, variants)) = &t.union else {
                continue;
            };
            let owner = format!("union `{}`", t.name.value);
            for (i, (ty, tag)) in variants.iter().enumerate() {
                if let Some((_, first)) = variants[..i].iter().find(|(_, g)| g.value == tag.value) {
                    self.push(
                        Diagnostic::new(
                            tag.loc,
                            format!("tag `{}` of {owner} is used twice", tag.value),
                        )
                        .with_label("second use")
                        .with_related(first.loc, "first use")
                        .with_help("each variant needs its own tag"),
                    );
                }
                let Some(def) = draft.types.iter().find(|d| d.name.value == ty.value) else {
                    let names: Vec<&str> = draft
                        .types
                        .iter()
                        .filter(|d| d.members.is_some())
                        .map(|d| d.name.value.as_str())
                        .collect();
                    self.push(
                        Diagnostic::new(ty.loc, format!("unknown type `{}` in {owner}", ty.value))
                            .with_label("not a declared object type")
                            .with_help(suggest(&ty.value, &names, "the object types are")),
                    );
                    continue;
                };
                let Some(members) = &def.members else {
                    self.push(
                        Diagnostic::new(
                            ty.loc,
                            format!("variant `{}` of {owner} is not an object type", ty.value),
                        )
                        .with_help("a variant is a type declared with `members`"),
                    );
                    continue;
                };
                if let Some(m) = members
                    .iter()
                    .find(|m| m.wire().value == discriminator.value)
                {
                    self.push(
                        Diagnostic::new(
                            m.wire().loc,
                            format!(
                                "member `{}` of type `{}` is spelled like the discriminator `{}` of {owner}",
                                m.name.value, ty.value, discriminator.value
                            ),
                        )
                        .with_related(discriminator.loc, "the discriminator")
                        .with_help("the union sets the discriminator from the tag; drop the member"),
                    );
                }
            }
        }
    }

    /// A `one_of:` lists built-in scalar types and `null`, each JSON type
    /// at most once (a reader tells the members apart by the JSON type of
    /// the value alone), and at least two of them.
    fn one_ofs(&mut self, draft: &Draft) {
        const SCALARS: &[&str] = &[
            "string", "integer", "int32", "int64", "float", "boolean", "null",
        ];
        for t in &draft.types {
            let Some(written) = &t.one_of else {
                continue;
            };
            let owner = format!("`one_of` of type `{}`", t.name.value);
            // The JSON type each entry reads as, with the entry that took it.
            let mut taken: Vec<(&str, &Spanned<String>)> = Vec::new();
            for w in written {
                let json = match w.value.as_str() {
                    "string" => "string",
                    "integer" | "int32" | "int64" => "integer",
                    "float" => "number",
                    "boolean" => "boolean",
                    "null" => "null",
                    other => {
                        let help = if draft.types.iter().any(|d| d.name.value == other) {
                            format!(
                                "`one_of` lists built-in scalar types only ({}); a declared type goes in `members`, or in a tagged `union` if it is an object",
                                list(SCALARS)
                            )
                        } else {
                            suggest(other, SCALARS, "the scalar types are")
                        };
                        self.push(
                            Diagnostic::new(
                                w.loc,
                                format!("`{other}` in {owner} is not a scalar type"),
                            )
                            .with_label("not a scalar")
                            .with_help(help),
                        );
                        continue;
                    }
                };
                // Integers are JSON numbers too: `int64` and `float` clash.
                let numeric = |k: &str| k == "integer" || k == "number";
                let clash = taken
                    .iter()
                    .find(|(j, _)| *j == json || (numeric(j) && numeric(json)));
                if let Some((j, first)) = clash {
                    let (what, label, help) = if first.value == w.value {
                        (
                            format!("`{}` is listed twice in {owner}", w.value),
                            "listed again",
                            "remove one of them",
                        )
                    } else {
                        (
                            format!(
                                "`{}` and `{}` in {owner} are both JSON {}",
                                first.value,
                                w.value,
                                if json == "integer" && *j == "integer" {
                                    "integers"
                                } else {
                                    "numbers"
                                }
                            ),
                            "second of its JSON type",
                            "a reader tells the members apart by the value's JSON type alone; keep one of them (the wider one, e.g. `int64` or `float`)",
                        )
                    };
                    self.push(
                        Diagnostic::new(w.loc, what)
                            .with_label(label)
                            .with_related(first.loc, "first here")
                            .with_help(help),
                    );
                    continue;
                }
                taken.push((json, w));
            }
            if written.len() < 2 {
                let loc = written.first().map_or(t.name.loc, |w| w.loc);
                self.push(
                    Diagnostic::new(loc, format!("{owner} has fewer than two types"))
                        .with_help("list two or more, e.g. `one_of: [string, int64, \"null\"]`; for one type, use it directly"),
                );
            }
        }
    }

    /// `pattern:` and `format:` constrain strings only.
    fn string_constraints(&mut self, draft: &Draft) {
        let mut owners: Vec<ConstrainedOwner<'_>> = Vec::new();
        for f in &draft.fields {
            owners.push((
                format!("field `{}`", f.name.value),
                f.ty.as_ref(),
                [f.pattern.as_ref(), f.format.as_ref()],
            ));
        }
        for t in &draft.types {
            for m in t.members.iter().flatten() {
                owners.push((
                    format!("member `{}` of type `{}`", m.name.value, t.name.value),
                    m.ty.as_ref(),
                    [m.pattern.as_ref(), m.format.as_ref()],
                ));
            }
        }
        for (owner, ty, constraints) in owners {
            let Some(ty) = ty.and_then(|t| draft.resolve(&t.value).ok()) else {
                continue;
            };
            if ty == FieldType::String {
                continue;
            }
            for (key, c) in ["pattern", "format"].into_iter().zip(constraints) {
                if let Some(c) = c {
                    self.push(
                        Diagnostic::new(
                            c.loc,
                            format!("`{key}` of {owner} needs type `string`, not `{ty}`"),
                        )
                        .with_help(format!(
                            "`{key}` constrains a string; drop it or change the type"
                        )),
                    );
                }
            }
        }
    }

    /// Reports each wire name of `items` (name, written as `wire:`, owner)
    /// that an earlier item already uses; identifiers clashing with
    /// identifiers are duplicates, reported elsewhere.
    fn unique_wires(&mut self, items: &[(&Spanned<String>, bool, String)], scope: &str) {
        for (i, (wire, explicit, owner)) in items.iter().enumerate() {
            let Some((first, _, first_owner)) = items[..i]
                .iter()
                .find(|(w, e, _)| w.value == wire.value && (*e || *explicit))
            else {
                continue;
            };
            self.push(
                Diagnostic::new(
                    wire.loc,
                    format!(
                        "wire name `{}` of {owner} is already used by {first_owner}",
                        wire.value
                    ),
                )
                .with_label("second use")
                .with_related(first.loc, "first use")
                .with_help(format!(
                    "{scope} need distinct names on the wire; change one `wire:`"
                )),
            );
        }
    }

    fn title(&mut self, code: &DraftCode, owner: &str) {
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
    fn hint_conditions(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
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
                let help = match did_you_mean(name, carried.iter().copied()) {
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
                    .with_help(help),
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
                let help = match did_you_mean(&v.value, declared.iter().copied()) {
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
                    .with_help(help),
                );
            }
        }
    }

    fn context(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
        let declared: Vec<&str> = draft.fields.iter().map(|f| f.name.value.as_str()).collect();
        for f in code.required_context.iter().chain(&code.optional_context) {
            if draft.field(&f.value).is_none() && !draft.declarations_broken {
                let help = if declared.is_empty() {
                    format!(
                        "declare it under the top-level `fields:` section: `{}: {{ type: string, in: top_level, doc: ... }}`",
                        f.value
                    )
                } else {
                    match did_you_mean(&f.value, declared.iter().copied()) {
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
                    .with_help(help),
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
    fn templates(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
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

    fn lifecycle(
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

    fn replaced_by(&mut self, draft: &Draft, code: &DraftCode, by: &Spanned<String>, owner: &str) {
        if by.value == code.name.value {
            self.push(
                Diagnostic::new(by.loc, format!("{owner} is replaced by itself"))
                    .with_help("name a different, active code in `replaced_by`"),
            );
            return;
        }
        let Some(target) = draft.codes.iter().find(|c| c.name.value == by.value) else {
            let help =
                match did_you_mean(&by.value, draft.codes.iter().map(|c| c.name.value.as_str())) {
                    Some(n) => format!("did you mean `{n}`?"),
                    None => "name an active code defined in this file".to_string(),
                };
            self.push(
                Diagnostic::new(
                    by.loc,
                    format!("`replaced_by` of {owner} names unknown code `{}`", by.value),
                )
                .with_help(help),
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

/// Examples: `example:` of a field, and a code's `example:` map. Each
/// value must be a value of the declared type (an `error_code` value names
/// an emitted code of the spec, or is `self`: the code of the envelope).
impl Validator<'_> {
    fn field_examples(&mut self, draft: &Draft) {
        for f in &draft.fields {
            let (Some(node), Some(ty)) = (&f.example, &f.ty) else {
                continue;
            };
            let Ok(ty) = draft.resolve(&ty.value) else {
                continue; // reported as an unknown type
            };
            let what = format!("example of field `{}`", f.name.value);
            self.example(draft, node, &ty, &what, "");
        }
    }

    /// `constants:` of a code: declared fields of a scalar or enum type,
    /// not also listed in `context`, each with a value of its type.
    fn constants(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
        for (key, node) in &code.constants {
            let name = key.value.as_str();
            let Some(field) = draft.field(name) else {
                if draft.declarations_broken {
                    continue;
                }
                let names: Vec<&str> = draft.fields.iter().map(|f| f.name.value.as_str()).collect();
                self.push(
                    Diagnostic::new(
                        key.loc,
                        format!("unknown field `{name}` in `constants` of {owner}"),
                    )
                    .with_label("not declared under `fields`")
                    .with_help(suggest(
                        name,
                        &names,
                        "the declared fields are",
                    )),
                );
                continue;
            };
            if let Some(listed) = code
                .required_context
                .iter()
                .chain(&code.optional_context)
                .find(|f| f.value == name)
            {
                self.push(
                    Diagnostic::new(
                        listed.loc,
                        format!("field `{name}` of {owner} is a constant and is also listed in `context`"),
                    )
                    .with_related(key.loc, "the constant")
                    .with_help("a constant is carried by every envelope of the code; remove it from `context`"),
                );
            }
            let Some(ty) = field.ty.as_ref().and_then(|t| draft.resolve(&t.value).ok()) else {
                continue;
            };
            if !matches!(
                ty,
                FieldType::String
                    | FieldType::Integer
                    | FieldType::Int32
                    | FieldType::Int64
                    | FieldType::Boolean
                    | FieldType::Enum(_)
            ) {
                self.push(
                    Diagnostic::new(
                        key.loc,
                        format!("field `{name}` of type `{ty}` cannot be a constant of {owner}"),
                    )
                    .with_help("a constant is a string, an integer, a boolean or an enum value"),
                );
                continue;
            }
            self.example(
                draft,
                node,
                &ty,
                &format!("constant `{name}` of {owner}"),
                "",
            );
        }
    }

    fn code_examples(&mut self, draft: &Draft, code: &DraftCode, owner: &str) {
        let carried = || code.required_context.iter().chain(&code.optional_context);
        for (key, node) in &code.examples {
            let name = key.value.as_str();
            let what = format!("example of `{name}` in {owner}");
            if let Some(p) = code.params.iter().find(|p| p.name.value == name) {
                let ty = match p.ty.value {
                    ParamType::String => FieldType::String,
                    ParamType::Integer => FieldType::Integer,
                };
                self.example(draft, node, &ty, &what, "");
                continue;
            }
            if carried().any(|f| f.value == name) {
                if let Some(ty) = draft
                    .field(name)
                    .and_then(|f| f.ty.as_ref())
                    .and_then(|t| draft.resolve(&t.value).ok())
                {
                    self.example(draft, node, &ty, &what, "");
                }
                continue;
            }
            if code.broken_params.iter().any(|p| p == name) || code.context_broken {
                continue; // already reported
            }
            let mut names: Vec<&str> = code.params.iter().map(|p| p.name.value.as_str()).collect();
            names.extend(carried().map(|f| f.value.as_str()));
            let help = match did_you_mean(name, names.iter().copied()) {
                Some(n) => format!("did you mean `{n}`?"),
                None if names.is_empty() => {
                    "the code has no parameters or context fields to give examples of; remove the entry"
                        .to_string()
                }
                None => format!("the code's parameters and context fields are {}", list(&names)),
            };
            let also = if draft.field(name).is_some() {
                format!(
                    "; add it to `context` of {owner} first, or give the field itself an example"
                )
            } else {
                String::new()
            };
            self.push(
                Diagnostic::new(
                    key.loc,
                    format!("`example` of {owner} names `{name}`, which is neither a parameter nor a context field of the code"),
                )
                .with_label("not a parameter or carried field")
                .with_help(format!("{help}{also}")),
            );
        }
    }

    /// Checks `node` against `ty`; `path` is where inside the example
    /// (`[0].status`), empty at its root.
    fn example(&mut self, draft: &Draft, node: &Node, ty: &FieldType, what: &str, path: &str) {
        let subject = if path.is_empty() {
            what.to_string()
        } else {
            format!("`{path}` in {what}")
        };
        let mismatch = |expected: &str, help: String| {
            Diagnostic::new(
                node.loc,
                format!("{subject} must be {expected}, found {}", node.describe()),
            )
            .with_label(format!("not {expected}"))
            .with_help(help)
        };
        let declared = format!("the declared type is `{ty}`");
        let scalar = node.scalar_type();
        match ty {
            FieldType::String => {
                if scalar != Some(ScalarType::Str) {
                    let help = if matches!(node.kind, NodeKind::Scalar(..)) {
                        format!("{declared}; quote the value (\"...\") to make it a string")
                    } else {
                        declared
                    };
                    self.push(mismatch("a string", help));
                }
            }
            FieldType::Integer => match scalar {
                Some(ScalarType::Int(n)) if n < 0 => self.push(
                    Diagnostic::new(node.loc, format!("{subject} is a negative integer: {n}"))
                        .with_label("negative")
                        .with_help("integers of the envelope are non-negative; write 0 or more"),
                ),
                Some(ScalarType::Int(n)) if u64::try_from(n).is_err() => self.push(
                    Diagnostic::new(node.loc, format!("{subject} is out of range: {n}"))
                        .with_label("larger than 18446744073709551615")
                        .with_help("integers of the envelope are 64-bit unsigned"),
                ),
                Some(ScalarType::Int(_)) => {}
                _ => {
                    let help = match &node.kind {
                        NodeKind::Scalar(t, _)
                            if scalar == Some(ScalarType::Str)
                                && t.trim().parse::<u64>().is_ok() =>
                        {
                            "remove the quotes".to_string()
                        }
                        _ => declared,
                    };
                    self.push(mismatch("a non-negative integer", help));
                }
            },
            FieldType::Int32 | FieldType::Int64 => {
                let (low, high) = if *ty == FieldType::Int32 {
                    (i128::from(i32::MIN), i128::from(i32::MAX))
                } else {
                    (i128::from(i64::MIN), i128::from(i64::MAX))
                };
                match scalar {
                    Some(ScalarType::Int(n)) if n < low || n > high => self.push(
                        Diagnostic::new(node.loc, format!("{subject} is out of range: {n}"))
                            .with_label(format!("not in [{low}, {high}]"))
                            .with_help(format!("{declared}; write an integer in [{low}, {high}]")),
                    ),
                    Some(ScalarType::Int(_)) => {}
                    _ => self.push(mismatch("an integer", declared)),
                }
            }
            FieldType::Float => {
                if !matches!(scalar, Some(ScalarType::Int(_) | ScalarType::Float)) {
                    self.push(mismatch("a number", declared));
                }
            }
            FieldType::Map(value) => {
                let NodeKind::Map(entries) = &node.kind else {
                    self.push(mismatch(
                        "a mapping",
                        format!("{declared}; write `{{ key: value }}`"),
                    ));
                    return;
                };
                for (k, v) in entries {
                    let key = k.as_scalar().unwrap_or_default();
                    let inner = if path.is_empty() {
                        key.to_string()
                    } else {
                        format!("{path}.{key}")
                    };
                    self.example(draft, v, value, what, &inner);
                }
            }
            FieldType::Boolean => {
                if !matches!(scalar, Some(ScalarType::Bool(_))) {
                    self.push(mismatch("`true` or `false`", declared));
                }
            }
            FieldType::ErrorCode => {
                let Some(text) = node.as_scalar().filter(|_| scalar == Some(ScalarType::Str))
                else {
                    self.push(mismatch(
                        "an error code",
                        format!("write a code of this spec, or `{EXAMPLE_SELF}` for the code of the envelope"),
                    ));
                    return;
                };
                if text == EXAMPLE_SELF {
                    return;
                }
                self.emitted_code(
                    draft,
                    text,
                    node.loc,
                    &subject,
                    &format!(
                        "name a code of this spec, or write `{EXAMPLE_SELF}` for the code of the envelope"
                    ),
                );
            }
            FieldType::Enum(t) => {
                let Some(values) = draft
                    .types
                    .iter()
                    .find(|d| &d.name.value == t)
                    .and_then(|d| d.values.as_ref())
                else {
                    return;
                };
                let names: Vec<&str> = values.iter().map(|v| v.value.as_str()).collect();
                match node.as_scalar().filter(|_| scalar == Some(ScalarType::Str)) {
                    Some(v) if names.contains(&v) => {}
                    Some(v) => self.push(
                        Diagnostic::new(
                            node.loc,
                            format!("{subject} is not a value of enum `{t}`: `{v}`"),
                        )
                        .with_label("unknown value")
                        .with_help(suggest(v, &names, "the values are")),
                    ),
                    None => self.push(mismatch(
                        &format!("a value of enum `{t}`"),
                        format!("the values are {}", list(&names)),
                    )),
                }
            }
            FieldType::Struct(t)
                if draft
                    .types
                    .iter()
                    .any(|d| &d.name.value == t && d.union.is_some()) =>
            {
                let Some((discriminator, variants)) = draft
                    .types
                    .iter()
                    .find(|d| &d.name.value == t)
                    .and_then(|d| d.union.as_ref())
                else {
                    return;
                };
                let NodeKind::Map(entries) = &node.kind else {
                    self.push(mismatch(
                        &format!("an object of union `{t}`"),
                        format!(
                            "write a mapping with `{}` and the variant's members",
                            discriminator.value
                        ),
                    ));
                    return;
                };
                let tag = entries
                    .iter()
                    .find(|(k, _)| k.as_scalar() == Some(discriminator.value.as_str()))
                    .and_then(|(_, v)| v.as_scalar());
                let tags: Vec<&str> = variants.iter().map(|(_, g)| g.value.as_str()).collect();
                let Some((variant, _)) =
                    variants.iter().find(|(_, g)| Some(g.value.as_str()) == tag)
                else {
                    self.push(
                        Diagnostic::new(
                            node.loc,
                            format!(
                                "{subject} has no `{}` naming a variant of union `{t}`",
                                discriminator.value
                            ),
                        )
                        .with_help(format!("the tags are {}", list(&tags))),
                    );
                    return;
                };
                let mut rest = node.clone();
                if let NodeKind::Map(entries) = &mut rest.kind {
                    entries.retain(|(k, _)| k.as_scalar() != Some(discriminator.value.as_str()));
                }
                self.example(
                    draft,
                    &rest,
                    &FieldType::Struct(variant.value.clone()),
                    what,
                    path,
                );
            }
            FieldType::Struct(t)
                if draft
                    .types
                    .iter()
                    .any(|d| &d.name.value == t && d.one_of.is_some()) =>
            {
                let Some(written) = draft
                    .types
                    .iter()
                    .find(|d| &d.name.value == t)
                    .and_then(|d| d.one_of.as_ref())
                else {
                    return;
                };
                let fits = |w: &str| match (w, scalar) {
                    ("null", Some(ScalarType::Null)) => true,
                    ("string", Some(ScalarType::Str)) => true,
                    ("boolean", Some(ScalarType::Bool(_))) => true,
                    ("float", Some(ScalarType::Int(_) | ScalarType::Float)) => true,
                    ("integer", Some(ScalarType::Int(n))) => u64::try_from(n).is_ok(),
                    ("int32", Some(ScalarType::Int(n))) => i32::try_from(n).is_ok(),
                    ("int64", Some(ScalarType::Int(n))) => i64::try_from(n).is_ok(),
                    _ => false,
                };
                if !written.iter().any(|w| fits(&w.value)) {
                    let spelled: Vec<&str> = written.iter().map(|w| w.value.as_str()).collect();
                    self.push(mismatch(
                        &format!("a value of type `{t}`"),
                        format!("`{t}` is one of {}", list(&spelled)),
                    ));
                }
            }
            FieldType::Struct(t) => {
                let Some(members) = draft
                    .types
                    .iter()
                    .find(|d| &d.name.value == t)
                    .and_then(|d| d.members.as_ref())
                else {
                    return;
                };
                let NodeKind::Map(entries) = &node.kind else {
                    self.push(mismatch(
                        &format!("an object of type `{t}`"),
                        format!(
                            "write a mapping of its members, e.g. `{{ {}: ... }}`",
                            members.first().map_or("", |m| m.name.value.as_str())
                        ),
                    ));
                    return;
                };
                let names: Vec<&str> = members.iter().map(|m| m.name.value.as_str()).collect();
                let mut seen: Vec<(&str, Loc)> = Vec::new();
                for (k, v) in entries {
                    let key = k.as_scalar().unwrap_or_default();
                    let inner = if path.is_empty() {
                        key.to_string()
                    } else {
                        format!("{path}.{key}")
                    };
                    if let Some((_, first)) = seen.iter().find(|(n, _)| *n == key) {
                        self.push(
                            Diagnostic::new(
                                k.loc,
                                format!("member `{key}` is written twice in {subject}"),
                            )
                            .with_label("second mention")
                            .with_related(*first, "first mention")
                            .with_help("remove one of them"),
                        );
                        continue;
                    }
                    seen.push((key, k.loc));
                    let Some(m) = members.iter().find(|m| m.name.value == key) else {
                        self.push(
                            Diagnostic::new(k.loc, format!("unknown member `{key}` in {subject}"))
                                .with_label(format!("not a member of `{t}`"))
                                .with_help(suggest(
                                    key,
                                    &names,
                                    &format!("the members of `{t}` are"),
                                )),
                        );
                        continue;
                    };
                    if m.nullable && v.scalar_type() == Some(ScalarType::Null) {
                        continue;
                    }
                    if let Some(mty) = m.ty.as_ref().and_then(|s| draft.resolve(&s.value).ok()) {
                        self.example(draft, v, &mty, what, &inner);
                    }
                }
                for m in members.iter().filter(|m| !m.optional) {
                    if !seen.iter().any(|(n, _)| *n == m.name.value) {
                        self.push(
                            Diagnostic::new(node.loc, format!("{subject} is missing member `{}` of `{t}`", m.name.value))
                                .with_label(format!("`{}` is required", m.name.value))
                                .with_help(format!("add `{}: ...`; members are required unless declared `optional: true`", m.name.value)),
                        );
                    }
                }
            }
            FieldType::ArrayOf(item) => {
                let NodeKind::Seq(items) = &node.kind else {
                    self.push(mismatch(
                        "a list",
                        format!("{declared}; write a list, even of one item: `[...]`"),
                    ));
                    return;
                };
                for (i, v) in items.iter().enumerate() {
                    self.example(draft, v, item, what, &format!("{path}[{i}]"));
                }
            }
        }
    }
}

/// Who carries a `pattern`/`format`, its type as written, and the two.
type ConstrainedOwner<'a> = (
    String,
    Option<&'a Spanned<String>>,
    [Option<&'a Spanned<String>>; 2],
);

fn reused(at: Loc, n: i64, removed: &str, removed_loc: Loc) -> Diagnostic {
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

fn describe_type(ty: &FieldType) -> &'static str {
    match ty {
        FieldType::String | FieldType::Integer => "a scalar",
        FieldType::Int32 | FieldType::Int64 | FieldType::Float => "a number",
        FieldType::Map(_) => "a map",
        FieldType::Boolean => "a boolean",
        FieldType::Enum(..) => "an enum",
        FieldType::ErrorCode => "an error code",
        FieldType::Struct(_) => "an object",
        FieldType::ArrayOf(_) => "an array",
    }
}

/// A chain of required, non-array members leading from `t` back to
/// `path[0]`: the location of the first member's type. On success `path`
/// holds the types of the cycle and `steps` its `Type.member` hops.
fn cycle_from<'d>(
    draft: &'d Draft,
    t: &'d crate::draft::DraftType,
    path: &mut Vec<&'d str>,
    steps: &mut Vec<String>,
) -> Option<Loc> {
    for m in t.members.iter().flatten() {
        let Some(ty) = &m.ty else { continue };
        if m.optional {
            continue;
        }
        let Ok(FieldType::Struct(name)) = draft.resolve(&ty.value) else {
            continue;
        };
        steps.push(format!("{}.{}", t.name.value, m.name.value));
        if name == path[0] {
            return Some(ty.loc);
        }
        if !path.contains(&name.as_str())
            && path.len() <= 32
            && let Some(next) = draft.types.iter().find(|u| u.name.value == name)
        {
            path.push(next.name.value.as_str());
            if cycle_from(draft, next, path, steps).is_some() {
                return Some(ty.loc);
            }
            path.pop();
        }
        steps.pop();
    }
    None
}

/// `` `a` is a member`` or `` `a`, `b` and `c` are members``.
fn members_phrase(names: &[&str]) -> String {
    match names.len() {
        1 => format!("{} is a member", crate::diagnostic::list_all(names)),
        _ => format!("{} are members", crate::diagnostic::list_all(names)),
    }
}

/// The envelope member names a field may not take (as name or wire name),
/// and the object they belong to, for the help: the members beside the
/// field's object. A context field lives in its own object.
fn beside_field<'e>(
    envelope: &'e crate::envelope::Envelope,
    f: &crate::draft::DraftField,
) -> (Vec<&'e str>, &'static str) {
    use crate::context::Placement;
    match f.placement.as_ref().map(|p| p.value) {
        None | Some(Placement::TopLevel) => (
            envelope.names_beside_fields(),
            "the envelope object the top-level fields live in",
        ),
        Some(Placement::Envelope) => (
            envelope.names_at_root(),
            "the envelope's outermost object, where fields `in: envelope` live",
        ),
        Some(Placement::Context) => (Vec::new(), "the context object"),
    }
}
