//! `ErrorEnvelope`, `ErrorContext` and the structs of a declared envelope's
//! nested objects, in the shape `errors.yaml` declares; the hidden wire
//! struct a declared envelope deserializes through, with the checks its
//! shape cannot express (a code's required context, constants, the number
//! beside the name).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::case::Case;
use crate::context::{FieldDef, Placement};
use crate::envelope::{Carries, Envelope, Member};
use crate::span::Loc;
use crate::spec::Spec;

use super::ITEMS;
use super::any::{unlisted_fields, unlisted_struct};
use super::tokens::{
    constant_literal, field_ident, field_type, ident, number_literal, number_type, rename,
    upper_camel, variant_ident,
};
use super::types::{eq_derive, null_as_value};

/// The Rust field name of an envelope member: its wire name in
/// lower_snake_case (`retryDelay` -> `retry_delay`, `@type` -> `r#type`);
/// serde renames it back when the two differ.
pub(super) fn member_ident(member: &Member) -> Ident {
    ident(&Case::LowerSnake.convert(&member.name.value))
}

/// `#[serde(rename = "...")]` for a member whose wire name is not its
/// Rust field name; nothing otherwise (splice's members).
pub(super) fn member_rename(member: &Member) -> TokenStream {
    let wire = &member.name.value;
    if Case::LowerSnake.convert(wire) == *wire {
        TokenStream::new()
    } else {
        quote!(#[serde(rename = #wire)])
    }
}

/// The struct of a nested object of the envelope: `ErrorEnvelope` and the
/// members from the top (`error` -> `ErrorEnvelopeError`).
pub(super) fn object_struct(path: &[&Member]) -> Ident {
    let mut name = String::from("ErrorEnvelope");
    for m in path {
        name.push_str(&upper_camel(&m.name.value));
    }
    ident(&name)
}

/// The members from the top of the envelope down to the one at `names`
/// (wire names, as [`Envelope::path_of`] gives them).
pub(super) fn resolve<'e>(envelope: &'e Envelope, names: &[&str]) -> Vec<&'e Member> {
    let mut members: &[Member] = &envelope.members;
    let mut out = Vec::new();
    for name in names {
        let Some(m) = members.iter().find(|m| m.name.value == *name) else {
            break;
        };
        if let Carries::Object(inner) = &m.carries {
            members = inner;
        }
        out.push(m);
    }
    out
}

/// The declared fields the object at `path` holds: `in: top_level` in the
/// object holding the code, `in: envelope` in the outermost one.
pub(super) fn held_fields<'s>(spec: &'s Spec, path: &[&Member]) -> Vec<&'s FieldDef> {
    let names: Vec<&str> = path.iter().map(|m| m.name.value.as_str()).collect();
    spec.fields_held_at(&names).collect()
}

/// Whether the Rust types hold `m` as a value rather than an `Option`: a
/// required member, or the code name with `absent_means` (an envelope
/// without it reads as that code, see [`absent_default`]).
pub(super) fn in_every_envelope(m: &Member) -> bool {
    m.required || m.absent_means.is_some()
}

/// The function serde calls for a code name that `absent_means` lets an
/// envelope leave out: it returns that code.
pub(super) fn absent_default(spec: &Spec) -> TokenStream {
    let Some(code) = spec
        .envelope
        .absent_code()
        .and_then(|a| spec.code(&a.value))
    else {
        return TokenStream::new();
    };
    let variant = variant_ident(code);
    quote! {
        /// The code of an envelope without its code name (`absent_means`).
        #[doc(hidden)]
        #[allow(deprecated)]
        fn __splice_absent_code() -> ErrorCode {
            ErrorCode::#variant
        }
    }
}

