// A bad spec produces its own errors and nothing else: code that uses the
// types, constructors and builders the spec failed to define reports no
// follow-on errors.

mod errors {
    splice_macros::taxonomy!("missing-hints.yaml");
}

use errors::{ErrorCode, ErrorEnvelope};

fn status(code: ErrorCode) -> u32 {
    match code {
        ErrorCode::MatchNotFound => code.number(),
    }
}

fn build() -> errors::builder::MatchNotFound {
    ErrorEnvelope::match_not_found("src/lib.rs", 2).backup_path("x.bak")
}

fn main() {
    let envelope: ErrorEnvelope = build().into();
    let _ = status(envelope.error_code);
    let _ = serde_json::to_string(&envelope);
}
