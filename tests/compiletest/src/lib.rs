//! Empty: this package exists for its trybuild test (`tests/compiletest.rs`,
//! `ui/`). Cargo requires a library or binary target in every package.
