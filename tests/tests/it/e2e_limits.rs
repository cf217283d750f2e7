//! Limits and answer caps, through the real binary over stdio: each
//! `--max-*` limit breached with its own code and the limit in
//! `context.limit`, the value at the limit accepted, growth past
//! `--max-file-size` stopped at the edit that crosses it (also through
//! chained `replace_all`), nothing read past the limit (the server's
//! `/proc/<pid>/io`), and capped diffs, contents and snippets that say they
//! were cut. The whole-answer cap (4 MiB for both copies, cut file by
//! file) is checked with the official Python SDK
//! (`tests/interop-py/test_interop.py`, run by `interop_py.rs`).

use std::path::PathBuf;

use serde_json::{Value, json};
use sha2::Digest;
use splice_tests::fixtures::{edit, root as scratch, s};
use splice_tests::harness::{Launch, Outcome, Server};

/// Bytes the process has read through read(2) and friends so far.
fn rchar(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap();
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn violation(out: &Outcome) -> (String, String, String) {
    assert_eq!(out.code(), "VALIDATION_FAILED", "{}", out.structured);
    let v = out.structured["violations"].as_array().unwrap();
    assert_eq!(v.len(), 1, "{}", out.structured);
    (
        v[0]["path"].as_str().unwrap().into(),
        v[0]["code"].as_str().unwrap().into(),
        v[0]["message"].as_str().unwrap().into(),
    )
}

fn edits(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| edit(&format!("w{i}"), &format!("W{i}")))
            .collect(),
    )
}

