//! Placeholder: the splice MCP server arrives with issue 4.
