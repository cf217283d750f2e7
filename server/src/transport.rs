//! The stdio framing layer between the client's pipes and rmcp.
//!
//! rmcp's stdio transport reads newline-delimited JSON-RPC and hands each
//! message to the service. Several things a hostile or merely sloppy client
//! does went wrong there, so every line passes through this layer first:
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
//!   `arguments` is missing or not an object, gets -32602 with its id.
//! - **`ping` at any time.** Answered here with `{}`, in every protocol
//!   version and state (rmcp answered -32601 to it in some).
//! - **Nothing before `initialize` kills the server.** A notification or a
//!   response object that arrives before the session starts (`initialize`,
//!   or in 2026-07-28 the first request other than `server/discover` with
//!   complete `_meta`) is logged and dropped (rmcp ended the session on it).
//!   After that it reaches rmcp, so `notifications/cancelled` cancels a call
//!   in every era.
//! - **Backpressure.** A client that stops reading stdout while sending
//!   requests made the server buffer answers without bound. This layer counts
//!   requests forwarded and answers written, and stops reading stdin (the
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
//! (`main` treats it as a clean exit).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::{Mutex, Notify};

use crate::envelopes;

/// Most requests forwarded to the service and not yet answered on stdout
/// before this layer stops reading stdin, when stdout is stalled.
pub const MAX_UNANSWERED: usize = 64;

/// Bytes a request line may have beyond `--max-request-size`: the limit is
/// on a call's arguments (checked exactly in [`crate::mcp`]); the line also
/// carries the JSON-RPC envelope, the tool name and `_meta`.
pub const ENVELOPE_ALLOWANCE: usize = 64 * 1024;

/// The longest request line this layer reads for `--max-request-size`
/// `max_request`; rmcp's own line limit must be above it.
pub fn line_limit(max_request: usize) -> usize {
    max_request.saturating_add(ENVELOPE_ALLOWANCE)
}

/// Most requests unanswered before this layer stops reading stdin, whatever
/// stdout does (calls waiting for locked files, admission).
pub const MAX_WAITING: usize = 4096;

/// Most bytes of unanswered requests before this layer stops reading stdin.
pub const MAX_WAITING_BYTES: usize = 256 * 1024 * 1024;

/// How long a write to stdout may wait before stdout counts as stalled.
pub const STALLED: std::time::Duration = std::time::Duration::from_millis(20);

/// Size of the in-process pipes to and from rmcp.
const PIPE: usize = 256 * 1024;

struct Shared {
    out: Mutex<Box<dyn AsyncWrite + Send + Unpin>>,
    /// Ids (as JSON text) of requests forwarded and not yet answered, with
    /// their sizes in bytes.
    unanswered: StdMutex<Owed>,
    /// Notified when a request is answered or a write to stdout completes.
    answered: Notify,
    /// When the write to stdout in progress started, if one is.
    writing_since: StdMutex<Option<std::time::Instant>>,
    initialized: AtomicBool,
}

impl Shared {
    async fn send(&self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap_or_default();
        line.push(b'\n');
        let mut out = self.out.lock().await;
        if let Err(e) = async {
            out.write_all(&line).await?;
            out.flush().await
        }
        .await
        {
            tracing::debug!("stdout closed: {e}");
        }
    }
}

/// What [`stdio`] reads from.
pub type Input = Box<dyn AsyncRead + Send + Unpin>;
/// What [`stdio`] writes to.
pub type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// The process's stdin and stdout, for [`framed`]; call it inside the
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

/// Wraps `input`/`output` (stdin/stdout) and returns the pair rmcp serves on.
/// `max_request` is `--max-request-size` (lines may have
/// [`ENVELOPE_ALLOWANCE`] more).
pub fn framed<R, W>(input: R, output: W, max_request: usize) -> (DuplexStream, DuplexStream)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE);
    let shared = Arc::new(Shared {
        out: Mutex::new(Box::new(output)),
        unanswered: StdMutex::new(Owed::default()),
        answered: Notify::new(),
        writing_since: StdMutex::new(None),
        initialized: AtomicBool::new(false),
    });
    tokio::spawn(read_client(input, to_rmcp, shared.clone(), max_request));
    tokio::spawn(write_client(from_rmcp, shared));
    (rmcp_reads, rmcp_writes)
}

/// rmcp → stdout, counting answers.
async fn write_client(from_rmcp: DuplexStream, shared: Arc<Shared>) {
    let mut lines = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let answer = serde_json::from_slice::<AnswerHead>(&line)
            .ok()
            .filter(|head| head.method.is_none());
        if let Some(head) = &answer
            && let Some(error) = &head.error
        {
            log_error_answer(head.id.as_ref(), error);
        }
        let answer_id = answer.and_then(|head| head.id.as_ref().map(Value::to_string));
        {
            let mut out = shared.out.lock().await;
            set_writing(&shared, true);
            let r = async {
                out.write_all(&line).await?;
                out.flush().await
            }
            .await;
            set_writing(&shared, false);
            if let Err(e) = r {
                tracing::debug!("stdout closed: {e}");
                break;
            }
        }
        if let Some(id) = answer_id {
            answered(&shared, &id);
            crate::answer_gate::note_written();
        }
    }
}

/// What [`write_client`] reads of a line rmcp writes: a request or a
/// notification has a `method`; an answer has the `id` of the request it
/// answers (JSON `null` included) and maybe an `error`. The `result`, most
/// of the line, is skipped without being built.
#[derive(serde::Deserialize)]
struct AnswerHead {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<serde::de::IgnoredAny>,
    error: Option<Value>,
}

