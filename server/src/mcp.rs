//! The MCP face of splice: tool list, tool calls, resources.
//!
//! Handlers are thin. A call is found in the tool table (`tool_table`: one
//! entry per tool, so dispatch is the same for all of them), decoded
//! ([`crate::args`]), admitted ([`crate::admission`]: bounded calls in
//! flight and memory, waits that hold no thread), run as a plain function
//! ([`crate::tools`]) off the event loop ([`run_blocking`]), and wrapped: success and
//! failure both travel as `structuredContent` plus the same JSON as compact
//! text in `content[0]` (clients that only read text keep working). Every
//! failure is an `isError: true` result carrying a taxonomy envelope; only
//! what the MCP spec makes protocol errors (an unknown tool, a malformed
//! request) are JSON-RPC errors (-32602). A panic inside a call becomes an
//! INTERNAL_ERROR envelope and the server keeps serving.
//!
//! Client roots ([`crate::client_roots`] has the rule): when the client has
//! the `roots` capability, a call runs only inside where the configured
//! roots and the client's roots agree. How the client is asked depends on
//! the protocol era:
//!
//! - **Initialize handshake (up to 2025-11-25).** The capability is read from
//!   `initialize`; the first call sends `roots/list` and waits for the answer
//!   (at most [`ROOTS_TIMEOUT`]), once per session: the result, or the
//!   fallback after no answer or an error, is kept until
//!   `notifications/roots/list_changed` makes the next call ask again.
//! - **2026-07-28 (`server/discover`, stateless).** There is no `initialize`
//!   and a server may not send requests to the client. Each request states
//!   its capabilities in `_meta["io.modelcontextprotocol/clientCapabilities"]`;
//!   a `tools/call` from a client with `roots` is answered with an MRTR
//!   `InputRequiredResult` asking for `roots/list` under the key
//!   [`ROOTS_INPUT`], and the client retries the call with the answer in
//!   `inputResponses` (the official SDKs do this by themselves). Nothing is
//!   remembered between calls (the era has no `roots/list_changed`), so every
//!   call costs one more round trip. Roots sent in `inputResponses` are only
//!   ever a narrowing, so they are honoured whether or not they were asked for.
//!
//! No call runs with wider roots than the client stated, and a
//! `PATH_OUTSIDE_ROOTS` envelope names the rule that refused the path
//! (`context.roots_source`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, InputRequest, InputRequiredResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use crate::admission::{Admission, Bounds, Refused};
use crate::answer_gate::AnswerGate;
use crate::args::EditRequest;
use crate::client_roots::{self, ClientRootsPolicy, Effective, RootsSource};
use crate::commit::{Committer, Wait};
use crate::config::Config;
use crate::envelopes::CallFailure;
use crate::taxonomy::ErrorEnvelope;
use crate::{envelopes, resources, tools};

mod tool_table;

use tool_table::{Fail, FilesOp, LockTimeout, PlainOp, Work};
pub use tool_table::{LIST_TRANSACTIONS, MULTI_EDIT, MULTI_EDIT_FILES, UNDO, tools};

/// What a caught panic reports (the panic itself goes to the log).
const DETAIL: &str =
    "the handler stopped unexpectedly; files are unchanged unless the commit had completed";

/// How long the first call of a session (initialize handshake) waits for the
/// client's `roots/list` answer before the session runs with the configured
/// roots alone. A local client answers in milliseconds; one that does not
/// answer costs this once per session, not once per call.
pub const ROOTS_TIMEOUT: Duration = Duration::from_secs(2);

/// The key of splice's `roots/list` request in an `InputRequiredResult`
/// (2026-07-28), and of the client's answer in `inputResponses`.
pub const ROOTS_INPUT: &str = "roots";

/// A configuration narrowed by the client's roots, and the rule that chose them.
type Narrowed = (Arc<Config>, RootsSource);

/// Roots a 2026-07-28 call carried, and the configuration built over them.
type InlineRoots = (Vec<PathBuf>, Arc<Config>);

/// The roots a call runs with, or the question to ask the client first.
enum Roots {
    Run(Arc<Config>, RootsSource),
    Ask(InputRequiredResult),
}

