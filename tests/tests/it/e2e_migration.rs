//! The predecessor's own MCP test cases (`mcp-multi-edit`:
//! `tests/integration/server.test.ts` and `edge-cases.test.ts`), ported to
//! run against the real splice binary over stdio, so clients and scripts
//! written for it keep working. Where splice differs on purpose the case
//! asserts splice's answer and says why (the README's "Migrating from
//! mcp-multi-edit" lists every difference).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use splice_tests::fixtures::{root, s};
use splice_tests::harness::Server;

fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn one(p: &Path, old: &str, new: &str) -> Value {
    json!({"file_path": s(p), "edits": [{"old_string": old, "new_string": new}], "backup": false})
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[tokio::test]
async fn tool_discovery() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let tools = server.client().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    // mcp-multi-edit's two tools, plus splice's undo and list_transactions.
    assert_eq!(names.len(), 4);
    assert!(names.contains(&"multi_edit") && names.contains(&"multi_edit_files"));
    assert!(names.contains(&"undo") && names.contains(&"list_transactions"));
    for t in &tools {
        let required = t
            .input_schema
            .get("required")
            .and_then(|r| r.as_array())
            .cloned()
            .unwrap_or_default();
        let want = match t.name.as_ref() {
            "multi_edit" => vec!["file_path", "edits"],
            "multi_edit_files" => vec!["files"],
            "undo" => vec!["transaction_id"],
            _ => vec![],
        };
        for w in want {
            assert!(required.iter().any(|r| r == w), "{}: {w}", t.name);
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn multi_edit_cases() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;

    // single edit modifies the file on disk
    let p = file(&r, "test.txt", "hello world");
    let out = server.call("multi_edit", one(&p, "hello", "goodbye")).await;
    assert!(!out.is_error);
    assert_eq!(out.structured["success"], true);
    assert_eq!(out.structured["edits_applied"], 1);
    assert_eq!(read(&p), "goodbye world");

    // multiple edits apply sequentially
    let p = file(&r, "multi.txt", "aaa bbb ccc");
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&p), "backup": false, "edits": [
                {"old_string": "aaa", "new_string": "xxx"},
                {"old_string": "bbb", "new_string": "yyy"}]}),
        )
        .await;
    assert_eq!(out.structured["edits_applied"], 2);
    // The predecessor's per-edit fields, in call order.
    let edits: Vec<(Value, Value, Value)> = out.structured["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["old_string"].clone(),
                e["matched"].clone(),
                e["occurrences_replaced"].clone(),
            )
        })
        .collect();
    assert_eq!(
        edits,
        vec![
            (json!("aaa"), json!(true), json!(1)),
            (json!("bbb"), json!(true), json!(1))
        ]
    );
    assert_eq!(read(&p), "xxx yyy ccc");

    // dry_run leaves the file unchanged and previews the change
    let p = file(&r, "dry.txt", "original");
    let mut args = one(&p, "original", "modified");
    args["dry_run"] = json!(true);
    let out = server.call("multi_edit", args).await;
    assert_eq!(out.structured["success"], true);
    assert_eq!(out.structured["dry_run"], true);
    let diff = out.structured["diff_preview"].as_str().unwrap();
    assert!(
        diff.contains("-original") && diff.contains("+modified"),
        "{diff}"
    );
    assert_eq!(read(&p), "original");

    // backup: true writes <file>.bak with the original content
    let p = file(&r, "backup-test.txt", "before edit");
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&p), "backup": true, "edits": [
                {"old_string": "before", "new_string": "after"}]}),
        )
        .await;
    assert_eq!(read(&p), "after edit");
    let bak = out.structured["backup_path"].as_str().unwrap();
    assert!(bak.ends_with(".bak"));
    assert_eq!(read(Path::new(bak)), "before edit");

    // include_content answers final_content
    let p = file(&r, "content.txt", "abc");
    let mut args = one(&p, "b", "B");
    args["include_content"] = json!(true);
    let out = server.call("multi_edit", args).await;
    assert_eq!(out.structured["final_content"], "aBc");

    // non-existent file: the predecessor said VALIDATION_FAILED; splice
    // gives the file problem its own code (on purpose).
    let out = server
        .call("multi_edit", one(&r.join("nonexistent.txt"), "a", "b"))
        .await;
    assert!(out.is_error);
    assert_eq!(out.code(), "FILE_NOT_FOUND");
    assert_eq!(out.structured["success"], false);

    // old_string not found
    let p = file(&r, "nomatch.txt", "hello world");
    let out = server
        .call("multi_edit", one(&p, "missing_string", "replacement"))
        .await;
    assert_eq!(out.code(), "MATCH_NOT_FOUND");
    assert_eq!(out.structured["success"], false);
    assert_eq!(read(&p), "hello world");

    // unknown tool: a JSON-RPC error per the MCP spec, not an UNKNOWN_TOOL
    // result (on purpose).
    let err = server
        .client()
        .call_tool(rmcp::model::CallToolRequestParams::new("nonexistent_tool"))
        .await
        .unwrap_err();
    assert!(format!("{err:?}").contains("-32602"), "{err:?}");
    server.stop().await;
}

