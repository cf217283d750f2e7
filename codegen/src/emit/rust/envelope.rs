//! `ErrorEnvelope`, `ErrorContext` and the structs of a declared envelope's
//! nested objects, in the shape `errors.yaml` declares; the hidden wire
//! struct a declared envelope deserializes through, with the checks its
//! shape cannot express (a code's required context, constants, the number
//! beside the name).

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::context::{FieldDef, Placement};
use crate::envelope::{Carries, Member};
use crate::layout::{Form, Layout, Object, Slot};
use crate::names;
use crate::spec::Spec;

use super::any::{unlisted_fields, unlisted_struct};
use super::paths::{Access, Paths, read, steps};
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
/// when it is in every envelope of the form its struct stands for.
pub(super) fn in_every_envelope(slot: &Slot<'_>) -> bool {
    slot.presence().is_required()
}

/// The Rust doc of an envelope member: its `doc:` in a declared envelope,
/// else one per property (splice's envelope has exactly these).
pub(super) fn member_doc(spec: &Spec, member: &Member) -> String {
    let note = crate::context::constraint_note(member.pattern.as_ref(), member.format.as_ref());
    format!("{}{note}", carried_doc(spec, member))
}

/// [`member_doc`] without the member's `pattern` and `format`.
fn carried_doc(spec: &Spec, member: &Member) -> String {
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
        // An envelope without its code name is the `absent_means` code; one
        // with `null` there is no envelope (the schema refuses it too).
        if m.absent_means.is_some() {
            attrs = quote!(#attrs #[serde(deserialize_with = "__splice_present")]);
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
    // Under `code_names: per_category` the wire envelope resolves the
    // (category, name) pair before the checks.
    let (wire, container) = if env.declared || layout.discriminant().per_category() {
        (
            emit_wire_envelope(layout),
            quote!(#[serde(try_from = "__SpliceWireEnvelope")]),
        )
    } else {
        (TokenStream::new(), quote!(#[serde(deny_unknown_fields)]))
    };
    let nested = nested_structs(layout, &any, Family::Listed(&eq));
    let code = Paths::of(layout).code(&quote!(envelope));
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

        #[automatically_derived]
        impl ::core::convert::From<&ErrorEnvelope> for ErrorCode {
            /// The code of `envelope`.
            #[allow(deprecated)]
            fn from(envelope: &ErrorEnvelope) -> ErrorCode {
                #code
            }
        }
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
    let read_code = paths.code(&quote!(self));
    let resolve = paths.resolve_pair(&quote!(envelope));
    let mutable = if resolve.is_empty() {
        TokenStream::new()
    } else {
        quote!(mut)
    };
    let missing_code = paths.missing_code(&quote!(self));
    // Constants, the category, and the number when the code is told by its
    // name.
    let mut checks = Vec::new();
    fn walk<'s>(object: &Object<'s>, out: &mut Vec<Vec<&'s Member>>) {
        for slot in &object.slots {
            match slot {
                Slot::Object { object, .. } => walk(object, out),
                Slot::Member { member, .. }
                    if matches!(
                        member.carries,
                        Carries::Constant(_) | Carries::Number | Carries::Category
                    ) =>
                {
                    let mut path = object.path.clone();
                    path.push(member);
                    out.push(path);
                }
                _ => {}
            }
        }
    }
    let mut leaves = Vec::new();
    walk(&any, &mut leaves);
    let this = quote!(self);
    for path in leaves {
        let m = path.last().expect("a path names its member");
        let wire = &m.name.value;
        let (expected, shown): (TokenStream, TokenStream) = match &m.carries {
            Carries::Constant(v) => {
                let value = constant_pattern(v);
                let text = v.to_string();
                (value, quote!(#text))
            }
            Carries::Number if !paths.by_number => (quote!(code.number()), quote!(code.number())),
            // The schema pins each code's category.
            Carries::Category => (quote!(code.category()), quote!(code.category())),
            _ => continue,
        };
        let wire = wire.replace('{', "{{").replace('}', "}}");
        let message = format!("`{wire}` is {{}}, not {{}}");
        let at = steps(&any, &path);
        checks.push(match read(&this, &at) {
            Access::Place(at) => quote! {
                if #at != #expected {
                    return ::core::result::Result::Err(::std::format!(#message, #at, #shown));
                }
            },
            Access::Maybe(value) => quote! {
                if let ::core::option::Option::Some(value) = #value {
                    if *value != #expected {
                        return ::core::result::Result::Err(::std::format!(#message, value, #shown));
                    }
                }
            },
        });
    }
    let holder = read(&this, &paths.holder);
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
                    let got = match f.placement() {
                        Placement::TopLevel => holder.field(&id),
                        Placement::Envelope => quote!(self.#id.as_ref()),
                        Placement::Context => paths.context_field(&this, &id)?,
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
            let present = match f.placement() {
                Placement::TopLevel => holder.has(&id),
                Placement::Envelope => quote!(self.#id.is_some()),
                Placement::Context => paths.has_context_field(&this, &id),
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
                let #mutable envelope = ErrorEnvelope {
                    #(#moves: wire.#moves,)*
                    #(#top_moves: wire.#top_moves,)*
                };
                #resolve
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
                #missing_code
                let code: ErrorCode = #read_code;
                #(#checks)*
                #constants
                #required
                ::core::result::Result::Ok(())
            }
        }
    }
}
