//! The error taxonomy as Rust types, generated at compile time from
//! `errors.yaml` by `splice_macros::taxonomy!`.
//!
//! Nothing in the server defines an error code, a hint, a retryable flag or
//! a cause by hand: they all come from here. Editing `errors.yaml` rebuilds
//! this crate; a code without hints, or an envelope built without its
//! required context, does not compile.

splice_macros::taxonomy!("../../errors.yaml");
