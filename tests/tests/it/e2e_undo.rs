//! End-to-end: `undo` and `list_transactions` through
//! the real binary: undo and redo of a mixed transaction (edit, create in a
//! new directory, delete of an executable, move with edits), a single-file
//! edit, undo refused after an outside change (every changed file named,
//! nothing written), the store surviving a restart, its bounds, and each
//! new error code (TRANSACTION_NOT_FOUND, UNDO_CONFLICT, UNDO_UNAVAILABLE).
//! SIGKILL during an undo is in `e2e_crash.rs`.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};
use splice_tests::fixtures::{edit, root, s, tree};
use splice_tests::harness::{Launch, Server};

fn sha(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Every file under `dir` with its content and mode, and every directory
/// (ending in `/`), sorted: the whole state an undo must put back.
fn state(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
    fn walk(top: &Path, at: &Path, out: &mut Vec<(String, Vec<u8>, u32)>) {
        for e in std::fs::read_dir(at).unwrap() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(top).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if meta.is_dir() {
                out.push((format!("{rel}/"), Vec::new(), 0));
                walk(top, &e.path(), out);
            } else {
                let mode = meta.permissions().mode() & 0o7777;
                out.push((rel, std::fs::read(e.path()).unwrap(), mode));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// `state` without directories (an undo leaves directories a creation made).
fn files(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
    state(dir)
        .into_iter()
        .filter(|(n, _, _)| !n.ends_with('/'))
        .collect()
}

fn id_of(out: &Value) -> String {
    out["transaction_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no transaction_id in {out:#}"))
        .to_string()
}

#[tokio::test]
async fn a_mixed_transaction_is_undone_and_redone() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    std::fs::write(r.join("a.txt"), "alpha\nbeta\n").unwrap();
    let run = r.join("run.sh");
    std::fs::write(&run, "#!/bin/sh\necho old\n").unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o751)).unwrap();
    let gone = r.join("gone.sh");
    std::fs::write(&gone, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&gone, std::fs::Permissions::from_mode(0o700)).unwrap();
    let before = files(&r);

    let out = server
        .call(
            "multi_edit_files",
            json!({"backup": false, "files": [
                {"file_path": s(&r.join("a.txt")), "edits": [edit("beta", "BETA")]},
                {"file_path": s(&r.join("src/deep/new.rs")), "op": "create",
                 "content": "fn main() {}\n", "create_parents": true},
                {"file_path": s(&gone), "op": "delete"},
                {"file_path": s(&run), "op": "move", "move_to": s(&r.join("bin/run.sh")),
                 "create_parents": true, "edits": [edit("echo old", "echo new")]},
            ]}),
        )
        .await;
    assert!(!out.is_error, "{:#}", out.structured);
    let id = id_of(&out.structured);
    let after = files(&r);
    assert_ne!(before, after);

    // The listing shows it, newest first, with every path and operation.
    let list = server.call("list_transactions", json!({"limit": 5})).await;
    assert!(!list.is_error, "{:#}", list.structured);
    let t = &list.structured["transactions"][0];
    assert_eq!(t["transaction_id"], json!(id));
    assert_eq!(t["tool"], "multi_edit_files");
    let mut ops: Vec<(String, String)> = t["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = f["file_path"].as_str().unwrap();
            let rel = Path::new(p).strip_prefix(&r).unwrap().display().to_string();
            (rel, f["operation"].as_str().unwrap().to_string())
        })
        .collect();
    ops.sort();
    assert_eq!(
        ops,
        [
            ("a.txt", "edit"),
            ("bin/run.sh", "move_to"),
            ("gone.sh", "delete"),
            ("run.sh", "move_from"),
            ("src/deep/new.rs", "create"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert!(t["time"].as_str().unwrap().ends_with('Z'), "{t}");

    // A dry run says what it would do and writes nothing.
    let dry = server
        .call("undo", json!({"transaction_id": id, "dry_run": true}))
        .await;
    assert!(!dry.is_error, "{:#}", dry.structured);
    assert_eq!(dry.structured["dry_run"], true);
    assert!(dry.structured.get("transaction_id").is_none());
    assert_eq!(files(&r), after);

    // The undo: every file as before, modes included; no .bak.
    let undo = server.call("undo", json!({"transaction_id": id})).await;
    assert!(!undo.is_error, "{:#}", undo.structured);
    assert_eq!(undo.structured["undone"], json!(id));
    assert_eq!(files(&r), before);
    let redo_id = id_of(&undo.structured);
    assert_ne!(redo_id, id);
    let mut actions: Vec<String> = undo.structured["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["action"].as_str().unwrap().to_string())
        .collect();
    actions.sort();
    assert_eq!(
        actions,
        ["delete", "delete", "recreate", "recreate", "restore"]
    );

    // Undoing the same transaction again is refused: its files changed since.
    let again = server.call("undo", json!({"transaction_id": id})).await;
    assert_eq!(again.code(), "UNDO_CONFLICT");
    assert_eq!(files(&r), before);

    // Undo of the undo is a redo: the state after the call, exactly.
    let redo = server
        .call("undo", json!({"transaction_id": redo_id}))
        .await;
    assert!(!redo.is_error, "{:#}", redo.structured);
    assert_eq!(files(&r), after);
    let list = server.call("list_transactions", json!({})).await;
    let listed = list.structured["transactions"].as_array().unwrap();
    assert_eq!(listed.len(), 3);
    assert_eq!(listed[0]["tool"], "undo");
    assert_eq!(listed[0]["undoes"], json!(redo_id));
    assert_eq!(listed[1]["undoes"], json!(id));
    server.stop().await;
}

#[tokio::test]
async fn a_single_file_edit_is_undone_and_a_dry_run_or_no_op_gets_no_id() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let f = r.join("f.txt");
    std::fs::write(&f, "one\ntwo\n").unwrap();
    let dry = server
        .call(
            "multi_edit",
            json!({"file_path": s(&f), "edits": [edit("two", "2")], "dry_run": true}),
        )
        .await;
    assert!(dry.structured.get("transaction_id").is_none());
    let noop = server
        .call(
            "multi_edit",
            json!({"file_path": s(&f), "edits": [edit("two", "two")]}),
        )
        .await;
    assert!(!noop.is_error, "{:#}", noop.structured);
    assert!(noop.structured.get("transaction_id").is_none());

    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&f), "edits": [edit("two", "2")], "backup": false}),
        )
        .await;
    let id = id_of(&out.structured);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\n2\n");
    let undo = server.call("undo", json!({"transaction_id": id})).await;
    assert!(!undo.is_error, "{:#}", undo.structured);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\ntwo\n");
    assert_eq!(
        std::fs::read_dir(&r).unwrap().count(),
        1,
        "an undo writes no .bak and leaves nothing"
    );
    server.stop().await;
}

