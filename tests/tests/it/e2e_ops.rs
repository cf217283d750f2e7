//! End-to-end: creating, deleting and moving files inside one
//! `multi_edit_files` transaction, through the real binary: each operation,
//! mixed transactions, every error code of the operations, the sandbox for
//! both ends of a move, and a fault in the middle of the commit (strace).
//! SIGKILL during mixed transactions is in `e2e_crash.rs`.

use std::collections::BTreeSet;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::process::Command;

use serde_json::{Value, json};
use splice_tests::fixtures::{edit, root, s, tree};
use splice_tests::harness::{Launch, Server};

fn sha(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

#[tokio::test]
async fn create_delete_and_move_each_work_and_dry_run_shows_them() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let old = r.join("old.sh");
    std::fs::write(&old, "#!/bin/sh\necho old\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o751)).unwrap();
    let gone = r.join("gone.txt");
    std::fs::write(&gone, "bye\n").unwrap();
    let new = r.join("src/deep/new.rs");
    let moved = r.join("bin/run.sh");
    let args = |dry: bool| {
        json!({"dry_run": dry, "files": [
            {"file_path": s(&new), "op": "create", "content": "fn main() {}\n", "create_parents": true},
            {"file_path": s(&gone), "op": "delete"},
            {"file_path": s(&old), "op": "move", "move_to": s(&moved), "create_parents": true,
             "edits": [edit("echo old", "echo moved")]},
        ]})
    };

    // Dry run: the whole transaction, nothing on disk.
    let before = tree(&r);
    let out = server.call("multi_edit_files", args(true)).await;
    assert!(!out.is_error, "{:#}", out.structured);
    let f = out.structured["file_results"].as_array().unwrap();
    assert_eq!(f[0]["op"], "create");
    assert!(
        f[0]["diff_preview"]
            .as_str()
            .unwrap()
            .contains("+fn main() {}")
    );
    assert_eq!(f[1]["op"], "delete");
    assert!(f[1]["diff_preview"].as_str().unwrap().contains("-bye"));
    assert_eq!(f[2]["op"], "move");
    assert_eq!(f[2]["moved_to"], s(&moved));
    assert!(
        f[2]["diff_preview"]
            .as_str()
            .unwrap()
            .contains("+echo moved")
    );
    assert!(
        out.structured["message"]
            .as_str()
            .unwrap()
            .contains("1 created, 1 deleted, 1 moved"),
        "{}",
        out.structured["message"]
    );
    assert_eq!(tree(&r), before, "a dry run touched the disk");

    // The real run.
    let out = server.call("multi_edit_files", args(false)).await;
    assert!(!out.is_error, "{:#}", out.structured);
    let f = out.structured["file_results"].as_array().unwrap();
    assert!(f.iter().all(|r| r["written"] == true), "{f:#?}");
    assert_eq!(std::fs::read_to_string(&new).unwrap(), "fn main() {}\n");
    assert_eq!(f[0]["sha256"], sha(b"fn main() {}\n"));
    assert!(!gone.exists() && !old.exists());
    assert_eq!(
        std::fs::read_to_string(&moved).unwrap(),
        "#!/bin/sh\necho moved\n"
    );
    // A moved file keeps its mode.
    let mode = std::fs::metadata(&moved).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o751);
    // No staging name, no .bak for creates, deletes and moves.
    assert_eq!(
        tree(&r),
        ["bin/", "bin/run.sh", "src/", "src/deep/", "src/deep/new.rs"]
    );

    // A create guarded by the hash of the file it replaces overwrites it.
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [{"file_path": s(&new), "op": "create", "content": "fn main() { run() }\n",
                   "expected_sha256": sha(b"fn main() {}\n")}]}),
        )
        .await;
    assert!(!out.is_error, "{:#}", out.structured);
    assert_eq!(
        std::fs::read_to_string(&new).unwrap(),
        "fn main() { run() }\n"
    );
    // A delete guarded by a hash that no longer matches is STALE_FILE.
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [{"file_path": s(&new), "op": "delete", "expected_sha256": sha(b"nope")}]}),
        )
        .await;
    assert_eq!(out.code(), "STALE_FILE");
    assert!(new.exists());
    // Deleting a file that does not exist is FILE_NOT_FOUND.
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [{"file_path": s(&gone), "op": "delete"}]}),
        )
        .await;
    assert_eq!(out.code(), "FILE_NOT_FOUND");
    server.stop().await;
}

