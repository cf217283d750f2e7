//! The stdio transport: the client's pipes, as rmcp's `Transport`.
//!
//! rmcp's own stdio transport reads newline-delimited JSON-RPC and hands each
//! message to the service. Several things a hostile or merely sloppy client
//! does went wrong there, so splice reads and writes the pipes itself
//! ([`StdioTransport`]) and every line passes these checks before rmcp
//! parses it:
//!
//! - **One size limit.** rmcp drops a line over its own 16 MiB limit with no
//!   answer (the client hangs), so `--max-request-size` never applied over
//!   stdio. Here a line longer than `--max-request-size` plus
//!   [`ENVELOPE_ALLOWANCE`] (room for the JSON-RPC envelope, the tool name
//!   and `_meta` around arguments of exactly the limit, which
//!   [`crate::mcp`] measures on their own) is discarded as it is
//!   read (never buffered whole) and answered: a `tools/call` with the
//!   `REQUEST_TOO_LARGE` envelope, anything else with JSON-RPC -32600; both
//!   carry the request's `id`, found by a streaming scan of the line's
//!   top-level keys wherever `id` appears in it.
//! - **JSON-RPC hygiene.** A line that is not JSON gets -32700 (id `null`); a
//!   request whose `params` is not an object, or a `tools/call` whose
//!   `arguments` is missing or not an object, gets -32602 with its id; any
//!   other request rmcp cannot read gets -32600 with its id. A notification
//!   or a response rmcp cannot read is logged and dropped: neither is owed an
//!   answer.
//! - **`ping` at any time.** Answered here with `{}`, in every protocol
//!   version and state (rmcp answered -32601 to it in some).
//! - **Nothing before `initialize` kills the server.** A notification or a
//!   response object that arrives before the session starts (`initialize`,
//!   or in 2026-07-28 the first request other than `server/discover` with
//!   complete `_meta`) is logged and dropped (rmcp ended the session on it).
//!   After that it reaches rmcp, so `notifications/cancelled` cancels a call
//!   in every era.
//! - **Backpressure.** A client that stops reading stdout while sending
//!   requests made the server buffer answers without bound. The transport counts
//!   requests passed on and answers written, and stops reading stdin (the
//!   pipe's own buffer then pushes back on the client) while
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
//! To report upstream (rmcp 3.9): oversized lines are dropped with no reply;
//! invalid JSON and invalid params get no reply or one without the id; a
//! notification or response before `initialize` ends the session; `ping` is
//! refused after the first request in the 2026-07-28 protocol; nothing bounds
//! the responses queued for a client that does not read; every JSON-RPC error
//! answer is logged as `WARN` with the error in Rust `Debug` (logged here as
//! one line instead, see `log_error_answer`); a client that closes the
//! connection after `server/discover` is reported as a failed initialization
//! (`main` treats it as a clean exit); a message is parsed as an untagged
//! enum of shapes and a request as an untagged enum of its 22 kinds, each
//! tried on a buffered copy (a tenth of the async workers' user CPU in a
//! small edit; `tools/call` is built here instead, see `call_tool`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};

use rmcp::RoleServer;
use rmcp::model::JsonRpcMessage;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify};

use crate::answer_gate::AnswerGate;
use crate::envelopes;

/// Most requests passed on to the service and not yet answered on stdout
/// before the transport stops reading stdin, when stdout is stalled.
pub const MAX_UNANSWERED: usize = 64;

/// Bytes a request line may have beyond `--max-request-size`: the limit is
/// on a call's arguments (checked exactly in [`crate::mcp`]); the line also
/// carries the JSON-RPC envelope, the tool name and `_meta`.
pub const ENVELOPE_ALLOWANCE: usize = 64 * 1024;

/// The longest request line the transport reads for `--max-request-size`
/// `max_request`.
fn line_limit(max_request: usize) -> usize {
    max_request.saturating_add(ENVELOPE_ALLOWANCE)
}

/// Most requests unanswered before the transport stops reading stdin, whatever
/// stdout does (calls waiting for locked files, admission).
pub const MAX_WAITING: usize = 4096;

/// Most bytes of unanswered requests before the transport stops reading stdin.
pub const MAX_WAITING_BYTES: usize = 256 * 1024 * 1024;