#[tokio::test]
async fn an_outside_change_refuses_the_undo_and_names_every_changed_file() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let (a, b, c, n) = (
        r.join("a.txt"),
        r.join("b.txt"),
        r.join("c.txt"),
        r.join("n.txt"),
    );
    std::fs::write(&a, "a\n").unwrap();
    std::fs::write(&b, "b\n").unwrap();
    std::fs::write(&c, "c\n").unwrap();
    let out = server
        .call(
            "multi_edit_files",
            json!({"backup": false, "files": [
                {"file_path": s(&a), "edits": [edit("a", "A")]},
                {"file_path": s(&b), "edits": [edit("b", "B")]},
                {"file_path": s(&c), "op": "delete"},
                {"file_path": s(&n), "op": "create", "content": "new\n"},
            ]}),
        )
        .await;
    let id = id_of(&out.structured);
    // Outside the server: a.txt edited again, n.txt removed, c.txt back.
    std::fs::write(&a, "A, and more\n").unwrap();
    std::fs::remove_file(&n).unwrap();
    std::fs::write(&c, "someone\n").unwrap();
    let before = state(&r);

    let refused = server.call("undo", json!({"transaction_id": id})).await;
    assert_eq!(refused.code(), "UNDO_CONFLICT");
    assert_eq!(refused.structured["retryable"], false);
    assert_eq!(refused.structured["context"]["transaction_id"], json!(id));
    let mut changed: Vec<Value> = refused.structured["context"]["changed_files"]
        .as_array()
        .unwrap()
        .clone();
    changed.sort_by_key(|c| c["file_path"].as_str().unwrap().to_string());
    assert_eq!(
        changed,
        vec![
            json!({"file_path": s(&a), "expected_sha256": sha(b"A\n"),
                   "current_sha256": sha(b"A, and more\n")}),
            json!({"file_path": s(&c), "current_sha256": sha(b"someone\n")}),
            json!({"file_path": s(&n), "expected_sha256": sha(b"new\n")}),
        ]
    );
    assert_eq!(state(&r), before, "a refused undo writes nothing");
    // b.txt alone is unchanged, but the undo is all or nothing.
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "B\n");

    // Put the files back as the call left them: the undo goes through.
    std::fs::write(&a, "A\n").unwrap();
    std::fs::write(&n, "new\n").unwrap();
    std::fs::remove_file(&c).unwrap();
    let undo = server.call("undo", json!({"transaction_id": id})).await;
    assert!(!undo.is_error, "{:#}", undo.structured);
    for (p, want) in [(&a, "a\n"), (&b, "b\n"), (&c, "c\n")] {
        assert_eq!(std::fs::read_to_string(p).unwrap(), want);
    }
    assert!(!n.exists());
    server.stop().await;
}

