//! splice-codegen's integration tests, one binary (one link of the crate and
//! its dependencies instead of one per file). Each module is a group of
//! behaviour; its module doc says what it proves.

mod artifacts;
mod client_types;
mod diagnostics;
mod diff_rules;
mod emit_rust;
mod lsp;
mod maintainer;
mod no_panic;
mod rule_cases;
mod schema;
mod support;
mod variants;
