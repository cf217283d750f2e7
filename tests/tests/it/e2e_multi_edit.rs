//! End-to-end: `multi_edit` through the real binary over stdio.
//!
//! Success paths, then one case per error code the tool can emit (table
//! driven): each asserts the code, `retryable`, `cause`, the required
//! context, `isError`, that the payload validates against the published
//! schemas (done by the harness on every call) and that the file's bytes
//! are unchanged with no `.bak` or temp file left behind.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::Digest;
use splice_tests::fixtures::{edit, s};
use splice_tests::harness::{Launch, Server};

struct Root {
    dir: tempfile::TempDir,
}

impl Root {
    fn new() -> Root {
        Root {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }
    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
    /// Names of every entry, to prove nothing was left behind.
    fn listing(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

#[tokio::test]
async fn success_paths() {
    let root = Root::new();
    let server = Server::in_root(&root.path()).await;

    // Basic edit with backup; permissions preserved on file and backup.
    let p = root.file("a.rs", b"fn a() {}\nfn b() {}\n");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o754)).unwrap();
    let r = server
        .call(
            "multi_edit",
            json!({"file_path": s(&p), "edits": [edit("fn a", "fn alpha"), edit("fn b", "fn beta")]}),
        )
        .await;
    assert!(!r.is_error, "{}", r.structured);
    assert_eq!(std::fs::read(&p).unwrap(), b"fn alpha() {}\nfn beta() {}\n");
    let bak = PathBuf::from(r.structured["backup_path"].as_str().unwrap());
    assert_eq!(bak, root.path().join("a.rs.bak"));
    assert_eq!(std::fs::read(&bak).unwrap(), b"fn a() {}\nfn b() {}\n");
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777,
        0o754
    );
    assert_eq!(
        std::fs::metadata(&bak).unwrap().permissions().mode() & 0o7777,
        0o754
    );
    assert_eq!(r.structured["edits_applied"], 2);
    let sha = hex::encode(sha2::Sha256::digest(std::fs::read(&p).unwrap()));
    assert_eq!(r.structured["sha256"], sha);

    // expected_sha256 from the previous result is accepted.
    let r = server
        .call(
            "multi_edit",
            json!({"file_path": s(&p), "edits": [edit("alpha", "a2")], "expected_sha256": sha, "backup": false}),
        )
        .await;
    assert!(!r.is_error, "{}", r.structured);

    // Dry run: diff, nothing written, no backup.
    let q = root.file("dry.txt", b"one\ntwo\n");
    let r = server
        .call(
            "multi_edit",
            json!({"file_path": s(&q), "edits": [edit("two", "TWO")], "dry_run": true}),
        )
        .await;
    assert!(!r.is_error);
    let diff = r.structured["diff_preview"].as_str().unwrap();
    assert!(diff.contains("-two") && diff.contains("+TWO"), "{diff}");
    assert_eq!(std::fs::read(&q).unwrap(), b"one\ntwo\n");
    assert!(!root.path().join("dry.txt.bak").exists());

    // replace_all, include_content, no backup.
    let q = root.file("all.txt", b"x x x\n");
    let r = server
        .call(
            "multi_edit",
            json!({"file_path": s(&q), "edits": [{"old_string": "x", "new_string": "yy", "replace_all": true}],
                   "include_content": true, "backup": false}),
        )
        .await;
    assert_eq!(r.structured["replacements"], 3);
    assert_eq!(r.structured["final_content"], "yy yy yy\n");
    assert!(!root.path().join("all.txt.bak").exists());

    // CRLF file, LF old_string: matched, CRLF written, BOM kept.
    let q = root.file("win.txt", b"\xEF\xBB\xBFline1\r\nline2\r\nline3");
    let r = server
        .call(
            "multi_edit",
            json!({"file_path": s(&q), "edits": [edit("line1\nline2", "L1\nL2\nextra")], "backup": false}),
        )
        .await;
    assert!(!r.is_error, "{}", r.structured);
    assert_eq!(
        std::fs::read(&q).unwrap(),
        b"\xEF\xBB\xBFL1\r\nL2\r\nextra\r\nline3"
    );
    assert_eq!(r.structured["eol_translated"], true);
    assert_eq!(r.structured["bom"], true);

    // No-op edit: nothing written, no backup.
    let q = root.file("noop.txt", b"same\n");
    let r = server
        .call(
            "multi_edit",
            json!({"file_path": s(&q), "edits": [edit("same", "same")]}),
        )
        .await;
    assert!(!r.is_error);
    assert_eq!(r.structured["changed"], false);
    assert_eq!(r.structured["written"], false);
    assert!(!root.path().join("noop.txt.bak").exists());