#[tokio::test]
async fn a_deleted_file_whose_directory_is_gone_since_is_recreated_with_it() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let deep = r.join("a/b/deep.txt");
    std::fs::create_dir_all(deep.parent().unwrap()).unwrap();
    std::fs::write(&deep, "deep\n").unwrap();
    std::fs::set_permissions(&deep, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [{"file_path": s(&deep), "op": "delete"}]}),
        )
        .await;
    let id = id_of(&out.structured);
    // Outside: the emptied directories go too (the file stays absent, as
    // the call left it).
    std::fs::remove_dir_all(r.join("a")).unwrap();
    let undo = server.call("undo", json!({"transaction_id": id})).await;
    assert!(!undo.is_error, "{:#}", undo.structured);
    assert_eq!(std::fs::read_to_string(&deep).unwrap(), "deep\n");
    let mode = std::fs::metadata(&deep).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640);
    server.stop().await;
}

#[tokio::test]
async fn unknown_and_malformed_ids_and_a_path_outside_the_roots() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let missing = server
        .call(
            "undo",
            json!({"transaction_id": "019a2b3c4d5e-00001f2a-00000003"}),
        )
        .await;
    assert_eq!(missing.code(), "TRANSACTION_NOT_FOUND");
    assert_eq!(
        missing.structured["context"]["transaction_id"],
        "019a2b3c4d5e-00001f2a-00000003"
    );
    for bad in [
        json!({"transaction_id": "../../etc"}),
        json!({}),
        json!({"transaction_id": 3}),
    ] {
        let out = server.call("undo", bad).await;
        assert_eq!(out.code(), "VALIDATION_FAILED");
    }
    let out = server.call("list_transactions", json!({"limit": 0})).await;
    assert_eq!(out.code(), "VALIDATION_FAILED");
    server.stop().await;
}

#[tokio::test]
async fn the_store_survives_a_restart_and_narrower_roots_neither_list_nor_undo() {
    let (_d, r) = root();
    let journal = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let inner = r.join("inner");
    std::fs::create_dir(&inner).unwrap();
    let f = r.join("f.txt");
    std::fs::write(&f, "x\n").unwrap();
    let launch = |root: &Path| Launch {
        roots: vec![root.to_path_buf()],
        journal_dir: Some(journal.path().to_path_buf()),
        undo_dir: Some(store.path().join("undo")),
        ..Launch::default()
    };
    let server = Server::start(launch(&r)).await;
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&f), "edits": [edit("x", "y")], "backup": false}),
        )
        .await;
    let id = id_of(&out.structured);
    server.stop().await;

    // A server whose root does not hold f.txt sees nothing of it.
    let narrow = Server::start(launch(&inner)).await;
    let list = narrow.call("list_transactions", json!({})).await;
    assert_eq!(list.structured["transactions"], json!([]));
    let out = narrow.call("undo", json!({"transaction_id": id})).await;
    assert_eq!(out.code(), "PATH_OUTSIDE_ROOTS");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "y\n");
    narrow.stop().await;

    let again = Server::start(launch(&r)).await;
    let undo = again.call("undo", json!({"transaction_id": id})).await;
    assert!(!undo.is_error, "{:#}", undo.structured);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "x\n");
    again.stop().await;
}

#[tokio::test]
async fn the_store_keeps_the_newest_transactions_within_its_bounds() {
    let (_d, r) = root();
    let server = Server::start(Launch {
        roots: vec![r.clone()],
        args: vec!["--undo-max-transactions".into(), "2".into()],
        ..Launch::default()
    })
    .await;
    let f = r.join("f.txt");
    std::fs::write(&f, "0\n").unwrap();
    let mut ids = Vec::new();
    for i in 0..3 {
        let out = server
            .call(
                "multi_edit",
                json!({"file_path": s(&f), "edits": [edit(&format!("{i}\n"), &format!("{}\n", i + 1))],
                       "backup": false}),
            )
            .await;
        ids.push(id_of(&out.structured));
    }
    let list = server.call("list_transactions", json!({})).await;
    let listed: Vec<&str> = list.structured["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["transaction_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [ids[2].as_str(), ids[1].as_str()]);
    let oldest = server.call("undo", json!({"transaction_id": ids[0]})).await;
    assert_eq!(oldest.code(), "TRANSACTION_NOT_FOUND");
    server.stop().await;

    // A byte bound smaller than a call: committed, but answered without an id.
    let small = Server::start(Launch {
        roots: vec![r.clone()],
        args: vec!["--undo-max-bytes".into(), "1".into()],
        ..Launch::default()
    })
    .await;
    let out = small
        .call(
            "multi_edit",
            json!({"file_path": s(&f), "edits": [edit("3", "4")], "backup": false}),
        )
        .await;
    assert!(!out.is_error, "{:#}", out.structured);
    assert!(out.structured.get("transaction_id").is_none());
    assert!(
        out.structured["message"]
            .as_str()
            .unwrap()
            .contains("not recorded for undo"),
        "{:#}",
        out.structured
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "4\n");
    small.stop().await;
}

