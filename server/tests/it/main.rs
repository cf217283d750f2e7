//! Every integration test of splice-server, in one test binary (as in
//! splice-tests, `tests/README.md`: each separate binary linked the whole
//! crate again). A test's name is `<file>::<test>`:
//! `cargo test -p splice-server --test it commit_crash::`.
//!
//! - `commit_crash`: SIGKILL at random points of real commits, then
//!   recovery; two processes committing the same files.
//! - `commit_faults`: commits through real kernel faults (full disk,
//!   read-only remount, immutable file, no permission).
//! - `commit_race`: the check/use race of path resolution, for real.
//! - `engine_props`: the edit engine against a naive reference (proptest).
//!
//! Tests share one process: none may change process-wide state (the working
//! directory, environment variables, the umask, signal handlers).

mod commit_crash;
mod commit_faults;
mod commit_race;
mod engine_props;

/// Real file-system faults (tmpfs, remount, `chattr +i`, `setpriv`), shared
/// with splice-tests.
#[allow(dead_code)]
#[path = "../../../tests/src/faults.rs"]
mod faults;

/// The naive engine the property tests (and the `engine` fuzz target)
/// compare against.
mod reference;
