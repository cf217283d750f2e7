//! The operations of the spec (`operations:`) as Rust types the compiler
//! holds code to.
//!
//! Each operation is an uninhabited type (`operation::MultiEdit`) and gets
//! its own error type, `MultiEditError` (`operation::Error<MultiEdit>`):
//! an envelope whose code the operation lists, built only from the builder
//! of such a code (`From<EnvelopeBuilder<C>>` where `MultiEdit:
//! Raises<C>`). `Raises<C>` is implemented for exactly the codes the
//! operation lists, so code that handles an operation and builds another
//! code does not compile, and the error names the operation, the code and
//! the line of the spec to change (`#[diagnostic::on_unimplemented]` on the
//! per-operation trait behind `Raises`, which rustc reports as the unmet
//! bound). Code shared by several operations is generic over the operation
//! with a bound per code it may raise, or a bound on a code group
//! (`operation::group::Reading`, implemented by every operation raising
//! all of the group's codes): the compiler proves the lists right, not a
//! review.
//!
//! Violation kinds (`sent_as: violation`) arrive inside another envelope,
//! never as one: an operation may list them (the docs and the client
//! tables say which operation reports which), but no `Raises` lets code
//! build their envelope.
//!
//! Smithy-rs generates one error enum per operation the same way; each
//! operation's `Code` enum (`MultiEditCode`) is that: an exhaustive `match`
//! on `error.code()` covers exactly what the operation raises.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::layout::Layout;
use crate::spec::{Code, Operation, Spec};

use super::paths::Paths;
use super::tokens::{ident, upper_camel, variant_ident};

