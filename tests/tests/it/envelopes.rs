//! `taxonomy!` on specs that declare another wire shape (`envelope:`):
//! google.rpc.Status, RFC 9457 problem details, a JSON-RPC error object, an
//! error object nested in a response with fields of its own (`in:
//! envelope`), and a GraphQL error whose code sits in an optional object.
//! The generated Rust reads a payload as its owner writes it, writes it back
//! byte for byte (as JSON values), builds the same shape from a constructor,
//! agrees with the published schema, and rejects a payload that lacks a
//! code's required context.

use serde_json::{Value, json};

mod google {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/google_rpc.yaml");
}

mod problem {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/rfc9457_rs.yaml");
}

mod jsonrpc {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/jsonrpc_rs.yaml");
}

mod outer {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/outer_fields_rs.yaml");
}

/// Parses `payload` as `T`, serializes it back and checks the JSON is the
/// same value (member order aside).
fn round_trip<T>(payload: &str) -> T
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    let typed: T = serde_json::from_str(payload)
        .unwrap_or_else(|e| panic!("the payload does not parse: {e}\n{payload}"));
    let back = serde_json::to_value(&typed).expect("serializes");
    let original: Value = serde_json::from_str(payload).expect("the payload is JSON");
    assert_eq!(back, original, "the round trip changed the payload");
    typed
}

/// `envelope` validates against the open schema of its taxonomy.
fn valid(schema: &str, envelope: &Value) {
    let schema: Value = serde_json::from_str(schema).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(envelope)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{envelope}\n{errors:#?}");
}

#[test]
fn google_rpc_status_round_trips_and_is_built_in_its_shape() {
    use google::{ErrorCode, ErrorEnvelope, ErrorInfo};
    let payload = r#"{"error": {"code": 404, "message": "not found", "status": "NOT_FOUND",
        "details": [{"reason": "BUCKET_MISSING", "domain": "storage.googleapis.com"}]}}"#;
    let envelope: ErrorEnvelope = round_trip(payload);
    assert_eq!(envelope.error.status, ErrorCode::NotFound);
    assert_eq!(envelope.error.details.as_ref().map(Vec::len), Some(1));
    // Optional context absent: not emitted.
    round_trip::<ErrorEnvelope>(
        r#"{"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}"#,
    );

    let built = ErrorEnvelope::internal(vec![ErrorInfo {
        reason: "INVARIANT".into(),
        domain: "example.com".into(),
    }])
    .build();
    let json = serde_json::to_value(&built).unwrap();
    assert_eq!(
        json,
        json!({"error": {"code": 500, "message": "internal error", "status": "INTERNAL",
            "details": [{"reason": "INVARIANT", "domain": "example.com"}]}})
    );
    valid(google::ENVELOPE_SCHEMA, &json);
    let minimal = serde_json::to_value(ErrorEnvelope::not_found().build()).unwrap();
    assert_eq!(
        minimal,
        json!({"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}})
    );
    valid(google::ENVELOPE_SCHEMA, &minimal);
}

#[test]
fn google_rpc_status_without_required_context_or_with_a_wrong_number_is_rejected() {
    use google::ErrorEnvelope;
    let missing = r#"{"error": {"code": 500, "message": "internal error", "status": "INTERNAL"}}"#;
    let err = serde_json::from_str::<ErrorEnvelope>(missing).unwrap_err();
    assert!(
        err.to_string()
            .contains("`INTERNAL` requires the context field `details`"),
        "{err}"
    );
    let wrong = r#"{"error": {"code": 400, "message": "not found", "status": "NOT_FOUND"}}"#;
    let err = serde_json::from_str::<ErrorEnvelope>(wrong).unwrap_err();
    assert!(err.to_string().contains("`code` is 400, not 404"), "{err}");
    // An unknown code is refused, as splice's own envelope refuses one.
    let unknown = r#"{"error": {"code": 409, "message": "x", "status": "ABORTED"}}"#;
    assert!(serde_json::from_str::<ErrorEnvelope>(unknown).is_err());
}

#[test]
fn rfc9457_problem_details_round_trip_flat() {
    use problem::{ErrorCode, ErrorEnvelope};
    // RFC 9457 section 3's example.
    let payload = r#"{
        "type": "https://example.com/probs/out-of-credit",
        "title": "You do not have enough credit.",
        "status": 403,
        "detail": "Your current balance is 30, but that costs 50.",
        "instance": "/account/12345/msgs/abc",
        "balance": 30,
        "accounts": ["/account/12345", "/account/67890"]
    }"#;
    let envelope: ErrorEnvelope = round_trip(payload);
    assert_eq!(envelope.r#type, ErrorCode::OutOfCredit);
    assert_eq!(envelope.balance, Some(30));

    let built = ErrorEnvelope::out_of_credit(30, 50)
        .instance("/account/12345/msgs/abc")
        .accounts(vec!["/account/12345".into(), "/account/67890".into()])
        .build();
    assert_eq!(
        serde_json::to_value(&built).unwrap(),
        serde_json::from_str::<Value>(payload).unwrap()
    );
    valid(
        problem::ENVELOPE_SCHEMA,
        &serde_json::to_value(&built).unwrap(),
    );

    // `status` is the code's constant (403): the schema's `const`, and here.
    let wrong = payload.replace("403", "429");
    let err = serde_json::from_str::<ErrorEnvelope>(&wrong).unwrap_err();
    assert!(
        err.to_string()
            .contains("`status` of `https://example.com/probs/out-of-credit` is 429, not 403"),
        "{err}"
    );

    let missing = r#"{"type": "https://example.com/probs/out-of-credit",
        "title": "You do not have enough credit.", "status": 403, "detail": "No credit."}"#;
    let err = serde_json::from_str::<ErrorEnvelope>(missing).unwrap_err();
    assert!(
        err.to_string().contains(
            "`https://example.com/probs/out-of-credit` requires the context field `balance`"
        ),
        "{err}"
    );
}

#[test]
fn jsonrpc_error_objects_are_told_apart_by_their_number() {
    use jsonrpc::{ErrorCode, ErrorEnvelope};
    // As MCP's Python SDK serializes `ErrorData` (`exclude_none`).
    let payload = r#"{"code": -32002, "message": "Resource not found",
        "data": {"uri": "file:///missing.txt"}}"#;
    let envelope: ErrorEnvelope = round_trip(payload);
    assert_eq!(envelope.code, ErrorCode::ResourceNotFound);
    assert_eq!(
        envelope.data.as_ref().and_then(|d| d.uri.as_deref()),
        Some("file:///missing.txt")
    );
    round_trip::<ErrorEnvelope>(r#"{"code": -32601, "message": "Method not found"}"#);

    let built = ErrorEnvelope::invalid_params()
        .detail("`uri` is missing")
        .build();
    let json = serde_json::to_value(&built).unwrap();
    assert_eq!(
        json,
        json!({"code": -32602, "message": "Invalid params", "data": {"detail": "`uri` is missing"}})
    );
    valid(jsonrpc::ENVELOPE_SCHEMA, &json);

    let missing = r#"{"code": -32002, "message": "Resource not found"}"#;
    let err = serde_json::from_str::<ErrorEnvelope>(missing).unwrap_err();
    assert!(
        err.to_string()
            .contains("`RESOURCE_NOT_FOUND` requires the context field `uri`"),
        "{err}"
    );
    let unknown = r#"{"code": -32099, "message": "Server error"}"#;
    let err = serde_json::from_str::<ErrorEnvelope>(unknown).unwrap_err();
    assert!(
        err.to_string().contains("unknown error code number -32099"),
        "{err}"
    );
}

