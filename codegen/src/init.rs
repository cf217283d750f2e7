//! `splice-codegen init [DIR]`: a starter `errors.yaml` for a project that
//! adopts the compiler.
//!
//! A maintainer starting a taxonomy should begin from a spec that already
//! loads, checks and generates, and shows each part of the format once: the
//! taxonomy header, one category, one declared context field and one code
//! that carries it. The starter is a template text, not an emitted model,
//! so its comments survive; a test loads it with the same rules as any spec.
//!
//! A project with an existing wire format starts from its shape instead
//! ([`Shape`]): RFC 9457 problem details, google.rpc.Status as Google's JSON
//! APIs send it, or a JSON-RPC 2.0 error response. Each starter declares that
//! `envelope:` and one code in it; `examples/real-taxonomies/` holds whole
//! taxonomies of each kind. A format whose codes are names, not numbers,
//! starts from [`Shape::Named`]: an OAuth 2.0 token error without numbers
//! or hints, whose category gives its codes their message and context.

use std::io;
use std::path::{Path, PathBuf};

/// The starter spec.
pub const STARTER: &str = r#"# The error taxonomy of my-server: every error code it can return.
# Format: docs/spec-format.md of splice (taxonomy, categories, types,
# fields, codes). Check it with `splice-codegen check errors.yaml`.
taxonomy:
  name: my-server
  version: 0.1.0
  # The JSON Schema's $id is <base_uri>/error-envelope/v<major>.
  base_uri: schema://my-server
  # Optional: every category range must lie inside one block of this many
  # numbers (1000-1999, 2000-2999, ...). Drop it for interleaved numbers.
  range_block: 1000
  description: |
    Error codes returned by my-server. Every failed call returns one JSON error
    envelope whose `error_code` is one of these codes.

# A category owns a range of numbers and the defaults of its codes:
# `retryable` (can the caller fix its call and retry?) and `cause` (who is
# to blame: input, environment or server).
categories:
  input:
    range: [1000, 1999]
    description: The call's arguments are wrong; nothing was done.
    retryable: true
    cause: input

# Named object and enum types that fields use (none yet), e.g.
#   Limit:
#     doc: "A limit the call exceeded."
#     members:
#       max: { type: integer, doc: "The limit." }
types: {}

# The context fields codes may carry: a type (string, integer, boolean,
# error_code, a declared type, or an array of one: `Limit[]`), where it
# lives (`top_level` beside error_code, or inside `context`), a doc, and
# optionally an example: the value docs/errors.md shows in its envelopes (a
# code may override it with `example: { path: ... }`).
fields:
  path:
    type: string
    in: top_level
    doc: "The path the error is about, as the caller wrote it."
    example: /srv/data/report.txt

codes:
  NOT_FOUND:
    number: 1000
    category: input
    since: 0.1.0
    title: the path does not exist
    message: "{path} does not exist"
    recovery_hints:
      - "Check the path for typos, or list its directory to see what exists"
    context:
      required: [path]
    explanation: |
      The call named a path that does not exist, so nothing was done.

      How to fix: correct the path (list the directory first if unsure), then
      send the call again.
"#;

/// RFC 9457 problem details: the `type` URI names the problem, `detail`
/// carries the message.
pub const STARTER_RFC9457: &str = r#"# The problems of my-api, as RFC 9457 problem details:
#   {"type": "https://my-api.example/problems/out-of-credit", "title": "...",
#    "status": 403, "detail": "...", "instance": "/account/12345"}
# Format: docs/spec-format.md of splice. Check: `splice-codegen check errors.yaml`.
# A whole example: examples/real-taxonomies/problem-details/ of splice.
taxonomy:
  name: my-api
  version: 0.1.0
  base_uri: https://my-api.example/problems
  description: |
    Problem details returned by my-api. A problem type is a code, named on the
    wire by its `type` URI.

