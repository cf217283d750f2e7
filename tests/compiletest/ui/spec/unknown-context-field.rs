// Context fields come from the fixed vocabulary.

splice_macros::taxonomy!("unknown-context-field.yaml");

fn main() {}
