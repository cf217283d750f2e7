//! Fuzzes the language server's message handling (`splice-codegen lsp`):
//! the framing of the byte stream and the server's state machine with its
//! checks run inline, the way the main loop runs them on their thread.
//!
//! Each input is used twice. As a byte stream: framed by
//! `lsp::transport::read` and every message handed to an initialized
//! server. As a session: the bytes before the first `0xff` are a document
//! (decoded lossily), opened; each later `0xff`-separated chunk is one
//! request or change at a position it encodes (hover, completion,
//! definition, references, symbols, rename, quick fixes, an incremental
//! edit of any range with any text). Checked: no panic; every answer
//! serializes; every request is answered exactly once, after the checks
//! it waits for.

use serde_json::{Value, json};
use splice_codegen::lsp::server::Server;
use splice_codegen::lsp::transport::{self, Frame};

const URI: &str = "file:///fuzz/errors.yaml";

/// Runs the checks the server asked for until none is left, and returns
/// what it sent, as JSON.
fn settle(server: &mut Server) -> Vec<Value> {
    loop {
        let jobs = server.take_jobs();
        if jobs.is_empty() {
            break;
        }
        for job in jobs {
            let analysis = job.run();
            server.analyzed(&job.uri, analysis);
        }
    }
    server
        .take_output()
        .iter()
        .map(|m| {
            let framed = transport::frame(m);
            let body = framed
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map(|i| &framed[i + 4..])
                .expect("a framed message has a header");
            serde_json::from_slice(body).expect("every message the server sends is JSON")
        })
        .collect()
}

fn send(server: &mut Server, message: Value) -> Vec<Value> {
    match transport::parse(message.to_string().as_bytes()) {
        Frame::Message(m) => server.handle(m),
        Frame::Malformed(why) => panic!("a well-formed message was refused: {why}"),
    }
    settle(server)
}

fn initialized() -> Server {
    let mut server = Server::new();
    let answers = send(
        &mut server,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}),
    );
    assert_eq!(answers.len(), 1);
    send(
        &mut server,
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    server
}

fn u16_at(bytes: &[u8], i: usize) -> u32 {
    u32::from(bytes.get(i).copied().unwrap_or(0)) << 8
        | u32::from(bytes.get(i + 1).copied().unwrap_or(0))
}

/// Runs one input; panics on any broken rule.
pub fn run(data: &[u8]) {
    // The byte stream.
    let mut server = initialized();
    let mut reader = std::io::Cursor::new(data);
    while let Ok(Some(frame)) = transport::read(&mut reader) {
        if let Frame::Message(m) = frame {
            server.handle(m);
            settle(&mut server);
        }
    }

    // The session.
    let mut chunks = data.split(|&b| b == 0xff);
    let text = String::from_utf8_lossy(chunks.next().unwrap_or_default()).into_owned();
    let lines = u32::try_from(text.lines().count())
        .unwrap_or(u32::MAX)
        .saturating_add(2);
    let mut server = initialized();
    let opened = send(
        &mut server,
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": URI, "languageId": "yaml", "version": 1, "text": text}}}),
    );
    assert!(
        opened
            .iter()
            .any(|m| m["method"] == "textDocument/publishDiagnostics"),
        "opening a document publishes its diagnostics"
    );
    let mut version = 1;
    for (i, op) in chunks.enumerate() {
        let id = i as i64 + 1;
        let position = json!({"line": u16_at(op, 1) % lines, "character": u16_at(op, 3) % 300});
        let end = json!({"line": u16_at(op, 5) % lines, "character": u16_at(op, 7) % 300});
        let rest = String::from_utf8_lossy(op.get(9..).unwrap_or_default()).into_owned();
        let doc = json!({"uri": URI});
        let request = |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let message = match op.first().copied().unwrap_or(0) % 9 {
            0 => request(
                "textDocument/hover",
                json!({"textDocument": doc, "position": position}),
            ),
            1 => request(
                "textDocument/completion",
                json!({"textDocument": doc, "position": position}),
            ),
            2 => request(
                "textDocument/definition",
                json!({"textDocument": doc, "position": position}),
            ),
            3 => request(
                "textDocument/references",
                json!({"textDocument": doc, "position": position, "context": {"includeDeclaration": true}}),
            ),
            4 => request("textDocument/documentSymbol", json!({"textDocument": doc})),
            5 => request(
                "textDocument/prepareRename",
                json!({"textDocument": doc, "position": position}),
            ),
            6 => request(
                "textDocument/rename",
                json!({"textDocument": doc, "position": position, "newName": rest}),
            ),
            7 => request(
                "textDocument/codeAction",
                json!({"textDocument": doc, "range": {"start": position, "end": end},
                       "context": {"diagnostics": []}}),
            ),
            _ => {
                version += 1;
                json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": URI, "version": version},
                    "contentChanges": [{"range": {"start": position, "end": end}, "text": rest}]}})
            }
        };
        let is_request = message.get("id").is_some();
        let answers = send(&mut server, message);
        let responses = answers.iter().filter(|m| m.get("method").is_none()).count();
        if is_request {
            assert_eq!(responses, 1, "one answer per request: {answers:?}");
            assert_eq!(
                answers.iter().find(|m| m.get("method").is_none()).unwrap()["id"],
                id
            );
        } else {
            assert_eq!(responses, 0, "no answer to a notification: {answers:?}");
        }
    }
    let bye = send(
        &mut server,
        json!({"jsonrpc": "2.0", "id": -1, "method": "shutdown"}),
    );
    assert_eq!(bye.len(), 1);
    send(&mut server, json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(server.exit_code(), Some(0));
}
