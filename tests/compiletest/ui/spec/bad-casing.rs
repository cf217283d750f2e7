// Code names are SCREAMING_SNAKE.

splice_macros::taxonomy!("bad-casing.yaml");

fn main() {}
