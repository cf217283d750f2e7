//! The four real taxonomies against payloads their owners' libraries produce.
//!
//! - Each spec loads, and its generated schema under `<taxonomy>/schema/` is
//!   fresh.
//! - Every payload in `<taxonomy>/payloads/` (written by `payloads.py` from
//!   protobuf's `json_format`, RFC 9457's examples, the MCP Python SDK and
//!   botocore's parsers) is valid against that schema, and as a code the spec
//!   lists, not only as the unlisted-code fallback.
//! - Payloads made wrong in one way each (a constant that does not match the
//!   code, a member of the wrong type, required context missing, a reserved
//!   number) are refused, so a schema that accepted anything would fail here.
//! - The committed payloads are what the pinned libraries produce today
//!   (`payloads.py --check` with the test venv's Python; fails under
//!   `CI=true` when it cannot run, is skipped with the reason otherwise).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use splice_codegen::spec::Spec;

const TAXONOMIES: [&str; 4] = ["google-rpc", "problem-details", "jsonrpc-mcp", "botocore"];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn spec(taxonomy: &str) -> Spec {
    let path = dir().join(taxonomy).join("errors.yaml");
    splice_codegen::load_path(&path).unwrap_or_else(|d| panic!("{}", d.render()))
}

fn schema(taxonomy: &str) -> Value {
    let path = dir()
        .join(taxonomy)
        .join("schema/error-envelope.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn payloads(taxonomy: &str) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(dir().join(taxonomy).join("payloads"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                serde_json::from_str(&text).unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The code a payload names, read at the member the spec's envelope says
/// carries the code's name (else its number), matched against the spec's
/// listed codes by wire name, alias or number.
fn listed_code<'s>(spec: &'s Spec, payload: &Value) -> Option<&'s str> {
    let env = &spec.envelope;
    let (path, by_name) = match env.path_of("code_name") {
        Some(p) => (p, true),
        None => (env.path_of("number").expect("a code on the wire"), false),
    };
    let mut at = payload;
    for step in path {
        at = at.get(step)?;
    }
    spec.emitted_codes()
        .find(|c| {
            if by_name {
                c.wire_names().any(|w| Some(w) == at.as_str())
            } else {
                Some(c.number.value) == at.as_i64()
            }
        })
        .map(|c| c.name.value.as_str())
}

#[test]
fn the_generated_schemas_are_fresh() {
    for t in TAXONOMIES {
        let expected = splice_codegen::emit_schema::emit_string(&spec(t));
        let path = dir().join(t).join("schema/error-envelope.schema.json");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed.replace("\r\n", "\n") == expected,
            "{} is stale: run `splice-codegen schema examples/real-taxonomies/{t}/errors.yaml > {}`",
            path.display(),
            path.display()
        );
    }
}

