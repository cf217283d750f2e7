//! How long `taxonomy!` spends on a 1,000-code spec (target: under 200 ms).
//!
//! A proc macro cannot be called from a bench, so this measures the work the
//! macro does between receiving the path and handing tokens back: load and
//! check the spec (`load_str`; the file read is a few hundred KB), emit the
//! Rust tokens, and print them (what crossing into the compiler's token
//! representation costs, roughly). The compiler's own part, type-checking
//! the generated items, is not macro time; `macros/README.md` has an
//! end-to-end measurement inside rustc.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use splice_codegen::{emit_rust, load_str};

const CATEGORIES: [(&str, u32); 4] = [
    ("validation", 1000),
    ("domain", 2000),
    ("external", 4000),
    ("internal", 9000),
];

/// Context shapes cycled over the codes: (required, optional).
const CONTEXTS: [(&str, &str); 4] = [
    ("[file_path]", "[file_index, backup_path]"),
    (
        "[file_path, edit_index, snippet, edit_status]",
        "[match_count]",
    ),
    (
        "[file_path, current_sha256]",
        "[expected_sha256, file_statuses]",
    ),
    ("[violations]", "[limit, os_error]"),
];

/// A valid spec with `n` codes, each with a param, three hints, context at
/// both placements and a multi-line explanation.
pub fn synthetic_spec(n: usize) -> String {
    let mut s = String::from(
        "taxonomy:\n  name: bench\n  version: 2.0.0\n  base_uri: schema://bench\ncategories:\n",
    );
    for (key, lo) in CATEGORIES {
        let _ = write!(
            s,
            "  {key}:\n    range: [{lo}, {hi}]\n    description: The {key} category.\n    \
             retryable: false\n    cause: input\n",
            hi = lo + 999
        );
    }
    s.push_str("codes:\n");
    for i in 0..n {
        let (key, lo) = CATEGORIES[i % CATEGORIES.len()];
        let number = lo + (i / CATEGORIES.len()) as u32;
        let (required, optional) = CONTEXTS[i % CONTEXTS.len()];
        let _ = write!(
            s,
            "  CODE_NUMBER_{i}:\n    number: {number}\n    category: {key}\n    since: 1.0.0\n    \
             title: synthetic failure number {i}\n    \
             message: \"operation {{op_name}} failed after {{attempts}} attempts\"\n    \
             params:\n      op_name: {{ type: string, description: The operation. }}\n      \
             attempts: {{ type: integer, description: How many attempts were made. }}\n    \
             recovery_hints:\n      - \"Check the arguments of {{op_name}}\"\n      \
             - Re-read the file before retrying\n      - Split the work over several calls\n    \
             context:\n      required: {required}\n      optional: {optional}\n"
        );
        if i % 97 == 5 {
            s.push_str("    deprecated: { since: 2.0.0, replaced_by: CODE_NUMBER_0 }\n");
        }
        let _ = write!(
            s,
            "    explanation: |\n      Synthetic code {i} describes a failure of an operation.\n      \
             It has a second line so the explanation is a realistic paragraph.\n\n      \
             ```json\n      {{\"name\": \"multi_edit\"}}\n      ```\n"
        );
    }
    s
}

fn bench(c: &mut Criterion) {
    let source = synthetic_spec(1000);
    let spec = load_str(&source, "errors.yaml")
        .unwrap_or_else(|d| panic!("synthetic spec does not load:\n{}", d.render()));
    assert_eq!(spec.emitted_codes().count(), 1000);

    let mut group = c.benchmark_group("taxonomy_macro_1000_codes");
    group.bench_function("emit", |b| b.iter(|| emit_rust::emit(black_box(&spec))));
    group.bench_function("load_check_emit_print", |b| {
        b.iter(|| {
            let spec = load_str(black_box(&source), "errors.yaml").expect("loads");
            emit_rust::emit(&spec).to_string()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
