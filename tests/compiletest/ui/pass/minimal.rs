// The smallest useful spec: one category, one code. The expansion compiles,
// its lookups are usable in const context, and the constructor fills the
// envelope from the spec.

splice_macros::taxonomy!("minimal.yaml");

const NUMBER: u32 = ErrorCode::MatchNotFound.number();
const HINTS: &[&str] = ErrorCode::MatchNotFound.recovery_hints();

fn main() {
    let envelope = ErrorEnvelope::match_not_found("src/lib.rs", 2).build();
    assert_eq!(envelope.code, NUMBER);
    assert_eq!(envelope.message, "edit 2: old_string was not found in src/lib.rs");
    assert_eq!(envelope.recovery_hints, ["Re-read src/lib.rs before retrying"]);
    assert_eq!(HINTS, ["Re-read {file_path} before retrying"]);
    assert!(envelope.retryable);
    assert_eq!(envelope.cause, Cause::Input);
    assert_eq!(envelope.category, Category::Domain);
    match envelope.error_code {
        ErrorCode::MatchNotFound => {}
    }
    let json = serde_json::to_value(&envelope).unwrap();
    assert_eq!(json["error_code"], "MATCH_NOT_FOUND");
    assert!(json.get("context").is_none());
}
