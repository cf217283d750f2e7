// A code may not be defined twice.

splice_macros::taxonomy!("duplicate-name.yaml");

fn main() {}
