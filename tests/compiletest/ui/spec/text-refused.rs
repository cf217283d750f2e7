// A text that would end a comment in a generated file (a bare carriage
// return) or reorder how the code reads (U+202E) is refused where it is
// written, like any other problem of the spec: no expansion, no panic.

splice_macros::taxonomy!("text-refused.yaml");

fn main() {}
