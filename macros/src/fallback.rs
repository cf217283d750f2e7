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
//!
//! The support types are declared by the spec (`types:`), so their names are
//! read from whatever of the broken spec's YAML tree could be parsed.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use splice_codegen::yaml::{self, NodeKind};

/// `error` as `compile_error!`s, plus every public name of the normal
/// expansion, plus `rebuild` (the spec's `include_bytes!`, when readable).
/// `source` is the spec text (empty when unreadable).
pub(crate) fn expand(error: syn::Error, rebuild: TokenStream, source: &str) -> TokenStream {
    let error = error.to_compile_error();
    let names = public_names(source)
        .into_iter()
        .filter(|name| syn::parse_str::<Ident>(name).is_ok())
        .map(|name| Ident::new(&name, Span::call_site()));
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

/// The names `splice_codegen::emit_rust` defines in the invoking module:
/// its fixed ones (`names::RUST_ITEMS`), the keys of the spec's `types:`
/// section and the error type of each key of `operations:`.
fn public_names(source: &str) -> Vec<String> {
    let mut names: Vec<String> = splice_codegen::names::RUST_ITEMS
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let Some(root) = yaml::parse(source).root else {
        return names;
    };
    let NodeKind::Map(entries) = &root.kind else {
        return names;
    };
    let keys = |section: &str| -> Vec<String> {
        match entries.iter().find(|(k, _)| k.as_scalar() == Some(section)) {
            Some((_, v)) => match &v.kind {
                NodeKind::Map(items) => items
                    .iter()
                    .filter_map(|(k, _)| k.as_scalar().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            },
            None => Vec::new(),
        }
    };
    // Each operation's error type (`multi_edit` -> `MultiEditError`).
    let errors = keys("operations")
        .into_iter()
        .map(|op| splice_codegen::case::Case::UpperCamel.convert(&op) + "Error");
    for name in keys("types").into_iter().chain(errors) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}