/// The server state shared by all calls.
#[derive(Clone)]
pub struct Splice {
    /// The configuration from the command line.
    base: Arc<Config>,
    policy: ClientRootsPolicy,
    /// The configuration narrowed by the client's roots in a session with an
    /// initialize handshake; `None` until asked (and again after
    /// `roots/list_changed`).
    narrowed: Arc<tokio::sync::Mutex<Option<Narrowed>>>,
    /// The last configuration built from roots a 2026-07-28 call carried,
    /// reused while the client sends the same roots.
    inline: Arc<std::sync::Mutex<Option<InlineRoots>>>,
    committer: Arc<Committer>,
    admission: Arc<Admission>,
    tools: Arc<Vec<Tool>>,
    /// Whether a call may run inline, and the slot that lets one at a time
    /// ([`run_blocking`]).
    inline_work: Arc<Inline>,
}

impl Splice {
    /// A server over `cfg`, committing through `committer`, whose
    /// transport counts its answers in `answers` (the gate `committer` and
    /// `cfg`'s undo store wait on too); client roots narrow `cfg`'s roots
    /// (see [`Splice::client_roots`]).
    pub fn new(cfg: Config, committer: Committer, answers: Arc<AnswerGate>) -> Splice {
        Splice {
            base: Arc::new(cfg),
            policy: ClientRootsPolicy::default(),
            narrowed: Arc::default(),
            inline: Arc::default(),
            committer: Arc::new(committer),
            admission: Arc::new(Admission::new(Bounds::default())),
            tools: Arc::new(tools()),
            inline_work: Arc::new(Inline::new(answers)),
        }
    }

    /// What to do with the roots a client offers.
    pub fn client_roots(mut self, policy: ClientRootsPolicy) -> Splice {
        self.policy = policy;
        self
    }

    /// How many calls work at once and how much memory they may reserve
    /// ([`crate::admission`]).
    pub fn bounds(mut self, bounds: Bounds) -> Splice {
        self.admission = Arc::new(Admission::new(bounds));
        self
    }

