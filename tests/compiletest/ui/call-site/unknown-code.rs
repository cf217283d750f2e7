// A code that errors.yaml does not define does not exist in Rust either.

splice_macros::taxonomy!("taxonomy.yaml");

fn main() {
    let _ = ErrorCode::FileNotFound;
    let _ = ErrorEnvelope::file_not_found("src/lib.rs");
}
