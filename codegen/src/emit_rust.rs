//! The Rust emitter: a checked [`Spec`] becomes the items `taxonomy!` expands to.
//!
//! The output is plain data types and `const fn` lookups, so a server built
//! from it never reads YAML, never initialises a lazy static and never
//! allocates to answer "is this code retryable?". Everything a caller could
//! get wrong by hand (the numeric code, `retryable`, `cause`, the hints, which
//! context fields a code must carry) is filled in by the generated
//! constructors, one per code, whose parameters are exactly that code's
//! required context fields and message parameters. Optional context goes
//! through a per-code builder that only has methods for the fields that code
//! may carry, so a wrong field is a compile error at the call site.
//!
//! A client reads what a server sends as `AnyErrorEnvelope`
//! ([`emit_any_envelope`]): a listed code's `ErrorEnvelope`, or an
//! `UnlistedCodeEnvelope` for a code of a later release, as the schema's last
//! variant and the TypeScript and Python types allow.
//!
//! The emitted items land in the module that invokes the macro, next to the
//! user's own items, so the generated code is defensive: absolute paths
//! (`::core::`, `::std::`, `::serde::`, `::schemars::`), no glob imports, and
//! `#[allow(deprecated)]` wherever the generated code itself has to name a
//! deprecated code. Callers of a deprecated code still get the warning.
//!
//! The shapes of the support types and fields come from the declarations in
//! the spec ([`crate::context`]), the same
//! model the JSON Schema emitter reads, so the Rust types and the published
//! schema cannot drift apart.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::case::Case;
use crate::context::{FieldDef, FieldType, Placement, TypeBody, TypeDef};
use crate::envelope::{Carries, Envelope, Member};
use crate::span::Loc;
use crate::spec::{Cause, Code, Lifecycle, ParamType, Spec};
use crate::template::{Segment, Template};

/// The methods of the generated `ErrorCode`: a per-code attribute (whose
/// typed accessor is a method named after it) may not take one.
pub const ERROR_CODE_METHODS: &[&str] = &[
    "as_str",
    "number",
    "category",
    "retryable",
    "is_violation_kind",
    "cause",
    "title",
    "recovery_hints",
    "message_template",
    "explanation",
    "fields",
    "may_carry",
    "retry_classes",
    "attributes",
    "from_str",
    "fmt",
    "clone",
    "eq",
    "hash",
    "cmp",
    "partial_cmp",
];

/// The public names [`emit`] defines in the invoking module, besides one
/// item per declared support type (`types:`). The macro's fallback
/// re-exports exactly these names when a spec fails, so that their uses
/// raise no follow-on errors.
pub const ITEMS: &[&str] = &[
    "Category",
    "Cause",
    "ErrorCode",
    "UnknownErrorCode",
    "ErrorContext",
    "ErrorEnvelope",
    "AnyErrorEnvelope",
    "UnlistedCodeEnvelope",
    "builder",
    "SCHEMA_ID",
    "ENVELOPE_SCHEMA",
    "ENVELOPE_OUTPUT_SHAPE",
];

/// The items of the generated module, as tokens (what the proc macro returns).
pub fn emit(spec: &Spec) -> TokenStream {
    emit_with(spec, &|text| {
        raw_str_repr(text)
            .and_then(|repr| repr.parse().ok())
            .unwrap_or_else(|| proc_macro2::Literal::string(text))
    })
}

/// [`emit`], with `literal` making the string literals of the schema
/// constants, given their text. `taxonomy!` has the compiler lex a
/// [`raw_str_repr`] directly, since `proc_macro2`'s parse first checks the
/// text with its own lexer, which in a dependency built without
/// optimisation costs about 0.5 s on 20 MB of schema.
pub fn emit_with(spec: &Spec, literal: &dyn Fn(&str) -> proc_macro2::Literal) -> TokenStream {
    let category = emit_category(spec);
    let cause = emit_cause();
    let error_code = emit_error_code(spec);
    let support = emit_support_types(spec);
    let envelope = emit_envelope(spec);
    let constructors = emit_constructors(spec);
    let builders = emit_builders(spec);
    let select_hints = emit_select_hints(spec);
    let any = emit_any_envelope(spec);
    let schema = emit_schema_constants(spec, literal);
    quote! {
        #schema
        #category
        #cause
        #error_code
        #support
        #envelope
        #constructors
        #builders
        #select_hints
        #any
    }
}

/// The published envelope schema and its `$id`, so a server serves and
/// names exactly the schema its types were compiled from, without reading
/// or parsing a file at run time.
fn emit_schema_constants(
    spec: &Spec,
    literal: &dyn Fn(&str) -> proc_macro2::Literal,
) -> TokenStream {
    let id = spec.taxonomy.schema_id();
    let text = literal(&crate::emit_schema::emit_string(spec));
    let shape = literal(&crate::emit_schema::emit_output_shape_string(spec));
    quote! {
        /// The `$id` of the envelope JSON Schema (`taxonomy.schema_base_uri`
        /// and the major version).
        #[allow(dead_code)]
        pub const SCHEMA_ID: &str = #id;

        /// The envelope JSON Schema, as `splice-codegen generate` writes it.
        #[allow(dead_code)]
        pub const ENVELOPE_SCHEMA: &str = #text;

        /// The envelope as a tool's `outputSchema` advertises it: one closed
        /// object with a thin variant per code (compact JSON); see
        /// `splice_codegen::emit_schema::emit_output_shape`.
        #[allow(dead_code)]
        pub const ENVELOPE_OUTPUT_SHAPE: &str = #shape;
    }
}

/// `text` as a raw string literal, `r#"..."#` with as many `#` as it
/// needs; `None` for text a raw literal cannot hold (a carriage return).
/// The schema constants are most of a large taxonomy's expansion (20 MB of
/// the 26 MB of 1,000 codes with 100 fields each): an ordinary literal
/// escapes every quote of the JSON, and the compiler then keeps both the
/// escaped text and the value. A raw literal is the text itself
/// (`macros/README.md`, "Build time and memory at scale").
pub fn raw_str_repr(text: &str) -> Option<String> {
    if text.contains('\r') {
        return None;
    }
    // One `#` more than the longest run of them after a quote.
    let mut longest = 0;
    for (i, _) in text.match_indices('"') {
        let run = text[i + 1..].bytes().take_while(|&b| b == b'#').count();
        longest = longest.max(run);
    }
    let hashes = "#".repeat(longest + 1);
    Some(format!("r{hashes}\"{text}\"{hashes}"))
}

