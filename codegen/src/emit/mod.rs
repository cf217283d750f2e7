//! The generators: each turns a checked [`Spec`](crate::spec::Spec) into one
//! artifact. What they share is the spec, the wire shape of its envelopes
//! and the words of `describe.rs`; the Rust items embed the JSON Schema's
//! text, so `rust` calls `schema`, and no other emitter calls another.

pub mod markdown;
pub mod python;
pub mod rust;
pub mod schema;
pub mod ts;
