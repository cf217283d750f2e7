//! libFuzzer's entry to the `args` target; what it checks is documented on
//! `splice_fuzz_targets::args` (tests/fuzz-targets/src/args.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| splice_fuzz_targets::args::run(data));