#[tokio::test]
async fn multi_edit_files_cases() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let f1 = file(&r, "file1.txt", "aaa");
    let f2 = file(&r, "file2.txt", "bbb");
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [
                {"file_path": s(&f1), "edits": [{"old_string": "aaa", "new_string": "xxx"}]},
                {"file_path": s(&f2), "edits": [{"old_string": "bbb", "new_string": "yyy"}]}]}),
        )
        .await;
    assert!(!out.is_error);
    assert_eq!(out.structured["success"], true);
    assert_eq!(out.structured["files_edited"], 2);
    assert_eq!(
        out.structured["summary"],
        json!({"total_files": 2, "files_succeeded": 2, "files_failed": 0, "total_edits": 2})
    );
    let results = out.structured["file_results"].as_array().unwrap();
    assert_eq!(results[0]["file_path"], s(&f1));
    assert_eq!(results[1]["edits"][0]["occurrences_replaced"], 1);
    assert_eq!((read(&f1), read(&f2)), ("xxx".into(), "yyy".into()));

    // One file fails: nothing is written. The predecessor wrote file 1,
    // restored it and answered `rollback`; splice never writes it, so there
    // is no rollback to report (on purpose), and file_statuses says what
    // would have happened.
    let g1 = file(&r, "g1.txt", "aaa");
    let g2 = file(&r, "g2.txt", "bbb");
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [
                {"file_path": s(&g1), "edits": [{"old_string": "aaa", "new_string": "xxx"}]},
                {"file_path": s(&g2), "edits": [{"old_string": "nonexistent_string", "new_string": "else"}]}]}),
        )
        .await;
    assert_eq!(out.code(), "MATCH_NOT_FOUND");
    assert_eq!(read(&g1), "aaa");
    assert!(out.structured.get("rollback").is_none());
    let statuses: Vec<&str> = out.structured["file_statuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["would_succeed", "failed"]);

    // dry run for multi-file
    let h1 = file(&r, "h1.txt", "alpha");
    let h2 = file(&r, "h2.txt", "beta");
    let out = server
        .call(
            "multi_edit_files",
            json!({"dry_run": true, "files": [
                {"file_path": s(&h1), "edits": [{"old_string": "alpha", "new_string": "ALPHA"}]},
                {"file_path": s(&h2), "edits": [{"old_string": "beta", "new_string": "BETA"}]}]}),
        )
        .await;
    assert_eq!(out.structured["success"], true);
    assert!(
        out.structured["file_results"][1]["diff_preview"]
            .as_str()
            .unwrap()
            .contains("+BETA")
    );
    assert_eq!((read(&h1), read(&h2)), ("alpha".into(), "beta".into()));
    server.stop().await;
}

