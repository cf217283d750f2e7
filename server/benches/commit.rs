//! What durability costs: one 20-file, 200-edit `multi_edit_files`-shaped
//! commit (read, apply 10 edits per file with the engine, commit with backups
//! off), with every fsync on (the shipped behaviour) and with fsync off (the
//! same journal protocol, no durability; for comparison only).
//!
//! And the common call, through the whole tool path (`tools::multi_edit`:
//! resolution beneath the root, read, engine, commit, result with its
//! sha256): a 10 KB file with 3 edits, durable (the single-file commit:
//! temp fsync, rename, directory fsync), with and without a `.bak`, and
//! without fsync; and a 5 MB file with one `replace_all` (no fsync, so the
//! CPU work shows). And the 10 KB call without fsync but with recording for
//! undo, the server's default, against the same call unrecorded.
//!
//! The files live in a temp dir under `$SPLICE_BENCH_DIR` (default: the system
//! temp dir), so point it at the file system you care about.

use splice_server::answer_gate::AnswerGate;
use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use splice_server::args;
use splice_server::commit::{Committer, FileChange, Wait};
use splice_server::config::{Config, Limits};
use splice_server::engine::{self, Edit};
use splice_server::fsio::read_file;
use splice_server::tools;
use splice_server::undo::{UndoLimits, UndoState};

const FILES: usize = 20;
const EDITS_PER_FILE: usize = 10;

/// About 8 KB of source-like text with `EDITS_PER_FILE` distinct markers.
fn file_text(i: usize) -> String {
    let mut text = String::new();
    for line in 0..160 {
        if line % 16 == 0 {
            text.push_str(&format!("    let marker_{i}_{} = alpha();\n", line / 16));
        } else {
            text.push_str(&format!(
                "    let value_{line:04} = compute({line}, {i}) + 1; // filler\n"
            ));
        }
    }
    text
}

/// One call: read every file, apply its 10 edits (alpha <-> beta, so the
/// content alternates between two states), commit all 20 at once.
fn round(committer: &Committer, paths: &[PathBuf]) {
    let changes: Vec<FileChange> = paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let snapshot = read_file(path, 1 << 20).unwrap();
            let (from, to) = if snapshot.bytes.windows(7).any(|w| w == b"alpha()") {
                ("alpha()", "beta()")
            } else {
                ("beta()", "alpha()")
            };
            let olds: Vec<String> = (0..EDITS_PER_FILE)
                .map(|k| format!("marker_{i}_{k} = {from}"))
                .collect();
            let news: Vec<String> = (0..EDITS_PER_FILE)
                .map(|k| format!("marker_{i}_{k} = {to}"))
                .collect();
            let edits: Vec<Edit<'_>> = olds
                .iter()
                .zip(&news)
                .map(|(o, n)| Edit {
                    old_string: o,
                    new_string: n,
                    replace_all: false,
                })
                .collect();
            let outcome = engine::apply(&snapshot.bytes, &edits).unwrap();
            FileChange {
                snapshot,
                new_bytes: outcome.content,
                backup: false,
            }
        })
        .collect();
    black_box(committer.commit(changes).unwrap());
}

fn setup(root: &Path) -> Vec<PathBuf> {
    (0..FILES)
        .map(|i| {
            let p = root.join(format!("src_{i:02}.rs"));
            fs::write(&p, file_text(i)).unwrap();
            p
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let base = std::env::var_os("SPLICE_BENCH_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let dir = tempfile::tempdir_in(base).unwrap();
    let journal = tempfile::tempdir_in(dir.path()).unwrap();
    let paths = setup(dir.path());
    let mut group = c.benchmark_group("commit_20_files_200_edits");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    for durable in [true, false] {
        let committer = Committer::new(journal.path().into(), AnswerGate::new())
            .unwrap()
            .durable(durable);
        let name = if durable { "fsync" } else { "no_fsync" };
        group.bench_function(name, |b| b.iter(|| round(&committer, &paths)));
    }
    group.finish();
    single_file(c, dir.path(), journal.path());
}

/// `multi_edit` calls that flip between two contents.
fn single_file(c: &mut Criterion, dir: &Path, journal: &Path) {
    let small = dir.join("small.rs");
    let mut text = String::new();
    for i in 0..250 {
        text.push_str(&format!("    let value_{i:04} = compute({i}); // filler\n"));
    }
    text.push_str("fn one() {}\nfn two() {}\nfn three() {}\n");
    fs::write(&small, &text).unwrap();
    let big = dir.join("big.txt");
    let mut bigtext = String::with_capacity(5 << 20);
    while bigtext.len() < 5 << 20 {
        bigtext.push_str("lorem ipsum dolor sit amet, consectetur alpha elit\n");
    }
    fs::write(&big, &bigtext).unwrap();
    let cfg = Config::new(&[dir.to_path_buf()], Limits::default(), journal.into()).unwrap();

    let call = |cfg: &Config,
                committer: &Committer,
                path: &Path,
                edits: &[(&str, &str, bool)],
                backup: bool| {
        let flip = fs::read_to_string(path).unwrap().contains(edits[0].0);
        let edits: Vec<_> = edits
            .iter()
            .map(|&(a, b, all)| {
                let (from, to) = if flip { (a, b) } else { (b, a) };
                json!({"old_string": from, "new_string": to, "replace_all": all})
            })
            .collect();
        let v = json!({"file_path": path, "edits": edits, "backup": backup});
        let req = args::decode_multi_edit(&v, &cfg.limits).unwrap();
        black_box(tools::multi_edit::run(cfg, committer, &req, Wait::PATIENT).unwrap());
    };
    let three = [
        ("fn one()", "fn uno()", false),
        ("fn two()", "fn dos()", false),
        ("fn three()", "fn tres()", false),
    ];
    let mut group = c.benchmark_group("multi_edit_10kb_3_edits");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(10));
    for (name, durable, backup) in [
        ("fsync", true, false),
        ("fsync_backup", true, true),
        ("no_fsync", false, false),
    ] {
        let committer = Committer::new(journal.into(), AnswerGate::new())
            .unwrap()
            .durable(durable);
        group.bench_function(name, |b| {
            b.iter(|| call(&cfg, &committer, &small, &three, backup))
        });
    }
    // What recording for undo (on by default in the server) adds to the
    // call: the same calls with the store open beside the journal, against
    // `fsync` and `no_fsync` above.
    let undo_dir = journal.join("undo");
    let recording = cfg.clone().with_undo(UndoState::open(
        undo_dir,
        UndoLimits::default(),
        AnswerGate::new(),
    ));
    assert!(
        recording.undo.store().is_some(),
        "the bench's undo store did not open"
    );
    for (name, durable) in [("fsync_recording", true), ("no_fsync_recording", false)] {
        let committer = Committer::new(journal.into(), AnswerGate::new())
            .unwrap()
            .durable(durable);
        group.bench_function(name, |b| {
            b.iter(|| call(&recording, &committer, &small, &three, false))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("multi_edit_5mb_replace_all");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    let committer = Committer::new(journal.into(), AnswerGate::new())
        .unwrap()
        .durable(false);
    group.bench_function("no_fsync", |b| {
        b.iter(|| call(&cfg, &committer, &big, &[("alpha", "beta", true)], false))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