#[tokio::test]
async fn a_mixed_transaction_is_all_or_nothing() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    for n in ["a", "b", "c", "d"] {
        std::fs::write(r.join(format!("{n}.txt")), format!("{n} old\n")).unwrap();
    }
    let call = |last: &str| {
        json!({"backup": false, "files": [
            {"file_path": s(&r.join("a.txt")), "edits": [edit("a old", "a new")]},
            {"file_path": s(&r.join("new/e.txt")), "op": "create", "content": "e\n", "create_parents": true},
            {"file_path": s(&r.join("b.txt")), "op": "delete"},
            {"file_path": s(&r.join("c.txt")), "op": "move", "move_to": s(&r.join("moved/c.txt")), "create_parents": true},
            {"file_path": s(&r.join("d.txt")), "edits": [edit(last, "d new")]},
        ]})
    };
    // The last entry fails: nothing happens, not even the directories.
    let before = tree(&r);
    let out = server.call("multi_edit_files", call("no such text")).await;
    assert_eq!(out.code(), "MATCH_NOT_FOUND");
    let statuses: Vec<&str> = out.structured["file_statuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        [
            "would_succeed",
            "would_succeed",
            "would_succeed",
            "would_succeed",
            "failed"
        ]
    );
    assert_eq!(tree(&r), before);

    let out = server.call("multi_edit_files", call("d old")).await;
    assert!(!out.is_error, "{:#}", out.structured);
    assert_eq!(
        tree(&r),
        [
            "a.txt",
            "d.txt",
            "moved/",
            "moved/c.txt",
            "new/",
            "new/e.txt"
        ]
    );
    assert_eq!(std::fs::read_to_string(r.join("a.txt")).unwrap(), "a new\n");
    assert_eq!(std::fs::read_to_string(r.join("d.txt")).unwrap(), "d new\n");
    assert_eq!(
        std::fs::read_to_string(r.join("moved/c.txt")).unwrap(),
        "c old\n"
    );
    server.stop().await;
}

#[tokio::test]
async fn every_new_error_code() {
    let (_d, r) = root();
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path().canonicalize().unwrap();
    let server = Server::in_root(&r).await;
    let a = r.join("a.txt");
    let b = r.join("b.txt");
    std::fs::write(&a, "a\n").unwrap();
    std::fs::write(&b, "b\n").unwrap();
    let call = |files: Value| json!({"files": files});

    // FILE_ALREADY_EXISTS: a create over an existing file, a move onto one,
    // a create over a directory (its type said).
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&a), "op": "create", "content": "x"}])),
        )
        .await;
    assert_eq!(out.code(), "FILE_ALREADY_EXISTS");
    assert_eq!(out.structured["file_path"], s(&a));
    assert_eq!(out.structured["file_index"], 0);
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&a), "op": "move", "move_to": s(&b)}])),
        )
        .await;
    assert_eq!(out.code(), "FILE_ALREADY_EXISTS");
    assert_eq!(out.structured["file_path"], s(&b));
    std::fs::create_dir(r.join("dir")).unwrap();
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&r.join("dir")), "op": "create", "content": "x"}])),
        )
        .await;
    assert_eq!(out.code(), "FILE_ALREADY_EXISTS");
    assert_eq!(out.structured["context"]["file_type"], "directory");

    // PARENT_DIRECTORY_MISSING without create_parents, for a create and a move.
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&r.join("x/y/z.txt")), "op": "create", "content": "x"}])),
        )
        .await;
    assert_eq!(out.code(), "PARENT_DIRECTORY_MISSING");
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&a), "op": "move", "move_to": s(&r.join("x/a.txt"))}])),
        )
        .await;
    assert_eq!(out.code(), "PARENT_DIRECTORY_MISSING");
    assert!(!r.join("x").exists());

    // MOVE_ONTO_ITSELF: the same string (a violation), or through a symlink.
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&a), "op": "move", "move_to": s(&a)}])),
        )
        .await;
    assert_eq!(out.code(), "VALIDATION_FAILED");
    assert_eq!(out.structured["violations"][0]["code"], "MOVE_ONTO_ITSELF");
    symlink(&a, r.join("link-to-a")).unwrap();
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&a), "op": "move", "move_to": s(&r.join("link-to-a"))}])),
        )
        .await;
    assert_eq!(out.code(), "MOVE_ONTO_ITSELF");

    // PATH_CONFLICT: the same path in two operations, lexically (a
    // violation) or after resolution.
    let out = server
        .call(
            "multi_edit_files",
            call(json!([
                {"file_path": s(&a), "op": "move", "move_to": s(&r.join("c.txt"))},
                {"file_path": s(&r.join("c.txt")), "op": "create", "content": "c"}])),
        )
        .await;
    assert_eq!(out.code(), "VALIDATION_FAILED");
    assert_eq!(out.structured["violations"][0]["code"], "PATH_CONFLICT");
    let out = server
        .call(
            "multi_edit_files",
            call(json!([
                {"file_path": s(&a), "edits": [edit("a", "A")]},
                {"file_path": s(&r.join("link-to-a")), "op": "delete"}])),
        )
        .await;
    assert_eq!(out.code(), "PATH_CONFLICT");
    assert_eq!(out.structured["file_index"], 1);

    // Bad combinations are violations, never a crash.
    let out = server
        .call(
            "multi_edit_files",
            call(json!([
                {"file_path": s(&a), "op": "delete", "content": "x"},
                {"file_path": s(&b), "op": "create"},
                {"file_path": s(&r.join("q")), "op": "remove"},
                {"file_path": s(&r.join("w")), "content": "x"}])),
        )
        .await;
    assert_eq!(out.code(), "VALIDATION_FAILED");
    let paths: BTreeSet<&str> = out.structured["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["path"].as_str().unwrap())
        .collect();
    for p in [
        "files[0].content",
        "files[1].content",
        "files[2].op",
        "files[3].content",
    ] {
        assert!(paths.contains(p), "{p} in {paths:?}");
    }

    // Both ends of a move go through the sandbox: out of the roots is
    // PATH_OUTSIDE_ROOTS, never a copy.
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&a), "op": "move", "move_to": s(&o.join("a.txt"))}])),
        )
        .await;
    assert_eq!(out.code(), "PATH_OUTSIDE_ROOTS");
    assert!(a.exists() && !o.join("a.txt").exists());
    std::fs::write(o.join("secret"), "s\n").unwrap();
    let out = server
        .call(
            "multi_edit_files",
            call(json!([{"file_path": s(&o.join("secret")), "op": "move", "move_to": s(&r.join("stolen"))}])),
        )
        .await;
    assert_eq!(out.code(), "PATH_OUTSIDE_ROOTS");
    assert!(!r.join("stolen").exists());
    server.stop().await;
}

