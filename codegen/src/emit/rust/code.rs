//! `Category`, `Cause` and `ErrorCode`: the enums of the taxonomy and the
//! `const fn` lookups of every property of a code.
//!
//! The lookups index one table per property by the variant's position in
//! `ErrorCode::ALL` instead of matching on every code, so the expansion of a
//! large taxonomy grows by one table element per code and property, not by
//! one match arm.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::spec::{Cause, Code, Lifecycle, Spec};

use super::tokens::{doc_attrs, ident, number_literal, number_type, upper_camel, variant_ident};

pub(super) fn emit_category(spec: &Spec) -> TokenStream {
    let variants: Vec<Ident> = spec
        .categories
        .iter()
        .map(|c| ident(&upper_camel(&c.key.value)))
        .collect();
    let keys: Vec<&str> = spec
        .categories
        .iter()
        .map(|c| c.key.value.as_str())
        .collect();
    let docs = spec.categories.iter().map(|c| {
        let summary = if c.ranges.is_empty() {
            format!("`{}`: {}", c.key.value, c.description.value.trim())
        } else {
            let ranges = c
                .ranges
                .iter()
                .map(|r| format!("{}..={}", r.value.0, r.value.1))
                .collect::<Vec<_>>()
                .join(", ");
            format!(
                "`{}` ({ranges}): {}",
                c.key.value,
                c.description.value.trim()
            )
        };
        doc_attrs(&summary)
    });
    quote! {
        /// The category of an error code, and the defaults (`retryable`,
        /// `cause`) its codes inherit.
        #[derive(
            ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq,
            ::core::hash::Hash, ::core::cmp::PartialOrd, ::core::cmp::Ord, ::core::fmt::Debug,
            ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
        )]
        #[allow(dead_code)]
        pub enum Category {
            #(
                #docs
                #[serde(rename = #keys)]
                #variants,
            )*
        }

        #[allow(dead_code)]
        impl Category {
            /// Every category, in spec order.
            pub const ALL: &'static [Category] = &[#(Category::#variants),*];

            /// The key used in `errors.yaml` and in the envelope.
            pub const fn as_str(self) -> &'static str {
                match self {
                    #(Category::#variants => #keys,)*
                }
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for Category {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

pub(super) fn emit_cause() -> TokenStream {
    let variants: Vec<Ident> = Cause::ALL
        .iter()
        .map(|c| ident(&upper_camel(c.as_str())))
        .collect();
    let names: Vec<&str> = Cause::ALL.iter().map(|c| c.as_str()).collect();
    let docs = Cause::ALL.iter().map(|c| {
        doc_attrs(match c {
            Cause::Input => "The caller's arguments: the caller can fix its call.",
            Cause::Environment => {
                "The environment: file system state, permissions, disk, other processes."
            }
            Cause::Server => "The server itself: a bug or an unimplemented feature.",
        })
    });
    quote! {
        /// Who is to blame for a failure. Independent of `retryable`.
        #[derive(
            ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq,
            ::core::hash::Hash, ::core::cmp::PartialOrd, ::core::cmp::Ord, ::core::fmt::Debug,
            ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
        )]
        #[allow(dead_code)]
        pub enum Cause {
            #(
                #docs
                #[serde(rename = #names)]
                #variants,
            )*
        }

        #[allow(dead_code)]
        impl Cause {
            /// Every cause.
            pub const ALL: &'static [Cause] = &[#(Cause::#variants),*];

            /// The spelling used in `errors.yaml` and in the envelope.
            pub const fn as_str(self) -> &'static str {
                match self {
                    #(Cause::#variants => #names,)*
                }
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for Cause {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

pub(super) fn emit_error_code(spec: &Spec) -> TokenStream {
    let codes: Vec<&Code> = spec.emitted_codes().collect();
    let variants: Vec<Ident> = codes.iter().map(|c| variant_ident(c)).collect();
    let names: Vec<&str> = codes.iter().map(|c| c.wire()).collect();
    // Other names on the wire that mean a code: (alias, index in `ALL`).
    let alias_names = codes
        .iter()
        .flat_map(|c| c.aliases.iter().map(|a| a.value.as_str()));
    let alias_codes = codes
        .iter()
        .enumerate()
        .flat_map(|(i, c)| c.aliases.iter().map(move |_| i));
    // Without aliases, the lookup by name alone (and no table).
    let (aliases, or_alias_s, or_alias_v) = if codes.iter().any(|c| !c.aliases.is_empty()) {
        (
            quote! {
                #[doc(hidden)]
                pub const __ALIASES: &'static [(&'static str, usize)] = &[#((#alias_names, #alias_codes)),*];
            },
            quote!(.or_else(|| Self::__ALIASES.iter().find(|(a, _)| *a == s).map(|(_, i)| *i))),
            quote!(.or_else(|| ErrorCode::__ALIASES.iter().find(|(a, _)| *a == v).map(|(_, i)| *i))),
        )
    } else {
        (TokenStream::new(), TokenStream::new(), TokenStream::new())
    };
    let variant_docs = codes.iter().map(|c| {
        let retry = if c.retryable {
            "retryable"
        } else {
            "not retryable"
        };
        let number = c.number().map(|n| format!(" · {n}")).unwrap_or_default();
        let summary = format!(
            "{}\n\n`{}`{number} · {} · {} · cause: {}\n\n{}",
            c.title.value.trim(),
            c.name.value,
            c.category.value,
            retry,
            c.cause.as_str(),
            c.explanation.value.trim(),
        );
        doc_attrs(&summary)
    });
    let deprecations = codes.iter().map(|c| deprecated_attr(spec, c));
    // The lookups index tables by discriminant (variants are numbered 0..N
    // in `ALL` order): one element per code instead of one match arm per
    // code per lookup keeps the expansion small for large taxonomies.
    // A taxonomy without numbers: `ErrorCode` has no `number()`.
    let number_method = if spec.taxonomy.numbered() {
        let number_type = number_type(spec);
        let numbers = codes.iter().filter_map(|c| c.number()).map(number_literal);
        quote! {
            /// The numeric code, inside the category's range.
            pub const fn number(self) -> #number_type {
                const TABLE: &[#number_type] = &[#(#numbers),*];
                TABLE[self as usize]
            }
        }
    } else {
        TokenStream::new()
    };
    let categories = codes.iter().map(|c| {
        let v = ident(&upper_camel(&c.category.value));
        quote!(Category::#v)
    });
    let retryables = codes.iter().map(|c| c.retryable);
    let violation_kinds = codes.iter().map(|c| c.is_violation_kind());
    let causes = codes.iter().map(|c| {
        let v = ident(&upper_camel(c.cause.as_str()));
        quote!(Cause::#v)
    });
    let titles = codes.iter().map(|c| c.title.value.as_str());
    let hints = codes.iter().map(|c| {
        let hints = c.recovery_hints.iter().map(|h| h.value.as_str());
        quote!(&[#(#hints),*])
    });
    let messages = codes.iter().map(|c| c.message.value.as_str());
    let explanations = codes.iter().map(|c| c.explanation.value.as_str());
    // One flat table of names: codes with the same field list share one
    // run of it, and each code is a (start, len) pair, so a large
    // taxonomy costs one pair per code instead of all of its field names.
    let mut field_names: Vec<&str> = Vec::new();
    let mut runs = std::collections::HashMap::new();
    let spans: Vec<TokenStream> = codes
        .iter()
        .map(|c| {
            let list: Vec<&str> = spec
                .required_fields(c)
                .into_iter()
                .chain(spec.optional_fields(c))
                .map(|f| f.name())
                .collect();
            let len = list.len();
            let start = *runs.entry(list.clone()).or_insert_with(|| {
                field_names.extend(list);
                field_names.len() - len
            });
            let (start, len) = (
                Literal::usize_unsuffixed(start),
                Literal::usize_unsuffixed(len),
            );
            quote!((#start, #len))
        })
        .collect();
    let schema_doc = "A taxonomy error code, as its SCREAMING_SNAKE name.";
    let retry_meaning = format!(
        " What `retryable()` means in this taxonomy: {}.",
        spec.retry_meaning()
    );
    let retry_meaning_text = spec.retry_meaning();
    let retryable_doc = format!(" True when {}.", spec.retry_meaning());
    let retry_classes = codes.iter().map(|c| {
        let names = c.retry_classes.iter().map(|n| n.value.as_str());
        quote!(&[#(#names),*])
    });
    let attribute_pairs = codes.iter().map(|c| {
        let pairs = c.attributes.iter().map(|a| {
            let (name, value) = (a.name.value.as_str(), a.value.value.to_string());
            quote!((#name, #value))
        });
        quote!(&[#(#pairs),*])
    });
    let attribute_accessors = spec.attributes.iter().map(|def| {
        let method = ident(&def.name.value);
        let values: Vec<TokenStream> = codes
            .iter()
            .map(|c| {
                let v = spec.attribute(c, &def.name.value);
                let lit = match v {
                    Some(serde_json::Value::String(s)) => quote!(#s),
                    Some(serde_json::Value::Bool(b)) => quote!(#b),
                    Some(serde_json::Value::Number(n)) => {
                        let n = Literal::i64_suffixed(n.as_i64().unwrap_or_default());
                        quote!(#n)
                    }
                    _ => quote!(),
                };
                match (def.required, v.is_some()) {
                    (true, _) => lit,
                    (false, true) => quote!(::core::option::Option::Some(#lit)),
                    (false, false) => quote!(::core::option::Option::None),
                }
            })
            .collect();
        let base = match def.ty.value {
            crate::spec::AttributeType::String => quote!(&'static str),
            crate::spec::AttributeType::Integer => quote!(i64),
            crate::spec::AttributeType::Boolean => quote!(bool),
        };
        let ty = if def.required {
            base
        } else {
            quote!(::core::option::Option<#base>)
        };
        let doc = doc_attrs(&format!(
            "{} (attribute `{}`{}).",
            def.doc.value.trim_end_matches('.'),
            def.name.value,
            if def.required {
                ""
            } else {
                "; `None` when the code has none"
            }
        ));
        quote! {
            #doc
            pub const fn #method(self) -> #ty {
                const TABLE: &[#ty] = &[#(#values),*];
                TABLE[self as usize]
            }
        }
    });

    // The names of the schema, each once: under `code_names: per_category`
    // two codes may share one.
    let mut unique_names: Vec<&str> = Vec::new();
    for n in &names {
        if !unique_names.contains(n) {
            unique_names.push(n);
        }
    }
    let schema_names = if unique_names.len() == names.len() {
        quote!(ErrorCode::__NAMES)
    } else {
        quote!(&[#(#unique_names),*])
    };
    // Under `code_names: per_category` a name tells a code only within its
    // category: the lookup takes both, and there is no `FromStr`.
    let from_str = if spec.taxonomy.per_category() {
        let aliases = if codes.iter().any(|c| !c.aliases.is_empty()) {
            quote!(|| Self::__ALIASES
                .iter()
                .any(|(a, i)| *a == name && Self::ALL[*i] == *code))
        } else {
            quote!(|| false)
        };
        quote! {
            #[allow(dead_code, deprecated)]
            impl ErrorCode {
                /// The code of category `category` (its key) whose name on
                /// the wire, or one of its aliases, is `name`: codes are
                /// told by the pair (`code_names: per_category`).
                pub fn from_category_and_name(
                    category: &str,
                    name: &str,
                ) -> ::core::option::Option<ErrorCode> {
                    Self::ALL.iter().copied().find(|code| {
                        code.category().as_str() == category
                            && (code.as_str() == name || (#aliases)())
                    })
                }
            }
        }
    } else {
        quote! {
            #[automatically_derived]
            impl ::core::str::FromStr for ErrorCode {
                type Err = UnknownErrorCode;

                fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {
                    match Self::__NAMES.iter().position(|name| *name == s) #or_alias_s {
                        ::core::option::Option::Some(i) => ::core::result::Result::Ok(Self::ALL[i]),
                        ::core::option::Option::None => ::core::result::Result::Err(UnknownErrorCode {
                            name: ::std::string::String::from(s),
                        }),
                    }
                }
            }
        }
    };
    quote! {
        /// A code of the error taxonomy. Removed codes have no variant;
        /// deprecated ones are `#[deprecated]`.
        ///
        /// Serialized as its SCREAMING_SNAKE name (`Display` and `FromStr`
        /// use the same spelling). Every property of a code is a `const fn`
        /// lookup compiled from `errors.yaml`.
        #[derive(
            ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq,
            ::core::hash::Hash, ::core::cmp::PartialOrd, ::core::cmp::Ord, ::core::fmt::Debug,
        )]
        #[allow(dead_code)]
        pub enum ErrorCode {
            #(
                #variant_docs
                #deprecations
                #variants,
            )*
        }

        #[allow(dead_code, deprecated)]
        impl ErrorCode {
            /// Every code that may appear in an envelope (active and
            /// deprecated), in spec order.
            pub const ALL: &'static [ErrorCode] = &[#(ErrorCode::#variants),*];

            #[doc(hidden)]
            pub const __NAMES: &'static [&'static str] = &[#(#names),*];

            #aliases

            /// The SCREAMING_SNAKE name, e.g. `MATCH_NOT_FOUND`.
            pub const fn as_str(self) -> &'static str {
                Self::__NAMES[self as usize]
            }

            #number_method

            /// The category the code belongs to.
            pub const fn category(self) -> Category {
                const TABLE: &[Category] = &[#(#categories),*];
                TABLE[self as usize]
            }

            #[doc = #retry_meaning]
            pub const RETRYABLE_MEANING: &'static str = #retry_meaning_text;

            #[doc = #retryable_doc]
            pub const fn retryable(self) -> bool {
                const TABLE: &[bool] = &[#(#retryables),*];
                TABLE[self as usize]
            }

            /// The retry classes the code belongs to (`retry_classes:` of
            /// the code or its category), by name; empty for most codes.
            pub const fn retry_classes(self) -> &'static [&'static str] {
                const TABLE: &[&[&str]] = &[#(#retry_classes),*];
                TABLE[self as usize]
            }

            /// The code's values of the spec's per-code attributes, as
            /// (name, JSON value) pairs in declaration order; the typed
            /// accessors are the methods named after each attribute.
            pub const fn attributes(self) -> &'static [(&'static str, &'static str)] {
                const TABLE: &[&[(&str, &str)]] = &[#(#attribute_pairs),*];
                TABLE[self as usize]
            }

            #(#attribute_accessors)*

            /// True if the code arrives only as a violation kind
            /// (`violations[].code`), never as an envelope's own
            /// `error_code` (`sent_as: violation` in the spec).
            pub const fn is_violation_kind(self) -> bool {
                const TABLE: &[bool] = &[#(#violation_kinds),*];
                TABLE[self as usize]
            }

            /// Who is to blame.
            pub const fn cause(self) -> Cause {
                const TABLE: &[Cause] = &[#(#causes),*];
                TABLE[self as usize]
            }

            /// The one-line title.
            pub const fn title(self) -> &'static str {
                const TABLE: &[&str] = &[#(#titles),*];
                TABLE[self as usize]
            }

            /// The recovery hint templates (`{param}` placeholders unrendered).
            pub const fn recovery_hints(self) -> &'static [&'static str] {
                const TABLE: &[&[&str]] = &[#(#hints),*];
                TABLE[self as usize]
            }

            /// The message template (`{param}` placeholders unrendered).
            pub const fn message_template(self) -> &'static str {
                const TABLE: &[&str] = &[#(#messages),*];
                TABLE[self as usize]
            }

            /// The long explanation (Markdown).
            pub const fn explanation(self) -> &'static str {
                const TABLE: &[&str] = &[#(#explanations),*];
                TABLE[self as usize]
            }

            /// The context fields envelopes of this code may carry (at the
            /// top level or inside `context`): its required fields, then
            /// its optional ones. Every other declared field is absent.
            pub const fn fields(self) -> &'static [&'static str] {
                const NAMES: &[&str] = &[#(#field_names),*];
                const SPANS: &[(usize, usize)] = &[#(#spans),*];
                let (start, len) = SPANS[self as usize];
                NAMES.split_at(start).1.split_at(len).0
            }

            /// Whether envelopes of this code may carry the context field
            /// `field` (for a field attached after construction, such as
            /// per-file statuses known only once a call fails).
            pub fn may_carry(self, field: &str) -> bool {
                self.fields().contains(&field)
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for ErrorCode {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #from_str

        // Hand-written rather than derived: the derive would repeat every
        // name in a `rename` and in its visitor's match.
        #[automatically_derived]
        impl ::serde::Serialize for ErrorCode {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        #[automatically_derived]
        impl<'de> ::serde::Deserialize<'de> for ErrorCode {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                struct Visitor;

                impl<'de> ::serde::de::Visitor<'de> for Visitor {
                    type Value = ErrorCode;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str("an error code name")
                    }

                    fn visit_str<E: ::serde::de::Error>(
                        self,
                        v: &str,
                    ) -> ::core::result::Result<ErrorCode, E> {
                        match ErrorCode::__NAMES.iter().position(|name| *name == v) #or_alias_v {
                            ::core::option::Option::Some(i) => ::core::result::Result::Ok(ErrorCode::ALL[i]),
                            ::core::option::Option::None => ::core::result::Result::Err(
                                E::unknown_variant(v, ErrorCode::__NAMES),
                            ),
                        }
                    }
                }

                deserializer.deserialize_str(Visitor)
            }
        }

        #[automatically_derived]
        impl ::schemars::JsonSchema for ErrorCode {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed("ErrorCode")
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::ErrorCode"))
            }

            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                // The names go in as one expression: `json!` recurses per
                // array element and would hit the recursion limit on a
                // large taxonomy.
                const NAMES: &[&str] = #schema_names;
                ::schemars::json_schema!({
                    "type": "string",
                    "description": #schema_doc,
                    "enum": NAMES,
                })
            }
        }

        /// The error of `ErrorCode::from_str`: the string is not the name of
        /// an emitted code.
        #[derive(::core::clone::Clone, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::fmt::Debug)]
        #[allow(dead_code)]
        pub struct UnknownErrorCode {
            name: ::std::string::String,
        }

        #[allow(dead_code)]
        impl UnknownErrorCode {
            /// The string that was not recognised.
            pub fn name(&self) -> &str {
                &self.name
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for UnknownErrorCode {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::write!(f, "unknown error code `{}`", self.name)
            }
        }

        #[automatically_derived]
        impl ::std::error::Error for UnknownErrorCode {}
    }
}

/// `#[deprecated(note = "...")]` for a deprecated code, nothing otherwise.
pub(super) fn deprecated_attr(spec: &Spec, code: &Code) -> TokenStream {
    let Lifecycle::Deprecated {
        since,
        replaced_by,
        note,
    } = &code.lifecycle
    else {
        return TokenStream::new();
    };
    let replacement = match spec.code(&replaced_by.value) {
        Some(r) => format!(
            "use {} (`ErrorCode::{}`) instead",
            r.name.value,
            variant_ident(r)
        ),
        None => format!("use {} instead", replaced_by.value),
    };
    let mut text = format!("since taxonomy {}; {replacement}", since.value);
    if let Some(note) = note {
        text.push_str(" (");
        text.push_str(note.value.trim());
        text.push(')');
    }
    quote!(#[deprecated(note = #text)])
}
