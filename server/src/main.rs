//! `splice`: the binary. Parses the command line, sets up logging on
//! stderr (stdout belongs to the protocol), recovers any interrupted commit,
//! then serves MCP on stdio. See `splice --help`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use splice_server::admission::Bounds;
use splice_server::answer_gate::AnswerGate;
use splice_server::client_roots::ClientRootsPolicy;
use splice_server::commit::Committer;
use splice_server::config::{Config, Limits};
use splice_server::explain;
use splice_server::mcp::Splice;
use splice_server::recover_report;
use splice_server::undo::{UndoLimits, UndoState};

/// An MCP server for exact, all-or-nothing multi-edits with structured errors.
///
/// With no subcommand it speaks MCP on stdin/stdout. Logs go to stderr;
/// set RUST_LOG (e.g. RUST_LOG=debug) for more.
#[derive(Parser, Debug)]
#[command(name = "splice", version, about, long_about)]
struct Cli {
    /// Directory the tools may edit (repeatable). Default: the working directory.
    #[arg(long = "root", value_name = "DIR", global = true)]
    roots: Vec<PathBuf>,
    /// Largest file read or written, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_file_size, global = true)]
    max_file_size: u64,
    /// Most edits per file.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_edits, global = true)]
    max_edits: usize,
    /// Most files per multi_edit_files call.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_files, global = true)]
    max_files: usize,
    /// Largest tool-call arguments, in bytes of JSON.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_request_bytes, global = true)]
    max_request_size: usize,
    /// What to do with the roots an MCP client offers: `narrow` edits only
    /// inside both a --root and a client root; `ignore` uses --root alone.
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = ClientRootsPolicy::Narrow, global = true)]
    client_roots: ClientRootsPolicy,
    /// Where the commit journal lives (crash recovery). Default:
    /// $XDG_STATE_HOME/splice/journal or ~/.local/state/splice/journal (never
    /// a shared temp directory). Created mode 0700; refused if another user
    /// owns it or others can write to it.
    #[arg(long, value_name = "DIR", global = true)]
    journal_dir: Option<PathBuf>,
    /// Where the undo store lives (what `undo` restores; it survives a
    /// restart). Default: `undo` inside --journal-dir when that is given,
    /// else $XDG_STATE_HOME/splice/undo or ~/.local/state/splice/undo.
    /// Created mode 0700; refused if another user owns it or others can
    /// write to it (edits then still work, but cannot be undone).
    #[arg(long, value_name = "DIR", global = true)]
    undo_dir: Option<PathBuf>,
    /// Most committed calls the undo store keeps (the oldest are dropped);
    /// 0 turns recording off.
    #[arg(long, value_name = "N", default_value_t = splice_server::undo::DEFAULT_MAX_TRANSACTIONS, global = true)]
    undo_max_transactions: usize,
    /// Most bytes of file content the undo store keeps (the oldest calls
    /// are dropped; a call larger than this alone is not recorded).
    #[arg(long, value_name = "BYTES", default_value_t = splice_server::undo::DEFAULT_MAX_BYTES, global = true)]
    undo_max_bytes: u64,
    /// Most tool calls doing work at the same time; more wait (at most 30 s,
    /// then SERVER_BUSY). Calls waiting for a file another call holds do
    /// not count.
    #[arg(long, value_name = "N", default_value_t = Bounds::default().max_calls_in_flight as u32, value_parser = clap::value_parser!(u32).range(1..=100_000), global = true)]
    max_calls_in_flight: u32,
    /// Memory the calls in flight may reserve, in MiB (a call reserves about
    /// twelve times the size of its files); more wait, as above.
    #[arg(long, value_name = "MIB", default_value_t = Bounds::default().memory_budget >> 20, value_parser = clap::value_parser!(u64).range(1..=1 << 30), global = true)]
    memory_budget: u64,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve MCP on stdio (the default).
    Serve,
    /// Explain an error code, like `rustc --explain` (e.g. `splice explain MATCH_NOT_FOUND` or `splice explain 2000`), or list a tool's codes (`splice explain multi_edit`).
    Explain {
        /// Code name or number, or tool name.
        code: String,
    },
    /// Finish or undo every commit a crash interrupted (journaled multi-file
    /// commits, and the staging files of single-file commits under the
    /// roots), print one line per transaction, then exit: 0 when everything
    /// is finished, 1 when something needs a person.
    Recover {
        /// Print the result as JSON (for scripts) instead of lines of text.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    {
        use tracing_subscriber::prelude::*;
        let levels = tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::stderr)
                    .with_ansi(false)
                    .with_filter(tracing_subscriber::filter::filter_fn(|m| {
                        !rmcp_debug_line(m)
                    }))
                    .with_filter(levels),
            )
            .init();
    }

    if let Some(Command::Explain { code }) = &cli.command {
        return match explain::explain(code) {
            Some(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            None => {
                eprintln!(
                    "error: no error code or tool `{code}`; see `docs/errors.md` for the list"
                );
                ExitCode::FAILURE
            }
        };
    }

    let roots = if cli.roots.is_empty() {
        match std::env::current_dir() {
            Ok(d) => vec![d],
            Err(e) => {
                eprintln!("error: cannot read the working directory: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        cli.roots.clone()
    };
    let limits = Limits {
        max_file_size: cli.max_file_size,
        max_edits: cli.max_edits,
        max_files: cli.max_files,
        max_request_bytes: cli.max_request_size,
        ..Limits::default()
    };
    // Never a shared fallback (such as a directory under /tmp): another local
    // user could create it first and plant journals that recovery acts on.
    let Some(journal_dir) = cli
        .journal_dir
        .clone()
        .or_else(splice_server::state_dir::default_journal_dir)
    else {
        eprintln!(
            "error: no journal directory: HOME and XDG_STATE_HOME are unset; pass --journal-dir DIR (a directory only this user can write)"
        );
        return ExitCode::FAILURE;
    };
    // The one answer gate of this process: the transport moves it, and the
    // server, the undo store and the committer's late closer read it.
    let answers = AnswerGate::new();
    let cfg = match Config::new(&roots, limits, journal_dir.clone()) {
        Ok(c) => match &cli.command {
            // `explain` returned above; `recover` needs no undo store.
            Some(Command::Recover { .. }) => c,
            _ => {
                let dir = cli.undo_dir.clone().or_else(|| match &cli.journal_dir {
                    Some(journal) => Some(journal.join("undo")),
                    None => splice_server::state_dir::default_undo_dir(),
                });
                let limits = UndoLimits {
                    max_transactions: cli.undo_max_transactions,
                    max_bytes: cli.undo_max_bytes,
                };
                match dir {
                    Some(dir) => c.with_undo(UndoState::open(dir, limits, answers.clone())),
                    None => {
                        tracing::warn!(
                            "no undo directory (HOME and XDG_STATE_HOME are unset; pass --undo-dir DIR): edits cannot be undone"
                        );
                        c
                    }
                }
            }
        },
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let committer = match Committer::new(journal_dir.clone(), answers.clone()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: journal directory {}: {e}", journal_dir.display());
            return ExitCode::FAILURE;
        }
    };
    // `splice recover` is a person asking for every interrupted commit to be
    // finished; the server, on start, touches only files inside its roots
    // (a journal naming anything else is kept for a later run or for
    // `splice recover`).
    let explicit = matches!(cli.command, Some(Command::Recover { .. }));
    let recovered = if explicit {
        committer.recover()
    } else {
        committer.recover_within(&cfg.roots)
    };
    if let Some(Command::Recover { json }) = &cli.command {
        let report = match recovered {
            Ok(report) => report,
            Err(e) => {
                eprintln!("error: recovering interrupted commits: {e}");
                return ExitCode::FAILURE;
            }
        };
        let swept = committer.sweep_roots(&cfg.roots);
        let text = if *json {
            recover_report::json(&report, &swept)
        } else {
            recover_report::human(&report, &swept)
        };
        print!("{text}");
        return if recover_report::finished(&report, &swept) {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    match recovered {
        Ok(report) => tracing::info!("recovery: {report:?}"),
        Err(e) => {
            eprintln!("error: recovering interrupted commits: {e}");
            return ExitCode::FAILURE;
        }
    }

    if std::io::stdin().is_terminal() {
        eprintln!(
            "splice speaks MCP on stdin/stdout; start it from an MCP client (e.g. `claude mcp add splice -- splice --root DIR`). Roots: {}",
            cfg.roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: starting the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Records for undo are written after each answer (server/src/undo/worker.rs):
    // the last ones must reach the store before the process exits.
    let undo = cfg.undo.clone();
    let server = Splice::new(cfg, committer, answers.clone())
        .client_roots(cli.client_roots)
        .bounds(Bounds {
            max_calls_in_flight: cli.max_calls_in_flight as usize,
            memory_budget: cli.memory_budget << 20,
        });
    let code = runtime.block_on(async move {
        // Every line passes the transport's checks (size limit, JSON-RPC
        // hygiene, backpressure) before rmcp sees it.
        let (stdin, stdout) = splice_server::transport::stdio();
        let transport = splice_server::transport::StdioTransport::new(
            stdin,
            stdout,
            cli.max_request_size,
            answers,
        );
        match server.serve(transport).await {
            Ok(running) => {
                if let Err(e) = running.waiting().await {
                    tracing::error!("server stopped: {e}");
                    return ExitCode::FAILURE;
                }
                ExitCode::SUCCESS
            }
            // A client that closes stdin before a session starts (it only
            // sent `server/discover`, or nothing) has simply left.
            Err(ServerInitializeError::ConnectionClosed(_)) => {
                tracing::info!("the client left before starting a session");
                ExitCode::SUCCESS
            }
            Err(e) => {
                tracing::error!("MCP session could not start: {}", init_error(&e));
                ExitCode::FAILURE
            }
        }
    });
    undo.flush();
    code
}

/// rmcp 3.9 logs every JSON-RPC error it answers with as `WARN response
/// error id=.. error=ErrorData { .. }` (Rust `Debug`). The transport
/// ([`splice_server::transport`]) logs each of those answers as one readable
/// line instead, so that event (an `rmcp::service` warning with both an `id`
/// and an `error` field, the only one) is dropped here.
fn rmcp_debug_line(m: &tracing::Metadata<'_>) -> bool {
    m.is_event()
        && *m.level() == tracing::Level::WARN
        && m.target() == "rmcp::service"
        && m.fields().field("id").is_some()
        && m.fields().field("error").is_some()
}

/// One readable line for a failed session start (rmcp's `Display` of some
/// variants prints a whole message as Rust `Debug`).
fn init_error(e: &ServerInitializeError) -> String {
    match e {
        ServerInitializeError::ExpectedInitializeRequest(Some(message)) => {
            let what = serde_json::to_value(message)
                .ok()
                .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(str::to_owned))
                .map_or_else(|| "a message".to_owned(), |m| format!("`{m}`"));
            format!("expected `initialize` or a request with protocol `_meta`, got {what}")
        }
        ServerInitializeError::UnexpectedInitializeResponse(_) => {
            "the initialize handler returned another kind of result".to_owned()
        }
        other => other.to_string(),
    }
}
