//! libFuzzer's entry to the `lsp` target; what it checks is documented on
//! `splice_fuzz_targets::lsp` (tests/fuzz-targets/src/lsp.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| splice_fuzz_targets::lsp::run(data));
