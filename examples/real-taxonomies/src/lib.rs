//! Error taxonomies that existed before splice, each described by its own
//! `errors.yaml` in its owner's wire format: gRPC's `google.rpc.Status`, RFC
//! 9457 problem details, JSON-RPC with MCP's codes, botocore's and
//! DynamoDB's `ClientError.response`, Kubernetes' `metav1.Status`, OAuth 2.0
//! token errors, the OData error of the Microsoft REST API Guidelines,
//! Stripe's API error, and a GraphQL response with Apollo Server's codes
//! (README.md in this directory has the table).
//!
//! Each directory holds the spec, its generated artifacts (`splice-codegen
//! generate <dir>/errors.yaml --out <dir>`) and `payloads/`: errors produced by
//! the owners' own libraries (`payloads.py`, run with the pinned test venv).
//! `tests/payloads.rs` checks that the artifacts are fresh, that every
//! payload is valid against its generated schema as a code the spec lists,
//! and that wrong payloads are refused. See README.md in this directory.
