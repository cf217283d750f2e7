//! The envelope members the compiler owns.
//!
//! Every error envelope carries the same fixed members, whatever the spec
//! declares; the spec's `fields:` only add to them. This is the one list of
//! those members: lowering refuses a declared field that takes one of their
//! names, the JSON Schema emitter lists them as `required` in every variant,
//! and the Rust emitter's `ErrorEnvelope` has them as its first fields.

/// Every member name the compiler owns, in output order: the
/// [`ALWAYS_PRESENT`] ones, then [`CONTEXT`]. No declared field may take one.
pub const MEMBERS: [&str; 9] = [
    "success",
    "error_code",
    "code",
    "category",
    "message",
    "retryable",
    "cause",
    "recovery_hints",
    CONTEXT,
];

/// The members every envelope has, in output order (the schema's `required`
/// list starts with them).
pub const ALWAYS_PRESENT: &[&str] = MEMBERS.split_last().unwrap().1;

/// The member that holds the `in: context` fields; absent when none is set.
pub const CONTEXT: &str = "context";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_is_owned_but_not_always_present() {
        assert_eq!(ALWAYS_PRESENT.len(), MEMBERS.len() - 1);
        assert!(MEMBERS.contains(&CONTEXT));
        assert!(!ALWAYS_PRESENT.contains(&CONTEXT));
    }
}
