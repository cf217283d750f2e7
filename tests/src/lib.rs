//! Shared helpers for the workspace-level tests (placeholder).

pub mod faults;