/// The real taxonomies of `examples/real-taxonomies/`, each in its owner's
/// wire format.
mod real {
    pub mod google_rpc {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/google-rpc/errors.yaml");
    }
    pub mod problem_details {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/problem-details/errors.yaml");
    }
    pub mod jsonrpc_mcp {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/jsonrpc-mcp/errors.yaml");
    }
    pub mod botocore {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/botocore/errors.yaml");
    }
    pub mod dynamodb {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/dynamodb/errors.yaml");
    }
    pub mod kubernetes {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/kubernetes/errors.yaml");
    }
    pub mod oauth {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/oauth/errors.yaml");
    }
    pub mod odata {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/odata/errors.yaml");
    }
    pub mod stripe {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/stripe/errors.yaml");
    }
    pub mod graphql {
        splice_macros::taxonomy!("../../../examples/real-taxonomies/graphql/errors.yaml");
    }
}

/// Every payload of `taxonomy` (produced by its owner's library, see
/// `examples/real-taxonomies/payloads.py`): its file name and text.
fn real_payloads(taxonomy: &str) -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/real-taxonomies")
        .join(taxonomy)
        .join("payloads");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no payloads in {}", dir.display());
    out
}

/// Whether `part` is `whole` without some members of its objects.
fn within(part: &Value, whole: &Value) -> bool {
    match (part, whole) {
        (Value::Object(p), Value::Object(w)) => p
            .iter()
            .all(|(k, v)| w.get(k).is_some_and(|wv| within(v, wv))),
        _ => part == whole,
    }
}

/// Each real payload parses into the generated Rust type of its taxonomy
/// and serializes back to the same JSON, less the members its envelope
/// does not declare (`exact`: none); a payload that leaves its code name
/// out (`absent_means`) is written back without it.
fn real_round_trips<T>(taxonomy: &str, exact: bool) -> Vec<String>
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/real-taxonomies")
        .join(taxonomy)
        .join("errors.yaml");
    splice_codegen::load_path(&path).unwrap_or_else(|d| panic!("{}", d.render()));
    let mut failures = Vec::new();
    for (name, text) in real_payloads(taxonomy) {
        let original: Value = serde_json::from_str(&text).unwrap();
        match serde_json::from_str::<T>(&text) {
            Ok(typed) => {
                let back = serde_json::to_value(&typed).unwrap();
                if !within(&back, &original) || (exact && back != original) {
                    failures.push(format!(
                        "{taxonomy}/{name}: changed by the round trip:\n{back:#}"
                    ));
                }
            }
            Err(e) => failures.push(format!("{taxonomy}/{name}: does not parse: {e}")),
        }
    }
    failures
}

/// A real payload with a code's constant changed, as a wrong server would
/// send it, is refused as the schema and the TypeScript and Python types
/// refuse it: google.rpc's NOT_FOUND with the HTTP status of INTERNAL.
#[test]
fn a_real_payload_with_another_codes_constant_is_refused() {
    let mut payload = real_payload("google-rpc", "not-found-resource-info.json");
    assert_eq!(payload["error"]["code"], 404);
    payload["error"]["code"] = 500.into();
    let err = serde_json::from_value::<real::google_rpc::ErrorEnvelope>(payload).unwrap_err();
    assert!(
        err.to_string()
            .contains("`code` of `NOT_FOUND` is 500, not 404"),
        "{err}"
    );
}

