// Versions are semver.

splice_macros::taxonomy!("non-semver-version.yaml");

fn main() {}
