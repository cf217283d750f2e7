//! The small pieces every part of the Rust emitter writes: identifiers
//! for spec names (keywords made raw), the Rust type of a declared field,
//! number literals and types, doc attributes, `serde` renames, and a
//! constant's value. In one module so that a name or a type is spelled the
//! same way in the enums, the structs, the constructors and the builders.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::case::Case;
use crate::context::{FieldDef, FieldType};
use crate::spec::{Code, Spec};

/// The Rust type of code numbers: `u32` when every number fits (splice's
/// and most taxonomies), `i64` when one is negative or larger (JSON-RPC's
/// `-32700`).
pub(super) fn number_type(spec: &Spec) -> TokenStream {
    if spec
        .codes
        .iter()
        .filter_map(Code::number)
        .all(|n| u32::try_from(n).is_ok())
    {
        quote!(u32)
    } else {
        quote!(i64)
    }
}

/// A code number as a literal expression (`-32700` is a negation of a
/// literal in Rust).
pub(super) fn number_literal(n: i64) -> TokenStream {
    let abs = Literal::u64_unsuffixed(n.unsigned_abs());
    if n < 0 { quote!(-#abs) } else { quote!(#abs) }
}

/// `#[serde(rename = "...")]` for a name whose `wire:` differs from its
/// identifier; nothing otherwise.
pub(super) fn rename(wire: Option<&crate::span::Spanned<String>>) -> TokenStream {
    match wire {
        Some(w) => {
            let w = &w.value;
            quote!(#[serde(rename = #w)])
        }
        None => TokenStream::new(),
    }
}

/// The private setter every constructor and builder uses for a field.
pub(super) fn setter_ident(field: &FieldDef) -> Ident {
    format_ident!("__splice_set_{}", field.name())
}

/// The Rust value of a field's constant (checked against its type).
pub(super) fn constant_literal(
    spec: &Spec,
    field: &FieldDef,
    value: &serde_json::Value,
) -> TokenStream {
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
pub(super) fn argument(name: &Ident, ty: &FieldType, prefix: &TokenStream) -> TokenStream {
    if *ty == FieldType::String {
        quote!(#name: impl ::core::convert::Into<::std::string::String>)
    } else {
        let ty = field_type(ty, prefix);
        quote!(#name: #ty)
    }
}

/// The Rust type of a field; `prefix` (e.g. `super::`) qualifies generated types.
pub(super) fn field_type(ty: &FieldType, prefix: &TokenStream) -> TokenStream {
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
        FieldType::Json => quote!(::serde_json::Value),
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

/// One `#[doc = ...]` for a Markdown text (one attribute, not one per
/// line, keeps the token count down). Unlabelled code fences become `text`
/// blocks so rustdoc does not run them as doctests of the user's crate.
pub(super) fn doc_attrs(markdown: &str) -> TokenStream {
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

pub(super) fn variant_ident(code: &Code) -> Ident {
    ident(&upper_camel(&code.name.value))
}

pub(super) fn field_ident(field: &FieldDef) -> Ident {
    ident(field.name())
}

/// `MATCH_NOT_FOUND` or `would_succeed` to `MatchNotFound` / `WouldSucceed`.
pub(super) fn upper_camel(name: &str) -> String {
    Case::UpperCamel.convert(name)
}

/// An identifier for a spec-provided name, spelled by
/// [`crate::names::rust_identifier`] (an envelope member's wire name may be
/// any string: `1x` -> `_1x`; `self` -> `self_`), so that `check` compares
/// the names this writes. Keywords become raw identifiers (`r#type`).
pub(super) fn ident(name: &str) -> Ident {
    let clean = crate::names::rust_identifier(name);
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
    fn unlabelled_fences_become_text() {
        let docs = doc_attrs("a\n```\nx\n```\n```rust\ny\n```").to_string();
        assert_eq!(
            docs,
            quote!(#[doc = " a\n ```text\n x\n ```\n ```rust\n y\n ```"]).to_string()
        );
    }
}