/// `edge-cases.test.ts`: unicode, large files, empty and minimal edits,
/// line endings, match behaviour.
#[tokio::test]
async fn edge_cases() {
    let (_d, r) = root();
    let server = Server::in_root(&r).await;
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        // (name, content, old, new, expected)
        (
            "cjk.txt",
            "const greeting = \"Hello, 世界!\";",
            "Hello, 世界!",
            "こんにちは世界!",
            "const greeting = \"こんにちは世界!\";",
        ),
        (
            "emoji.txt",
            "const rocket = \"🚀 launch\";",
            "🚀 launch",
            "🌟 star",
            "const rocket = \"🌟 star\";",
        ),
        (
            "accented.txt",
            "café naïve résumé",
            "café",
            "coffee",
            "coffee naïve résumé",
        ),
        ("noop.txt", "hello world", "hello", "hello", "hello world"),
        ("delete-all.txt", "delete me", "delete me", "", ""),
        (
            "crlf.txt",
            "line1\r\nline2\r\nline3",
            "line2",
            "replaced",
            "line1\r\nreplaced\r\nline3",
        ),
        (
            "mixed.txt",
            "unix\nmixed\r\nfile",
            "mixed",
            "changed",
            "unix\nchanged\r\nfile",
        ),
        (
            "file with spaces.txt",
            "hello",
            "hello",
            "goodbye",
            "goodbye",
        ),
    ];
    for (name, content, old, new, expected) in cases {
        let p = file(&r, name, content);
        let out = server.call("multi_edit", one(&p, old, new)).await;
        assert!(!out.is_error, "{name}: {}", out.structured);
        assert_eq!(read(&p), *expected, "{name}");
    }

    // mixed unicode in a multi-file edit
    let a = file(&r, "cjk-multi.txt", "你好世界");
    let b = file(&r, "emoji-multi.txt", "🚀 launch");
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [
                {"file_path": s(&a), "edits": [{"old_string": "你好", "new_string": "こんにちは"}]},
                {"file_path": s(&b), "edits": [{"old_string": "🚀", "new_string": "🌟"}]}]}),
        )
        .await;
    assert!(!out.is_error);
    assert_eq!(
        (read(&a), read(&b)),
        ("こんにちは世界".into(), "🌟 launch".into())
    );

    // a 1 MB+ file and a 100,000-character line
    let large: String = (0..20_000)
        .map(|i| format!("line {i}: {}", "x".repeat(50)))
        .collect::<Vec<_>>()
        .join("\n");
    let p = file(&r, "large.txt", &large);
    let out = server
        .call("multi_edit", one(&p, "line 10000:", "REPLACED LINE 10000:"))
        .await;
    assert!(!out.is_error);
    let got = read(&p);
    assert!(got.len() > 1_000_000 && got.contains("REPLACED LINE 10000:"));
    let long = format!("{}MARKER{}", "A".repeat(49_000), "B".repeat(51_000 - 6));
    let p = file(&r, "longline.txt", &long);
    server
        .call("multi_edit", one(&p, "MARKER", "REPLACED"))
        .await;
    assert_eq!(read(&p).len(), 100_000 - 6 + 8);

    // empty edits array: VALIDATION_FAILED, file unchanged
    let p = file(&r, "empty-edits.txt", "content");
    let out = server
        .call("multi_edit", json!({"file_path": s(&p), "edits": []}))
        .await;
    assert_eq!(out.code(), "VALIDATION_FAILED");
    assert_eq!(read(&p), "content");

    // replace_all, and an ambiguous match without it
    let p = file(&r, "replace-all.txt", "aaa bbb aaa ccc aaa");
    server
        .call(
            "multi_edit",
            json!({"file_path": s(&p), "backup": false, "edits": [
                {"old_string": "aaa", "new_string": "xxx", "replace_all": true}]}),
        )
        .await;
    assert_eq!(read(&p), "xxx bbb xxx ccc xxx");
    let p = file(&r, "ambiguous.txt", "aaa bbb aaa");
    let out = server.call("multi_edit", one(&p, "aaa", "xxx")).await;
    assert_eq!(out.code(), "AMBIGUOUS_MATCH");
    assert_eq!(out.structured["success"], false);
    assert_eq!(read(&p), "aaa bbb aaa");
    server.stop().await;
}
