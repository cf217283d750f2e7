// Matching on ErrorCode must handle every code, so adding a code to
// errors.yaml points at every match that has to decide about it.

#![allow(deprecated)]

splice_macros::taxonomy!("taxonomy.yaml");

fn describe(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::EmptyOldString => "empty",
        ErrorCode::MatchNotFound => "not found",
    }
}

fn main() {
    let _ = describe(ErrorCode::MatchNotFound);
}
