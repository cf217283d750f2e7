// A misspelt key is an error, not silently ignored.

splice_macros::taxonomy!("unknown-key.yaml");

fn main() {}
