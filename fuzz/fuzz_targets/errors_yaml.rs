//! libFuzzer's entry to the `errors_yaml` target; what it checks is documented on
//! `splice_fuzz_targets::errors_yaml` (tests/fuzz-targets/src/errors_yaml.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| splice_fuzz_targets::errors_yaml::run(data));
