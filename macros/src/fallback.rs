//! The expansion when the spec cannot be used: the real errors and nothing
//! else.
//!
//! thiserror's fallback emits stub impls so that a bad attribute does not
//! also produce a screen of follow-on errors. We go one step further, because
//! the stubs would have to know the very codes and constructors the bad spec
//! failed to define: the `compile_error!`s are placed inside a private module
//! and every public name of the normal expansion is re-exported from it. Those
//! imports cannot resolve, and rustc does not report unresolved imports from a
//! module whose expansion already failed; it binds the names to an error
//! placeholder instead, which silences every later use (`ErrorCode::X`,
//! `ErrorEnvelope::x(..)`, `builder::X`, fields, trait impls). The user sees
//! exactly the spec's diagnostics.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use splice_codegen::context::{FieldType, SUPPORT_TYPES};

/// `error` as `compile_error!`s, plus every public name of the normal
/// expansion, plus `rebuild` (the spec's `include_bytes!`, when readable).
pub(crate) fn expand(error: syn::Error, rebuild: TokenStream) -> TokenStream {
    let error = error.to_compile_error();
    let names = public_names().map(|name| Ident::new(name, Span::call_site()));
    quote! {
        #[doc(hidden)]
        mod __splice_taxonomy_failed {
            #error
        }
        #[allow(unused_imports)]
        pub use self::__splice_taxonomy_failed::{#(#names),*};
        #rebuild
    }
}

/// The names `splice_codegen::emit_rust` defines in the invoking module.
fn public_names() -> impl Iterator<Item = &'static str> {
    let fixed = [
        "Category",
        "Cause",
        "ErrorCode",
        "UnknownErrorCode",
        "ErrorContext",
        "ErrorEnvelope",
        "builder",
    ];
    let mut support = Vec::new();
    for def in SUPPORT_TYPES {
        support.push(def.name);
        for member in def.members {
            if let FieldType::Enum(name, _) = member.ty
                && !support.contains(&name)
            {
                support.push(name);
            }
        }
    }
    fixed.into_iter().chain(support)
}
