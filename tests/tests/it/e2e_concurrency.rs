//! End-to-end: how concurrent calls share the server.
//!
//! - Parallel calls on one file serialize: a call whose file another call
//!   changed since it was read re-applies its edits under the lock, so 50
//!   parallel one-line edits all succeed and all 50 land.
//! - A call cancelled (`notifications/cancelled`) while it waits for a file's
//!   lock writes nothing, not even a `.bak`, once the lock is free.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};
use splice_tests::fixtures::root;
use splice_tests::harness::Server;

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn call_params(tool: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(tool.to_string()).with_arguments(map)
}

/// Holds an exclusive `flock` on `path`, as another splice process would;
/// dropping it (closing the file) releases the lock.
struct HeldLock {
    _file: File,
}

impl HeldLock {
    fn take(path: &Path) -> HeldLock {
        let f = File::open(path).unwrap();
        // SAFETY: flock on an open descriptor has no memory-safety preconditions.
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(rc, 0, "flock");
        HeldLock { _file: f }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_parallel_edits_of_one_file_all_land() {
    const N: usize = 50;
    let (_dir, root) = root();
    let path = root.join("shared.txt");
    let original: String = (0..N).map(|i| format!("line {i}: old\n")).collect();
    std::fs::write(&path, &original).unwrap();
    let server = Server::in_root(&root).await;

    let mut calls = tokio::task::JoinSet::new();
    for i in 0..N {
        let peer = server.client().peer().clone();
        let args = json!({
            "file_path": path.to_str().unwrap(),
            "edits": [{"old_string": format!("line {i}: old\n"), "new_string": format!("line {i}: new\n")}],
        });
        calls.spawn(async move {
            let r = peer
                .call_tool(call_params("multi_edit", args))
                .await
                .expect("tools/call");
            (i, r)
        });
    }
    let mut failures = Vec::new();
    while let Some(joined) = calls.join_next().await {
        let (i, r) = joined.unwrap();
        let sc = r.structured_content.clone().unwrap();
        splice_tests::harness::assert_payload_valid("multi_edit", &sc, r.is_error == Some(true));
        if r.is_error == Some(true) {
            failures.push((i, sc["error_code"].clone()));
        } else {
            assert_eq!(sc["written"], true, "call {i}: {sc}");
            assert_eq!(sc["replacements"], 1, "call {i}: {sc}");
        }
    }
    assert!(failures.is_empty(), "calls failed: {failures:?}");
    let expected: String = (0..N).map(|i| format!("line {i}: new\n")).collect();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    // The last call's `.bak` holds the content just before it: one line old.
    let bak = std::fs::read_to_string(root.join("shared.txt.bak")).unwrap();
    assert_eq!(bak.matches(": old\n").count(), 1, "{bak}");
    // No staging name is left behind.
    assert_eq!(listing(&root), ["shared.txt", "shared.txt.bak"]);

    // A caller that stated the content it expected still gets STALE_FILE.
    let stale_hash = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(original.as_bytes()))
    };
    let out = server
        .call(
            "multi_edit",
            json!({
                "file_path": path.to_str().unwrap(),
                "expected_sha256": stale_hash,
                "edits": [{"old_string": "line 0: new", "new_string": "line 0: newer"}],
            }),
        )
        .await;
    assert_eq!(out.code(), "STALE_FILE");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_edits_whose_match_another_call_removed_fail_with_match_errors() {
    // Two calls replace the same text: the second re-applies under the lock,
    // finds the text gone and fails as MATCH_NOT_FOUND (not STALE_FILE).
    let (_dir, root) = root();
    let path = root.join("f.txt");
    std::fs::write(&path, "alpha\nbeta\n").unwrap();
    let server = Server::in_root(&root).await;
    let mut calls = tokio::task::JoinSet::new();
    for new in ["one", "two", "three", "four"] {
        let peer = server.client().peer().clone();
        let args = json!({
            "file_path": path.to_str().unwrap(),
            "edits": [{"old_string": "alpha", "new_string": new}],
        });
        calls.spawn(async move {
            peer.call_tool(call_params("multi_edit", args))
                .await
                .unwrap()
        });
    }
    let mut ok = 0;
    while let Some(r) = calls.join_next().await {
        let r = r.unwrap();
        let sc = r.structured_content.unwrap();
        if r.is_error == Some(true) {
            assert_eq!(sc["error_code"], "MATCH_NOT_FOUND", "{sc}");
        } else {
            ok += 1;
        }
    }
    assert_eq!(ok, 1, "exactly one call can replace `alpha`");
    let now = std::fs::read_to_string(&path).unwrap();
    assert!(!now.contains("alpha") && now.ends_with("\nbeta\n"), "{now}");
    server.stop().await;
}

/// Sends a `multi_edit` the test can cancel; the returned handle.
async fn start_call(
    server: &Server,
    args: Value,
) -> rmcp::service::RequestHandle<rmcp::RoleClient> {
    let Value::Object(map) = args else { panic!() };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("multi_edit").with_arguments(map),
    ));
    server
        .client()
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("send tools/call")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_call_cancelled_while_waiting_for_its_lock_writes_nothing() {
    let (_dir, root) = root();
    let path = root.join("f.txt");
    std::fs::write(&path, "before\n").unwrap();
    let server = Server::in_root(&root).await;
    let args = |new: &str| {
        json!({
            "file_path": path.to_str().unwrap(),
            "edits": [{"old_string": "before", "new_string": new}],
            "backup": true,
        })
    };

    // Control: held on the lock, not cancelled: written once the lock is free.
    let held = HeldLock::take(&path);
    let handle = start_call(&server, args("control")).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "before\n");
    drop(held);
    match handle.await_response().await.expect("answer") {
        ServerResult::CallToolResult(r) => assert_ne!(r.is_error, Some(true), "{r:?}"),
        other => panic!("unexpected answer {other:?}"),
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "control\n");
    std::fs::write(&path, "before\n").unwrap();
    std::fs::remove_file(root.join("f.txt.bak")).unwrap();

    // Held on the lock, then cancelled: nothing is written, even after the
    // lock is released.
    let held = HeldLock::take(&path);
    let handle = start_call(&server, args("after")).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    handle.cancel(Some("user abort".into())).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(held);
    // The server is still serving, and by the time a later call on the same
    // file has finished the cancelled one has had every chance to write.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "before\n");
    assert_eq!(listing(&root), ["f.txt"], "no .bak, no staging name");
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": path.to_str().unwrap(), "edits": [{"old_string": "before", "new_string": "later"}], "backup": false}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "later\n");
    assert_eq!(listing(&root), ["f.txt"]);
    server.stop().await;
}