/// The generated items as formatted Rust source (for `splice-codegen rust`,
/// snapshots and reading).
pub fn emit_pretty(spec: &Spec) -> String {
    let tokens = emit(spec);
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        // Unreachable unless the emitter itself is broken; showing the raw
        // tokens is more useful to whoever debugs that than a panic.
        Err(_) => tokens.to_string(),
    }
}

fn emit_category(spec: &Spec) -> TokenStream {
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
        /// The category of an error code: a numeric range and the defaults
        /// (`retryable`, `cause`) its codes inherit.
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

/// The Rust type of code numbers: `u32` when every number fits (splice's
/// and most taxonomies), `i64` when one is negative or larger (JSON-RPC's
/// `-32700`).
fn number_type(spec: &Spec) -> TokenStream {
    if spec
        .codes
        .iter()
        .all(|c| u32::try_from(c.number.value).is_ok())
    {
        quote!(u32)
    } else {
        quote!(i64)
    }
}

/// A code number as a literal expression (`-32700` is a negation of a
/// literal in Rust).
fn number_literal(n: i64) -> TokenStream {
    let abs = Literal::u64_unsuffixed(n.unsigned_abs());
    if n < 0 { quote!(-#abs) } else { quote!(#abs) }
}

fn emit_cause() -> TokenStream {
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

fn emit_error_code(spec: &Spec) -> TokenStream {
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
        let summary = format!(
            "{}\n\n`{}` · {} · {} · {} · cause: {}\n\n{}",
            c.title.value.trim(),
            c.name.value,
            c.number.value,
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
    let number_type = number_type(spec);
    let numbers = codes.iter().map(|c| number_literal(c.number.value));
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

            /// The numeric code, inside the category's range.
            pub const fn number(self) -> #number_type {
                const TABLE: &[#number_type] = &[#(#numbers),*];
                TABLE[self as usize]
            }

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
                const NAMES: &[&str] = ErrorCode::__NAMES;
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
fn deprecated_attr(spec: &Spec, code: &Code) -> TokenStream {
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

fn emit_support_types(spec: &Spec) -> TokenStream {
    let eq = eq_derive(spec);
    let enums = spec.types.iter().filter_map(|def| {
        let values = def.values()?;
        let name = ident(&def.name.value);
        let doc = &def.doc.value;
        let variants: Vec<Ident> = values.iter().map(|v| ident(&upper_camel(v))).collect();
        let docs = values.iter().map(|v| doc_attrs(&format!("`{}`", v.value)));
        let values = def.wire_values();
        Some(quote! {
            #[doc = #doc]
            #[derive(
                ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq,
                ::core::hash::Hash, ::core::cmp::PartialOrd, ::core::cmp::Ord, ::core::fmt::Debug,
                ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
            )]
            #[allow(dead_code)]
            pub enum #name {
                #(
                    #docs
                    #[serde(rename = #values)]
                    #variants,
                )*
            }
        })
    });
    let structs = spec
        .types
        .iter()
        .filter(|def| matches!(def.body, TypeBody::Object(_)))
        .map(|def| emit_support_struct(spec, def, &eq));
    // A tagged union: an internally tagged enum of the variants' structs.
    let unions = spec.types.iter().filter_map(|def| {
        let u = def.union()?;
        let name = ident(&def.name.value);
        let doc = &def.doc.value;
        let tag = &u.discriminator.value;
        let variants = u.variants.iter().map(|v| {
            let ty = ident(&v.ty.value);
            let value = &v.tag.value;
            let doc = format!("`{tag}: {value}`");
            quote! {
                #[doc = #doc]
                #[serde(rename = #value)]
                #ty(#ty),
            }
        });
        Some(quote! {
            #[doc = #doc]
            #[derive(
                ::core::clone::Clone, ::core::cmp::PartialEq, #eq ::core::fmt::Debug,
                ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
            )]
            #[serde(tag = #tag)]
            #[allow(dead_code)]
            pub enum #name {
                #(#variants)*
            }
        })
    });
    // A union of scalars: an untagged enum, one variant per JSON type
    // (the members differ in JSON type, so serde's first match is the
    // only one); `null` is a unit variant, read from and written as `null`.
    let one_ofs = spec.types.iter().filter_map(|def| {
        let o = def.one_of()?;
        let name = ident(&def.name.value);
        let doc = &def.doc.value;
        let variants = o.types.iter().map(|t| {
            let variant = ident(crate::context::OneOf::variant(&t.value));
            let ty = field_type(&t.value, &TokenStream::new());
            let doc = format!("A JSON value of type `{}`.", t.value.spelling());
            quote! {
                #[doc = #doc]
                #variant(#ty),
            }
        });
        let null = o.null.map(|_| {
            quote! {
                /// JSON `null`.
                Null,
            }
        });
        Some(quote! {
            #[doc = #doc]
            #[derive(
                ::core::clone::Clone, ::core::cmp::PartialEq, #eq ::core::fmt::Debug,
                ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
            )]
            #[serde(untagged)]
            #[allow(dead_code)]
            pub enum #name {
                #(#variants)*
                #null
            }
        })
    });
    let present = spec
        .types
        .iter()
        .filter_map(|d| d.one_of())
        .any(|o| o.null.is_some())
        .then(|| {
            quote! {
                /// Reads a value that is present, `null` included, as `Some`
                /// (see `null_as_value` in splice-codegen).
                #[doc(hidden)]
                #[allow(dead_code)]
                fn __splice_present<'de, D, T>(
                    deserializer: D,
                ) -> ::core::result::Result<::core::option::Option<T>, D::Error>
                where
                    D: ::serde::Deserializer<'de>,
                    T: ::serde::Deserialize<'de>,
                {
                    T::deserialize(deserializer).map(::core::option::Option::Some)
                }
            }
        });
    quote! {
        #(#enums)*
        #(#structs)*
        #(#unions)*
        #(#one_ofs)*
        #present
    }
}

/// `::core::cmp::Eq,` for the derives of the generated structs, unless a
/// declared type or field holds a float (`f64` is not `Eq`).
fn eq_derive(spec: &Spec) -> TokenStream {
    let float = spec.fields.iter().any(|f| f.ty().holds_float())
        || spec
            .types
            .iter()
            .flat_map(|t| t.members())
            .any(|m| m.ty.value.holds_float())
        || spec
            .types
            .iter()
            .filter_map(|t| t.one_of())
            .any(|o| o.types.iter().any(|t| t.value.holds_float()));
    if float {
        TokenStream::new()
    } else {
        quote!(::core::cmp::Eq,)
    }
}

