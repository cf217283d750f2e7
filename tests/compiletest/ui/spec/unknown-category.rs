// A code must name a declared category.

splice_macros::taxonomy!("unknown-category.yaml");

fn main() {}
