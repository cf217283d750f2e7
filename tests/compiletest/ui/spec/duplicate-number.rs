// Two codes may not share a number.

splice_macros::taxonomy!("duplicate-number.yaml");

fn main() {}
