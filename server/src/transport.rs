//! The stdio transport: the client's pipes, as rmcp's `Transport`.
//!
//! rmcp's own stdio transport reads newline-delimited JSON-RPC and hands each
//! message to the service. Several things a hostile or merely sloppy client
//! does go wrong there, so splice reads and writes the pipes itself
//! ([`StdioTransport`], in this file: reading a line, writing each answer
//! from the task rmcp sends it from, counting what is owed) and every line
//! passes these checks ([`policy`]) before rmcp parses it:
//!
//! - **One size limit.** rmcp drops a line over its own 16 MiB limit with no
//!   answer (the client hangs), so `--max-request-size` would not apply over
//!   stdio. Here a line longer than `--max-request-size` plus
//!   [`ENVELOPE_ALLOWANCE`] (room for the JSON-RPC envelope, the tool name
//!   and `_meta` around arguments of exactly the limit, which
//!   [`crate::mcp`] measures on their own) is discarded as it is
//!   read (never buffered whole) and answered: a `tools/call` with the
//!   `REQUEST_TOO_LARGE` envelope, anything else with JSON-RPC -32600; both
//!   carry the request's `id`, found by a streaming scan of the line's
//!   top-level keys wherever `id` appears in it ([`scan`]).
//! - **JSON-RPC hygiene.** A line that is not JSON gets -32700 (id `null`); a
//!   request whose `params` is not an object, or a `tools/call` whose
//!   `arguments` is missing or not an object, gets -32602 with its id; any
//!   other request rmcp cannot read gets -32600 with its id. A notification
//!   or a response rmcp cannot read is logged and dropped: neither is owed an
//!   answer.
//! - **`ping` at any time.** Answered here with `{}`, in every protocol
//!   version and state (rmcp answers -32601 to it in some).
//! - **Nothing before `initialize` kills the server.** A notification or a
//!   response object that arrives before the session starts (`initialize`,
//!   or in 2026-07-28 the first request other than `server/discover` with
//!   complete `_meta`) is logged and dropped (rmcp ends the session on it).
//!   After that it reaches rmcp, so `notifications/cancelled` cancels a call
//!   in every era.
//! - **Backpressure.** A client that stops reading stdout while sending
//!   requests would make the server buffer answers without bound. The
//!   transport counts requests passed on and answers written, and stops
//!   reading stdin (the pipe's own buffer then pushes back on the client)
//!   while
//!   - [`MAX_UNANSWERED`] requests are unanswered and stdout is stalled (a
//!     write has waited [`STALLED`] for the client to read), or
//!   - [`MAX_WAITING`] requests are unanswered, or the unanswered requests
//!     hold [`MAX_WAITING_BYTES`] (or one `--max-request-size`, if larger),
//!     whatever stdout does.
//!
//!   Calls that wait for a locked file are unanswered but do not stall
//!   stdout, so a client that reads keeps being read: its `ping`s and calls
//!   on other files are answered while hundreds of calls wait.
//!
//! One piece a file: [`descriptors`] (stdin and stdout on the event loop),
//! [`scan`] (the `id` of a line too long to keep), [`policy`] (the checks
//! above and the counts behind backpressure), [`fast_path`] (a plain
//! `tools/call` built without rmcp's parse).
//!
//! # What each piece buys over rmcp's own transport
//!
//! Measured side by side with release builds of the transport with the
//! piece and without it (`bench/run --only small-edit` and `--only large`
//! with `--baseline`, through the official TypeScript SDK client; the
//! server's CPU per call is the figure, latencies move with the machine's
//! load):
//!
//! - **[`fast_path`]** saves the server 4-7% of its CPU per small edit and
//!   about 3% per 2 MB / 200-edit call (its arguments are moved, not copied
//!   twice); a replace-all, whose arguments are small, is at par. Kept.
//! - **[`scan`]** is on no path but a line over the limit. There, against
//!   buffering the line and parsing it for its `id` (`bench/oversized-line`),
//!   it answers 2.7-4.3x sooner (it skips through the nested strings such a
//!   line is made of) at a flat peak RSS, the limit's own buffer, where
//!   buffering grows with whatever the client sends (3x the scan's peak on
//!   a 100 MiB line, 11x on 400 MiB). Kept: it is what bounds the server's
//!   memory against one line.
//!
//! # To report upstream (rmcp 3.9)
//!
//! Each entry is a behaviour of rmcp's stdio transport or service, and the
//! piece here that covers it, which can go once rmcp does the same:
//!
//! - A line over its 16 MiB limit is dropped with no reply, and the limit is
//!   not configurable → the line limit in [`policy`] and [`scan`].
//! - Invalid JSON and invalid params get no reply, or one without the id →
//!   [`policy`]'s hygiene (`admit`, `for_rmcp`).
//! - A notification or a response before `initialize` ends the session →
//!   [`policy`]'s `initialized` and `starts_inline_lifecycle`.
//! - `ping` is refused after the first request in the 2026-07-28 protocol →
//!   [`policy`]'s `ping` answer.
//! - Nothing bounds the responses queued for a client that does not read →
//!   [`policy`]'s backpressure (`Owed`, `must_wait`, `wait_for_room`).
//! - Every JSON-RPC error answer is logged as `WARN` with the error in Rust
//!   `Debug` → `log_error_answer` here and `main`'s filter of that event.
//! - A client that closes the connection after `server/discover` is
//!   reported as a failed initialization → `main`'s clean exit on it.
//! - stdin and stdout go through tokio's blocking pool (`stdin()`,
//!   `stdout()`): a thread hand-off each way per message → [`descriptors`].
//! - A message is parsed as an untagged enum of shapes and a request as an
//!   untagged enum of its 22 kinds, each tried on a buffered copy (`perf`:
//!   a tenth of the async workers' user CPU in a small edit) → [`fast_path`].

