//! `AnyErrorEnvelope` and `UnlistedCodeEnvelope`: what a client reads from a
//! server of any later release of the same major version. Deserializing
//! buffers the value once in a serde-only JSON tree (`__splice_any`), reads
//! the code at its path, and replays the value into the listed or the
//! unlisted type, so the generated code needs `serde` only.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::envelope::Carries;
use crate::layout::{Form, Layout, Object, Slot};
use crate::names;

use super::envelope::{
    Family, constant_type, in_every_envelope, member_doc, member_ident, member_rename,
    nested_structs,
};
use super::paths::{Access, read, steps};
use super::tokens::{doc_attrs, field_ident, field_type, ident, number_type, rename, upper_camel};
use crate::spec::FamilyRule;

/// The Rust name of the struct of the unlisted envelope's object
/// (`UnlistedCodeEnvelope`, `UnlistedCodeEnvelopeError`).
pub(super) fn unlisted_struct(object: &Object<'_>) -> Ident {
    ident(&names::rust_unlisted_struct(&object.names()))
}

/// The fields of the unlisted envelope's object `object`: the declared
/// members (what the schema's unlisted variant and the TypeScript and
/// Python `UnlistedCodeEnvelope` have), with the code's name as sent (a
/// `String`), its number (the number type) and its category as a `String`
/// (a later release may add one), and at the top the fields `in: envelope`
/// (the format's frame, such as JSON-RPC's `id`), read leniently. Neither
/// the context nor the other declared fields are kept: they are the code's,
/// a later code may carry in them what this release cannot type (a later
/// code, a new enum value), and a struct with every declared field would
/// double the build cost of a large spec's serde derives
/// (`bench/macro-scale`: +0.4 s at 1,000 codes and 100 fields).
pub(super) fn unlisted_fields(layout: &Layout<'_>, object: &Object<'_>) -> Vec<TokenStream> {
    let spec = layout.spec();
    let number_type = number_type(spec);
    let mut out = Vec::new();
    for slot in &object.slots {
        let m = match slot {
            Slot::Member { member, .. } | Slot::Object { member, .. } => *member,
            Slot::Context { .. } | Slot::Field(_) => continue,
        };
        let ty = match (slot, &m.carries) {
            (Slot::Object { object, .. }, _) => {
                let ty = unlisted_struct(object);
                quote!(#ty)
            }
            (_, Carries::Constant(v)) => constant_type(v),
            (_, Carries::CodeName | Carries::Category | Carries::Message) => {
                quote!(::std::string::String)
            }
            (_, Carries::Number) => number_type.clone(),
            (_, Carries::Retryable) => quote!(bool),
            (_, Carries::Cause) => quote!(Cause),
            (_, Carries::Hints) => quote!(::std::vec::Vec<::std::string::String>),
            (_, Carries::Context | Carries::Object(_)) => continue,
        };
        let name = member_ident(m);
        let rename = member_rename(m);
        let doc = match &m.carries {
            Carries::CodeName => {
                String::from(" The code's name as sent: one this release does not list.")
            }
            Carries::Number if !layout.discriminant().by_name => {
                String::from(" The code's number as sent: one this release does not list.")
            }
            Carries::Category => {
                String::from(" The code's category as sent; may be one this release does not list.")
            }
            _ => member_doc(spec, m),
        };
        out.push(if in_every_envelope(slot) {
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
    for f in object.fields() {
        let f = f.field;
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
pub(super) fn emit_any_envelope(layout: &Layout<'_>) -> TokenStream {
    let spec = layout.spec();
    let by_number = !layout.discriminant().by_name;
    let unlisted_envelope = layout.envelope(Form::Unlisted);
    let fields = unlisted_fields(layout, &unlisted_envelope);
    let nested = nested_structs(layout, &unlisted_envelope, Family::Unlisted);
    let code_path: Vec<&str> = layout.discriminant().names();
    let discriminant = code_path.last().copied().unwrap_or("code");
    let unlisted = if by_number {
        // Numbers that no release may send: removed codes' and reserved.
        let never = spec
            .codes
            .iter()
            .filter(|c| !c.is_emitted())
            .filter_map(crate::spec::Code::number)
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
    } else if layout.discriminant().per_category() {
        // The pair (category, name) tells a code: a name listed in another
        // category is unlisted here.
        let category_path: Vec<&str> = layout.discriminant().category_names();
        let never_categories = spec.codes.iter().filter(|c| !c.is_emitted()).flat_map(|c| {
            c.wire_names()
                .map(|_| c.category.value.clone())
                .collect::<Vec<_>>()
        });
        let never_names = spec
            .codes
            .iter()
            .filter(|c| !c.is_emitted())
            .flat_map(|c| c.wire_names().map(str::to_owned).collect::<Vec<_>>());
        let message = format!(
            "`{}` is `{{}}` in category `{{}}`, a removed code, which no release may send",
            discriminant.replace('{', "{{").replace('}', "}}")
        );
        quote! {
            let unlisted = match (value.at(&[#(#category_path),*]), value.at(&[#(#code_path),*])) {
                (
                    ::core::option::Option::Some(__splice_any::Value::Str(category)),
                    ::core::option::Option::Some(__splice_any::Value::Str(name)),
                ) => {
                    let never: &[(&str, &str)] = &[#((#never_categories, #never_names)),*];
                    if never.contains(&(category.as_str(), name.as_str())) {
                        return ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom(
                            ::core::format_args!(#message, name, category),
                        ));
                    }
                    ErrorCode::from_category_and_name(category, name).is_none()
                }
                // Absent or not a string: `ErrorEnvelope` says what is wrong.
                _ => false,
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
    let message = layout.path_to("message").map(|path| {
        // Each type reaches it its own way: an object a listed code's
        // envelope may leave out is one the unlisted envelope has.
        let get = |form: Form<'_>| {
            let at = steps(&layout.envelope(form), &path);
            let (leaf, parent) = at.split_last().expect("a path names its member");
            let f = &leaf.field;
            match (read(&quote!(e), parent), leaf.optional) {
                (Access::Place(p), false) => quote!(::core::option::Option::Some(#p.#f.as_str())),
                (Access::Place(p), true) => quote!(#p.#f.as_deref()),
                (Access::Maybe(m), false) => quote!(#m.map(|o| o.#f.as_str())),
                (Access::Maybe(m), true) => quote!(#m.and_then(|o| o.#f.as_deref())),
            }
        };
        let listed = get(Form::Any);
        let unlisted = get(Form::Unlisted);
        quote! {
            /// The envelope's message, whichever code it has.
            pub fn message(&self) -> ::core::option::Option<&str> {
                match self {
                    AnyErrorEnvelope::Listed(e) => #listed,
                    AnyErrorEnvelope::Unlisted(e) => #unlisted,
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
pub(super) fn emit_any_value() -> TokenStream {
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

/// `ErrorFamily` (one variant per family, `of(name)` deciding a code name's
/// family as every artifact does: a listed name is no family's, else the
/// first family whose rule matches), and `family()` on the unlisted and any
/// envelope. Nothing when the spec declares no family.
pub(super) fn emit_families(layout: &Layout<'_>) -> TokenStream {
    let families = layout.families();
    if families.is_empty() {
        return TokenStream::new();
    }
    let variants: Vec<Ident> = families.iter().map(|f| ident(&f.type_name())).collect();
    let names: Vec<&str> = families.iter().map(|f| f.name.value.as_str()).collect();
    let docs = families.iter().map(|f| {
        doc_attrs(&format!(
            "`{}`: {} Category `{}`.",
            f.rule.value.glob(),
            f.doc.value.trim(),
            f.category.value
        ))
    });
    let doc_texts: Vec<&str> = families.iter().map(|f| f.doc.value.as_str()).collect();
    let categories: Vec<Ident> = families
        .iter()
        .map(|f| ident(&upper_camel(&f.category.value)))
        .collect();
    let retryable: Vec<bool> = families
        .iter()
        .map(|f| layout.family_category(f).retryable.value)
        .collect();
    let causes: Vec<Ident> = families
        .iter()
        .map(|f| ident(&upper_camel(layout.family_category(f).cause.value.as_str())))
        .collect();
    let by_number = families.iter().any(|f| f.rule.value.by_number());
    let tests = families.iter().zip(&variants).map(|(f, v)| {
        let text = f.rule.value.text();
        let found = quote!(return ::core::option::Option::Some(ErrorFamily::#v););
        match &f.rule.value {
            FamilyRule::Prefix(_) => quote!(if name.starts_with(#text) { #found }),
            FamilyRule::Suffix(_) => quote!(if name.ends_with(#text) { #found }),
            FamilyRule::Range(lo, hi) => {
                let (lo, hi) = (Literal::i64_unsuffixed(*lo), Literal::i64_unsuffixed(*hi));
                quote!(if (#lo..=#hi).contains(&number) { #found })
            }
        }
    });
    let of = if by_number {
        let outside = layout
            .spec()
            .numbers_outside_families()
            .into_iter()
            .map(Literal::i64_unsuffixed);
        quote! {
            /// The family of a code number on the wire: `None` for a
            /// number a code of this release has or a reserved one, else
            /// the first family whose range holds it.
            pub fn of_number(number: i64) -> ::core::option::Option<ErrorFamily> {
                const LISTED: &[i64] = &[#(#outside),*];
                if LISTED.contains(&number) {
                    return ::core::option::Option::None;
                }
                #(#tests)*
                ::core::option::Option::None
            }
        }
    } else {
        let outside = layout.names_outside_families();
        quote! {
            /// The family of a code name on the wire: `None` for a name a
            /// code of this release has (a listed code always wins), else
            /// the first family whose rule matches it.
            pub fn of(name: &str) -> ::core::option::Option<ErrorFamily> {
                const LISTED: &[&str] = &[#(#outside),*];
                if LISTED.contains(&name) {
                    return ::core::option::Option::None;
                }
                #(#tests)*
                ::core::option::Option::None
            }
        }
    };
    let carried = if by_number { "number" } else { "code_name" };
    let code_name = layout.path_to(carried).map(|path| {
        let at = steps(&layout.envelope(Form::Unlisted), &path);
        let (leaf, parent) = at.split_last().expect("a path names its member");
        let f = &leaf.field;
        let value = match (read(&quote!(self), parent), leaf.optional) {
            (Access::Place(p), false) => quote!(::core::option::Option::Some(&#p.#f)),
            (Access::Place(p), true) => quote!(#p.#f.as_ref()),
            (Access::Maybe(m), false) => quote!(#m.map(|o| &o.#f)),
            (Access::Maybe(m), true) => quote!(#m.and_then(|o| o.#f.as_ref())),
        };
        if by_number {
            quote!(#value.and_then(|n| ErrorFamily::of_number(i64::from(*n))))
        } else {
            quote!(#value.and_then(|n| ErrorFamily::of(n.as_str())))
        }
    });
    let family_fns = code_name.map(|family| {
        quote! {
            #[allow(dead_code)]
            impl UnlistedCodeEnvelope {
                /// The family of the code as sent: its category, `retryable`
                /// and cause, although this release does not list it.
                pub fn family(&self) -> ::core::option::Option<ErrorFamily> {
                    #family
                }
            }

            #[allow(dead_code)]
            impl AnyErrorEnvelope {
                /// The family of the envelope's code: `None` for a listed
                /// code (it always wins) or an unlisted one of no family.
                pub fn family(&self) -> ::core::option::Option<ErrorFamily> {
                    match self {
                        AnyErrorEnvelope::Listed(_) => ::core::option::Option::None,
                        AnyErrorEnvelope::Unlisted(e) => e.family(),
                    }
                }
            }
        }
    });
    quote! {
        /// A family of codes this release does not list, told by a prefix or
        /// suffix of the code's name: an unlisted code of a family has the
        /// family's category, `retryable` and cause.
        #[derive(
            ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq,
            ::core::hash::Hash, ::core::fmt::Debug,
        )]
        #[allow(dead_code)]
        pub enum ErrorFamily {
            #(
                #docs
                #variants,
            )*
        }

        #[allow(dead_code)]
        impl ErrorFamily {
            /// Every family, in precedence (spec) order.
            pub const ALL: &'static [ErrorFamily] = &[#(ErrorFamily::#variants),*];

            #of

            /// Its name in `errors.yaml`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    #(ErrorFamily::#variants => #names,)*
                }
            }

            /// One line: what its codes have in common.
            pub const fn doc(self) -> &'static str {
                match self {
                    #(ErrorFamily::#variants => #doc_texts,)*
                }
            }

            /// The category of its codes.
            pub const fn category(self) -> Category {
                match self {
                    #(ErrorFamily::#variants => Category::#categories,)*
                }
            }

            /// Whether its codes are retryable (its category's default).
            pub const fn retryable(self) -> bool {
                match self {
                    #(ErrorFamily::#variants => #retryable,)*
                }
            }

            /// Who is to blame for its codes (its category's default).
            pub const fn cause(self) -> Cause {
                match self {
                    #(ErrorFamily::#variants => Cause::#causes,)*
                }
            }
        }

        #family_fns
    }
}