/// A member that is there, even as `null` (which `Option` alone reads as
/// absent), as `Value::get` sees it.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// One readable log line for a JSON-RPC error rmcp answers with (rmcp's own
/// line prints the error as Rust `Debug`; `main` filters that one out).
fn log_error_answer(id: Option<&Value>, error: &Value) {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    let id = id.map_or_else(|| "null".to_owned(), Value::to_string);
    tracing::warn!("request {id} answered with JSON-RPC error {code}: {message}");
}

/// The requests forwarded and not yet answered.
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
                crate::answer_gate::set_owed(owed.sizes.len());
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

/// stdin → rmcp, line by line, each line at most [`line_limit`] bytes.
async fn read_client<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: DuplexStream,
    shared: Arc<Shared>,
    max_request: usize,
) {
    let max_line = line_limit(max_request);
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    loop {
        // Backpressure: wait while too many answers are owed (see the
        // module docs). A stall is a matter of time, so look again soon even
        // when nothing is notified.
        loop {
            let notified = shared.answered.notified();
            if !must_wait(&shared, max_line) {
                break;
            }
            let _ = tokio::time::timeout(STALLED, notified).await;
        }
        line.clear();
        let mut scan = Scan::default();
        let mut total = 0usize;
        let mut eof = false;
        loop {
            let buf = match input.fill_buf().await {
                Ok(b) => b,
                Err(e) => {
                    tracing::debug!("stdin: {e}");
                    eof = true;
                    break;
                }
            };
            if buf.is_empty() {
                eof = true;
                break;
            }
            let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            let n = chunk.len();
            total = total.saturating_add(n);
            if total > max_line {
                if !line.is_empty() {
                    scan.feed(&line);
                    line = Vec::new();
                }
                scan.feed(chunk);
            } else {
                line.extend_from_slice(chunk);
            }
            input.consume(n + usize::from(done));
            if done {
                break;
            }
        }
        if total > max_line {
            too_large(&shared, &scan, total, max_request).await;
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            forward(&shared, &mut to_rmcp, &line).await;
        }
        if eof {
            break;
        }
    }
    let _ = to_rmcp.shutdown().await;
}

async fn too_large(shared: &Shared, scan: &Scan, total: usize, max: usize) {
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
    shared.send(&message).await;
}

async fn forward(shared: &Shared, to_rmcp: &mut DuplexStream, line: &[u8]) {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!("invalid JSON from the client: {e}");
            let message = json!({"jsonrpc": "2.0", "id": null, "error": {
                "code": -32700, "message": format!("parse error: {e}")}});
            shared.send(&message).await;
            return;
        }
    };
    let Some(obj) = value.as_object() else {
        return pass(shared, to_rmcp, line).await;
    };
    let id = obj.get("id").filter(|v| !v.is_null());
    let method = obj.get("method").and_then(Value::as_str);
    let initialized = shared.initialized.load(Ordering::Acquire);
    match (method, id) {
        (Some(method), Some(id)) => {
            if method == "ping" {
                return shared
                    .send(&json!({"jsonrpc": "2.0", "id": id, "result": {}}))
                    .await;
            }
            if let Some(problem) = invalid_params(method, obj.get("params")) {
                tracing::warn!(method, "invalid params: {problem}");
                let message = json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32602, "message": format!("invalid params: {problem}")}});
                return shared.send(&message).await;
            }
            if method == "initialize" || starts_inline_lifecycle(method, obj.get("params")) {
                shared.initialized.store(true, Ordering::Release);
            }
            if let Ok(mut owed) = shared.unanswered.lock() {
                let owed = &mut *owed;
                let old = owed.sizes.insert(id.to_string(), line.len());
                crate::answer_gate::set_owed(owed.sizes.len());
                owed.bytes = owed.bytes + line.len() - old.unwrap_or(0);
            }
            pass(shared, to_rmcp, line).await;
        }
        (Some("notifications/cancelled"), None) if initialized => {
            if let Some(id) = obj
                .get("params")
                .and_then(|p| p.get("requestId"))
                .map(Value::to_string)
            {
                answered(shared, &id);
            }
            pass(shared, to_rmcp, line).await;
        }
        (Some(method), None) if !initialized => {
            tracing::warn!(method, "notification before initialize ignored");
        }
        (None, _) if !initialized => {
            tracing::warn!("JSON-RPC response before initialize ignored");
        }
        _ => pass(shared, to_rmcp, line).await,
    }
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

async fn pass(_shared: &Shared, to_rmcp: &mut DuplexStream, line: &[u8]) {
    let r = async {
        to_rmcp.write_all(line).await?;
        to_rmcp.write_all(b"\n").await
    }
    .await;
    if let Err(e) = r {
        tracing::debug!("service input closed: {e}");
    }
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

    #[test]
    fn an_answer_is_told_from_a_request_by_its_head() {
        let head = |line: &str| serde_json::from_slice::<AnswerHead>(line.as_bytes()).unwrap();
        let ok = head(
            r#"{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"{\"id\":9}"}]}}"#,
        );
        assert_eq!(
            (ok.id, ok.method.is_none(), ok.error),
            (Some(json!("a")), true, None)
        );
        // An answer to a request whose id could not be read has `id: null`:
        // it is still an answer, and its id is JSON `null`.
        let err =
            head(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}"#);
        assert_eq!(err.id, Some(Value::Null));
        assert_eq!(
            err.error,
            Some(json!({"code": -32700, "message": "parse error"}))
        );
        // A request to the client (`roots/list`) and a notification have a method.
        assert!(
            head(r#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#)
                .method
                .is_some()
        );
        let note = head(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#);
        assert!(note.method.is_some() && note.id.is_none());
    }
}
