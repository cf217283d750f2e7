// A taxonomy whose codes may have no hints (`hints: optional`) and take
// their message, parameters and context from their category: a code
// without hints expands to one whose envelope sends an empty list, and a
// code's own values win over its category's.

splice_macros::taxonomy!("category-defaults.yaml");

const NO_HINTS: &[&str] = ErrorCode::NotFound.recovery_hints();

fn main() {
    assert!(NO_HINTS.is_empty());
    let envelope = ErrorEnvelope::not_found(404, "no such pod").build();
    assert_eq!(envelope.message, "no such pod");
    assert!(envelope.recovery_hints.is_empty());
    assert_eq!(ErrorCode::NotFound.message_template(), "{text}");
    let json = serde_json::to_value(&envelope).unwrap();
    assert_eq!(json["recovery_hints"], serde_json::json!([]));
    assert_eq!(json["context"]["status"], 404);

    let envelope = ErrorEnvelope::conflict(409, "pod changed").build();
    assert_eq!(envelope.message, "conflict: pod changed");
    assert_eq!(envelope.recovery_hints, ["Read the resource again"]);
}