/// How long a write to stdout may wait before stdout counts as stalled.
pub const STALLED: std::time::Duration = std::time::Duration::from_millis(20);

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

/// What [`stdio`] reads from.
pub type Input = Box<dyn AsyncRead + Send + Unpin>;
/// What [`stdio`] writes to.
pub type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// The process's stdin and stdout, for [`StdioTransport`]; call it inside the
/// runtime.
///
/// tokio's `stdin()` and `stdout()` do every read and write on the blocking
/// pool: one more thread hand-off (a futex wake and a switch) each way for
/// every message. When they are a pipe or a socket, which is how an MCP
/// client starts a server (Node's `child_process` gives socket pairs,
/// Python's `subprocess` pipes), they are put in non-blocking mode and
/// driven by the runtime's own event loop instead. Anything else (a file, a
/// terminal, a closed descriptor) keeps tokio's. Non-blocking mode belongs
/// to the open file, which only this end of the client's pipe uses.
pub fn stdio() -> (Input, Output) {
    use tokio::net::unix::pipe;
    let input: Input = match evented(0, false) {
        Some(Evented::Pipe(fd)) => match pipe::Receiver::from_owned_fd(fd) {
            Ok(rx) => Box::new(rx),
            Err(e) => {
                tracing::error!("stdin could not join the event loop: {e}");
                Box::new(tokio::io::empty())
            }
        },
        Some(Evented::Socket(s)) => Box::new(s),
        None => Box::new(tokio::io::stdin()),
    };
    let output: Output = match evented(1, true) {
        Some(Evented::Pipe(fd)) => match pipe::Sender::from_owned_fd(fd) {
            Ok(tx) => Box::new(tx),
            Err(e) => {
                tracing::error!("stdout could not join the event loop: {e}");
                Box::new(tokio::io::sink())
            }
        },
        Some(Evented::Socket(s)) => Box::new(s),
        None => Box::new(tokio::io::stdout()),
    };
    (input, output)
}

/// A standard descriptor the event loop can drive.
enum Evented {
    /// A pipe (tokio's pipe types set it non-blocking).
    Pipe(std::os::fd::OwnedFd),
    /// A stream socket, already non-blocking and registered.
    Socket(tokio::net::UnixStream),
}

