//! The error taxonomy as Rust types, generated at compile time from
//! `errors.yaml` by `splice_macros::taxonomy!`.
//!
//! Nothing in the server defines an error code, a hint, a retryable flag or
//! a cause by hand: they all come from here. Editing `errors.yaml` rebuilds
//! this crate; a code without hints, or an envelope built without its
//! required context, does not compile.
//!
//! `server/errors.yaml` is a symlink to the workspace's `errors.yaml`:
//! inside the package directory, so `cargo package` ships the spec and the
//! published crate builds from its own contents.

splice_macros::taxonomy!("../errors.yaml");