fn emit_support_struct(spec: &Spec, def: &TypeDef, eq: &TokenStream) -> TokenStream {
    let name = ident(&def.name.value);
    let doc = &def.doc.value;
    let fields = def.members().iter().map(|m| {
        let field = ident(&m.name.value);
        let ty = field_type(&m.ty.value, &TokenStream::new());
        let doc = &m.doc.value;
        let rename = rename(m.wire.as_ref());
        if m.required && m.nullable {
            // Always sent, `null` when `None`.
            quote! {
                #[doc = #doc]
                #rename
                pub #field: ::core::option::Option<#ty>,
            }
        } else if m.required {
            quote! {
                #[doc = #doc]
                #rename
                pub #field: #ty,
            }
        } else {
            let null = null_as_value(spec, &m.ty.value);
            quote! {
                #[doc = #doc]
                #rename
                #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
                #null
                pub #field: ::core::option::Option<#ty>,
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(
            ::core::clone::Clone, ::core::cmp::PartialEq, #eq ::core::fmt::Debug,
            ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
        )]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        pub struct #name {
            #(#fields)*
        }
    }
}

/// `#[serde(rename = "...")]` for a name whose `wire:` differs from its
/// identifier; nothing otherwise.
fn rename(wire: Option<&crate::span::Spanned<String>>) -> TokenStream {
    match wire {
        Some(w) => {
            let w = &w.value;
            quote!(#[serde(rename = #w)])
        }
        None => TokenStream::new(),
    }
}

/// The Rust field name of an envelope member: its wire name in
/// lower_snake_case (`retryDelay` -> `retry_delay`, `@type` -> `r#type`);
/// serde renames it back when the two differ.
fn member_ident(member: &Member) -> Ident {
    ident(&Case::LowerSnake.convert(&member.name.value))
}

/// `#[serde(rename = "...")]` for a member whose wire name is not its
/// Rust field name; nothing otherwise (splice's members).
fn member_rename(member: &Member) -> TokenStream {
    let wire = &member.name.value;
    if Case::LowerSnake.convert(wire) == *wire {
        TokenStream::new()
    } else {
        quote!(#[serde(rename = #wire)])
    }
}

/// The struct of a nested object of the envelope: `ErrorEnvelope` and the
/// members from the top (`error` -> `ErrorEnvelopeError`).
fn object_struct(path: &[&Member]) -> Ident {
    let mut name = String::from("ErrorEnvelope");
    for m in path {
        name.push_str(&upper_camel(&m.name.value));
    }
    ident(&name)
}

/// The members from the top of the envelope down to the one at `names`
/// (wire names, as [`Envelope::path_of`] gives them).
fn resolve<'e>(envelope: &'e Envelope, names: &[&str]) -> Vec<&'e Member> {
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
fn held_fields<'s>(spec: &'s Spec, path: &[&Member]) -> Vec<&'s FieldDef> {
    let names: Vec<&str> = path.iter().map(|m| m.name.value.as_str()).collect();
    spec.fields_held_at(&names).collect()
}

/// Whether the Rust types hold `m` as a value rather than an `Option`: a
/// required member, or the code name with `absent_means` (an envelope
/// without it reads as that code, see [`absent_default`]).
fn in_every_envelope(m: &Member) -> bool {
    m.required || m.absent_means.is_some()
}