    /// The configuration a call runs with: the command line's, narrowed by
    /// the client's roots when it offers them, or the `roots/list` question
    /// to return first (2026-07-28).
    #[allow(
        deprecated,
        reason = "roots are deprecated as access control (SEP-2577); they only narrow here, \
                  and clients still send them"
    )]
    async fn roots(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Roots, McpError> {
        let base = || Roots::Run(self.base.clone(), RootsSource::Server);
        if self.policy == ClientRootsPolicy::Ignore {
            return Ok(base());
        }
        let offers_roots = context
            .client_capabilities()
            .is_some_and(|caps| caps.roots.is_some());
        let stateless = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        if !stateless {
            // A session that may send requests to the client.
            let (cfg, source) = self.session_roots(&context.peer, offers_roots).await;
            return Ok(Roots::Run(cfg, source));
        }
        // 2026-07-28: the answer travels with the retried call.
        if let Some(answer) = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(ROOTS_INPUT))
        {
            return match serde_json::from_value::<rmcp::model::ListRootsResult>(answer.clone()) {
                Ok(list) => {
                    let effective = self.narrowed_by(list.roots.iter().map(|r| r.uri.as_str()));
                    let cfg = self.inline_config(&effective.roots);
                    Ok(Roots::Run(cfg, effective.source))
                }
                Err(_) if answer.get("roots").is_some() => Err(McpError::invalid_params(
                    format!("inputResponses.{ROOTS_INPUT} is not a roots/list result"),
                    None,
                )),
                Err(_) => {
                    // An error answer (the client could not list its roots)
                    // states no roots, as in the handshake era.
                    tracing::warn!(
                        "the client answered roots/list with an error; using --root alone"
                    );
                    Ok(base())
                }
            };
        }
        if !offers_roots {
            return Ok(base());
        }
        let ask = rmcp::model::InputRequests::from([(
            ROOTS_INPUT.to_string(),
            InputRequest::ListRoots(rmcp::model::ListRootsRequest::default()),
        )]);
        Ok(Roots::Ask(InputRequiredResult::from_input_requests(ask)))
    }

    /// The roots of a session with an initialize handshake: asked once, kept
    /// until `roots/list_changed`.
    #[allow(deprecated, reason = "see `roots`")]
    async fn session_roots(
        &self,
        peer: &Peer<RoleServer>,
        offers_roots: bool,
    ) -> (Arc<Config>, RootsSource) {
        if !offers_roots {
            return (self.base.clone(), RootsSource::Server);
        }
        let mut slot = self.narrowed.lock().await;
        if let Some(known) = slot.as_ref() {
            return known.clone();
        }
        let known = match tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
            Ok(Ok(list)) => {
                let effective = self.narrowed_by(list.roots.iter().map(|r| r.uri.as_str()));
                let cfg = Arc::new(Config {
                    roots: effective.roots,
                    ..(*self.base).clone()
                });
                (cfg, effective.source)
            }
            Ok(Err(e)) => {
                tracing::warn!(
                    "roots/list failed ({e}); using --root alone until roots/list_changed"
                );
                (self.base.clone(), RootsSource::Server)
            }
            Err(_) => {
                tracing::warn!(
                    "roots/list got no answer in {ROOTS_TIMEOUT:?}; using --root alone until \
                     roots/list_changed"
                );
                (self.base.clone(), RootsSource::Server)
            }
        };
        *slot = Some(known.clone());
        known
    }

    /// The client's root URIs applied to `--root`, logged.
    fn narrowed_by<'a>(&self, uris: impl IntoIterator<Item = &'a str>) -> Effective {
        let (effective, ignored) = client_roots::from_client_list(&self.base.roots, uris);
        if !ignored.is_empty() {
            tracing::warn!(
                ignored = ignored.len(),
                "client roots that are not local directories allow nothing"
            );
        }
        match effective.source {
            RootsSource::ClientEmpty => tracing::warn!(
                "the client lists no roots: no file is editable (start splice with \
                 --client-roots ignore to use --root alone)"
            ),
            RootsSource::ClientDisjoint => tracing::warn!(
                "none of the client's roots is inside a --root: no file is editable (start \
                 splice with --client-roots ignore to use --root alone)"
            ),
            _ => tracing::debug!(roots = ?effective.roots, "roots narrowed by the client"),
        }
        effective
    }

    /// A configuration over `roots`, reused while calls carry the same roots
    /// (each new one opens its root handles).
    fn inline_config(&self, roots: &[PathBuf]) -> Arc<Config> {
        let mut last = self.inline.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((known, cfg)) = last.as_ref()
            && known.as_slice() == roots
        {
            return cfg.clone();
        }
        let cfg = Arc::new(Config {
            roots: roots.to_vec(),
            ..(*self.base).clone()
        });
        *last = Some((roots.to_vec(), cfg.clone()));
        cfg
    }

    /// Runs one decoded call: through the admission gates
    /// ([`crate::admission`], waits that hold no thread), then `op` off the
    /// event loop ([`run_blocking`]). The call's cancellation token (a client's
    /// `notifications/cancelled`) ends any wait, and is checked while the
    /// commit waits for locks and at its commit point. `source` is the rule
    /// that set `cfg`'s roots, named in a `PATH_OUTSIDE_ROOTS` answer.
    async fn schedule(
        &self,
        cfg: Arc<Config>,
        source: RootsSource,
        req: EditRequest,
        request_bytes: usize,
        context: &RequestContext<RoleServer>,
        (op, timeout, fail): (FilesOp, LockTimeout, Fail),
    ) -> CallToolResult {
        let ct = context.ct.clone();
        // One deadline for every lock wait of the call: its place in the
        // files' queues here, then the commit's own locks.
        let until = tokio::time::Instant::now() + self.committer.lock_wait();
        let _queued = if req.dry_run {
            None // a dry run takes no lock, so it waits for none
        } else {
            let paths: Vec<PathBuf> = req
                .files
                .iter()
                .map(|f| PathBuf::from(&f.file_path))
                .collect();
            match self.admission.queue(&paths, until, ct.cancelled()).await {
                Ok(queued) => Some(queued),
                Err(refused) => return refusal(&req, refused, timeout, fail),
            }
        };
        let req = Arc::new(req);
        let until = until.into_std();
        // The footprint, gates 2 and 3 and the work in one blocking step
        // when the gates are open (the common case): every step off the
        // event loop and back is work on the path of every call. Only a
        // call that must wait goes back to wait here.
        let call = FilesCall {
            op,
            cfg,
            committer: self.committer.clone(),
            req: req.clone(),
            cancelled: {
                let ct = ct.clone();
                Box::new(move || ct.is_cancelled())
            },
            until,
        };
        let admission = self.admission.clone();
        let first = run_blocking(&self.inline_work, move || {
            let footprint = tools::footprint(&call.cfg, &call.req, request_bytes);
            match admission.try_admit(footprint) {
                Some(_admitted) => Ok(call.run(footprint)),
                None => Err((call, footprint)),
            }
        })
        .await;
        let joined = match first {
            Ok(Ok(result)) => Ok(result),
            Ok(Err((call, footprint))) => {
                let _admitted = match self.admission.admit(footprint, ct.cancelled()).await {
                    Ok(admitted) => admitted,
                    Err(refused) => return refusal(&req, refused, timeout, fail),
                };
                run_blocking(&self.inline_work, move || call.run(footprint)).await
            }
            Err(aborted) => Err(aborted),
        };
        match joined {
            Ok(Ok(success)) => structured(success.to_json(), false),
            Ok(Err(envelope)) => {
                // A refused path names the rule that set the roots.
                let envelope = envelopes::with_roots_source(envelope, source);
                if envelope.error_code == crate::taxonomy::ErrorCode::CallCancelled {
                    // rmcp drops the answer of a cancelled request.
                    tracing::info!("call cancelled before its commit point: nothing written");
                }
                error_result(&envelope)
            }
            Err(aborted) => {
                // The panic text may name source files; it goes to the log,
                // never to the client.
                tracing::error!(
                    panic = aborted.panic,
                    "tool call aborted: {}",
                    aborted.detail
                );
                error_result(&fail(CallFailure::Internal(DETAIL)))
            }
        }
    }
}

