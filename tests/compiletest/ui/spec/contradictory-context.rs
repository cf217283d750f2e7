// A context field cannot be both required and optional.

splice_macros::taxonomy!("contradictory-context.yaml");

fn main() {}