#[test]
fn real_payloads_parse_with_the_generated_rust() {
    let mut failures = real_round_trips::<real::google_rpc::ErrorEnvelope>("google-rpc", true);
    failures.extend(real_round_trips::<real::problem_details::ErrorEnvelope>(
        "problem-details",
        true,
    ));
    failures.extend(real_round_trips::<real::jsonrpc_mcp::ErrorEnvelope>(
        "jsonrpc-mcp",
        true,
    ));
    // botocore's parsed response has `ResponseMetadata` beside `Error`,
    // declared as a field `in: envelope`: written back unchanged too.
    failures.extend(real_round_trips::<real::botocore::ErrorEnvelope>(
        "botocore", true,
    ));
    // DynamoDB's: the error shape's members beside `Error` too (`Item`, a
    // map of the recursive `AttributeValue`; `CancellationReasons`).
    failures.extend(real_round_trips::<real::dynamodb::ErrorEnvelope>(
        "dynamodb", true,
    ));
    // Kubernetes' Status: `"reason": ""` and no `reason` are both Unknown,
    // each written back as it came; `metadata: {}` stays.
    failures.extend(real_round_trips::<real::kubernetes::ErrorEnvelope>(
        "kubernetes",
        true,
    ));
    // OAuth's token errors, with and without `error_description` and
    // `error_uri`.
    failures.extend(real_round_trips::<real::oauth::ErrorEnvelope>(
        "oauth", true,
    ));
    // OData: `details` entries nest the same format, and the open
    // `innererror` keeps the members each service adds, at every depth.
    failures.extend(real_round_trips::<real::odata::ErrorEnvelope>(
        "odata", true,
    ));
    // Stripe: an error without `code` is its type's fallback, written back
    // without it; the embedded PaymentIntent (an open type) keeps all its
    // members.
    failures.extend(real_round_trips::<real::stripe::ErrorEnvelope>(
        "stripe", true,
    ));
    // GraphQL: the whole response, every error of `errors` and `data`
    // (null, absent, or the partial result) written back as it came.
    failures.extend(real_round_trips::<real::graphql::ErrorResponse>(
        "graphql", true,
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Kubernetes' `StatusReasonUnknown` is the empty string: the client sends
/// `"reason": ""`, the API server leaves the reason out, and both read as
/// `ErrorCode::Unknown` (also as `AnyErrorEnvelope`); a `null` reason is
/// neither, and is refused.
#[test]
fn a_kubernetes_status_without_a_reason_is_unknown() {
    use real::kubernetes::{AnyErrorEnvelope, ErrorCode, ErrorEnvelope};
    for name in ["unknown-empty-reason.json", "unknown-no-reason.json"] {
        let payload = real_payload("kubernetes", name);
        let env: ErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
        assert_eq!(ErrorCode::from(&env), ErrorCode::Unknown, "{name}");
        let any: AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
        assert_eq!(any.listed(), Some(&env), "{name}");
        assert_eq!(serde_json::to_value(&any).unwrap(), payload, "{name}");
    }
    assert_eq!(ErrorCode::Unknown.as_str(), "");
    let mut null = real_payload("kubernetes", "unknown-empty-reason.json");
    null["reason"] = Value::Null;
    assert!(serde_json::from_value::<ErrorEnvelope>(null).is_err());
}

/// DynamoDB's operations as Rust types: each lists the error shapes
/// botocore's model gives it, and a payload read as any envelope is an
/// error of the operation that raised it.
#[test]
fn dynamodb_operations_list_the_models_errors() {
    use real::dynamodb::operation::{self, Operation};
    use real::dynamodb::{ErrorCode, ErrorEnvelope};
    let put_item = <operation::PutItem as Operation>::CODES;
    assert!(put_item.contains(&ErrorCode::ConditionalCheckFailed));
    assert!(put_item.contains(&ErrorCode::ReplicatedWriteConflict));
    assert!(!put_item.contains(&ErrorCode::TableNotFound));
    assert_eq!(put_item.len(), 9, "{put_item:?}");
    assert!(<operation::DescribeEndpoints as Operation>::CODES.is_empty());
    let payload = real_payload("dynamodb", "put-item-condition-failed.json");
    let envelope: ErrorEnvelope = serde_json::from_value(payload).unwrap();
    assert_eq!(envelope.error.code, ErrorCode::ConditionalCheckFailed);
    assert!(put_item.contains(&envelope.error.code));
}

/// A required field `in: envelope` is a constructor argument, written in
/// the outermost object beside `error` (the top-level field stays inside
/// it); an optional one is set by the builder; an enum one selects a hint
/// like any other field; reading an envelope without the required one fails.
#[test]
fn fields_in_the_envelope_are_built_read_and_required() {
    use outer::{ErrorEnvelope, Level, Trace};
    let minimal = serde_json::to_value(ErrorEnvelope::not_found("r-1", "bucket").build()).unwrap();
    assert_eq!(
        minimal,
        json!({"error": {"code": "NOT_FOUND", "message": "bucket was not found",
            "hints": ["Check the name of the resource"], "resource": "bucket"},
            "request_id": "r-1"})
    );
    valid(outer::ENVELOPE_SCHEMA, &minimal);

    let full = ErrorEnvelope::not_found("r-1", "bucket")
        .trace(Trace {
            span_id: "s-9".into(),
        })
        .hint_level(Level::Full)
        .build();
    let json = serde_json::to_value(&full).unwrap();
    assert_eq!(json["trace"], json!({"spanId": "s-9"}));
    assert_eq!(json["hint_level"], json!("full"));
    assert_eq!(
        json["error"]["hints"],
        json!(["Check the name of the resource", "Ask for the full trace"])
    );
    valid(outer::ENVELOPE_SCHEMA, &json);
    assert_eq!(round_trip::<ErrorEnvelope>(&json.to_string()), full);

    let mut without = minimal.clone();
    without.as_object_mut().unwrap().remove("request_id");
    let err = serde_json::from_value::<ErrorEnvelope>(without.clone()).unwrap_err();
    assert!(err.to_string().contains("request_id"), "{err}");
    let schema: Value = serde_json::from_str(outer::ENVELOPE_SCHEMA).unwrap();
    assert!(
        !jsonschema::validator_for(&schema)
            .unwrap()
            .is_valid(&without)
    );
}

/// A field `in: envelope` (botocore's `ResponseMetadata`) is a field of
/// `ErrorEnvelope` itself, beside the nested `Error`: read from a real
/// payload, set by the builder, written beside `Error`, and valid against
/// the schema, which refuses it with a wrong type.
#[test]
fn a_field_in_the_envelope_lives_beside_the_code_object() {
    use real::botocore::{ErrorCode, ErrorEnvelope, ResponseMetadata};
    let payload = real_payload("botocore", "s3-slow-down.json");
    let read: ErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    assert_eq!(read.error.code, ErrorCode::SlowDown);
    let metadata = read
        .response_metadata
        .as_ref()
        .expect("ResponseMetadata is read");
    assert_eq!(metadata.http_status_code, 503);
    assert_eq!(metadata.request_id.as_deref(), Some("4442587FB7D0A2F9"));

    let built = ErrorEnvelope::slow_down("Please reduce your request rate.")
        .response_metadata(ResponseMetadata {
            request_id: Some("4442587FB7D0A2F9".into()),
            host_id: Some(String::new()),
            http_status_code: 503,
            http_headers: None,
            retry_attempts: None,
        })
        .build();
    assert_eq!(built, read);
    let json = serde_json::to_value(&built).unwrap();
    assert_eq!(json, payload);
    valid(real::botocore::ENVELOPE_SCHEMA, &json);

    let mut wrong = json.clone();
    wrong["ResponseMetadata"]["HTTPStatusCode"] = json!("503");
    assert!(serde_json::from_value::<ErrorEnvelope>(wrong.clone()).is_err());
    let schema: Value = serde_json::from_str(real::botocore::ENVELOPE_SCHEMA).unwrap();
    assert!(!jsonschema::validator_for(&schema).unwrap().is_valid(&wrong));
}

/// Read as `AnyErrorEnvelope` (what a client of this release should read
/// a received error as), every real payload is its listed code, exactly as
/// `ErrorEnvelope` reads it: the value is buffered, looked at and replayed
/// into the same checks.
#[test]
fn real_payloads_are_listed_when_read_as_any_envelope() {
    fn listed<T, L>(taxonomy: &str, is_listed: fn(&T) -> bool) -> Vec<String>
    where
        T: serde::de::DeserializeOwned + serde::Serialize,
        L: serde::de::DeserializeOwned + serde::Serialize,
    {
        let mut failures = real_round_trips::<T>(taxonomy, false);
        for (name, text) in real_payloads(taxonomy) {
            let any: T = serde_json::from_str(&text).unwrap();
            let direct: L = serde_json::from_str(&text).unwrap();
            if !is_listed(&any) {
                failures.push(format!("{taxonomy}/{name}: read as unlisted"));
            }
            if serde_json::to_value(&any).unwrap() != serde_json::to_value(&direct).unwrap() {
                failures.push(format!("{taxonomy}/{name}: differs from ErrorEnvelope"));
            }
        }
        failures
    }
    use real::{
        botocore as b, google_rpc as g, jsonrpc_mcp as j, kubernetes as k, oauth as o, odata as d,
        problem_details as p, stripe as s,
    };
    let mut failures =
        listed::<g::AnyErrorEnvelope, g::ErrorEnvelope>("google-rpc", |e| e.listed().is_some());
    failures.extend(listed::<p::AnyErrorEnvelope, p::ErrorEnvelope>(
        "problem-details",
        |e| e.listed().is_some(),
    ));
    failures.extend(listed::<j::AnyErrorEnvelope, j::ErrorEnvelope>(
        "jsonrpc-mcp",
        |e| e.listed().is_some(),
    ));
    failures.extend(listed::<b::AnyErrorEnvelope, b::ErrorEnvelope>(
        "botocore",
        |e| e.listed().is_some(),
    ));
    failures.extend(listed::<k::AnyErrorEnvelope, k::ErrorEnvelope>(
        "kubernetes",
        |e| e.listed().is_some(),
    ));
    failures.extend(listed::<o::AnyErrorEnvelope, o::ErrorEnvelope>(
        "oauth",
        |e| e.listed().is_some(),
    ));
    failures.extend(listed::<d::AnyErrorEnvelope, d::ErrorEnvelope>(
        "odata",
        |e| e.listed().is_some(),
    ));
    failures.extend(listed::<s::AnyErrorEnvelope, s::ErrorEnvelope>(
        "stripe",
        |e| e.listed().is_some(),
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every error of every real GraphQL response is its listed code, in order,
/// read through `ErrorResponse` as `ErrorEnvelope` reads it alone; a code
/// Apollo Server does not define is unlisted, the response still read; an
/// empty `errors` is refused.
#[test]
fn every_error_of_a_real_graphql_response_is_listed() {
    use real::graphql::{AnyErrorEnvelope, ErrorCode, ErrorEnvelope, ErrorResponse};
    let codes = |r: &ErrorResponse| -> Vec<Option<ErrorCode>> {
        r.errors()
            .iter()
            .map(|e| e.listed().map(ErrorCode::from))
            .collect()
    };
    for (name, text) in real_payloads("graphql") {
        let response: ErrorResponse = serde_json::from_str(&text).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        let alone: Vec<Option<ErrorCode>> = value["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                serde_json::from_value::<ErrorEnvelope>(e.clone())
                    .ok()
                    .as_ref()
                    .map(ErrorCode::from)
            })
            .collect();
        assert!(
            alone.iter().all(Option::is_some),
            "graphql/{name}: {alone:?}"
        );
        assert_eq!(codes(&response), alone, "graphql/{name}");
    }
    let two: ErrorResponse =
        serde_json::from_value(real_payload("graphql", "two-errors.json")).unwrap();
    assert_eq!(
        codes(&two),
        [
            Some(ErrorCode::Unauthenticated),
            Some(ErrorCode::BadUserInput)
        ]
    );
    let crash: ErrorResponse =
        serde_json::from_value(real_payload("graphql", "resolver-crash.json")).unwrap();
    assert_eq!(codes(&crash), [Some(ErrorCode::InternalServerError)]);
    let mut later = real_payload("graphql", "two-errors.json");
    later["errors"][0]["extensions"]["code"] = "DOWNSTREAM_SERVICE_ERROR".into();
    let response: ErrorResponse = serde_json::from_value(later.clone()).unwrap();
    assert!(matches!(
        response.errors()[0],
        AnyErrorEnvelope::Unlisted(_)
    ));
    assert_eq!(codes(&response)[1], Some(ErrorCode::BadUserInput));
    assert_eq!(serde_json::to_value(&response).unwrap(), later);
    let mut empty = real_payload("graphql", "forbidden.json");
    empty["errors"] = json!([]);
    assert!(serde_json::from_value::<ErrorResponse>(empty).is_err());
}

/// The real payload `name` of `taxonomy` as JSON.
fn real_payload(taxonomy: &str, name: &str) -> Value {
    let (_, text) = real_payloads(taxonomy)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{taxonomy}/{name}"));
    serde_json::from_str(&text).unwrap()
}

/// A code of a later release, in each real format, is read as unlisted
/// with the code as sent and the message (`ErrorEnvelope` refuses it): a
/// client built against this release keeps working against a newer server,
/// as the TypeScript and Python `AnyErrorEnvelope` do.
#[test]
fn a_later_code_in_each_real_format_is_read_as_unlisted() {
    // google.rpc: a status name this release does not list, with details.
    let mut payload = real_payload("google-rpc", "resource-exhausted-quota.json");
    payload["error"]["status"] = "SOMETHING_NEW".into();
    payload["error"]["code"] = 429.into();
    assert!(serde_json::from_value::<real::google_rpc::ErrorEnvelope>(payload.clone()).is_err());
    let any: real::google_rpc::AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    let message = payload["error"]["message"].as_str().unwrap();
    assert_eq!(any.message(), Some(message));
    let unlisted = any.clone().into_listed().unwrap_err();
    assert_eq!(unlisted.error.status, "SOMETHING_NEW");
    // What it keeps (the members) is written back as received; the fields
    // (the HTTP status in `code`, the details), which a later code may use
    // as this release cannot type them, are not kept.
    let back = serde_json::to_value(&any).unwrap();
    assert!(within(&back, &payload), "{back:#}");
    assert!(back["error"].get("details").is_none(), "{back:#}");
    assert!(back["error"].get("code").is_none(), "{back:#}");

    // RFC 9457: a problem type URI this release does not list.
    let mut payload = real_payload("problem-details", "out-of-credit.json");
    payload["type"] = "https://example.com/probs/new-kind".into();
    let any: real::problem_details::AnyErrorEnvelope =
        serde_json::from_value(payload.clone()).unwrap();
    assert!(any.listed().is_none());
    assert_eq!(
        any.message(),
        Some("Your current balance is 30, but that costs 50.")
    );
    assert_eq!(
        serde_json::to_value(&any).unwrap(),
        json!({"type": payload["type"], "detail": payload["detail"]})
    );

    // JSON-RPC: a number no release lists or reserves. The response's `id`
    // (a field `in: envelope`, the format's frame) is kept and written back;
    // one this release cannot type is dropped, not refused.
    let payload =
        json!({"jsonrpc": "2.0", "id": 9, "error": {"code": -31999, "message": "Something new"}});
    let any: real::jsonrpc_mcp::AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    let unlisted = any.clone().into_listed().unwrap_err();
    assert_eq!(unlisted.error.code, -31999);
    assert_eq!(unlisted.id, Some(real::jsonrpc_mcp::RequestId::Int64(9)));
    assert_eq!(any.message(), Some("Something new"));
    assert_eq!(serde_json::to_value(&any).unwrap(), payload);
    let mut null_id = payload.clone();
    null_id["id"] = serde_json::Value::Null;
    let any: real::jsonrpc_mcp::AnyErrorEnvelope = serde_json::from_value(null_id.clone()).unwrap();
    assert_eq!(
        serde_json::to_value(&any).unwrap(),
        null_id,
        "a null id stays null"
    );
    let mut odd_id = payload.clone();
    odd_id["id"] = json!({"not": "an id"});
    let any: real::jsonrpc_mcp::AnyErrorEnvelope = serde_json::from_value(odd_id).unwrap();
    assert_eq!(any.into_listed().unwrap_err().id, None);

    // botocore: an error code string of a later service model.
    let mut payload = real_payload("botocore", "s3-slow-down.json");
    payload["Error"]["Code"] = "BrandNewException".into();
    let any: real::botocore::AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    let unlisted = any.clone().into_listed().unwrap_err();
    assert_eq!(unlisted.error.code, "BrandNewException");
    assert_eq!(any.message(), Some("Please reduce your request rate."));
    // `ResponseMetadata` (`in: envelope`) frames every code's error: kept.
    let metadata = unlisted.response_metadata.expect("ResponseMetadata kept");
    assert_eq!(metadata.http_status_code, 503);
    assert_eq!(
        serde_json::to_value(&any).unwrap()["ResponseMetadata"],
        payload["ResponseMetadata"]
    );

    // Kubernetes: `StorageReadError`, the reason apimachinery v0.32.0 adds.
    let mut payload = real_payload("kubernetes", "unknown-empty-reason.json");
    payload["reason"] = "StorageReadError".into();
    assert!(serde_json::from_value::<real::kubernetes::ErrorEnvelope>(payload.clone()).is_err());
    let any: real::kubernetes::AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    let unlisted = any.clone().into_listed().unwrap_err();
    assert_eq!(unlisted.reason, "StorageReadError");
    assert_eq!(any.message(), Some("etcdserver: request timed out"));
    let back = serde_json::to_value(&any).unwrap();
    assert!(within(&back, &payload), "{back:#}");

    // OAuth: RFC 9449's `invalid_dpop_proof`, a token error the four RFCs
    // of this spec do not list.
    let mut payload = real_payload("oauth", "invalid-request.json");
    payload["error"] = "invalid_dpop_proof".into();
    assert!(serde_json::from_value::<real::oauth::ErrorEnvelope>(payload.clone()).is_err());
    let any: real::oauth::AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    assert_eq!(
        any.clone().into_listed().unwrap_err().error,
        "invalid_dpop_proof"
    );
    assert_eq!(any.message(), Some("Missing grant type parameter."));
    assert_eq!(serde_json::to_value(&any).unwrap(), payload);

    // Stripe: `setup_intent_mobile_wallet_unsupported`, a code stripe
    // 12.0.0 adds, under its type.
    let mut payload = real_payload("stripe", "parameter-missing.json");
    payload["error"]["code"] = "setup_intent_mobile_wallet_unsupported".into();
    assert!(serde_json::from_value::<real::stripe::ErrorEnvelope>(payload.clone()).is_err());
    let any: real::stripe::AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    let unlisted = any.clone().into_listed().unwrap_err();
    assert_eq!(
        unlisted.error.code,
        "setup_intent_mobile_wallet_unsupported"
    );
    assert_eq!(any.message(), Some("Missing required param: amount."));
    let back = serde_json::to_value(&any).unwrap();
    assert!(within(&back, &payload), "{back:#}");
}

/// Stripe's error without `code` is named by its `type`: each type that
/// occurs without one reads as its fallback code (also as
/// `AnyErrorEnvelope`), whatever HTTP status stripe-python raised it for; a
/// card error without `code`, or a code under another type, is refused.
#[test]
fn a_stripe_error_without_code_is_its_types_fallback() {
    use real::stripe::{AnyErrorEnvelope, ErrorCode, ErrorEnvelope};
    for (name, code) in [
        ("api-error.json", ErrorCode::ApiError),
        ("idempotency-error.json", ErrorCode::IdempotencyError),
        ("invalid-api-key.json", ErrorCode::InvalidRequest),
        ("permission-error.json", ErrorCode::InvalidRequest),
        ("card-declined.json", ErrorCode::CardDeclined),
    ] {
        let payload = real_payload("stripe", name);
        let env: ErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
        assert_eq!(ErrorCode::from(&env), code, "{name}");
        let any: AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
        assert_eq!(any.listed(), Some(&env), "{name}");
        assert_eq!(serde_json::to_value(&any).unwrap(), payload, "{name}");
    }
    let mut no_code = real_payload("stripe", "card-declined.json");
    no_code["error"].as_object_mut().unwrap().remove("code");
    assert!(serde_json::from_value::<ErrorEnvelope>(no_code.clone()).is_err());
    assert!(serde_json::from_value::<AnyErrorEnvelope>(no_code).is_err());
    let mut other_type = real_payload("stripe", "card-declined.json");
    other_type["error"]["type"] = "invalid_request_error".into();
    assert!(serde_json::from_value::<ErrorEnvelope>(other_type).is_err());
}

/// JSON-RPC's `id` is a number, a string or `null` (a `one_of` type): each
/// is read as the value sent, `null` included (not as an absent id), and
/// written back as sent; a value of another JSON type is refused.
#[test]
fn a_jsonrpc_id_keeps_its_json_type() {
    use real::jsonrpc_mcp::{ErrorEnvelope, RequestId};
    for (name, id) in [
        ("header-mismatch.json", RequestId::String("req-7".into())),
        ("method-not-found.json", RequestId::Int64(6)),
        ("invalid-request-body.json", RequestId::Null),
    ] {
        let payload = real_payload("jsonrpc-mcp", name);
        let env: ErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
        assert_eq!(env.id, Some(id), "{name}");
        assert_eq!(serde_json::to_value(&env).unwrap(), payload, "{name}");
    }
    let mut payload = real_payload("jsonrpc-mcp", "method-not-found.json");
    payload["id"] = true.into();
    assert!(serde_json::from_value::<ErrorEnvelope>(payload).is_err());
}

/// A listed code read as `AnyErrorEnvelope` is checked as `ErrorEnvelope`
/// checks it, with the same precise error; a number reserved in the spec is
/// refused even though no release lists it, as the schema refuses it.
#[test]
fn any_envelope_keeps_the_listed_checks_and_refuses_reserved_numbers() {
    let mut payload = real_payload("google-rpc", "not-found-resource-info.json");
    payload["error"]["code"] = 500.into();
    let direct =
        serde_json::from_value::<real::google_rpc::ErrorEnvelope>(payload.clone()).unwrap_err();
    let any = serde_json::from_value::<real::google_rpc::AnyErrorEnvelope>(payload).unwrap_err();
    assert_eq!(any.to_string(), direct.to_string());
    assert!(any.to_string().contains("is 500, not 404"), "{any}");

    // A listed code without its required `data` (MCP's
    // UrlElicitationRequired carries its elicitations).
    let mut payload = real_payload("jsonrpc-mcp", "url-elicitation-required.json");
    payload["error"].as_object_mut().unwrap().remove("data");
    let direct =
        serde_json::from_value::<real::jsonrpc_mcp::ErrorEnvelope>(payload.clone()).unwrap_err();
    let any = serde_json::from_value::<real::jsonrpc_mcp::AnyErrorEnvelope>(payload).unwrap_err();
    assert_eq!(any.to_string(), direct.to_string());

    // -32002 was MCP's "resource not found", retired and reserved.
    let err = serde_json::from_value::<real::jsonrpc_mcp::AnyErrorEnvelope>(
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32002, "message": "Resource not found"}}),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("`code` is -32002, a number no release may send"),
        "{err}"
    );
}

/// RFC 9457 3.1.1: a problem without `type` is `about:blank`. The spec says
/// so (`absent_means: ABOUT_BLANK`), and the Rust types read it so, through
/// `AnyErrorEnvelope` too, and write it back as it came, without `type`; a
/// constructed one spells its code out, which means the same.
#[test]
fn a_problem_without_type_is_about_blank() {
    use real::problem_details::{AnyErrorEnvelope, ErrorCode, ErrorEnvelope};
    let payload = real_payload("problem-details", "no-type.json");
    assert!(payload.get("type").is_none());
    let env: ErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    assert_eq!(ErrorCode::from(&env), ErrorCode::AboutBlank);
    assert_eq!(env.r#type, None);
    assert_eq!(serde_json::to_value(&env).unwrap(), payload);
    let any: AnyErrorEnvelope = serde_json::from_value(payload.clone()).unwrap();
    assert_eq!(any.listed(), Some(&env));
    // `null` is not an absent `type`: the schema refuses it, and so do the
    // Rust types.
    let mut null = payload;
    null["type"] = Value::Null;
    assert!(serde_json::from_value::<ErrorEnvelope>(null).is_err());
}

mod graphql {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/graphql.yaml");
}

/// The titles of the variants of `schema` (the published one) that accept
/// `payload`: exactly one for a valid envelope.
fn variants_accepting(schema: &str, payload: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(schema).expect("the schema is JSON");
    let refs: Vec<String> = schema["oneOf"]
        .as_array()
        .expect("a oneOf of variants")
        .iter()
        .map(|r| r["$ref"].as_str().expect("a $ref").to_owned())
        .collect();
    refs.into_iter()
        .filter(|r| {
            let mut one = schema.clone();
            one["oneOf"] = json!([{ "$ref": r }]);
            jsonschema::validator_for(&one)
                .expect("the schema compiles")
                .is_valid(payload)
        })
        .map(|r| r.trim_start_matches("#/$defs/").to_owned())
        .collect()
}

/// GraphQL's `extensions` is optional, and Apollo reads an error without
/// `extensions.code` as INTERNAL_SERVER_ERROR (`absent_means`): the errors
/// graphql-core writes without it are that code in the schema (exactly one
/// variant) and in the Rust types, which write them back unchanged; one
/// with a code is that code; a code of a later release is unlisted.
#[test]
fn a_graphql_error_without_extensions_is_an_internal_server_error() {
    use graphql::{AnyErrorEnvelope, ErrorCode, ErrorEnvelope};
    for (payload, code, variant) in [
        (
            r#"{"message": "Cannot query field 'nope' on type 'Query'.", "locations": [{"line": 1, "column": 3}]}"#,
            ErrorCode::InternalServerError,
            "InternalServerErrorEnvelope",
        ),
        (
            r#"{"message": "boom", "locations": [{"line": 1, "column": 3}], "path": ["hero", 0, "name"]}"#,
            ErrorCode::InternalServerError,
            "InternalServerErrorEnvelope",
        ),
        (
            r#"{"message": "no code", "extensions": {}}"#,
            ErrorCode::InternalServerError,
            "InternalServerErrorEnvelope",
        ),
        (
            r#"{"message": "bad input", "extensions": {"code": "BAD_USER_INPUT", "argumentName": "id"}}"#,
            ErrorCode::BadUserInput,
            "BadUserInputEnvelope",
        ),
    ] {
        let envelope: ErrorEnvelope = round_trip(payload);
        assert_eq!(ErrorCode::from(&envelope), code, "{payload}");
        let value: Value = serde_json::from_str(payload).unwrap();
        assert_eq!(
            variants_accepting(graphql::ENVELOPE_SCHEMA, &value),
            [variant],
            "{payload}"
        );
        let any: AnyErrorEnvelope = serde_json::from_str(payload).unwrap();
        assert_eq!(any.listed(), Some(&envelope));
    }

    let later = r#"{"message": "gone", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}"#;
    let any: AnyErrorEnvelope = serde_json::from_str(later).unwrap();
    assert!(any.listed().is_none(), "{any:?}");
    assert_eq!(any.message(), Some("gone"));
    assert_eq!(
        variants_accepting(
            graphql::ENVELOPE_SCHEMA,
            &serde_json::from_str(later).unwrap()
        ),
        ["UnlistedCodeEnvelope"]
    );

    // BAD_USER_INPUT requires `argumentName`, so its `extensions` too.
    for refused in [
        r#"{"message": "x", "extensions": {"code": "BAD_USER_INPUT"}}"#,
        r#"{"message": "x", "extensions": {"code": null}}"#,
    ] {
        assert!(
            serde_json::from_str::<ErrorEnvelope>(refused).is_err(),
            "{refused}"
        );
        assert!(
            variants_accepting(
                graphql::ENVELOPE_SCHEMA,
                &serde_json::from_str(refused).unwrap()
            )
            .is_empty(),
            "{refused}"
        );
    }

    // Constructed envelopes spell their code out; what the builder sets
    // lands in `extensions`.
    let built = serde_json::to_value(
        ErrorEnvelope::internal_server_error("boom")
            .stacktrace(vec!["at resolve".into()])
            .path(vec![graphql::PathSegment::String("hero".into())])
            .build(),
    )
    .unwrap();
    assert_eq!(
        built,
        json!({"message": "boom", "extensions": {"code": "INTERNAL_SERVER_ERROR",
            "stacktrace": ["at resolve"]}, "path": ["hero"]})
    );
    assert_eq!(
        variants_accepting(graphql::ENVELOPE_SCHEMA, &built),
        ["InternalServerErrorEnvelope"]
    );
    let built =
        serde_json::to_value(ErrorEnvelope::bad_user_input("id", "bad id").build()).unwrap();
    assert_eq!(
        built,
        json!({"message": "bad id", "extensions": {"code": "BAD_USER_INPUT", "argumentName": "id"}})
    );
}

mod stripe {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/stripe.yaml");
}

/// Stripe's errors name their category in `type`, and some have no `code`:
/// then `type` alone names the error (`absent_means` per category). The
/// schema reads each payload as exactly one variant, the Rust types as the
/// same code and write it back unchanged; an error without `code` whose
/// category names no code (a `card_error`) is refused by both.
#[test]
fn a_stripe_error_without_code_is_its_categorys_code() {
    use stripe::{AnyErrorEnvelope, ErrorCode, ErrorEnvelope};
    for (payload, code, variant) in [
        (
            r#"{"error": {"type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds", "message": "Your card has insufficient funds."}}"#,
            ErrorCode::CardDeclined,
            "CardDeclinedEnvelope",
        ),
        (
            r#"{"error": {"type": "api_error", "message": "Something went wrong on Stripe's end."}}"#,
            ErrorCode::ApiError,
            "ApiErrorEnvelope",
        ),
        (
            r#"{"error": {"type": "invalid_request_error", "message": "Unrecognized request URL (GET: /v1/nope)."}}"#,
            ErrorCode::InvalidRequest,
            "InvalidRequestEnvelope",
        ),
        (
            r#"{"error": {"type": "idempotency_error", "message": "Keys for idempotent requests can only be used with the same parameters."}}"#,
            ErrorCode::IdempotencyError,
            "IdempotencyErrorEnvelope",
        ),
        (
            r#"{"error": {"type": "invalid_request_error", "code": "parameter_missing", "param": "amount"}}"#,
            ErrorCode::ParameterMissing,
            "ParameterMissingEnvelope",
        ),
    ] {
        let envelope: ErrorEnvelope = round_trip(payload);
        assert_eq!(ErrorCode::from(&envelope), code, "{payload}");
        let value: Value = serde_json::from_str(payload).unwrap();
        assert_eq!(
            variants_accepting(stripe::ENVELOPE_SCHEMA, &value),
            [variant],
            "{payload}"
        );
        let any: AnyErrorEnvelope = serde_json::from_str(payload).unwrap();
        assert_eq!(any.listed(), Some(&envelope));
    }

    let later = r#"{"error": {"type": "invalid_request_error", "code": "resource_missing"}}"#;
    let any: AnyErrorEnvelope = serde_json::from_str(later).unwrap();
    assert!(any.listed().is_none(), "{any:?}");
    assert_eq!(
        variants_accepting(
            stripe::ENVELOPE_SCHEMA,
            &serde_json::from_str(later).unwrap()
        ),
        ["UnlistedCodeEnvelope"]
    );

    for refused in [
        // A card error always has a code.
        r#"{"error": {"type": "card_error", "message": "Your card was declined."}}"#,
        // The fallback code of another category.
        r#"{"error": {"type": "card_error", "code": "api_error"}}"#,
        r#"{"error": {"type": "api_error", "code": null}}"#,
    ] {
        let error = serde_json::from_str::<ErrorEnvelope>(refused).unwrap_err();
        assert!(
            serde_json::from_str::<AnyErrorEnvelope>(refused).is_err(),
            "{refused}"
        );
        assert!(
            variants_accepting(
                stripe::ENVELOPE_SCHEMA,
                &serde_json::from_str(refused).unwrap()
            )
            .is_empty(),
            "{refused}: {error}"
        );
    }
    let error = serde_json::from_str::<ErrorEnvelope>(
        r#"{"error": {"type": "card_error", "message": "Your card was declined."}}"#,
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("`error.code` is absent"),
        "{error}"
    );

    // A constructed fallback envelope spells its code out.
    let built = serde_json::to_value(ErrorEnvelope::api_error("boom").build()).unwrap();
    assert_eq!(
        built,
        json!({"error": {"type": "api_error", "code": "api_error", "message": "boom"}})
    );
}

mod stripe_pairs {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/stripe_pairs.yaml");
}

/// Codes unique only within their category (`code_names: per_category`):
/// `expired` is a card error's code and an invalid request's, and an alias
/// of the one is the other category's name. The pair (`type`, `code`) tells
/// the code: the schema reads each payload as exactly one variant, the Rust
/// types as the same code, written back unchanged; a listed name in a
/// category that does not list it is unlisted, in both.
#[test]
fn a_code_is_told_by_its_category_and_name() {
    use stripe_pairs::{AnyErrorEnvelope, ErrorCode, ErrorEnvelope};
    for (payload, code, variant) in [
        (
            r#"{"error": {"type": "card_error", "code": "expired", "message": "Your card has expired."}}"#,
            ErrorCode::ExpiredCard,
            "ExpiredCardEnvelope",
        ),
        (
            r#"{"error": {"type": "invalid_request_error", "code": "expired", "message": "The key has expired."}}"#,
            ErrorCode::ExpiredKey,
            "ExpiredKeyEnvelope",
        ),
        (
            r#"{"error": {"type": "card_error", "code": "card_declined"}}"#,
            ErrorCode::CardDeclined,
            "CardDeclinedEnvelope",
        ),
        (
            r#"{"error": {"type": "api_error", "message": "Something went wrong on Stripe's end."}}"#,
            ErrorCode::ApiError,
            "ApiErrorEnvelope",
        ),
    ] {
        let envelope: ErrorEnvelope = round_trip(payload);
        assert_eq!(ErrorCode::from(&envelope), code, "{payload}");
        let value: Value = serde_json::from_str(payload).unwrap();
        assert_eq!(
            variants_accepting(stripe_pairs::ENVELOPE_SCHEMA, &value),
            [variant],
            "{payload}"
        );
        let any: AnyErrorEnvelope = serde_json::from_str(payload).unwrap();
        assert_eq!(any.listed(), Some(&envelope), "{payload}");
    }
    // An alias is read as its code within its category (and written back
    // as the code's name): `card_declined` is a card error's name and an
    // invalid request's alias.
    for (payload, code, variant) in [
        (
            r#"{"error": {"type": "card_error", "code": "expired_card"}}"#,
            ErrorCode::ExpiredCard,
            "ExpiredCardEnvelope",
        ),
        (
            r#"{"error": {"type": "invalid_request_error", "code": "card_declined", "param": "key"}}"#,
            ErrorCode::ExpiredKey,
            "ExpiredKeyEnvelope",
        ),
    ] {
        let envelope: ErrorEnvelope = serde_json::from_str(payload).unwrap();
        assert_eq!(ErrorCode::from(&envelope), code, "{payload}");
        let written = serde_json::to_value(&envelope).unwrap();
        assert_eq!(written["error"]["code"], "expired", "{payload}");
        let value: Value = serde_json::from_str(payload).unwrap();
        assert_eq!(
            variants_accepting(stripe_pairs::ENVELOPE_SCHEMA, &value),
            [variant],
            "{payload}"
        );
    }
    assert_eq!(
        ErrorCode::from_category_and_name("invalid_request_error", "card_declined"),
        Some(ErrorCode::ExpiredKey)
    );
    assert_eq!(
        ErrorCode::from_category_and_name("api_error", "expired"),
        None
    );
    // The Rust schema of `ErrorCode` lists the shared name once.
    let schema = serde_json::to_value(schemars::schema_for!(ErrorCode)).unwrap();
    let names = schema["enum"].as_array().unwrap();
    assert_eq!(
        names.iter().filter(|n| *n == "expired").count(),
        1,
        "{schema}"
    );

    // A listed name in a category that does not list it, or in a category
    // of a later release: unlisted.
    for later in [
        r#"{"error": {"type": "api_error", "code": "expired"}}"#,
        r#"{"error": {"type": "card_error", "code": "parameter_missing"}}"#,
        r#"{"error": {"type": "fraud_error", "code": "expired"}}"#,
    ] {
        let any: AnyErrorEnvelope = serde_json::from_str(later).unwrap();
        assert!(any.listed().is_none(), "{later}: {any:?}");
        assert_eq!(
            serde_json::to_value(&any).unwrap(),
            serde_json::from_str::<Value>(later).unwrap()
        );
        assert!(
            serde_json::from_str::<ErrorEnvelope>(later).is_err(),
            "{later}"
        );
        assert_eq!(
            variants_accepting(
                stripe_pairs::ENVELOPE_SCHEMA,
                &serde_json::from_str(later).unwrap()
            ),
            ["UnlistedCodeEnvelope"],
            "{later}"
        );
    }

    // Each constructor writes its own pair.
    let built = serde_json::to_value(ErrorEnvelope::expired_key("gone").build()).unwrap();
    assert_eq!(
        built,
        json!({"error": {"type": "invalid_request_error", "code": "expired", "message": "gone"}})
    );
    let built = serde_json::to_value(ErrorEnvelope::expired_card("gone").build()).unwrap();
    assert_eq!(
        built,
        json!({"error": {"type": "card_error", "code": "expired", "message": "gone"}})
    );
}

mod odata {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/odata.yaml");
}

/// The Microsoft REST API guidelines' `innererror` (an open type): the
/// guidelines' own example, as azure-core's `ODataV4Format` reads it, is
/// `BAD_ARGUMENT` in the schema (exactly one variant) and in the Rust
/// types, which keep the members `InnerError` does not list at every depth
/// and write them back unchanged. A listed member of the wrong type is
/// still refused.
#[test]
fn an_open_type_keeps_the_members_it_does_not_list() {
    use odata::{ErrorCode, ErrorEnvelope};
    let payload = include_str!("../../../codegen/tests/fixtures/envelopes/odata-innererror.json");
    let envelope: ErrorEnvelope = round_trip(payload);
    assert_eq!(ErrorCode::from(&envelope), ErrorCode::BadArgument);
    let value: Value = serde_json::from_str(payload).unwrap();
    assert_eq!(
        variants_accepting(odata::ENVELOPE_SCHEMA, &value),
        ["BadArgumentEnvelope"]
    );
    let outer = envelope.error.innererror.as_ref().expect("innererror");
    assert_eq!(outer.code.as_deref(), Some("PasswordError"));
    assert!(outer.other_members.is_empty(), "{outer:?}");
    let policy = outer.innererror.as_deref().expect("nested innererror");
    assert_eq!(policy.code.as_deref(), Some("PasswordDoesNotMeetPolicy"));
    assert_eq!(
        policy.other_members.keys().collect::<Vec<_>>(),
        [
            "minLength",
            "maxLength",
            "characterTypes",
            "minDistinctCharacterTypes"
        ]
    );
    assert_eq!(policy.other_members["characterTypes"][3], "symbol");
    assert_eq!(
        policy.innererror.as_deref().and_then(|i| i.code.as_deref()),
        Some("PasswordReuseNotAllowed")
    );

    let wrong = value
        .to_string()
        .replace(r#""code":"PasswordError""#, r#""code":7"#);
    assert_ne!(wrong, value.to_string());
    assert!(
        serde_json::from_str::<ErrorEnvelope>(&wrong).is_err(),
        "{wrong}"
    );
    assert!(
        variants_accepting(
            odata::ENVELOPE_SCHEMA,
            &serde_json::from_str(&wrong).unwrap()
        )
        .is_empty(),
        "{wrong}"
    );
}

mod jsonrpc_data {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/jsonrpc_data.yaml");
}

/// JSON-RPC's `data` is any JSON value (`json`): an object, a string, a
/// number, `null` sent (kept as `null`, not read as absent) or no `data`
/// at all; each is its code's variant in the schema and written back
/// unchanged by the Rust types, and a member of type `json` in a declared
/// object keeps its value too.
#[test]
fn a_json_value_is_kept_as_sent() {
    use jsonrpc_data::{ErrorCode, ErrorEnvelope};
    for (payload, code, variant) in [
        (
            r#"{"code": -32602, "message": "Invalid params", "data": {"expected": ["string", null], "got": 3}}"#,
            ErrorCode::InvalidParams,
            "InvalidParamsEnvelope",
        ),
        (
            r#"{"code": -32602, "message": "Invalid params", "data": null}"#,
            ErrorCode::InvalidParams,
            "InvalidParamsEnvelope",
        ),
        (
            r#"{"code": -32602, "message": "Invalid params"}"#,
            ErrorCode::InvalidParams,
            "InvalidParamsEnvelope",
        ),
        (
            r#"{"code": -32602, "message": "Invalid params", "params": [{"name": "n", "value": [1, {"a": null}]}, {"name": "m", "value": null}]}"#,
            ErrorCode::InvalidParams,
            "InvalidParamsEnvelope",
        ),
        (
            r#"{"code": -32603, "message": "Internal error", "data": "boom"}"#,
            ErrorCode::InternalError,
            "InternalErrorEnvelope",
        ),
        (
            r#"{"code": -32603, "message": "Internal error", "data": null}"#,
            ErrorCode::InternalError,
            "InternalErrorEnvelope",
        ),
    ] {
        let envelope: ErrorEnvelope = round_trip(payload);
        assert_eq!(ErrorCode::from(&envelope), code, "{payload}");
        let value: Value = serde_json::from_str(payload).unwrap();
        assert_eq!(
            variants_accepting(jsonrpc_data::ENVELOPE_SCHEMA, &value),
            [variant],
            "{payload}"
        );
    }
    // INTERNAL_ERROR requires `data`; `null` is a value, absence is not.
    let absent = r#"{"code": -32603, "message": "Internal error"}"#;
    assert!(serde_json::from_str::<ErrorEnvelope>(absent).is_err());
    assert!(
        variants_accepting(
            jsonrpc_data::ENVELOPE_SCHEMA,
            &serde_json::from_str(absent).unwrap()
        )
        .is_empty()
    );
}

mod unions {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/unions.yaml");
}

/// A `one_of` of any types: FastAPI's `detail` is a string in one error
/// and a list of pydantic's objects in another, and `notes` entries are
/// strings, objects or `null`. Each payload is its code's one variant in
/// the schema, and the Rust untagged enums read it as the right member and
/// write it back unchanged; a value of no member's JSON type is refused by
/// both.
#[test]
fn a_one_of_of_any_types_is_read_by_its_json_type() {
    use unions::{Detail, Entry, ErrorCode, ErrorEnvelope, Location};
    let not_found = r#"{"code": "NOT_FOUND", "detail": "Not Found",
        "notes": ["see the docs", {"text": "API", "href": "https://example.com/api"}, null]}"#;
    let invalid = r#"{"code": "VALIDATION_FAILED", "detail": [{"loc": ["body", 0, "name"],
        "msg": "Field required", "type": "missing"}]}"#;
    for (payload, code, variant) in [
        (not_found, ErrorCode::NotFound, "NotFoundEnvelope"),
        (
            invalid,
            ErrorCode::ValidationFailed,
            "ValidationFailedEnvelope",
        ),
    ] {
        let envelope: ErrorEnvelope = round_trip(payload);
        assert_eq!(ErrorCode::from(&envelope), code, "{payload}");
        let value: Value = serde_json::from_str(payload).unwrap();
        assert_eq!(
            variants_accepting(unions::ENVELOPE_SCHEMA, &value),
            [variant],
            "{payload}"
        );
    }
    let envelope: ErrorEnvelope = serde_json::from_str(not_found).unwrap();
    assert_eq!(envelope.detail, Some(Detail::String("Not Found".into())));
    let notes = envelope.notes.expect("notes");
    assert!(matches!(&notes[0], Entry::String(s) if s == "see the docs"));
    assert!(matches!(&notes[1], Entry::Note(n) if n.text == "API"));
    assert!(matches!(notes[2], Entry::Null));
    let envelope: ErrorEnvelope = serde_json::from_str(invalid).unwrap();
    let Some(Detail::List(errors)) = envelope.detail else {
        panic!("{envelope:?}")
    };
    assert_eq!(
        errors[0].loc,
        [
            Location::String("body".into()),
            Location::Int64(0),
            Location::String("name".into())
        ]
    );

    for refused in [
        r#"{"code": "NOT_FOUND", "detail": 3}"#,
        r#"{"code": "NOT_FOUND", "detail": {"msg": "an object"}}"#,
        r#"{"code": "VALIDATION_FAILED", "detail": [{"loc": [true], "msg": "m", "type": "t"}]}"#,
        r#"{"code": "NOT_FOUND", "detail": "x", "notes": [3]}"#,
    ] {
        assert!(
            serde_json::from_str::<ErrorEnvelope>(refused).is_err(),
            "{refused}"
        );
        assert!(
            variants_accepting(
                unions::ENVELOPE_SCHEMA,
                &serde_json::from_str(refused).unwrap()
            )
            .is_empty(),
            "{refused}"
        );
    }
}

