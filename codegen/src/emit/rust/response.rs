//! `ErrorResponse`: the response around a list of envelopes (a member
//! `list: true`, GraphQL's `{"errors": [...], "data": ...}`), read through a
//! hidden wire struct that refuses an empty list and a wrong constant, and
//! written back member for member.

use proc_macro2::TokenStream;
use quote::quote;

use crate::envelope::Holds;
use crate::layout::Layout;
use crate::names;

use super::envelope::{constant_pattern, constant_type};
use super::tokens::{field_type, ident};
use super::types::null_as_value;

/// `ErrorResponse` and its wire struct; nothing for a spec without a list.
pub(super) fn emit_response(layout: &Layout<'_>) -> TokenStream {
    let Some(response) = layout.response() else {
        return TokenStream::new();
    };
    let spec = layout.spec();
    let mut fields = Vec::new();
    let mut moves = Vec::new();
    let mut checks = Vec::new();
    for m in &response.members {
        let wire = &m.name.value;
        let name = ident(&names::rust_member_field(wire));
        let rename = if names::rust_member_field(wire) == *wire {
            TokenStream::new()
        } else {
            quote!(#[serde(rename = #wire)])
        };
        let doc = m.doc.as_ref().map_or_else(
            || match &m.holds {
                Holds::List => "The errors, at least one.".to_owned(),
                Holds::Constant(v) => format!("Always `{v}`."),
                Holds::Typed { .. } => format!("The response's `{wire}`."),
            },
            |d| d.value.clone(),
        );
        let (ty, null) = match &m.holds {
            Holds::List => (
                quote!(::std::vec::Vec<AnyErrorEnvelope>),
                TokenStream::new(),
            ),
            Holds::Constant(v) => (constant_type(v), TokenStream::new()),
            Holds::Typed { .. } => {
                let ty = m.ty().expect("a typed member has its type");
                (field_type(ty, &TokenStream::new()), null_as_value(spec, ty))
            }
        };
        fields.push(if m.required {
            quote! {
                #[doc = #doc]
                #rename
                pub #name: #ty,
            }
        } else {
            quote! {
                #[doc = #doc]
                #rename
                #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
                #null
                pub #name: ::core::option::Option<#ty>,
            }
        });
        moves.push(name.clone());
        let shown = wire.replace('{', "{{").replace('}', "}}");
        match &m.holds {
            Holds::List => {
                let message =
                    format!("`{shown}` is an empty list; a response holds at least one error");
                checks.push(quote! {
                    if self.#name.is_empty() {
                        return ::core::result::Result::Err(::std::string::String::from(#message));
                    }
                });
            }
            Holds::Constant(v) => {
                let expected = constant_pattern(v);
                let text = v.to_string();
                let message = format!("`{shown}` is {{}}, not {{}}");
                checks.push(if m.required {
                    quote! {
                        if self.#name != #expected {
                            return ::core::result::Result::Err(::std::format!(#message, self.#name, #text));
                        }
                    }
                } else {
                    quote! {
                        if let ::core::option::Option::Some(value) = &self.#name {
                            if *value != #expected {
                                return ::core::result::Result::Err(::std::format!(#message, value, #text));
                            }
                        }
                    }
                });
            }
            Holds::Typed { .. } => {}
        }
    }
    let list = ident(&names::rust_member_field(&response.list().name.value));
    let list_wire = &response.list().name.value;
    let doc = format!(
        " The response around the errors: `{list_wire}` holds at least one envelope (a code of \
         a later release read as `AnyErrorEnvelope::Unlisted`), beside it the members \
         `errors.yaml` declares. Deserializing refuses an empty `{list_wire}`."
    );
    quote! {
        #[doc = #doc]
        #[derive(
            ::core::clone::Clone, ::core::cmp::PartialEq, ::core::fmt::Debug,
            ::serde::Serialize, ::serde::Deserialize,
        )]
        #[serde(try_from = "__SpliceWireResponse")]
        #[allow(dead_code)]
        pub struct ErrorResponse {
            #(#fields)*
        }

        #[doc(hidden)]
        #[derive(::serde::Deserialize)]
        #[serde(rename = "ErrorResponse")]
        pub struct __SpliceWireResponse {
            #(#fields)*
        }

        #[allow(dead_code)]
        impl ErrorResponse {
            /// The errors, in order (never empty).
            pub fn errors(&self) -> &[AnyErrorEnvelope] {
                &self.#list
            }

            // What a payload must hold beyond its shape: at least one
            // error, the constants.
            #[doc(hidden)]
            #[allow(clippy::bool_comparison)]
            fn __splice_check(&self) -> ::core::result::Result<(), ::std::string::String> {
                #(#checks)*
                ::core::result::Result::Ok(())
            }
        }

        #[automatically_derived]
        impl ::core::convert::TryFrom<__SpliceWireResponse> for ErrorResponse {
            type Error = ::std::string::String;

            fn try_from(
                wire: __SpliceWireResponse,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                let response = ErrorResponse {
                    #(#moves: wire.#moves,)*
                };
                response.__splice_check()?;
                ::core::result::Result::Ok(response)
            }
        }
    }
}
