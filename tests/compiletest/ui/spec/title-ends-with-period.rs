// Titles are fragments like rustc messages.

splice_macros::taxonomy!("title-ends-with-period.yaml");

fn main() {}
