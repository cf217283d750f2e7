// The macro takes one string literal: the path of the spec.

splice_macros::taxonomy!(errors.yaml);

fn main() {}