# The wire shape: a flat object. `type` tells problem types apart (each
# code's `wire:` name is its URI); `detail` is the occurrence's message.
# A problem without `type` is "about:blank" (RFC 9457 3.1.1): to accept one,
# add a code with `wire: "about:blank"` and `absent_means: <ITS NAME>` on `type`.
envelope:
  type: { carries: code_name, doc: "A URI reference that identifies the problem type." }
  detail: { carries: message, optional: true, doc: "An explanation of this occurrence." }

categories:
  client:
    range: [1, 999]
    description: The request cannot be served as sent.
    retryable: false
    cause: input

# RFC 9457's other members, and a problem type's own extension members.
fields:
  title:
    type: string
    in: top_level
    doc: "A short summary of the problem type."
  status:
    type: int32
    in: top_level
    doc: "The HTTP status code of this occurrence."
  instance:
    type: string
    in: top_level
    doc: "A URI reference that identifies this occurrence."
  balance:
    type: int64
    in: top_level
    doc: The account's current balance.

codes:
  OUT_OF_CREDIT:
    wire: https://my-api.example/problems/out-of-credit
    number: 1
    category: client
    since: 0.1.0
    title: the account does not have enough credit
    message: "{text}"
    params:
      text: { type: string, description: the occurrence's detail }
    context:
      optional: [title, status, instance, balance]
    recovery_hints:
      - Add credit to the account, then send the request again
    explanation: |
      The request would cost more than the account's balance; `balance` says how
      much is left.
"#;

/// google.rpc.Status in Google's HTTP JSON mapping, with typed details.
pub const STARTER_GOOGLE_RPC: &str = r#"# The errors of my-service, as Google's JSON APIs send google.rpc.Status:
#   {"error": {"code": 404, "message": "...", "status": "NOT_FOUND",
#              "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", ...}]}}
# Format: docs/spec-format.md of splice. Check: `splice-codegen check errors.yaml`.
# All sixteen codes and the ten standard details: examples/real-taxonomies/google-rpc/.
taxonomy:
  name: my-service
  version: 0.1.0
  base_uri: https://my-service.example/errors
  description: |
    Errors returned by my-service, in Google's JSON mapping of google.rpc.Status.

# The wire shape: everything inside `error`; `status` tells codes apart. The
# fields below (`code`, `details`) live beside it.
envelope:
  error:
    doc: The google.rpc.Status of the failed call.
    members:
      message: { carries: message, doc: A developer-facing error message. }
      status: { carries: code_name, doc: The name of the canonical code. }

# google.rpc.Code's OK is not an error: its number is never a code.
reserved:
  0: "OK: not an error"

categories:
  caller:
    description: The request is wrong as sent.
    retryable: false
    cause: input

types:
  ErrorInfo:
    doc: google.rpc.ErrorInfo, the reason of the error.
    members:
      reason: { type: string, optional: true, doc: The reason of the error. }
      domain: { type: string, optional: true, doc: The logical grouping of the reason. }
      metadata: { type: "map<string, string>", optional: true, doc: Further details. }
  StatusDetail:
    doc: One entry of google.rpc.Status.details, keyed by its type URL.
    union:
      discriminator: "@type"
      variants:
        ErrorInfo: type.googleapis.com/google.rpc.ErrorInfo

# Fields `in: top_level` live inside `error`, beside `status`; a field
# `in: envelope` would live beside `error` itself (a response's own members).
fields:
  http_status:
    type: int32
    wire: code
    in: top_level
    doc: The HTTP status code the canonical code maps to.
  details:
    type: "StatusDetail[]"
    in: top_level
    doc: The standard error details.

codes:
  NOT_FOUND:
    number: 5
    category: caller
    since: 0.1.0
    title: some requested entity was not found
    message: "{text}"
    params:
      text: { type: string, description: the developer-facing message }
    constants: { http_status: 404 }
    context:
      optional: [details]
    recovery_hints:
      - Check the resource name, or create the resource first
    explanation: Some requested entity (a file or a directory, for example) was not found.
"#;

/// A JSON-RPC 2.0 error response: `jsonrpc`, the request's `id` (a number,
/// a string or `null`) and the error object, whose number tells codes
/// apart and whose `data` holds the context.
pub const STARTER_JSONRPC: &str = r#"# The errors of my-rpc-server, as JSON-RPC 2.0 error responses:
#   {"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "...", "data": {...}}}
# Format: docs/spec-format.md of splice. Check: `splice-codegen check errors.yaml`.
# JSON-RPC's and MCP's codes: examples/real-taxonomies/jsonrpc-mcp/ of splice.
taxonomy:
  name: my-rpc-server
  version: 0.1.0
  base_uri: https://my-rpc-server.example/errors
  description: |
    Errors returned by my-rpc-server as JSON-RPC 2.0 error responses.

# The wire shape: `error.code` (the number) tells errors apart; `error.data`
# holds the fields declared `in: context`, present when a code carries one.
# To describe only the error object, keep the three members of `error` at the
# top and drop `jsonrpc` and the `id` field.
envelope:
  jsonrpc: { carries: constant, value: "2.0", doc: The JSON-RPC version. }
  error:
    doc: The error object.
    members:
      code: { carries: number, doc: The error code. }
      message: { carries: message, doc: A short description of the error. }
      data: { carries: context, doc: Additional information about the error. }

categories:
  jsonrpc:
    range: [-32768, -32100]
    description: Codes the JSON-RPC 2.0 specification defines.
    retryable: false
    cause: input
  server:
    range: [-32099, -32000]
    description: Codes of my-rpc-server (JSON-RPC's implementation-defined range).
    retryable: false
    cause: server

types:
  RequestId:
    doc: The id of the request answered, or null when it could not be read.
    one_of: [int64, string, "null"]

fields:
  id:
    type: RequestId
    in: envelope
    doc: The id of the request answered.
  param:
    type: string
    in: context
    doc: The parameter that is invalid.

codes:
  INVALID_PARAMS:
    number: -32602
    category: jsonrpc
    since: 0.1.0
    title: invalid method parameters
    message: "invalid parameter {param}"
    context:
      required: [id, param]
    recovery_hints:
      - Fix the parameter named in error.data.param, then send the request again
    explanation: A parameter of the call is missing or has the wrong type.
"#;

/// A format whose codes are names, not numbers, and carry no hints: OAuth
/// 2.0 token errors (RFC 6749 5.2).
pub const STARTER_NAMED: &str = r#"# The errors of my-auth-server, named and never numbered, as OAuth 2.0
# token errors (RFC 6749 5.2) are:
#   {"error": "invalid_grant", "error_description": "The code has expired."}
# Format: docs/spec-format.md of splice. Check: `splice-codegen check errors.yaml`.
taxonomy:
  name: my-auth-server
  version: 0.1.0
  base_uri: https://my-auth-server.example/errors
  # The codes have no numbers: the name in `error` tells them apart.
  numbered: false
  # An OAuth error carries no recovery hints, so a code may have none.
  hints: optional
  description: |
    Errors returned by the token endpoint of my-auth-server.

# The wire shape: a flat object; `error` holds each code's `wire:` name.
envelope:
  error: { carries: code_name, doc: A single ASCII error code. }
  error_description: { carries: message, doc: Human-readable text about the error. }

# A category holds the defaults of its codes: `retryable` and `cause`, and
# here the message template, its parameter and the context fields, which
# every code of the category takes unless it writes its own.
categories:
  client:
    description: The token request cannot be served as sent.
    retryable: false
    cause: input
    message: "{text}"
    params:
      text: { type: string, description: The error description. }
    context:
      optional: [error_uri]

fields:
  error_uri:
    type: string
    in: top_level
    format: uri
    doc: A page about the error.

codes:
  INVALID_REQUEST:
    wire: invalid_request
    category: client
    since: 0.1.0
    title: the request is malformed
    explanation: |
      A required parameter is missing, a parameter is repeated or malformed,
      or the request is otherwise malformed. Fix the request, then send it
      again.
  INVALID_GRANT:
    wire: invalid_grant
    category: client
    since: 0.1.0
    title: the grant is invalid or expired
    explanation: |
      The authorization code or refresh token is invalid, expired or revoked,
      or was issued to another client. Ask the resource owner to authorize
      again.
"#;

/// The starting shapes `init --shape` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// splice's own envelope ([`STARTER`]).
    #[default]
    Splice,
    /// RFC 9457 problem details ([`STARTER_RFC9457`]).
    Rfc9457,
    /// google.rpc.Status in Google's JSON mapping ([`STARTER_GOOGLE_RPC`]).
    GoogleRpc,
    /// A JSON-RPC 2.0 error response ([`STARTER_JSONRPC`]).
    JsonRpc,
    /// Codes told apart by name only, without hints ([`STARTER_NAMED`]).
    Named,
}

impl Shape {
    /// Every shape, as `--shape` spells it.
    pub const ALL: [(&'static str, Shape); 5] = [
        ("splice", Shape::Splice),
        ("rfc9457", Shape::Rfc9457),
        ("google-rpc", Shape::GoogleRpc),
        ("jsonrpc", Shape::JsonRpc),
        ("named", Shape::Named),
    ];

    /// The starter spec text.
    pub fn starter(self) -> &'static str {
        match self {
            Shape::Splice => STARTER,
            Shape::Rfc9457 => STARTER_RFC9457,
            Shape::GoogleRpc => STARTER_GOOGLE_RPC,
            Shape::JsonRpc => STARTER_JSONRPC,
            Shape::Named => STARTER_NAMED,
        }
    }
}

impl std::str::FromStr for Shape {
    type Err = String;
    fn from_str(s: &str) -> Result<Shape, String> {
        Shape::ALL
            .iter()
            .find(|(name, _)| *name == s)
            .map(|(_, shape)| *shape)
            .ok_or_else(|| {
                let names: Vec<&str> = Shape::ALL.iter().map(|(n, _)| *n).collect();
                format!("unknown shape `{s}`; expected one of: {}", names.join(", "))
            })
    }
}

/// Writes [`STARTER`] to `dir/errors.yaml` (creating `dir`), refusing to
/// overwrite an existing file; returns the path written.
pub fn write(dir: &Path) -> io::Result<PathBuf> {
    write_shape(dir, Shape::Splice)
}

/// Writes the starter of `shape` to `dir/errors.yaml` (creating `dir`),
/// refusing to overwrite an existing file; returns the path written.
pub fn write_shape(dir: &Path, shape: Shape) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("errors.yaml");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                io::Error::new(
                    e.kind(),
                    format!("{} already exists; not overwritten", path.display()),
                )
            } else {
                io::Error::new(e.kind(), format!("cannot create {}: {e}", path.display()))
            }
        })?;
    io::Write::write_all(&mut file, shape.starter().as_bytes())?;
    Ok(path)
}

