//! splice: an MCP server for exact, all-or-nothing multi-edits whose every
//! failure is a structured envelope from the `errors.yaml` taxonomy.
//!
//! Layers, outermost first: `mcp` (protocol, thin handlers; feature `mcp`,
//! on by default) → [`tools`] (the tools as plain functions, one module
//! each; their schemas in [`tool_schemas`]) → [`args`] (decoding),
//! [`resolve`] (argument checks, then [`sandbox`]: the walk beneath pinned
//! root handles), [`fsio`] (reading through the parent's handle),
//! [`engine`] (pure edits), [`commit`] (atomic writes relative to the same
//! handle; journaled when several files change), [`undo`] (the record of
//! each committed call) → [`envelopes`] (failure → code). [`client_roots`]
//! narrows the roots to what an MCP client offers. The engine has no MCP
//! or file-system types; the handlers have no file logic.

// The error type of the tool functions is their operation's error
// (`taxonomy::operation::Error<Op>`: the taxonomy's ErrorEnvelope, ~450
// bytes, and its code): it is what the client receives, built once on a
// cold path, so boxing it would only add an allocation and noise at every
// `?`.
#![allow(clippy::result_large_err)]

#[cfg(feature = "mcp")]
pub mod admission;
pub mod answer_gate;
pub mod args;
pub mod client_roots;
pub mod commit;
pub mod config;
pub mod diff;
pub mod engine;
pub mod envelopes;
pub mod explain;
pub mod fsio;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod recover_report;
pub mod resolve;
pub mod resources;
pub mod response;
pub mod sandbox;
pub mod state_dir;
pub mod taxonomy;
pub mod tool_schemas;
pub mod tools;
#[cfg(feature = "mcp")]
pub mod transport;
pub mod undo;
