//! A 20-entry `multi_edit_files` transaction through the whole tool path
//! (`tools::multi_edit_files`: resolution, reads, engine, the journaled
//! commit with every fsync): 5 edits, 5 creations, 5 deletions and 5 moves
//! (issue #14), against 20 plain edits of the same files. Each iteration
//! flips the tree between its two states (the mixed call and its inverse
//! alternate: the creations are deleted, the deleted files created, the
//! moves moved back), so every iteration writes.
//!
//! The files live in a temp dir under `$SPLICE_BENCH_DIR` (default: the
//! system temp dir).

use splice_server::answer_gate::AnswerGate;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use splice_server::args;
use splice_server::commit::{Committer, Wait};
use splice_server::config::{Config, Limits};
use splice_server::tools;

/// About 8 KB of source-like text.
fn text(tag: &str) -> String {
    let mut t = format!("// {tag}\nlet marker = alpha();\n");
    for line in 0..160 {
        t.push_str(&format!(
            "    let value_{line:04} = compute({line}) + 1; // filler\n"
        ));
    }
    t
}

fn p(dir: &Path, rel: &str) -> String {
    dir.join(rel).to_str().unwrap().to_string()
}

/// The plain call: one edit in each of 20 files, alpha <-> beta.
fn plain(dir: &Path, forward: bool) -> Value {
    let (from, to) = if forward {
        ("alpha()", "beta()")
    } else {
        ("beta()", "alpha()")
    };
    let files: Vec<Value> = (0..20)
        .map(|i| json!({"file_path": p(dir, &format!("f{i:02}.rs")), "edits": [{"old_string": from, "new_string": to}]}))
        .collect();
    json!({"files": files, "backup": false})
}

/// The mixed call (`forward`) or its inverse.
fn mixed(dir: &Path, forward: bool) -> Value {
    let (from, to) = if forward {
        ("alpha()", "beta()")
    } else {
        ("beta()", "alpha()")
    };
    let mut files = Vec::new();
    for i in 0..5 {
        files.push(json!({"file_path": p(dir, &format!("e{i}.rs")), "edits": [{"old_string": from, "new_string": to}]}));
        let (c, d) = (format!("c{i}.rs"), format!("d{i}.rs"));
        let (create, delete) = if forward { (&c, &d) } else { (&d, &c) };
        files.push(json!({"file_path": p(dir, create), "op": "create", "content": text(create)}));
        files.push(json!({"file_path": p(dir, delete), "op": "delete"}));
        let (a, b) = (format!("m{i}.rs"), format!("moved/m{i}.rs"));
        let (src, dst) = if forward { (&a, &b) } else { (&b, &a) };
        files.push(json!({"file_path": p(dir, src), "op": "move", "move_to": p(dir, dst)}));
    }
    json!({"files": files, "backup": false})
}

fn bench(c: &mut Criterion) {
    let base = std::env::var_os("SPLICE_BENCH_DIR").map_or_else(std::env::temp_dir, Into::into);
    let dir = tempfile::tempdir_in(&base).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let journal = tempfile::tempdir_in(&base).unwrap();
    for i in 0..20 {
        std::fs::write(root.join(format!("f{i:02}.rs")), text(&format!("f{i}"))).unwrap();
    }
    std::fs::create_dir(root.join("moved")).unwrap();
    for i in 0..5 {
        for n in [format!("e{i}.rs"), format!("d{i}.rs"), format!("m{i}.rs")] {
            std::fs::write(root.join(&n), text(&n)).unwrap();
        }
    }
    let cfg = Config::new(
        std::slice::from_ref(&root),
        Limits::default(),
        journal.path().into(),
    )
    .unwrap();
    let committer = Committer::new(journal.path().into(), AnswerGate::new()).unwrap();
    let mut group = c.benchmark_group("transaction_20_entries");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(10));
    for (name, call) in [
        ("plain_edits", plain as fn(&Path, bool) -> Value),
        ("5_edits_5_creates_5_deletes_5_moves", mixed),
    ] {
        let mut forward = true;
        group.bench_function(name, |b| {
            b.iter(|| {
                let req =
                    args::decode_multi_edit_files(&call(&root, forward), &cfg.limits).unwrap();
                forward = !forward;
                black_box(
                    tools::multi_edit_files::run(&cfg, &committer, &req, Wait::PATIENT).unwrap(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