mod descriptors;
mod fast_path;
mod policy;
mod scan;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex as StdMutex};

use rmcp::RoleServer;
use rmcp::model::JsonRpcMessage;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify};

pub use descriptors::{Input, Output, stdio};
pub use policy::{ENVELOPE_ALLOWANCE, MAX_UNANSWERED, MAX_WAITING, MAX_WAITING_BYTES, STALLED};

use crate::answer_gate::AnswerGate;
use policy::{Owed, answered, id_key, line_limit, log_error_answer, set_writing};
use scan::Scan;

struct Shared {
    out: Mutex<Output>,
    /// Ids (as JSON text) of requests passed on and not yet answered, with
    /// their sizes in bytes.
    unanswered: StdMutex<Owed>,
    /// Notified when a request is answered or a write to stdout completes.
    answered: Notify,
    /// When the write to stdout in progress started, if one is.
    writing_since: StdMutex<Option<std::time::Instant>>,
    /// The server's answers, moved as requests come, are answered or
    /// cancelled ([`AnswerGate`]).
    answers: Arc<AnswerGate>,
}

impl Shared {
    /// Writes one whole line (`line` ends with `\n`) to stdout. Only ever
    /// awaited inside a task of its own, so a line is never cut short by a
    /// cancelled future.
    async fn write_line(&self, line: &[u8]) -> std::io::Result<()> {
        let mut out = self.out.lock().await;
        set_writing(self, true);
        let r = async {
            out.write_all(line).await?;
            out.flush().await
        }
        .await;
        set_writing(self, false);
        r
    }
}

/// The server's end of the stdio connection, as rmcp's [`Transport`]: every
/// line from the client passes the checks in the module docs here, and
/// every answer rmcp sends is written and counted here, with no other task
/// or pipe between stdin, the service and stdout.
///
/// rmcp polls [`Transport::receive`] inside a `select!` and drops it whenever
/// another branch is ready, so `receive` keeps everything it has read of a
/// line in `self` (a dropped call loses nothing; the next one resumes the
/// line) and never awaits a write: the answers it makes itself (`ping`,
/// errors) are written by a task of their own.
pub struct StdioTransport {
    input: BufReader<Input>,
    shared: Arc<Shared>,
    max_request: usize,
    /// A session has started: notifications and responses reach rmcp.
    initialized: bool,
    /// The line being read, while it is within [`line_limit`].
    line: Vec<u8>,
    /// The same line past the limit: only its `id` and `method` are kept.
    scan: Scan,
    /// Bytes of the line read so far.
    total: usize,
    /// A line is being read (the backpressure wait is behind it).
    in_line: bool,
    /// stdin is at its end (or failed).
    eof: bool,
    /// The tasks writing answers made here, until they are done: the last
    /// ones are waited for before rmcp hears that stdin ended, so a `ping`
    /// sent just before the client closes stdin is still answered.
    replies: Vec<tokio::task::JoinHandle<()>>,
}
impl StdioTransport {
    /// The transport over `input`/`output` (stdin/stdout, see [`stdio`]).
    /// `max_request` is `--max-request-size` (lines may have
    /// [`ENVELOPE_ALLOWANCE`] more); `answers` is the server's gate, which
    /// the transport tells what it owes and when an answer is out.
    pub fn new(
        input: Input,
        output: Output,
        max_request: usize,
        answers: Arc<AnswerGate>,
    ) -> StdioTransport {
        StdioTransport {
            input: BufReader::with_capacity(64 * 1024, input),
            shared: Arc::new(Shared {
                out: Mutex::new(output),
                unanswered: StdMutex::new(Owed::default()),
                answered: Notify::new(),
                writing_since: StdMutex::new(None),
                answers,
            }),
            max_request,
            initialized: false,
            line: Vec::new(),
            scan: Scan::default(),
            total: 0,
            in_line: false,
            eof: false,
            replies: Vec::new(),
        }
    }