/// Sandbox rows for the new operations: destinations through symlinks
/// (to outside, dangling to outside, to a directory outside), `..`, the
/// other root, existing special files; deletes through links out.
#[tokio::test]
async fn sandbox_rows_for_create_delete_and_move() {
    let (_d, r) = root();
    let (_d2, r2) = root();
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path().canonicalize().unwrap();
    let server = Server::start(Launch {
        roots: vec![r.clone(), r2.clone()],
        ..Launch::default()
    })
    .await;
    std::fs::write(r.join("a.txt"), "a\n").unwrap();
    std::fs::write(o.join("secret"), "s\n").unwrap();
    symlink(o.join("secret"), r.join("link-out")).unwrap();
    symlink(o.join("missing"), r.join("dangling-out")).unwrap();
    symlink(&o, r.join("dir-out")).unwrap();
    let fifo = r.join("fifo");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let before_out = tree(&o);
    let rows: Vec<(&str, Value, &str)> = vec![
        (
            "create through a link to an outside file",
            json!({"file_path": s(&r.join("link-out")), "op": "create", "content": "x"}),
            "PATH_OUTSIDE_ROOTS",
        ),
        (
            "create through a dangling link to outside",
            json!({"file_path": s(&r.join("dangling-out")), "op": "create", "content": "x"}),
            "PATH_OUTSIDE_ROOTS",
        ),
        (
            "create in a linked outside directory",
            json!({"file_path": s(&r.join("dir-out/new")), "op": "create", "content": "x", "create_parents": true}),
            "PATH_OUTSIDE_ROOTS",
        ),
        (
            "create below a linked outside directory with parents",
            json!({"file_path": s(&r.join("dir-out/p/q/new")), "op": "create", "content": "x", "create_parents": true}),
            "PATH_OUTSIDE_ROOTS",
        ),
        (
            "move to a dangling link to outside",
            json!({"file_path": s(&r.join("a.txt")), "op": "move", "move_to": s(&r.join("dangling-out"))}),
            "PATH_OUTSIDE_ROOTS",
        ),
        (
            "move into a linked outside directory",
            json!({"file_path": s(&r.join("a.txt")), "op": "move", "move_to": s(&r.join("dir-out/a.txt"))}),
            "PATH_OUTSIDE_ROOTS",
        ),
        (
            "delete through a link to an outside file",
            json!({"file_path": s(&r.join("link-out")), "op": "delete"}),
            "PATH_OUTSIDE_ROOTS",
        ),
        (
            "move_to with ..",
            json!({"file_path": s(&r.join("a.txt")), "op": "move", "move_to": format!("{}/../x", s(&r))}),
            "VALIDATION_FAILED",
        ),
        (
            "create over a FIFO",
            json!({"file_path": s(&fifo), "op": "create", "content": "x"}),
            "FILE_ALREADY_EXISTS",
        ),
        (
            "move onto a FIFO",
            json!({"file_path": s(&r.join("a.txt")), "op": "move", "move_to": s(&fifo)}),
            "FILE_ALREADY_EXISTS",
        ),
        (
            "delete a FIFO",
            json!({"file_path": s(&fifo), "op": "delete"}),
            "NOT_A_REGULAR_FILE",
        ),
        (
            "delete a directory",
            json!({"file_path": s(&r), "op": "delete"}),
            "NOT_A_REGULAR_FILE",
        ),
    ];
    for (what, entry, want) in rows {
        let out = server
            .call("multi_edit_files", json!({"files": [entry]}))
            .await;
        assert!(out.is_error, "{what}: {:#}", out.structured);
        assert_eq!(out.code(), want, "{what}: {:#}", out.structured);
    }
    assert_eq!(tree(&o), before_out, "something changed outside the roots");
    assert_eq!(std::fs::read_to_string(r.join("a.txt")).unwrap(), "a\n");
    assert!(fifo.exists());
    // A move to the other root is allowed: both ends inside.
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [{"file_path": s(&r.join("a.txt")), "op": "move", "move_to": s(&r2.join("a.txt"))}]}),
        )
        .await;
    assert!(!out.is_error, "{:#}", out.structured);
    assert_eq!(std::fs::read_to_string(r2.join("a.txt")).unwrap(), "a\n");
    assert!(!r.join("a.txt").exists());
    server.stop().await;
}