impl Splice {
    /// Runs `op` (an `undo` or a `list_transactions`) off the event loop,
    /// admitted like an edit (it counts against the calls in flight; its
    /// memory is that of the files it restores, reserved as `footprint`),
    /// with the call's cancellation and one lock deadline.
    async fn schedule_plain(
        &self,
        cfg: Arc<Config>,
        source: RootsSource,
        footprint: u64,
        context: &RequestContext<RoleServer>,
        (op, fail): (PlainOp, Fail),
    ) -> CallToolResult {
        let ct = context.ct.clone();
        let until = std::time::Instant::now() + self.committer.lock_wait();
        let _admitted = match self.admission.admit(footprint, ct.cancelled()).await {
            Ok(admitted) => admitted,
            Err(Refused::Busy { limit, max, actual }) => {
                tracing::warn!(limit, max, actual, "call refused: the server is busy");
                return error_result(&fail(CallFailure::Busy { limit, max, actual }));
            }
            Err(_) => return error_result(&fail(CallFailure::Cancelled)),
        };
        let committer = self.committer.clone();
        let joined = run_blocking(&self.inline_work, move || {
            let cancelled = move || ct.is_cancelled();
            let wait = Wait {
                cancelled: &cancelled,
                until: Some(until),
                lend: lend_wait,
            };
            lent_if_large(footprint, || op(&cfg, &committer, wait))
        })
        .await;
        match joined {
            Ok(Ok(success)) => structured(success.to_json(), false),
            Ok(Err(envelope)) => error_result(&envelopes::with_roots_source(envelope, source)),
            Err(aborted) => {
                tracing::error!(
                    panic = aborted.panic,
                    "tool call aborted: {}",
                    aborted.detail
                );
                error_result(&fail(CallFailure::Internal(DETAIL)))
            }
        }
    }
}

/// Why [`run_blocking`] gave no result: the work panicked (or, on the
/// blocking pool, its task was cancelled at shutdown).
struct Aborted {
    panic: bool,
    detail: String,
}

