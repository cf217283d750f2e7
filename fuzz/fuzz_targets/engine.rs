//! libFuzzer's entry to the `engine` target; what it checks is documented on
//! `splice_fuzz_targets::engine` (tests/fuzz-targets/src/engine.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| splice_fuzz_targets::engine::run(data));
