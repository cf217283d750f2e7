//! Lowering the spanned YAML tree into a [`Draft`].
//!
//! This is where the *shape* of `errors.yaml` is checked: unknown or
//! duplicate keys, missing keys, wrong types, name casing, semver strings,
//! context field names, causes and ranges. Lowering never stops at a problem:
//! a field that cannot be read is left out of the [`Draft`] (so it causes no
//! follow-up errors) and checking goes on, so one run reports everything.

use std::collections::HashMap;

use crate::case::Case;
use crate::context::{BUILTIN_TYPES, Placement};
use crate::diagnostic::{Diagnostic, list, list_all, suggest};
use crate::draft::{
    Draft, DraftCategory, DraftCode, DraftDeprecated, DraftField, DraftMember, DraftRemoved,
    DraftTaxonomy, DraftType,
};
use crate::envelope::{CARRIES, Carries, Envelope, Member as EnvMember};
use crate::span::{Loc, Spanned};
use crate::spec::{Cause, HintCondition, Param, ParamType, SentAs};
use crate::yaml::{Node, NodeKind, ScalarType, Style};

/// Keys of a conditional recovery hint.
const HINT_KEYS: &[&str] = &["text", "when"];

const TOP_KEYS: &[&str] = &[
    "taxonomy",
    "envelope",
    "categories",
    "types",
    "fields",
    "codes",
    "reserved",
    "retry",
    "attributes",
];
const RETRY_KEYS: &[&str] = &["meaning", "classes"];
const ATTRIBUTE_KEYS: &[&str] = &["type", "doc", "format", "required"];
const ATTRIBUTE_TYPES: &[&str] = &["string", "integer", "boolean"];
const ENVELOPE_MEMBER_KEYS: &[&str] = &[
    "carries",
    "value",
    "members",
    "optional",
    "absent_means",
    "doc",
];
const TOP_REQUIRED: &[&str] = &["taxonomy", "categories", "codes"];
const TYPE_KEYS: &[&str] = &["doc", "members", "enum", "union", "one_of"];
const UNION_KEYS: &[&str] = &["discriminator", "variants"];
const MEMBER_KEYS: &[&str] = &[
    "type", "optional", "doc", "wire", "nullable", "pattern", "format",
];
const FIELD_KEYS: &[&str] = &[
    "type", "in", "doc", "example", "wire", "nullable", "pattern", "format",
];
/// An enum value written as a mapping, to give it a wire spelling.
const ENUM_VALUE_KEYS: &[&str] = &["name", "wire"];
const FIELD_REQUIRED: &[&str] = &["type", "in", "doc"];
const PLACEMENTS: &[&str] = &["top_level", "context", "envelope"];
const TAXONOMY_KEYS: &[&str] = &["name", "version", "base_uri", "description", "range_block"];
const CATEGORY_KEYS: &[&str] = &[
    "range",
    "description",
    "retryable",
    "cause",
    "retry_classes",
];
/// `range` is optional: a taxonomy whose categories interleave (gRPC's
/// caller and server codes) leaves it out.
const CATEGORY_REQUIRED: &[&str] = &["description", "retryable", "cause"];
const CODE_KEYS: &[&str] = &[
    "number",
    "category",
    "retryable",
    "cause",
    "since",
    "title",
    "message",
    "params",
    "recovery_hints",
    "context",
    "deprecated",
    "removed",
    "sent_as",
    "explanation",
    "example",
    "wire",
    "aliases",
    "constants",
    "retry_classes",
    "attributes",
];
const PARAM_KEYS: &[&str] = &["type", "description"];
const CONTEXT_KEYS: &[&str] = &["required", "optional"];
const DEPRECATED_KEYS: &[&str] = &["since", "replaced_by", "note"];
const REMOVED_KEYS: &[&str] = &["since", "reason"];
const CAUSES: &[&str] = &["input", "environment", "server"];
const PARAM_TYPES: &[&str] = &["string", "integer"];

/// Rust keywords (strict and reserved, 2024 edition): a parameter becomes a
/// constructor argument, so it cannot be named like one.
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "abstract", "become", "box", "do", "final", "macro", "override",
    "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// The entries of a mapping by key, first occurrence only; problems already
/// reported.
struct Fields<'n> {
    entries: Vec<(&'static str, &'n Node, &'n Node)>,
}

impl<'n> Fields<'n> {
    fn get(&self, key: &str) -> Option<&'n Node> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, _, v)| *v)
    }

    fn key_loc(&self, key: &str) -> Option<Loc> {
        self.entries
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, k, _)| k.loc)
    }
}

struct Lower {
    diags: Vec<Diagnostic>,
}

impl Lower {
    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn root(&mut self, root: &Node) -> Option<Draft> {
        let f = self.fields(
            root,
            "the spec",
            TOP_KEYS,
            TOP_REQUIRED,
            root.loc,
            "the spec",
        )?;
        let taxonomy = f
            .get("taxonomy")
            .and_then(|n| self.taxonomy(n, f.key_loc("taxonomy").unwrap_or(n.loc)));
        let envelope = match f.get("envelope") {
            None => Some(Envelope::splice_default()),
            Some(n) => self.envelope(n, f.key_loc("envelope").unwrap_or(n.loc)),
        };
        let categories = f
            .get("categories")
            .map(|n| self.categories(n))
            .unwrap_or_default();
        let reported = self.diags.len();
        let types = f.get("types").map(|n| self.types(n)).unwrap_or_default();
        let fields = f
            .get("fields")
            .map(|n| self.declared_fields(n))
            .unwrap_or_default();
        let declarations_broken = self.diags.len() > reported;
        let codes = f.get("codes").map(|n| self.codes(n)).unwrap_or_default();
        let reserved = f
            .get("reserved")
            .map(|n| self.reserved(n))
            .unwrap_or_default();
        let retry = f.get("retry").map(|n| self.retry(n)).unwrap_or_default();
        let attributes = f
            .get("attributes")
            .map(|n| self.attribute_defs(n))
            .unwrap_or_default();
        Some(Draft {
            retry,
            attributes,
            reserved,
            taxonomy,
            envelope,
            categories,
            codes,
            types,
            fields,
            declarations_broken,
        })
    }

