//! End-to-end: the stdio transport under a careless or hostile client,
//! spoken to as raw JSON-RPC lines (an SDK client would not send these).
//!
//! What is checked: one size limit (`--max-request-size`) for the whole
//! request line, answered with `REQUEST_TOO_LARGE` and the request's id;
//! -32700 for invalid JSON and -32602 with the id for invalid params; `ping`
//! answered after other requests; a notification or response before
//! `initialize` does not end the session; a client that stops reading
//! stdout does not make the server grow (backpressure); a client that leaves
//! after discovery is a clean exit.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use splice_tests::harness::{Raw, splice_bin};

/// A `tools/call` of about `bytes` bytes, with the id last (the order the
/// TypeScript SDK writes).
fn big_call(id: u64, bytes: usize, file: &str) -> Vec<u8> {
    let filler = "x".repeat(bytes);
    format!(
        r#"{{"method":"tools/call","params":{{"name":"multi_edit","arguments":{{"file_path":"{file}","edits":[{{"old_string":"{filler}","new_string":"y"}}]}}}},"jsonrpc":"2.0","id":{id}}}"#
    )
    .into_bytes()
}

#[test]
fn a_request_line_over_the_limit_gets_request_too_large_with_its_id() {
    // 20 MiB limit: a 17 MiB request (over rmcp's own 16 MiB line limit,
    // which used to drop it silently) is served; a 21 MiB one is refused.
    let mut s = Raw::start(&["--max-request-size", "20971520"]);
    s.initialize();
    s.send_raw(&big_call(7, 17 << 20, "/nonexistent/a.txt"));
    let r = s.next(60, "a 17 MiB request under --max-request-size");
    assert_eq!(r["id"], 7, "{r}");
    assert_eq!(r["result"]["isError"], true);
    assert_ne!(
        r["result"]["structuredContent"]["error_code"],
        "REQUEST_TOO_LARGE"
    );

    s.send_raw(&big_call(8, 21 << 20, "/nonexistent/a.txt"));
    let r = s.next(60, "a 21 MiB request over --max-request-size");
    assert_eq!(r["id"], 8, "{r}");
    assert_eq!(r["result"]["isError"], true, "{r}");
    let e = &r["result"]["structuredContent"];
    assert_eq!(e["error_code"], "REQUEST_TOO_LARGE", "{e}");
    s.ping(9);
}

#[test]
fn malformed_json_rpc_gets_the_spec_errors_and_the_session_goes_on() {
    let mut s = Raw::start(&[]);
    s.initialize();
    s.send_raw(b"{not json");
    let r = s.next(10, "invalid JSON");
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert_eq!(r["id"], Value::Null);

    for (id, params) in [
        (11, json!([1, 2])),
        (12, json!({"name": "multi_edit"})),
        (13, json!({"name": "multi_edit", "arguments": [1]})),
        (14, json!({"name": "multi_edit", "arguments": "x"})),
    ] {
        s.send(json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params}));
        let r = s.next(10, "invalid params");
        assert_eq!(r["id"], id, "{r}");
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
    }
    s.send(json!({"jsonrpc":"2.0","id":20,"method":"tools/list"}));
    assert_eq!(s.next(10, "tools/list")["id"], 20);
    s.ping(21);
    s.ping(22);
}

#[test]
fn a_notification_or_response_before_initialize_is_ignored() {
    let mut s = Raw::start(&[]);
    s.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    s.send(json!({"jsonrpc":"2.0","id":99,"result":{}}));
    s.initialize();
    s.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    let r = s.next(10, "tools/list after early notification");
    assert_eq!(r["id"], 1);
    assert!(r["result"]["tools"].is_array());
}

