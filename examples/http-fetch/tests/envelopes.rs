//! The second taxonomy end to end: its artifacts are fresh, and every
//! envelope its typed constructors build is valid against its own generated
//! schema, with the numbers, categories and messages of its spec.

use std::path::{Path, PathBuf};

use http_fetch_errors::errors::{self, ErrorCode};
use http_fetch_errors::{Failure, envelope};
use serde_json::{Value, json};

fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[test]
fn the_artifacts_are_fresh() {
    let dir = crate_dir();
    let outcome = splice_codegen::generate::run_at(&dir.join("errors.yaml"), &dir, true).unwrap();
    assert!(outcome.is_success(), "{}", outcome.render());
}

#[test]
fn the_schema_the_macro_embeds_is_the_generated_file() {
    let file =
        std::fs::read_to_string(crate_dir().join("schema/error-envelope.schema.json")).unwrap();
    assert_eq!(errors::ENVELOPE_SCHEMA, file.replace("\r\n", "\n"));
    assert_eq!(errors::SCHEMA_ID, "schema://http-fetch/error-envelope/v0");
}

#[test]
fn every_envelope_is_valid_against_the_generated_schema() {
    let schema: Value = serde_json::from_str(errors::ENVELOPE_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let url = "https://example.com/a";
    let cases = [
        (Failure::BadUrl, "INVALID_URL", 100, "request", true),
        (Failure::Scheme, "UNSUPPORTED_SCHEME", 101, "request", true),
        (
            Failure::Unreachable,
            "HOST_UNREACHABLE",
            200,
            "network",
            false,
        ),
        (
            Failure::Timeout { after_ms: 5000 },
            "TIMED_OUT",
            201,
            "network",
            true,
        ),
        (
            Failure::Status {
                status: 404,
                retry_after_ms: None,
                redirects: vec![("https://example.com/b".into(), 301)],
            },
            "HTTP_ERROR",
            300,
            "remote",
            false,
        ),
        (
            Failure::Status {
                status: 429,
                retry_after_ms: Some(2000),
                redirects: vec![],
            },
            "RATE_LIMITED",
            301,
            "remote",
            true,
        ),
    ];
    assert_eq!(cases.len(), ErrorCode::ALL.len(), "one case per code");
    for (failure, code, number, category, retryable) in cases {
        let value = serde_json::to_value(envelope(url, failure)).unwrap();
        let problems: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(problems.is_empty(), "{code}: {problems:?}\n{value:#}");
        assert_eq!(value["error_code"], code);
        assert_eq!(value["code"], number);
        assert_eq!(value["category"], category);
        assert_eq!(value["retryable"], retryable);
        assert_eq!(value["url"], url);
    }
}

#[test]
fn messages_and_context_come_from_the_spec() {
    let timed_out = serde_json::to_value(envelope(
        "https://slow.example",
        Failure::Timeout { after_ms: 5000 },
    ))
    .unwrap();
    assert_eq!(
        timed_out["message"],
        "no answer from https://slow.example within 5000 ms"
    );
    assert_eq!(timed_out["context"], json!({"timeout_ms": 5000}));
    assert_eq!(timed_out["cause"], "environment");

    let http = serde_json::to_value(envelope(
        "https://example.com/gone",
        Failure::Status {
            status: 410,
            retry_after_ms: None,
            redirects: vec![("https://example.com/moved".into(), 308)],
        },
    ))
    .unwrap();
    assert_eq!(
        http["context"],
        json!({"http_status": 410,
               "redirects": [{"url": "https://example.com/moved", "status": 308}]})
    );
    // A field the code does not declare: the published schema lets it
    // through (a later 0.x release may add it, and clients ignore it); the
    // strict schema of this release, what a server's own tests check its
    // answers with, refuses it.
    let schema: Value = serde_json::from_str(errors::ENVELOPE_SCHEMA).unwrap();
    let spec = splice_codegen::load_path(&crate_dir().join("errors.yaml"))
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let strict = splice_codegen::emit_schema::emit_strict(&spec);
    let mut wrong = http.clone();
    wrong["context"]["timeout_ms"] = json!(1);
    assert!(jsonschema::is_valid(&schema, &wrong));
    assert!(!jsonschema::is_valid(&strict, &wrong));
    assert!(jsonschema::is_valid(&strict, &http));
    assert!(ErrorCode::HttpError.may_carry("redirects"));
    assert!(!ErrorCode::HttpError.may_carry("retry_after_ms"));
}
