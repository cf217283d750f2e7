//! Replays every committed fuzz input through its target, as an ordinary
//! test: the corpora under `fuzz/corpus/<target>/` and, for the spec
//! targets, the repository's own specs and fixtures that `scripts/fuzz`
//! seeds them with. An input libFuzzer found breaking a rule belongs in
//! `fuzz/corpus/<target>/` once fixed; from then on this test keeps it
//! fixed, with no coverage build and no libFuzzer.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use splice_fuzz_targets::TARGETS;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository's root")
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// The seeds `scripts/fuzz` adds from elsewhere in the repository
/// (its `seed_sources`): keep the two lists in step.
fn seed_sources(target: &str) -> Vec<PathBuf> {
    let root = repo();
    let specs = [
        root.join("errors.yaml"),
        root.join("examples/http-fetch/errors.yaml"),
    ];
    match target {
        "errors_yaml" => {
            let fixtures = root.join("codegen/tests/fixtures");
            let yaml = |dir: PathBuf| {
                files_in(&dir)
                    .into_iter()
                    .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
                    .collect::<Vec<_>>()
            };
            let mut all = specs.to_vec();
            all.extend(yaml(fixtures.clone()));
            all.extend(yaml(fixtures.join("rules")));
            all.extend(yaml(fixtures.join("rule-variants")));
            all
        }
        "lsp" => {
            let mut all = specs.to_vec();
            all.push(root.join("codegen/tests/fixtures/valid.yaml"));
            all
        }
        _ => Vec::new(),
    }
}

#[test]
fn every_committed_input_passes_its_target() {
    let mut failed = Vec::new();
    let mut counts = Vec::new();
    for &(target, run) in TARGETS {
        let mut inputs = files_in(&repo().join("fuzz/corpus").join(target));
        assert!(
            !inputs.is_empty(),
            "fuzz/corpus/{target}/ holds no input: every target keeps at least its seeds there"
        );
        inputs.extend(seed_sources(target));
        for input in &inputs {
            let data = std::fs::read(input)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", input.display()));
            if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
                let shown = input.strip_prefix(repo()).unwrap_or(input);
                failed.push(format!("{target}: {}", shown.display()));
            }
        }
        counts.push(format!("{target}: {}", inputs.len()));
    }
    eprintln!("replayed {}", counts.join(", "));
    assert!(
        failed.is_empty(),
        "these inputs break their fuzz target (the panic of each is printed above; \
         under libFuzzer, `target/fuzz-libfuzzer/<triple>/release/<target> <file>` \
         replays one once `bash scripts/fuzz` has built the targets):\n{}",
        failed.join("\n")
    );
}
