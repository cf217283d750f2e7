//! The names the artifacts give what a spec declares and what the layout
//! of its envelopes holds, and the names the generators own.
//!
//! Each target language spells a spec name its own way (`MATCH_NOT_FOUND`
//! is the Rust variant `MatchNotFound`, the constructor `match_not_found`,
//! the schema `$defs`, TypeScript and Python type `MatchNotFoundEnvelope`;
//! the member `retryDelay` is the Rust field `retry_delay`; the nested
//! object `error` is the Rust struct `ErrorEnvelopeError` and the Python
//! `TypedDict` `NotFoundEnvelopeError`). Two names that differ in the spec
//! can meet after conversion, or meet a name a generator writes itself
//! (`ErrorEnvelope`, `build`), so the conversions live here, where the
//! emitters read them and `check` compares them, once, for every target.

use crate::case::Case;

/// The public names the Rust items define in the invoking module, besides
/// one item per declared support type (`types:`). The macro's fallback
/// re-exports exactly these names when a spec fails, so that their uses
/// raise no follow-on errors; a struct of a nested envelope object may not
/// take one.
pub const RUST_ITEMS: &[&str] = &[
    "Category",
    "Cause",
    "ErrorCode",
    "UnknownErrorCode",
    "ErrorContext",
    "ErrorEnvelope",
    "AnyErrorEnvelope",
    "UnlistedCodeEnvelope",
    "builder",
    "operation",
    "SCHEMA_ID",
    "ENVELOPE_SCHEMA",
    "ENVELOPE_OUTPUT_SHAPE",
];

/// The type every artifact gives the response around a list of envelopes
/// (a member `list: true`); a spec with one may not declare a type of this
/// name.
pub const ERROR_RESPONSE: &str = "ErrorResponse";

/// The type names some generator gives its own items (Rust, TypeScript,
/// Python), and the built-in names the generated files use unqualified
/// (TypeScript's `Record`, `Omit`; Python's `None`; Rust's prelude). A
/// declared type may not take one, nor may a code whose envelope or
/// context type (`ERROR` -> `ErrorEnvelope`, `ErrorContext`) would: one of
/// the generated files would declare the name twice or shadow what it uses.
pub const GENERATED_TYPE_NAMES: &[&str] = &[
    // Rust (`emit_rust`)
    "ErrorCode",
    "ErrorEnvelope",
    "ErrorContext",
    "Category",
    "Cause",
    "UnknownErrorCode",
    "EnvelopeBuilder",
    "ErrorFamily",
    // TypeScript (`emit_ts`) and Python (`emit_python`)
    "ErrorEnvelopeBase",
    "ErrorCodeName",
    "CodeInfo",
    "FamilyInfo",
    crate::spec::UNLISTED_ENVELOPE,
    crate::spec::ANY_ENVELOPE,
    // TypeScript's global types the declarations name
    "Record",
    "Omit",
    "Partial",
    "Pick",
    "Readonly",
    "ReadonlyArray",
    "Required",
    "Exclude",
    "Extract",
    "NonNullable",
    "Array",
    "Object",
    "String",
    "Number",
    "Boolean",
    "Set",
    "Map",
    "Symbol",
    "Function",
    "Promise",
    // Python's constants (a class of that name is a syntax error)
    "None",
    "True",
    "False",
    // Rust's prelude and `Self`
    "Self",
    "Option",
    "Some",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "Box",
];

/// Field names the generated Rust builder gives its own methods (a field's
/// setter is named after it): `build` finishes an envelope, `new` starts one.
pub const BUILDER_METHODS: &[&str] = &["build", "new"];

/// The largest integer every target holds exactly: JavaScript numbers are
/// doubles, so above 2^53 - 1 two code numbers can become one.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The methods of the generated Rust `ErrorCode`: a per-code attribute
/// (whose typed accessor is a method named after it) may not take one.
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

/// The Rust field of an envelope member, as the generated struct spells it
/// (less a keyword's `r#`): its wire name in lower_snake_case (`retryDelay`
/// -> `retry_delay`) made an identifier by [`rust_identifier`] (`1x` ->
/// `_1x`, `self` -> `self_`). serde renames it back whenever this differs
/// from the wire name, so two members meet in Rust exactly when this is
/// the same for both.
pub fn rust_member_field(wire: &str) -> String {
    rust_identifier(&Case::LowerSnake.convert(wire))
}

/// `name` as a Rust identifier (less the `r#` a keyword takes when
/// emitted, `type` -> `r#type`): every character that cannot be in one
/// becomes `_`, a leading digit or an empty name gets a leading `_`, and
/// the keywords that cannot be raw identifiers (`self`, `Self`, `super`,
/// `crate`) and `_` get a trailing `_`.
pub fn rust_identifier(name: &str) -> String {
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
    clean
}

/// The Rust struct of the envelope object at `path` (member wire names from
/// the top): `ErrorEnvelope`, then each member in UpperCamelCase (`error`
/// -> `ErrorEnvelopeError`).
pub fn rust_object_struct(path: &[&str]) -> String {
    object_name("ErrorEnvelope", path, |step| Case::UpperCamel.convert(step))
}

/// The Rust struct of the unlisted envelope's object at `path`
/// (`UnlistedCodeEnvelope`, `UnlistedCodeEnvelopeError`).
pub fn rust_unlisted_struct(path: &[&str]) -> String {
    object_name(crate::spec::UNLISTED_ENVELOPE, path, |step| {
        Case::UpperCamel.convert(step)
    })
}

/// The Python `TypedDict` of the object at `path` of the envelope whose
/// `TypedDict` is `base` (`NotFoundEnvelope` and `error` ->
/// `NotFoundEnvelopeError`): each member's wire name with every character
/// that is not ASCII alphanumeric read as a word break.
pub fn python_object_dict(base: &str, path: &[&str]) -> String {
    object_name(base, path, |step| {
        let words: String = step
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        Case::UpperCamel.convert(&words.to_ascii_lowercase())
    })
}

fn object_name(base: &str, path: &[&str], step: impl Fn(&str) -> String) -> String {
    let mut name = String::from(base);
    for s in path {
        name.push_str(&step(s));
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_names_follow_the_path() {
        assert_eq!(rust_object_struct(&[]), "ErrorEnvelope");
        assert_eq!(rust_object_struct(&["error"]), "ErrorEnvelopeError");
        assert_eq!(
            rust_unlisted_struct(&["Error", "details"]),
            "UnlistedCodeEnvelopeErrorDetails"
        );
        assert_eq!(
            python_object_dict("NotFoundEnvelope", &["@meta", "innerError"]),
            "NotFoundEnvelopeMetaInnererror"
        );
        assert_eq!(rust_member_field("retryDelay"), "retry_delay");
        assert_eq!(rust_member_field("1x"), "_1x");
        assert_eq!(rust_member_field("self"), "self_");
        assert_eq!(rust_member_field("@"), "__");
        assert_eq!(rust_member_field("type"), "type");
    }
}
