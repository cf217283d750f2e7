//! The splice error-taxonomy compiler.
#![deny(missing_docs)]

pub mod case;
pub mod context;
mod describe;
pub mod diagnostic;
pub mod diff;
mod draft;
pub mod emit_markdown;
pub mod emit_python;
pub mod emit_rust;
pub mod emit_schema;
pub mod emit_ts;
pub mod envelope;
pub mod generate;
pub mod init;
pub mod load;
mod lower;
pub mod span;
pub mod spec;
mod template;
mod validate;
pub mod yaml;

pub use diagnostic::{Diagnostic, Diagnostics};
pub use load::{load_path, load_str};
