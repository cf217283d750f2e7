//! Placeholder: the `taxonomy!` macro arrives with issue 3. It compiles so the
//! workspace builds.