/// Runs `work` (file system calls that block: a call's planning, commit or
/// undo) without holding up the event loop, and catches its panic.
///
/// On the multi-thread runtime `splice` runs, the worker thread that
/// decoded the call runs it itself, in one of two ways:
///
/// - **Inline**, when the call is alone: the client waits for no other
///   answer ([`AnswerGate::owed`]), no other call runs inline
///   ([`Inline`]), and the runtime has another worker. The worker simply
///   runs the work, and when it ends the answer goes to rmcp's service loop
///   on the same thread, so no thread is woken on the call's path at all.
///   While it works, the worker's tasks wait, and so may the event loop
///   (tokio polls stdin from a parked worker, and the others may be
///   asleep): a request sent meanwhile is read when the work ends, that is
///   after a small call's own work, since whatever could hold the worker
///   longer lends it first ([`lent`]): a lock wait ([`Wait::lend`]: the
///   lock another call or process holds, however long, with its
///   cancellation still read) and a call estimated at
///   [`crate::admission::SMALL_CALL`] or more. This is the case of an agent
///   calling one tool after another. Inline without the first condition,
///   `tests/tests/it/e2e_load.rs` (calls on other files and pings while a
///   thousand wait for a locked file) answered pings in 20-37 ms at the
///   median instead of 0.2-1 ms, and the other calls in 405-481 ms instead
///   of 258-269 ms (debug builds).
/// - **Lent** ([`tokio::task::block_in_place`]) for every other call: the
///   worker hands its other tasks to another thread before it runs the
///   work, so however many calls work at once (a lock wait can last
///   seconds), a worker always serves. Lending costs two wakes on the
///   call's path: a thread to take the worker's tasks, and on the way back
///   the worker holding rmcp's service loop.
///
/// Side by side through the official SDK client (`bench/run --only
/// small-edit`), the inline call answers a small edit about 8% sooner at
/// the p50 than lending every call, and lending 3-4% sooner than sending
/// the work to the blocking pool (two hand-offs each way). A
/// current-thread runtime (some tests) cannot lend its only thread, so
/// there the work goes to the blocking pool.
async fn run_blocking<T, F>(inline: &Inline, work: F) -> Result<T, Aborted>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    use tokio::runtime::{Handle, RuntimeFlavor};
    let handle = Handle::current();
    if handle.runtime_flavor() == RuntimeFlavor::MultiThread {
        let caught = |work: F| std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        let outcome = match inline.claim(handle.metrics().num_workers()) {
            Some(_inline) => caught(work),
            None => tokio::task::block_in_place(|| caught(work)),
        };
        outcome.map_err(|payload| Aborted {
            panic: true,
            detail: panic_text(payload.as_ref()),
        })
    } else {
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|join_error| Aborted {
                panic: join_error.is_panic(),
                detail: join_error.to_string(),
            })
    }
}

/// Runs `f`, long work or a wait inside a call's work, with the worker it
/// runs on lent to the runtime ([`tokio::task::block_in_place`]), so a call
/// running inline ([`Inline`]) hands the worker's other tasks to another thread
/// before it holds it for long. Where the worker is already lent, or the
/// work runs on the blocking pool, it simply runs `f`.
fn lent<T>(f: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// A call's work `f`, [`lent`] when the call is estimated (`footprint`) at
/// [`crate::admission::SMALL_CALL`] or more: a large call never holds its
/// worker (see [`run_blocking`]).
fn lent_if_large<T>(footprint: u64, f: impl FnOnce() -> T) -> T {
    if footprint >= crate::admission::SMALL_CALL {
        lent(f)
    } else {
        f()
    }
}

/// [`lent`] for a commit's lock waits ([`Wait::lend`]).
fn lend_wait(wait: &mut dyn FnMut()) {
    lent(wait)
}

/// When a call runs its work on its worker without lending it (see
/// [`run_blocking`]): alone, and one call at a time. One, so that every
/// other worker stays free: with two calls inline on a two-worker runtime
/// nothing would read stdin until one ended (a call cancelled while it
/// waited for a lock went unseen).
struct Inline {
    /// The server's answers: how many the client waits for.
    answers: Arc<AnswerGate>,
    /// A call holds the slot ([`InlineWork`]).
    held: std::sync::atomic::AtomicBool,
}

/// The inline slot, held by the call running inline; released on drop.
struct InlineWork<'a>(&'a Inline);

impl Inline {
    fn new(answers: Arc<AnswerGate>) -> Inline {
        Inline {
            answers,
            held: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The inline slot, if the runtime has another worker (`workers` in
    /// all), the client waits for no answer but this call's
    /// ([`AnswerGate::owed`]), and no other call holds it.
    fn claim(&self, workers: usize) -> Option<InlineWork<'_>> {
        use std::sync::atomic::Ordering;
        (workers >= 2
            && self.answers.owed() <= 1
            && self
                .held
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok())
        .then_some(InlineWork(self))
    }
}

impl Drop for InlineWork<'_> {
    fn drop(&mut self) {
        self.0
            .held
            .store(false, std::sync::atomic::Ordering::Release);
    }
}

/// The message of a caught panic (its payload is a `&str` or a `String`
/// when it came from `panic!` with a message).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let text = (payload.downcast_ref::<&str>().copied())
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    text.map_or_else(|| "panicked".to_owned(), |t| format!("panicked: {t}"))
}

