// A spec that does not exist is reported at the path literal, resolved
// relative to this file.

splice_macros::taxonomy!("no-such-file.yaml");

fn main() {}
