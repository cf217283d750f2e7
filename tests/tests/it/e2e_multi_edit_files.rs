//! End-to-end: `multi_edit_files` through the real binary over stdio:
//! all-or-nothing semantics, per-file statuses, duplicate detection through
//! symlinks, concurrent calls (one connection and a second process), and
//! SIGKILL in the middle of commits followed by recovery.

use std::collections::BTreeSet;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use splice_tests::fixtures::{edit, root, s};
use splice_tests::harness::Server;

#[tokio::test]
async fn success_dry_run_and_failures() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let a = r.join("a.txt");
    let b = r.join("b.txt");
    std::fs::write(&a, "alpha\n").unwrap();
    std::fs::write(&b, "beta\r\n").unwrap();

    // Dry run: a diff per file, nothing written, no backup.
    let out = server
        .call(
            "multi_edit_files",
            json!({"dry_run": true, "files": [
                {"file_path": s(&a), "edits": [edit("alpha", "ALPHA")]},
                {"file_path": s(&b), "edits": [edit("beta", "BETA")]}]}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    let files = out.structured["file_results"].as_array().unwrap();
    assert!(
        files[0]["diff_preview"]
            .as_str()
            .unwrap()
            .contains("+ALPHA")
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "alpha\n");
    assert!(!r.join("a.txt.bak").exists());

    // Real run.
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [
                {"file_path": s(&a), "edits": [edit("alpha", "ALPHA")]},
                {"file_path": s(&b), "edits": [edit("beta", "BETA")]}]}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "ALPHA\n");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "BETA\r\n");
    assert_eq!(
        std::fs::read_to_string(r.join("b.txt.bak")).unwrap(),
        "beta\r\n"
    );

    // A failure in the third file: nothing written, statuses for every file.
    let c = r.join("c.txt");
    std::fs::write(&c, "gamma\n").unwrap();
    let before: Vec<Vec<u8>> = [&a, &b, &c]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [
                {"file_path": s(&a), "edits": [edit("ALPHA", "a")]},
                {"file_path": s(&b), "edits": [edit("BETA", "b")]},
                {"file_path": s(&c), "edits": [edit("delta", "d")]},
                {"file_path": s(&a), "edits": [edit("x", "y")]}]}),
        )
        .await;
    // The lexical duplicate is caught by validation first.
    assert_eq!(out.code(), "VALIDATION_FAILED");
    assert_eq!(
        out.structured["violations"][0]["code"],
        "DUPLICATE_FILE_PATH"
    );
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [
                {"file_path": s(&a), "edits": [edit("ALPHA", "a")]},
                {"file_path": s(&b), "edits": [edit("BETA", "b")]},
                {"file_path": s(&c), "edits": [edit("delta", "d")]}]}),
        )
        .await;
    assert_eq!(out.code(), "MATCH_NOT_FOUND");
    assert_eq!(out.structured["file_index"], 2);
    let statuses: Vec<&str> = out.structured["file_statuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["would_succeed", "would_succeed", "failed"]);
    let after: Vec<Vec<u8>> = [&a, &b, &c]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert_eq!(before, after);

    // The same file through a symlink is a duplicate too.
    symlink(&a, r.join("a-link.txt")).unwrap();
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [
                {"file_path": s(&a), "edits": [edit("ALPHA", "a")]},
                {"file_path": s(&r.join("a-link.txt")), "edits": [edit("ALPHA", "b")]}]}),
        )
        .await;
    assert_eq!(out.code(), "DUPLICATE_FILE_PATH");
    assert_eq!(out.structured["file_index"], 1);

    // Stale: expected_sha256 of the second file does not match.
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [
                {"file_path": s(&a), "edits": [edit("ALPHA", "a")]},
                {"file_path": s(&b), "edits": [edit("BETA", "b")], "expected_sha256": "f".repeat(64)}]}),
        )
        .await;
    assert_eq!(out.code(), "STALE_FILE");
    assert_eq!(out.structured["file_index"], 1);

    // Every per-file failure names its file's index (FILE_NOT_FOUND and
    // NOT_A_REGULAR_FILE used to leave it out).
    std::fs::create_dir(r.join("a-dir")).unwrap();
    for (second, code) in [
        (r.join("missing.txt"), "FILE_NOT_FOUND"),
        (r.join("a-dir"), "NOT_A_REGULAR_FILE"),
    ] {
        let out = server
            .call(
                "multi_edit_files",
                json!({"files": [
                    {"file_path": s(&a), "edits": [edit("ALPHA", "a")]},
                    {"file_path": s(&second), "edits": [edit("x", "y")]}]}),
            )
            .await;
        assert_eq!(out.code(), code);
        assert_eq!(out.structured["file_index"], 1, "{code}");
        assert_eq!(out.structured["file_statuses"][1]["status"], "failed");
    }

    let out = server.call("multi_edit_files", json!({"files": []})).await;
    assert_eq!(out.code(), "VALIDATION_FAILED");
    assert_eq!(out.structured["violations"][0]["code"], "EMPTY_FILES");
    assert_eq!(std::fs::read(&a).unwrap(), before[0]);
    server.stop().await;
}