#[tokio::test]
async fn an_unusable_store_still_edits_and_answers_undo_unavailable() {
    let (_d, r) = root();
    let not_a_dir = r.join("store-file");
    std::fs::write(&not_a_dir, "").unwrap();
    let server = Server::start(Launch {
        roots: vec![r.clone()],
        args: vec!["--undo-dir".into(), s(&not_a_dir.join("undo"))],
        ..Launch::default()
    })
    .await;
    let f = r.join("f.txt");
    std::fs::write(&f, "x\n").unwrap();
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&f), "edits": [edit("x", "y")], "backup": false}),
        )
        .await;
    assert!(!out.is_error, "{:#}", out.structured);
    assert!(out.structured.get("transaction_id").is_none());
    let undo = server
        .call(
            "undo",
            json!({"transaction_id": "019a2b3c4d5e-00001f2a-00000003"}),
        )
        .await;
    assert_eq!(undo.code(), "UNDO_UNAVAILABLE");
    assert_eq!(undo.structured["context"]["os_error"], "ENOTDIR");
    assert_eq!(
        undo.structured["context"]["undo_dir"],
        json!(s(&not_a_dir.join("undo")))
    );
    let list = server.call("list_transactions", json!({})).await;
    assert_eq!(list.code(), "UNDO_UNAVAILABLE");
    server.stop().await;
}

/// Runs `undo` of `id` and, once the undo has staged a name ending in
/// `suffix` beside `target` (so it has checked and locked every path),
/// calls `change`: what another process does to `target` while the undo
/// commits. The server must delay its renames (`strace`
/// `inject=...:delay_enter=`) so that `change` lands before the rename.
async fn undo_while(
    server: &Server,
    id: &str,
    target: &Path,
    suffix: &str,
    change: impl FnOnce(),
) -> splice_tests::harness::Outcome {
    let dir = target.parent().unwrap();
    let staged = format!(".{}.splice", target.file_name().unwrap().to_str().unwrap());
    let call = server.call("undo", json!({"transaction_id": id}));
    let other = async {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !crate::e2e_faults::listing(dir)
            .iter()
            .any(|n| n.starts_with(&staged) && n.ends_with(suffix))
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the undo never staged {staged}*{suffix}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        change();
    };
    let (out, ()) = tokio::join!(call, other);
    out
}

