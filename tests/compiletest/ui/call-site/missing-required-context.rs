// MATCH_NOT_FOUND takes its required context (file_path, edit_index,
// snippet) and its message parameter (needle): an envelope missing one of
// them cannot be built.

splice_macros::taxonomy!("taxonomy.yaml");

fn main() {
    let _ = ErrorEnvelope::match_not_found("src/lib.rs", 3, "fn main").build();
}
