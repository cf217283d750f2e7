//! The real taxonomies against payloads their owners' libraries produce.
//!
//! - Each spec loads, and its generated artifacts (`schema/`, `docs/`) are
//!   fresh.
//! - Every payload in `<taxonomy>/payloads/` (written by `payloads.py` from
//!   protobuf's `json_format`, RFC 9457's examples, the MCP Python SDK,
//!   botocore's parsers and endpoint, the Kubernetes client, oauthlib,
//!   azure-core, stripe-python and graphql-core) is valid against that
//!   schema, and as a code the spec lists (each error of a GraphQL
//!   response), not only as the unlisted-code fallback.
//! - Payloads made wrong in one way each (a constant that does not match the
//!   code, a member of the wrong type, required context missing, a reserved
//!   number, a code under another category) are refused, so a schema that
//!   accepted anything would fail here.
//! - The committed payloads are what the pinned libraries produce today
//!   (`payloads.py --check` with the test venv's Python; fails under
//!   `CI=true` when it cannot run, is skipped with the reason otherwise).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use splice_codegen::context::Placement;
use splice_codegen::envelope::AbsentMeans;
use splice_codegen::layout::{Form, Layout};

mod common;

use common::{TAXONOMIES, dir, entries, in_ci, listed_code, payloads, spec};

