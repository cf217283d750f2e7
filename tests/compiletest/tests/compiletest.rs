//! The compile-time contract of `taxonomy!`, checked with trybuild.
//!
//! `ui/spec/`: a spec that breaks a rule of the format must fail the build
//! with the spec's `FILE:LINE:COL`, and with nothing but the spec's problems.
//! `ui/call-site/`: code that breaks the generated API (a missing required
//! field, a field the code may not carry, an unknown or deprecated code, a
//! non-exhaustive match, and a missing required field of the second
//! taxonomy, `examples/http-fetch`) must not compile. `ui/macro/`: misuse of the macro
//! itself. `ui/pass/`: a minimal spec and the real `errors.yaml` expand to
//! code that compiles and behaves.
//!
//! The `.stderr` files are rustc's output and depend on its version; see
//! `tests/README.md` for the pinned toolchain and `TRYBUILD=overwrite`.

#[test]
fn ui() {
    // CI lints the workspace by building it with clippy-driver as the
    // workspace's rustc wrapper (`.ci/run`); trybuild's cases are crates of
    // a workspace of their own, which would inherit it, and their expected
    // output is rustc's alone.
    // SAFETY: this binary's only test; nothing else reads the environment
    // while it changes.
    unsafe { std::env::remove_var("RUSTC_WORKSPACE_WRAPPER") };
    // trybuild's workspace has no profile of its own, so cargo's dev
    // defaults would apply: full debug info and incremental state for every
    // crate, which cost compile time and buy nothing on a build that only
    // checks what compiles and what rustc says (a failing pass case still
    // reports its panic's file and line). A value set by the caller wins.
    for (key, value) in [
        ("CARGO_PROFILE_DEV_DEBUG", "false"),
        ("CARGO_INCREMENTAL", "0"),
    ] {
        if std::env::var_os(key).is_none() {
            // SAFETY: as above.
            unsafe { std::env::set_var(key, value) };
        }
    }
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/spec/*.rs");
    t.compile_fail("ui/call-site/*.rs");
    t.compile_fail("ui/macro/*.rs");
}
