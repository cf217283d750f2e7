// Texts that end comments, docstrings or raw string literals somewhere
// (`*/`, `"""`, `\`, and a quote followed by 300 `#`, more than a raw
// string literal's delimiter may have) are accepted by the spec format and
// escaped in every artifact: the expansion compiles, and the texts reach
// the constants unchanged.

splice_macros::taxonomy!("hostile-texts.yaml");

fn main() {
    let hashes = "#".repeat(300);
    let envelope = ErrorEnvelope::match_not_found("a.rs").build();
    assert_eq!(
        envelope.message,
        "edit not found in a.rs */ \"\"\" \\"
    );
    assert!(ErrorCode::MatchNotFound.title().ends_with(&format!("\"{hashes}")));
    assert!(ErrorCode::MatchNotFound.explanation().contains("*/ and \"\"\" and \\ and"));
    let schema: serde_json::Value = serde_json::from_str(ENVELOPE_SCHEMA).unwrap();
    assert!(schema.to_string().contains(&format!("\\\"{hashes}")));
}
