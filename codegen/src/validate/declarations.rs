//! The `types:` and `fields:` sections and the envelope around them: type
//! references resolve, names on the wire are unique where they share an
//! object, unions and `one_of`s are well formed, `pattern`/`format` sit on
//! strings, no object contains itself, and no declared name takes one the
//! compiler generates.

use crate::context::FieldType;
use crate::diagnostic::{Diagnostic, did_you_mean, suggest};
use crate::draft::Draft;
use crate::span::{Loc, Spanned};

use super::Validator;

/// Who carries a `pattern`/`format`, its type as written, and the two.
pub(super) type ConstrainedOwner<'a> = (
    String,
    Option<&'a Spanned<String>>,
    [Option<&'a Spanned<String>>; 2],
);

pub(super) fn describe_type(ty: &FieldType) -> &'static str {
    match ty {
        FieldType::String | FieldType::Integer => "a scalar",
        FieldType::Int32 | FieldType::Int64 | FieldType::Float => "a number",
        FieldType::Map(_) => "a map",
        FieldType::Boolean => "a boolean",
        FieldType::Json => "any JSON value",
        FieldType::Enum(..) => "an enum",
        FieldType::ErrorCode => "an error code",
        FieldType::Struct(_) => "an object",
        FieldType::ArrayOf(_) => "an array",
    }
}

/// A chain of required, non-array members leading from `t` back to
/// `path[0]`: the location of the first member's type. On success `path`
/// holds the types of the cycle and `steps` its `Type.member` hops.
pub(super) fn cycle_from<'d>(
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
pub(super) fn members_phrase(names: &[&str]) -> String {
    match names.len() {
        1 => format!("{} is a member", crate::diagnostic::list_all(names)),
        _ => format!("{} are members", crate::diagnostic::list_all(names)),
    }
}

/// The envelope member names a field may not take (as name or wire name),
/// and the object they belong to, for the help: the members beside the
/// field's object. A context field lives in its own object.
pub(super) fn beside_field<'e>(
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

