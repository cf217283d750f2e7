//! Placeholder: the splice MCP server arrives with issue 4.

pub mod commit;
pub mod diff;
pub mod engine;
pub mod fsio;
