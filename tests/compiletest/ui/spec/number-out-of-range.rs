// A code's number must lie in its category's range.

splice_macros::taxonomy!("number-out-of-range.yaml");

fn main() {}