fn schema(taxonomy: &str) -> Value {
    let path = dir()
        .join(taxonomy)
        .join("schema/error-envelope.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_generated_artifacts_are_fresh() {
    for t in TAXONOMIES {
        let d = dir().join(t);
        let outcome = splice_codegen::generate::run_at(&d.join("errors.yaml"), &d, true).unwrap();
        assert!(outcome.is_success(), "{t}: {}", outcome.render());
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
        for p in &payloads {
            let (name, payload) = (p.file_name(), &p.value);
            let errors: Vec<String> = validator
                .iter_errors(payload)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{t}/{name} is invalid: {errors:#?}");
            // Each error of a GraphQL response is a listed code.
            let envelopes = entries(&spec, payload);
            assert!(!envelopes.is_empty(), "{t}/{name} holds no error");
            for env in envelopes {
                assert!(
                    listed_code(&spec, env).is_some(),
                    "{t}/{name} names no code that {t}/errors.yaml lists: {env}"
                );
            }
            seen += 1;
        }
    }
    assert!(seen >= 20, "{seen} payloads");
}

/// One real payload of `taxonomy`, changed by `edit`.
fn changed(taxonomy: &str, payload: &str, edit: impl FnOnce(&mut Value)) -> Value {
    let mut value = payloads(taxonomy)
        .into_iter()
        .find(|p| p.file_name() == payload)
        .unwrap_or_else(|| panic!("{taxonomy}/{payload}"))
        .value;
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
                v["error"].as_object_mut().unwrap().remove("data");
            }),
        ),
        (
            "jsonrpc-mcp",
            "an elicitation without its url",
            changed("jsonrpc-mcp", "url-elicitation-required.json", |v| {
                v["error"]["data"]["elicitations"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("url");
            }),
        ),
        (
            "jsonrpc-mcp",
            "a code as a string",
            changed("jsonrpc-mcp", "method-not-found.json", |v| {
                v["error"]["code"] = json!("-32601")
            }),
        ),
        (
            "jsonrpc-mcp",
            "a reserved number (-32002, retired)",
            changed("jsonrpc-mcp", "method-not-found.json", |v| {
                v["error"]["code"] = json!(-32002)
            }),
        ),
        (
            "jsonrpc-mcp",
            "a request id that is an object",
            changed("jsonrpc-mcp", "method-not-found.json", |v| {
                v["id"] = json!({"n": 6})
            }),
        ),
        (
            "jsonrpc-mcp",
            "a response without its id",
            changed("jsonrpc-mcp", "invalid-request-body.json", |v| {
                v.as_object_mut().unwrap().remove("id");
            }),
        ),
        (
            "jsonrpc-mcp",
            "a JSON-RPC version other than 2.0",
            changed("jsonrpc-mcp", "method-not-found.json", |v| {
                v["jsonrpc"] = json!("1.0")
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
        (
            "botocore",
            "ResponseMetadata (a field `in: envelope`) with the HTTP status as text",
            changed("botocore", "s3-slow-down.json", |v| {
                v["ResponseMetadata"]["HTTPStatusCode"] = json!("503")
            }),
        ),
        (
            "botocore",
            "ResponseMetadata without its HTTP status",
            changed("botocore", "s3-slow-down.json", |v| {
                v["ResponseMetadata"]
                    .as_object_mut()
                    .unwrap()
                    .remove("HTTPStatusCode");
            }),
        ),
        (
            "dynamodb",
            "an attribute of Item that is not a typed AttributeValue",
            changed("dynamodb", "put-item-condition-failed.json", |v| {
                v["Item"]["pk"] = json!("order#1042")
            }),
        ),
        (
            "dynamodb",
            "CancellationReasons as one object instead of a list",
            changed("dynamodb", "transact-write-cancelled.json", |v| {
                v["CancellationReasons"] = v["CancellationReasons"][1].clone()
            }),
        ),
        (
            "dynamodb",
            "the error shape's message (a field `in: envelope`) as a number",
            changed("dynamodb", "describe-table-not-found.json", |v| {
                v["message"] = json!(404)
            }),
        ),
        (
            "kubernetes",
            "a Status that is not a Failure",
            changed("kubernetes", "not-found.json", |v| {
                v["status"] = json!("Success")
            }),
        ),
        (
            "kubernetes",
            "a reason that is null (an absent reason is Unknown, a null one is nothing)",
            changed("kubernetes", "unknown-empty-reason.json", |v| {
                v["reason"] = Value::Null
            }),
        ),
        (
            "kubernetes",
            "the HTTP status as text",
            changed("kubernetes", "conflict.json", |v| v["code"] = json!("409")),
        ),
        (
            "kubernetes",
            "the causes of Invalid as one object instead of a list",
            changed("kubernetes", "invalid.json", |v| {
                v["details"]["causes"] = v["details"]["causes"][0].clone()
            }),
        ),
        (
            "oauth",
            "an error_description with a double quote (outside RFC 6749's characters)",
            changed("oauth", "invalid-request.json", |v| {
                v["error_description"] = json!("Missing \"grant_type\".")
            }),
        ),
        (
            "oauth",
            "an empty error_description (RFC 6749 wants at least one character)",
            changed("oauth", "invalid-scope.json", |v| {
                v["error_description"] = json!("")
            }),
        ),
        (
            "oauth",
            "an error_uri with a space",
            changed("oauth", "invalid-grant.json", |v| {
                v["error_uri"] = json!("https://example.com/docs/oauth errors")
            }),
        ),
        (
            "oauth",
            "an error code with a non-ASCII character",
            changed("oauth", "invalid-token.json", |v| {
                v["error"] = json!("invalid_tokén")
            }),
        ),
        (
            "odata",
            "an entry of details without its code",
            changed("odata", "details.json", |v| {
                v["error"]["details"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("code");
            }),
        ),
        (
            "odata",
            "a nested innererror that is a string",
            changed("odata", "innererror.json", |v| {
                v["error"]["innererror"]["innererror"]["innererror"] =
                    json!("PasswordReuseNotAllowed")
            }),
        ),
        (
            "odata",
            "an error without its message",
            changed("odata", "resource-not-found.json", |v| {
                v["error"].as_object_mut().unwrap().remove("message");
            }),
        ),
        (
            "stripe",
            "a card error's code under another type",
            changed("stripe", "card-declined.json", |v| {
                v["error"]["type"] = json!("invalid_request_error")
            }),
        ),
        (
            "stripe",
            "a card error without its code (card_error has no fallback)",
            changed("stripe", "card-declined.json", |v| {
                v["error"].as_object_mut().unwrap().remove("code");
            }),
        ),
        (
            "stripe",
            "an error without code of a type that is not one of the four",
            changed("stripe", "invalid-api-key.json", |v| {
                v["error"]["type"] = json!("authentication_error")
            }),
        ),
        (
            "stripe",
            "a listed code under a type that is not one of the four",
            changed("stripe", "rate-limit.json", |v| {
                v["error"]["type"] = json!("rate_limit_error")
            }),
        ),
        (
            "stripe",
            "a param that is not a string",
            changed("stripe", "parameter-missing.json", |v| {
                v["error"]["param"] = json!(1)
            }),
        ),
        (
            "stripe",
            "a payment_intent that is its id instead of the object",
            changed("stripe", "expired-card.json", |v| {
                v["error"]["payment_intent"] = json!("pi_3Q1")
            }),
        ),
        (
            "stripe",
            "a code that is null (an absent code is the type's fallback, a null one is nothing)",
            changed("stripe", "api-error.json", |v| {
                v["error"]["code"] = Value::Null
            }),
        ),
        (
            "graphql",
            "a response whose errors list is empty",
            changed("graphql", "forbidden.json", |v| v["errors"] = json!([])),
        ),
        (
            "graphql",
            "a response without errors",
            changed("graphql", "forbidden.json", |v| {
                v.as_object_mut().unwrap().remove("errors");
            }),
        ),
        (
            "graphql",
            "the errors as one object, not a list",
            changed("graphql", "forbidden.json", |v| {
                v["errors"] = v["errors"][0].clone()
            }),
        ),
        (
            "graphql",
            "a second error whose message is a number",
            changed("graphql", "two-errors.json", |v| {
                v["errors"][1]["message"] = json!(9)
            }),
        ),
        (
            "graphql",
            "an error location whose line is text",
            changed("graphql", "parse-error-apollo.json", |v| {
                v["errors"][0]["locations"][0]["line"] = json!("1")
            }),
        ),
        (
            "graphql",
            "a null code (an absent one is INTERNAL_SERVER_ERROR)",
            changed("graphql", "forbidden.json", |v| {
                v["errors"][0]["extensions"]["code"] = Value::Null
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

    // Stripe: an error without `code` is its type's fallback code, and a
    // code stripe 12.0.0 adds is unlisted.
    let stripe = common::spec("stripe");
    let validator = jsonschema::validator_for(&schema("stripe")).unwrap();
    for (payload, code) in [
        ("api-error.json", "API_ERROR"),
        ("idempotency-error.json", "IDEMPOTENCY_ERROR"),
        ("permission-error.json", "INVALID_REQUEST"),
        ("rate-limit.json", "RATE_LIMIT"),
    ] {
        let payload = changed("stripe", payload, |_| {});
        assert_eq!(listed_code(&stripe, &payload), Some(code), "{payload}");
    }
    let later = changed("stripe", "parameter-missing.json", |v| {
        v["error"]["code"] = json!("setup_intent_mobile_wallet_unsupported")
    });
    assert_eq!(listed_code(&stripe, &later), None);
    assert!(validator.is_valid(&later), "{later}");
}

/// GraphQL: each error of a response is read on its own, in order: an
/// error without `extensions` (graphql-core's own, a resolver's crash) is
/// INTERNAL_SERVER_ERROR, and a code Apollo Server does not define is
/// unlisted while the response stays valid.
#[test]
fn each_error_of_a_graphql_response_is_its_own_code() {
    let spec = spec("graphql");
    let validator = jsonschema::validator_for(&schema("graphql")).unwrap();
    let codes = |payload: &Value| -> Vec<Option<&str>> {
        entries(&spec, payload)
            .into_iter()
            .map(|e| listed_code(&spec, e))
            .collect()
    };
    for (name, want) in [
        (
            "two-errors.json",
            vec![Some("UNAUTHENTICATED"), Some("BAD_USER_INPUT")],
        ),
        ("resolver-crash.json", vec![Some("INTERNAL_SERVER_ERROR")]),
        ("parse-error.json", vec![Some("INTERNAL_SERVER_ERROR")]),
        (
            "parse-error-apollo.json",
            vec![Some("GRAPHQL_PARSE_FAILED")],
        ),
    ] {
        assert_eq!(codes(&changed("graphql", name, |_| {})), want, "{name}");
    }
    let later = changed("graphql", "two-errors.json", |v| {
        v["errors"][0]["extensions"]["code"] = json!("DOWNSTREAM_SERVICE_ERROR")
    });
    assert_eq!(codes(&later), [None, Some("BAD_USER_INPUT")]);
    assert!(validator.is_valid(&later), "{later}");
}

fn owner_data(taxonomy: &str) -> Value {
    let path = dir().join(taxonomy).join("owner-data.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The specs restate tables of the owners' code: each one agrees with the
/// table as `payloads.py` read it from the pinned library.
#[test]
fn the_specs_agree_with_the_owners_tables() {
    // gRPC: every canonical code but OK, with its number, and its HTTP
    // mapping as the per-code constant of `code`; OK's number is reserved.
    let grpc = spec("google-rpc");
    let data = owner_data("google-rpc");
    for (name, number) in data["codes"].as_object().unwrap() {
        if name == "OK" {
            assert!(
                grpc.reserved
                    .iter()
                    .any(|r| Some(r.number.value) == number.as_i64())
            );
            continue;
        }
        let code = grpc
            .code(name)
            .unwrap_or_else(|| panic!("google-rpc lacks {name}"));
        assert_eq!(code.number(), number.as_i64(), "{name}");
        assert_eq!(
            code.constant("http_status"),
            Some(&data["http_mapping"][name]),
            "{name}"
        );
    }
    assert_eq!(grpc.emitted_codes().count(), 16);

    // Kubernetes: every StatusReason of apimachinery is a code, by its
    // value on the wire (`""` included), with the HTTP status its comment
    // gives as the attribute `http_status`; the spec has no other code.
    let k8s = spec("kubernetes");
    let data = owner_data("kubernetes");
    let reasons = data["reasons"].as_object().unwrap();
    for (wire, status) in reasons {
        let code = k8s
            .emitted_codes()
            .find(|c| c.wire() == wire)
            .unwrap_or_else(|| panic!("kubernetes lacks the reason {wire:?}"));
        assert_eq!(k8s.attribute(code, "http_status"), Some(status), "{wire:?}");
    }
    assert_eq!(k8s.emitted_codes().count(), reasons.len());
    // The members of `Status` and of the types it holds are the client's
    // models' (their `attribute_map`), by wire name.
    let members = &data["members"];
    let wire_names = |model: &str| -> Vec<String> {
        members[model]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_owned())
            .collect()
    };
    // A flat envelope: its members and the fields `in: top_level`.
    let layout = Layout::of(&k8s);
    let mut status: Vec<String> = k8s
        .envelope
        .members
        .iter()
        .map(|m| m.name.value.clone())
        .chain(
            layout
                .envelope(Form::Any)
                .fields()
                .map(|f| f.field.wire().to_owned()),
        )
        .collect();
    status.sort();
    assert_eq!(status, wire_names("V1Status"), "the members of Status");
    for (ty, model) in [
        ("StatusDetails", "V1StatusDetails"),
        ("StatusCause", "V1StatusCause"),
        ("ListMeta", "V1ListMeta"),
    ] {
        let mut declared: Vec<String> = k8s
            .type_def(ty)
            .unwrap_or_else(|| panic!("kubernetes lacks the type {ty}"))
            .members()
            .iter()
            .map(|m| m.wire().to_owned())
            .collect();
        declared.sort();
        assert_eq!(declared, wire_names(model), "the members of {ty}");
    }

    // OAuth: each oauthlib error class is a code, by its `error`, with the
    // class's `status_code` as the attribute `http_status`; RFC 8628's
    // codes, which have no class, answer 400 (RFC 6749 section 5.2).
    let oauth = spec("oauth");
    let table = owner_data("oauth")["status_code"].clone();
    let table = table.as_object().unwrap();
    for code in oauth.emitted_codes() {
        let want = table.get(code.wire()).cloned().unwrap_or_else(|| {
            assert!(
                ["authorization_pending", "slow_down", "expired_token"].contains(&code.wire()),
                "{} is neither an oauthlib class nor an RFC 8628 code",
                code.wire()
            );
            json!(400)
        });
        assert_eq!(
            oauth.attribute(code, "http_status"),
            Some(&want),
            "{}",
            code.wire()
        );
    }
    for error in table.keys() {
        assert!(
            oauth.emitted_codes().any(|c| c.wire() == error),
            "oauth lacks oauthlib's {error}"
        );
    }

    // OData: the error object has the members azure-core's ODataV4Format
    // reads (its `*_LABEL`s), and so has an entry of `details` ("details is
    // recursive of this very format").
    let odata = spec("odata");
    let mut labels: Vec<String> = owner_data("odata")["labels"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    labels.sort();
    assert_eq!(odata.envelope.fields_path(), ["error"]);
    let mut error: Vec<String> = odata
        .envelope
        .names_beside_fields()
        .into_iter()
        .map(str::to_owned)
        .collect();
    error.extend(
        odata
            .fields
            .iter()
            .filter(|f| f.placement() == Placement::TopLevel)
            .map(|f| f.wire().to_owned()),
    );
    error.sort();
    assert_eq!(error, labels, "the members of the error object");
    let mut detail: Vec<String> = odata
        .type_def("ErrorDetail")
        .unwrap()
        .members()
        .iter()
        .map(|m| m.wire().to_owned())
        .collect();
    detail.sort();
    assert_eq!(detail, labels, "the members of an entry of details");

    // Stripe: the types are the categories, and the codes with a `code` on
    // the wire are exactly stripe-python's; the others are the fallbacks of
    // the types that occur without one, each named by its type.
    let stripe = spec("stripe");
    let data = owner_data("stripe");
    let strings = |key: &str| -> Vec<String> {
        let mut v: Vec<String> = data[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        v.sort();
        v
    };
    let mut categories: Vec<String> = stripe
        .categories
        .iter()
        .map(|c| c.key.value.clone())
        .collect();
    categories.sort();
    assert_eq!(categories, strings("types"), "the types");
    let Some(AbsentMeans::ByCategory { entries, .. }) = stripe.envelope.absent_means() else {
        panic!("stripe: `code` has a fallback per type");
    };
    let fallbacks: Vec<&str> = entries
        .iter()
        .map(|(_, code)| code.value.as_str())
        .collect();
    for (category, code) in entries {
        assert_eq!(
            stripe.code(&code.value).unwrap().wire(),
            category.value,
            "{}",
            code.value
        );
    }
    let mut codes: Vec<String> = stripe
        .emitted_codes()
        .filter(|c| !fallbacks.contains(&c.name.value.as_str()))
        .map(|c| c.wire().to_owned())
        .collect();
    codes.sort();
    assert_eq!(codes, strings("codes"), "the codes");
    // Each payload's code is what stripe-python read from it, and so is its
    // type.
    for p in payloads("stripe") {
        let reading = &data["readings"][p.stem()];
        let code = stripe
            .code(listed_code(&stripe, &p.value).unwrap())
            .unwrap();
        assert_eq!(json!(code.category.value), reading["type"], "{}", p.stem());
        if let Some(wire) = reading["code"].as_str() {
            assert_eq!(code.wire(), wire, "{}", p.stem());
        } else {
            assert!(
                fallbacks.contains(&code.name.value.as_str()),
                "{}",
                p.stem()
            );
        }
    }

    // MCP: the HTTP status attribute is the SDK's ERROR_CODE_HTTP_STATUS.
    let mcp = spec("jsonrpc-mcp");
    let table = owner_data("jsonrpc-mcp")["http_status"].clone();
    for code in mcp.emitted_codes() {
        assert_eq!(
            mcp.attribute(code, "http_status"),
            code.number().and_then(|n| table.get(n.to_string())),
            "{}",
            code.name.value
        );
    }

    // botocore: a code is in a retry class exactly when one of its names
    // on the wire is in the standard retry mode's list of that class.
    let boto = spec("botocore");
    let data = owner_data("botocore");
    for class in ["throttling", "transient"] {
        let listed: Vec<&str> = data[class]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for name in &listed {
            assert!(
                boto.emitted_codes()
                    .any(|c| c.wire_names().any(|w| w == *name)),
                "botocore's {class} code {name} is not in the spec"
            );
        }
        for code in boto.emitted_codes() {
            let in_class = code.retry_classes.iter().any(|c| c.value == class);
            let in_list = code.wire_names().any(|w| listed.contains(&w));
            assert_eq!(in_class, in_list, "{} and class {class}", code.name.value);
            assert_eq!(in_class, in_list && code.retryable, "{}", code.name.value);
        }
    }
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
                "import google.protobuf, google.rpc.status_pb2, botocore, mcp, kubernetes, azure.core, graphql, oauthlib, stripe",
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

/// DynamoDB's operations are the service model's: the spec declares each
/// operation botocore's model has (by its name on the wire) and no other;
/// the codes each raises, and the variants of its definition in the
/// generated schema, are exactly the error shapes the model lists for it;
/// each code carries the members of its error shape (as fields beside
/// `Error`) and the shape's `retryable.throttling` as the attribute
/// `modeled_throttling`, and is retryable when the shape is modeled so.
#[test]
fn the_dynamodb_operations_are_the_service_models() {
    let spec = spec("dynamodb");
    let data = owner_data("dynamodb");
    let schema = schema("dynamodb");
    let model_ops = data["operations"].as_object().unwrap();
    let mut spec_ops: Vec<&str> = spec.operations.iter().map(|o| o.wire()).collect();
    let mut wanted: Vec<&str> = model_ops.keys().map(String::as_str).collect();
    spec_ops.sort_unstable();
    wanted.sort_unstable();
    assert_eq!(spec_ops, wanted, "the operations");
    for op in &spec.operations {
        let mut model: Vec<&str> = model_ops[op.wire()]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap())
            .collect();
        model.sort_unstable();
        let mut raised: Vec<&str> = spec.operation_codes(op).iter().map(|c| c.wire()).collect();
        raised.sort_unstable();
        assert_eq!(raised, model, "the codes operation {} raises", op.wire());
        // The schema's definition of the operation: the envelope of each
        // of its codes (the variant whose `Error.Code` is the code's
        // constant), and the fallback for a code of a later release.
        let def = &schema["$defs"][op.error_type_name()];
        let mut variants: Vec<String> = def["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("no $defs.{} in the schema", op.error_type_name()))
            .iter()
            .map(|v| {
                v["$ref"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("#/$defs/")
                    .to_string()
            })
            .filter(|r| r != "UnlistedCodeEnvelope")
            .collect();
        variants.sort_unstable();
        let mut envelopes: Vec<String> = spec
            .operation_codes(op)
            .iter()
            .map(|c| {
                let code = &c.name.value;
                schema["$defs"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .find(|(_, d)| {
                        d["properties"]["Error"]["properties"]["Code"]["const"] == json!(c.wire())
                    })
                    .map(|(k, _)| k.clone())
                    .unwrap_or_else(|| panic!("no envelope of {code} in the schema"))
            })
            .collect();
        envelopes.sort_unstable();
        assert_eq!(variants, envelopes, "the schema's {}", op.error_type_name());
    }
    for (shape, info) in data["errors"].as_object().unwrap() {
        let code = spec
            .emitted_codes()
            .find(|c| c.wire() == shape)
            .unwrap_or_else(|| panic!("the spec lacks the error shape {shape}"));
        let mut carried: Vec<&str> = code
            .optional_context
            .iter()
            .chain(&code.required_context)
            .map(|f| spec.field(&f.value).unwrap().wire())
            .filter(|w| *w != "ResponseMetadata")
            .collect();
        carried.sort_unstable();
        let mut members: Vec<&str> = info["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        members.sort_unstable();
        assert_eq!(carried, members, "the members of {shape}");
        let throttling = &info["retryable"]["throttling"];
        assert_eq!(
            spec.attribute(code, "modeled_throttling"),
            (!throttling.is_null()).then_some(throttling),
            "{shape}"
        );
        if !info["retryable"].is_null() {
            assert!(code.retryable, "{shape} is modeled retryable");
        }
    }
}