/// Files with one `[ ]` slot per call; call k marks slot k in its files.
fn slot(k: usize) -> String {
    format!("slot-{k:03} [ ]")
}
fn marked(k: usize) -> String {
    format!("slot-{k:03} [x]")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_calls_lose_no_update() {
    let (_d, r) = root();
    const FILES: usize = 6;
    const CALLS: usize = 50;
    const OTHER: usize = 10;
    let paths: Vec<PathBuf> = (0..FILES).map(|i| r.join(format!("f{i}.txt"))).collect();
    let text: String = (0..CALLS + OTHER).map(|k| slot(k) + "\n").collect();
    for p in &paths {
        std::fs::write(p, &text).unwrap();
    }
    // Call k edits files {k % FILES, (k + 1) % FILES, (k + 3) % FILES}.
    let files_of = |k: usize| -> Vec<usize> {
        let v: BTreeSet<usize> = [k % FILES, (k + 1) % FILES, (k + 3) % FILES].into();
        v.into_iter().collect()
    };
    let server = Arc::new(Server::in_root(&r).await);
    let mut tasks = Vec::new();
    for k in 0..CALLS {
        let server = server.clone();
        let files: Vec<Value> = files_of(k)
            .into_iter()
            .map(|f| json!({"file_path": s(&paths[f]), "edits": [edit(&slot(k), &marked(k))]}))
            .collect();
        tasks.push(tokio::spawn(async move {
            // STALE_FILE means another call committed between our read and
            // our commit: nothing of ours was written, so retry.
            for _ in 0..50 {
                let out = server
                    .call(
                        "multi_edit_files",
                        json!({"files": files.clone(), "backup": false}),
                    )
                    .await;
                if !out.is_error {
                    return true;
                }
                assert_eq!(out.code(), "STALE_FILE", "{}", out.structured);
            }
            false
        }));
    }
    // A second server process edits the same files at the same time.
    let other = {
        let r = r.clone();
        let paths = paths.clone();
        tokio::spawn(async move {
            let server = Server::in_root(&r).await;
            let mut ok = 0;
            for k in CALLS..CALLS + OTHER {
                let files: Vec<Value> = paths
                    .iter()
                    .map(|p| json!({"file_path": s(p), "edits": [edit(&slot(k), &marked(k))]}))
                    .collect();
                for _ in 0..50 {
                    let out = server
                        .call(
                            "multi_edit_files",
                            json!({"files": files.clone(), "backup": false}),
                        )
                        .await;
                    if !out.is_error {
                        ok += 1;
                        break;
                    }
                    assert_eq!(out.code(), "STALE_FILE", "{}", out.structured);
                }
            }
            server.stop().await;
            ok
        })
    };
    let mut applied = Vec::new();
    for (k, t) in tasks.into_iter().enumerate() {
        if t.await.unwrap() {
            applied.push(k);
        }
    }
    let other_ok = other.await.unwrap();
    assert_eq!(applied.len(), CALLS, "every call eventually applied");
    assert_eq!(other_ok, OTHER);
    // No lost update: every applied call's mark is in every one of its files,
    // and no other file carries it.
    for (f, p) in paths.iter().enumerate() {
        let content = std::fs::read_to_string(p).unwrap();
        for k in 0..CALLS {
            let expect = files_of(k).contains(&f);
            assert_eq!(content.contains(&marked(k)), expect, "file {f} call {k}");
        }
        for k in CALLS..CALLS + OTHER {
            assert!(
                content.contains(&marked(k)),
                "file {f} second-process call {k}"
            );
        }
    }
    Arc::try_unwrap(server).ok().unwrap().stop().await;
}

#[test]
fn sigkill_mid_commit_leaves_all_old_or_all_new() {
    let iterations: usize = std::env::var("SPLICE_CRASH_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let (_d, r) = root();
    let journal = tempfile::tempdir().unwrap();
    const N: usize = 20;
    let paths: Vec<PathBuf> = (0..N).map(|i| r.join(format!("m{i:02}.txt"))).collect();
    let content = |generation: usize, i: usize| {
        format!(
            "generation {generation} of file {i}\n{}\n",
            "x".repeat(4096)
        )
    };
    for (i, p) in paths.iter().enumerate() {
        std::fs::write(p, content(0, i)).unwrap();
    }
    let mut generation = 0usize;
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut outcomes = [0usize; 2];
    // Kills land in [0, window): 15 ms spans a 20-file commit on a quiet
    // machine; on a loaded one a commit takes longer, so while no kill has
    // come after a commit the window doubles every 20 iterations.
    let mut window_us: u64 = 15_000;
    for iteration in 0..iterations {
        if iteration > 0 && iteration % 20 == 0 && outcomes[1] == 0 {
            window_us = (window_us * 2).min(2_000_000);
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let files: Vec<Value> = paths
            .iter()
            .map(|p| {
                json!({"file_path": s(p), "edits": [edit(&format!("generation {generation} "), &format!("generation {} ", generation + 1))]})
            })
            .collect();
        splice_tests::harness::kill_mid_call_then_recover(
            &r,
            journal.path(),
            &[],
            json!({
            "name": "multi_edit_files", "arguments": {"files": files, "backup": false}}),
            Duration::from_micros(seed % window_us),
        );
        let gens: BTreeSet<usize> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let c = std::fs::read_to_string(p).unwrap();
                (0..=generation + 1)
                    .find(|g| c == content(*g, i))
                    .unwrap_or_else(|| {
                        panic!(
                            "file {i} is neither old nor new: {:?}",
                            &c[..40.min(c.len())]
                        )
                    })
            })
            .collect();
        assert_eq!(gens.len(), 1, "mixed generations after a crash: {gens:?}");
        let g = *gens.iter().next().unwrap();
        outcomes[g - generation] += 1;
        generation = g;
        let leftovers: Vec<String> = std::fs::read_dir(&r)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('m') || !n.ends_with(".txt"))
            .collect();
        assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
    }
    eprintln!(
        "crash test: {} all-old, {} all-new (kill window {} ms)",
        outcomes[0],
        outcomes[1],
        window_us / 1000
    );
    assert!(
        outcomes[1] > 0,
        "no iteration completed a commit; the kill window is too short"
    );
}

