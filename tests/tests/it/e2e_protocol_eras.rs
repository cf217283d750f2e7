//! End-to-end: what differs between the two protocol eras splice answers,
//! spoken as raw JSON-RPC lines to the real binary.
//!
//! - **Client roots, 2026-07-28** (no `initialize`): a call from a client
//!   whose `_meta` capabilities include `roots` is answered with an MRTR
//!   `InputRequiredResult` asking `roots/list`; the retried call's
//!   `inputResponses` narrow `--root`; `PATH_OUTSIDE_ROOTS` names the rule
//!   (`roots_source`). The Python SDK case (`test_interop.py`,
//!   `ModernRoots`) covers an SDK doing this by itself; this one covers the
//!   wire, an empty list, an error answer and `--client-roots ignore`.
//! - **Client roots, initialize handshake**: a client that never answers
//!   `roots/list` is asked once per session (not once per call), its calls
//!   then run with `--root` alone, and `roots/list_changed` asks again. The
//!   narrowing itself is covered in both eras by the Python interop test
//!   and by the TypeScript one (`interop.test.mjs`).
//! - **`ping`** is answered at any time in 2026-07-28, after other requests
//!   too.
//! - **stderr**: a 2026-07-28 client that leaves after `server/discover` is
//!   a clean exit, and protocol errors are one readable line.

use std::path::Path;

use serde_json::{Value, json};
use splice_tests::harness::{Raw, modern_meta};