    // A symlink inside the root: the target is edited, the link survives.
    let t = root.file("target.txt", b"hello\n");
    symlink(&t, root.path().join("link.txt")).unwrap();
    let r = server
        .call(
            "multi_edit",
            json!({"file_path": s(&root.path().join("link.txt")), "edits": [edit("hello", "bye")], "backup": false}),
        )
        .await;
    assert!(!r.is_error, "{}", r.structured);
    assert_eq!(std::fs::read(&t).unwrap(), b"bye\n");
    assert!(
        std::fs::symlink_metadata(root.path().join("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // No temp file anywhere.
    assert!(
        root.listing()
            .iter()
            .all(|n| !n.contains(".tmp") && !n.contains("splice-")),
        "{:?}",
        root.listing()
    );
    server.stop().await;
}

/// What every error case asserts.
struct Expect {
    code: &'static str,
    retryable: bool,
    cause: &'static str,
    /// JSON pointers that must be present.
    present: &'static [&'static str],
}

async fn assert_error(
    server: &Server,
    root: &Root,
    file: Option<&Path>,
    args: Value,
    want: Expect,
) -> Value {
    let before = file.and_then(|f| std::fs::read(f).ok());
    let listing = root.listing();
    let r = server.call("multi_edit", args).await;
    assert!(
        r.is_error,
        "expected {} got success {}",
        want.code, r.structured
    );
    let e = &r.structured;
    assert_eq!(e["error_code"], want.code, "{e:#}");
    assert_eq!(e["retryable"], want.retryable, "{}: retryable", want.code);
    assert_eq!(e["cause"], want.cause, "{}: cause", want.code);
    assert_eq!(e["success"], false);
    assert!(!e["recovery_hints"].as_array().unwrap().is_empty());
    for ptr in want.present {
        assert!(
            e.pointer(ptr).is_some(),
            "{}: missing {ptr} in {e:#}",
            want.code
        );
    }
    let msg = e["message"].as_str().unwrap();
    assert!(!msg.contains("panicked") && !msg.contains(".rs:"), "{msg}");
    if let Some(f) = file {
        assert_eq!(std::fs::read(f).ok(), before, "{}: file changed", want.code);
    }
    assert_eq!(
        root.listing(),
        listing,
        "{}: files appeared or vanished",
        want.code
    );
    r.structured
}

#[tokio::test]
async fn one_case_per_error_code() {
    let root = Root::new();
    let outside = tempfile::tempdir().unwrap();
    let server = Server::start(Launch {
        roots: vec![root.path()],
        args: vec![
            "--max-file-size".into(),
            "4096".into(),
            "--max-request-size".into(),
            "100000".into(),
        ],
        ..Launch::default()
    })
    .await;
    let p = root.file(
        "code.txt",
        b"let a = 1;\nlet b = 2;\nlet b = 2;\nlet c = 3;\n",
    );

    // VALIDATION_FAILED, with each specific sub-code as data.
    let e = assert_error(
        &server,
        &root,
        Some(&p),
        json!({"file_path": "rel.txt", "edits": [edit("", "x"), {"old_string": 1, "new_string": "y"}],
               "expected_sha256": "abc", "dry": true}),
        Expect { code: "VALIDATION_FAILED", retryable: true, cause: "input", present: &["/violations"] },
    )
    .await;
    let mut got: Vec<String> = e["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            format!(
                "{}={}",
                v["path"].as_str().unwrap(),
                v["code"].as_str().unwrap()
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "dry=INVALID_ARGUMENT",
            "edits[0].old_string=EMPTY_OLD_STRING",
            "edits[1].old_string=INVALID_ARGUMENT",
            "expected_sha256=INVALID_SHA256",
            "file_path=RELATIVE_PATH",
        ]
    );
    for (args, sub) in [
        (
            json!({"file_path": "/a/../b", "edits": [edit("a", "b")]}),
            "PATH_TRAVERSAL",
        ),
        (json!({"file_path": s(&p), "edits": []}), "EMPTY_EDITS"),
        (
            json!({"file_path": s(&p), "edits": [edit("a", "1"), edit("a", "2")]}),
            "DUPLICATE_OLD_STRING",
        ),
        (
            json!({"file_path": "/a\u{0}b", "edits": [edit("a", "b")]}),
            "INVALID_PATH",
        ),
    ] {
        let e = assert_error(
            &server,
            &root,
            Some(&p),
            args,
            Expect {
                code: "VALIDATION_FAILED",
                retryable: true,
                cause: "input",
                present: &["/violations/0/path"],
            },
        )
        .await;
        assert_eq!(e["violations"][0]["code"], sub);
    }

    let e = assert_error(
        &server,
        &root,
        Some(&p),
        json!({"file_path": s(&p), "edits": [edit("let a", "let x"), edit("let z", "q"), edit("let c", "w")]}),
        Expect {
            code: "MATCH_NOT_FOUND",
            retryable: true,
            cause: "input",
            present: &["/file_path", "/edit_index", "/context/snippet", "/edit_status"],
        },
    )
    .await;
    assert_eq!(e["edit_index"], 1);
    assert_eq!(e["edit_status"].as_array().unwrap().len(), 2);
    assert!(
        !e["context"]["snippet"].as_str().unwrap().contains("1 |"),
        "raw lines, no numbers"
    );

    let e = assert_error(
        &server,
        &root,
        Some(&p),
        json!({"file_path": s(&p), "edits": [edit("let b = 2;", "let b = 3;")]}),
        Expect {
            code: "AMBIGUOUS_MATCH",
            retryable: true,
            cause: "input",
            present: &[
                "/context/match_locations",
                "/context/match_count",
                "/edit_index",
                "/edit_status",
            ],
        },
    )
    .await;
    assert_eq!(e["context"]["match_count"], 2);
    let lines: Vec<u64> = e["context"]["match_locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 3]);

    assert_error(
        &server,
        &root,
        Some(&p),
        json!({"file_path": s(&p), "edits": [edit("let a", "let x")], "expected_sha256": "0".repeat(64)}),
        Expect {
            code: "STALE_FILE",
            retryable: true,
            cause: "environment",
            present: &["/file_path", "/context/current_sha256", "/context/expected_sha256"],
        },
    )
    .await;

    assert_error(
        &server,
        &root,
        None,
        json!({"file_path": s(&root.path().join("missing.txt")), "edits": [edit("a", "b")]}),
        Expect {
            code: "FILE_NOT_FOUND",
            retryable: true,
            cause: "input",
            present: &["/file_path"],
        },
    )
    .await;

    // Outside the roots: same answer whether the path exists or not.
    std::fs::write(outside.path().join("exists.txt"), "a").unwrap();
    let mut answers = Vec::new();
    for name in ["exists.txt", "missing.txt"] {
        let path = s(&outside.path().join(name));
        let mut e = assert_error(
            &server,
            &root,
            None,
            json!({"file_path": path.clone(), "edits": [edit("a", "b")]}),
            Expect {
                code: "PATH_OUTSIDE_ROOTS",
                retryable: true,
                cause: "input",
                present: &["/file_path"],
            },
        )
        .await;
        // Identical answers once the path itself is blanked out.
        let msg = e["message"].as_str().unwrap().replace(&path, "P");
        e["message"] = json!(msg);
        e["file_path"] = json!("P");
        answers.push(e);
    }
    assert_eq!(answers[0], answers[1]);

    let bin = root.file("latin1.txt", b"caf\xE9\n");
    let e = assert_error(
        &server,
        &root,
        Some(&bin),
        json!({"file_path": s(&bin), "edits": [edit("caf", "tea")]}),
        Expect {
            code: "INVALID_ENCODING",
            retryable: false,
            cause: "environment",
            present: &["/file_path"],
        },
    )
    .await;
    assert!(
        e["message"].as_str().unwrap().contains('3'),
        "byte offset in message: {}",
        e["message"]
    );

    std::fs::create_dir(root.path().join("adir")).unwrap();
    assert_error(
        &server,
        &root,
        None,
        json!({"file_path": s(&root.path().join("adir")), "edits": [edit("a", "b")]}),
        Expect {
            code: "NOT_A_REGULAR_FILE",
            retryable: true,
            cause: "input",
            present: &["/file_path", "/context/file_type"],
        },
    )
    .await;

    let big = root.file("big.txt", &vec![b'a'; 5000]);
    assert_error(
        &server,
        &root,
        Some(&big),
        json!({"file_path": s(&big), "edits": [edit("a", "b")]}),
        Expect {
            code: "FILE_TOO_LARGE",
            retryable: false,
            cause: "input",
            present: &["/file_path", "/context/limit/max"],
        },
    )
    .await;

    symlink(root.path().join("loop2"), root.path().join("loop1")).unwrap();
    symlink(root.path().join("loop1"), root.path().join("loop2")).unwrap();
    assert_error(
        &server,
        &root,
        None,
        json!({"file_path": s(&root.path().join("loop1")), "edits": [edit("a", "b")]}),
        Expect {
            code: "SYMLINK_LOOP",
            retryable: false,
            cause: "environment",
            present: &["/file_path"],
        },
    )
    .await;

    assert_error(
        &server,
        &root,
        Some(&p),
        json!({"file_path": s(&p), "edits": [edit(&"x".repeat(200_000), "y")]}),
        Expect {
            code: "REQUEST_TOO_LARGE",
            retryable: true,
            cause: "input",
            present: &["/context/limit/max"],
        },
    )
    .await;

    // A .bak path that is a directory: the backup cannot be written.
    let q = root.file("bk.txt", b"old\n");
    std::fs::create_dir(root.path().join("bk.txt.bak")).unwrap();
    assert_error(
        &server,
        &root,
        Some(&q),
        json!({"file_path": s(&q), "edits": [edit("old", "new")]}),
        Expect {
            code: "BACKUP_FAILED",
            retryable: false,
            cause: "environment",
            present: &["/file_path", "/backup_path"],
        },
    )
    .await;

    server.stop().await;
}

#[tokio::test]
async fn unknown_tool_is_a_protocol_error() {
    let root = Root::new();
    let server = Server::in_root(&root.path()).await;
    let err = server
        .client()
        .call_tool(rmcp::model::CallToolRequestParams::new("nope"))
        .await
        .expect_err("unknown tool must be a JSON-RPC error");
    assert!(format!("{err:?}").contains("-32602"), "{err:?}");
    server.stop().await;
}

/// Issue 12's case: the model's memory of the file is one rename behind, so
/// no line of its `old_string` is in the file whole. The excerpt must show
/// the block it aimed at, and say on which line the excerpt starts; an
/// ambiguous edit lists the line of every match, past the five snippets.
#[tokio::test]
async fn a_stale_edit_is_answered_with_the_block_it_aimed_at_and_its_line() {
    let root = Root::new();
    let server = Server::in_root(&root.path()).await;
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!(
            "fn handler_{i}(request: &Request) -> Response {{\n    let total = request.count * {k} + offset_{i};\n    if total > LIMIT {{\n        return Response::error(total);\n    }}\n    Response::ok(total)\n}}\n\n",
            k = i % 13 + 2
        ));
    }
    let p = root.file("handlers.rs", text.as_bytes());
    // `total` was called `sum` when the model read the file.
    let stale = "    let sum = request.count * 5 + offset_146;\n    if sum > LIMIT {\n        return Response::error(sum);\n    }";
    let e = assert_error(
        &server,
        &root,
        Some(&p),
        json!({"file_path": s(&p), "edits": [edit(stale, "    let sum = 0;")]}),
        Expect {
            code: "MATCH_NOT_FOUND",
            retryable: true,
            cause: "input",
            present: &["/context/snippet", "/context/snippet_start_line"],
        },
    )
    .await;
    let snippet = e["context"]["snippet"].as_str().unwrap();
    let start = e["context"]["snippet_start_line"].as_u64().unwrap() as usize;
    let wanted = "    let total = request.count * 5 + offset_146;";
    let in_snippet = snippet.lines().position(|l| l == wanted);
    assert!(
        in_snippet.is_some(),
        "the excerpt misses the block:\n{snippet}"
    );
    let in_file = text.lines().position(|l| l == wanted).unwrap();
    assert_eq!(start + in_snippet.unwrap(), in_file + 1, "{snippet}");
    // The excerpt is the file's own lines from `snippet_start_line` on.
    let from_file: Vec<&str> = text.lines().skip(start - 1).take(15).collect();
    assert_eq!(snippet.lines().collect::<Vec<_>>(), from_file);

    // Nine matches: five snippets, nine lines.
    let e = assert_error(
        &server,
        &root,
        Some(&p),
        json!({"file_path": s(&p), "edits": [edit("request.count * 2 +", "request.count * 3 +")]}),
        Expect {
            code: "AMBIGUOUS_MATCH",
            retryable: true,
            cause: "input",
            present: &["/context/match_lines", "/context/match_locations"],
        },
    )
    .await;
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("request.count * 2 +"))
        .map(|(i, _)| i + 1)
        .collect();
    assert!(lines.len() > 5);
    let reported: Vec<usize> = e["context"]["match_lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(reported, lines);
    assert_eq!(e["context"]["match_locations"].as_array().unwrap().len(), 5);
    server.stop().await;
}