/// The `operation` module and one `<Operation>Error` alias per operation.
/// The module is there, with its traits and `Error`, also for a spec
/// without operations.
pub(super) fn emit_operations(
    layout: &Layout<'_>,
    file: &str,
    literal: &dyn Fn(&str) -> proc_macro2::Literal,
) -> TokenStream {
    let spec = layout.spec();
    let set_code = Paths::of(layout).set_code(
        &quote!(self.envelope),
        &quote!(::core::convert::Into::into(self.code)),
    );
    let (ops, listed): (Vec<_>, Vec<_>) = spec
        .operations
        .iter()
        .map(|op| operation(spec, op, file, literal))
        .unzip();
    let groups = spec.groups.iter().map(|g| {
        let name = ident(&upper_camel(&g.name.value));
        let doc = format!(
            "Code group `{}`: {} Implemented by every operation that raises all of its codes \
             ({}); bound a function shared by those operations by it.",
            g.name.value,
            g.doc.value,
            g.codes
                .iter()
                .map(|c| format!("`{}`", c.value))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let bounds: Vec<TokenStream> = spec
            .emitted_codes()
            .filter(|c| !c.is_violation_kind())
            .filter(|c| g.codes.iter().any(|n| n.value == c.name.value))
            .map(|c| {
                let marker = ident(&c.name.value);
                quote!(super::Raises<super::super::builder::code::#marker>)
            })
            .collect();
        if bounds.is_empty() {
            return quote! {
                #[doc = #doc]
                pub trait #name: super::Operation {}
                impl<O: super::Operation> #name for O {}
            };
        }
        quote! {
            #[doc = #doc]
            pub trait #name: #(#bounds)+* {}
            impl<O> #name for O where O: #(#bounds)+* {}
        }
    });
    let infos = spec.operations.iter().map(|op| {
        let ty = ident(&op.type_name());
        quote! {
            Info {
                name: <#ty as Operation>::NAME,
                wire: <#ty as Operation>::WIRE,
                doc: <#ty as Operation>::DOC,
                codes: <#ty as Operation>::CODES,
            }
        }
    });
    let aliases = spec.operations.iter().map(|op| {
        let alias = format_ident!("{}", op.error_type_name());
        let ty = ident(&op.type_name());
        let doc = format!(
            "An error of operation `{}`: an envelope of one of the codes it raises.",
            op.wire()
        );
        quote! {
            #[doc = #doc]
            #[allow(dead_code)]
            pub type #alias = operation::Error<operation::#ty>;
        }
    });
    quote! {
        /// The operations `errors.yaml` declares (`operations:`) and the
        /// codes each may raise, as types: `Error<O>` holds an envelope
        /// whose code operation `O` lists, and only a builder of such a
        /// code converts into it (`O: Raises<C>`).
        #[allow(dead_code, non_camel_case_types, clippy::enum_variant_names)]
        pub mod operation {
            /// An operation of the spec (an uninhabited type per operation).
            pub trait Operation: 'static {
                /// Its name in the spec.
                const NAME: &'static str;
                /// Its name on the wire.
                const WIRE: &'static str;
                /// One line: what it does.
                const DOC: &'static str;
                /// Every code it lists, in the spec's order of codes
                /// (violation kinds included).
                const CODES: &'static [super::ErrorCode];
                /// Its errors as a tool advertises them in its
                /// `outputSchema` (compact JSON): the output shape narrowed
                /// to its codes.
                const OUTPUT_SHAPE: &'static str;
                /// The codes its errors may have, as an enum of their own
                /// (an exhaustive `match` covers exactly them).
                type Code: ::core::marker::Copy
                    + ::core::cmp::Eq
                    + ::core::fmt::Debug
                    + ::core::convert::Into<super::ErrorCode>
                    + 'static;
            }

            /// What the spec says of one operation, at run time.
            #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug)]
            pub struct Info {
                /// Its name in the spec.
                pub name: &'static str,
                /// Its name on the wire.
                pub wire: &'static str,
                /// One line: what it does.
                pub doc: &'static str,
                /// Every code it lists, in the spec's order of codes.
                pub codes: &'static [super::ErrorCode],
            }

            /// Every operation, in the spec's order.
            pub const ALL: &[Info] = &[#(#infos),*];

            /// The operations that list `code`, in the spec's order.
            pub fn raising(code: super::ErrorCode) -> impl ::core::iter::Iterator<Item = &'static Info> {
                ALL.iter().filter(move |op| op.codes.contains(&code))
            }

            /// `O: Raises<C>`: operation `O` lists the code `C` (a type of
            /// `builder::code`), so an error of `O` may have it.
            pub trait Raises<C>: Operation {
                /// The code, as the operation's own `Code`.
                const CODE: Self::Code;
            }

            /// An error of operation `O`: an envelope whose code `O` raises.
            /// Made from the builder of such a code (`.into()`, or
            /// `Error::new`), never from an envelope.
            pub struct Error<O: Operation> {
                envelope: super::ErrorEnvelope,
                code: O::Code,
            }

            impl<O: Operation> Error<O> {
                /// The error of `builder`'s code, which `O` raises.
                pub fn new<C>(builder: super::builder::EnvelopeBuilder<C>) -> Self
                where
                    O: Raises<C>,
                {
                    Error {
                        envelope: builder.build(),
                        code: <O as Raises<C>>::CODE,
                    }
                }

                /// The envelope.
                pub fn envelope(&self) -> &super::ErrorEnvelope {
                    &self.envelope
                }

                /// The envelope, to send.
                pub fn into_envelope(self) -> super::ErrorEnvelope {
                    self.envelope
                }

                /// Its code, one of those `O` raises.
                pub fn code(&self) -> O::Code {
                    self.code
                }

                /// Its code as an `ErrorCode`.
                #[allow(deprecated)]
                pub fn error_code(&self) -> super::ErrorCode {
                    ::core::convert::Into::into(self.code)
                }

                /// Changes the envelope's members but its code: `change`
                /// may set fields the code may carry (see
                /// `ErrorCode::may_carry`), and the code is put back after
                /// it, so the error still has a code `O` raises.
                pub fn update(mut self, change: impl ::core::ops::FnOnce(&mut super::ErrorEnvelope)) -> Self {
                    change(&mut self.envelope);
                    #set_code
                    self
                }
            }

            impl<O: Operation, C> ::core::convert::From<super::builder::EnvelopeBuilder<C>> for Error<O>
            where
                O: Raises<C>,
            {
                fn from(builder: super::builder::EnvelopeBuilder<C>) -> Self {
                    Error::new(builder)
                }
            }

            impl<O: Operation> ::core::convert::From<Error<O>> for super::ErrorEnvelope {
                fn from(error: Error<O>) -> Self {
                    error.envelope
                }
            }

            #[automatically_derived]
            impl<O: Operation> ::core::clone::Clone for Error<O> {
                fn clone(&self) -> Self {
                    Error {
                        envelope: ::core::clone::Clone::clone(&self.envelope),
                        code: self.code,
                    }
                }
            }

            #[automatically_derived]
            impl<O: Operation> ::core::fmt::Debug for Error<O> {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct("Error")
                        .field("operation", &O::NAME)
                        .field("envelope", &self.envelope)
                        .finish()
                }
            }

            impl<O: Operation> ::serde::Serialize for Error<O> {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    ::serde::Serialize::serialize(&self.envelope, serializer)
                }
            }

            #(#ops)*

            /// One trait per operation, implemented by the codes it raises
            /// (the types of `builder::code`): what `Raises` is made of,
            /// and what the compiler names when a code is missing.
            #[doc(hidden)]
            pub mod listed {
                #(#listed)*
            }

            /// The code groups of the spec (`code_groups:`), each a trait
            /// implemented by every operation that raises all of its codes.
            pub mod group {
                #(#groups)*
            }
        }

        #(#aliases)*
    }
}

