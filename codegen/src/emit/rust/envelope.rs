//! `ErrorEnvelope`, `ErrorContext` and the structs of a declared envelope's
//! nested objects, in the shape `errors.yaml` declares; the hidden wire
//! struct a declared envelope deserializes through, with the checks its
//! shape cannot express (a code's required context, constants, the number
//! beside the name).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::context::{FieldDef, Placement};
use crate::envelope::{Carries, Member};
use crate::layout::{Form, Layout, Object, Presence, Slot};
use crate::names;
use crate::span::Loc;
use crate::spec::Spec;

use super::any::{unlisted_fields, unlisted_struct};
use super::tokens::{
    constant_literal, field_ident, field_type, ident, number_literal, number_type, rename,
    variant_ident,
};
use super::types::{eq_derive, null_as_value};

/// The Rust field name of an envelope member: its wire name in
/// lower_snake_case (`retryDelay` -> `retry_delay`, `@type` -> `r#type`);
/// serde renames it back when the two differ.
pub(super) fn member_ident(member: &Member) -> Ident {
    ident(&names::rust_member_field(&member.name.value))
}

/// `#[serde(rename = "...")]` for a member whose wire name is not its
/// Rust field name; nothing otherwise (splice's members).
pub(super) fn member_rename(member: &Member) -> TokenStream {
    let wire = &member.name.value;
    if names::rust_member_field(wire) == *wire {
        TokenStream::new()
    } else {
        quote!(#[serde(rename = #wire)])
    }
}

/// The struct of a nested object of the envelope: `ErrorEnvelope` and the
/// members from the top (`error` -> `ErrorEnvelopeError`).
pub(super) fn object_struct(object: &Object<'_>) -> Ident {
    ident(&names::rust_object_struct(&object.names()))
}

/// Whether the Rust types hold a slot as a value rather than an `Option`:
/// one in every envelope, or the code name with `absent_means` (an envelope
/// without it reads as that code, see [`absent_default`]).
pub(super) fn in_every_envelope(slot: &Slot<'_>) -> bool {
    slot.presence() != Presence::Optional
}

/// The function serde calls for a code name that `absent_means` lets an
/// envelope leave out: it returns that code.
pub(super) fn absent_default(layout: &Layout<'_>) -> TokenStream {
    let Some(code) = layout.discriminant().absent else {
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
/// from the layout (splice's: `.error_code`, `.recovery_hints`, `.context`
/// and the fields at the top).
pub(super) struct Paths {
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

impl Paths {
    pub(super) fn of(layout: &Layout<'_>) -> Paths {
        Paths {
            fields: access(layout.holder()),
            code: access(&layout.discriminant().path),
            by_number: !layout.discriminant().by_name,
            hints: layout.path_to("hints").map(|p| {
                let required = p.last().is_some_and(|m| m.required);
                (access(&p), required)
            }),
            context: layout.path_to("context").map(|p| access(&p)),
        }
    }
}

/// Why `taxonomy!` and `splice-codegen rust` cannot generate types for this
/// spec's envelope (`None`: they can). `check` accepts these specs; the
/// published schema follows them.
pub fn unsupported(spec: &Spec) -> Option<crate::Diagnostic> {
    use crate::Diagnostic;
    let layout = Layout::of(spec);
    let discriminant = layout.discriminant();
    let code_property = if discriminant.by_name {
        "code_name"
    } else {
        "number"
    };
    if let Some(m) = discriminant
        .path
        .iter()
        .find(|m| !m.required && m.absent_means.is_none())
    {
        let what = if discriminant
            .path
            .last()
            .is_some_and(|last| std::ptr::eq(*last, *m))
        {
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
    if !layout.carries("context")
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
    fn walk(object: &Object<'_>, structs: &mut Vec<(String, Loc)>) -> Option<crate::Diagnostic> {
        let mut seen: Vec<(String, &str, Loc)> = Vec::new();
        let fields = object
            .fields()
            .map(|f| (f.field.name().to_owned(), f.field.name(), f.field.name.loc));
        let members_named = object.slots.iter().filter_map(|s| s.member()).map(|m| {
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
        for slot in &object.slots {
            if let Slot::Object {
                member: m, object, ..
            } = slot
            {
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
                structs.push((object_struct(object).to_string(), m.name.loc));
                structs.push((unlisted_struct(object).to_string(), m.name.loc));
                if let Some(d) = walk(object, structs) {
                    return Some(d);
                }
            }
        }
        None
    }
    let mut structs = Vec::new();
    if let Some(d) = walk(&layout.envelope(Form::Any), &mut structs) {
        return Some(d);
    }
    for (name, loc) in structs {
        if names::RUST_ITEMS.contains(&name.as_str()) || spec.type_def(&name).is_some() {
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

/// The Rust fields of one object of the envelope: its slots in the layout's
/// order, each declared field an `Option`.
pub(super) fn object_fields(layout: &Layout<'_>, object: &Object<'_>) -> Vec<TokenStream> {
    let spec = layout.spec();
    let number_type = number_type(spec);
    let by_number = !layout.discriminant().by_name;
    let mut out = Vec::new();
    for slot in &object.slots {
        let m = match slot {
            Slot::Field(f) => {
                out.push(optional_field(spec, f.field));
                continue;
            }
            slot => slot
                .member()
                .expect("a slot that is not a field is a member"),
        };
        let name = member_ident(m);
        let rename = member_rename(m);
        let doc = member_doc(spec, m);
        let doc = quote!(#[doc = #doc]);
        if let Slot::Context { .. } = slot {
            out.push(quote! {
                #doc
                #rename
                #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
                pub #name: ::core::option::Option<ErrorContext>,
            });
            continue;
        }
        let mut attrs = TokenStream::new();
        let ty = match (slot, &m.carries) {
            (Slot::Object { object, .. }, _) => {
                let ty = object_struct(object);
                quote!(#ty)
            }
            (_, Carries::Constant(v)) => constant_type(v),
            (_, Carries::CodeName) => quote!(ErrorCode),
            (_, Carries::Number) if by_number => {
                let schema = number_type.to_string();
                attrs = quote!(#[serde(with = "__splice_code_number")] #[schemars(with = #schema)]);
                quote!(ErrorCode)
            }
            (_, Carries::Number) => number_type.clone(),
            (_, Carries::Category) => quote!(Category),
            (_, Carries::Retryable) => quote!(bool),
            (_, Carries::Cause) => quote!(Cause),
            (_, Carries::Hints) => quote!(::std::vec::Vec<::std::string::String>),
            (_, Carries::Message) => quote!(::std::string::String),
            (_, Carries::Context | Carries::Object(_)) => quote!(::std::string::String),
        };
        if m.absent_means.is_some() {
            attrs = quote!(#attrs #[serde(default = "__splice_absent_code")]);
        }
        out.push(if in_every_envelope(slot) {
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
pub(super) fn nested_structs(
    layout: &Layout<'_>,
    object: &Object<'_>,
    family: Family<'_>,
) -> TokenStream {
    let spec = layout.spec();
    let mut out = TokenStream::new();
    for slot in &object.slots {
        let Slot::Object {
            member: m,
            object: inner,
            ..
        } = slot
        else {
            continue;
        };
        let doc = member_doc(spec, m);
        let (name, fields, derives) = match family {
            Family::Listed(eq) => (
                object_struct(inner),
                object_fields(layout, inner),
                quote! {
                    ::core::clone::Clone, ::core::cmp::PartialEq, #eq ::core::fmt::Debug,
                    ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
                },
            ),
            Family::Unlisted => (
                unlisted_struct(inner),
                unlisted_fields(layout, inner),
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
        out.extend(nested_structs(layout, inner, family));
    }
    out
}

pub(super) fn emit_envelope(layout: &Layout<'_>) -> TokenStream {
    let spec = layout.spec();
    let env = &spec.envelope;
    let in_context = layout
        .context_fields(Form::Any)
        .into_iter()
        .map(|f| optional_field(spec, f.field));
    let eq = eq_derive(spec);
    let any = layout.envelope(Form::Any);
    let fields = object_fields(layout, &any);
    let context_name = layout
        .path_to("context")
        .and_then(|p| p.last().map(|m| m.name.value.as_str()))
        .unwrap_or("context");
    let context_doc =
        format!(" Details of an error that live in the envelope's `{context_name}` object.");
    // A declared envelope's objects accept members they do not declare, as
    // its open schema does (a later release, or the transport, may add
    // some: botocore's `ResponseMetadata`); they are not kept. splice's
    // own envelope stays closed.
    let (wire, container) = if env.declared {
        (
            emit_wire_envelope(layout),
            quote!(#[serde(try_from = "__SpliceWireEnvelope")]),
        )
    } else {
        (TokenStream::new(), quote!(#[serde(deny_unknown_fields)]))
    };
    let nested = nested_structs(layout, &any, Family::Listed(&eq));
    let absent = absent_default(layout);
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
fn emit_wire_envelope(layout: &Layout<'_>) -> TokenStream {
    let spec = layout.spec();
    let paths = Paths::of(layout);
    let number_type = number_type(spec);
    // The same fields as `ErrorEnvelope`'s: the schema of its
    // deserialization is this struct's (schemars follows `try_from`).
    let any = layout.envelope(Form::Any);
    let fields = object_fields(layout, &any);
    let moves: Vec<Ident> = any
        .slots
        .iter()
        .filter_map(|s| s.member())
        .map(member_ident)
        .collect();
    let top_moves = any
        .fields()
        .map(|f| field_ident(f.field))
        .collect::<Vec<_>>();
    let code = &paths.code;
    // Constants and the number, when the code is told by its name.
    let mut checks = Vec::new();
    fn walk<'o, 's>(object: &'o Object<'s>, out: &mut Vec<(Vec<&'s Member>, &'o Slot<'s>)>) {
        for slot in &object.slots {
            match slot {
                Slot::Object { object, .. } => walk(object, out),
                Slot::Member { member, .. }
                    if matches!(member.carries, Carries::Constant(_) | Carries::Number) =>
                {
                    let mut path = object.path.clone();
                    path.push(member);
                    out.push((path, slot));
                }
                _ => {}
            }
        }
    }
    let mut leaves = Vec::new();
    walk(&any, &mut leaves);
    for (path, slot) in leaves {
        let m = path.last().expect("a path names its member");
        let at = access(&path);
        let wire = &m.name.value;
        let (expected, shown): (TokenStream, TokenStream) = match &m.carries {
            Carries::Constant(v) => {
                let value = constant_pattern(v);
                let text = v.to_string();
                (value, quote!(#text))
            }
            Carries::Number if !paths.by_number => (quote!(code.number()), quote!(code.number())),
            _ => continue,
        };
        let wire = wire.replace('{', "{{").replace('}', "}}");
        let message = format!("`{wire}` is {{}}, not {{}}");
        checks.push(if slot.presence().is_required() {
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
    let fields_at = &paths.fields;
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
                    let got = match (f.placement(), &paths.context) {
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
            let present = match (f.placement(), &paths.context) {
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
    let number_module = if paths.by_number {
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