    /// The `reserved:` section: a mapping of number to why no code may take
    /// it (`0: OK is success, not an error`).
    fn reserved(&mut self, node: &Node) -> Vec<crate::spec::Reserved> {
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
    fn retry(&mut self, node: &Node) -> crate::spec::Retry {
        let owner = "`retry`";
        let Some(f) = self.fields(node, owner, RETRY_KEYS, &[], node.loc, owner) else {
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
    fn attribute_defs(&mut self, node: &Node) -> Vec<crate::spec::AttributeDef> {
        let Some(entries) = self.named_entries(node, "attributes", "attribute") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "attribute name");
            self.not_keyword(&name, "an attribute becomes a Rust field");
            let owner = format!("attribute `{}`", name.value);
            let Some(f) = self.fields(
                value,
                &owner,
                ATTRIBUTE_KEYS,
                &["type", "doc"],
                name.loc,
                &owner,
            ) else {
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
                                .with_help(suggest(
                                    other,
                                    ATTRIBUTE_TYPES,
                                    "an attribute is one of",
                                )),
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
    fn retry_class_list(&mut self, node: &Node, owner: &str) -> Option<Vec<Spanned<String>>> {
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

    /// The `envelope:` section: the members of the wire envelope, nested
    /// objects included. `None` when part of it could not be read (already
    /// reported).
    fn envelope(&mut self, node: &Node, key_loc: Loc) -> Option<Envelope> {
        let (members, mut broken) = self.envelope_members(node, "`envelope`", key_loc);
        let envelope = Envelope {
            members,
            declared: true,
        };
        // Each property is carried at most once, anywhere in the tree.
        let mut seen: Vec<(&'static str, Loc)> = Vec::new();
        fn walk(members: &[EnvMember], out: &mut Vec<(&'static str, Loc)>) {
            for m in members {
                match &m.carries {
                    Carries::Object(inner) => walk(inner, out),
                    Carries::Constant(_) => {}
                    other => out.push((other.as_str(), m.name.loc)),
                }
            }
        }
        let mut all = Vec::new();
        walk(&envelope.members, &mut all);
        for (property, loc) in all {
            if let Some((_, first)) = seen.iter().find(|(p, _)| *p == property) {
                self.push(
                    Diagnostic::new(
                        loc,
                        format!("`{property}` is carried by two members of `envelope`"),
                    )
                    .with_label("second member")
                    .with_related(*first, "first member carrying it")
                    .with_help(
                        "each property of a code is carried by one member; remove one of them",
                    ),
                );
                broken = true;
            } else {
                seen.push((property, loc));
            }
        }
        if !broken && !envelope.carries("code_name") && !envelope.carries("number") {
            self.push(
                Diagnostic::new(
                    key_loc,
                    "`envelope` carries neither the code name nor the number",
                )
                .with_label("no member tells the codes apart")
                .with_help("add a member with `carries: code_name` or `carries: number`"),
            );
            broken = true;
        }
        (!broken).then_some(envelope)
    }

    /// The members of one object of the envelope that could be read, and
    /// whether anything could not (already reported).
    fn envelope_members(
        &mut self,
        node: &Node,
        owner: &str,
        owner_loc: Loc,
    ) -> (Vec<EnvMember>, bool) {
        let NodeKind::Map(_) = &node.kind else {
            self.push(
                Diagnostic::new(
                    owner_loc,
                    format!("{owner} must be a mapping of member names"),
                )
                .with_help("e.g. `error_code: { carries: code_name }`"),
            );
            return (Vec::new(), true);
        };
        let Some(entries) = self.named_entries(node, "envelope", "member") else {
            return (Vec::new(), true);
        };
        if entries.is_empty() {
            self.push(
                Diagnostic::new(owner_loc, format!("{owner} has no members"))
                    .with_help("list at least the member that carries the code, e.g. `error_code: { carries: code_name }`"),
            );
            return (Vec::new(), true);
        }
        let mut out = Vec::new();
        let mut broken = false;
        for (name, value) in entries {
            let what = format!("envelope member `{}`", name.value);
            let Some(f) = self.fields(value, &what, ENVELOPE_MEMBER_KEYS, &[], name.loc, &what)
            else {
                broken = true;
                continue;
            };
            let optional = f
                .get("optional")
                .and_then(|n| self.boolean(n, "optional", &what))
                .is_some_and(|b| b.value);
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &what));
            let carries = match (f.get("carries"), f.get("members")) {
                (Some(_), Some(_)) => {
                    self.push(
                        Diagnostic::new(
                            f.key_loc("members").unwrap_or(name.loc),
                            format!("{what} has both `carries` and `members`"),
                        )
                        .with_related(f.key_loc("carries").unwrap_or(name.loc), "`carries` here")
                        .with_help("a member either carries one property or is an object of `members`"),
                    );
                    None
                }
                (None, None) => {
                    self.push(
                        Diagnostic::new(name.loc, format!("{what} has neither `carries` nor `members`"))
                            .with_help(format!("add `carries:` with one of {}, or `members:` for a nested object", list(CARRIES))),
                    );
                    None
                }
                (None, Some(inner)) => {
                    let owner = format!("`members` of {what}");
                    let (inner, inner_broken) = self.envelope_members(
                        inner,
                        &owner,
                        f.key_loc("members").unwrap_or(name.loc),
                    );
                    broken |= inner_broken;
                    Some(Carries::Object(inner))
                }
                (Some(c), None) => self.string(c, "carries", &what).and_then(|c| {
                    Some(match c.value.as_str() {
                        "constant" => {
                            let Some(v) = f.get("value") else {
                                self.push(
                                    Diagnostic::new(c.loc, format!("{what} carries a constant but has no `value`"))
                                        .with_help("add `value:` with the string, integer or boolean every envelope has there"),
                                );
                                return None;
                            };
                            match v.scalar_type() {
                                Some(ScalarType::Str) | Some(ScalarType::Bool(_)) | Some(ScalarType::Int(_)) => {
                                    let json = match v.scalar_type() {
                                        Some(ScalarType::Int(n)) => match i64::try_from(n) {
                                            Ok(n) => serde_json::Value::from(n),
                                            Err(_) => {
                                                self.push(Diagnostic::new(v.loc, format!("`value` of {what} is out of range: {n}")));
                                                return None;
                                            }
                                        },
                                        _ => crate::draft::to_json(v),
                                    };
                                    Carries::Constant(json)
                                }
                                _ => {
                                    self.push(wrong_type(v, "value", &what, "a string, an integer or a boolean"));
                                    return None;
                                }
                            }
                        }
                        "code_name" => Carries::CodeName,
                        "number" => Carries::Number,
                        "category" => Carries::Category,
                        "retryable" => Carries::Retryable,
                        "cause" => Carries::Cause,
                        "hints" => Carries::Hints,
                        "message" => Carries::Message,
                        "context" => Carries::Context,
                        other => {
                            self.push(
                                Diagnostic::new(c.loc, format!("unknown property `{other}` carried by {what}"))
                                    .with_help(suggest(other, CARRIES, "expected one of")),
                            );
                            return None;
                        }
                    })
                }),
            };
            if let (Some(v), Some(c)) = (f.get("value"), &carries)
                && !matches!(c, Carries::Constant(_))
            {
                self.push(
                    Diagnostic::new(
                        v.loc,
                        format!("{what} has a `value` but does not carry a constant"),
                    )
                    .with_help("`value:` goes with `carries: constant`; remove it"),
                );
                broken = true;
            }
            if optional && matches!(carries, Some(Carries::Context)) {
                self.push(
                    Diagnostic::new(
                        f.key_loc("optional").unwrap_or(name.loc),
                        format!("{what} carries `context` and cannot be declared optional"),
                    )
                    .with_help("the context member is present exactly when the code carries context fields; remove `optional`"),
                );
                broken = true;
            }
            let absent_means = f
                .get("absent_means")
                .and_then(|n| self.string(n, "absent_means", &what));
            if let (Some(a), Some(c)) = (&absent_means, &carries)
                && !matches!(c, Carries::CodeName)
            {
                self.push(
                    Diagnostic::new(
                        a.loc,
                        format!("{what} has `absent_means` but does not carry `code_name`"),
                    )
                    .with_help("`absent_means:` names the code of an envelope without the member that carries the code's name; move it there or remove it"),
                );
                broken = true;
            }
            match carries {
                Some(carries) => out.push(EnvMember {
                    name,
                    // A code name with `absent_means` may be absent.
                    required: !optional
                        && absent_means.is_none()
                        && !matches!(carries, Carries::Context),
                    carries,
                    doc,
                    absent_means,
                }),
                None => broken = true,
            }
        }
        (out, broken)
    }

    /// The `types:` section: named objects (`members:`) and enums (`enum:`).
    fn types(&mut self, node: &Node) -> Vec<DraftType> {
        let Some(entries) = self.named_entries(node, "types", "type") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::UpperCamel, "type name");
            if BUILTIN_TYPES.contains(&name.value.to_ascii_lowercase().as_str())
                || [
                    // Rust (`emit_rust`)
                    "ErrorCode",
                    "ErrorEnvelope",
                    "ErrorContext",
                    "Category",
                    "Cause",
                    "UnknownErrorCode",
                    // TypeScript (`emit_ts`) and Python (`emit_python`)
                    "ErrorEnvelopeBase",
                    "ErrorCodeName",
                    "CodeInfo",
                    crate::spec::UNLISTED_ENVELOPE,
                    crate::spec::ANY_ENVELOPE,
                ]
                .contains(&name.value.as_str())
            {
                self.push(
                    Diagnostic::new(name.loc, format!("type name `{}` is reserved", name.value))
                        .with_help("the compiler generates a type of that name; choose another"),
                );
            }
            let owner = format!("type `{}`", name.value);
            let Some(f) = self.fields(value, &owner, TYPE_KEYS, &["doc"], name.loc, &owner) else {
                continue;
            };
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &owner));
            let members = f.get("members").and_then(|n| self.members(n, &owner));
            let values = f.get("enum").and_then(|n| {
                let NodeKind::Seq(items) = &n.kind else {
                    self.push(wrong_type(n, "enum", &owner, "a list of strings"));
                    return None;
                };
                if items.is_empty() {
                    self.push(
                        Diagnostic::new(n.loc, format!("`enum` of {owner} has no values"))
                            .with_help("list at least one value, e.g. `enum: [failed, skipped]`"),
                    );
                    return None;
                }
                let mut values = Vec::new();
                for item in items {
                    if let NodeKind::Map(_) = &item.kind {
                        let what = format!("a value of `enum` of {owner}");
                        let Some(g) =
                            self.fields(item, &what, ENUM_VALUE_KEYS, ENUM_VALUE_KEYS, item.loc, &what)
                        else {
                            continue;
                        };
                        let name = g.get("name").and_then(|n| self.string(n, "name", &what));
                        let wire = g.get("wire").and_then(|n| self.wire(n, &what));
                        if let (Some(name), Some(wire)) = (name, wire) {
                            self.check_case(&name, Case::LowerSnake, "enum value");
                            values.push((name, Some(wire)));
                        }
                        continue;
                    }
                    let Some(v) = self.string(item, "enum", &owner) else {
                        continue;
                    };
                    if !Case::LowerSnake.matches(&v.value) {
                        let ident = Case::LowerSnake.convert(&v.value);
                        self.push(
                            Diagnostic::new(
                                v.loc,
                                format!("enum value `{}` is not lower_snake_case", v.value),
                            )
                            .with_help(format!(
                                "the value names a Rust variant; to keep `{}` on the wire, write `{{ name: {}, wire: {} }}`",
                                v.value,
                                if Case::LowerSnake.matches(&ident) { ident.as_str() } else { "a_name" },
                                v.value
                            )),
                        );
                    }
                    values.push((v, None));
                }
                Some(values)
            });
            let (values, wires) = match values {
                Some(v) => {
                    let (values, wires): (Vec<_>, Vec<_>) = v.into_iter().unzip();
                    (Some(values), wires)
                }
                None => (None, Vec::new()),
            };
            let union = f.get("union").and_then(|n| {
                let what = format!("`union` of {owner}");
                let loc = f.key_loc("union").unwrap_or(n.loc);
                let g = self.fields(n, &what, UNION_KEYS, UNION_KEYS, loc, &what)?;
                let discriminator = g.get("discriminator").and_then(|n| self.wire(n, &what));
                let variants = g.get("variants").and_then(|n| {
                    let entries = self.entries(
                        n,
                        "variants",
                        &what,
                        "a mapping of object type names to their tags",
                    );
                    if entries.is_empty() {
                        self.push(
                            Diagnostic::new(n.loc, format!("{what} has no variants"))
                                .with_help("map at least one object type to its tag: `{ ErrorInfo: type.googleapis.com/google.rpc.ErrorInfo }`"),
                        );
                        return None;
                    }
                    let mut out = Vec::new();
                    for (ty, tag) in entries {
                        if let Some(tag) = self.wire(&tag, &format!("variant `{}` of {what}", ty.value)) {
                            out.push((ty, tag));
                        }
                    }
                    Some(out)
                });
                Some((discriminator?, variants?))
            });
            let one_of = f.get("one_of").and_then(|n| {
                let NodeKind::Seq(items) = &n.kind else {
                    self.push(wrong_type(
                        n,
                        "one_of",
                        &owner,
                        "a list of scalar types, e.g. `[string, int64, \"null\"]`",
                    ));
                    return None;
                };
                let mut out = Vec::new();
                for item in items {
                    // `null` written plainly is YAML's null; it means the
                    // JSON null here, as the quoted `"null"` does.
                    if let (NodeKind::Scalar(..), Some(ScalarType::Null)) =
                        (&item.kind, item.scalar_type())
                    {
                        out.push(Spanned::new("null".to_owned(), item.loc));
                        continue;
                    }
                    if let Some(t) = self.string(item, "one_of", &owner) {
                        out.push(t);
                    }
                }
                Some(out)
            });
            let kinds = ["members", "enum", "union", "one_of"];
            let written: Vec<&str> = kinds.into_iter().filter(|k| f.get(k).is_some()).collect();
            if written.len() > 1 && written.contains(&"one_of") {
                self.push(
                    Diagnostic::new(
                        f.key_loc("one_of").unwrap_or(name.loc),
                        format!(
                            "{owner} has `one_of` and `{}`",
                            written.iter().find(|k| **k != "one_of").unwrap_or(&"members")
                        ),
                    )
                    .with_help("a type is an object (`members`), an enum (`enum`), a tagged union (`union`) or a union of scalars (`one_of`)"),
                );
            }
            if f.get("union").is_some() && (f.get("members").is_some() || f.get("enum").is_some()) {
                self.push(
                    Diagnostic::new(
                        f.key_loc("union").unwrap_or(name.loc),
                        format!("{owner} has `union` and `members` or `enum`"),
                    )
                    .with_help("a type is an object (`members`), an enum (`enum`) or a tagged union (`union`)"),
                );
            }
            match (f.get("members"), f.get("enum")) {
                (None, None) if f.get("union").is_some() || f.get("one_of").is_some() => {}
                (Some(_), Some(_)) => self.push(
                    Diagnostic::new(
                        f.key_loc("enum").unwrap_or(name.loc),
                        format!("{owner} has both `members` and `enum`"),
                    )
                    .with_related(f.key_loc("members").unwrap_or(name.loc), "`members` here")
                    .with_help(
                        "a type is either an object (`members`) or an enum of strings (`enum`)",
                    ),
                ),
                (None, None) => self.push(
                    Diagnostic::new(
                        name.loc,
                        format!("{owner} has neither `members` nor `enum`"),
                    )
                    .with_help("add `members:` (an object) or `enum: [a, b]` (strings)"),
                ),
                _ => {}
            }
            out.push(DraftType {
                name,
                doc,
                members,
                values,
                wires,
                union,
                one_of,
            });
        }
        out
    }

    /// The `members:` of an object type.
    fn members(&mut self, node: &Node, owner: &str) -> Option<Vec<DraftMember>> {
        let entries = self.named_entries(node, "members", "member")?;
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "member name");
            self.not_keyword(&name, "members become struct fields");
            let what = format!("member `{}` of {owner}", name.value);
            let Some(f) = self.fields(value, &what, MEMBER_KEYS, &["type", "doc"], name.loc, &what)
            else {
                continue;
            };
            let ty = f.get("type").and_then(|n| self.string(n, "type", &what));
            let optional = f
                .get("optional")
                .and_then(|n| self.boolean(n, "optional", &what))
                .is_some_and(|b| b.value);
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &what));
            let wire = f.get("wire").and_then(|n| self.wire(n, &what));
            let nullable = f
                .get("nullable")
                .and_then(|n| self.boolean(n, "nullable", &what))
                .is_some_and(|b| b.value);
            let pattern = f
                .get("pattern")
                .and_then(|n| self.line(n, "pattern", &what));
            let format = f.get("format").and_then(|n| self.format(n, &what));
            out.push(DraftMember {
                name,
                ty,
                optional,
                doc,
                wire,
                nullable,
                pattern,
                format,
            });
        }
        Some(out)
    }

    /// The `fields:` section: the context fields codes may name.
    fn declared_fields(&mut self, node: &Node) -> Vec<DraftField> {
        let Some(entries) = self.named_entries(node, "fields", "field") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::LowerSnake, "field name");
            self.not_keyword(&name, "fields become constructor arguments and methods");
            let what = format!("field `{}`", name.value);
            let Some(f) = self.fields(value, &what, FIELD_KEYS, FIELD_REQUIRED, name.loc, &what)
            else {
                continue;
            };
            let ty = f.get("type").and_then(|n| self.string(n, "type", &what));
            let placement = f.get("in").and_then(|n| {
                let s = self.string(n, "in", &what)?;
                match s.value.as_str() {
                    "top_level" => Some(Spanned::new(Placement::TopLevel, s.loc)),
                    "context" => Some(Spanned::new(Placement::Context, s.loc)),
                    "envelope" => Some(Spanned::new(Placement::Envelope, s.loc)),
                    other => {
                        self.push(
                            Diagnostic::new(
                                s.loc,
                                format!("unknown placement `{other}` of {what}"),
                            )
                            .with_help(suggest(other, PLACEMENTS, "expected")),
                        );
                        None
                    }
                }
            });
            let doc = f.get("doc").and_then(|n| self.line(n, "doc", &what));
            let wire = f.get("wire").and_then(|n| self.wire(n, &what));
            if let Some(n) = f.get("nullable") {
                self.push(
                    Diagnostic::new(
                        f.key_loc("nullable").unwrap_or(n.loc),
                        format!("{what} cannot be `nullable`"),
                    )
                    .with_help(
                        "a context field a code may leave out is listed in its `context.optional`; \
                         `nullable` is for members of a type",
                    ),
                );
            }
            let pattern = f
                .get("pattern")
                .and_then(|n| self.line(n, "pattern", &what));
            let format = f.get("format").and_then(|n| self.format(n, &what));
            out.push(DraftField {
                pattern,
                format,
                name,
                placement,
                ty,
                doc,
                example: f.get("example").cloned(),
                wire,
            });
        }
        out
    }

    fn not_keyword(&mut self, name: &Spanned<String>, why: &str) {
        if RUST_KEYWORDS.contains(&name.value.as_str()) {
            self.push(
                Diagnostic::new(name.loc, format!("name `{}` is a Rust keyword", name.value))
                    .with_help(format!("{why}; choose another name")),
            );
        }
    }

    fn taxonomy(&mut self, node: &Node, key_loc: Loc) -> Option<DraftTaxonomy> {
        let owner = "`taxonomy`";
        let f = self.fields(
            node,
            owner,
            TAXONOMY_KEYS,
            &["name", "version", "base_uri"],
            key_loc,
            "taxonomy",
        )?;
        let name = f.get("name").and_then(|n| self.string(n, "name", owner));
        let version = f
            .get("version")
            .and_then(|n| self.version(n, "version", owner));
        let base_uri = f
            .get("base_uri")
            .and_then(|n| self.string(n, "base_uri", owner));
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
        Some(DraftTaxonomy {
            name,
            version,
            base_uri,
            description,
            range_block,
        })
    }

    fn categories(&mut self, node: &Node) -> Vec<DraftCategory> {
        let Some(entries) = self.named_entries(node, "categories", "category") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in entries {
            self.check_case(&key, Case::LowerSnake, "category key");
            let owner = format!("category `{}`", key.value);
            let Some(f) = self.fields(
                value,
                &owner,
                CATEGORY_KEYS,
                CATEGORY_REQUIRED,
                key.loc,
                &owner,
            ) else {
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
            out.push(DraftCategory {
                key,
                ranges,
                description,
                retryable,
                cause,
                retry_classes,
            });
        }
        out
    }

    fn codes(&mut self, node: &Node) -> Vec<DraftCode> {
        let Some(entries) = self.named_entries(node, "codes", "code") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, value) in entries {
            self.check_case(&name, Case::ScreamingSnake, "code name");
            let owner = format!("code `{}`", name.value);
            let required = [
                "number",
                "category",
                "since",
                "title",
                "message",
                "explanation",
            ];
            let Some(f) = self.fields(value, &owner, CODE_KEYS, &required, name.loc, &owner) else {
                continue;
            };
            let number = f.get("number").and_then(|n| self.number(n, &owner));
            let category = f
                .get("category")
                .and_then(|n| self.string(n, "category", &owner));
            let retryable = f
                .get("retryable")
                .and_then(|n| self.boolean(n, "retryable", &owner));
            let cause = f.get("cause").and_then(|n| self.cause(n, &owner));
            let since = f
                .get("since")
                .and_then(|n| self.version(n, "since", &owner));
            let title = f.get("title").and_then(|n| self.line(n, "title", &owner));
            let message = f
                .get("message")
                .and_then(|n| self.line(n, "message", &owner));
            let explanation = f
                .get("explanation")
                .and_then(|n| self.string(n, "explanation", &owner));
            let (params, broken_params) = f
                .get("params")
                .map(|n| self.params(n, &owner))
                .unwrap_or_default();
            let (recovery_hints, hint_conditions) = match f.get("recovery_hints") {
                Some(n) => match self.hints(n, &owner) {
                    Some((hints, conditions)) => (Some(hints), conditions),
                    None => (None, Vec::new()),
                },
                None => (None, Vec::new()),
            };
            let reported = self.diags.len();
            let (required_context, optional_context) = match f.get("context") {
                Some(n) => self.context(n, &owner, f.key_loc("context").unwrap_or(n.loc)),
                None => (Vec::new(), Vec::new()),
            };
            let context_broken = self.diags.len() > reported;
            let deprecated = f.get("deprecated").and_then(|n| {
                let loc = f.key_loc("deprecated").unwrap_or(n.loc);
                let what = format!("`deprecated` of {owner}");
                let g = self.fields(n, &what, DEPRECATED_KEYS, &["since"], loc, &what)?;
                if g.get("replaced_by").is_none() {
                    self.push(
                        Diagnostic::new(loc, format!("{owner} is deprecated without `replaced_by`"))
                            .with_label("deprecated here")
                            .with_help("name the active code that callers should handle instead: `replaced_by: OTHER_CODE`"),
                    );
                }
                Some(DraftDeprecated {
                    loc,
                    since: g.get("since").and_then(|n| self.version(n, "since", &what)),
                    replaced_by: g.get("replaced_by").and_then(|n| self.string(n, "replaced_by", &what)),
                    note: g.get("note").and_then(|n| self.line(n, "note", &what)),
                })
            });
            let removed = f.get("removed").and_then(|n| {
                let loc = f.key_loc("removed").unwrap_or(n.loc);
                let what = format!("`removed` of {owner}");
                let g = self.fields(n, &what, REMOVED_KEYS, REMOVED_KEYS, loc, &what)?;
                Some(DraftRemoved {
                    loc,
                    since: g.get("since").and_then(|n| self.version(n, "since", &what)),
                    reason: g.get("reason").and_then(|n| self.line(n, "reason", &what)),
                })
            });
            let examples = f
                .get("example")
                .map(|n| self.examples(n, &owner))
                .unwrap_or_default();
            let sent_as = f.get("sent_as").and_then(|n| self.sent_as(n, &owner));
            let wire = f.get("wire").and_then(|n| self.wire(n, &owner));
            let aliases = match f.get("aliases") {
                Some(n) => match &n.kind {
                    NodeKind::Seq(items) => items
                        .iter()
                        .filter_map(|i| self.wire(i, &format!("an alias of {owner}")))
                        .collect(),
                    _ => {
                        self.push(wrong_type(
                            n,
                            "aliases",
                            &owner,
                            "a list of names on the wire",
                        ));
                        Vec::new()
                    }
                },
                None => Vec::new(),
            };
            let constants = f
                .get("constants")
                .map(|n| self.entries(n, "constants", &owner, "a mapping of field names to values"))
                .unwrap_or_default();
            let retry_classes = f
                .get("retry_classes")
                .and_then(|n| self.retry_class_list(n, &owner));
            let attributes = f
                .get("attributes")
                .map(|n| {
                    self.entries(
                        n,
                        "attributes",
                        &owner,
                        "a mapping of attribute names to values",
                    )
                })
                .unwrap_or_default();
            out.push(DraftCode {
                retry_classes,
                attributes,
                wire,
                aliases,
                constants,
                sent_as,
                examples,
                name,
                number,
                category,
                retryable,
                cause,
                title,
                explanation,
                message,
                params,
                broken_params,
                context_broken,
                recovery_hints_broken: recovery_hints.is_none()
                    && f.get("recovery_hints").is_some(),
                recovery_hints,
                hint_conditions,
                required_context,
                optional_context,
                since,
                deprecated,
                removed,
            });
        }
        out
    }

    /// The entries of a code's `example:` mapping; a key written twice is
    /// reported and its second entry dropped. Keys and values are checked by
    /// [`crate::validate`], which knows the params and fields.
    fn examples(&mut self, node: &Node, owner: &str) -> Vec<(Spanned<String>, Node)> {
        self.entries(
            node,
            "example",
            owner,
            "a mapping of parameter and context field names to example values",
        )
    }

    /// The entries of a mapping of names to values (`example:`,
    /// `constants:`); a key written twice is reported and dropped.
    fn entries(
        &mut self,
        node: &Node,
        key: &str,
        owner: &str,
        expected: &str,
    ) -> Vec<(Spanned<String>, Node)> {
        let section = key;
        let NodeKind::Map(entries) = &node.kind else {
            self.push(wrong_type(node, key, owner, expected));
            return Vec::new();
        };
        let mut out: Vec<(Spanned<String>, Node)> = Vec::new();
        for (k, v) in entries {
            let Some(key) = self.key(k, &format!("{section} key")) else {
                continue;
            };
            if let Some((first, _)) = out.iter().find(|(name, _)| name.value == key.value) {
                self.push(duplicate(
                    &key,
                    first.loc,
                    &format!("key `{}` in `{section}` of {owner}", key.value),
                ));
                continue;
            }
            out.push((key, v.clone()));
        }
        out
    }

    /// The readable parameters, and the names of the unreadable ones.
    fn params(&mut self, node: &Node, owner: &str) -> (Vec<Param>, Vec<String>) {
        let NodeKind::Map(entries) = &node.kind else {
            self.push(wrong_type(
                node,
                "params",
                owner,
                "a mapping of parameter names to `{ type, description }`",
            ));
            return (Vec::new(), Vec::new());
        };
        let mut out: Vec<Param> = Vec::new();
        let mut broken = Vec::new();
        for (k, v) in entries {
            let Some(name) = self.key(k, "parameter name") else {
                continue;
            };
            if let Some(first) = out.iter().find(|p| p.name.value == name.value) {
                self.push(duplicate(
                    &name,
                    first.name.loc,
                    &format!("parameter `{}` of {owner}", name.value),
                ));
                continue;
            }
            self.check_case(&name, Case::LowerSnake, "parameter name");
            if RUST_KEYWORDS.contains(&name.value.as_str()) {
                self.push(
                    Diagnostic::new(
                        name.loc,
                        format!("parameter name `{}` is a Rust keyword", name.value),
                    )
                    .with_help("parameters become constructor arguments; choose another name"),
                );
            }
            let what = format!("parameter `{}` of {owner}", name.value);
            let Some(f) = self.fields(v, &what, PARAM_KEYS, PARAM_KEYS, name.loc, &what) else {
                broken.push(name.value);
                continue;
            };
            let ty = f.get("type").and_then(|n| {
                let s = self.string(n, "type", &what)?;
                match s.value.as_str() {
                    "string" => Some(Spanned::new(ParamType::String, s.loc)),
                    "integer" => Some(Spanned::new(ParamType::Integer, s.loc)),
                    other => {
                        self.push(
                            Diagnostic::new(s.loc, format!("unknown parameter type `{other}`"))
                                .with_help(suggest(other, PARAM_TYPES, "expected")),
                        );
                        None
                    }
                }
            });
            let description = f
                .get("description")
                .and_then(|n| self.line(n, "description", &what));
            match (ty, description) {
                (Some(ty), Some(description)) => out.push(Param {
                    name,
                    ty,
                    description,
                }),
                _ => broken.push(name.value),
            }
        }
        (out, broken)
    }

    /// `recovery_hints`: each entry a string (a general hint) or
    /// `{ text: ..., when: { field: value | [values] } }` (a hint that applies
    /// only when the envelope carries `field` with one of the values; the
    /// field and values are checked in `validate`).
    #[allow(clippy::type_complexity)]
    fn hints(
        &mut self,
        node: &Node,
        owner: &str,
    ) -> Option<(Spanned<Vec<Spanned<String>>>, Vec<Option<HintCondition>>)> {
        let NodeKind::Seq(items) = &node.kind else {
            self.push(wrong_type(
                node,
                "recovery_hints",
                owner,
                "a list of strings",
            ));
            return None;
        };
        let mut hints = Vec::new();
        let mut conditions = Vec::new();
        for n in items {
            if !matches!(n.kind, NodeKind::Map(_)) {
                if let Some(h) = self.line(n, "recovery_hints", owner) {
                    hints.push(h);
                    conditions.push(None);
                }
                continue;
            }
            let what = format!("a recovery hint of {owner}");
            let Some(f) = self.fields(n, &what, HINT_KEYS, HINT_KEYS, n.loc, &what) else {
                continue;
            };
            let text = f.get("text").and_then(|t| self.line(t, "text", &what));
            let when = f.get("when").and_then(|w| self.condition(w, &what));
            if let (Some(text), Some(when)) = (text, when) {
                hints.push(text);
                conditions.push(Some(when));
            }
        }
        Some((Spanned::new(hints, node.loc), conditions))
    }

    /// `when: { field: value }` or `when: { field: [value, ...] }`.
    fn condition(&mut self, node: &Node, owner: &str) -> Option<HintCondition> {
        let what = format!("`when` of {owner}");
        let help = "write `when: { field: value }` or `when: { field: [value, ...] }`, \
                    naming one enum context field the code carries";
        let NodeKind::Map(entries) = &node.kind else {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!("{what} must be a mapping, found {}", node.describe()),
                )
                .with_help(help),
            );
            return None;
        };
        let [(k, v)] = entries.as_slice() else {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!(
                        "{what} must name exactly one field, found {}",
                        entries.len()
                    ),
                )
                .with_help(help),
            );
            return None;
        };
        let field = self.key(k, "field name")?;
        let values: Vec<Spanned<String>> = match &v.kind {
            NodeKind::Seq(items) => items
                .iter()
                .filter_map(|i| self.string(i, &field.value, &what))
                .collect(),
            _ => self.string(v, &field.value, &what).into_iter().collect(),
        };
        if values.is_empty() {
            self.push(
                Diagnostic::new(
                    v.loc,
                    format!("{what} lists no value for `{}`", field.value),
                )
                .with_help(help),
            );
            return None;
        }
        Some(HintCondition { field, values })
    }

    fn context(
        &mut self,
        node: &Node,
        owner: &str,
        key_loc: Loc,
    ) -> (Vec<Spanned<String>>, Vec<Spanned<String>>) {
        let what = format!("`context` of {owner}");
        let Some(f) = self.fields(node, &what, CONTEXT_KEYS, &[], key_loc, &what) else {
            return (Vec::new(), Vec::new());
        };
        // Whether each name is declared is checked in `validate`, where the
        // `fields:` section is known.
        let mut lists = CONTEXT_KEYS.iter().map(|key| {
            let Some(n) = f.get(key) else {
                return Vec::new();
            };
            let NodeKind::Seq(items) = &n.kind else {
                self.push(wrong_type(n, key, &what, "a list of context field names"));
                return Vec::new();
            };
            items
                .iter()
                .filter_map(|item| self.string(item, key, &what))
                .collect()
        });
        let required = lists.next().unwrap_or_default();
        let optional = lists.next().unwrap_or_default();
        (required, optional)
    }

    // ---- shapes -------------------------------------------------------

    /// Checks that `node` is a mapping whose keys are in `allowed` (once
    /// each) and include `required`; returns its entries.
    fn fields<'n>(
        &mut self,
        node: &'n Node,
        owner: &str,
        allowed: &[&'static str],
        required: &[&str],
        owner_loc: Loc,
        owner_label: &str,
    ) -> Option<Fields<'n>> {
        let NodeKind::Map(entries) = &node.kind else {
            let expected = if required.is_empty() {
                format!("a mapping with {}", list(allowed))
            } else {
                format!("a mapping with {}", list_all(required))
            };
            let d = match node.scalar_type() {
                Some(ScalarType::Null) => Diagnostic::new(owner_loc, format!("{owner} is empty"))
                    .with_label(format!("{owner_label} has no value"))
                    .with_help(format!("expected {expected}")),
                _ => Diagnostic::new(
                    node.loc,
                    format!("{owner} must be a mapping, found {}", node.describe()),
                )
                .with_help(format!("expected {expected}")),
            };
            self.push(d);
            return None;
        };
        let mut fields = Fields {
            entries: Vec::new(),
        };
        for (k, v) in entries {
            let Some(key) = self.key(k, "key") else {
                continue;
            };
            if let Some((_, first, _)) = fields
                .entries
                .iter()
                .find(|(name, _, _)| *name == key.value)
            {
                self.push(duplicate(
                    &key,
                    first.loc,
                    &format!("key `{}` in {owner}", key.value),
                ));
                continue;
            }
            if !allowed.contains(&key.value.as_str()) {
                let mut d =
                    Diagnostic::new(key.loc, format!("unknown key `{}` in {owner}", key.value))
                        .with_label("unknown key");
                // `{ doc: The limit, in bytes. }`: the comma ended the value
                // and its rest became a key without a value. A single word
                // is taken for the rest of a value when it ends like a
                // sentence (`{ doc: The reason, UPPER_SNAKE_CASE. }`); keys
                // never do.
                let valueless =
                    matches!(&v.kind, NodeKind::Scalar(text, Style::Plain) if text.is_empty());
                let prose = key.value.contains(' ') || key.value.ends_with(['.', '!', '?', ')']);
                if valueless && prose {
                    d = d.with_help(format!(
                        "`{}` looks like the rest of the previous value: inside `{{ ... }}` a comma \
                         ends a value; quote the value (\"...\") that contains the comma",
                        key.value
                    ));
                } else {
                    d = d.with_help(suggest(&key.value, allowed, "expected one of"));
                }
                self.push(d);
                continue;
            }
            let name = allowed
                .iter()
                .find(|a| **a == key.value)
                .copied()
                .unwrap_or_default();
            fields.entries.push((name, k, v));
        }
        for key in required {
            if fields.get(key).is_none() {
                self.push(missing(owner_loc, owner, key));
            }
        }
        Some(fields)
    }

    /// The entries of a map keyed by user-chosen names (categories, codes),
    /// duplicates reported and dropped.
    fn named_entries<'n>(
        &mut self,
        node: &'n Node,
        key: &str,
        what: &str,
    ) -> Option<Vec<(Spanned<String>, &'n Node)>> {
        let NodeKind::Map(entries) = &node.kind else {
            if node.scalar_type() == Some(ScalarType::Null) {
                return Some(Vec::new());
            }
            self.push(wrong_type(
                node,
                key,
                "the spec",
                &format!("a mapping keyed by {what} name"),
            ));
            return None;
        };
        let mut out: Vec<(Spanned<String>, &Node)> = Vec::new();
        let mut seen: HashMap<&str, Loc> = HashMap::new();
        for (k, v) in entries {
            let Some(name) = self.key(k, &format!("{what} name")) else {
                continue;
            };
            if let Some(&first) = seen.get(k.as_scalar().unwrap_or_default()) {
                self.push(
                    Diagnostic::new(
                        name.loc,
                        format!("{what} `{}` is defined twice", name.value),
                    )
                    .with_label("second definition")
                    .with_related(first, "first defined here")
                    .with_help(format!(
                        "give each {what} a unique name, or merge the two entries"
                    )),
                );
                continue;
            }
            seen.insert(k.as_scalar().unwrap_or_default(), name.loc);
            out.push((name, v));
        }
        Some(out)
    }

    /// A mapping key: any scalar's text.
    fn key(&mut self, node: &Node, what: &str) -> Option<Spanned<String>> {
        match &node.kind {
            NodeKind::Scalar(s, _) => Some(Spanned::new(s.clone(), node.loc)),
            _ => {
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!("{what} must be a plain string, found {}", node.describe()),
                    )
                    .with_help("complex YAML keys are not supported"),
                );
                None
            }
        }
    }

    fn check_case(&mut self, name: &Spanned<String>, case: Case, what: &str) {
        if case.matches(&name.value) {
            return;
        }
        let fixed = case.convert(&name.value);
        let help = if case.matches(&fixed) {
            format!("rename it to `{fixed}`")
        } else {
            format!("use {}, e.g. `{}`", case.describe(), case.example())
        };
        self.push(
            Diagnostic::new(
                name.loc,
                format!("{what} `{}` is not {}", name.value, case.describe()),
            )
            .with_help(help),
        );
    }

    // ---- scalars ------------------------------------------------------

    fn string(&mut self, node: &Node, key: &str, owner: &str) -> Option<Spanned<String>> {
        match (&node.kind, node.scalar_type()) {
            (NodeKind::Scalar(s, _), Some(ScalarType::Str)) => {
                Some(Spanned::new(s.clone(), node.loc))
            }
            (NodeKind::Scalar(..), Some(ScalarType::Null)) => {
                self.push(
                    Diagnostic::new(node.loc, format!("{} has no value", name_of(key, owner)))
                        .with_help(format!("write a string after `{key}:`"))
                        .with_label("empty"),
                );
                None
            }
            (NodeKind::Scalar(s, _), _) => {
                self.push(
                    Diagnostic::new(
                        node.loc,
                        format!(
                            "{} must be a string, found {}",
                            name_of(key, owner),
                            node.describe()
                        ),
                    )
                    .with_help(format!("quote it: `\"{s}\"`")),
                );
                None
            }
            _ => {
                self.push(wrong_type(node, key, owner, "a string"));
                None
            }
        }
    }

    /// A one-line string: a trailing newline (from a block scalar) is
    /// dropped; an embedded newline is an error.
    fn line(&mut self, node: &Node, key: &str, owner: &str) -> Option<Spanned<String>> {
        let mut s = self.string(node, key, owner)?;
        let trimmed = s.value.trim_end_matches('\n').len();
        s.value.truncate(trimmed);
        if s.value.contains('\n') {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!("{} must be a single line", name_of(key, owner)),
                )
                .with_help("use a folded block (`>-`) or join the lines"),
            );
            return None;
        }
        Some(s)
    }

    /// `format:`, one of [`crate::context::FORMATS`].
    fn format(&mut self, node: &Node, owner: &str) -> Option<Spanned<String>> {
        let s = self.line(node, "format", owner)?;
        if crate::context::FORMATS.contains(&s.value.as_str()) {
            return Some(s);
        }
        self.push(
            Diagnostic::new(node.loc, format!("unknown format `{}` of {owner}", s.value))
                .with_help(suggest(
                    &s.value,
                    crate::context::FORMATS,
                    "the formats are",
                )),
        );
        None
    }

    /// `wire:`, a name on the wire: any one-line string but an empty one.
    fn wire(&mut self, node: &Node, owner: &str) -> Option<Spanned<String>> {
        let s = self.line(node, "wire", owner)?;
        if s.value.is_empty() {
            self.push(
                Diagnostic::new(node.loc, format!("`wire` of {owner} is empty")).with_help(
                    "write the name used on the wire, or drop `wire` to use the identifier",
                ),
            );
            return None;
        }
        Some(s)
    }

    fn boolean(&mut self, node: &Node, key: &str, owner: &str) -> Option<Spanned<bool>> {
        match node.scalar_type() {
            Some(ScalarType::Bool(b)) => Some(Spanned::new(b, node.loc)),
            _ => {
                self.push(wrong_type(node, key, owner, "`true` or `false`"));
                None
            }
        }
    }

    fn number(&mut self, node: &Node, owner: &str) -> Option<Spanned<i64>> {
        match node.scalar_type() {
            Some(ScalarType::Int(n)) => match i64::try_from(n) {
                Ok(n) => Some(Spanned::new(n, node.loc)),
                Err(_) => {
                    self.push(
                        Diagnostic::new(node.loc, format!("`number` of {owner} is out of range: {n}"))
                            .with_help("numbers are 64-bit integers (negative ones too, e.g. JSON-RPC's `-32700`) inside the category's range"),
                    );
                    None
                }
            },
            _ => {
                self.push(wrong_type(node, "number", owner, "an integer"));
                None
            }
        }
    }

    fn version(&mut self, node: &Node, key: &str, owner: &str) -> Option<Spanned<semver::Version>> {
        if matches!(
            node.scalar_type(),
            Some(ScalarType::Float | ScalarType::Int(_))
        ) {
            self.push(
                Diagnostic::new(
                    node.loc,
                    format!(
                        "{} must be a semver version, found {}",
                        name_of(key, owner),
                        node.describe()
                    ),
                )
                .with_help("write all three parts, MAJOR.MINOR.PATCH, e.g. `1.0.0`"),
            );
            return None;
        }
        let s = self.string(node, key, owner)?;
        match semver::Version::parse(s.value.trim()) {
            Ok(v) => Some(Spanned::new(v, s.loc)),
            Err(e) => {
                self.push(
                    Diagnostic::new(
                        s.loc,
                        format!("{} is not a semver version: {e}", name_of(key, owner)),
                    )
                    .with_label(format!("`{}`", s.value))
                    .with_help("write it as MAJOR.MINOR.PATCH, e.g. `1.0.0`"),
                );
                None
            }
        }
    }

    fn cause(&mut self, node: &Node, owner: &str) -> Option<Spanned<Cause>> {
        let s = self.string(node, "cause", owner)?;
        match Cause::ALL.iter().find(|c| c.as_str() == s.value) {
            Some(c) => Some(Spanned::new(*c, s.loc)),
            None => {
                self.push(
                    Diagnostic::new(s.loc, format!("unknown cause `{}` in {owner}", s.value))
                        .with_help(suggest(&s.value, CAUSES, "expected")),
                );
                None
            }
        }
    }

    fn sent_as(&mut self, node: &Node, owner: &str) -> Option<Spanned<SentAs>> {
        let s = self.string(node, "sent_as", owner)?;
        match SentAs::ALL.iter().find(|v| v.as_str() == s.value) {
            Some(v) => Some(Spanned::new(*v, s.loc)),
            None => {
                let expected: Vec<&str> = SentAs::ALL.iter().map(|v| v.as_str()).collect();
                self.push(
                    Diagnostic::new(s.loc, format!("unknown sent_as `{}` in {owner}", s.value))
                        .with_help(suggest(&s.value, &expected, "expected")),
                );
                None
            }
        }
    }

    /// `range`: one `[low, high]`, or a list of them (`[[0, 0], [3, 5]]`).
    fn ranges(&mut self, node: &Node, owner: &str) -> Vec<Spanned<(i64, i64)>> {
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

    fn range(&mut self, node: &Node, owner: &str) -> Option<Spanned<(i64, i64)>> {
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

/// "`number` of code `X`", or just "`version`" at the top.
fn name_of(key: &str, owner: &str) -> String {
    if owner.is_empty() {
        format!("`{key}`")
    } else {
        format!("`{key}` of {owner}")
    }
}

fn wrong_type(node: &Node, key: &str, owner: &str, expected: &str) -> Diagnostic {
    let d = Diagnostic::new(
        node.loc,
        format!(
            "{} must be {expected}, found {}",
            name_of(key, owner),
            node.describe()
        ),
    );
    match &node.kind {
        NodeKind::Scalar(_, Style::Quoted)
            if expected == "an integer" || expected.starts_with("`true`") =>
        {
            d.with_help("remove the quotes")
        }
        NodeKind::Scalar(s, _) if expected.starts_with("a list") && !s.is_empty() => {
            d.with_help(format!("write a list, even of one item: `[{s}]`"))
        }
        _ => d,
    }
}

fn missing(owner_loc: Loc, owner: &str, key: &str) -> Diagnostic {
    let what = match key {
        "number" => "its numeric id, inside the category's range",
        "category" => "the key of its category",
        "since" => "the taxonomy version that introduced it, e.g. `1.0.0`",
        "title" => "a one-line summary, lowercase, no final period",
        "message" => "the message template, with `{param}` placeholders",
        "explanation" => "a Markdown explanation: what happened, an example, how to fix",
        "range" => "its inclusive numeric range, e.g. `[1000, 1999]`",
        "retryable" => "whether the caller can fix its call and retry (`true`/`false`)",
        "cause" => "who is to blame by default: `input`, `environment` or `server`",
        "version" => "the semver version of the taxonomy, e.g. `1.0.0`",
        "base_uri" => "the base URI of the published schema, e.g. `schema://splice`",
        "reason" => "why the code was removed",
        "type" => "`string` or `integer`",
        "taxonomy" => "`name`, `version` and `base_uri`",
        "categories" => "a mapping of category keys to their range and defaults",
        "codes" => "a mapping of code names to their definitions",
        "name" => "a human name",
        "description" => "a one-line description",
        _ => "a value",
    };
    Diagnostic::new(owner_loc, format!("{owner} is missing `{key}`"))
        .with_label(format!("`{key}` is required here"))
        .with_help(format!("add `{key}:` with {what}"))
}

fn duplicate(key: &Spanned<String>, first: Loc, what: &str) -> Diagnostic {
    Diagnostic::new(key.loc, format!("duplicate {what}"))
        .with_label("second definition")
        .with_related(first, "first defined here")
        .with_help("remove one of them")
}

/// Reads `root` into a draft; `diags` (the parser's warnings) gains every
/// problem found. `None` when the document is not a mapping at all.
pub(crate) fn lower(root: &Node, diags: Vec<Diagnostic>) -> (Option<Draft>, Vec<Diagnostic>) {
    let mut lower = Lower { diags };
    let draft = lower.root(root);
    (draft, lower.diags)
}