/// One operation: its type, its `Code` enum, its `Operation` impl and
/// `Raises` through the trait (second) whose implementations are its codes.
fn operation(
    spec: &Spec,
    op: &Operation,
    file: &str,
    literal: &dyn Fn(&str) -> proc_macro2::Literal,
) -> (TokenStream, TokenStream) {
    let ty = ident(&op.type_name());
    let code_enum = format_ident!("{}Code", op.type_name());
    let all: Vec<&Code> = spec.operation_codes(op);
    let enveloped: Vec<&Code> = all
        .iter()
        .copied()
        .filter(|c| !c.is_violation_kind())
        .collect();
    let name = &op.name.value;
    let wire = op.wire();
    let doc_text = &op.doc.value;
    let type_doc = format!("Operation `{wire}`: {doc_text}");
    let enum_doc = format!(
        "The codes an error of operation `{wire}` may have ({} of them).",
        enveloped.len()
    );
    let variants: Vec<_> = enveloped.iter().map(|c| variant_ident(c)).collect();
    let variant_docs = enveloped
        .iter()
        .map(|c| format!("`{}`: {}", c.name.value, c.title.value));
    let all_variants = all.iter().map(|c| variant_ident(c));
    let shape = literal(&crate::emit_schema::emit_operation_output_shape_string(
        spec, op,
    ));
    let line = op.codes_at.line;
    let message = format!("operation `{name}` does not raise `{{Self}}`");
    let label = format!("`{{Self}}` is not among the codes of operation `{name}`");
    let note = format!(
        "an error of `{name}` has one of the codes {file} lists for it: add `{{Self}}` to \
         the codes of operation `{name}` ({file}:{line}), or raise one of its codes"
    );
    let listed = enveloped.iter().map(|c| {
        let marker = ident(&c.name.value);
        let v = variant_ident(c);
        quote! {
            impl #ty for super::super::builder::code::#marker {
                const CODE: super::#code_enum = super::#code_enum::#v;
            }
        }
    });
    let from_arms = variants
        .iter()
        .map(|v| quote!(#code_enum::#v => super::ErrorCode::#v));
    let from_body = if variants.is_empty() {
        quote!(match code {})
    } else {
        quote!(match code { #(#from_arms),* })
    };
    let items = quote! {
        #[doc = #type_doc]
        pub enum #ty {}

        #[doc = #enum_doc]
        #[derive(
            ::core::marker::Copy,
            ::core::clone::Clone,
            ::core::cmp::PartialEq,
            ::core::cmp::Eq,
            ::core::hash::Hash,
            ::core::fmt::Debug
        )]
        pub enum #code_enum {
            #(
                #[doc = #variant_docs]
                #variants,
            )*
        }

        impl ::core::convert::From<#code_enum> for super::ErrorCode {
            #[allow(deprecated)]
            fn from(code: #code_enum) -> Self {
                #from_body
            }
        }

        impl Operation for #ty {
            const NAME: &'static str = #name;
            const WIRE: &'static str = #wire;
            const DOC: &'static str = #doc_text;
            #[allow(deprecated)]
            const CODES: &'static [super::ErrorCode] = &[#(super::ErrorCode::#all_variants),*];
            const OUTPUT_SHAPE: &'static str = #shape;
            type Code = #code_enum;
        }

        impl<C: listed::#ty> Raises<C> for #ty {
            const CODE: #code_enum = <C as listed::#ty>::CODE;
        }
    };
    let listed = quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait #ty {
            /// The code, as the operation's own `Code`.
            const CODE: super::#code_enum;
        }
        #(#listed)*
    };
    (items, listed)
}
