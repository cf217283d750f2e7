// A deprecated code warns (here denied) wherever it is used, and the warning
// names the replacement.

#![deny(deprecated)]

splice_macros::taxonomy!("taxonomy.yaml");

fn main() {
    let _ = ErrorCode::EditFailed;
    let _ = ErrorEnvelope::edit_failed(0).build();
}
