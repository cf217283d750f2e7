//! The constructors (one per code, whose arguments are the code's required
//! context fields and message parameters), the one generic builder with a
//! setter pair per optional field that compiles only for the codes that may
//! carry it, and the selection of conditional hints at `build()`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::context::{FieldDef, FieldType, Placement};
use crate::envelope::Carries;
use crate::layout::{Form, Layout, Object, Slot};
use crate::spec::{Code, ParamType, Spec};
use crate::template::{Segment, Template};

use super::code::deprecated_attr;
use super::envelope::{constant_value, in_every_envelope, member_ident, object_struct};
use super::paths::{Paths, read, write};
use super::tokens::{
    argument, constant_literal, doc_attrs, field_ident, field_type, ident, setter_ident,
    upper_camel, variant_ident,
};

pub(super) fn emit_constructors(layout: &Layout<'_>) -> TokenStream {
    let spec = layout.spec();
    let paths = Paths::of(layout);
    let literal = envelope_literal(layout, &layout.envelope(Form::Any));
    let render_message = if layout.carries("message") {
        quote!(let message = Self::__splice_render(message, args);)
    } else {
        quote!(let _ = message;)
    };
    let render_hints = if layout.carries("hints") {
        quote! {
            let mut recovery_hints = ::std::vec::Vec::with_capacity(hints.len());
            for hint in hints {
                recovery_hints.push(Self::__splice_render(hint, args));
            }
        }
    } else {
        quote!(let _ = hints;)
    };
    let unused_args = if layout.carries("message") || layout.carries("hints") {
        TokenStream::new()
    } else {
        quote!(let _ = args;)
    };
    let setters = spec.fields.iter().map(|f| {
        let setter = setter_ident(f);
        let name = field_ident(f);
        let ty = field_type(f.ty(), &TokenStream::new());
        let this = quote!(self);
        let set = match (f.placement(), &paths.context) {
            (Placement::TopLevel, _) => write(
                &this,
                &paths.holder,
                &|at| quote!(#at.#name = ::core::option::Option::Some(value);),
            ),
            (Placement::Envelope, _) => quote!(self.#name = ::core::option::Option::Some(value);),
            (Placement::Context, Some((parent, member))) => write(&this, parent, &|at| {
                quote! {
                    ::core::option::Option::get_or_insert_with(
                        &mut #at.#member,
                        <ErrorContext as ::core::default::Default>::default,
                    ).#name = ::core::option::Option::Some(value);
                }
            }),
            // `check` refuses a field `in: context` without a member
            // carrying `context`.
            (Placement::Context, None) => quote!(let _ = value;),
        };
        quote! {
            #[doc(hidden)]
            fn #setter(&mut self, value: #ty) {
                #set
            }
        }
    });
    let constructors = spec
        .emitted_codes()
        .map(|code| emit_constructor(spec, code));
    quote! {
        #[allow(dead_code)]
        impl ErrorCode {
            // Shared by every constructor so that each one is short (a method of
            // `ErrorCode`, so rustc never suggests it for building an
            // `ErrorEnvelope`): the
            // fixed members come from the code's lookups, context starts
            // empty and is filled through the setters below.
            //
            // `message` and `hints` are the code's templates with each
            // placeholder replaced by `{i}`, the index of its value in
            // `args` (see `splice_codegen::emit_rust`'s `compile_template`),
            // so the constructors pass values instead of each expanding a
            // `format!` per template.
            #[doc(hidden)]
            fn __splice_envelope(
                self,
                message: &str,
                hints: &[&str],
                args: &[&dyn ::core::fmt::Display],
            ) -> ErrorEnvelope {
                let error_code = self;
                #render_message
                #render_hints
                #unused_args
                #literal
            }

            // `{{` and `}}` are braces, `{i}` is `args[i]`.
            #[doc(hidden)]
            fn __splice_render(
                template: &str,
                args: &[&dyn ::core::fmt::Display],
            ) -> ::std::string::String {
                let mut out = ::std::string::String::with_capacity(template.len());
                let mut rest = template;
                while let ::core::option::Option::Some(i) = rest.find(['{', '}']) {
                    out.push_str(&rest[..i]);
                    let brace = rest.as_bytes()[i];
                    let after = &rest[i + 1..];
                    if after.as_bytes().first() == ::core::option::Option::Some(&brace) {
                        out.push(brace as char);
                        rest = &after[1..];
                        continue;
                    }
                    if let ::core::option::Option::Some(end) = after.find('}') {
                        if let ::core::result::Result::Ok(n) = after[..end].parse::<usize>() {
                            if let ::core::option::Option::Some(arg) = args.get(n) {
                                let _ = ::core::fmt::Write::write_fmt(
                                    &mut out,
                                    ::core::format_args!("{}", arg),
                                );
                                rest = &after[end + 1..];
                                continue;
                            }
                        }
                    }
                    out.push(brace as char);
                    rest = after;
                }
                out.push_str(rest);
                out
            }
        }

        #[allow(dead_code)]
        impl ErrorEnvelope {
            #(#setters)*

            #(#constructors)*
        }
    }
}

pub(super) fn emit_constructor(spec: &Spec, code: &Code) -> TokenStream {
    let fn_name = ident(&code.name.value.to_ascii_lowercase());
    let variant = variant_ident(code);
    let marker = ident(&code.name.value);
    let required = spec.required_fields(code);

    // A constant (`constants:`) is set by the constructor, never asked for.
    let required: Vec<&FieldDef> = required
        .into_iter()
        .filter(|f| code.constant(f.name()).is_none())
        .collect();
    // Arguments: required context fields in canonical order, then params.
    let mut args = Vec::new();
    let mut conversions = Vec::new();
    for f in &required {
        let name = field_ident(f);
        args.push(argument(&name, f.ty(), &TokenStream::new()));
        if *f.ty() == FieldType::String {
            conversions.push(quote! {
                let #name: ::std::string::String = ::core::convert::Into::into(#name);
            });
        }
    }
    for p in &code.params {
        let name = ident(&p.name.value);
        match p.ty.value {
            ParamType::String => {
                args.push(quote!(#name: impl ::core::convert::Into<::std::string::String>));
                conversions.push(quote! {
                    let #name: ::std::string::String = ::core::convert::Into::into(#name);
                });
            }
            ParamType::Integer => args.push(quote!(#name: u64)),
        }
    }

    // Names a template may interpolate: params and required scalar fields.
    let mut bindings: Vec<String> = code.params.iter().map(|p| p.name.value.clone()).collect();
    bindings.extend(
        required
            .iter()
            .filter(|f| f.is_scalar())
            .map(|f| f.name().to_owned()),
    );
    // The templates as `__splice_render` reads them, and the values they
    // interpolate, in the order of their indices.
    let mut used = Vec::new();
    let message = compile_template(&code.message.value, &bindings, &mut used);
    let hints: Vec<String> = code
        .recovery_hints
        .iter()
        .map(|h| compile_template(&h.value, &bindings, &mut used))
        .collect();
    let values = used.iter().map(|name| {
        let name = ident(name);
        quote!(&#name)
    });
    let sets = required.iter().map(|f| {
        let setter = setter_ident(f);
        let name = field_ident(f);
        quote!(envelope.#setter(#name);)
    });
    let constants = spec.fields.iter().filter_map(|f| {
        let value = constant_literal(spec, f, code.constant(f.name())?);
        let setter = setter_ident(f);
        Some(quote!(envelope.#setter(#value);))
    });

    let deprecated = deprecated_attr(spec, code);
    let doc = doc_attrs(&format!(
        "Builds a `{}` envelope: {}.\n\nMessage: `{}`\n\n\
         Arguments: the code's required context fields, then its message parameters. \
         Optional context is set on the returned builder.",
        code.name.value,
        code.title.value.trim(),
        code.message.value,
    ));

    quote! {
        #doc
        #deprecated
        #[allow(deprecated, unused_variables)]
        pub fn #fn_name(#(#args),*) -> builder::EnvelopeBuilder<builder::code::#marker> {
            #(#conversions)*
            let mut envelope = ErrorCode::#variant.__splice_envelope(
                #message,
                &[#(#hints),*],
                &[#(#values),*],
            );
            #(#sets)*
            #(#constants)*
            builder::EnvelopeBuilder { envelope, code: ::core::marker::PhantomData }
        }
    }
}

/// How many fields one tuple of [`emit_builders`]'s permission table holds;
/// the table of a taxonomy with more settable fields is a tuple of such
/// tuples, so each field's impl names at most `chunks + CHUNK` parameters.
pub(super) const CHUNK: usize = 8;

/// The builders: one generic `builder::EnvelopeBuilder<C>` whose type
/// parameter is an uninhabited type per code (`builder::code::MATCH_NOT_FOUND`),
/// with one setter pair per optional field for all codes, and an alias per
/// code (`builder::MatchNotFound`) that the constructor returns.
///
/// Which code may carry which optional field is one tuple type per code
/// (`type Fields = (Y, N, …)`, a position per settable field), and a setter
/// requires `C: carries::<field>`, implemented for every code whose tuple
/// has `Y` at the field's position. So the expansion grows with codes plus
/// fields (one short tuple per code, one setter pair and one trait per
/// field), not with their product, and setting a field the code may not
/// carry is still a type error at the call site, worded by the trait's
/// `#[diagnostic::on_unimplemented]`.
pub(super) fn emit_builders(spec: &Spec) -> TokenStream {
    let codes: Vec<&Code> = spec.emitted_codes().collect();
    let optional: Vec<Vec<&FieldDef>> = codes.iter().map(|c| spec.optional_fields(c)).collect();
    // Fields some code may carry optionally, in declaration order: the
    // positions of the permission tuples.
    let settable: Vec<&FieldDef> = spec
        .fields
        .iter()
        .filter(|f| optional.iter().flatten().any(|o| o.name() == f.name()))
        .collect();
    let chunks = settable.len().div_ceil(CHUNK);
    // `(a, b,)` (always a trailing comma: a one-element tuple needs it).
    let tuple = |elems: Vec<TokenStream>| quote!((#(#elems,)*));
    // A code's `Fields`: `Y` where `carries(i)`, `N` elsewhere; with more
    // than one chunk, a chunk without a field of the code is one `N` (the
    // field impls want a tuple there, so it matches none of them).
    let table = |carries: &dyn Fn(usize) -> bool| {
        let bit = |i: usize| if carries(i) { quote!(Y) } else { quote!(N) };
        if chunks <= 1 {
            return tuple((0..settable.len()).map(bit).collect());
        }
        let parts = (0..chunks)
            .map(|k| {
                let range = k * CHUNK..settable.len().min((k + 1) * CHUNK);
                if range.clone().any(carries) {
                    tuple(range.map(bit).collect())
                } else {
                    quote!(N)
                }
            })
            .collect();
        tuple(parts)
    };

    let prefix = quote!(super::);
    let setters = settable.iter().map(|f| {
        let method = field_ident(f);
        let setter = setter_ident(f);
        let arg = argument(&method, f.ty(), &prefix);
        let value = if *f.ty() == FieldType::String {
            quote!(::core::convert::Into::into(#method))
        } else {
            quote!(#method)
        };
        let doc = format!("Sets `{}`: {}", f.name(), f.doc());
        let maybe = format_ident!("maybe_{}", f.name());
        let maybe_arg = if *f.ty() == FieldType::String {
            quote!(::core::option::Option<impl ::core::convert::Into<::std::string::String>>)
        } else {
            let ty = field_type(f.ty(), &prefix);
            quote!(::core::option::Option<#ty>)
        };
        let maybe_doc = format!("Sets `{}` when `value` is `Some`.", f.name());
        quote! {
            #[doc = #doc]
            pub fn #method(mut self, #arg) -> Self
            where
                C: carries::#method,
            {
                self.envelope.#setter(#value);
                self
            }

            #[doc = #maybe_doc]
            pub fn #maybe(self, value: #maybe_arg) -> Self
            where
                C: carries::#method,
            {
                match value {
                    ::core::option::Option::Some(value) => self.#method(value),
                    ::core::option::Option::None => self,
                }
            }
        }
    });

    let traits = settable.iter().enumerate().map(|(j, f)| {
        let name = field_ident(f);
        let message = format!(
            "`{{Self}}` has no optional context field `{}`",
            f.name()
        );
        let label = format!("`{}` is not an optional context field of this code", f.name());
        let note = "a code's optional context fields are its `context: optional:` list in the \
                    spec; its required ones are arguments of its constructor";
        let doc = format!(
            "Implemented by the codes (`builder::code::*`) that may carry `{}` as optional context.",
            f.name()
        );
        // The permission tuple with `Y` at `j` and a parameter everywhere else.
        let (k, p) = (j / CHUNK, j % CHUNK);
        let mut params = Vec::new();
        let pattern = if chunks <= 1 {
            tuple(
                (0..settable.len())
                    .map(|i| {
                        if i == j {
                            quote!(Y)
                        } else {
                            let t = format_ident!("T{i}");
                            params.push(t.clone());
                            quote!(#t)
                        }
                    })
                    .collect(),
            )
        } else {
            let len = settable.len().min((k + 1) * CHUNK) - k * CHUNK;
            tuple(
                (0..chunks)
                    .map(|c| {
                        if c == k {
                            tuple(
                                (0..len)
                                    .map(|i| {
                                        if i == p {
                                            quote!(Y)
                                        } else {
                                            let t = format_ident!("U{i}");
                                            params.push(t.clone());
                                            quote!(#t)
                                        }
                                    })
                                    .collect(),
                            )
                        } else {
                            let t = format_ident!("T{c}");
                            params.push(t.clone());
                            quote!(#t)
                        }
                    })
                    .collect(),
            )
        };
        (
            quote! {
                #[doc = #doc]
                #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
                pub trait #name {}

                #[diagnostic::do_not_recommend]
                impl<C: super::__bits::Code> #name for C where C::Fields: super::__bits::#name {}
            },
            quote! {
                pub trait #name {}
                impl<#(#params),*> #name for #pattern {}
            },
        )
    });
    let (carries, bits): (Vec<_>, Vec<_>) = traits.unzip();

    let markers = codes.iter().zip(&optional).map(|(code, optional)| {
        let name = ident(&code.name.value);
        let doc = format!(
            "The code `{}` (the type parameter of its builder).",
            code.name.value
        );
        let fields = table(&|i| optional.iter().any(|o| o.name() == settable[i].name()));
        (
            quote! {
                #[doc = #doc]
                pub enum #name {}
            },
            quote! {
                impl Code for super::code::#name {
                    type Fields = #fields;
                }
            },
        )
    });
    let (markers, tables): (Vec<_>, Vec<_>) = markers.unzip();
    let aliases = codes.iter().filter_map(|code| {
        let alias = variant_ident(code);
        // The generic builder's own name wins over a code named ENVELOPE_BUILDER.
        if alias == "EnvelopeBuilder" {
            return None;
        }
        let marker = ident(&code.name.value);
        let doc = format!(
            "A `{}` envelope under construction; returned by `ErrorEnvelope::{}`.",
            code.name.value,
            code.name.value.to_ascii_lowercase()
        );
        Some(quote! {
            #[doc = #doc]
            pub type #alias = EnvelopeBuilder<code::#marker>;
        })
    });

    quote! {
        /// The builders returned by the `ErrorEnvelope` constructors: an
        /// `EnvelopeBuilder<C>`, where `C` is the code (a type in
        /// `builder::code`), with an alias per code (`builder::MatchNotFound`).
        /// Each optional context field has a setter that compiles only for
        /// the codes that may carry it.
        #[allow(dead_code)]
        pub mod builder {
            /// An envelope under construction; `C` is its code (a type in
            /// `builder::code`). Set optional context with the methods
            /// named after the fields, then call `build()`.
            #[must_use = "call .build() to get the envelope"]
            pub struct EnvelopeBuilder<C> {
                pub(super) envelope: super::ErrorEnvelope,
                pub(super) code: ::core::marker::PhantomData<fn() -> C>,
            }

            #[automatically_derived]
            impl<C> ::core::clone::Clone for EnvelopeBuilder<C> {
                fn clone(&self) -> Self {
                    EnvelopeBuilder {
                        envelope: ::core::clone::Clone::clone(&self.envelope),
                        code: ::core::marker::PhantomData,
                    }
                }
            }

            #[automatically_derived]
            impl<C> ::core::fmt::Debug for EnvelopeBuilder<C> {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct("EnvelopeBuilder")
                        .field("envelope", &self.envelope)
                        .finish()
                }
            }

            impl<C> EnvelopeBuilder<C> {
                #(#setters)*

                /// The finished envelope, with the recovery hints that apply
                /// to it: the general ones, and each conditional one whose
                /// context field has one of its values.
                pub fn build(self) -> super::ErrorEnvelope {
                    let mut envelope = self.envelope;
                    envelope.__splice_select_hints();
                    envelope
                }
            }

            #[automatically_derived]
            impl<C> ::core::convert::From<EnvelopeBuilder<C>> for super::ErrorEnvelope {
                fn from(builder: EnvelopeBuilder<C>) -> Self {
                    builder.build()
                }
            }

            #(#aliases)*

            /// One uninhabited type per code: the type parameter of its
            /// builder. Its name is the code's, so compile errors read
            /// "`MATCH_NOT_FOUND` has no optional context field ...".
            #[allow(non_camel_case_types)]
            pub mod code {
                #(#markers)*
            }

            /// One trait per optional context field, implemented by the
            /// codes that may carry it; the bound of the field's setters.
            #[allow(non_camel_case_types)]
            pub mod carries {
                #(#carries)*
            }

            // The permission table behind `carries`: each code's `Fields`
            // tuple has `Y` at the position of each field it may carry
            // optionally and `N` elsewhere.
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            pub mod __bits {
                pub enum Y {}
                pub enum N {}
                pub trait Code {
                    type Fields;
                }
                #(#bits)*
                #(#tables)*
            }
        }
    }
}

/// The struct expression `__splice_envelope` returns: every member filled
/// from the code (`error_code`) and the rendered `message` and
/// `recovery_hints`, the fields and the context absent.
fn envelope_literal(layout: &Layout<'_>, object: &Object<'_>) -> TokenStream {
    let name = object_struct(object);
    let by_number = !layout.discriminant().by_name;
    let mut out = Vec::new();
    for slot in &object.slots {
        let m = match slot {
            Slot::Field(f) => {
                let name = field_ident(f.field);
                out.push(quote!(#name: ::core::option::Option::None));
                continue;
            }
            slot => slot
                .member()
                .expect("a slot that is not a field is a member"),
        };
        let field = member_ident(m);
        let value = match (slot, &m.carries) {
            (Slot::Context { .. }, _) => {
                out.push(quote!(#field: ::core::option::Option::None));
                continue;
            }
            (Slot::Object { object, .. }, _) => envelope_literal(layout, object),
            (_, Carries::Constant(v)) => constant_value(v),
            (_, Carries::CodeName) => quote!(error_code),
            (_, Carries::Number) if by_number => quote!(error_code),
            (_, Carries::Number) => quote!(error_code.number()),
            (_, Carries::Category) => quote!(error_code.category()),
            (_, Carries::Message) => quote!(message),
            (_, Carries::Retryable) => quote!(error_code.retryable()),
            (_, Carries::Cause) => quote!(error_code.cause()),
            (_, Carries::Hints) => quote!(recovery_hints),
            (_, Carries::Context | Carries::Object(_)) => continue,
        };
        let value = if in_every_envelope(slot) {
            value
        } else {
            quote!(::core::option::Option::Some(#value))
        };
        // `error_code`, not `error_code: error_code`.
        out.push(if field == value.to_string() {
            quote!(#field)
        } else {
            quote!(#field: #value)
        });
    }
    quote!(#name { #(#out,)* })
}

/// `ErrorEnvelope::__splice_select_hints`, run by every `build()`: drops
/// the conditional hints whose condition does not hold, for the codes that
/// have conditional hints (one match arm each; nothing for the others).
pub(super) fn emit_select_hints(layout: &Layout<'_>) -> TokenStream {
    let spec = layout.spec();
    let paths = Paths::of(layout);
    let code = paths.code(&quote!(envelope));
    let arms = spec.emitted_codes().filter_map(|code| {
        let select = select_hints(spec, &paths, code, &TokenStream::new());
        if select.is_empty() {
            return None;
        }
        let variant = variant_ident(code);
        Some(quote!(ErrorCode::#variant => { #select }))
    });
    quote! {
        #[allow(dead_code)]
        impl ErrorEnvelope {
            #[doc(hidden)]
            #[allow(deprecated, unreachable_patterns, clippy::match_single_binding)]
            fn __splice_select_hints(&mut self) {
                let envelope = self;
                match #code {
                    #(#arms)*
                    _ => {}
                }
            }
        }
    }
}

/// The statements of `build()` that drop the conditional hints whose
/// condition does not hold (nothing for a code with general hints only).
/// The constructor rendered every hint in spec order, so hint `i` of the
/// envelope is hint `i` of the spec until this runs, once.
pub(super) fn select_hints(
    spec: &Spec,
    paths: &Paths,
    code: &Code,
    prefix: &TokenStream,
) -> TokenStream {
    let Some(hints) = &paths.hints else {
        // No hints on the wire: nothing to select.
        return TokenStream::new();
    };
    if code.hint_conditions.iter().all(Option::is_none) {
        return TokenStream::new();
    }
    let envelope = quote!(envelope);
    let holder = read(&envelope, &paths.holder);
    let keep = code.hints().map(|(_, cond)| {
        let Some(cond) = cond else {
            return quote!(true);
        };
        let Some(field) = spec.field(&cond.field.value) else {
            return quote!(false);
        };
        let FieldType::Enum(ty) = field.ty() else {
            return quote!(false);
        };
        let name = field_ident(field);
        let ty = ident(ty);
        let variants = cond.values.iter().map(|v| ident(&upper_camel(&v.value)));
        let value = match field.placement() {
            Placement::TopLevel => holder.field(&name),
            Placement::Envelope => quote!(envelope.#name.as_ref()),
            Placement::Context => match paths.context_field(&envelope, &name) {
                Some(value) => value,
                None => return quote!(false),
            },
        };
        quote!(::core::matches!(#value, ::core::option::Option::Some(#(#prefix #ty::#variants)|*)))
    });
    let keep = quote! {
        let keep = [#(#keep),*];
        let mut keep = keep.iter();
    };
    let Some((leaf, parent)) = hints.split_last() else {
        return TokenStream::new();
    };
    let field = &leaf.field;
    let retain = if leaf.optional {
        write(&envelope, parent, &|at| {
            quote! {
                if let ::core::option::Option::Some(hints) = &mut #at.#field {
                    hints.retain(|_| keep.next().copied().unwrap_or(true));
                }
            }
        })
    } else {
        write(&envelope, parent, &|at| {
            quote! {
                #at.#field
                    .retain(|_| keep.next().copied().unwrap_or(true));
            }
        })
    };
    quote! {
        #keep
        #retain
    }
}

/// `template` for the generated `__splice_render`: literal braces doubled,
/// each placeholder that names a binding replaced by `{i}`, the index of
/// the binding in `used` (appended on first use). A placeholder that names
/// no binding (the checker rejects those) stays literal text.
pub(super) fn compile_template(
    template: &str,
    bindings: &[String],
    used: &mut Vec<String>,
) -> String {
    let mut out = String::new();
    for segment in Template::parse(template).segments {
        match segment {
            Segment::Placeholder { name, .. } if bindings.iter().any(|b| b == name) => {
                let i = match used.iter().position(|u| u == name) {
                    Some(i) => i,
                    None => {
                        used.push(name.to_owned());
                        used.len() - 1
                    }
                };
                out.push_str(&format!("{{{i}}}"));
            }
            Segment::Placeholder { name, .. } => {
                out.push_str("{{");
                out.push_str(name);
                out.push_str("}}");
            }
            Segment::Text(text) => out.push_str(&text.replace('{', "{{").replace('}', "}}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_compile_to_indexed_placeholders() {
        let bound = vec!["n".to_owned(), "m".to_owned()];
        let mut used = Vec::new();
        assert_eq!(
            compile_template("{{n}} is {n}", &bound, &mut used),
            "{{n}} is {0}"
        );
        assert_eq!(
            compile_template("{m} and {n}", &bound, &mut used),
            "{1} and {0}"
        );
        assert_eq!(used, ["n", "m"]);
        assert_eq!(
            compile_template("braces {{ }}", &bound, &mut used),
            "braces {{ }}"
        );
        // Unbound placeholders stay text instead of naming a missing variable.
        assert_eq!(
            compile_template("{missing}", &bound, &mut used),
            "{{missing}}"
        );
        assert_eq!(used, ["n", "m"]);
    }
}