/// `.a.b` for the members of `path`.
pub(super) fn access(path: &[&Member]) -> TokenStream {
    let idents = path.iter().map(|m| member_ident(m));
    quote!(#(.#idents)*)
}

/// Where `ErrorEnvelope` keeps what the generated code reads and writes,
/// from the spec's `envelope:` (splice's: `.error_code`, `.recovery_hints`,
/// `.context` and the fields at the top).
pub(super) struct Layout {
    /// The object holding the fields declared `in: top_level`.
    pub(super) fields: TokenStream,
    /// The member holding the `ErrorCode`: the one carrying the code name,
    /// else the one carrying the number.
    pub(super) code: TokenStream,
    /// No member carries the code name: the number member holds the
    /// `ErrorCode`, on the wire as its number.
    pub(super) by_number: bool,
    /// The member carrying the hints, and whether it is always present.
    pub(super) hints: Option<(TokenStream, bool)>,
    /// The member carrying the context object (an `Option<ErrorContext>`).
    pub(super) context: Option<TokenStream>,
}

impl Layout {
    pub(super) fn of(envelope: &Envelope) -> Layout {
        let path = |property: &str| envelope.path_of(property).map(|p| resolve(envelope, &p));
        let by_number = !envelope.carries("code_name");
        Layout {
            fields: access(&resolve(envelope, &envelope.fields_path())),
            code: access(&path(if by_number { "number" } else { "code_name" }).unwrap_or_default()),
            by_number,
            hints: path("hints").map(|p| {
                let required = p.last().is_some_and(|m| m.required);
                (access(&p), required)
            }),
            context: path("context").map(|p| access(&p)),
        }
    }
}

/// Why `taxonomy!` and `splice-codegen rust` cannot generate types for this
/// spec's envelope (`None`: they can). `check` accepts these specs; the
/// published schema follows them.
pub fn unsupported(spec: &Spec) -> Option<crate::Diagnostic> {
    use crate::Diagnostic;
    let envelope = &spec.envelope;
    let code_property = if envelope.carries("code_name") {
        "code_name"
    } else {
        "number"
    };
    if let Some(path) = envelope.path_of(code_property) {
        let path = resolve(envelope, &path);
        if let Some(m) = path.iter().find(|m| !in_every_envelope(m)) {
            let what = if path.last().is_some_and(|last| std::ptr::eq(*last, *m)) {
                format!(
                    "envelope member `{}` carries `{code_property}`",
                    m.name.value
                )
            } else {
                format!(
                    "envelope member `{}` holds the member carrying `{code_property}`",
                    m.name.value
                )
            };
            return Some(
                Diagnostic::new(m.name.loc, format!("{what} and is optional"))
                    .with_label("optional here")
                    .with_help(
                        "the Rust types read the code from every envelope (it selects the \
                         code's required context); remove `optional` on the way to it",
                    ),
            );
        }
    }
    if !envelope.carries("context")
        && let Some(f) = spec.fields_at(Placement::Context).next()
    {
        return Some(
            Diagnostic::new(
                f.name.loc,
                format!(
                    "field `{}` is declared `in: context` but no envelope member carries `context`",
                    f.name()
                ),
            )
            .with_help(
                "add a member with `carries: context`, or declare the field `in: top_level`",
            ),
        );
    }
    // Two members (or a member and a top-level field) of one object whose
    // Rust names collide, and nested structs named like another item.
    fn walk<'e>(
        spec: &'e Spec,
        members: &'e [Member],
        path: &mut Vec<&'e Member>,
        structs: &mut Vec<(String, Loc)>,
    ) -> Option<crate::Diagnostic> {
        let mut seen: Vec<(String, &str, Loc)> = Vec::new();
        let fields = held_fields(spec, path)
            .into_iter()
            .map(|f| (f.name().to_owned(), f.name(), f.name.loc));
        let members_named = members.iter().map(|m| {
            (
                member_ident(m).to_string(),
                m.name.value.as_str(),
                m.name.loc,
            )
        });
        for (rust, wire, loc) in members_named.chain(fields) {
            if let Some((_, first, first_loc)) = seen.iter().find(|(r, _, _)| *r == rust) {
                return Some(
                    crate::Diagnostic::new(
                        loc,
                        format!("`{wire}` and `{first}` are both `{rust}` in the Rust types"),
                    )
                    .with_related(*first_loc, "first here")
                    .with_help("the Rust field of a member is its wire name in lower_snake_case; rename one of them"),
                );
            }
            seen.push((rust, wire, loc));
        }
        for m in members {
            if let Carries::Object(inner) = &m.carries {
                if !m.required {
                    return Some(
                        crate::Diagnostic::new(
                            m.name.loc,
                            format!("envelope member `{}` is an optional object", m.name.value),
                        )
                        .with_label("optional here")
                        .with_help("the Rust types support optional members that carry a property, not optional objects; remove `optional`"),
                    );
                }
                path.push(m);
                structs.push((object_struct(path).to_string(), m.name.loc));
                structs.push((unlisted_struct(path).to_string(), m.name.loc));
                if let Some(d) = walk(spec, inner, path, structs) {
                    return Some(d);
                }
                path.pop();
            }
        }
        None
    }
    let mut structs = Vec::new();
    if let Some(d) = walk(spec, &envelope.members, &mut Vec::new(), &mut structs) {
        return Some(d);
    }
    for (name, loc) in structs {
        if ITEMS.contains(&name.as_str()) || spec.type_def(&name).is_some() {
            return Some(
                crate::Diagnostic::new(
                    loc,
                    format!("this object's Rust struct `{name}` is the name of another item"),
                )
                .with_help("rename the member or the declared type"),
            );
        }
    }
    None
}

