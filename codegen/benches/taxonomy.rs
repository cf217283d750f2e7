//! How long the taxonomy compiler takes on a large spec.
//!
//! The spec is synthetic: 1,000 codes spread over six categories, each with
//! a multi-paragraph explanation, two or three hints, params and required and
//! optional context at both placements, a few deprecated and removed codes.
//! That is roughly 30 times the real `errors.yaml`. Target (issue 2): load,
//! check and generate every artifact in under 100 ms in release.
//!
//! The second group adds what issue 17 moved into the spec: 100 declared
//! context fields (every type the format has, at both placements) and 20
//! support types (15 objects, nested through arrays, and 5 enums), used by
//! the same 1,000 codes. Targets: load + check + generate under 100 ms, and
//! the macro's work (load + check + emit the Rust) under 200 ms.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use splice_codegen::load::load_baseline_str;
use splice_codegen::{emit_markdown, emit_rust, emit_schema, emit_ts, generate, load_str};

const CATEGORIES: [(&str, u32, bool, &str); 6] = [
    ("validation", 1000, true, "input"),
    ("domain", 2000, true, "input"),
    ("session", 3000, false, "input"),
    ("external", 4000, false, "environment"),
    ("configuration", 5000, false, "server"),
    ("internal", 9000, false, "server"),
];

/// Context shapes cycled over the codes: (required, optional).
const CONTEXTS: [(&str, &str); 5] = [
    ("[file_path]", "[file_index]"),
    (
        "[file_path, edit_index, snippet, edit_status]",
        "[file_index, file_statuses]",
    ),
    (
        "[file_path, edit_index, match_locations, match_count, edit_status]",
        "[file_index]",
    ),
    (
        "[file_path, current_sha256]",
        "[expected_sha256, file_index, file_statuses]",
    ),
    (
        "[file_path]",
        "[os_error, file_index, file_statuses, rollback]",
    ),
];

/// The `taxonomy:` and `categories:` sections both synthetic specs share.
fn header() -> String {
    let mut s = String::from(
        "taxonomy:\n  name: bench\n  version: 3.0.0\n  base_uri: schema://bench\n  description: A synthetic taxonomy.\ncategories:\n",
    );
    for (key, lo, retryable, cause) in CATEGORIES {
        let _ = write!(
            s,
            "  {key}:\n    range: [{lo}, {hi}]\n    description: The {key} category.\n    retryable: {retryable}\n    cause: {cause}\n",
            hi = lo + 999
        );
    }
    s
}

/// A valid spec with `n` codes (n <= 6 * 1000), in the format before
/// fields were declared: it is loaded with [`load_baseline_str`], which
/// appends the frozen format-1 vocabulary (what the compiler's fixed tables
/// held), so this group measures what it always measured.
fn synthetic_spec(n: usize) -> String {
    let mut s = header();
    s.push_str("codes:\n");
    for i in 0..n {
        let (key, lo, _, _) = CATEGORIES[i % CATEGORIES.len()];
        let number = lo + (i / CATEGORIES.len()) as u32;
        let (required, optional) = CONTEXTS[i % CONTEXTS.len()];
        let _ = write!(
            s,
            "  CODE_NUMBER_{i}:\n    number: {number}\n    category: {key}\n    since: 1.{minor}.0\n    \
             title: synthetic failure number {i}\n    \
             message: \"operation {{op_name}} failed on {{file_path}} after {{attempts}} attempts\"\n    \
             params:\n      op_name: {{ type: string, description: The operation. }}\n      \
             attempts: {{ type: integer, description: How many attempts were made. }}\n    \
             recovery_hints:\n      - \"Re-read {{file_path}} before retrying\"\n      \
             - \"Check the arguments of {{op_name}}\"\n      - \"Split the work over several calls\"\n    \
             context:\n      required: {required}\n      optional: {optional}\n",
            minor = i % 3
        );
        if i % 97 == 5 {
            let _ = writeln!(
                s,
                "    deprecated:\n      since: 2.0.0\n      replaced_by: CODE_NUMBER_0\n      note: Merged."
            );
        } else if i % 89 == 7 {
            let _ = writeln!(
                s,
                "    removed:\n      since: 2.0.0\n      reason: never emitted"
            );
        }
        let _ = write!(
            s,
            "    explanation: |\n      Synthetic code {i} describes a failure of an operation on a file.\n      \
             It has a second line so the explanation is a realistic paragraph.\n\n      \
             Example call:\n\n      ```json\n      {{\"name\": \"multi_edit\", \"arguments\": {{\"file_path\": \"/a/b.rs\"}}}}\n      ```\n\n      \
             How to fix: read the file again and retry with corrected arguments.\n"
        );
    }
    s
}

/// Object types (`T0`..) and enum types (`E0`..) of the declared variant.
const OBJECT_TYPES: usize = 15;
const ENUM_TYPES: usize = 5;
/// Declared context fields of the declared variant.
const FIELDS: usize = 100;

