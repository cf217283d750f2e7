// Every problem is reported at once, each with its own line:column.

splice_macros::taxonomy!("many-problems.yaml");

fn main() {}
