//! The cost of a `MATCH_NOT_FOUND`: placing its excerpt (issue 12).
//!
//! A failed edit is answered with the lines where it most plausibly aimed,
//! which means reading the whole file once more. Two workloads, both the
//! stale-identifier case (every line of `old_string` differs from the file by
//! one renamed variable, so no line matches whole):
//!
//! - `16MB`: the largest file splice edits by default (`--max-file-size`);
//!   the placement must stay under 50 ms in release.
//! - `10KB`: a typical source file, where it must not regress.
//!
//! Each workload checks, before timing, that the excerpt holds the aimed-at
//! block, so the bench cannot time a placement that went wrong.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use splice_server::engine::{self, Edit, Failure};

/// Rust-like source of about `bytes` bytes: functions of six lines with
/// distinct names and numbers, and common keywords everywhere.
fn source(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 256);
    let mut i = 0usize;
    while out.len() < bytes {
        out.push_str(&format!(
            "pub fn handler_{i}(request: &Request) -> Result<Response, Error> {{\n    let total = request.count * {k} + offset_{i};\n    if total > LIMIT {{\n        return Err(Error::TooLarge(total));\n    }}\n    Ok(Response::new(total))\n}}\n\n",
            k = i % 97 + 3
        ));
        i += 1;
    }
    out
}

/// The block of function `n` as a model remembers it: `total` was renamed
/// to `sum` in the file since (here: in the model's memory, the other way
/// round), so every line but the closing brace differs.
fn stale_block(n: usize) -> String {
    format!(
        "    let sum = request.count * {k} + offset_{n};\n    if sum > LIMIT {{\n        return Err(Error::TooLarge(sum));\n    }}\n    Ok(Response::new(sum))",
        k = n % 97 + 3
    )
}

fn not_found(c: &mut Criterion) {
    let mut group = c.benchmark_group("not_found");
    group.sample_size(20);
    for (label, bytes) in [("10KB", 10_000), ("16MB", 16 << 20)] {
        let text = source(bytes);
        let functions = text.matches("pub fn handler_").count();
        let target = functions * 2 / 3;
        let old = stale_block(target);
        let edit = [Edit {
            old_string: &old,
            new_string: "    Ok(Response::new(0))",
            replace_all: false,
        }];
        match engine::apply(text.as_bytes(), &edit) {
            Err(Failure::NotFound { snippet, .. }) => {
                let wanted = format!(
                    "    let total = request.count * {} + offset_{target};",
                    target % 97 + 3
                );
                assert!(
                    snippet.lines().any(|l| l == wanted),
                    "not_found/{label}: the excerpt misses the aimed-at block:\n{snippet}"
                );
            }
            other => panic!("expected NotFound, got {other:?}"),
        }
        group.bench_with_input(BenchmarkId::new("engine", label), &text, |b, text| {
            b.iter(|| engine::apply(black_box(text.as_bytes()), &edit))
        });
    }
    group.finish();
}

criterion_group!(benches, not_found);
criterion_main!(benches);
