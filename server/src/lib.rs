//! Placeholder: the splice MCP server arrives with issue 4.

pub mod diff;
pub mod engine;