/// The Rust doc of an envelope member: its `doc:` in a declared envelope,
/// else one per property (splice's envelope has exactly these).
pub(super) fn member_doc(spec: &Spec, member: &Member) -> String {
    if spec.envelope.declared
        && let Some(doc) = &member.doc
    {
        return format!(" {}", doc.value.trim());
    }
    match &member.carries {
        Carries::Constant(v) => format!(" Always `{v}`."),
        Carries::CodeName if spec.envelope.declared => " The code's name.".to_owned(),
        Carries::CodeName => " The code, as its SCREAMING_SNAKE name.".to_owned(),
        Carries::Number => " The numeric code.".to_owned(),
        Carries::Category => " The code's category.".to_owned(),
        Carries::Message => " The rendered message.".to_owned(),
        Carries::Retryable => " Whether the caller can fix its input and retry.".to_owned(),
        Carries::Cause => " Who is to blame.".to_owned(),
        Carries::Hints => " The rendered recovery hints.".to_owned(),
        Carries::Context => format!(
            " Details that live in the `{}` object; omitted when empty.",
            member.name.value
        ),
        Carries::Object(_) => format!(" The `{}` object of the envelope.", member.name.value),
    }
}

/// The Rust type of a constant member's value.
pub(super) fn constant_type(value: &serde_json::Value) -> TokenStream {
    match value {
        serde_json::Value::Bool(_) => quote!(bool),
        serde_json::Value::Number(_) => quote!(i64),
        _ => quote!(::std::string::String),
    }
}