/// Descriptor `fd` (0 or 1) itself, not a duplicate (a trace of the server
/// shows the protocol on 0 and 1, as `scripts/fault-points` and
/// `scripts/power-loss` expect), if it is a pipe or a socket open for
/// `write` or for reading.
fn evented(fd: std::os::fd::RawFd, write: bool) -> Option<Evented> {
    use rustix::fs::{FileType, OFlags};
    use std::os::fd::FromRawFd;
    // SAFETY: 0 and 1 are open for the whole process (checked by fstat).
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let st = rustix::fs::fstat(borrowed).ok()?;
    let access = rustix::fs::fcntl_getfl(borrowed).ok()? & OFlags::RWMODE;
    let usable = access == OFlags::RDWR
        || access
            == if write {
                OFlags::WRONLY
            } else {
                OFlags::RDONLY
            };
    #[allow(clippy::unnecessary_cast)]
    let kind = FileType::from_raw_mode(st.st_mode as _);
    if !usable || !matches!(kind, FileType::Fifo | FileType::Socket) {
        return None;
    }
    // SAFETY: from here the transport alone uses the descriptor: stdout
    // belongs to the protocol, and nothing else reads stdin. It is closed
    // when the transport ends, which tells the client the server is done.
    let owned = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
    if kind == FileType::Fifo {
        return Some(Evented::Pipe(owned));
    }
    let socket = std::os::unix::net::UnixStream::from(owned);
    if let Err(e) = socket.set_nonblocking(true) {
        tracing::error!("stdio socket: {e}");
    }
    match tokio::net::UnixStream::from_std(socket) {
        Ok(s) => Some(Evented::Socket(s)),
        Err(e) => {
            // The descriptor went with the failed stream.
            tracing::error!("stdio socket could not join the event loop: {e}");
            None
        }
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

    fn too_large(&mut self, scan: &Scan, total: usize) {
        let max = self.max_request;
        tracing::warn!(
            bytes = total,
            max,
            "request line over --max-request-size discarded"
        );
        let id = scan.id.clone().unwrap_or(Value::Null);
        let message = if scan.method.as_deref() == Some("tools/call") && !id.is_null() {
            let envelope = envelopes::request_too_large(max as u64, total as u64);
            json!({"jsonrpc": "2.0", "id": id, "result": crate::mcp::error_result_value(&envelope)})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32600,
                "message": format!("request of {total} bytes exceeds --max-request-size ({max} bytes)"),
                "data": {"error_code": "REQUEST_TOO_LARGE", "max_request_bytes": max, "actual": total},
            }})
        };
        self.reply(message);
    }

    /// What becomes of one whole line within the limit: a message for rmcp,
    /// or `None` when it was answered here or dropped.
    fn admit(&mut self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!("invalid JSON from the client: {e}");
                self.reply(json!({"jsonrpc": "2.0", "id": null, "error": {
                    "code": -32700, "message": format!("parse error: {e}")}}));
                return None;
            }
        };
        let Some(obj) = value.as_object() else {
            return self.for_rmcp(value);
        };
        let id = obj.get("id").filter(|v| !v.is_null());
        let method = obj.get("method").and_then(Value::as_str);
        match (method, id) {
            (Some(method), Some(id)) => {
                if method == "ping" {
                    self.reply(json!({"jsonrpc": "2.0", "id": id, "result": {}}));
                    return None;
                }
                if let Some(problem) = invalid_params(method, obj.get("params")) {
                    tracing::warn!(method, "invalid params: {problem}");
                    self.reply(json!({"jsonrpc": "2.0", "id": id, "error": {
                        "code": -32602, "message": format!("invalid params: {problem}")}}));
                    return None;
                }
                if method == "initialize" || starts_inline_lifecycle(method, obj.get("params")) {
                    self.initialized = true;
                }
                if let Ok(mut owed) = self.shared.unanswered.lock() {
                    let owed = &mut *owed;
                    let old = owed.sizes.insert(owed_key(id), line.len());
                    self.shared.answers.set_owed(owed.sizes.len());
                    owed.bytes = owed.bytes + line.len() - old.unwrap_or(0);
                }
            }
            (Some("notifications/cancelled"), None) if self.initialized => {
                if let Some(id) = obj
                    .get("params")
                    .and_then(|p| p.get("requestId"))
                    .map(owed_key)
                {
                    answered(&self.shared, &id);
                }
                // A cancelled call may never be answered: work waiting for
                // its answer (`crate::commit::late_close`, the undo store)
                // goes ahead now.
                self.shared.answers.nudge();
            }
            (Some(method), None) if !self.initialized => {
                tracing::warn!(method, "notification before initialize ignored");
                return None;
            }
            (None, _) if !self.initialized => {
                tracing::warn!("JSON-RPC response before initialize ignored");
                return None;
            }
            _ => {}
        }
        self.for_rmcp(value)
    }

    /// `value` as rmcp's message. A request rmcp cannot read (it has a
    /// `method` and an `id`, `null` included) gets -32600 with its id (rmcp
    /// answered with id `null`); anything else it cannot read is dropped: a
    /// notification gets no answer, and neither does a malformed response,
    /// whose id names one of the server's requests, not one the client is
    /// owed an answer to.
    fn for_rmcp(&mut self, value: Value) -> Option<RxJsonRpcMessage<RoleServer>> {
        let value = match call_tool(value) {
            Ok(message) => return Some(message),
            Err(value) => value,
        };
        let id = value
            .get("id")
            .filter(|_| value.get("method").is_some())
            .cloned();
        let err = match serde_json::from_value(value) {
            Ok(message) => return Some(message),
            Err(e) => e,
        };
        match id {
            Some(id) => {
                answered(&self.shared, &owed_key(&id));
                tracing::warn!("invalid JSON-RPC message from the client: {err}");
                self.reply(json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32600, "message": format!("invalid request: {err}")}}));
            }
            None => tracing::debug!("unreadable notification or response ignored: {err}"),
        }
        None
    }

    /// Waits while too many answers are owed (see the module docs). A stall
    /// is a matter of time, so it looks again soon even when nothing is
    /// notified. Cancel-safe.
    async fn wait_for_room(&mut self) {
        let max_line = line_limit(self.max_request);
        let shared = &*self.shared;
        loop {
            let notified = shared.answered.notified();
            if !must_wait(shared, max_line) {
                return;
            }
            let _ = tokio::time::timeout(STALLED, notified).await;
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

/// A `tools/call` request as rmcp's message, built from its JSON by moving
/// its parts, when it has exactly the members rmcp reads into one; anything
/// else comes back as it was, for rmcp's own parse.
///
/// rmcp reads a message as an untagged enum of shapes, and a request as an
/// untagged enum of its 22 kinds, each tried in turn on a buffered copy:
/// `perf` put that parse at about a tenth of the async workers' user CPU
/// in a small edit (a twentieth of their CPU), the arguments copied twice
/// on the way. Built here, they are not
/// copied at all. What rmcp would make of the same JSON is pinned by
/// `tests::a_call_is_built_as_rmcp_reads_it`.
fn call_tool(value: Value) -> Result<RxJsonRpcMessage<RoleServer>, Value> {
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, RequestMetaObject};
    let Value::Object(mut obj) = value else {
        return Err(value);
    };
    let plain = obj
        .keys()
        .all(|k| matches!(k.as_str(), "jsonrpc" | "id" | "method" | "params"))
        && obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && obj.get("method").and_then(Value::as_str) == Some("tools/call")
        && obj
            .get("params")
            .and_then(Value::as_object)
            .is_some_and(|p| {
                p.keys()
                    .all(|k| matches!(k.as_str(), "name" | "arguments" | "_meta"))
                    && p.get("name").is_some_and(Value::is_string)
                    && p.get("arguments").is_some_and(Value::is_object)
                    && p.get("_meta").is_none_or(Value::is_object)
            });
    let id = obj
        .get("id")
        .filter(|_| plain)
        .and_then(|id| serde_json::from_value::<rmcp::model::RequestId>(id.clone()).ok());
    let Some(id) = id else {
        return Err(Value::Object(obj));
    };
    let Some(Value::Object(mut params)) = obj.remove("params") else {
        unreachable!("`params` was checked to be an object");
    };
    let (Some(Value::String(name)), Some(Value::Object(arguments))) =
        (params.remove("name"), params.remove("arguments"))
    else {
        unreachable!("`name` and `arguments` were checked");
    };
    let mut call = CallToolRequestParams::new(name);
    call.arguments = Some(arguments);
    let mut request = CallToolRequest::new(call);
    if let Some(Value::Object(meta)) = params.remove("_meta") {
        request.extensions.insert(RequestMetaObject::from(meta));
    }
    Ok(JsonRpcMessage::request(
        ClientRequest::CallToolRequest(request),
        id,
    ))
}

/// The text [`Owed`] keys the request `id` by: as its answer's id prints,
/// so `1.0` and `1`, which rmcp reads as one id, are one request.
fn owed_key(id: &Value) -> String {
    match serde_json::from_value::<rmcp::model::RequestId>(id.clone()) {
        Ok(id) => id_key(Some(&id)),
        Err(_) => id.to_string(),
    }
}

/// An answer's request id as the text [`Owed`] keys it by (`null` for none).
fn id_key(id: Option<&rmcp::model::RequestId>) -> String {
    id.and_then(|id| serde_json::to_string(id).ok())
        .unwrap_or_else(|| "null".to_owned())
}

/// One readable log line for a JSON-RPC error rmcp answers with (rmcp's own
/// line prints the error as Rust `Debug`; `main` filters that one out).
fn log_error_answer(id: Option<&rmcp::model::RequestId>, error: &rmcp::model::ErrorData) {
    let id = id_key(id);
    tracing::warn!(
        "request {id} answered with JSON-RPC error {}: {}",
        error.code.0,
        error.message
    );
}

/// The requests passed on and not yet answered.
#[derive(Default)]
struct Owed {
    sizes: HashMap<String, usize>,
    bytes: usize,
}

/// Marks the start (`true`) or end of a write to stdout.
fn set_writing(shared: &Shared, writing: bool) {
    if let Ok(mut since) = shared.writing_since.lock() {
        *since = writing.then(std::time::Instant::now);
    }
    if !writing {
        shared.answered.notify_waiters();
    }
}

/// The request `id` (JSON text) is answered, or cancelled (then it may get
/// no answer at all): it no longer counts against the backpressure bounds.
fn answered(shared: &Shared, id: &str) {
    let removed = shared
        .unanswered
        .lock()
        .map(|mut owed| match owed.sizes.remove(id) {
            Some(n) => {
                owed.bytes -= n;
                shared.answers.set_owed(owed.sizes.len());
                true
            }
            None => false,
        })
        .unwrap_or(false);
    if removed {
        shared.answered.notify_waiters();
    }
}

/// Whether the reader must stop reading stdin for now (see the module docs).
fn must_wait(shared: &Shared, max_line: usize) -> bool {
    let (count, bytes) = shared
        .unanswered
        .lock()
        .map(|o| (o.sizes.len(), o.bytes))
        .unwrap_or((0, 0));
    if count >= MAX_WAITING || (count > 0 && bytes >= MAX_WAITING_BYTES.max(max_line)) {
        return true;
    }
    let stalled = shared
        .writing_since
        .lock()
        .ok()
        .and_then(|s| *s)
        .is_some_and(|t| t.elapsed() >= STALLED);
    count >= MAX_UNANSWERED && stalled
}

/// Whether rmcp starts a session on this request without `initialize`: the
/// 2026-07-28 era (and per-request metadata generally), where the first
/// request other than `server/discover` whose `_meta` names a known protocol
/// version and the client's capabilities opens the session. From then on
/// notifications reach rmcp; before, they would end the session. This is
/// what lets a 2026-07-28 client's `notifications/cancelled` cancel a call:
/// without it every notification of that era was dropped here as "before
/// initialize", and a cancelled call still wrote once it got its lock.
fn starts_inline_lifecycle(method: &str, params: Option<&Value>) -> bool {
    if method == "server/discover" {
        return false;
    }
    let Some(meta) = params.and_then(|p| p.get("_meta")) else {
        return false;
    };
    let known = meta
        .get("io.modelcontextprotocol/protocolVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| {
            rmcp::model::ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .any(|k| k.as_str() == v)
        });
    let modern = meta
        .get("io.modelcontextprotocol/protocolVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str());
    // rmcp requires the capabilities only from 2026-07-28 on.
    known
        && (!modern
            || meta
                .get("io.modelcontextprotocol/clientCapabilities")
                .is_some_and(Value::is_object))
}

fn invalid_params(method: &str, params: Option<&Value>) -> Option<String> {
    match params {
        None | Some(Value::Object(_)) => {}
        Some(_) => return Some("`params` must be an object".into()),
    }
    if method == "tools/call" {
        match params.and_then(|p| p.get("arguments")) {
            Some(Value::Object(_)) => {}
            None | Some(Value::Null) => {
                return Some("tools/call needs `arguments` (an object)".into());
            }
            Some(_) => return Some("tools/call `arguments` must be an object".into()),
        }
        if !params
            .and_then(|p| p.get("name"))
            .is_some_and(Value::is_string)
        {
            return Some("tools/call needs `name` (a string)".into());
        }
    }
    None
}

/// A streaming scan of a JSON object's top-level `id` and `method`, for a
/// line too large to buffer. Strings are tracked so braces inside them do not
/// count; only small scalars are captured.
#[derive(Default)]
struct Scan {
    depth: u32,
    in_str: bool,
    esc: bool,
    /// At depth 1: whether the next string is a key.
    want_key: bool,
    key: Vec<u8>,
    /// The key whose value is being read at depth 1.
    current: Option<Vec<u8>>,
    token: Vec<u8>,
    token_is_str: bool,
    id: Option<Value>,
    method: Option<String>,
}

impl Scan {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_str {
            if self.esc {
                self.esc = false;
            } else if b == b'\\' {
                self.esc = true;
            } else if b == b'"' {
                self.in_str = false;
                if self.depth == 1 {
                    if self.want_key {
                        self.current = Some(std::mem::take(&mut self.key));
                        self.want_key = false;
                    } else {
                        self.finish_value();
                    }
                }
                return;
            }
            if self.depth == 1 {
                let dst = if self.want_key {
                    &mut self.key
                } else {
                    &mut self.token
                };
                if dst.len() < 256 {
                    dst.push(b);
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_str = true;
                if self.depth == 1 && !self.want_key {
                    self.token.clear();
                    self.token_is_str = true;
                }
                if self.depth == 1 && self.want_key {
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.want_key = true;
                }
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.finish_value();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if self.depth == 1 => {
                self.finish_value();
                self.want_key = true;
            }
            b':' if self.depth == 1 => {
                self.token.clear();
                self.token_is_str = false;
            }
            _ if self.depth == 1 && !b.is_ascii_whitespace() && self.token.len() < 64 => {
                self.token.push(b);
            }
            _ => {}
        }
    }

    fn finish_value(&mut self) {
        let Some(key) = self.current.take() else {
            return;
        };
        let token = std::mem::take(&mut self.token);
        match key.as_slice() {
            b"id" if self.token_is_str => {
                self.id = Some(Value::String(String::from_utf8_lossy(&token).into_owned()));
            }
            b"id" => self.id = serde_json::from_slice(&token).ok(),
            b"method" if self.token_is_str => {
                self.method = Some(String::from_utf8_lossy(&token).into_owned());
            }
            _ => {}
        }
        self.token_is_str = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(s: &str) -> (Option<Value>, Option<String>) {
        let mut sc = Scan::default();
        for chunk in s.as_bytes().chunks(3) {
            sc.feed(chunk);
        }
        (sc.id, sc.method)
    }

    #[test]
    fn finds_the_id_wherever_it_is() {
        let (id, m) = scan(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":1}}"#);
        assert_eq!(id, Some(json!(7)));
        assert_eq!(m.as_deref(), Some("tools/call"));
        let (id, m) = scan(
            r#"{"method":"tools/call","params":{"arguments":{"x":"}{\"id\":3"}},"jsonrpc":"2.0","id":"a-b"}"#,
        );
        assert_eq!(id, Some(json!("a-b")));
        assert_eq!(m.as_deref(), Some("tools/call"));
        let (id, _) = scan(r#"{"params":{"x":[1,2,{"id":9}]}, "id" : 12 }"#);
        assert_eq!(id, Some(json!(12)));
    }

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

    #[test]
    fn a_call_is_built_as_rmcp_reads_it() {
        let built = [
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "multi_edit", "arguments": {"file_path": "/a", "edits": []}}}),
            json!({"method": "tools/call", "id": "x-1", "jsonrpc": "2.0",
                   "params": {"_meta": {"progressToken": 3}, "arguments": {"k": [1, {"a": null}]},
                              "name": "undo"}}),
            json!({"jsonrpc": "2.0", "id": 1.0, "method": "tools/call",
                   "params": {"name": "n", "arguments": {}}}),
        ];
        for v in built {
            let rmcp_reads: RxJsonRpcMessage<RoleServer> =
                serde_json::from_value(v.clone()).unwrap();
            let here = call_tool(v.clone()).unwrap_or_else(|v| panic!("not built: {v}"));
            assert_eq!(
                serde_json::to_value(&here).unwrap(),
                serde_json::to_value(&rmcp_reads).unwrap(),
                "{v}"
            );
            assert_eq!(format!("{here:?}"), format!("{rmcp_reads:?}"), "{v}");
        }
        // Anything else is left to rmcp, untouched.
        let left = [
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}),
            json!({"jsonrpc": "1.0", "id": 7, "method": "tools/call",
                   "params": {"name": "n", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": [7], "method": "tools/call",
                   "params": {"name": "n", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "extra": 1,
                   "params": {"name": "n", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "n", "arguments": {}, "requestState": "s"}}),
            json!({"jsonrpc": "2.0", "method": "tools/call",
                   "params": {"name": "n", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "n", "arguments": {}, "_meta": 3}}),
        ];
        for v in left {
            assert_eq!(call_tool(v.clone()).unwrap_err(), v);
        }
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
        let answer =
            JsonRpcMessage::response(rmcp::model::ServerResult::empty(()), request.id.clone());
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
            let v = polled_once(line_from(&mut out))
                .expect("written before the end of stdin was reported");
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
}