/// The same 1,000 codes over 20 declared types and 100 declared fields.
fn synthetic_declared_spec(n: usize) -> String {
    let mut s = header();
    s.push_str("types:\n");
    for t in 0..OBJECT_TYPES {
        let _ = write!(
            s,
            "  T{t}:\n    doc: \"Object type {t}.\"\n    members:\n      \
             label: {{ type: string, doc: \"A label.\" }}\n      \
             size: {{ type: integer, optional: true, doc: \"A size.\" }}\n      \
             kind: {{ type: E{e}, doc: \"A kind.\" }}\n",
            e = t % ENUM_TYPES
        );
        if t > 0 {
            let _ = writeln!(
                s,
                "      parts: {{ type: \"T{}[]\", optional: true, doc: \"Nested parts.\" }}",
                t - 1
            );
        }
    }
    for e in 0..ENUM_TYPES {
        let _ = writeln!(
            s,
            "  E{e}:\n    doc: \"Enum type {e}.\"\n    enum: [alpha_{e}, beta_{e}, gamma_{e}, delta_{e}]"
        );
    }
    s.push_str("fields:\n");
    for f in 0..FIELDS {
        let ty = match f % 8 {
            0 => "string".to_string(),
            1 => "integer".to_string(),
            2 => "boolean".to_string(),
            3 => format!("T{}", f % OBJECT_TYPES),
            4 => format!("\"T{}[]\"", f % OBJECT_TYPES),
            5 => format!("E{}", f % ENUM_TYPES),
            6 => "error_code".to_string(),
            _ => "\"string[]\"".to_string(),
        };
        let place = if f % 3 == 0 { "top_level" } else { "context" };
        let _ = writeln!(
            s,
            "  field_{f}:\n    type: {ty}\n    in: {place}\n    doc: \"Declared field {f}.\""
        );
    }
    s.push_str("codes:\n");
    for i in 0..n {
        let (key, lo, _, _) = CATEGORIES[i % CATEGORIES.len()];
        let number = lo + (i / CATEGORIES.len()) as u32;
        let _ = write!(
            s,
            "  CODE_NUMBER_{i}:\n    number: {number}\n    category: {key}\n    since: 1.{minor}.0\n    \
             title: synthetic failure number {i}\n    \
             message: \"operation {{op_name}} failed after {{attempts}} attempts\"\n    \
             params:\n      op_name: {{ type: string, description: The operation. }}\n      \
             attempts: {{ type: integer, description: How many attempts were made. }}\n    \
             recovery_hints:\n      - \"Check the arguments of {{op_name}}\"\n      \
             - \"Split the work over several calls\"\n    \
             context:\n      required: [field_{a}]\n      optional: [field_{b}, field_{c}]\n    \
             explanation: |\n      Synthetic code {i} describes a failure of an operation.\n\n      \
             How to fix: retry with corrected arguments.\n",
            minor = i % 3,
            a = i % FIELDS,
            b = (i + 1) % FIELDS,
            c = (i + 7) % FIELDS,
        );
    }
    s
}

fn bench_declared(c: &mut Criterion) {
    let source = synthetic_declared_spec(1000);
    let spec = load_str(&source, "errors.yaml")
        .unwrap_or_else(|d| panic!("synthetic declared spec does not load:\n{}", d.render()));
    assert_eq!(spec.codes.len(), 1000);
    let mut group = c.benchmark_group("taxonomy_1000_codes_100_fields_20_types");
    group.sample_size(20);
    // `splice-codegen generate` (target: < 100 ms).
    group.bench_function("load_check_and_generate_artifacts", |b| {
        b.iter(|| {
            let spec = load_str(black_box(&source), "errors.yaml").expect("loads");
            generate::artifacts(&spec)
        })
    });
    // What the proc macro does (target: < 200 ms).
    group.bench_function("macro_load_check_and_emit_rust", |b| {
        b.iter(|| {
            let spec = load_str(black_box(&source), "errors.yaml").expect("loads");
            emit_rust::emit(&spec)
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let source = synthetic_spec(1000);
    let spec = load_baseline_str(&source, "errors.yaml")
        .unwrap_or_else(|d| panic!("synthetic spec does not load:\n{}", d.render()));
    assert_eq!(spec.codes.len(), 1000);

    let mut group = c.benchmark_group("taxonomy_1000_codes");
    // The slow cases take hundreds of milliseconds per iteration in debug-ish
    // environments; 20 samples keep a full run under a minute.
    group.sample_size(20);
    group.bench_function("load_and_check", |b| {
        b.iter(|| load_baseline_str(black_box(&source), "errors.yaml").is_ok())
    });
    group.bench_function("emit_schema", |b| {
        b.iter(|| emit_schema::emit_string(black_box(&spec)))
    });
    group.bench_function("emit_markdown", |b| {
        b.iter(|| emit_markdown::emit(black_box(&spec)))
    });
    group.bench_function("emit_ts", |b| b.iter(|| emit_ts::emit(black_box(&spec))));
    group.bench_function("emit_rust", |b| {
        b.iter(|| emit_rust::emit(black_box(&spec)))
    });
    // What `splice-codegen generate` does: the target of issue 2 (< 100 ms).
    group.bench_function("load_check_and_generate_artifacts", |b| {
        b.iter(|| {
            let spec = load_baseline_str(black_box(&source), "errors.yaml").expect("loads");
            generate::artifacts(&spec)
        })
    });
    // Everything, including the Rust the proc macro expands to.
    group.bench_function("load_check_and_emit_all_with_rust", |b| {
        b.iter(|| {
            let spec = load_baseline_str(black_box(&source), "errors.yaml").expect("loads");
            let artifacts = generate::artifacts(&spec);
            let rust = emit_rust::emit(&spec);
            (artifacts, rust)
        })
    });
    group.finish();
}

criterion_group!(benches, bench, bench_declared);
criterion_main!(benches);