fn strace_available() -> bool {
    Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A fault in the middle of the commit of a mixed transaction (the
/// delete's `unlinkat` fails with EIO, after the creation and the move's
/// new name were renamed into place): everything is rolled back, the
/// directories the transaction made are removed, nothing is left behind.
#[tokio::test]
async fn a_fault_mid_commit_rolls_every_kind_back() {
    if !strace_available() {
        splice_tests::harness::skip_or_fail("strace is not installed");
        return;
    }
    let (_d, r) = root();
    let journal = tempfile::tempdir().unwrap();
    std::fs::write(r.join("a.txt"), "a old\n").unwrap();
    std::fs::write(r.join("b.txt"), "b\n").unwrap();
    std::fs::write(r.join("c.txt"), "c\n").unwrap();
    let server = Server::start(Launch {
        roots: vec![r.clone()],
        journal_dir: Some(journal.path().to_path_buf()),
        wrapper: vec![
            "strace".into(),
            "-f".into(),
            "-qq".into(),
            "-o".into(),
            "/dev/null".into(),
            "-e".into(),
            "trace=unlinkat".into(),
            "-e".into(),
            "inject=unlinkat:error=EIO:when=1".into(),
            "--".into(),
        ],
        ..Launch::default()
    })
    .await;
    let before = tree(&r);
    let out = server
        .call(
            "multi_edit_files",
            json!({"backup": false, "files": [
                {"file_path": s(&r.join("a.txt")), "edits": [edit("old", "new")]},
                {"file_path": s(&r.join("n/new.txt")), "op": "create", "content": "n\n", "create_parents": true},
                {"file_path": s(&r.join("c.txt")), "op": "move", "move_to": s(&r.join("m/c.txt")), "create_parents": true},
                {"file_path": s(&r.join("b.txt")), "op": "delete"},
            ]}),
        )
        .await;
    server.stop().await;
    let e = &out.structured;
    assert!(out.is_error, "{e:#}");
    assert_eq!(e["rollback"]["attempted"], true, "{e:#}");
    assert_eq!(tree(&r), before, "{e:#}");
    assert_eq!(std::fs::read_to_string(r.join("a.txt")).unwrap(), "a old\n");
    assert_eq!(
        std::fs::read_dir(journal.path()).unwrap().count(),
        0,
        "journal left"
    );
}
