// A removed code's number is reserved forever.

splice_macros::taxonomy!("reuse-of-removed-number.yaml");

fn main() {}