/// A [`Work::Files`] call admitted or about to be, with what its `op`
/// needs off the event loop.
struct FilesCall {
    op: FilesOp,
    cfg: Arc<Config>,
    committer: Arc<Committer>,
    req: Arc<EditRequest>,
    /// The call's cancellation (a client's `notifications/cancelled`).
    cancelled: Box<dyn Fn() -> bool + Send>,
    /// The call's one lock deadline.
    until: std::time::Instant,
}

impl FilesCall {
    /// Runs `op` with the call's cancellation and lock deadline, and gives a
    /// large call's freed memory back afterwards (`footprint` is its
    /// estimate).
    fn run(&self, footprint: u64) -> Result<tool_table::Answer, ErrorEnvelope> {
        let wait = Wait {
            cancelled: &*self.cancelled,
            until: Some(self.until),
            lend: lend_wait,
        };
        let result = lent_if_large(footprint, || {
            (self.op)(&self.cfg, &self.committer, &self.req, wait)
        });
        if footprint >= crate::admission::SMALL_CALL {
            release_freed_memory();
        }
        result
    }
}

/// Gives the memory a large call freed back to the system. glibc keeps freed
/// memory in per-thread arenas, and calls run on whichever thread
/// [`run_blocking`] lends them, so without this a server that ran a few large calls stays at the
/// sum of their peaks (measured: 30 dry runs on a 4 MiB file, one at a time,
/// peaked at 181 MiB, and at 90 MiB with the trim).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim has no preconditions; it only returns free pages.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Bytes of `value`'s compact JSON, counted as it is written, without
/// keeping it.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// The answer to a call the admission gates turned away (nothing was read
/// or written).
fn refusal(
    req: &EditRequest,
    refused: Refused,
    timeout: LockTimeout,
    fail: Fail,
) -> CallToolResult {
    let envelope = match refused {
        Refused::Cancelled => {
            tracing::info!("call cancelled while waiting: nothing written");
            fail(CallFailure::Cancelled)
        }
        Refused::LockTimeout(index) => timeout(req, index),
        Refused::Busy { limit, max, actual } => {
            tracing::warn!(limit, max, actual, "call refused: the server is busy");
            fail(CallFailure::Busy { limit, max, actual })
        }
    };
    error_result(&envelope)
}

fn structured(value: serde_json::Result<Value>, is_error: bool) -> CallToolResult {
    match value {
        Ok(v) if is_error => CallToolResult::structured_error(v),
        Ok(v) => CallToolResult::structured(v),
        Err(e) => {
            tracing::error!("serializing a result failed: {e}");
            error_result(&envelopes::any_call_failure(CallFailure::Internal(
                "the result could not be serialized",
            )))
        }
    }
}

fn error_result(envelope: &ErrorEnvelope) -> CallToolResult {
    structured(serde_json::to_value(envelope), true)
}

/// A tool-call error result as JSON, for [`crate::transport`], which answers
/// a request too large to hand to rmcp.
pub(crate) fn error_result_value(envelope: &ErrorEnvelope) -> Value {
    serde_json::to_value(error_result(envelope)).unwrap_or(Value::Null)
}

