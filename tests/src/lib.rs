//! Shared helpers for the workspace-level tests: the end-to-end harness
//! (the real `splice` binary driven by the rmcp client) and real file-system
//! fault fixtures.

pub mod faults;
pub mod fixtures;
pub mod harness;
