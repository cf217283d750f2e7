//! The bodies of the fuzz targets, one `run(&[u8])` per target.
//!
//! They live in the workspace, not in `fuzz/`, so that they build with
//! every other crate and `cargo test` replays the committed corpora through
//! them (`tests/corpus.rs`): an input that once broke a rule stays a test
//! without libFuzzer or the coverage build. `fuzz/fuzz_targets/<name>.rs`
//! hands libFuzzer's inputs to the same functions (`scripts/fuzz`).
//!
//! - [`args`]: tool-argument decoding and its VALIDATION_FAILED envelope;
//! - [`engine`]: the edit engine against a plain reference implementation;
//! - [`errors_yaml`]: the `errors.yaml` loader and every artifact downstream;
//! - [`lsp`]: the language server's framing and message handling.

pub mod args;
pub mod engine;
pub mod errors_yaml;
pub mod lsp;

/// The engine's reference implementation, shared with the server's property
/// tests (`server/tests/it/engine_props.rs`).
#[path = "../../../server/tests/it/reference/mod.rs"]
#[allow(dead_code)]
mod reference;

/// One fuzz target's body: any bytes in, a panic on any broken rule.
pub type Target = fn(&[u8]);

/// Every target, by the name `scripts/fuzz` and `fuzz/Cargo.toml` give it.
pub const TARGETS: &[(&str, Target)] = &[
    ("args", args::run),
    ("engine", engine::run),
    ("errors_yaml", errors_yaml::run),
    ("lsp", lsp::run),
];
