// A deprecated code must say what replaces it.

splice_macros::taxonomy!("deprecated-without-replacement.yaml");

fn main() {}
