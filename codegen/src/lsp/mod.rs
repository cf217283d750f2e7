//! `splice-codegen lsp`: a language server for `errors.yaml` (LSP 3.17 over
//! stdio).
//!
//! Three threads. The reader frames messages from stdin
//! ([`transport::read`]) and passes them on; an unreadable one is answered
//! with a parse error and the stream goes on. The main loop owns the state
//! ([`server::Server`]): it applies changes, answers requests and hands
//! checks to the checker. The checker runs one check at a time
//! ([`analysis::Analysis`]: the compiler's own `load_str` for the
//! diagnostics, the spanned tree for the names); a document that changes
//! while it is checked is checked once more, at its latest version only
//! (later versions replace a waiting one), and a result for an older
//! version is dropped. So the reader never waits for a check, and a
//! document that changes faster than it checks costs one check at a time.
//!
//! stdout carries the protocol only; logs go to stderr (`tracing`,
//! `RUST_LOG` sets the level).

pub mod analysis;
pub mod cursor;
pub mod features;
pub mod index;
pub mod server;
pub mod text;
pub mod transport;

use std::collections::HashMap;
use std::io::{self, BufReader};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};

use server::{Job, Server};

/// What the main loop waits for.
enum Event {
    /// A frame from the client.
    Frame(transport::Frame),
    /// The client closed its end.
    Closed,
    /// A check finished.
    Checked(String, Box<analysis::Analysis>),
}

/// The checks waiting to run: the latest version of each document.
#[derive(Default)]
struct Queue {
    jobs: HashMap<String, Job>,
    order: Vec<String>,
    stop: bool,
}

/// The checker's stack: the YAML tree is walked recursively, and its depth
/// is bounded (`yaml::MAX_DEPTH`), but a deep spec still deserves room.
const CHECKER_STACK: usize = 64 << 20;

/// Runs the server on stdin and stdout until `exit` or the end of stdin.
/// Returns the process exit code (0 after `shutdown` then `exit`).
pub fn run_stdio() -> io::Result<i32> {
    let (events, inbox) = mpsc::channel::<Event>();

    let reader_events = events.clone();
    std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || {
            let stdin = io::stdin();
            let mut input = BufReader::new(stdin.lock());
            loop {
                match transport::read(&mut input) {
                    Ok(Some(frame)) => {
                        if reader_events.send(Event::Frame(frame)).is_err() {
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        tracing::error!("reading stdin: {e}");
                        break;
                    }
                }
            }
            let _ = reader_events.send(Event::Closed);
        })?;

    let (to_writer, writer_inbox) = mpsc::channel::<Vec<u8>>();
    let writer = std::thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            for framed in writer_inbox {
                if let Err(e) = transport::write(&mut out, &framed) {
                    tracing::error!("writing stdout: {e}");
                    return;
                }
            }
        })?;

    let queue = Arc::new((Mutex::new(Queue::default()), Condvar::new()));
    let checker_queue = Arc::clone(&queue);
    let checker_events = events;
    let checker = std::thread::Builder::new()
        .name("lsp-checker".into())
        .stack_size(CHECKER_STACK)
        .spawn(move || check_loop(&checker_queue, &checker_events))?;

    let mut server = Server::new();
    let code = loop {
        let Ok(event) = inbox.recv() else { break 1 };
        match event {
            Event::Frame(transport::Frame::Message(m)) => {
                let method = match &m {
                    lsp_server::Message::Request(r) => Some((r.id.clone(), r.method.clone())),
                    _ => None,
                };
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    server.handle(m);
                }));
                if result.is_err() {
                    tracing::error!(?method, "a handler panicked; the message is dropped");
                    if let Some((id, method)) = method {
                        let _ = to_writer.send(transport::frame(&lsp_server::Message::Response(
                            lsp_server::Response::new_err(
                                id,
                                lsp_server::ErrorCode::InternalError as i32,
                                format!("internal error while answering `{method}`"),
                            ),
                        )));
                    }
                }
            }
            Event::Frame(transport::Frame::Malformed(why)) => {
                tracing::warn!("unreadable message: {why}");
                let _ = to_writer.send(transport::parse_error(&why));
            }
            Event::Checked(uri, analysis) => {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    server.analyzed(&uri, *analysis);
                }));
                if result.is_err() {
                    tracing::error!(uri, "publishing a check panicked");
                }
            }
            Event::Closed => break server.exit_code().unwrap_or(1),
        }
        for m in server.take_output() {
            let _ = to_writer.send(transport::frame(&m));
        }
        let jobs = server.take_jobs();
        if !jobs.is_empty() {
            let (lock, ready) = &*queue;
            let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
            for job in jobs {
                if !q.jobs.contains_key(&job.uri) {
                    q.order.push(job.uri.clone());
                }
                q.jobs.insert(job.uri.clone(), job);
            }
            ready.notify_one();
        }
        if let Some(code) = server.exit_code() {
            break code;
        }
    };
    {
        let (lock, ready) = &*queue;
        lock.lock().unwrap_or_else(|e| e.into_inner()).stop = true;
        ready.notify_one();
    }
    drop(to_writer);
    let _ = writer.join();
    let _ = checker.join();
    Ok(code)
}

/// The checker: takes the oldest waiting document, checks its latest
/// version, reports, repeats.
fn check_loop(queue: &(Mutex<Queue>, Condvar), events: &mpsc::Sender<Event>) {
    let (lock, ready) = queue;
    loop {
        let job = {
            let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if q.stop {
                    return;
                }
                if !q.order.is_empty() {
                    let uri = q.order.remove(0);
                    if let Some(job) = q.jobs.remove(&uri) {
                        break job;
                    }
                    continue;
                }
                q = ready.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let analysis = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.run()))
            .unwrap_or_else(|_| {
                tracing::error!(uri = job.uri, "the check panicked");
                analysis::Analysis::failed(job.version)
            });
        if events
            .send(Event::Checked(job.uri, Box::new(analysis)))
            .is_err()
        {
            return;
        }
    }
}

/// Sets up logging to stderr (`RUST_LOG`, default `warn`) and runs the
/// server on stdio.
pub fn main() -> io::Result<i32> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(false)
        .try_init();
    run_stdio()
}
