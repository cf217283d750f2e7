// The constructs of issue #24 §2 and §3 (codegen/tests/fixtures/constructs.yaml)
// expand to code that compiles, serializes with the names on the wire and
// reads them back.

#![deny(warnings)]

splice_macros::taxonomy!("../../../../codegen/tests/fixtures/constructs.yaml");

fn main() {
    let envelope = ErrorEnvelope::throttled(
        "2s",
        vec![Detail {
            type_url: "type.googleapis.com/google.rpc.ErrorInfo".into(),
            reason: Reason::RateLimited,
            kind: Some("k".into()),
            count: -3,
            total: None,
            ratio: Some(0.5),
            metadata: [("service".to_owned(), "pubsub.googleapis.com".to_owned())].into(),
            link: None,
        }],
    )
    .reason(Reason::ApiDisabled)
    .quotas([("requests".to_owned(), -1_i64)].into())
    .status_details(vec![
        StatusDetail::RetryInfo(RetryInfo { retry_delay: "2s".into() }),
        StatusDetail::ErrorInfo(ErrorInfo { reason: "R".into(), metadata: None }),
    ])
    .build();
    assert_eq!(envelope.message, "throttled; retry after 2s");
    assert_eq!(envelope.recovery_hints.len(), 2);
    let json = serde_json::to_value(&envelope).unwrap();
    assert_eq!(json["error_code"], "ThrottlingException");
    assert_eq!(json["type"], "https://example.com/problems/throttled");
    assert_eq!(json["status"], "RESOURCE_EXHAUSTED");
    assert_eq!(
        ErrorEnvelope::unavailable().build().grpc_status,
        Some(GrpcStatus::Unavailable)
    );
    assert_eq!(json["context"]["retryDelay"], "2s");
    assert_eq!(json["context"]["reason"], "API_DISABLED");
    let detail = &json["error-details"][0];
    assert_eq!(detail["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(detail["reason"], "RATE_LIMITED");
    assert_eq!(detail["type"], "k");
    assert_eq!(detail["count"], -3);
    assert!(detail["total"].is_null(), "a required nullable member is sent as null");
    assert_eq!(detail["ratio"], 0.5);
    assert_eq!(detail["metadata"]["service"], "pubsub.googleapis.com");
    assert_eq!(json["context"]["quotas"]["requests"], -1);
    let details = &json["context"]["details"];
    assert_eq!(details[0]["@type"], "type.googleapis.com/google.rpc.RetryInfo");
    assert_eq!(details[0]["retryDelay"], "2s");
    assert_eq!(details[1]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(details[1]["reason"], "R");
    let back: ErrorEnvelope = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, envelope);
    let mut aliased = json;
    aliased["error_code"] = "RequestLimitExceeded".into();
    let back: ErrorEnvelope = serde_json::from_value(aliased).unwrap();
    assert_eq!(back.error_code, ErrorCode::Throttled);
    assert_eq!("Throttling".parse::<ErrorCode>(), Ok(ErrorCode::Throttled));
    assert_eq!("ThrottlingException".parse::<ErrorCode>(), Ok(ErrorCode::Throttled));
    assert_eq!(ErrorCode::Throttled.as_str(), "ThrottlingException");

    // A union of scalars (`one_of: [int64, string, "null"]`): each value
    // keeps its JSON type, and a `null` sent is the value `Null`, written
    // back as `null`, while an absent id stays absent.
    for (id, wire) in [
        (RequestId::Int64(-7), serde_json::json!(-7)),
        (RequestId::String("r-1".into()), serde_json::json!("r-1")),
        (RequestId::Null, serde_json::Value::Null),
    ] {
        let envelope = ErrorEnvelope::throttled("2s", Vec::new()).request_id(id.clone()).build();
        let json = serde_json::to_value(&envelope).unwrap();
        assert_eq!(json["requestId"], wire);
        assert!(json.as_object().unwrap().contains_key("requestId"));
        let back: ErrorEnvelope = serde_json::from_value(json).unwrap();
        assert_eq!(back.request_id, Some(id));
    }
    let json = serde_json::to_value(ErrorEnvelope::throttled("2s", Vec::new()).build()).unwrap();
    assert!(!json.as_object().unwrap().contains_key("requestId"));
    let back: ErrorEnvelope = serde_json::from_value(json).unwrap();
    assert_eq!(back.request_id, None);
}