/// Each state an undo's target can be found in that is not an
/// UNDO_CONFLICT, through `undo`. Found when the undo looks: a directory of
/// the path replaced by a file (FILE_NOT_FOUND: `ENOTDIR`), the file by a
/// symlink loop (SYMLINK_LOOP), the file over a lower `--max-file-size`
/// (FILE_TOO_LARGE). Found once the undo commits (another process acts
/// between the undo's checks and its rename, which `strace` delays): the
/// name of a deleted file the undo recreates taken meanwhile
/// (FILE_ALREADY_EXISTS), the file it restores replaced by a directory
/// (NOT_A_REGULAR_FILE). Each leaves what the other process made, no
/// staging name and no journal. A deleted file whose directories were
/// removed since is recreated with them: undo has no
/// PARENT_DIRECTORY_MISSING.
#[tokio::test]
async fn each_state_of_a_restore_target_past_the_conflict_checks() {
    if crate::e2e_faults::strace().is_none() {
        return;
    }
    let (_d, base) = root();
    let (r, journal, undo) = (base.join("tree"), base.join("journal"), base.join("undo"));
    std::fs::create_dir_all(r.join("nf")).unwrap();
    std::fs::create_dir(&journal).unwrap();
    let not_found = r.join("nf/a.txt");
    let looped = r.join("loop.txt");
    let big = r.join("big.txt");
    let taken = r.join("taken.txt");
    let dir = r.join("dir.txt");
    let deep = r.join("sub/deeper/gone.txt");
    std::fs::create_dir_all(deep.parent().unwrap()).unwrap();
    for p in [&not_found, &looped, &taken, &dir, &deep] {
        std::fs::write(p, "needle\n").unwrap();
    }
    std::fs::write(&big, format!("needle\n{}\n", "x".repeat(2000))).unwrap();
    let launch = Launch {
        roots: vec![r.clone()],
        journal_dir: Some(journal.clone()),
        undo_dir: Some(undo.clone()),
        ..Launch::default()
    };
    let server = Server::start(launch.clone()).await;
    let mut ids = std::collections::HashMap::new();
    for p in [&not_found, &looped, &big, &dir, &taken, &deep] {
        let file = if p == &taken || p == &deep {
            json!({"file_path": s(p), "op": "delete"})
        } else {
            json!({"file_path": s(p), "edits": [edit("needle", "NEEDLE")]})
        };
        let out = server
            .call(
                "multi_edit_files",
                json!({"backup": false, "files": [file]}),
            )
            .await;
        assert!(!out.is_error, "{:#}", out.structured);
        ids.insert(p.clone(), id_of(&out.structured));
    }
    server.stop().await;

    std::fs::rename(r.join("nf"), r.join("nf.moved")).unwrap();
    std::fs::write(r.join("nf"), "a file where a directory was\n").unwrap();
    std::fs::remove_file(&looped).unwrap();
    std::os::unix::fs::symlink("loop.txt", &looped).unwrap();
    std::fs::remove_dir_all(r.join("sub")).unwrap();
    let renames = "rename,renameat,renameat2";
    let server = crate::e2e_faults::straced_with(
        Launch {
            args: vec!["--max-file-size".into(), "1000".into()],
            ..launch
        },
        &[
            "-e".as_ref(),
            format!("trace={renames}").as_ref(),
            "-P".as_ref(),
            r.as_os_str(),
            "-e".as_ref(),
            format!("inject={renames}:delay_enter=300000").as_ref(),
        ],
    )
    .await;
    let undo_of = |p: &Path| json!({"transaction_id": ids[p]});
    let expect = |out: &splice_tests::harness::Outcome, code: &str, p: &Path| {
        let e = &out.structured;
        assert!(out.is_error, "{code}: expected an error, got {e:#}");
        assert_eq!(e["error_code"], code, "{e:#}");
        assert_eq!(e["file_path"], s(p), "{e:#}");
        e.clone()
    };

    let out = server.call("undo", undo_of(&not_found)).await;
    expect(&out, "FILE_NOT_FOUND", &not_found);
    let out = server.call("undo", undo_of(&looped)).await;
    expect(&out, "SYMLINK_LOOP", &looped);
    let out = server.call("undo", undo_of(&big)).await;
    let e = expect(&out, "FILE_TOO_LARGE", &big);
    assert_eq!(e["context"]["limit"]["max"], 1000, "{e:#}");
    assert!(
        std::fs::read_to_string(&big)
            .unwrap()
            .starts_with("NEEDLE\n")
    );

    let out = undo_while(&server, &ids[&taken], &taken, ".tmp", || {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&taken)
            .expect(
                "the undo recreated the file before the other process: delay its renames longer",
            );
        std::io::Write::write_all(&mut f, b"another process's\n").unwrap();
    })
    .await;
    expect(&out, "FILE_ALREADY_EXISTS", &taken);
    assert_eq!(
        std::fs::read_to_string(&taken).unwrap(),
        "another process's\n"
    );

    let out = undo_while(&server, &ids[&dir], &dir, ".undo", || {
        assert_eq!(
            std::fs::read_to_string(&dir).unwrap(),
            "NEEDLE\n",
            "the undo restored the file before the other process: delay its renames longer"
        );
        std::fs::remove_file(&dir).unwrap();
        std::fs::create_dir(&dir).unwrap();
    })
    .await;
    let e = expect(&out, "NOT_A_REGULAR_FILE", &dir);
    assert_eq!(e["context"]["file_type"], "directory", "{e:#}");
    assert!(dir.is_dir());

    let out = server.call("undo", undo_of(&deep)).await;
    assert!(!out.is_error, "{:#}", out.structured);
    assert_eq!(std::fs::read_to_string(&deep).unwrap(), "needle\n");
    server.stop().await;

    assert_eq!(
        std::fs::read_to_string(r.join("nf")).unwrap(),
        "a file where a directory was\n"
    );
    let left: Vec<String> = tree(&r)
        .into_iter()
        .filter(|n| n.contains(".splice"))
        .collect();
    assert!(left.is_empty(), "staging names left: {left:?}");
    assert_eq!(crate::e2e_faults::listing(&journal), Vec::<String>::new());
}
