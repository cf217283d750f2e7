//! The declared support types (`types:`): a struct per object type, an enum
//! per enum, an internally tagged enum per tagged union and an untagged enum
//! per union of scalars, with the `serde` attributes that give each the
//! wire shape the schema describes.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::context::{FieldType, TypeBody, TypeDef};
use crate::spec::Spec;

use super::tokens::{doc_attrs, field_type, ident, rename, upper_camel};

/// The support types, and `__splice_present` when a field of a `one_of` with
/// `null`, or the code name `absent_means` lets an envelope leave out, reads
/// a present `null` other than as absent (`absent_code`).
pub(super) fn emit_support_types(spec: &Spec, absent_code: bool) -> TokenStream {
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
            let variant = ident(&crate::context::OneOf::variant(&t.value));
            let mut ty = field_type(&t.value, &TokenStream::new());
            // A declared type may hold this union again.
            if matches!(t.value, FieldType::Struct(_)) {
                ty = quote!(::std::boxed::Box<#ty>);
            }
            let doc = format!("A JSON value of type `{}`.", t.value.spelling());
            quote! {
                #[doc = #doc]
                #variant(#ty),
            }
        });
        let null = o.null.as_ref().map(|_| {
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
    let null_one_of = spec
        .types
        .iter()
        .filter_map(|d| d.one_of())
        .any(|o| o.null.is_some())
        || spec.fields.iter().any(|f| *f.ty() == FieldType::Json)
        || spec
            .types
            .iter()
            .flat_map(|t| t.members())
            .any(|m| m.ty.value == FieldType::Json)
        || spec
            .envelope
            .response
            .iter()
            .flat_map(|r| &r.members)
            .filter_map(|m| m.ty())
            .any(|ty| !null_as_value(spec, ty).is_empty());
    let present = (null_one_of || absent_code).then(|| {
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
pub(super) fn eq_derive(spec: &Spec) -> TokenStream {
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

pub(super) fn emit_support_struct(spec: &Spec, def: &TypeDef, eq: &TokenStream) -> TokenStream {
    let name = ident(&def.name.value);
    let doc = &def.doc.value;
    let fields = def.members().iter().map(|m| {
        let field = ident(&m.name.value);
        let mut ty = field_type(&m.ty.value, &TokenStream::new());
        if holds_again(spec, &def.name.value, &m.ty.value) {
            ty = quote!(::std::boxed::Box<#ty>);
        }
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
    // An open type keeps the members it does not list in a flattened map
    // and writes them back after the listed ones. serde hands a flattened
    // map every key no listed member took, so `deny_unknown_fields` (which
    // would refuse them) is left out.
    let (deny, other) = if def.open {
        let field = ident(crate::context::OTHER_MEMBERS);
        (
            TokenStream::new(),
            quote! {
                /// Members the type does not list, as sent.
                #[serde(flatten)]
                pub #field: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            },
        )
    } else {
        (quote!(#[serde(deny_unknown_fields)]), TokenStream::new())
    };
    quote! {
        #[doc = #doc]
        #[derive(
            ::core::clone::Clone, ::core::cmp::PartialEq, #eq ::core::fmt::Debug,
            ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema,
        )]
        #deny
        #[allow(dead_code)]
        pub struct #name {
            #(#fields)*
            #other
        }
    }
}

/// Whether a member of type `ty` in the object type `owner` holds an
/// `owner` again with no list or map between (`Node { next: Node? }`, or
/// through other object types): such a member is boxed, or `owner` would be
/// infinitely large. Lists and maps already hold their items on the heap.
fn holds_again(spec: &Spec, owner: &str, ty: &FieldType) -> bool {
    let FieldType::Struct(start) = ty else {
        return false;
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![start.as_str()];
    while let Some(name) = stack.pop() {
        if name == owner {
            return true;
        }
        if !seen.insert(name) {
            continue;
        }
        if let Some(def) = spec.type_def(name) {
            stack.extend(def.members().iter().filter_map(|m| match &m.ty.value {
                FieldType::Struct(next) => Some(next.as_str()),
                _ => None,
            }));
        }
    }
    false
}

/// For an `Option` of a type with a `null` of its own (a `one_of` that
/// lists `null`, such as JSON-RPC's `id`): serde reads a `null` sent as
/// that value (`Some(RequestId::Null)`), not as absent, so it is written
/// back. Empty for any other type.
pub(super) fn null_as_value(spec: &Spec, ty: &FieldType) -> TokenStream {
    let null = match ty {
        FieldType::Json => true,
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
