//! Every integration and end-to-end test of splice-tests, in one test binary.
//!
//! Each file below used to be its own binary under `tests/tests/`; each one
//! linked the whole dependency graph (rmcp, tokio, jsonschema,
//! splice-server), which made compiling them most of CI's test time. A
//! test's name is now `<file>::<test>`, so `cargo test -p splice-tests
//! e2e_faults::` still selects one file's tests.
//!
//! Tests here share one process: none may change process-wide state (the
//! working directory, environment variables, signal handlers, the umask).
//! The trybuild cases are a separate crate (`tests/compiletest/`).

mod docs_links;
mod e2e_concurrency;
mod e2e_crash;
mod e2e_faults;
mod e2e_journal_trust;
mod e2e_limits;
mod e2e_load;
mod e2e_migration;
mod e2e_multi_edit;
mod e2e_multi_edit_files;
mod e2e_ops;
mod e2e_protocol_eras;
mod e2e_sandbox;
mod e2e_stdio;
mod e2e_undo;
mod envelopes;
mod interop;
mod interop_py;
mod random_calls;
mod repair_corpus;
mod repair_corpus_large;
mod taxonomy;