/// Limits already covered by e2e_multi_edit.rs `one_case_per_error_code`:
/// FILE_TOO_LARGE (a file over --max-file-size, code and `context.limit.max`
/// present) and REQUEST_TOO_LARGE (an oversized old_string). Here: the exact
/// limit values, the boundary accepted, growth past the limit
/// (RESULT_TOO_LARGE, also through chained `replace_all`), nothing read past
/// it, --max-edits and --max-files.
#[tokio::test]
async fn limits_are_enforced_at_their_exact_values() {
    const MAX_FILE: u64 = 4096;
    const MAX_REQ: usize = 20_000;
    let (_tmp, root) = scratch();
    let server = Server::start(Launch {
        roots: vec![root.clone()],
        args: [
            "--max-file-size",
            &MAX_FILE.to_string(),
            "--max-edits",
            "3",
            "--max-files",
            "2",
            "--max-request-size",
            &MAX_REQ.to_string(),
        ]
        .map(String::from)
        .to_vec(),
        ..Launch::default()
    })
    .await;
    let pid = server.pid().expect("server pid");
    let limit_of = |out: &Outcome| out.structured["context"]["limit"].clone();

    // --max-file-size: a file of exactly the limit is edited.
    let at = root.join("at.txt");
    std::fs::write(&at, format!("w0{}", "a".repeat(MAX_FILE as usize - 2))).unwrap();
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&at), "edits": [edit("w0", "W0")], "backup": false}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    // One byte over: refused with the limit and the size.
    let over = root.join("over.txt");
    std::fs::write(&over, format!("w0{}", "a".repeat(MAX_FILE as usize - 1))).unwrap();
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&over), "edits": [edit("w0", "W0")]}),
        )
        .await;
    assert_eq!(out.code(), "FILE_TOO_LARGE");
    assert_eq!(
        limit_of(&out),
        json!({"name": "max_file_size", "max": MAX_FILE, "actual": MAX_FILE + 1})
    );
    // An edit growing the file to exactly the limit is written; one byte
    // more is refused and nothing is written.
    let grow = root.join("grow.txt");
    std::fs::write(&grow, format!("w0{}", "a".repeat(4000))).unwrap();
    let to_limit = "W".repeat(MAX_FILE as usize - 4000);
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&grow), "edits": [edit("w0", &to_limit)], "dry_run": true}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    let past = "W".repeat(MAX_FILE as usize - 4000 + 1);
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&grow), "edits": [edit("w0", &past)]}),
        )
        .await;
    assert_eq!(out.code(), "RESULT_TOO_LARGE");
    assert_eq!(out.structured["edit_index"], 0);
    assert_eq!(
        limit_of(&out),
        json!({"name": "max_file_size", "max": MAX_FILE, "actual": MAX_FILE + 1})
    );
    assert_eq!(std::fs::read(&grow).unwrap().len(), 4002);
    assert!(!root.join("grow.txt.bak").exists());
    // Chained replace_all edits that double the file: stopped at the edit
    // that crosses the limit (1000 -> 2000 -> 4000 -> 8000 bytes).
    let chain = root.join("chain.txt");
    std::fs::write(&chain, "x".repeat(1000)).unwrap();
    let double = |n: usize| json!({"old_string": "x".repeat(n), "new_string": "x".repeat(2 * n), "replace_all": true});
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&chain), "edits": [double(1), double(2), double(4)]}),
        )
        .await;
    assert_eq!(out.code(), "RESULT_TOO_LARGE", "{}", out.structured);
    assert_eq!(out.structured["edit_index"], 2);
    assert!(limit_of(&out)["actual"].as_u64().unwrap() > MAX_FILE);
    assert_eq!(out.structured["retryable"], true);
    assert_eq!(std::fs::read(&chain).unwrap(), "x".repeat(1000).as_bytes());
    // Nothing is read past the limit: a 32 MiB file costs the server
    // (almost) no reads. rchar counts every byte read, the request included.
    let huge = root.join("huge.txt");
    std::fs::write(&huge, vec![b'w'; 32 << 20]).unwrap();
    let before = rchar(pid);
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&huge), "edits": [edit("w0", "W0")]}),
        )
        .await;
    let read = rchar(pid) - before;
    assert_eq!(out.code(), "FILE_TOO_LARGE");
    assert_eq!(limit_of(&out)["actual"], 32u64 << 20);
    assert!(read < MAX_FILE + 64 * 1024, "the server read {read} bytes");

    // --max-edits 3 (per file): 3 pass, 4 are refused before anything is read.
    let e = root.join("edits.txt");
    std::fs::write(&e, "w0 w1 w2 w3\n").unwrap();
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&e), "edits": edits(3), "backup": false}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    std::fs::write(&e, "w0 w1 w2 w3\n").unwrap();
    let out = server
        .call("multi_edit", json!({"file_path": s(&e), "edits": edits(4)}))
        .await;
    let (path, code, msg) = violation(&out);
    assert_eq!((path.as_str(), code.as_str()), ("edits", "TOO_MANY_EDITS"));
    assert!(msg.contains("limit of 3"), "{msg}");
    // The limit is data on the violation, not only text.
    assert_eq!(
        out.structured["violations"][0]["limit"],
        json!({"name": "max_edits", "max": 3, "actual": 4}),
        "{}",
        out.structured
    );
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": [{"file_path": s(&e), "edits": edits(4)}]}),
        )
        .await;
    let (path, code, msg) = violation(&out);
    assert_eq!(
        (path.as_str(), code.as_str()),
        ("files[0].edits", "TOO_MANY_EDITS")
    );
    assert!(msg.contains("limit of 3"), "{msg}");
    assert_eq!(std::fs::read_to_string(&e).unwrap(), "w0 w1 w2 w3\n");

    // --max-files 2: 2 pass, 3 are refused.
    let files: Vec<PathBuf> = (0..3).map(|i| root.join(format!("m{i}.txt"))).collect();
    for f in &files {
        std::fs::write(f, "w0\n").unwrap();
    }
    let entry = |f: &PathBuf| json!({"file_path": s(f), "edits": [edit("w0", "W0")]});
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": files[..2].iter().map(entry).collect::<Vec<_>>(), "dry_run": true}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    let out = server
        .call(
            "multi_edit_files",
            json!({"files": files.iter().map(entry).collect::<Vec<_>>()}),
        )
        .await;
    let (path, code, msg) = violation(&out);
    assert_eq!((path.as_str(), code.as_str()), ("files", "TOO_MANY_FILES"));
    assert!(msg.contains("limit of 2"), "{msg}");
    assert_eq!(
        out.structured["violations"][0]["limit"],
        json!({"name": "max_files", "max": 2, "actual": 3}),
        "{}",
        out.structured
    );
    assert!(
        files
            .iter()
            .all(|f| std::fs::read_to_string(f).unwrap() == "w0\n")
    );

    // A path component over the name limit (255 bytes): INVALID_PATH, with
    // the limit as data on the violation.
    let long = format!("{}/{}.txt", s(&root), "n".repeat(252));
    let out = server
        .call("multi_edit", json!({"file_path": long, "edits": edits(1)}))
        .await;
    let (path, code, _) = violation(&out);
    assert_eq!(
        (path.as_str(), code.as_str()),
        ("file_path", "INVALID_PATH")
    );
    assert_eq!(
        out.structured["violations"][0]["limit"],
        json!({"name": "max_name_bytes", "max": 255, "actual": 256}),
        "{}",
        out.structured
    );

    // --max-request-size: arguments of exactly the limit (compact JSON) get
    // past the check; one byte more is REQUEST_TOO_LARGE with both numbers.
    let sized = |n: usize| {
        let mut args = json!({"file_path": s(&e), "edits": [edit("absent", "")], "dry_run": true});
        let base = serde_json::to_vec(&args).unwrap().len();
        args["edits"][0]["new_string"] = json!("p".repeat(n - base));
        assert_eq!(serde_json::to_vec(&args).unwrap().len(), n);
        args
    };
    let out = server.call("multi_edit", sized(MAX_REQ)).await;
    assert_eq!(out.code(), "MATCH_NOT_FOUND", "{}", out.structured);
    let out = server.call("multi_edit", sized(MAX_REQ + 1)).await;
    assert_eq!(out.code(), "REQUEST_TOO_LARGE");
    assert_eq!(
        limit_of(&out),
        json!({"name": "max_request_bytes", "max": MAX_REQ, "actual": MAX_REQ + 1})
    );
    server.stop().await;
}

