//! The engine against the naive O(n·k) way of applying edits.
//!
//! Two workloads from issue 4:
//!
//! - `replace_all`: a 5 MB file with 100,000 occurrences replaced by one
//!   `replace_all` edit. The naive reference (find, then rebuild the whole
//!   string, per occurrence) needs minutes at that size, so the group also
//!   runs both at 1/100 and 1/10 scale where the naive one finishes, which
//!   shows the ratio growing with the size. `SPLICE_BENCH_NAIVE_FULL=1` times
//!   one naive run at full scale too (printed, not sampled).
//! - `distinct_edits`: a 2 MB file with 200 distinct single-occurrence edits
//!   in one call. The naive reference checks each edit is unique and rebuilds
//!   the string per edit, as the predecessor did. The engine also runs on
//!   the same file with LF and with CRLF endings, edited with two-line LF
//!   strings, to compare the cost of the line-ending translation.

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use splice_server::engine::{self, Edit};

/// A file of `lines` lines, each holding one `NEEDLE`, 52 bytes a line.
fn needle_file(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("    let value_{i:06} = compute(NEEDLE, {i:06}) + 1;\n"))
        .collect()
}

/// Find, then rebuild the whole string, per occurrence.
fn naive_replace_all(text: &str, old: &str, new: &str) -> String {
    let mut text = text.to_owned();
    let mut from = 0;
    while let Some(i) = text[from..].find(old) {
        let at = from + i;
        text = format!("{}{}{}", &text[..at], new, &text[at + old.len()..]);
        from = at + new.len();
    }
    text
}

/// Per edit: find it, check it is unique, rebuild the whole string.
fn naive_edits(text: &str, edits: &[(String, String)]) -> Option<String> {
    let mut text = text.to_owned();
    for (old, new) in edits {
        let at = text.find(old.as_str())?;
        if text[at + 1..].contains(old.as_str()) {
            return None;
        }
        text = format!("{}{}{}", &text[..at], new, &text[at + old.len()..]);
    }
    Some(text)
}

fn replace_all(c: &mut Criterion) {
    let mut group = c.benchmark_group("replace_all");
    group.sample_size(10);
    let edit = [Edit {
        old_string: "NEEDLE",
        new_string: "replacement_value",
        replace_all: true,
    }];
    for (label, lines, naive) in [
        ("50KB/1k", 1_000, true),
        ("500KB/10k", 10_000, true),
        ("5MB/100k", 100_000, false),
    ] {
        let text = needle_file(lines);
        let expected = text.replace("NEEDLE", "replacement_value");
        assert!(text.len() >= lines * 50);
        let outcome = engine::apply(text.as_bytes(), &edit).expect("engine applies");
        assert_eq!(outcome.content, expected.as_bytes());
        assert_eq!(outcome.per_edit[0].replacements, lines);
        group.bench_with_input(BenchmarkId::new("engine", label), &text, |b, text| {
            b.iter(|| engine::apply(black_box(text.as_bytes()), &edit))
        });
        if naive {
            assert_eq!(
                naive_replace_all(&text, "NEEDLE", "replacement_value"),
                expected
            );
            group.bench_with_input(BenchmarkId::new("naive", label), &text, |b, text| {
                b.iter(|| naive_replace_all(black_box(text), "NEEDLE", "replacement_value"))
            });
        } else if std::env::var_os("SPLICE_BENCH_NAIVE_FULL").is_some() {
            let start = Instant::now();
            black_box(naive_replace_all(&text, "NEEDLE", "replacement_value"));
            eprintln!(
                "replace_all/naive/{label}: one run took {:?}",
                start.elapsed()
            );
        }
    }
    group.finish();
}

fn distinct_edits(c: &mut Criterion) {
    const LINES: usize = 44_000;
    const EDITS: usize = 200;
    let text: String = (0..LINES)
        .map(|i| format!("[{i:05}] the quick brown fox jumps over it {i:05}\n"))
        .collect();
    assert!(text.len() >= 2_000_000);
    // Spread over the file, not in file order.
    let pairs: Vec<(String, String)> = (0..EDITS)
        .map(|e| {
            let line = (e * 7_919) % LINES;
            (format!("[{line:05}] the"), format!("[{line:05}] a"))
        })
        .collect();
    let edits: Vec<Edit<'_>> = pairs
        .iter()
        .map(|(old, new)| Edit {
            old_string: old,
            new_string: new,
            replace_all: false,
        })
        .collect();
    let expected = naive_edits(&text, &pairs).expect("naive applies");
    let outcome = engine::apply(text.as_bytes(), &edits).expect("engine applies");
    assert_eq!(outcome.content, expected.as_bytes());

    // The same file with CRLF endings, edited with two-line LF strings (the
    // Windows case): matched and written in CRLF form.
    let crlf_text = text.replace('\n', "\r\n");
    let crlf_pairs: Vec<(String, String)> = (0..EDITS)
        .map(|e| {
            let line = (e * 7_919) % (LINES - 1);
            let next = line + 1;
            (
                format!("over it {line:05}\n[{next:05}] the"),
                format!("over it {line:05}\n[{next:05}] a"),
            )
        })
        .collect();
    let crlf_edits: Vec<Edit<'_>> = crlf_pairs
        .iter()
        .map(|(old, new)| Edit {
            old_string: old,
            new_string: new,
            replace_all: false,
        })
        .collect();
    let translated: Vec<(String, String)> = crlf_pairs
        .iter()
        .map(|(old, new)| (old.replace('\n', "\r\n"), new.replace('\n', "\r\n")))
        .collect();
    let expected = naive_edits(&crlf_text, &translated).expect("naive applies");
    let outcome = engine::apply(crlf_text.as_bytes(), &crlf_edits).expect("engine applies");
    assert_eq!(outcome.content, expected.as_bytes());

    let mut group = c.benchmark_group("distinct_edits");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("engine", "2MB/200"), |b| {
        b.iter(|| engine::apply(black_box(text.as_bytes()), &edits))
    });
    group.bench_function(BenchmarkId::new("naive", "2MB/200"), |b| {
        b.iter(|| naive_edits(black_box(&text), &pairs))
    });
    group.bench_function(BenchmarkId::new("engine", "2MB-2line-lf/200"), |b| {
        b.iter(|| engine::apply(black_box(text.as_bytes()), &crlf_edits))
    });
    group.bench_function(BenchmarkId::new("engine", "2MB-2line-crlf/200"), |b| {
        b.iter(|| engine::apply(black_box(crlf_text.as_bytes()), &crlf_edits))
    });
    group.finish();
}

criterion_group!(benches, replace_all, distinct_edits);
criterion_main!(benches);
