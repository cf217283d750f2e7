// An empty recovery_hints list is refused like a missing one.

splice_macros::taxonomy!("empty-hints.yaml");

fn main() {}