    /// Reads until the current line is complete or stdin ends. Cancel-safe:
    /// bytes are consumed from the buffer only once they are in `self`.
    async fn read_line(&mut self) {
        let max_line = line_limit(self.max_request);
        loop {
            let buf = match self.input.fill_buf().await {
                Ok(b) => b,
                Err(e) => {
                    tracing::debug!("stdin: {e}");
                    self.eof = true;
                    return;
                }
            };
            if buf.is_empty() {
                self.eof = true;
                return;
            }
            let (chunk, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            let n = chunk.len();
            self.total = self.total.saturating_add(n);
            if self.total > max_line {
                if !self.line.is_empty() {
                    self.scan.feed(&self.line);
                    self.line = Vec::new();
                }
                self.scan.feed(chunk);
            } else {
                self.line.extend_from_slice(chunk);
            }
            self.input.consume(n + usize::from(done));
            if done {
                return;
            }
        }
    }

    /// Writes `message` in a task of its own (see the type's docs).
    fn reply(&mut self, message: Value) {
        let mut line = serde_json::to_vec(&message).unwrap_or_default();
        line.push(b'\n');
        let shared = self.shared.clone();
        self.replies.retain(|task| !task.is_finished());
        self.replies.push(tokio::spawn(async move {
            if let Err(e) = shared.write_line(&line).await {
                tracing::debug!("stdout closed: {e}");
            }
        }));
    }

    /// Waits for the answers made here to be written. Cancel-safe: a task
    /// is forgotten only once it is done.
    async fn replies_written(&mut self) {
        while let Some(task) = self.replies.last_mut() {
            let _ = task.await;
            self.replies.pop();
        }
    }
}

impl Transport<RoleServer> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        // An answer is counted once it is out; a request or a notification
        // to the client is not an answer.
        let answer = match &item {
            JsonRpcMessage::Response(r) => Some(id_key(Some(&r.id))),
            JsonRpcMessage::Error(e) => {
                log_error_answer(e.id.as_ref(), &e.error);
                Some(id_key(e.id.as_ref()))
            }
            _ => None,
        };
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let shared = self.shared.clone();
        async move {
            let line = line.map_err(std::io::Error::other)?;
            shared.write_line(&line).await.inspect_err(|e| {
                tracing::debug!("stdout closed: {e}");
            })?;
            if let Some(id) = answer {
                answered(&shared, &id);
                shared.answers.note_written();
            }
            Ok(())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.eof && !self.in_line {
                self.replies_written().await;
                return None;
            }
            if !self.in_line {
                self.wait_for_room().await;
                self.in_line = true;
            }
            self.read_line().await;
            // A whole line (or what stdin held before its end): from here to
            // the return nothing awaits, so a dropped `receive` loses nothing.
            self.in_line = false;
            let total = std::mem::take(&mut self.total);
            let scan = std::mem::take(&mut self.scan);
            let line = std::mem::take(&mut self.line);
            if total > line_limit(self.max_request) {
                self.too_large(&scan, total);
            } else if !line.iter().all(u8::is_ascii_whitespace)
                && let Some(message) = self.admit(&line)
            {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.replies_written().await;
        self.shared.out.lock().await.flush().await
    }
}