/// A `multi_edit` call replacing `old` with `new` in `file`, with `params`
/// members added (`_meta`, `inputResponses`).
fn edit(id: u64, file: &Path, old: &str, new: &str, params: Value) -> Value {
    let mut p = json!({"name": "multi_edit", "arguments": {
        "file_path": file, "backup": false,
        "edits": [{"old_string": old, "new_string": new}]}});
    if let (Some(p), Value::Object(extra)) = (p.as_object_mut(), params) {
        p.extend(extra);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": p})
}

fn roots_answer(dirs: &[&Path]) -> Value {
    let roots: Vec<Value> = dirs
        .iter()
        .map(|d| json!({"uri": format!("file://{}", d.display())}))
        .collect();
    json!({"roots": {"roots": roots}})
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn client_roots_narrow_in_2026_07_28_through_an_input_request() {
    let mut s = Raw::start(&[]);
    let root = s.root();
    let sub = root.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let inside = sub.join("in.txt");
    let outside = root.join("out.txt");
    std::fs::write(&inside, "in\n").unwrap();
    std::fs::write(&outside, "out\n").unwrap();
    s.discover(1);
    let meta = modern_meta(json!({"roots": {}}));

    // The first try is a question, and writes nothing.
    s.send(edit(2, &inside, "in", "IN", json!({"_meta": meta})));
    let r = s.next(10, "call from a client with roots");
    assert_eq!(r["id"], 2, "{r}");
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    assert_eq!(
        r["result"]["inputRequests"]["roots"]["method"], "roots/list",
        "{r}"
    );
    assert_eq!(read(&inside), "in\n");

    // The retry carries the client's roots: inside them is edited...
    let narrowed = roots_answer(&[&sub]);
    s.send(edit(
        3,
        &inside,
        "in",
        "IN",
        json!({"_meta": meta, "inputResponses": narrowed}),
    ));
    let r = s.next(10, "retry inside the client's roots");
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(read(&inside), "IN\n");
    // ...the rest of --root is not, and the envelope says why.
    s.send(edit(
        4,
        &outside,
        "out",
        "OUT",
        json!({"_meta": meta, "inputResponses": narrowed}),
    ));
    let r = s.next(10, "retry outside the client's roots");
    let e = &r["result"]["structuredContent"];
    assert_eq!(e["error_code"], "PATH_OUTSIDE_ROOTS", "{r}");
    assert_eq!(e["context"]["roots_source"], "client", "{e}");
    // Only the hint of this rule (and the general one) is sent.
    assert_eq!(roots_hints(e), vec!["overlap"], "{e}");
    assert!(!e.to_string().contains(&*sub.to_string_lossy()), "{e}");

    // An empty list leaves nothing editable, and says so.
    let none = json!({"roots": {"roots": []}});
    s.send(edit(
        5,
        &inside,
        "IN",
        "in",
        json!({"_meta": meta, "inputResponses": none}),
    ));
    let e = s.next(10, "empty client roots")["result"]["structuredContent"].clone();
    assert_eq!(e["context"]["roots_source"], "client_empty", "{e}");
    // Only the hint of this rule (and the general one) is sent.
    assert_eq!(roots_hints(&e), vec!["lists no roots"], "{e}");
    assert!(
        e["recovery_hints"]
            .to_string()
            .contains("--client-roots ignore"),
        "{e}"
    );
    // Roots outside --root too.
    let elsewhere = tempfile::tempdir().unwrap();
    let disjoint = roots_answer(&[elsewhere.path()]);
    s.send(edit(
        6,
        &inside,
        "IN",
        "in",
        json!({"_meta": meta, "inputResponses": disjoint}),
    ));
    let e = s.next(10, "disjoint client roots")["result"]["structuredContent"].clone();
    assert_eq!(e["context"]["roots_source"], "client_disjoint", "{e}");
    // Only the hint of this rule (and the general one) is sent.
    assert_eq!(
        roots_hints(&e),
        vec!["None of the MCP client's roots"],
        "{e}"
    );
    assert_eq!(read(&inside), "IN\n");
    assert_eq!(read(&outside), "out\n");

    // A client that answers roots/list with an error states no roots:
    // --root alone.
    let failed = json!({"roots": {"code": -32603, "message": "no roots here"}});
    s.send(edit(
        7,
        &outside,
        "out",
        "OUT",
        json!({"_meta": meta, "inputResponses": failed}),
    ));
    let r = s.next(10, "error answer to roots/list");
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(read(&outside), "OUT\n");

    // A client without the roots capability is not asked.
    let plain = modern_meta(json!({}));
    s.send(edit(8, &outside, "OUT", "out", json!({"_meta": plain})));
    let r = s.next(10, "call from a client without roots");
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(read(&outside), "out\n");

    // --client-roots ignore: nobody is asked.
    let mut s = Raw::start(&["--client-roots", "ignore"]);
    let file = s.root().join("f.txt");
    std::fs::write(&file, "a\n").unwrap();
    s.discover(1);
    s.send(edit(2, &file, "a", "b", json!({"_meta": meta})));
    let r = s.next(10, "call with --client-roots ignore");
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(read(&file), "b\n");
}

#[test]
fn a_handshake_client_that_never_answers_roots_is_asked_once_per_session() {
    let mut s = Raw::start(&[]);
    let file = s.root().join("f.txt");
    std::fs::write(&file, "0\n").unwrap();
    s.initialize_with(json!({"roots": {"listChanged": true}}));

    s.send(edit(1, &file, "0", "1", json!({})));
    let q = s.next(10, "roots/list from the server");
    assert_eq!(q["method"], "roots/list", "{q}");
    // Never answered: after the bound the call runs with --root alone.
    let r = s.next(10, "the call after roots/list went unanswered");
    assert_eq!(r["id"], 1, "{r}");
    assert_eq!(r["result"]["isError"], false, "{r}");
    // The next call is not asked again: its answer is the next message.
    s.send(edit(2, &file, "1", "2", json!({})));
    let r = s.next(10, "second call");
    assert_eq!(r["id"], 2, "a second roots/list was sent: {r}");
    assert_eq!(read(&file), "2\n");

    // roots/list_changed: the next call asks again, and an empty answer
    // leaves nothing editable.
    s.send(json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    assert_eq!(s.next(10, "tools/list")["id"], 3);
    s.send(edit(4, &file, "2", "3", json!({})));
    let q = s.next(10, "roots/list after roots/list_changed");
    assert_eq!(q["method"], "roots/list", "{q}");
    s.send(json!({"jsonrpc": "2.0", "id": q["id"], "result": {"roots": []}}));
    let r = s.next(10, "call after an empty roots/list");
    let e = &r["result"]["structuredContent"];
    assert_eq!(e["error_code"], "PATH_OUTSIDE_ROOTS", "{r}");
    assert_eq!(e["context"]["roots_source"], "client_empty", "{e}");
    assert_eq!(read(&file), "2\n");
    let (status, stderr) = s.close();
    assert!(status.success(), "exit {status}: {stderr}");
    assert!(stderr.contains("roots/list got no answer"), "{stderr}");
}

#[test]
fn ping_is_answered_at_any_time_in_2026_07_28() {
    let mut s = Raw::start(&[]);
    let file = s.root().join("f.txt");
    std::fs::write(&file, "a\n").unwrap();
    s.ping(1);
    s.discover(2);
    s.ping(3);
    let meta = modern_meta(json!({}));
    s.send(edit(4, &file, "a", "b", json!({"_meta": meta})));
    let r = s.next(10, "tools/call");
    assert_eq!(r["result"]["isError"], false, "{r}");
    s.ping(5);
    // With the era's _meta, as the SDKs send it.
    s.send(json!({"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"_meta": meta}}));
    assert_eq!(
        s.next(10, "ping with _meta"),
        json!({"jsonrpc": "2.0", "id": 6, "result": {}})
    );
    s.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": meta}}));
    assert_eq!(s.next(10, "tools/list")["id"], 7);
    s.ping(8);
}

#[test]
fn a_2026_07_28_client_leaving_after_discover_is_a_clean_exit() {
    let mut s = Raw::start(&[]);
    s.discover(1);
    let (status, stderr) = s.close();
    assert!(status.success(), "exit {status}: {stderr}");
    assert!(!stderr.contains("ERROR"), "{stderr}");

    // A protocol error is one readable line, not Rust Debug.
    let mut s = Raw::start(&[]);
    s.discover(1);
    s.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "_meta": modern_meta(json!({})), "name": "no_such_tool", "arguments": {}}}),
    );
    assert_eq!(s.next(10, "unknown tool")["error"]["code"], -32602);
    let (status, stderr) = s.close();
    assert!(status.success(), "exit {status}: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("-32602")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("unknown tool `no_such_tool`"), "{stderr}");
    assert!(!stderr.contains("ErrorData {"), "{stderr}");
    assert!(!stderr.contains("ERROR"), "{stderr}");
}

/// Which roots rule each of a `PATH_OUTSIDE_ROOTS` envelope's hints is
/// about (by a phrase only that rule's hint has), checking that the general
/// symlink hint is there too.
fn roots_hints(e: &Value) -> Vec<&'static str> {
    let hints: Vec<&str> = e["recovery_hints"]
        .as_array()
        .expect("hints")
        .iter()
        .map(|h| h.as_str().expect("a string"))
        .collect();
    assert!(
        hints.iter().any(|h| h.contains("symbolic link")),
        "the general hint is missing: {hints:?}"
    );
    [
        "inside the server's --root directories",
        "overlap",
        "lists no roots",
        "None of the MCP client's roots",
    ]
    .into_iter()
    .filter(|phrase| hints.iter().any(|h| h.contains(phrase)))
    .collect()
}