/// Results stay small however big the change: diffs and contents are cut to
/// the server's output cap (256 KiB) and say `truncated: true`; error
/// excerpts are bounded (4 KiB, long lines cut with a marker, at most 5
/// ambiguous locations).
#[tokio::test]
async fn outputs_are_capped_and_say_so() {
    const CAP: usize = 256 * 1024;
    let (_tmp, root) = scratch();
    let server = Server::in_root(&root).await;
    // 1 MiB, 16,384 lines.
    let text: String = (0..16_384)
        .map(|i| format!("line {i:05} {}\n", "x".repeat(52)))
        .collect();
    let big = root.join("big.txt");
    std::fs::write(&big, &text).unwrap();

    let all = json!([{"old_string": "line", "new_string": "LINE", "replace_all": true}]);
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&big), "edits": all, "dry_run": true, "include_content": true}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    let r = &out.structured;
    assert_eq!(r["truncated"], true);
    assert_eq!(r["replacements"], 16_384);
    let diff = r["diff_preview"].as_str().unwrap();
    assert!(diff.len() <= CAP && diff.len() > CAP / 2, "{}", diff.len());
    assert!(
        diff.starts_with(&format!("--- a/{}\n", s(&big).trim_start_matches('/')))
            && diff.ends_with('\n')
    );
    // One hunk replaces every line, so the cut keeps its first removals,
    // whole lines only.
    assert!(diff.contains("\n-line 00000 "), "{}", &diff[..200]);
    assert!(
        diff.lines()
            .skip(3)
            .all(|l| l.len() == 64 && l.starts_with("-line "))
    );
    let content = r["final_content"].as_str().unwrap();
    assert!(
        content.len() <= CAP && content.len() > CAP - 100,
        "{}",
        content.len()
    );
    assert!(text.replace("line", "LINE").starts_with(content));
    assert_eq!(
        std::fs::read_to_string(&big).unwrap(),
        text,
        "dry run wrote"
    );
    // The sha256 is of the whole new content, not of the capped text.
    let full = text.replace("line", "LINE");
    assert_eq!(
        r["sha256"],
        hex::encode(sha2::Sha256::digest(full.as_bytes()))
    );

    // A small change of the same file is not truncated.
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&big), "edits": [edit("line 00007", "LINE 7")], "dry_run": true}),
        )
        .await;
    assert!(
        out.structured.get("truncated").is_none(),
        "{}",
        out.structured
    );

    // multi_edit_files: each file's diff is capped on its own.
    let big2 = root.join("big2.txt");
    std::fs::write(&big2, &text).unwrap();
    let out = server
        .call(
            "multi_edit_files",
            json!({"dry_run": true, "files": [
            {"file_path": s(&big), "edits": all},
            {"file_path": s(&big2), "edits": all}]}),
        )
        .await;
    for f in out.structured["file_results"].as_array().unwrap() {
        assert_eq!(f["truncated"], true);
        assert!(f["diff_preview"].as_str().unwrap().len() <= CAP);
    }

    // MATCH_NOT_FOUND on a file that is one 1 MiB line: a bounded excerpt.
    let one = root.join("one-line.txt");
    std::fs::write(&one, "y".repeat(1 << 20)).unwrap();
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&one), "edits": [edit("absent text", "z")]}),
        )
        .await;
    assert_eq!(out.code(), "MATCH_NOT_FOUND");
    let snippet = out.structured["context"]["snippet"].as_str().unwrap();
    assert!(snippet.len() <= 4096, "{}", snippet.len());
    assert!(snippet.contains("more bytes]"), "{snippet}");

    // AMBIGUOUS_MATCH with 16,384 matches: the count, and 5 locations.
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&big), "edits": [edit("line", "LINE")]}),
        )
        .await;
    assert_eq!(out.code(), "AMBIGUOUS_MATCH");
    assert_eq!(out.structured["context"]["match_count"], 16_384);
    assert_eq!(
        out.structured["context"]["match_locations"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    let size = out.structured.to_string().len();
    assert!(size < 16 * 1024, "AMBIGUOUS_MATCH envelope of {size} bytes");
    server.stop().await;
}
