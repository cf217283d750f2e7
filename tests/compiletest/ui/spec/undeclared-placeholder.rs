// A message placeholder must name a parameter or a required context field.

splice_macros::taxonomy!("undeclared-placeholder.yaml");

fn main() {}
