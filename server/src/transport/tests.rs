//! The transport on its own, over in-memory pipes: what it passes to rmcp,
//! what it answers itself, what it counts as owed.

use rmcp::model::JsonRpcMessage;
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::*;
use crate::answer_gate::AnswerGate;

/// A transport reading what the test writes to `client`, with its
/// output in `out`.
fn transport() -> (
    StdioTransport,
    tokio::io::DuplexStream,
    tokio::io::DuplexStream,
) {
    let (client, input) = tokio::io::duplex(1 << 16);
    let (output, out) = tokio::io::duplex(1 << 16);
    let t = StdioTransport::new(
        Box::new(input),
        Box::new(output),
        1 << 20,
        AnswerGate::new(),
    );
    (t, client, out)
}

async fn line_from(out: &mut BufReader<tokio::io::DuplexStream>) -> Value {
    let mut line = String::new();
    out.read_line(&mut line).await.unwrap();
    serde_json::from_str(&line).unwrap()
}

#[tokio::test]
async fn a_receive_dropped_mid_line_loses_nothing() {
    let (mut t, mut client, _out) = transport();
    client
        .write_all(br#"{"jsonrpc":"2.0","id":1,"me"#)
        .await
        .unwrap();
    // rmcp drops `receive` inside its `select!` when another branch is
    // ready; the half line read so far must stay with the transport.
    let dropped = tokio::time::timeout(std::time::Duration::from_millis(50), t.receive()).await;
    assert!(dropped.is_err(), "no whole line yet");
    client.write_all(b"thod\":\"tools/list\"}\n").await.unwrap();
    let message = t.receive().await.expect("the line, whole");
    let JsonRpcMessage::Request(request) = message else {
        panic!("not a request: {message:?}");
    };
    assert_eq!(request.id, rmcp::model::RequestId::Number(1));
    drop(client);
    assert!(t.receive().await.is_none(), "stdin ended");
}

/// `f`'s output if it is ready at once, without letting other tasks run.
fn polled_once<F: std::future::Future>(f: F) -> Option<F::Output> {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => Some(v),
        std::task::Poll::Pending => None,
    }
}

#[tokio::test]
async fn a_request_is_owed_until_its_answer_is_written() {
    let (mut t, mut client, out) = transport();
    let mut out = BufReader::new(out);
    client
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/list\"}\n")
        .await
        .unwrap();
    let Some(JsonRpcMessage::Request(request)) = t.receive().await else {
        panic!("not a request");
    };
    let owed = |t: &StdioTransport| t.shared.unanswered.lock().unwrap().sizes.len();
    assert_eq!(owed(&t), 1);
    let answer = JsonRpcMessage::response(rmcp::model::ServerResult::empty(()), request.id.clone());
    t.send(answer).await.unwrap();
    assert_eq!(owed(&t), 0, "answered once written");
    assert_eq!(line_from(&mut out).await["id"], json!("a"));
}

#[tokio::test]
async fn answers_made_here_keep_the_id() {
    let (mut t, mut client, out) = transport();
    let mut out = BufReader::new(out);
    client
        .write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n\
              {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n\
              {\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"tools/list\"}\n",
        )
        .await
        .unwrap();
    drop(client);
    assert!(t.receive().await.is_none(), "all three answered here");
    // The end of stdin is reported once those answers are out (rmcp then
    // ends the session, and the process may exit).
    let mut by_id = std::collections::BTreeMap::new();
    for _ in 0..3 {
        let v =
            polled_once(line_from(&mut out)).expect("written before the end of stdin was reported");
        by_id.insert(v["id"].as_i64().unwrap(), v);
    }
    assert_eq!(by_id[&3]["result"], json!({}));
    assert_eq!(by_id[&4]["error"]["code"], -32602);
    assert_eq!(by_id[&5]["error"]["code"], -32600);
    assert!(
        t.shared.unanswered.lock().unwrap().sizes.is_empty(),
        "the request rmcp could not read is not owed"
    );
}

#[tokio::test]
async fn an_unreadable_request_with_id_null_is_answered_with_id_null() {
    let (mut t, mut client, out) = transport();
    t.initialized = true;
    let mut out = BufReader::new(out);
    client
        .write_all(b"{\"jsonrpc\":\"1.0\",\"id\":null,\"method\":\"tools/list\"}\n")
        .await
        .unwrap();
    drop(client);
    assert!(t.receive().await.is_none());
    let answer = polled_once(line_from(&mut out)).expect("answered");
    assert_eq!(answer["id"], Value::Null);
    assert_eq!(answer["error"]["code"], -32600);
}

#[tokio::test]
async fn a_malformed_response_is_not_answered_and_owes_nothing_less() {
    let (mut t, mut client, out) = transport();
    // In session: before it, a response is dropped for that reason alone.
    t.initialized = true;
    let mut out = BufReader::new(out);
    // A request with id 9 is owed; then the client sends a "response"
    // with the same id that rmcp cannot read (no `result`, no `error`).
    client
        .write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}\n\
              {\"jsonrpc\":\"2.0\",\"id\":9,\"resolt\":{}}\n\
              {\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}\n",
        )
        .await
        .unwrap();
    let Some(JsonRpcMessage::Request(_)) = t.receive().await else {
        panic!("not a request");
    };
    drop(client);
    assert!(t.receive().await.is_none());
    let only = polled_once(line_from(&mut out)).expect("the ping's answer");
    assert_eq!(only, json!({"jsonrpc": "2.0", "id": 10, "result": {}}));
    assert!(
        polled_once(line_from(&mut out)).is_none(),
        "nothing answers the malformed response"
    );
    let owed = t.shared.unanswered.lock().unwrap().sizes.len();
    assert_eq!(owed, 1, "the request with the same id is still owed");
}
