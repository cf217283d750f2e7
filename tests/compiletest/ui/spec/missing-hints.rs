// A code without recovery hints is refused, naming the code and its line.

splice_macros::taxonomy!("missing-hints.yaml");

fn main() {}