#[test]
fn a_client_leaving_after_discovery_is_a_clean_exit() {
    let mut s = Raw::start(&[]);
    s.initialize();
    s.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    s.next(10, "tools/list");
    let (status, stderr) = s.close();
    assert!(status.success(), "exit {status}: {stderr}");
    assert!(!stderr.contains("ERROR"), "{stderr}");
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_client_that_stops_reading_does_not_grow_the_server() {
    // The client writes tools/list requests and never reads an answer. With
    // backpressure the server stops reading stdin once its answers are owed,
    // so the writer blocks; without it the server buffers every answer.
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(splice_bin())
        .arg("--root")
        .arg(dir.path())
        .arg("--journal-dir")
        .arg(dir.path().join("journal"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let _stdout = child.stdout.take().unwrap();
    let base = {
        std::thread::sleep(Duration::from_millis(300));
        rss_kib(pid)
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"raw","version":"0"}}});
        let mut out = serde_json::to_vec(&init).unwrap();
        out.extend_from_slice(
            b"\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        );
        if stdin.write_all(&out).is_err() {
            return;
        }
        for id in 1..=30_000u64 {
            let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\"}}\n");
            if stdin.write_all(line.as_bytes()).is_err() {
                break;
            }
            let _ = tx.send(id);
        }
        let _ = tx.send(u64::MAX);
        // Keep stdin open until the test ends.
        std::thread::sleep(Duration::from_secs(30));
    });
    std::thread::sleep(Duration::from_secs(4));
    let mut sent = 0;
    while let Ok(n) = rx.try_recv() {
        sent = n;
    }
    let rss = rss_kib(pid);
    let _ = child.kill();
    let _ = child.wait();
    eprintln!("requests written: {sent} (u64::MAX = all); RSS {base} KiB -> {rss} KiB");
    assert_ne!(
        sent,
        u64::MAX,
        "the server took all 30,000 requests without answers read"
    );
    assert!(
        rss < base + 64 * 1024,
        "RSS grew from {base} KiB to {rss} KiB"
    );
}

#[test]
fn one_file_named_through_two_hard_links_is_a_duplicate() {
    let mut s = Raw::start(&[]);
    let root = s.root();
    let a = root.join("a.txt");
    let b = root.join("b.txt");
    std::fs::write(&a, "one\ntwo\n").unwrap();
    std::fs::hard_link(&a, &b).unwrap();
    s.initialize();
    s.send(
        json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{
        "name":"multi_edit_files","arguments":{"files":[
            {"file_path": a, "edits":[{"old_string":"one","new_string":"1"}]},
            {"file_path": b, "edits":[{"old_string":"two","new_string":"2"}]}]}}}),
    );
    let r = s.next(
        8,
        "hard-linked duplicate (it once waited 10 s on its own lock)",
    );
    assert_eq!(r["id"], 5);
    let e = &r["result"]["structuredContent"];
    assert_eq!(e["error_code"], "DUPLICATE_FILE_PATH", "{e}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\ntwo\n");
}

#[test]
fn validation_failed_is_bounded() {
    // 5,000 unknown keys, each 1 KiB long: every one a violation that once
    // was listed (and its key echoed) in full.
    let mut s = Raw::start(&[]);
    s.initialize();
    let long = "k".repeat(1024);
    let mut args = serde_json::Map::new();
    args.insert("file_path".into(), json!("/x"));
    args.insert(
        "edits".into(),
        json!([{"old_string": "a", "new_string": "b"}]),
    );
    for i in 0..5_000 {
        args.insert(format!("{long}{i}"), json!(1));
    }
    s.send(
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{
        "name":"multi_edit","arguments": args}}),
    );
    let r = s.next(60, "VALIDATION_FAILED");
    let text = r.to_string();
    assert!(text.len() < 1 << 20, "answer of {} bytes", text.len());
    let e = &r["result"]["structuredContent"];
    assert_eq!(e["error_code"], "VALIDATION_FAILED");
    let v = e["violations"].as_array().unwrap();
    assert!(v.len() <= 101, "{} violations listed", v.len());
    let last = v.last().unwrap()["message"].as_str().unwrap();
    assert!(last.contains("4900 more problem(s) not listed"), "{last}");
}