/// What to run after [`write_shape`], for a spec of `shape` at `spec` whose
/// artifacts go to `dir`.
pub fn next_steps(spec: &Path, dir: &Path, shape: Shape) -> String {
    let (spec, dir) = (spec.display(), dir.display());
    let mut out = format!(
        "wrote {spec}\n\
         next:\n  \
         splice-codegen check {spec}\n  \
         splice-codegen generate {spec} --out {dir}   # schema/, docs/errors.md\n"
    );
    if shape == Shape::Splice {
        out.push_str(
            "  # in your crate (Cargo.toml: splice-macros, serde with derive, schemars 1):\n  \
             #   mod errors { splice_macros::taxonomy!(\"<path from this .rs file to errors.yaml>\"); }\n  \
             #   let e = errors::ErrorEnvelope::not_found(\"/tmp/x\").build();\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_loads_without_a_problem() {
        let spec =
            crate::load_str(STARTER, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
        assert_eq!(spec.codes.len(), 1);
        assert_eq!(spec.categories.len(), 1);
    }

    #[test]
    fn every_shape_loads_with_its_declared_envelope() {
        for (name, shape) in Shape::ALL {
            let spec = crate::load_str(shape.starter(), "errors.yaml")
                .unwrap_or_else(|d| panic!("{name}: {}", d.render()));
            let codes = if shape == Shape::Named { 2 } else { 1 };
            assert_eq!(spec.codes.len(), codes, "{name}");
            assert_eq!(spec.envelope.declared, shape != Shape::Splice, "{name}");
            assert_eq!(name.parse::<Shape>(), Ok(shape));
        }
        let err = "grpc".parse::<Shape>().unwrap_err();
        assert!(err.contains("google-rpc"), "{err}");
    }

    #[test]
    fn each_shape_is_its_format_on_the_wire() {
        // The schema of each starter accepts the format's own example and
        // refuses the same payload with the code's member misspelled.
        let cases = [
            (
                Shape::Rfc9457,
                serde_json::json!({"type": "https://my-api.example/problems/out-of-credit",
                    "title": "You do not have enough credit.", "status": 403,
                    "detail": "Your balance is 30, but that costs 50.", "balance": 30}),
                "type",
            ),
            (
                Shape::GoogleRpc,
                serde_json::json!({"error": {"code": 404, "message": "no such book",
                    "status": "NOT_FOUND", "details": [{"@type":
                    "type.googleapis.com/google.rpc.ErrorInfo", "reason": "BOOK_NOT_FOUND"}]}}),
                "error",
            ),
            (
                Shape::JsonRpc,
                serde_json::json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602,
                    "message": "invalid parameter uri", "data": {"param": "uri"}}}),
                "error",
            ),
            (
                Shape::JsonRpc,
                serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32602,
                    "message": "invalid parameter uri", "data": {"param": "uri"}}}),
                "id",
            ),
            (
                Shape::Named,
                serde_json::json!({"error": "invalid_grant",
                    "error_description": "The code has expired.",
                    "error_uri": "https://my-auth-server.example/errors/invalid_grant"}),
                "error",
            ),
        ];
        for (shape, payload, top) in cases {
            let spec = crate::load_str(shape.starter(), "errors.yaml").unwrap();
            let schema = crate::emit_schema::emit(&spec);
            let validator = jsonschema::validator_for(&schema).unwrap();
            assert!(validator.is_valid(&payload), "{shape:?}: {payload}");
            let mut wrong = payload.clone();
            let obj = wrong.as_object_mut().unwrap();
            let v = obj.remove(top).unwrap();
            obj.insert(format!("{top}_"), v);
            assert!(!validator.is_valid(&wrong), "{shape:?}: {wrong}");
        }
    }

    /// The named starter has no numbers and no hints, and its codes take
    /// their message and context from their category.
    #[test]
    fn the_named_starter_has_no_numbers_and_inherits_its_defaults() {
        let spec = crate::load_str(STARTER_NAMED, "errors.yaml")
            .unwrap_or_else(|d| panic!("{}", d.render()));
        assert!(!spec.taxonomy.numbered());
        assert_eq!(spec.taxonomy.hints(), crate::spec::HintsRule::Optional);
        for code in &spec.codes {
            assert_eq!(code.number(), None);
            assert!(code.recovery_hints.is_empty(), "{}", code.name.value);
            assert_eq!(code.message.value, "{text}");
            assert_eq!(code.optional_context[0].value, "error_uri");
        }
    }

    #[test]
    #[cfg(feature = "generate")]
    fn init_refuses_to_overwrite_and_its_spec_generates() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), STARTER);
        std::fs::write(&path, "edited").unwrap();
        let err = write(dir.path()).unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "edited");

        std::fs::write(&path, STARTER).unwrap();
        let out = dir.path().join("out");
        let outcome = crate::generate::run_at(&path, &out, false).unwrap();
        assert!(outcome.is_success(), "{}", outcome.render());
        let schema =
            std::fs::read_to_string(out.join("schema/error-envelope.schema.json")).unwrap();
        assert!(
            schema.contains("NOT_FOUND") && schema.contains("\"path\""),
            "{schema}"
        );
        let check = crate::generate::run_at(&path, &out, true).unwrap();
        assert!(check.is_success(), "{}", check.render());
    }
}
