// Retry semantics, retry classes and typed per-code attributes
// (codegen/tests/fixtures/retry.yaml) reach the generated `ErrorCode`:
// a code in two retry classes, a category's default classes, a code that
// opts out with `retry_classes: []`, and attributes typed by their
// declaration (`required: true` is not an `Option`). All of it is `const`.

#![deny(warnings)]

splice_macros::taxonomy!("../../../../codegen/tests/fixtures/retry.yaml");

const HTTP: i64 = ErrorCode::SlowDown.http_status();
const _: () = assert!(HTTP == 503);

fn main() {
    assert_eq!(
        ErrorCode::RETRYABLE_MEANING,
        "the same request may succeed when sent again, unchanged, after a backoff"
    );
    assert_eq!(ErrorCode::SlowDown.retry_classes(), ["throttling"]);
    assert_eq!(
        ErrorCode::PriorRequestNotComplete.retry_classes(),
        ["throttling", "transient"]
    );
    assert!(ErrorCode::BadRequest.retry_classes().is_empty());
    assert!(!ErrorCode::BadRequest.retryable());

    let status: i64 = ErrorCode::BadRequest.http_status();
    assert_eq!(status, 400);
    assert_eq!(
        ErrorCode::SlowDown.help_url(),
        Some("https://example.com/errors/slow-down")
    );
    assert_eq!(ErrorCode::BadRequest.help_url(), None);
    assert_eq!(ErrorCode::PriorRequestNotComplete.idempotent_only(), Some(true));
    assert_eq!(
        ErrorCode::PriorRequestNotComplete.attributes(),
        [("http_status", "400"), ("idempotent_only", "true")]
    );
}
