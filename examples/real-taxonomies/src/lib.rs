//! Four error taxonomies that existed before splice, each described by its own
//! `errors.yaml` in its owner's wire format:
//!
//! - `google-rpc/`: gRPC's canonical codes in Google's HTTP JSON mapping of
//!   `google.rpc.Status`, with the standard error details keyed by `@type`;
//! - `problem-details/`: RFC 9457 problem details, a problem type per code
//!   named by its `type` URI;
//! - `jsonrpc-mcp/`: the JSON-RPC 2.0 error response (`jsonrpc`, the
//!   request's `id`, the `error` object) with JSON-RPC's and the Model
//!   Context Protocol's codes, as the official MCP Python SDK defines them;
//! - `botocore/`: the AWS error codes botocore's retry modes classify, in the
//!   `ClientError.response` its parsers produce.
//!
//! Each directory holds the spec, its generated artifacts (`splice-codegen
//! generate <dir>/errors.yaml --out <dir>`) and `payloads/`: errors produced by
//! the owners' own libraries (`payloads.py`, run with the pinned test venv).
//! `tests/payloads.rs` checks that the artifacts are fresh, that every
//! payload is valid against its generated schema as a code the spec lists,
//! and that wrong payloads are refused. See README.md in this directory.
