// A message may not interpolate a context field that can be absent.

splice_macros::taxonomy!("optional-placeholder.yaml");

fn main() {}