impl Validator<'_> {
    /// A declared type must not take the name the TypeScript and Python
    /// emitters give a code's envelope or context (`MATCH_NOT_FOUND` ->
    /// `MatchNotFoundEnvelope`, `MatchNotFoundContext`): the generated
    /// files would declare it twice.
    pub(super) fn generated_names(&mut self, draft: &Draft) {
        self.converted_names(draft);
        // Each code's UpperCamelCase stem, once: the checks below compare
        // it with every declared type.
        let stems: Vec<String> = draft
            .codes
            .iter()
            .map(|c| crate::case::Case::UpperCamel.convert(&c.name.value))
            .collect();
        for (code, stem) in draft.codes.iter().zip(&stems) {
            for suffix in ["Envelope", "Context"] {
                let generated = format!("{stem}{suffix}");
                if generated != crate::spec::UNLISTED_ENVELOPE
                    && crate::names::GENERATED_TYPE_NAMES.contains(&generated.as_str())
                {
                    self.push(
                        Diagnostic::new(
                            code.name.loc,
                            format!(
                                "code name `{}` is reserved: its {} type would be `{generated}`",
                                code.name.value,
                                suffix.to_ascii_lowercase()
                            ),
                        )
                        .with_help(format!(
                            "the compiler generates `{generated}` itself; choose another name"
                        )),
                    );
                }
            }
            if let Some(n) = &code.number
                && n.value.unsigned_abs() > crate::names::MAX_SAFE_INTEGER as u64
            {
                self.push(
                    Diagnostic::new(
                        n.loc,
                        format!(
                            "number {} of code `{}` is beyond 2^53 - 1",
                            n.value, code.name.value
                        ),
                    )
                    .with_help(
                        "JavaScript numbers are doubles: above 2^53 - 1 two numbers can read as one; \
                         choose a number within ±9007199254740991",
                    ),
                );
            }
        }
        for f in &draft.fields {
            if crate::names::BUILDER_METHODS.contains(&f.name.value.as_str()) {
                self.push(
                    Diagnostic::new(
                        f.name.loc,
                        format!("field name `{}` is reserved", f.name.value),
                    )
                    .with_help(format!(
                        "the generated Rust builder has a `{}` method and names a setter after each field; \
                         choose another name",
                        f.name.value
                    )),
                );
            }
        }
        for (code, stem) in draft.codes.iter().zip(&stems) {
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
            for (code, stem) in draft.codes.iter().zip(&stems) {
                for suffix in ["Envelope", "Context"] {
                    let generated = t
                        .name
                        .value
                        .strip_prefix(stem.as_str())
                        .is_some_and(|rest| rest == suffix);
                    if generated {
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

    /// Names that differ in the spec but meet after a target's case
    /// conversion: codes (`A1_B` and `A_1_B` are both the Rust variant and
    /// the envelope type `A1B`), categories (the Rust `Category` variant)
    /// and the values of one enum (its Rust variants) are compared in
    /// UpperCamelCase, the spelling every generator derives from them.
    fn converted_names(&mut self, draft: &Draft) {
        let upper = |s: &str| crate::case::Case::UpperCamel.convert(s);
        let codes = draft.codes.iter().map(|c| &c.name);
        self.distinct_after(
            codes,
            "codes",
            "",
            "the Rust variant and the envelope type",
            upper,
        );
        let categories = draft.categories.iter().map(|c| &c.key);
        let category = "the Rust `Category` variant";
        self.distinct_after(categories, "categories", "", category, upper);
        for t in &draft.types {
            if let Some(values) = &t.values {
                let owner = format!(" of enum `{}`", t.name.value);
                self.distinct_after(values.iter(), "values", &owner, "the Rust variant", upper);
            }
        }
    }

    /// Reports every name of `names` whose `convert`ed spelling an earlier
    /// different name already has, with both spellings and both places.
    fn distinct_after<'n>(
        &mut self,
        names: impl Iterator<Item = &'n Spanned<String>>,
        what: &str,
        owner: &str,
        target: &str,
        convert: impl Fn(&str) -> String,
    ) {
        let mut seen: std::collections::HashMap<String, &Spanned<String>> =
            std::collections::HashMap::new();
        for name in names {
            let converted = convert(&name.value);
            match seen.get(&converted) {
                Some(first) if first.value != name.value => self.push(
                    Diagnostic::new(
                        name.loc,
                        format!(
                            "{what} `{}` and `{}`{owner} are both `{converted}` in the generated code ({target})",
                            name.value, first.value
                        ),
                    )
                    .with_related(first.loc, format!("`{}` is here", first.value))
                    .with_help("rename one of them so that the two differ in more than underscores and case"),
                ),
                Some(_) => {}
                None => {
                    seen.insert(converted, name);
                }
            }
        }
    }

    /// The `types:` and `fields:` sections: every type reference resolves,
    /// enum values are unique, and no object contains itself without an
    /// array in between (it would have no finite value).
    pub(super) fn declarations(&mut self, draft: &Draft) {
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
        self.pattern_examples(draft);
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
        let response = draft.envelope.iter().flat_map(|e| e.response.iter());
        for m in response.flat_map(|r| &r.members) {
            if let crate::envelope::Holds::Typed { spelling, .. } = &m.holds {
                refs.push((spelling, format!("envelope member `{}`", m.name.value)));
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
                        .with_help(suggest(&unknown, &names, "the types are"))
                        .with_suggestion_opt(
                            ty.loc,
                            did_you_mean(&unknown, names.iter().copied())
                                .map(|n| ty.value.replacen(unknown.as_str(), n, 1)),
                        ),
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
    pub(super) fn wire_names(&mut self, draft: &Draft) {
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
        // Under `code_names: per_category` a name is unique within its
        // category: each category's codes are checked on their own.
        let per_category = draft
            .taxonomy
            .as_ref()
            .and_then(|t| t.code_names.as_ref())
            .is_some_and(|r| r.value == crate::spec::CodeNames::PerCategory);
        let groups: Vec<Option<&str>> = if per_category {
            let mut keys: Vec<Option<&str>> = Vec::new();
            for c in &draft.codes {
                let k = c.category.as_ref().map(|k| k.value.as_str());
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            keys
        } else {
            vec![None]
        };
        for group in groups {
            let codes: Vec<_> = draft
                .codes
                .iter()
                .filter(|c| !per_category || c.category.as_ref().map(|k| k.value.as_str()) == group)
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
            let scope = match group {
                Some(k) if per_category => format!("the codes of category `{k}`"),
                _ => "the codes".to_owned(),
            };
            self.unique_wires(&codes, &scope);
        }
    }

    /// A union's variants are distinct declared object types with distinct
    /// tags, none with a member spelled like the discriminator.
    pub(super) fn unions(&mut self, draft: &Draft) {
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
                            .with_help(suggest(&ty.value, &names, "the object types are"))
                            .with_suggestion_opt(
                                ty.loc,
                                did_you_mean(&ty.value, names.iter().copied()),
                            ),
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

    /// A `one_of:` lists types and `null`, each JSON type at most once (a
    /// reader tells the members apart by the JSON type of the value alone:
    /// string, integer or number, boolean, null, array, object), and at
    /// least two of them. `json` (every JSON type) and another `one_of`
    /// are refused; so are two members whose Rust variants share a name.
    pub(super) fn one_ofs(&mut self, draft: &Draft) {
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
            let mut variants: Vec<(String, &Spanned<String>)> = Vec::new();
            for w in written {
                let resolved = (w.value != "null").then(|| draft.resolve(&w.value));
                let json = match &resolved {
                    None => "null",
                    Some(Ok(FieldType::String | FieldType::Enum(_) | FieldType::ErrorCode)) => {
                        "string"
                    }
                    Some(Ok(FieldType::Integer | FieldType::Int32 | FieldType::Int64)) => "integer",
                    Some(Ok(FieldType::Float)) => "number",
                    Some(Ok(FieldType::Boolean)) => "boolean",
                    Some(Ok(FieldType::ArrayOf(_))) => "array",
                    Some(Ok(FieldType::Map(_))) => "object",
                    Some(Ok(FieldType::Struct(name)))
                        if draft
                            .types
                            .iter()
                            .any(|d| &d.name.value == name && d.one_of.is_some()) =>
                    {
                        self.push(
                            Diagnostic::new(
                                w.loc,
                                format!("`{name}` in {owner} is a `one_of` itself"),
                            )
                            .with_label("a union of its own")
                            .with_help(format!("list the types of `{name}` here instead")),
                        );
                        continue;
                    }
                    Some(Ok(FieldType::Struct(_))) => "object",
                    Some(Ok(FieldType::Json)) => {
                        self.push(
                            Diagnostic::new(w.loc, format!("`json` in {owner} admits every value"))
                                .with_label("any JSON type")
                                .with_help("no reader could tell another member from it; use `json` alone instead of the `one_of`"),
                        );
                        continue;
                    }
                    Some(Err(other)) => {
                        self.push(
                            Diagnostic::new(w.loc, format!("unknown type `{other}` in {owner}"))
                                .with_label("not a built-in or declared type")
                                .with_help(suggest(
                                    other,
                                    &[SCALARS, draft.type_names().as_slice()].concat(),
                                    "the types are",
                                )),
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
                                match (*j, json) {
                                    ("integer", "integer") => "integers",
                                    ("string", _) => "strings",
                                    ("array", _) => "arrays",
                                    ("object", _) => "objects",
                                    ("boolean", _) => "booleans",
                                    _ => "numbers",
                                }
                            ),
                            "second of its JSON type",
                            match json {
                                "array" => {
                                    "a reader tells the members apart by the value's JSON type alone; keep one list type, whose items may be a `one_of` of their own"
                                }
                                "object" => {
                                    "a reader tells the members apart by the value's JSON type alone; keep one object type, e.g. a tagged `union` of the objects"
                                }
                                "string" => {
                                    "a reader tells the members apart by the value's JSON type alone; keep `string` or the enum"
                                }
                                _ => {
                                    "a reader tells the members apart by the value's JSON type alone; keep one of them (the wider one, e.g. `int64` or `float`)"
                                }
                            },
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
                let variant = match &resolved {
                    Some(Ok(ty)) => crate::context::OneOf::variant(ty),
                    _ => "Null".to_owned(),
                };
                if let Some((_, first)) = variants.iter().find(|(v, _)| *v == variant) {
                    self.push(
                        Diagnostic::new(
                            w.loc,
                            format!(
                                "`{}` and `{}` in {owner} are both the Rust variant `{variant}`",
                                first.value, w.value
                            ),
                        )
                        .with_label("same variant name")
                        .with_related(first.loc, "first here")
                        .with_help("rename the declared type"),
                    );
                }
                variants.push((variant, w));
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

    /// A string with a `pattern:` whose value the documentation example
    /// builds (a field without `example:`, a required member of a type)
    /// needs a pattern [`crate::pattern`] can build a matching string for:
    /// otherwise the example would contradict its own schema.
    fn pattern_examples(&mut self, draft: &Draft) {
        let is_string = |ty: Option<&Spanned<String>>| {
            ty.and_then(|t| draft.resolve(&t.value).ok()) == Some(FieldType::String)
        };
        for f in &draft.fields {
            if let (Some(p), None, true) = (&f.pattern, &f.example, is_string(f.ty.as_ref())) {
                let natural = format!("example {}", f.name.value.replace('_', " "));
                if let Err(why) = crate::pattern::example(&p.value, &natural) {
                    self.push(
                        Diagnostic::new(
                            p.loc,
                            format!(
                                "field `{}` needs an `example:`: splice cannot build a string matching its `pattern` ({why})",
                                f.name.value
                            ),
                        )
                        .with_label("no example can be built from this pattern")
                        .with_help(format!(
                            "add `example:` to field `{}` with a value that matches the pattern; splice builds examples from literals, classes, repetitions, groups, alternatives, `^` and `$`",
                            f.name.value
                        )),
                    );
                }
            }
        }
        for t in &draft.types {
            for m in t.members.iter().flatten() {
                let Some(p) = &m.pattern else { continue };
                if m.optional || !is_string(m.ty.as_ref()) {
                    continue;
                }
                let natural = format!("example {}", m.name.value.replace('_', " "));
                if let Err(why) = crate::pattern::example(&p.value, &natural) {
                    self.push(
                        Diagnostic::new(
                            p.loc,
                            format!(
                                "required member `{}` of type `{}` has a `pattern` splice cannot build an example string for ({why})",
                                m.name.value, t.name.value
                            ),
                        )
                        .with_label("no example can be built from this pattern")
                        .with_help(
                            "documentation examples fill required members from their type; write the pattern with literals, classes, repetitions, groups, alternatives, `^` and `$` only, or make the member optional",
                        ),
                    );
                }
            }
        }
    }

    /// `pattern:` and `format:` constrain strings only.
    pub(super) fn string_constraints(&mut self, draft: &Draft) {
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
    pub(super) fn unique_wires(&mut self, items: &[(&Spanned<String>, bool, String)], scope: &str) {
        // Per wire name, the first item using it and the first using it
        // through `wire:` (one pass: a spec may have 40,000 codes).
        let mut firsts: std::collections::HashMap<&str, (usize, Option<usize>)> =
            std::collections::HashMap::new();
        for (i, (wire, explicit, owner)) in items.iter().enumerate() {
            let entry = firsts.entry(wire.value.as_str()).or_insert((i, None));
            let earlier = if *explicit { Some(entry.0) } else { entry.1 };
            if *explicit && entry.1.is_none() {
                entry.1 = Some(i);
            }
            let Some((first, _, first_owner)) = earlier.filter(|&j| j < i).map(|j| &items[j])
            else {
                continue;
            };
            let name = if wire.value.is_empty() {
                "the empty wire name `\"\"`".to_owned()
            } else {
                format!("wire name `{}`", wire.value)
            };
            let alias = |o: &str| o.starts_with("an alias of ");
            let help = if alias(owner)
                && !alias(first_owner)
                && owner.ends_with(first_owner.as_str())
            {
                "the code already has this name on the wire; drop the alias".to_owned()
            } else if alias(owner) {
                format!(
                    "{scope} need distinct names on the wire; drop this alias or change the other name"
                )
            } else if alias(first_owner) {
                format!(
                    "{scope} need distinct names on the wire; change this `wire:` or drop the alias"
                )
            } else {
                format!("{scope} need distinct names on the wire; change one `wire:`")
            };
            self.push(
                Diagnostic::new(
                    wire.loc,
                    format!("{name} of {owner} is already used by {first_owner}"),
                )
                .with_label("second use")
                .with_related(first.loc, "first use")
                .with_help(help),
            );
        }
    }
}
