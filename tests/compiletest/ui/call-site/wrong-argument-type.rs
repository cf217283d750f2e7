// edit_index is an integer; a string does not type-check.

splice_macros::taxonomy!("taxonomy.yaml");

fn main() {
    let _ = ErrorEnvelope::empty_old_string("0").build();
}