impl Splice {
    /// A `tools/call`: the tool's arguments checked and decoded, the roots
    /// settled, then the call scheduled ([`Splice::schedule`]).
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let Some(entry) = tool_table::find(&name) else {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{name}`; this server has {}",
                    tool_table::names()
                ),
                None,
            ));
        };
        let mut request_roots = request;
        let arguments = Value::Object(request_roots.arguments.take().unwrap_or_default());
        let limits = &self.base.limits;
        let size = json_len(&arguments);
        if size > limits.max_request_bytes {
            return Ok(error_result(&(entry.fail)(CallFailure::TooLarge {
                max: limits.max_request_bytes as u64,
                actual: size as u64,
            }))
            .into());
        }
        tracing::debug!(tool = %name, bytes = size, "call");
        let work = match (entry.decode)(&arguments, limits) {
            Ok(work) => work,
            Err(violations) => {
                return Ok(error_result(&(entry.fail)(CallFailure::Invalid(violations))).into());
            }
        };
        let (cfg, source) = match self.roots(&request_roots, &context).await? {
            Roots::Run(cfg, source) => (cfg, source),
            Roots::Ask(question) => return Ok(question.into()),
        };
        let result = match work {
            Work::Files(req, op, timeout) => {
                let how = (op, timeout, entry.fail);
                self.schedule(cfg, source, req, size, &context, how).await
            }
            Work::Plain { footprint, op } => {
                let footprint = footprint(&cfg);
                self.schedule_plain(cfg, source, footprint, &context, (op, entry.fail))
                    .await
            }
        };
        Ok(result.into())
    }
}

impl ServerHandler for Splice {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(rmcp::model::Implementation::new(
            "splice",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(
            "splice edits files inside its allowed roots with exact find-and-replace. Use \
             multi_edit for one file and multi_edit_files for an atomic change across files; \
             each committed call answers a transaction_id that undo takes to put it back \
             (list_transactions shows what can be undone). \
             On failure read error_code, retryable and recovery_hints; MATCH_NOT_FOUND and \
             AMBIGUOUS_MATCH carry the surrounding file text so you can fix old_string without \
             re-reading the file. The envelope schema and the error reference are resources.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        tracing::info!("client roots changed");
        *self.narrowed.lock().await = None;
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Boxed: rmcp spawns a task per request holding this future, and
        // tokio moves a task's future several times as it spawns it; the
        // call's whole state machine (3.8 KB) was copied each time.
        Box::pin(self.call(request, context)).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let list = resources::all()
            .into_iter()
            .map(|r| {
                Resource::new(r.uri, r.name)
                    .with_description(r.description)
                    .with_mime_type(r.mime_type)
                    .with_size(r.text.len() as u64)
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(list))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        match resources::all().into_iter().find(|r| r.uri == request.uri) {
            Some(r) => Ok(
                ReadResourceResult::new(vec![ResourceContents::TextResourceContents {
                    uri: r.uri,
                    mime_type: Some(r.mime_type.to_string()),
                    text: r.text.to_string(),
                    meta: None,
                }])
                .into(),
            ),
            None => Err(McpError::resource_not_found(
                format!("no resource `{}`", request.uri),
                None,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::{Inline, json_len, run_blocking};
    use crate::answer_gate::AnswerGate;

    #[test]
    fn json_len_is_the_length_of_the_compact_json() {
        let v = serde_json::json!({"a": "é\n\"", "b": [1, 2.5, null, true], "c": {}});
        assert_eq!(json_len(&v), serde_json::to_vec(&v).unwrap().len());
    }

    /// An inline slot of a server with no transport (nothing is owed).
    fn slot() -> Arc<Inline> {
        Arc::new(Inline::new(AnswerGate::new()))
    }

    /// Runs `test` on a multi-thread runtime with `workers` workers, like
    /// the server's.
    fn on_runtime(workers: usize, test: impl std::future::Future<Output = ()>) {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .unwrap()
            .block_on(test);
    }

    /// The server's runtime: the work runs on the thread that awaited it (no
    /// hand-off), and a panic in it is an error the call can answer with,
    /// not the end of the task that would have sent the answer.
    #[test]
    fn on_the_multi_thread_runtime_the_work_runs_here_and_a_panic_is_caught() {
        on_runtime(2, async {
            let inline = slot();
            let here = std::thread::current().id();
            let there = run_blocking(&inline, move || std::thread::current().id()).await;
            assert_eq!(there.ok(), Some(here));

            let aborted = run_blocking(&inline, || -> u8 { panic!("the invariant broke") })
                .await
                .expect_err("a panic is an error");
            assert!(aborted.panic);
            assert!(
                aborted.detail.contains("the invariant broke"),
                "{}",
                aborted.detail
            );
            // The runtime still runs tasks and blocking work afterwards.
            assert_eq!(tokio::spawn(async { 7 }).await.ok(), Some(7));
            assert_eq!(run_blocking(&inline, || 8).await.ok(), Some(8));
        });
    }

    /// Work that holds its thread until an async task, spawned only once
    /// the work has started, tells it to finish: that task needs a worker
    /// while the work holds one. `None` when no worker ran the task in
    /// time. `started` hears when the work holds its thread.
    fn held_until_a_task_runs(
        started: std::sync::mpsc::Sender<()>,
    ) -> (
        impl FnOnce() -> Option<u8> + Send + 'static,
        std::sync::mpsc::Sender<u8>,
    ) {
        let (tx, rx) = std::sync::mpsc::channel::<u8>();
        let work = move || {
            started.send(()).unwrap();
            rx.recv_timeout(Duration::from_secs(10)).ok()
        };
        (work, tx)
    }

    /// `work` run through `inline` in a task of its own, as rmcp runs each
    /// call.
    fn spawned<T: Send + 'static>(
        inline: &Arc<Inline>,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> tokio::task::JoinHandle<Option<T>> {
        let inline = inline.clone();
        tokio::spawn(async move { run_blocking(&inline, work).await.ok() })
    }

    /// While one call's work holds a worker (the one call that runs inline),
    /// a second call's work still runs, and while both hold their threads
    /// the runtime still runs async tasks (rmcp's service loop, the
    /// transport): the second call lent its worker. Were every call inline,
    /// both workers would be held and the task that ends the second call's
    /// work would never run.
    #[test]
    fn with_two_calls_working_a_worker_still_serves() {
        on_runtime(2, async {
            let inline = slot();
            let (started, has_started) = std::sync::mpsc::channel();
            let (first, finish_first) = held_until_a_task_runs(started.clone());
            let first = spawned(&inline, first);
            has_started.recv().unwrap();
            let (second, finish_second) = held_until_a_task_runs(started);
            let second = spawned(&inline, second);
            has_started.recv().unwrap();
            // Both works hold their threads now; this task needs a third.
            tokio::spawn(async move { finish_second.send(2).unwrap() });
            let second = second.await.unwrap();
            assert_eq!(
                second,
                Some(Some(2)),
                "no worker served while two calls worked"
            );
            finish_first.send(1).unwrap();
            assert_eq!(first.await.unwrap(), Some(Some(1)));
        });
    }

    /// A runtime with one worker has no other worker to serve while a call
    /// works inline: every call lends its worker.
    #[test]
    fn on_one_worker_the_call_lends_it() {
        on_runtime(1, async {
            let (started, has_started) = std::sync::mpsc::channel();
            let (work, finish) = held_until_a_task_runs(started);
            let call = spawned(&slot(), work);
            has_started.recv().unwrap();
            tokio::spawn(async move { finish.send(1).unwrap() });
            assert_eq!(
                call.await.unwrap(),
                Some(Some(1)),
                "the only worker was held"
            );
        });
    }

    /// The inline slot is given back when the work panics, so the next
    /// call can run inline again; and a call the client is not alone in
    /// waiting for never runs inline.
    #[test]
    fn the_inline_slot_is_released_after_a_panic() {
        let answers = AnswerGate::new();
        let inline = Inline::new(answers.clone());
        let one = inline.claim(2).expect("the slot is free");
        assert!(inline.claim(2).is_none(), "one call at a time");
        drop(one);
        let caught = std::panic::catch_unwind(|| {
            let _held = inline.claim(2).expect("the slot is free");
            panic!("the work broke");
        });
        assert!(caught.is_err());
        assert!(inline.claim(2).is_some(), "released on unwind");
        assert!(inline.claim(1).is_none(), "one worker: never inline");
        answers.set_owed(2);
        assert!(inline.claim(2).is_none(), "another answer is owed");
        answers.set_owed(1);
        assert!(inline.claim(2).is_some(), "only this call's answer is owed");
    }

    /// A current-thread runtime cannot lend its thread: the work goes to
    /// the blocking pool, with the same answers.
    #[tokio::test]
    async fn on_a_current_thread_runtime_the_work_goes_to_the_pool() {
        let inline = slot();
        let here = std::thread::current().id();
        let there = run_blocking(&inline, move || std::thread::current().id()).await;
        assert_ne!(there.ok(), Some(here));

        let aborted = run_blocking(&inline, || -> u8 {
            panic!("{}", String::from("formatted"))
        })
        .await
        .expect_err("a panic is an error");
        assert!(aborted.panic);
        assert!(aborted.detail.contains("panic"), "{}", aborted.detail);
    }
}
