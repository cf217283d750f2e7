// A declared parameter must appear in the message or a hint.

splice_macros::taxonomy!("unused-parameter.yaml");

fn main() {}
