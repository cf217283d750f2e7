//! The splice error-taxonomy compiler.
#![deny(missing_docs)]

pub mod case;
pub mod context;
mod describe;
pub mod diagnostic;
pub mod diff;
mod draft;
pub mod emit;
pub mod envelope;
#[cfg(feature = "generate")]
pub mod generate;
pub mod grammar;
pub mod init;
pub mod layout;
pub mod lint;
pub mod load;
mod lower;
#[cfg(feature = "lsp")]
pub mod lsp;
pub mod names;
pub mod pattern;
pub mod span;
pub mod spec;
mod template;
pub mod text;
mod validate;
pub mod yaml;

pub use diagnostic::{Diagnostic, Diagnostics};
pub use emit::markdown as emit_markdown;
pub use emit::python as emit_python;
pub use emit::rust as emit_rust;
pub use emit::schema as emit_schema;
pub use emit::ts as emit_ts;
pub use lint::lint;
pub use load::{load_path, load_str};

/// The spec in `codegen/tests/fixtures/demo.yaml`, for the unit tests of the
/// emitters and of `generate`. It lives at the crate root, not in
/// `generate`, so the unit tests also build without the `generate` feature.
#[cfg(test)]
pub(crate) fn test_fixture() -> spec::Spec {
    load_str(
        include_str!("../tests/fixtures/demo.yaml"),
        "tests/fixtures/demo.yaml",
    )
    .unwrap_or_else(|d| panic!("fixture does not load:\n{}", d.render()))
}