/// A file that is not UTF-8 and a symlink loop, each beside a file the same
/// call edits: INVALID_ENCODING and SYMLINK_LOOP on the file that has it
/// (`file_index`), and the other file not written.
#[tokio::test]
async fn invalid_encoding_and_a_symlink_loop_fail_the_whole_call() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let ok = r.join("ok.txt");
    std::fs::write(&ok, "alpha\n").unwrap();
    let latin1 = r.join("latin1.txt");
    std::fs::write(&latin1, b"caf\xE9 alpha\n").unwrap();
    let looped = r.join("loop1");
    symlink(r.join("loop2"), &looped).unwrap();
    symlink(&looped, r.join("loop2")).unwrap();
    for (bad, code) in [(&latin1, "INVALID_ENCODING"), (&looped, "SYMLINK_LOOP")] {
        let out = server
            .call(
                "multi_edit_files",
                json!({"files": [
                    {"file_path": s(&ok), "edits": [edit("alpha", "ALPHA")]},
                    {"file_path": s(bad), "edits": [edit("alpha", "ALPHA")]}]}),
            )
            .await;
        let e = &out.structured;
        assert!(out.is_error, "{e:#}");
        assert_eq!(e["error_code"], code, "{e:#}");
        assert_eq!(e["file_path"], s(bad), "{e:#}");
        assert_eq!(e["file_index"], 1, "{e:#}");
        assert_eq!(std::fs::read_to_string(&ok).unwrap(), "alpha\n");
    }
    assert_eq!(std::fs::read(&latin1).unwrap(), b"caf\xE9 alpha\n");
    let mut names: Vec<String> = std::fs::read_dir(&r)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["latin1.txt", "loop1", "loop2", "ok.txt"]);
    server.stop().await;
}