/// A constant member's value as an expression.
pub(super) fn constant_value(value: &serde_json::Value) -> TokenStream {
    match value {
        serde_json::Value::Bool(b) => quote!(#b),
        serde_json::Value::Number(n) => number_literal(n.as_i64().unwrap_or_default()),
        serde_json::Value::String(s) => quote!(::std::string::String::from(#s)),
        other => {
            let s = other.to_string();
            quote!(::std::string::String::from(#s))
        }
    }
}

/// A constant member's value as a literal to compare with.
pub(super) fn constant_pattern(value: &serde_json::Value) -> TokenStream {
    match value {
        serde_json::Value::String(s) => quote!(#s),
        other => constant_value(other),
    }
}

/// The Rust fields of one object of the envelope: its members in wire
/// order, with the top-level fields before its `context` member (or at its
/// end) when it is the object that holds them.
pub(super) fn object_fields(spec: &Spec, members: &[Member], path: &[&Member]) -> Vec<TokenStream> {
    let env = &spec.envelope;
    let number_type = number_type(spec);
    let top_level: Vec<TokenStream> = held_fields(spec, path)
        .into_iter()
        .map(|f| optional_field(spec, f))
        .collect();
    let holds_fields = !top_level.is_empty();
    let mut out = Vec::new();
    let mut placed = false;
    for m in members {
        let name = member_ident(m);
        let rename = member_rename(m);
        let doc = member_doc(spec, m);
        let doc = quote!(#[doc = #doc]);
        if let Carries::Context = m.carries {
            if holds_fields {
                out.extend(top_level.iter().cloned());
                placed = true;
            }
            out.push(quote! {
                #doc
                #rename
                #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
                pub #name: ::core::option::Option<ErrorContext>,
            });
            continue;
        }
        let mut attrs = TokenStream::new();
        let ty = match &m.carries {
            Carries::Constant(v) => constant_type(v),
            Carries::CodeName => quote!(ErrorCode),
            Carries::Number if Layout::of(env).by_number => {
                let schema = number_type.to_string();
                attrs = quote!(#[serde(with = "__splice_code_number")] #[schemars(with = #schema)]);
                quote!(ErrorCode)
            }
            Carries::Number => number_type.clone(),
            Carries::Category => quote!(Category),
            Carries::Retryable => quote!(bool),
            Carries::Cause => quote!(Cause),
            Carries::Hints => quote!(::std::vec::Vec<::std::string::String>),
            Carries::Message => quote!(::std::string::String),
            Carries::Context => unreachable!("handled above"),
            Carries::Object(_) => {
                let mut inner = path.to_vec();
                inner.push(m);
                let ty = object_struct(&inner);
                quote!(#ty)
            }
        };
        if m.absent_means.is_some() {
            attrs = quote!(#attrs #[serde(default = "__splice_absent_code")]);
        }
        out.push(if in_every_envelope(m) {
            quote! {
                #doc
                #rename
                #attrs
                pub #name: #ty,
            }
        } else {
            quote! {
                #doc
                #rename
                #attrs
                #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
                pub #name: ::core::option::Option<#ty>,
            }
        });
    }
    if !placed {
        out.extend(top_level);
    }
    out
}

/// A declared field as an optional struct field of the envelope or its
/// context.
pub(super) fn optional_field(spec: &Spec, f: &FieldDef) -> TokenStream {
    let name = field_ident(f);
    let ty = field_type(f.ty(), &TokenStream::new());
    let doc = f.doc();
    let rename = rename(f.wire.as_ref());
    let null = null_as_value(spec, f.ty());
    quote! {
        #[doc = #doc]
        #rename
        #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
        #null
        pub #name: ::core::option::Option<#ty>,
    }
}

/// Which envelope type a nested object's struct belongs to.
#[derive(Clone, Copy)]
pub(super) enum Family<'t> {
    /// `ErrorEnvelope` (`ErrorEnvelopeError`), with the spec's `Eq` derive.
    Listed(&'t TokenStream),
    /// `UnlistedCodeEnvelope` (`UnlistedCodeEnvelopeError`).
    Unlisted,
}

/// The structs of the envelope's nested objects, depth first.
pub(super) fn nested_structs<'e>(
    spec: &Spec,
    members: &'e [Member],
    path: &mut Vec<&'e Member>,
    family: Family<'_>,
) -> TokenStream {
    let mut out = TokenStream::new();
    for m in members {
        let Carries::Object(inner) = &m.carries else {
            continue;
        };
        path.push(m);
        let doc = member_doc(spec, m);
        let (name, fields, derives) = match family {
            Family::Listed(eq) => (
                object_struct(path),
                object_fields(spec, inner, path),
                quote! {
                    ::core::clone::Clone, ::core::cmp::PartialEq, #eq ::core::fmt::Debug,
                    ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
                },
            ),
            Family::Unlisted => (
                unlisted_struct(path),
                unlisted_fields(spec, inner, path),
                quote! {
                    ::core::clone::Clone, ::core::cmp::PartialEq, ::core::fmt::Debug,
                    ::serde::Serialize, ::serde::Deserialize,
                },
            ),
        };
        out.extend(quote! {
            #[doc = #doc]
            #[derive(#derives)]
            #[allow(dead_code)]
            pub struct #name {
                #(#fields)*
            }
        });
        out.extend(nested_structs(spec, inner, path, family));
        path.pop();
    }
    out
}

pub(super) fn emit_envelope(spec: &Spec) -> TokenStream {
    let env = &spec.envelope;
    let in_context = spec
        .fields_at(Placement::Context)
        .map(|f| optional_field(spec, f));
    let eq = eq_derive(spec);
    let fields = object_fields(spec, &env.members, &[]);
    let context_name = env
        .path_of("context")
        .and_then(|p| p.last().copied())
        .unwrap_or("context");
    let context_doc =
        format!(" Details of an error that live in the envelope's `{context_name}` object.");
    // A declared envelope's objects accept members they do not declare, as
    // its open schema does (a later release, or the transport, may add
    // some: botocore's `ResponseMetadata`); they are not kept. splice's
    // own envelope stays closed.
    let (wire, container) = if env.declared {
        (
            emit_wire_envelope(spec),
            quote!(#[serde(try_from = "__SpliceWireEnvelope")]),
        )
    } else {
        (TokenStream::new(), quote!(#[serde(deny_unknown_fields)]))
    };
    let nested = nested_structs(spec, &env.members, &mut Vec::new(), Family::Listed(&eq));
    let absent = absent_default(spec);
    let doc = if env.declared {
        let example = spec.emitted_codes().next().map_or_else(
            || "match_not_found".to_owned(),
            |c| c.name.value.to_ascii_lowercase(),
        );
        let constructor =
            format!(" `ErrorEnvelope::{example}(..)`), which fills what the spec fixes");
        quote! {
            /// The JSON error envelope returned for every failed call, in the
            /// shape `errors.yaml` declares (`envelope:`).
            ///
            /// Build one with the constructor named after its code (e.g.
            #[doc = #constructor]
            /// per code. Deserializing checks the code's required context.
        }
    } else {
        quote! {
            /// The JSON error envelope returned for every failed call.
            ///
            /// Build one with the constructor named after its code (e.g.
            /// `ErrorEnvelope::match_not_found(..)`), which fills the number,
            /// category, `retryable`, `cause`, message and hints from the spec.
        }
    };
    quote! {
        #[doc = #context_doc]
        /// Which fields a code carries is fixed by `errors.yaml`.
        #[derive(
            ::core::clone::Clone, ::core::cmp::PartialEq, #eq ::core::fmt::Debug,
            ::core::default::Default, ::serde::Serialize, ::serde::Deserialize,
            ::schemars::JsonSchema,
        )]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        pub struct ErrorContext {
            #(#in_context)*
        }

        #doc
        #[derive(
            ::core::clone::Clone, ::core::cmp::PartialEq, #eq ::core::fmt::Debug,
            ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
        )]
        #container
        #[allow(dead_code)]
        pub struct ErrorEnvelope {
            #(#fields)*
        }

        #nested
        #wire
        #absent
    }
}

/// What a declared envelope deserializes through: the same members in a
/// hidden struct, then `TryFrom` checks what serde cannot (the code's
/// required context, the constants, a number that matches the code), so
/// that a payload missing a code's required field is rejected like any
/// other malformed one.
pub(super) fn emit_wire_envelope(spec: &Spec) -> TokenStream {
    let env = &spec.envelope;
    let layout = Layout::of(env);
    let number_type = number_type(spec);
    // The same fields as `ErrorEnvelope`'s: the schema of its
    // deserialization is this struct's (schemars follows `try_from`).
    let fields = object_fields(spec, &env.members, &[]);
    let moves: Vec<Ident> = env.members.iter().map(member_ident).collect();
    let top_moves = held_fields(spec, &[])
        .into_iter()
        .map(field_ident)
        .collect::<Vec<_>>();
    let code = &layout.code;
    // Constants and the number, when the code is told by its name.
    let mut checks = Vec::new();
    fn walk<'e>(members: &'e [Member], path: &mut Vec<&'e Member>, out: &mut Vec<Vec<&'e Member>>) {
        for m in members {
            path.push(m);
            match &m.carries {
                Carries::Object(inner) => walk(inner, path, out),
                Carries::Constant(_) | Carries::Number => out.push(path.clone()),
                _ => {}
            }
            path.pop();
        }
    }
    let mut leaves = Vec::new();
    walk(&env.members, &mut Vec::new(), &mut leaves);
    for path in leaves {
        let m = path.last().expect("a path names its member");
        let at = access(&path);
        let wire = &m.name.value;
        let (expected, shown): (TokenStream, TokenStream) = match &m.carries {
            Carries::Constant(v) => {
                let value = constant_pattern(v);
                let text = v.to_string();
                (value, quote!(#text))
            }
            Carries::Number if !layout.by_number => (quote!(code.number()), quote!(code.number())),
            _ => continue,
        };
        let wire = wire.replace('{', "{{").replace('}', "}}");
        let message = format!("`{wire}` is {{}}, not {{}}");
        checks.push(if m.required {
            quote! {
                if self #at != #expected {
                    return ::core::result::Result::Err(::std::format!(#message, self #at, #shown));
                }
            }
        } else {
            quote! {
                if let ::core::option::Option::Some(value) = &self #at {
                    if *value != #expected {
                        return ::core::result::Result::Err(::std::format!(#message, value, #shown));
                    }
                }
            }
        });
    }
    let fields_at = &layout.fields;
    // Each code's `constants:` (google.rpc's HTTP status of NOT_FOUND is
    // 404): what the schema pins with `const` and the TypeScript and Python
    // types with literal types, a payload must hold here too.
    let constant_arms: Vec<TokenStream> = spec
        .emitted_codes()
        .filter_map(|code| {
            let checks: Vec<TokenStream> = spec
                .fields
                .iter()
                .filter_map(|f| {
                    let value = code.constant(f.name())?;
                    let expected = constant_literal(spec, f, value);
                    let shown = spec.constant_json(code, f)?.to_string();
                    let id = field_ident(f);
                    let got = match (f.placement(), &layout.context) {
                        (Placement::TopLevel, _) => quote!(self #fields_at.#id.as_ref()),
                        (Placement::Envelope, _) => quote!(self.#id.as_ref()),
                        (Placement::Context, Some(context)) => {
                            quote!(self #context.as_ref().and_then(|c| c.#id.as_ref()))
                        }
                        (Placement::Context, None) => return None,
                    };
                    let wire = f.wire().replace('{', "{{").replace('}', "}}");
                    let message = format!("`{wire}` of `{{}}` is {{}}, not {{}}");
                    Some(quote! {
                        let got = #got;
                        if got != ::core::option::Option::Some(&#expected) {
                            let got = match got {
                                ::core::option::Option::Some(v) => ::std::format!("{:?}", v),
                                ::core::option::Option::None => ::std::string::String::from("absent"),
                            };
                            return ::core::result::Result::Err(::std::format!(
                                #message, code, got, #shown
                            ));
                        }
                    })
                })
                .collect();
            if checks.is_empty() {
                return None;
            }
            let variant = variant_ident(code);
            Some(quote!(ErrorCode::#variant => { #(#checks)* }))
        })
        .collect();
    let constants = if constant_arms.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            #[allow(unreachable_patterns)]
            match code {
                #(#constant_arms)*
                _ => {}
            }
        }
    };
    let present: Vec<TokenStream> = spec
        .fields
        .iter()
        .map(|f| {
            let name = f.name();
            let id = field_ident(f);
            let present = match (f.placement(), &layout.context) {
                (Placement::TopLevel, _) => quote!(self #fields_at.#id.is_some()),
                (Placement::Envelope, _) => quote!(self.#id.is_some()),
                (Placement::Context, Some(context)) => {
                    quote!(self #context.as_ref().is_some_and(|c| c.#id.is_some()))
                }
                (Placement::Context, None) => quote!(false),
            };
            quote!((#name, #present))
        })
        .collect();
    let required = if present.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            let required = code.__splice_required();
            for (name, present) in [#(#present),*] {
                if !present && required.contains(&name) {
                    return ::core::result::Result::Err(::std::format!(
                        "`{}` requires the context field `{}`",
                        code, name
                    ));
                }
            }
        }
    };
    let required_len = spec
        .emitted_codes()
        .map(|c| Literal::usize_unsuffixed(spec.required_fields(c).len()));
    let number_module = if layout.by_number {
        quote! {
            // The code on the wire as its number (no member carries its name).
            #[doc(hidden)]
            #[allow(dead_code)]
            mod __splice_code_number {
                pub fn serialize<S: ::serde::Serializer>(
                    code: &super::ErrorCode,
                    serializer: S,
                ) -> ::core::result::Result<S::Ok, S::Error> {
                    ::serde::Serialize::serialize(&code.number(), serializer)
                }

                pub fn deserialize<'de, D: ::serde::Deserializer<'de>>(
                    deserializer: D,
                ) -> ::core::result::Result<super::ErrorCode, D::Error> {
                    let n: #number_type = ::serde::Deserialize::deserialize(deserializer)?;
                    super::ErrorCode::ALL
                        .iter()
                        .copied()
                        .find(|code| code.number() == n)
                        .ok_or_else(|| {
                            <D::Error as ::serde::de::Error>::custom(::core::format_args!(
                                "unknown error code number {}",
                                n
                            ))
                        })
                }
            }
        }
    } else {
        TokenStream::new()
    };
    quote! {
        #number_module

        #[doc(hidden)]
        #[derive(::serde::Deserialize, ::schemars::JsonSchema)]
        #[serde(rename = "ErrorEnvelope")]
        pub struct __SpliceWireEnvelope {
            #(#fields)*
        }

        #[automatically_derived]
        impl ::core::convert::TryFrom<__SpliceWireEnvelope> for ErrorEnvelope {
            type Error = ::std::string::String;

            fn try_from(
                wire: __SpliceWireEnvelope,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                let envelope = ErrorEnvelope {
                    #(#moves: wire.#moves,)*
                    #(#top_moves: wire.#top_moves,)*
                };
                envelope.__splice_check()?;
                ::core::result::Result::Ok(envelope)
            }
        }

        #[allow(dead_code)]
        impl ErrorCode {
            /// How many of `fields()` are required.
            #[doc(hidden)]
            pub const fn __splice_required(self) -> &'static [&'static str] {
                const LEN: &[usize] = &[#(#required_len),*];
                self.fields().split_at(LEN[self as usize]).0
            }
        }

        #[allow(dead_code)]
        impl ErrorEnvelope {
            // What a payload must hold beyond its shape: the code's
            // required context fields, the constants (the envelope's and
            // the code's own), the code's number.
            #[doc(hidden)]
            #[allow(deprecated, clippy::bool_comparison)]
            fn __splice_check(&self) -> ::core::result::Result<(), ::std::string::String> {
                let code: ErrorCode = self #code;
                #(#checks)*
                #constants
                #required
                ::core::result::Result::Ok(())
            }
        }
    }
}
