//! The splice error-taxonomy compiler.
#![deny(missing_docs)]

pub mod context;
pub mod spec;
