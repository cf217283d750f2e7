// EMPTY_OLD_STRING may not carry backup_path: its builder's setter requires
// `carries::backup_path`, which only the codes listing the field implement.

splice_macros::taxonomy!("taxonomy.yaml");

fn main() {
    let _ = ErrorEnvelope::empty_old_string(0).backup_path("a.bak").build();
}