/// The function serde calls for a code name that `absent_means` lets an
/// envelope leave out: it returns that code.
fn absent_default(spec: &Spec) -> TokenStream {
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
fn access(path: &[&Member]) -> TokenStream {
    let idents = path.iter().map(|m| member_ident(m));
    quote!(#(.#idents)*)
}

/// Where `ErrorEnvelope` keeps what the generated code reads and writes,
/// from the spec's `envelope:` (splice's: `.error_code`, `.recovery_hints`,
/// `.context` and the fields at the top).
struct Layout {
    /// The object holding the fields declared `in: top_level`.
    fields: TokenStream,
    /// The member holding the `ErrorCode`: the one carrying the code name,
    /// else the one carrying the number.
    code: TokenStream,
    /// No member carries the code name: the number member holds the
    /// `ErrorCode`, on the wire as its number.
    by_number: bool,
    /// The member carrying the hints, and whether it is always present.
    hints: Option<(TokenStream, bool)>,
    /// The member carrying the context object (an `Option<ErrorContext>`).
    context: Option<TokenStream>,
}

impl Layout {
    fn of(envelope: &Envelope) -> Layout {
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
fn member_doc(spec: &Spec, member: &Member) -> String {
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
fn constant_type(value: &serde_json::Value) -> TokenStream {
    match value {
        serde_json::Value::Bool(_) => quote!(bool),
        serde_json::Value::Number(_) => quote!(i64),
        _ => quote!(::std::string::String),
    }
}

/// A constant member's value as an expression.
fn constant_value(value: &serde_json::Value) -> TokenStream {
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
fn constant_pattern(value: &serde_json::Value) -> TokenStream {
    match value {
        serde_json::Value::String(s) => quote!(#s),
        other => constant_value(other),
    }
}

/// The Rust fields of one object of the envelope: its members in wire
/// order, with the top-level fields before its `context` member (or at its
/// end) when it is the object that holds them.
fn object_fields(spec: &Spec, members: &[Member], path: &[&Member]) -> Vec<TokenStream> {
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
fn optional_field(spec: &Spec, f: &FieldDef) -> TokenStream {
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

/// For an `Option` of a type with a `null` of its own (a `one_of` that
/// lists `null`, such as JSON-RPC's `id`): serde reads a `null` sent as
/// that value (`Some(RequestId::Null)`), not as absent, so it is written
/// back. Empty for any other type.
fn null_as_value(spec: &Spec, ty: &FieldType) -> TokenStream {
    let null = match ty {
        FieldType::Struct(t) => spec
            .type_def(t)
            .and_then(|d| d.one_of())
            .is_some_and(|o| o.null.is_some()),
        _ => false,
    };
    if null {
        quote!(#[serde(deserialize_with = "__splice_present")])
    } else {
        TokenStream::new()
    }
}

/// Which envelope type a nested object's struct belongs to.
#[derive(Clone, Copy)]
enum Family<'t> {
    /// `ErrorEnvelope` (`ErrorEnvelopeError`), with the spec's `Eq` derive.
    Listed(&'t TokenStream),
    /// `UnlistedCodeEnvelope` (`UnlistedCodeEnvelopeError`).
    Unlisted,
}

/// The structs of the envelope's nested objects, depth first.
fn nested_structs<'e>(
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

fn emit_envelope(spec: &Spec) -> TokenStream {
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
fn emit_wire_envelope(spec: &Spec) -> TokenStream {
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

/// The Rust name of the struct of the unlisted envelope's object at `path`
/// (`UnlistedCodeEnvelope`, `UnlistedCodeEnvelopeError`).
fn unlisted_struct(path: &[&Member]) -> Ident {
    let mut name = String::from(crate::spec::UNLISTED_ENVELOPE);
    for m in path {
        name.push_str(&upper_camel(&m.name.value));
    }
    ident(&name)
}

/// The fields of the unlisted envelope's object `members` at `path`: the
/// declared members (what the schema's unlisted variant and the TypeScript
/// and Python `UnlistedCodeEnvelope` have), with the code's name as sent (a
/// `String`), its number (the number type) and its category as a `String`
/// (a later release may add one), and at the top the fields `in: envelope`
/// (the format's frame, such as JSON-RPC's `id`), read leniently. Neither
/// the context nor the other declared fields are kept: they are the code's,
/// a later code may carry in them what this release cannot type (a later
/// code, a new enum value), and a struct with every declared field would
/// double the build cost of a large spec's serde derives
/// (`bench/macro-scale`: +0.4 s at 1,000 codes and 100 fields).
fn unlisted_fields(spec: &Spec, members: &[Member], path: &[&Member]) -> Vec<TokenStream> {
    let number_type = number_type(spec);
    let mut out = Vec::new();
    for m in members {
        let ty = match &m.carries {
            Carries::Context => continue,
            Carries::Constant(v) => constant_type(v),
            Carries::CodeName | Carries::Category | Carries::Message => {
                quote!(::std::string::String)
            }
            Carries::Number => number_type.clone(),
            Carries::Retryable => quote!(bool),
            Carries::Cause => quote!(Cause),
            Carries::Hints => quote!(::std::vec::Vec<::std::string::String>),
            Carries::Object(_) => {
                let mut inner = path.to_vec();
                inner.push(m);
                let ty = unlisted_struct(&inner);
                quote!(#ty)
            }
        };
        let name = member_ident(m);
        let rename = member_rename(m);
        let doc = match &m.carries {
            Carries::CodeName => {
                String::from(" The code's name as sent: one this release does not list.")
            }
            Carries::Number if !spec.envelope.carries("code_name") => {
                String::from(" The code's number as sent: one this release does not list.")
            }
            Carries::Category => {
                String::from(" The code's category as sent; may be one this release does not list.")
            }
            _ => member_doc(spec, m),
        };
        out.push(if in_every_envelope(m) {
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
                pub #name: ::core::option::Option<#ty>,
            }
        });
    }
    // The fields `in: envelope` frame every code's error (JSON-RPC's `id`,
    // botocore's `ResponseMetadata`), so the outermost object keeps them,
    // read leniently: a value this release cannot type (a later enum value)
    // is dropped, as the context is, rather than refusing the envelope.
    if path.is_empty() {
        for f in spec.fields_at(Placement::Envelope) {
            let name = field_ident(f);
            let ty = field_type(f.ty(), &TokenStream::new());
            let doc = f.doc();
            let rename = rename(f.wire.as_ref());
            out.push(quote! {
                #[doc = #doc]
                #rename
                #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
                #[serde(deserialize_with = "__splice_any::lenient")]
                pub #name: ::core::option::Option<#ty>,
            });
        }
    }
    out
}

/// `AnyErrorEnvelope`: what a client of this release reads from a server of
/// any later release of the same major version, as the TypeScript and
/// Python modules' `AnyErrorEnvelope` and the schema's last variant
/// (`UnlistedCodeEnvelope`) allow. Deserializing buffers the envelope once
/// ([`emit_any_value`]), looks at its code, and reads it as an
/// `ErrorEnvelope` (every check of a listed code, with its precise error)
/// or, for a code this release does not list, as an `UnlistedCodeEnvelope`.
/// A removed code's name, or a removed or reserved number, is refused as
/// the schema refuses it.
fn emit_any_envelope(spec: &Spec) -> TokenStream {
    let env = &spec.envelope;
    let layout = Layout::of(env);
    let fields = unlisted_fields(spec, &env.members, &[]);
    let nested = nested_structs(spec, &env.members, &mut Vec::new(), Family::Unlisted);
    let code_path: Vec<&str> = env
        .path_of(if layout.by_number {
            "number"
        } else {
            "code_name"
        })
        .unwrap_or_default();
    let discriminant = code_path.last().copied().unwrap_or("code");
    let unlisted = if layout.by_number {
        // Numbers that no release may send: removed codes' and reserved.
        let never = spec
            .codes
            .iter()
            .filter(|c| !c.is_emitted())
            .map(|c| c.number.value)
            .chain(spec.reserved.iter().map(|r| r.number.value))
            .map(Literal::i64_unsuffixed);
        let message = format!(
            "`{}` is {{}}, a number no release may send (removed or reserved)",
            discriminant.replace('{', "{{").replace('}', "}}")
        );
        quote! {
            let number: ::core::option::Option<i128> = match value.at(&[#(#code_path),*]) {
                ::core::option::Option::Some(__splice_any::Value::I64(n)) => ::core::option::Option::Some(i128::from(*n)),
                ::core::option::Option::Some(__splice_any::Value::U64(n)) => ::core::option::Option::Some(i128::from(*n)),
                _ => ::core::option::Option::None,
            };
            let unlisted = match number {
                ::core::option::Option::Some(n) => {
                    if [#(#never),*].contains(&n) {
                        return ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom(
                            ::core::format_args!(#message, n),
                        ));
                    }
                    !ErrorCode::ALL.iter().any(|code| i128::from(code.number()) == n)
                }
                // Not a number: `ErrorEnvelope` says what is wrong.
                ::core::option::Option::None => false,
            };
        }
    } else {
        let never = spec
            .codes
            .iter()
            .filter(|c| !c.is_emitted())
            .flat_map(|c| c.wire_names().map(str::to_owned).collect::<Vec<_>>());
        let message = format!(
            "`{}` is `{{}}`, a removed code, which no release may send",
            discriminant.replace('{', "{{").replace('}', "}}")
        );
        quote! {
            let unlisted = match value.at(&[#(#code_path),*]) {
                ::core::option::Option::Some(__splice_any::Value::Str(name)) => {
                    let never: &[&str] = &[#(#never),*];
                    if never.contains(&name.as_str()) {
                        return ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom(
                            ::core::format_args!(#message, name),
                        ));
                    }
                    <ErrorCode as ::core::str::FromStr>::from_str(name).is_err()
                }
                // Absent or not a string: `ErrorEnvelope` says what is wrong.
                _ => false,
            };
        }
    };
    let message = env.path_of("message").map(|p| {
        let path = resolve(env, &p);
        let at = access(&path);
        let required = path.iter().all(|m| m.required);
        let get = if required {
            quote!(::core::option::Option::Some(e #at.as_str()))
        } else {
            quote!(e #at.as_deref())
        };
        quote! {
            /// The envelope's message, whichever code it has.
            pub fn message(&self) -> ::core::option::Option<&str> {
                match self {
                    AnyErrorEnvelope::Listed(e) => #get,
                    AnyErrorEnvelope::Unlisted(e) => #get,
                }
            }
        }
    });
    let value = emit_any_value();
    let unlisted_doc = format!(
        " An envelope whose `{discriminant}` this release does not list: a server of a later \
         release of the same major version sent it. Its members are the envelope's own (the \
         code as sent, the message and what else every envelope has); its context, which this \
         release cannot type, is not kept. Read one through `AnyErrorEnvelope`."
    );
    quote! {
        #[doc = #unlisted_doc]
        #[derive(
            ::core::clone::Clone, ::core::cmp::PartialEq, ::core::fmt::Debug,
            ::serde::Serialize, ::serde::Deserialize,
        )]
        #[allow(dead_code)]
        pub struct UnlistedCodeEnvelope {
            #(#fields)*
        }

        #nested

        /// What any server of the same major version may send: an envelope
        /// of a code this release lists, or of a later code. Deserialize a
        /// received error as this type to keep working when the server is
        /// newer; `ErrorEnvelope` refuses a code it does not list.
        #[derive(::core::clone::Clone, ::core::cmp::PartialEq, ::core::fmt::Debug, ::serde::Serialize)]
        #[serde(untagged)]
        #[allow(dead_code)]
        pub enum AnyErrorEnvelope {
            /// A code this release lists, checked as `ErrorEnvelope` checks it.
            Listed(ErrorEnvelope),
            /// A code of a later release.
            Unlisted(UnlistedCodeEnvelope),
        }

        #[allow(dead_code)]
        impl AnyErrorEnvelope {
            /// The envelope, if this release lists its code.
            pub fn listed(&self) -> ::core::option::Option<&ErrorEnvelope> {
                match self {
                    AnyErrorEnvelope::Listed(e) => ::core::option::Option::Some(e),
                    AnyErrorEnvelope::Unlisted(_) => ::core::option::Option::None,
                }
            }

            /// The envelope of a listed code, or the unlisted one.
            pub fn into_listed(self) -> ::core::result::Result<ErrorEnvelope, UnlistedCodeEnvelope> {
                match self {
                    AnyErrorEnvelope::Listed(e) => ::core::result::Result::Ok(e),
                    AnyErrorEnvelope::Unlisted(e) => ::core::result::Result::Err(e),
                }
            }

            #message
        }

        #[automatically_derived]
        impl ::core::convert::From<ErrorEnvelope> for AnyErrorEnvelope {
            fn from(envelope: ErrorEnvelope) -> Self {
                AnyErrorEnvelope::Listed(envelope)
            }
        }

        #[automatically_derived]
        impl<'de> ::serde::Deserialize<'de> for AnyErrorEnvelope {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let value: __splice_any::Value = ::serde::Deserialize::deserialize(deserializer)?;
                #unlisted
                let value = <__splice_any::Value as ::serde::de::IntoDeserializer<'de, D::Error>>::into_deserializer(value);
                if unlisted {
                    <UnlistedCodeEnvelope as ::serde::Deserialize>::deserialize(value).map(AnyErrorEnvelope::Unlisted)
                } else {
                    <ErrorEnvelope as ::serde::Deserialize>::deserialize(value).map(AnyErrorEnvelope::Listed)
                }
            }
        }

        #value
    }
}

/// A JSON value held in memory and read again, so that
/// `AnyErrorEnvelope` can look at an envelope's code before choosing its
/// type, with any self-describing serde format (the generated code depends on `serde`, not
/// on `serde_json`). Replaying it calls the same visitor methods the format
/// called, so a listed code's envelope gets the errors it gets read
/// directly.
fn emit_any_value() -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(dead_code)]
        pub mod __splice_any {
            /// A value as the format gave it.
            pub enum Value {
                Null,
                Bool(bool),
                I64(i64),
                U64(u64),
                F64(f64),
                Str(::std::string::String),
                Seq(::std::vec::Vec<Value>),
                Map(::std::vec::Vec<(::std::string::String, Value)>),
            }

            /// Reads a value of `T`, or `None` when the value is not one of
            /// `T` (a field of an unlisted code's envelope that a later
            /// release may fill with what this one cannot type).
            pub fn lenient<'de, D, T>(
                deserializer: D,
            ) -> ::core::result::Result<::core::option::Option<T>, D::Error>
            where
                D: ::serde::Deserializer<'de>,
                T: ::serde::Deserialize<'de>,
            {
                let value: Value = ::serde::Deserialize::deserialize(deserializer)?;
                let value = <Value as ::serde::de::IntoDeserializer<'de, D::Error>>::into_deserializer(value);
                ::core::result::Result::Ok(<T as ::serde::Deserialize>::deserialize(value).ok())
            }

            impl Value {
                /// The value at `path` (object keys), if every step is an object
                /// holding the key.
                pub fn at(&self, path: &[&str]) -> ::core::option::Option<&Value> {
                    let mut value = self;
                    for key in path {
                        let Value::Map(entries) = value else {
                            return ::core::option::Option::None;
                        };
                        value = &entries.iter().find(|(k, _)| k == key)?.1;
                    }
                    ::core::option::Option::Some(value)
                }
            }

            struct Visitor;

            impl<'de> ::serde::de::Visitor<'de> for Visitor {
                type Value = Value;

                fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str("an error envelope")
                }
                fn visit_unit<E>(self) -> ::core::result::Result<Value, E> {
                    ::core::result::Result::Ok(Value::Null)
                }
                fn visit_none<E>(self) -> ::core::result::Result<Value, E> {
                    ::core::result::Result::Ok(Value::Null)
                }
                fn visit_some<D: ::serde::Deserializer<'de>>(
                    self,
                    deserializer: D,
                ) -> ::core::result::Result<Value, D::Error> {
                    deserializer.deserialize_any(Visitor)
                }
                fn visit_bool<E>(self, v: bool) -> ::core::result::Result<Value, E> {
                    ::core::result::Result::Ok(Value::Bool(v))
                }
                fn visit_i64<E>(self, v: i64) -> ::core::result::Result<Value, E> {
                    ::core::result::Result::Ok(Value::I64(v))
                }
                fn visit_u64<E>(self, v: u64) -> ::core::result::Result<Value, E> {
                    ::core::result::Result::Ok(Value::U64(v))
                }
                fn visit_f64<E>(self, v: f64) -> ::core::result::Result<Value, E> {
                    ::core::result::Result::Ok(Value::F64(v))
                }
                fn visit_str<E>(self, v: &str) -> ::core::result::Result<Value, E> {
                    ::core::result::Result::Ok(Value::Str(::std::borrow::ToOwned::to_owned(v)))
                }
                fn visit_string<E>(self, v: ::std::string::String) -> ::core::result::Result<Value, E> {
                    ::core::result::Result::Ok(Value::Str(v))
                }
                fn visit_seq<A: ::serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> ::core::result::Result<Value, A::Error> {
                    let mut items = ::std::vec::Vec::new();
                    while let ::core::option::Option::Some(item) = seq.next_element::<Value>()? {
                        items.push(item);
                    }
                    ::core::result::Result::Ok(Value::Seq(items))
                }
                fn visit_map<A: ::serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> ::core::result::Result<Value, A::Error> {
                    let mut entries = ::std::vec::Vec::new();
                    while let ::core::option::Option::Some(key) = map.next_key::<::std::string::String>()? {
                        let value = map.next_value::<Value>()?;
                        entries.push((key, value));
                    }
                    ::core::result::Result::Ok(Value::Map(entries))
                }
            }

            impl<'de> ::serde::Deserialize<'de> for Value {
                fn deserialize<D: ::serde::Deserializer<'de>>(
                    deserializer: D,
                ) -> ::core::result::Result<Value, D::Error> {
                    deserializer.deserialize_any(Visitor)
                }
            }

            /// `value` read again, with the errors of format `E`.
            pub struct Replay<E> {
                value: Value,
                error: ::core::marker::PhantomData<E>,
            }

            impl<'de, E: ::serde::de::Error> ::serde::de::IntoDeserializer<'de, E> for Value {
                type Deserializer = Replay<E>;

                fn into_deserializer(self) -> Replay<E> {
                    Replay { value: self, error: ::core::marker::PhantomData }
                }
            }

            impl<'de, E: ::serde::de::Error> ::serde::de::Deserializer<'de> for Replay<E> {
                type Error = E;

                fn deserialize_any<V: ::serde::de::Visitor<'de>>(
                    self,
                    visitor: V,
                ) -> ::core::result::Result<V::Value, E> {
                    match self.value {
                        Value::Null => visitor.visit_unit(),
                        Value::Bool(v) => visitor.visit_bool(v),
                        Value::I64(v) => visitor.visit_i64(v),
                        Value::U64(v) => visitor.visit_u64(v),
                        Value::F64(v) => visitor.visit_f64(v),
                        Value::Str(v) => visitor.visit_string(v),
                        Value::Seq(items) => {
                            let mut seq = ::serde::de::value::SeqDeserializer::new(items.into_iter());
                            let out = visitor.visit_seq(&mut seq)?;
                            seq.end()?;
                            ::core::result::Result::Ok(out)
                        }
                        Value::Map(entries) => {
                            let mut map = ::serde::de::value::MapDeserializer::new(entries.into_iter());
                            let out = visitor.visit_map(&mut map)?;
                            map.end()?;
                            ::core::result::Result::Ok(out)
                        }
                    }
                }

                fn deserialize_option<V: ::serde::de::Visitor<'de>>(
                    self,
                    visitor: V,
                ) -> ::core::result::Result<V::Value, E> {
                    match self.value {
                        Value::Null => visitor.visit_none(),
                        _ => visitor.visit_some(self),
                    }
                }

                fn deserialize_enum<V: ::serde::de::Visitor<'de>>(
                    self,
                    _name: &'static str,
                    _variants: &'static [&'static str],
                    visitor: V,
                ) -> ::core::result::Result<V::Value, E> {
                    match self.value {
                        Value::Str(v) => visitor.visit_enum(
                            <::std::string::String as ::serde::de::IntoDeserializer<'de, E>>::into_deserializer(v),
                        ),
                        Value::Map(entries) => visitor.visit_enum(::serde::de::value::MapAccessDeserializer::new(
                            ::serde::de::value::MapDeserializer::new(entries.into_iter()),
                        )),
                        value => Replay::<E> { value, error: ::core::marker::PhantomData }.deserialize_any(visitor),
                    }
                }

                fn deserialize_newtype_struct<V: ::serde::de::Visitor<'de>>(
                    self,
                    _name: &'static str,
                    visitor: V,
                ) -> ::core::result::Result<V::Value, E> {
                    visitor.visit_newtype_struct(self)
                }

                ::serde::forward_to_deserialize_any! {
                    bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                    bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
                    identifier ignored_any
                }
            }
        }
    }
}

fn emit_constructors(spec: &Spec) -> TokenStream {
    let layout = Layout::of(&spec.envelope);
    let literal = envelope_literal(spec, &spec.envelope.members, &mut Vec::new());
    let env = &spec.envelope;
    let render_message = if env.carries("message") {
        quote!(let message = Self::__splice_render(message, args);)
    } else {
        quote!(let _ = message;)
    };
    let render_hints = if env.carries("hints") {
        quote! {
            let mut recovery_hints = ::std::vec::Vec::with_capacity(hints.len());
            for hint in hints {
                recovery_hints.push(Self::__splice_render(hint, args));
            }
        }
    } else {
        quote!(let _ = hints;)
    };
    let unused_args = if env.carries("message") || env.carries("hints") {
        TokenStream::new()
    } else {
        quote!(let _ = args;)
    };
    let setters = spec.fields.iter().map(|f| {
        let setter = setter_ident(f);
        let name = field_ident(f);
        let ty = field_type(f.ty(), &TokenStream::new());
        let target = match (f.placement(), &layout.context) {
            (Placement::TopLevel, _) => {
                let at = &layout.fields;
                quote!(self #at.#name)
            }
            (Placement::Envelope, _) => quote!(self.#name),
            (Placement::Context, Some(context)) => quote! {
                ::core::option::Option::get_or_insert_with(
                    &mut self #context,
                    <ErrorContext as ::core::default::Default>::default,
                ).#name
            },
            // No member carries context (`emit_rust::unsupported` refuses
            // such a spec before this runs).
            (Placement::Context, None) => {
                return quote! {
                    #[doc(hidden)]
                    fn #setter(&mut self, value: #ty) {
                        let _ = value;
                    }
                };
            }
        };
        quote! {
            #[doc(hidden)]
            fn #setter(&mut self, value: #ty) {
                #target = ::core::option::Option::Some(value);
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

fn emit_constructor(spec: &Spec, code: &Code) -> TokenStream {
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
const CHUNK: usize = 8;

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
fn emit_builders(spec: &Spec) -> TokenStream {
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
fn envelope_literal<'e>(
    spec: &'e Spec,
    members: &'e [Member],
    path: &mut Vec<&'e Member>,
) -> TokenStream {
    let env = &spec.envelope;
    let name = object_struct(path);
    let top_level: Vec<TokenStream> = held_fields(spec, path)
        .into_iter()
        .map(|f| {
            let name = field_ident(f);
            quote!(#name: ::core::option::Option::None)
        })
        .collect();
    let holds = !top_level.is_empty();
    let by_number = Layout::of(env).by_number;
    let mut out = Vec::new();
    let mut placed = false;
    for m in members {
        let field = member_ident(m);
        let value = match &m.carries {
            Carries::Constant(v) => constant_value(v),
            Carries::CodeName => quote!(error_code),
            Carries::Number if by_number => quote!(error_code),
            Carries::Number => quote!(error_code.number()),
            Carries::Category => quote!(error_code.category()),
            Carries::Message => quote!(message),
            Carries::Retryable => quote!(error_code.retryable()),
            Carries::Cause => quote!(error_code.cause()),
            Carries::Hints => quote!(recovery_hints),
            Carries::Context => {
                if holds {
                    out.extend(top_level.iter().cloned());
                    placed = true;
                }
                out.push(quote!(#field: ::core::option::Option::None));
                continue;
            }
            Carries::Object(inner) => {
                path.push(m);
                let value = envelope_literal(spec, inner, path);
                path.pop();
                value
            }
        };
        let value = if in_every_envelope(m) {
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
    if !placed {
        out.extend(top_level);
    }
    quote!(#name { #(#out,)* })
}

/// `ErrorEnvelope::__splice_select_hints`, run by every `build()`: drops
/// the conditional hints whose condition does not hold, for the codes that
/// have conditional hints (one match arm each; nothing for the others).
fn emit_select_hints(spec: &Spec) -> TokenStream {
    let layout = Layout::of(&spec.envelope);
    let code_at = &layout.code;
    let arms = spec.emitted_codes().filter_map(|code| {
        let select = select_hints(spec, &layout, code, &TokenStream::new());
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
                match envelope #code_at {
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
fn select_hints(spec: &Spec, layout: &Layout, code: &Code, prefix: &TokenStream) -> TokenStream {
    let Some((hints_at, hints_required)) = &layout.hints else {
        // No hints on the wire: nothing to select.
        return TokenStream::new();
    };
    if code.hint_conditions.iter().all(Option::is_none) {
        return TokenStream::new();
    }
    let fields_at = &layout.fields;
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
        let value = match (field.placement(), &layout.context) {
            (Placement::TopLevel, _) => quote!(envelope #fields_at.#name.as_ref()),
            (Placement::Envelope, _) => quote!(envelope.#name.as_ref()),
            (Placement::Context, Some(context)) => {
                quote!(envelope #context.as_ref().and_then(|c| c.#name.as_ref()))
            }
            (Placement::Context, None) => return quote!(false),
        };
        quote!(::core::matches!(#value, ::core::option::Option::Some(#(#prefix #ty::#variants)|*)))
    });
    let keep = quote! {
        let keep = [#(#keep),*];
        let mut keep = keep.iter();
    };
    if *hints_required {
        quote! {
            #keep
            envelope
                #hints_at
                .retain(|_| keep.next().copied().unwrap_or(true));
        }
    } else {
        quote! {
            #keep
            if let ::core::option::Option::Some(hints) = &mut envelope #hints_at {
                hints.retain(|_| keep.next().copied().unwrap_or(true));
            }
        }
    }
}

/// The private setter every constructor and builder uses for a field.
fn setter_ident(field: &FieldDef) -> Ident {
    format_ident!("__splice_set_{}", field.name())
}

/// The Rust value of a field's constant (checked against its type).
fn constant_literal(spec: &Spec, field: &FieldDef, value: &serde_json::Value) -> TokenStream {
    match (field.ty(), value) {
        (FieldType::String, serde_json::Value::String(s)) => {
            quote!(::std::string::String::from(#s))
        }
        (FieldType::Integer, v) => {
            let n = Literal::u64_suffixed(v.as_u64().unwrap_or_default());
            quote!(#n)
        }
        (FieldType::Int32, v) => {
            let n = Literal::i32_suffixed(
                v.as_i64()
                    .and_then(|n| i32::try_from(n).ok())
                    .unwrap_or_default(),
            );
            quote!(#n)
        }
        (FieldType::Int64, v) => {
            let n = Literal::i64_suffixed(v.as_i64().unwrap_or_default());
            quote!(#n)
        }
        (FieldType::Boolean, serde_json::Value::Bool(b)) => quote!(#b),
        (FieldType::Enum(t), serde_json::Value::String(s)) if spec.type_def(t).is_some() => {
            let ty = ident(t);
            let variant = ident(&upper_camel(s));
            quote!(#ty::#variant)
        }
        // Unreachable for a checked spec (`validate` allows these types only).
        _ => quote!(::core::compile_error!("a constant of an unsupported type")),
    }
}

/// `name: T` as a constructor or setter argument.
fn argument(name: &Ident, ty: &FieldType, prefix: &TokenStream) -> TokenStream {
    if *ty == FieldType::String {
        quote!(#name: impl ::core::convert::Into<::std::string::String>)
    } else {
        let ty = field_type(ty, prefix);
        quote!(#name: #ty)
    }
}

/// The Rust type of a field; `prefix` (e.g. `super::`) qualifies generated types.
fn field_type(ty: &FieldType, prefix: &TokenStream) -> TokenStream {
    match ty {
        FieldType::String => quote!(::std::string::String),
        FieldType::Integer => quote!(u64),
        FieldType::Int32 => quote!(i32),
        FieldType::Int64 => quote!(i64),
        FieldType::Float => quote!(f64),
        FieldType::Map(value) => {
            let value = field_type(value, prefix);
            quote!(::std::collections::BTreeMap<::std::string::String, #value>)
        }
        FieldType::Boolean => quote!(bool),
        FieldType::Enum(name) | FieldType::Struct(name) => {
            let name = ident(name);
            quote!(#prefix #name)
        }
        FieldType::ErrorCode => quote!(#prefix ErrorCode),
        FieldType::ArrayOf(item) => {
            let item = field_type(item, prefix);
            quote!(::std::vec::Vec<#item>)
        }
    }
}

/// `template` for the generated `__splice_render`: literal braces doubled,
/// each placeholder that names a binding replaced by `{i}`, the index of
/// the binding in `used` (appended on first use). A placeholder that names
/// no binding (the checker rejects those) stays literal text.
fn compile_template(template: &str, bindings: &[String], used: &mut Vec<String>) -> String {
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

/// One `#[doc = ...]` for a Markdown text (one attribute, not one per
/// line, keeps the token count down). Unlabelled code fences become `text`
/// blocks so rustdoc does not run them as doctests of the user's crate.
fn doc_attrs(markdown: &str) -> TokenStream {
    let mut in_fence = false;
    let mut doc = String::new();
    for (i, line) in markdown.lines().enumerate() {
        if i > 0 {
            doc.push('\n');
        }
        // `///` comments keep a leading space; do the same so the rendered
        // Markdown is identical.
        if !line.is_empty() {
            doc.push(' ');
        }
        doc.push_str(line);
        if let Some(info) = line.trim_start().strip_prefix("```") {
            let opening = !in_fence;
            in_fence = !in_fence;
            if opening && info.trim().is_empty() {
                doc.push_str("text");
            }
        }
    }
    quote!(#[doc = #doc])
}

fn variant_ident(code: &Code) -> Ident {
    ident(&upper_camel(&code.name.value))
}

fn field_ident(field: &FieldDef) -> Ident {
    ident(field.name())
}

/// `MATCH_NOT_FOUND` or `would_succeed` to `MatchNotFound` / `WouldSucceed`.
fn upper_camel(name: &str) -> String {
    Case::UpperCamel.convert(name)
}

/// An identifier for a spec-provided name. Keywords become raw identifiers
/// (`r#type`); the few that cannot be raw get a trailing underscore; anything
/// that is not an identifier at all (the checker rejects those) is sanitised
/// rather than panicking inside the user's build.
fn ident(name: &str) -> Ident {
    let mut clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) {
        clean.insert(0, '_');
    }
    if matches!(clean.as_str(), "self" | "Self" | "super" | "crate" | "_") {
        clean.push('_');
    }
    // Every keyword of every edition, strict and reserved.
    const KEYWORDS: &[&str] = &[
        "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do",
        "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in",
        "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
        "return", "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe",
        "unsized", "use", "virtual", "where", "while", "yield",
    ];
    if KEYWORDS.contains(&clean.as_str()) {
        Ident::new_raw(&clean, Span::call_site())
    } else {
        Ident::new(&clean, Span::call_site())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_the_fixed_names_and_the_declared_types() {
        let spec = crate::generate::test_fixture();
        let file: syn::File = syn::parse2(emit(&spec)).expect("the expansion parses");
        let mut defined: Vec<String> = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Const(i) => Some(i.ident.to_string()),
                syn::Item::Enum(i) => Some(i.ident.to_string()),
                syn::Item::Struct(i) => Some(i.ident.to_string()),
                syn::Item::Mod(i) => Some(i.ident.to_string()),
                _ => None,
            })
            // Hidden helpers (`#[doc(hidden)]`) that callers never name.
            .filter(|name| !name.starts_with("__splice"))
            .collect();
        defined.sort();
        let mut expected: Vec<String> = ITEMS.iter().map(|s| s.to_string()).collect();
        expected.extend(spec.types.iter().map(|t| t.name.value.clone()));
        expected.sort();
        assert_eq!(defined, expected);
    }

    #[test]
    fn upper_camel_of_names() {
        assert_eq!(upper_camel("MATCH_NOT_FOUND"), "MatchNotFound");
        assert_eq!(upper_camel("would_succeed"), "WouldSucceed");
        assert_eq!(upper_camel("SHA256_MISMATCH"), "Sha256Mismatch");
        assert_eq!(upper_camel("input"), "Input");
    }

    #[test]
    fn identifiers_survive_keywords() {
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("gen").to_string(), "r#gen");
        assert_eq!(ident("self").to_string(), "self_");
        assert_eq!(ident("Self").to_string(), "Self_");
        assert_eq!(ident("match_not_found").to_string(), "match_not_found");
        assert_eq!(ident("9lives").to_string(), "_9lives");
    }

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

    #[test]
    fn unlabelled_fences_become_text() {
        let docs = doc_attrs("a\n```\nx\n```\n```rust\ny\n```").to_string();
        assert_eq!(
            docs,
            quote!(#[doc = " a\n ```text\n x\n ```\n ```rust\n y\n ```"]).to_string()
        );
    }

    #[test]
    fn raw_literals_hold_their_text_whatever_quotes_and_hashes_it_has() {
        for text in [
            "",
            "{\"$ref\": \"#/$defs/X\"}",
            "\"## and \"### and a lone # and \\ and \\n",
            "ends with a quote\"",
        ] {
            let repr = raw_str_repr(text).expect("no carriage return");
            assert!(repr.starts_with('r'), "{repr}");
            let lit: syn::LitStr = syn::parse_str(&repr).expect("a valid literal");
            assert_eq!(lit.value(), text, "{repr}");
        }
        assert_eq!(
            raw_str_repr("{\"a\": \"#b\"}").unwrap(),
            "r##\"{\"a\": \"#b\"}\"##"
        );
        assert_eq!(raw_str_repr("line\r\n"), None);
    }
}
