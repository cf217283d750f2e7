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
//! (`any.rs`): a listed code's `ErrorEnvelope`, or an
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

mod any;
mod build;
mod code;
mod envelope;
mod operations;
mod paths;
mod response;
mod tokens;
mod types;

use proc_macro2::TokenStream;
use quote::quote;

use crate::layout::Layout;
use crate::spec::Spec;

use any::emit_any_envelope;
use build::{emit_builders, emit_constructors, emit_select_hints};
use code::{emit_category, emit_cause, emit_error_code};
use envelope::emit_envelope;
use types::emit_support_types;

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
    emit_in(spec, "errors.yaml", literal)
}

/// [`emit_with`] for the spec at `file` (as the user should see its path),
/// which the compile errors of the operations name: "add it to the codes
/// of operation `x` (`file`:LINE)".
pub fn emit_in(
    spec: &Spec,
    file: &str,
    literal: &dyn Fn(&str) -> proc_macro2::Literal,
) -> TokenStream {
    let category = emit_category(spec);
    let cause = emit_cause();
    let error_code = emit_error_code(spec);
    let layout = Layout::of(spec);
    let support = emit_support_types(spec, layout.discriminant().absent.is_some());
    let envelope = emit_envelope(&layout);
    let constructors = emit_constructors(&layout);
    let builders = emit_builders(spec);
    let select_hints = emit_select_hints(&layout);
    let any = emit_any_envelope(&layout);
    let response = response::emit_response(&layout);
    let families = any::emit_families(&layout);
    let operations = operations::emit_operations(&layout, file, literal);
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
        #response
        #families
        #operations
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
/// needs; `None` for text a raw literal cannot hold: a carriage return, or
/// a `"` followed by 255 `#` or more (a raw literal's delimiter has at most
/// 255), which then takes an ordinary escaped literal.
/// The schema constants are most of a large taxonomy's expansion (20 MB of
/// the 26 MB of 1,000 codes with 100 fields each): an ordinary literal
/// escapes every quote of the JSON, and the compiler then keeps both the
/// escaped text and the value. A raw literal is the text itself
/// (`macros/README.md`, "Build time and memory at scale").
pub fn raw_str_repr(text: &str) -> Option<String> {
    /// The most `#` a raw string literal's delimiter may have (the
    /// Reference, "Raw string literals").
    const MAX_RAW_HASHES: usize = 255;
    if text.contains('\r') {
        return None;
    }
    // One `#` more than the longest run of them after a quote.
    let mut longest = 0;
    for (i, _) in text.match_indices('"') {
        let run = text[i + 1..].bytes().take_while(|&b| b == b'#').count();
        longest = longest.max(run);
    }
    if longest >= MAX_RAW_HASHES {
        return None;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_the_fixed_names_and_the_declared_types() {
        let spec = crate::test_fixture();
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
        let mut expected: Vec<String> = crate::names::RUST_ITEMS
            .iter()
            .map(|s| s.to_string())
            .collect();
        expected.extend(spec.types.iter().map(|t| t.name.value.clone()));
        expected.sort();
        assert_eq!(defined, expected);
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
        let fence = format!("\"{}", "#".repeat(254));
        assert!(
            raw_str_repr(&fence).is_some_and(|r| r.starts_with(&format!("r{}\"", "#".repeat(255))))
        );
        assert_eq!(raw_str_repr(&format!("\"{}", "#".repeat(255))), None);
    }
}
