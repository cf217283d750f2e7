// The macro takes exactly one argument.

splice_macros::taxonomy!("../pass/minimal.yaml", "other.yaml");

fn main() {}