mod graphql_response {
    splice_macros::taxonomy!("../../../codegen/tests/fixtures/envelopes/graphql_response.yaml");
}

/// A GraphQL response (`errors`, a list of envelopes, beside `data`):
/// `ErrorResponse` reads each entry as its code (an error without
/// `extensions` as INTERNAL_SERVER_ERROR, a later code as unlisted), keeps
/// `data` as sent (`null` stays `null`, absent stays absent) and writes the
/// response back unchanged; an empty `errors`, a response without it, and
/// an entry its code refuses are refused.
#[test]
fn a_graphql_response_reads_every_error_and_writes_it_back() {
    use graphql_response::{AnyErrorEnvelope, ErrorCode, ErrorResponse};
    let text = r#"{"errors": [
        {"message": "boom", "locations": [{"line": 1, "column": 3}], "path": ["hero", 0, "name"]},
        {"message": "bad input", "extensions": {"code": "BAD_USER_INPUT", "argumentName": "id"}},
        {"message": "later", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}
    ], "data": null}"#;
    let response: ErrorResponse = round_trip(text);
    let codes: Vec<Option<ErrorCode>> = response
        .errors()
        .iter()
        .map(|e| e.listed().map(ErrorCode::from))
        .collect();
    assert_eq!(
        codes,
        [
            Some(ErrorCode::InternalServerError),
            Some(ErrorCode::BadUserInput),
            None
        ]
    );
    assert!(matches!(
        response.errors()[2],
        AnyErrorEnvelope::Unlisted(_)
    ));
    assert_eq!(response.data, Some(Value::Null));
    let without_data: ErrorResponse = round_trip(r#"{"errors": [{"message": "boom"}]}"#);
    assert_eq!(without_data.data, None);
    let with_data: ErrorResponse =
        round_trip(r#"{"errors": [{"message": "boom"}], "data": {"hero": {"name": null}}}"#);
    assert_eq!(with_data.data, Some(json!({"hero": {"name": null}})));
    for refused in [
        r#"{"errors": [], "data": null}"#,
        r#"{"data": {"hero": null}}"#,
        r#"{"errors": [{"message": "x", "extensions": {"code": "BAD_USER_INPUT"}}]}"#,
        r#"{"errors": {"message": "x"}}"#,
    ] {
        assert!(
            serde_json::from_str::<ErrorResponse>(refused).is_err(),
            "accepted {refused}"
        );
        assert!(
            !jsonschema::validator_for(
                &serde_json::from_str(graphql_response::ENVELOPE_SCHEMA).unwrap()
            )
            .unwrap()
            .is_valid(&serde_json::from_str(refused).unwrap()),
            "the schema accepts {refused}"
        );
    }
    valid(
        graphql_response::ENVELOPE_SCHEMA,
        &serde_json::from_str(text).unwrap(),
    );
}
