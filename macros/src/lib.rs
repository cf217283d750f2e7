//! `taxonomy!("errors.yaml")`: the splice error taxonomy as Rust types,
//! checked at compile time.
//!
//! ```ignore
//! mod errors {
//!     splice_macros::taxonomy!("../../errors.yaml");
//! }
//!
//! let envelope = errors::ErrorEnvelope::match_not_found(path, edit_index, statuses, snippet)
//!     .backup_path(backup)
//!     .build();
//! assert!(envelope.retryable);
//! ```
//!
//! The path is resolved like `include_str!`: relative to the file that invokes
//! the macro. The expansion is a set of plain items in the invoking module:
//! `ErrorCode` (one variant per code, `const fn` lookups), `Category`,
//! `Cause`, the envelope types, one constructor per code on `ErrorEnvelope`
//! and a `builder` module; see `docs/architecture.md`, "Generated Rust". The
//! invoking crate depends on `serde` (with `derive`) and `schemars` 1.
//!
//! The macro is deliberately thin: loading, checking and code generation all
//! live in `splice-codegen`, the one implementation of the spec's rules, which
//! the `splice-codegen` CLI shares. A bad spec becomes one `compile_error!`
//! per problem, each naming `errors.yaml:LINE:COL`, and nothing else (see
//! `fallback.rs`). Editing the spec rebuilds the invoking crate.

mod expand;
mod fallback;

use proc_macro::TokenStream;

/// Expands to the types of the error taxonomy described by the YAML file at
/// the given path (relative to the invoking source file).
#[proc_macro]
pub fn taxonomy(input: TokenStream) -> TokenStream {
    expand::taxonomy(input.into()).into()
}
