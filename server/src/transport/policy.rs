//! What the transport decides about each line before rmcp sees it: the size
//! limit, JSON-RPC hygiene, `ping`, the session's start, and backpressure
//! (the rules are listed in [`super`]'s docs).

use std::collections::HashMap;

use rmcp::RoleServer;
use rmcp::service::RxJsonRpcMessage;
use serde_json::{Value, json};

use super::fast_path::call_tool;
use super::scan::Scan;
use super::{Shared, StdioTransport};
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
pub(super) fn line_limit(max_request: usize) -> usize {
    max_request.saturating_add(ENVELOPE_ALLOWANCE)
}

/// Most requests unanswered before the transport stops reading stdin, whatever
/// stdout does (calls waiting for locked files, admission).
pub const MAX_WAITING: usize = 4096;

/// Most bytes of unanswered requests before the transport stops reading stdin.
pub const MAX_WAITING_BYTES: usize = 256 * 1024 * 1024;

/// How long a write to stdout may wait before stdout counts as stalled.
pub const STALLED: std::time::Duration = std::time::Duration::from_millis(20);

impl StdioTransport {
    pub(super) fn too_large(&mut self, scan: &Scan, total: usize) {
        let max = self.max_request;
        tracing::warn!(
            bytes = total,
            max,
            "request line over --max-request-size discarded"
        );
        let id = scan.id.clone().unwrap_or(Value::Null);
        let message = if scan.method.as_deref() == Some("tools/call") && !id.is_null() {
            let envelope = envelopes::any_call_failure(envelopes::CallFailure::TooLarge {
                max: max as u64,
                actual: total as u64,
            });
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
    pub(super) fn admit(&mut self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
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
    pub(super) fn for_rmcp(&mut self, value: Value) -> Option<RxJsonRpcMessage<RoleServer>> {
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
    pub(super) async fn wait_for_room(&mut self) {
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

/// The text [`Owed`] keys the request `id` by: as its answer's id prints,
/// so `1.0` and `1`, which rmcp reads as one id, are one request.
pub(super) fn owed_key(id: &Value) -> String {
    match serde_json::from_value::<rmcp::model::RequestId>(id.clone()) {
        Ok(id) => id_key(Some(&id)),
        Err(_) => id.to_string(),
    }
}

/// An answer's request id as the text [`Owed`] keys it by (`null` for none).
pub(super) fn id_key(id: Option<&rmcp::model::RequestId>) -> String {
    id.and_then(|id| serde_json::to_string(id).ok())
        .unwrap_or_else(|| "null".to_owned())
}

/// One readable log line for a JSON-RPC error rmcp answers with (rmcp's own
/// line prints the error as Rust `Debug`; `main` filters that one out).
pub(super) fn log_error_answer(
    id: Option<&rmcp::model::RequestId>,
    error: &rmcp::model::ErrorData,
) {
    let id = id_key(id);
    tracing::warn!(
        "request {id} answered with JSON-RPC error {}: {}",
        error.code.0,
        error.message
    );
}

/// The requests passed on and not yet answered.
#[derive(Default)]
pub(super) struct Owed {
    pub(super) sizes: HashMap<String, usize>,
    pub(super) bytes: usize,
}

/// Marks the start (`true`) or end of a write to stdout.
pub(super) fn set_writing(shared: &Shared, writing: bool) {
    if let Ok(mut since) = shared.writing_since.lock() {
        *since = writing.then(std::time::Instant::now);
    }
    if !writing {
        shared.answered.notify_waiters();
    }
}

/// The request `id` (JSON text) is answered, or cancelled (then it may get
/// no answer at all): it no longer counts against the backpressure bounds.
pub(super) fn answered(shared: &Shared, id: &str) {
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
pub(super) fn must_wait(shared: &Shared, max_line: usize) -> bool {
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
pub(super) fn starts_inline_lifecycle(method: &str, params: Option<&Value>) -> bool {
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

pub(super) fn invalid_params(method: &str, params: Option<&Value>) -> Option<String> {
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
