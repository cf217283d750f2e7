//! The time-of-check/time-of-use race, for real: a thread swaps `root/dir`
//! between a real directory and a symlink to a directory outside the root,
//! as fast as it can (`renameat2(RENAME_EXCHANGE)`, so the name always
//! exists), while other threads run at least 10,000 edit calls on `root/dir/f`
//! through the real tool path (`tools::multi_edit`: resolution, read, engine,
//! commit). The outside directory must come out byte-identical, no call may
//! return its content, and every call must either succeed or fail with a
//! clean, expected code.
//!
//! With resolution and opening as separate lookups by path (the
//! implementation before `sandbox.rs`), this test fails within a few hundred
//! calls: a swap between the check and the open makes the read, or the
//! temp file and rename, land in the outside directory.

use splice_server::answer_gate::AnswerGate;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde_json::json;
use splice_server::args;
use splice_server::commit::{Committer, Wait};
use splice_server::config::{Config, Limits};
use splice_server::tools::multi_edit;

const CALLS: usize = 10_000;
const CALLERS: usize = 2;
/// How many times its share of [`CALLS`] a caller may run, at most, while
/// waiting for the race to have run (see `race_ran`).
const MAX_ROUNDS: usize = 20;

/// Every entry under `dir`, recursively: relative path => bytes (symlinks as
/// their target).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            let ty = e.file_type().unwrap();
            if ty.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                stack.push(p);
            } else if ty.is_symlink() {
                let t = fs::read_link(&p).unwrap();
                out.insert(rel, t.into_os_string().into_encoded_bytes());
            } else {
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_symlink_flipped_under_running_edits_never_redirects_a_read_or_a_write() {
    let root_t = tempfile::tempdir().unwrap();
    let outside_t = tempfile::tempdir().unwrap();
    let journal_t = tempfile::tempdir().unwrap();
    let root = root_t.path().canonicalize().unwrap();
    let outside = outside_t.path().canonicalize().unwrap();

    // The outside file has the same name and an edit target too, so any
    // redirected call would succeed and change it.
    fs::write(outside.join("f"), "SECRET tick\n").unwrap();
    fs::create_dir(outside.join("sub")).unwrap();
    fs::write(outside.join("sub/other"), "untouched\n").unwrap();
    fs::create_dir(root.join("dir")).unwrap();
    fs::write(root.join("dir/f"), "inside tick\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("swap")).unwrap();
    let before = snapshot(&outside);

    let cfg = Arc::new(
        Config::new(
            std::slice::from_ref(&root),
            Limits::default(),
            journal_t.path().into(),
        )
        .unwrap(),
    );
    let committer = Arc::new(
        Committer::new(journal_t.path().into(), AnswerGate::new())
            .unwrap()
            .durable(false),
    );

    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(AtomicUsize::new(0));
    let flipper = {
        let (stop, flips, root) = (stop.clone(), flips.clone(), root.clone());
        std::thread::spawn(move || {
            let d = rustix::fs::open(
                &root,
                rustix::fs::OFlags::DIRECTORY,
                rustix::fs::Mode::empty(),
            )
            .unwrap();
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(&d, "dir", &d, "swap", rustix::fs::RenameFlags::EXCHANGE)
                    .unwrap();
                flips.fetch_add(1, Ordering::Relaxed);
                std::thread::yield_now();
            }
        })
    };

    let file = root.join("dir/f").to_str().unwrap().to_string();
    let counts = Arc::new(std::sync::Mutex::new(BTreeMap::<String, usize>::new()));
    // The race really ran once the flipper flipped often and calls landed on
    // both sides of the flip. On a loaded machine the flipper can be starved
    // for a while, so each caller goes on past its share of CALLS (up to
    // MAX_ROUNDS times it) until that holds, instead of the test depending
    // on the scheduler.
    let race_ran = {
        let (counts, flips) = (counts.clone(), flips.clone());
        move || {
            let counts = counts.lock().unwrap();
            flips.load(Ordering::Relaxed) > 1000
                && counts.get("ok").is_some_and(|&n| n > 0)
                && counts.get("PATH_OUTSIDE_ROOTS").is_some_and(|&n| n > 0)
        }
    };
    let callers: Vec<_> = (0..CALLERS)
        .map(|t| {
            let (cfg, committer, counts, file, race_ran) = (
                cfg.clone(),
                committer.clone(),
                counts.clone(),
                file.clone(),
                race_ran.clone(),
            );
            std::thread::spawn(move || {
                let share = CALLS / CALLERS;
                for k in (0..share * MAX_ROUNDS).take_while(|&k| k < share || !race_ran()) {
                    let (from, to) = if (k + t) % 2 == 0 {
                        ("tick", "tock")
                    } else {
                        ("tock", "tick")
                    };
                    let dry = k % 4 == 3;
                    let v = json!({
                        "file_path": file,
                        "edits": [{"old_string": from, "new_string": to}],
                        "backup": k % 8 == 1,
                        "dry_run": dry,
                        "include_content": true,
                    });
                    let req = args::decode_multi_edit(&v, &cfg.limits).unwrap();
                    let outcome = match multi_edit::run(&cfg, &committer, &req, Wait::PATIENT) {
                        Ok(ok) => {
                            let content = ok.file.final_content.unwrap_or_default();
                            assert!(
                                !content.contains("SECRET"),
                                "call {k}: the outside file was read: {content:?}"
                            );
                            "ok".to_string()
                        }
                        Err(e) => {
                            let v = serde_json::to_value(&e).unwrap();
                            let code = v["error_code"].as_str().unwrap().to_string();
                            assert!(
                                [
                                    "FILE_NOT_FOUND",
                                    "PATH_OUTSIDE_ROOTS",
                                    "MATCH_NOT_FOUND",
                                    "STALE_FILE",
                                    "SYMLINK_LOOP",
                                ]
                                .contains(&code.as_str()),
                                "call {k}: unexpected failure {v:#}"
                            );
                            assert!(
                                !v.to_string().contains("SECRET"),
                                "call {k}: outside content in an error: {v}"
                            );
                            code
                        }
                    };
                    *counts.lock().unwrap().entry(outcome).or_default() += 1;
                }
            })
        })
        .collect();
    for c in callers {
        c.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();

    let counts = counts.lock().unwrap().clone();
    eprintln!(
        "{} flips; outcomes: {counts:?}",
        flips.load(Ordering::Relaxed)
    );
    assert!(counts.values().sum::<usize>() >= CALLS, "{counts:?}");
    assert_eq!(snapshot(&outside), before, "the outside directory changed");
    // The race really ran: calls landed on both sides of the flip.
    assert!(counts.get("ok").copied().unwrap_or(0) > 0, "{counts:?}");
    assert!(
        counts.get("PATH_OUTSIDE_ROOTS").copied().unwrap_or(0) > 0,
        "{counts:?}"
    );
    assert!(flips.load(Ordering::Relaxed) > 1000);
    // Nothing but the real directory's file (edited or not) and, from the
    // backup calls, its `.bak`, is left inside; no temp file in either place.
    for dir in [root.join("dir"), root.join("swap")] {
        if let Ok(rd) = fs::read_dir(&dir) {
            for e in rd {
                let n = e.unwrap().file_name().into_string().unwrap();
                assert!(
                    ["f", "f.bak", "sub"].contains(&n.as_str()),
                    "left in {}: {n}",
                    dir.display()
                );
            }
        }
    }
}