#[test]
fn every_real_payload_is_valid_as_a_listed_code() {
    let mut seen = 0;
    for t in TAXONOMIES {
        let spec = spec(t);
        let schema = schema(t);
        let validator = jsonschema::validator_for(&schema).unwrap();
        let payloads = payloads(t);
        assert!(payloads.len() >= 4, "{t}: only {} payloads", payloads.len());
        for (name, payload) in payloads {
            let errors: Vec<String> = validator
                .iter_errors(&payload)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{t}/{name} is invalid: {errors:#?}");
            assert!(
                listed_code(&spec, &payload).is_some(),
                "{t}/{name} names no code that {t}/errors.yaml lists: {payload}"
            );
            seen += 1;
        }
    }
    assert!(seen >= 20, "{seen} payloads");
}

/// One real payload of `taxonomy`, changed by `edit`.
fn changed(taxonomy: &str, payload: &str, edit: impl FnOnce(&mut Value)) -> Value {
    let (_, mut value) = payloads(taxonomy)
        .into_iter()
        .find(|(n, _)| n == payload)
        .unwrap_or_else(|| panic!("{taxonomy}/{payload}"));
    edit(&mut value);
    value
}

#[test]
fn payloads_wrong_in_one_way_are_refused() {
    let cases: Vec<(&str, &str, Value)> = vec![
        (
            "google-rpc",
            "NOT_FOUND with the HTTP status of another code",
            changed("google-rpc", "not-found-resource-info.json", |v| {
                v["error"]["code"] = json!(500)
            }),
        ),
        (
            "google-rpc",
            "ErrorInfo.metadata with a number value (map<string, string>)",
            changed("google-rpc", "resource-exhausted-quota.json", |v| {
                v["error"]["details"][0]["metadata"]["quota_limit_value"] = json!(60)
            }),
        ),
        (
            "google-rpc",
            "a detail whose @type no variant has",
            changed("google-rpc", "internal-debug-info.json", |v| {
                v["error"]["details"][0]["@type"] = json!("type.googleapis.com/google.rpc.Nope")
            }),
        ),
        (
            "google-rpc",
            "the Status without Google's error wrapper",
            changed("google-rpc", "unavailable-no-details.json", |v| {
                *v = v["error"].clone()
            }),
        ),
        (
            "problem-details",
            "an int64 extension member sent as a string",
            changed("problem-details", "out-of-credit-extensions.json", |v| {
                v["balance"] = json!("30")
            }),
        ),
        (
            "problem-details",
            "an errors entry without its pointer",
            changed("problem-details", "validation-error.json", |v| {
                v["errors"][0].as_object_mut().unwrap().remove("pointer");
            }),
        ),
        (
            "jsonrpc-mcp",
            "UNSUPPORTED_PROTOCOL_VERSION without its required data",
            changed("jsonrpc-mcp", "unsupported-protocol-version.json", |v| {
                v.as_object_mut().unwrap().remove("data");
            }),
        ),
        (
            "jsonrpc-mcp",
            "an elicitation without its url",
            changed("jsonrpc-mcp", "url-elicitation-required.json", |v| {
                v["data"]["elicitations"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("url");
            }),
        ),
        (
            "jsonrpc-mcp",
            "a code as a string",
            changed("jsonrpc-mcp", "method-not-found.json", |v| {
                v["code"] = json!("-32601")
            }),
        ),
        (
            "jsonrpc-mcp",
            "a reserved number (-32002, retired)",
            changed("jsonrpc-mcp", "method-not-found.json", |v| {
                v["code"] = json!(-32002)
            }),
        ),
        (
            "botocore",
            "an error without its Message",
            changed("botocore", "dynamodb-throttling.json", |v| {
                v["Error"].as_object_mut().unwrap().remove("Message");
            }),
        ),
        (
            "botocore",
            "a Type that is not a string",
            changed("botocore", "sts-access-denied.json", |v| {
                v["Error"]["Type"] = json!(1)
            }),
        ),
    ];
    for (t, what, payload) in cases {
        let schema = schema(t);
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(
            !validator.is_valid(&payload),
            "{t}: {what} was accepted: {payload}"
        );
    }
}

#[test]
fn aliases_and_unlisted_codes_are_told_apart() {
    let spec = spec("botocore");
    let throttled = changed("botocore", "dynamodb-throttling.json", |v| {
        v["Error"]["Code"] = json!("Throttling")
    });
    assert_eq!(listed_code(&spec, &throttled), Some("THROTTLING"));
    let validator = jsonschema::validator_for(&schema("botocore")).unwrap();
    assert!(validator.is_valid(&throttled));
    let later = changed("botocore", "dynamodb-throttling.json", |v| {
        v["Error"]["Code"] = json!("SomeFutureException")
    });
    assert_eq!(listed_code(&spec, &later), None);
    assert!(
        validator.is_valid(&later),
        "an unlisted code is accepted as the fallback"
    );
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The test venv's Python with the owners' libraries importable, installing
/// the pinned requirements as `.ci/run` does when they are missing.
fn python_with_owner_libraries() -> Result<PathBuf, String> {
    let venv = dir().join("../../tests/interop-py");
    let python = venv.join(".venv/bin/python");
    let importable = |python: &Path| {
        Command::new(python)
            .args([
                "-c",
                "import google.protobuf, google.rpc.status_pb2, botocore, mcp",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if python.exists() && importable(&python) {
        return Ok(python);
    }
    if !python.exists() {
        let ok = Command::new("python3")
            .args(["-m", "venv", ".venv"])
            .current_dir(&venv)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err("python3 -m venv failed (is python3-venv installed?)".into());
        }
    }
    let ok = Command::new(venv.join(".venv/bin/pip"))
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "--require-hashes",
            "-r",
            "requirements.txt",
        ])
        .current_dir(&venv)
        .status()
        .is_ok_and(|s| s.success());
    if ok && importable(&python) {
        Ok(python)
    } else {
        Err("pip install -r tests/interop-py/requirements.txt failed".into())
    }
}

#[test]
fn the_payloads_are_what_the_owners_libraries_produce() {
    let python = match python_with_owner_libraries() {
        Ok(p) => p,
        Err(why) if in_ci() => panic!("the owners' libraries are needed under CI=true: {why}"),
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let out = Command::new(python)
        .arg(dir().join("payloads.py"))
        .arg("--check")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
