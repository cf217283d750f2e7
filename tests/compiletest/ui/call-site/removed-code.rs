// A removed code keeps its number reserved in errors.yaml but has no variant
// and no constructor.

splice_macros::taxonomy!("taxonomy.yaml");

fn main() {
    let _ = ErrorCode::LegacyError;
    let _ = ErrorEnvelope::legacy_error();
}
