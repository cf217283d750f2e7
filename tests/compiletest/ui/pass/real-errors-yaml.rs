// The real taxonomy expands to code that compiles without warnings, even
// under the lints a strict crate would set.

#![deny(warnings, missing_docs, deprecated)]
//! The generated items are documented.

mod errors {
    splice_macros::taxonomy!("../../../../errors.yaml");
}

fn main() {
    assert!(!errors::ErrorCode::ALL.is_empty());
    for code in errors::ErrorCode::ALL {
        assert_eq!(code.as_str().parse::<errors::ErrorCode>(), Ok(*code));
    }
}
