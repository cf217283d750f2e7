//! End-to-end harness: the real `splice` binary, spawned as a child process
//! and driven over stdio by the official Rust MCP client (rmcp).
//!
//! Every structured payload the harness sees (success or error) is checked
//! against the tool's published output schema, so e2e tests cannot pass with
//! a payload a strict client would reject.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::process::Command;

/// Path of the `splice` binary built by this `cargo test` run
/// (`target/<profile>/splice`, beside the `deps/` directory of test binaries).
pub fn splice_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("SPLICE_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("current_exe");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test binary lives in target/<profile>/deps");
    let bin = profile_dir.join("splice");
    assert!(
        bin.exists(),
        "{} does not exist: run the tests with `cargo test --workspace` so the splice binary is built",
        bin.display()
    );
    bin
}

/// The workspace root (where `errors.yaml` lives).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// True when running under CI (`CI=true`), where missing privileges fail loudly.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Call when a test cannot get a privilege or tool it needs: panics in CI,
/// prints the reason and returns (the test then returns early) locally.
pub fn skip_or_fail(reason: &str) {
    if in_ci() {
        panic!("this test needs {reason}, and CI=true: failing instead of skipping");
    }
    eprintln!("SKIPPED: needs {reason}");
}

/// True if the process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// How to start the server.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// `--root` directories.
    pub roots: Vec<PathBuf>,
    /// Extra command-line arguments.
    pub args: Vec<String>,
    /// Run as uid/gid 65534 through `setpriv` (root ignores file modes).
    pub as_nobody: bool,
    /// A command the binary runs under, e.g. `strace ... --` to fail chosen
    /// system calls (empty: none). Not combined with `as_nobody`.
    pub wrapper: Vec<std::ffi::OsString>,
    /// Journal directory (defaults to a fresh temp dir).
    pub journal_dir: Option<PathBuf>,
    /// Undo store directory (defaults to a fresh temp dir of its own, so
    /// that a test's journal directory holds journals only and tests never
    /// share a store; ignored when `args` has `--undo-dir`).
    pub undo_dir: Option<PathBuf>,
    /// Working directory of the server (defaults to the test's own), e.g. to
    /// check that relative paths and `/proc/self/cwd` do not reach it.
    pub current_dir: Option<PathBuf>,
}

/// A running server and a connected client.
pub struct Server {
    client: RunningService<RoleClient, ()>,
    pid: Option<u32>,
    _journal: Option<tempfile::TempDir>,
    _undo: Option<tempfile::TempDir>,
}

/// One tool call's result, decoded.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// `isError`.
    pub is_error: bool,
    /// `structuredContent`.
    pub structured: Value,
    /// `content[0].text`, parsed.
    pub text_json: Value,
}

impl Outcome {
    /// The envelope's `error_code` (panics on success results).
    pub fn code(&self) -> &str {
        assert!(self.is_error, "expected an error, got {}", self.structured);
        self.structured["error_code"].as_str().expect("error_code")
    }
}

impl Server {
    /// Spawns the binary and completes the MCP handshake.
    pub async fn start(launch: Launch) -> Server {
        let (journal_dir, keep) = match &launch.journal_dir {
            Some(j) => (j.clone(), None),
            None => {
                let t = tempfile::tempdir().expect("tempdir");
                let p = t.path().to_path_buf();
                (p, Some(t))
            }
        };
        assert!(
            !launch.as_nobody || launch.wrapper.is_empty(),
            "as_nobody and a wrapper do not combine"
        );
        let mut cmd = if launch.as_nobody {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(splice_bin());
            c
        } else if let [program, args @ ..] = &launch.wrapper[..] {
            let mut c = Command::new(program);
            c.args(args).arg(splice_bin());
            c
        } else {
            Command::new(splice_bin())
        };
        for r in &launch.roots {
            cmd.arg("--root").arg(r);
        }
        cmd.arg("--journal-dir").arg(&journal_dir);
        let mut undo_keep = None;
        if !launch.args.iter().any(|a| a == "--undo-dir") {
            let dir = match &launch.undo_dir {
                Some(d) => d.clone(),
                None => {
                    let t = tempfile::tempdir().expect("tempdir");
                    let p = t.path().join("undo");
                    undo_keep = Some(t);
                    p
                }
            };
            cmd.arg("--undo-dir").arg(dir);
        }
        cmd.args(&launch.args);
        cmd.env("RUST_LOG", "warn");
        if let Some(dir) = &launch.current_dir {
            cmd.current_dir(dir);
        }
        let transport = TokioChildProcess::new(cmd).expect("spawn splice");
        let pid = transport.id();
        let client = ().serve(transport).await.expect("MCP handshake");
        Server {
            client,
            pid,
            _journal: keep,
            _undo: undo_keep,
        }
    }

    /// Starts a server whose only root is `root`.
    pub async fn in_root(root: &Path) -> Server {
        Server::start(Launch {
            roots: vec![root.to_path_buf()],
            ..Launch::default()
        })
        .await
    }

    /// The process id of the spawned child (`splice`, or `setpriv` which
    /// execs it), e.g. to read its `/proc/<pid>/io` counters.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The connected client (for raw calls).
    pub fn client(&self) -> &RunningService<RoleClient, ()> {
        &self.client
    }

    /// Calls `tool` and validates the payload against the published schemas.
    pub async fn call(&self, tool: &str, args: Value) -> Outcome {
        let Value::Object(map) = args else {
            panic!("arguments must be an object")
        };
        let result: CallToolResult = self
            .client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
            .await
            .expect("tools/call");
        let is_error = result.is_error == Some(true);
        let structured = result
            .structured_content
            .clone()
            .expect("every result carries structuredContent");
        let text = match serde_json::to_value(&result.content[0]).expect("content")["text"].clone()
        {
            Value::String(s) => s,
            other => panic!("content[0] is not text: {other}"),
        };
        let text_json: Value = serde_json::from_str(&text).expect("text is JSON");
        assert_eq!(text_json, structured, "text and structuredContent differ");
        assert_payload_valid(tool, &structured, is_error);
        Outcome {
            is_error,
            structured,
            text_json,
        }
    }

    /// Closes the connection and waits for the server to exit.
    pub async fn stop(self) {
        let _ = self.client.cancel().await;
    }
}

/// The published schema (what clients validate with), and the strict one of
/// this release (`emit_schema::emit_strict`: no member, code or enum value
/// the release does not list), which the server's answers must also pass.
fn envelope_schemas() -> &'static [(&'static str, jsonschema::Validator)] {
    static V: OnceLock<Vec<(&'static str, jsonschema::Validator)>> = OnceLock::new();
    V.get_or_init(|| {
        let text =
            std::fs::read_to_string(workspace_root().join("schema/error-envelope.schema.json"))
                .expect("published schema");
        let published: Value = serde_json::from_str(&text).expect("schema is JSON");
        let spec = splice_codegen::load_path(&workspace_root().join("errors.yaml"))
            .unwrap_or_else(|d| panic!("{}", d.render()));
        let strict = splice_codegen::emit_schema::emit_strict(&spec);
        vec![
            (
                "published",
                jsonschema::validator_for(&published).expect("schema compiles"),
            ),
            (
                "strict",
                jsonschema::validator_for(&strict).expect("strict schema compiles"),
            ),
        ]
    })
}

fn output_schemas() -> &'static [(String, jsonschema::Validator)] {
    static V: OnceLock<Vec<(String, jsonschema::Validator)>> = OnceLock::new();
    V.get_or_init(|| {
        splice_server::mcp::tools()
            .into_iter()
            .map(|t| {
                let schema = Value::Object(t.output_schema.expect("outputSchema").as_ref().clone());
                let v = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&schema)
                    .expect("output schema compiles");
                (t.name.to_string(), v)
            })
            .collect()
    })
}

/// Asserts `payload` validates against the published envelope schema (errors)
/// and against the tool's advertised output schema (always).
///
/// `SPLICE_OTHER_BUILD=1` turns this off: only for measuring another build
/// (`SPLICE_BIN`) whose answers follow an older schema, such as the repair
/// corpus's "before" score.
pub fn assert_payload_valid(tool: &str, payload: &Value, is_error: bool) {
    if std::env::var_os("SPLICE_OTHER_BUILD").is_some() {
        return;
    }
    if is_error {
        for (name, schema) in envelope_schemas() {
            let errs: Vec<String> = schema
                .iter_errors(payload)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            assert!(
                errs.is_empty(),
                "envelope invalid ({name} schema): {errs:#?}\n{payload:#}"
            );
        }
    }
    if let Some((_, v)) = output_schemas().iter().find(|(n, _)| n == tool) {
        let errs: Vec<String> = v
            .iter_errors(payload)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errs.is_empty(),
            "payload does not match the {tool} outputSchema: {errs:#?}\n{payload:#}"
        );
    }
}

/// The `splice` binary spoken to as raw JSON-RPC lines over stdio, for what
/// an SDK client would not send (malformed input, a chosen protocol era,
/// requests it leaves unanswered). Root: a fresh temporary directory.
pub struct Raw {
    /// The server process.
    pub child: std::process::Child,
    /// Its stdin; `None` once closed ([`Raw::close`]).
    pub stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Value>,
    /// The server's `--root`.
    pub dir: tempfile::TempDir,
}

/// The `_meta` a 2026-07-28 client puts in every request, stating
/// `capabilities`.
pub fn modern_meta(capabilities: Value) -> Value {
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

impl Raw {
    /// Starts `splice --root <tmp> --journal-dir <tmp>/journal extra...`
    /// (`RUST_LOG=warn`, stderr kept for [`Raw::close`]).
    pub fn start(extra: &[&str]) -> Raw {
        use std::io::BufRead;
        use std::process::Stdio;
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("journal");
        let mut child = std::process::Command::new(splice_bin())
            .arg("--root")
            .arg(dir.path())
            .arg("--journal-dir")
            .arg(&journal)
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn splice");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line).expect("stdout is JSON-RPC");
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        Raw {
            child,
            stdin,
            lines,
            dir,
        }
    }

    /// The root, canonical.
    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    /// Writes `bytes` and a newline.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes one JSON-RPC message.
    pub fn send(&mut self, v: Value) {
        self.send_raw(&serde_json::to_vec(&v).unwrap());
    }

    /// The next message, within `secs` seconds (panics with `what` if none).
    pub fn next(&self, secs: u64, what: &str) -> Value {
        self.lines
            .recv_timeout(std::time::Duration::from_secs(secs))
            .unwrap_or_else(|_| panic!("no answer: {what}"))
    }

    /// The next message if one arrives within `millis` milliseconds.
    pub fn try_next(&self, millis: u64) -> Option<Value> {
        self.lines
            .recv_timeout(std::time::Duration::from_millis(millis))
            .ok()
    }

    /// The initialize handshake (2025-06-18), stating `capabilities`.
    pub fn initialize_with(&mut self, capabilities: Value) {
        self.send(
            serde_json::json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":capabilities,
            "clientInfo":{"name":"raw","version":"0"}}}),
        );
        let r = self.next(10, "initialize");
        assert_eq!(r["id"], 0, "{r}");
        assert!(r["result"]["serverInfo"].is_object(), "{r}");
        self.send(serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    }

    /// The initialize handshake with no client capabilities.
    pub fn initialize(&mut self) {
        self.initialize_with(serde_json::json!({}));
    }

    /// `server/discover` in the 2026-07-28 era; the answer must list it.
    pub fn discover(&mut self, id: u64) {
        self.send(
            serde_json::json!({"jsonrpc":"2.0","id":id,"method":"server/discover",
            "params":{"_meta": modern_meta(serde_json::json!({}))}}),
        );
        let r = self.next(10, "server/discover");
        assert_eq!(r["id"], id, "{r}");
        let versions = r["result"]["supportedVersions"].to_string();
        assert!(versions.contains("2026-07-28"), "{r}");
    }

    /// `ping` (no params), answered `{}` with its id.
    pub fn ping(&mut self, id: u64) {
        self.send(serde_json::json!({"jsonrpc":"2.0","id":id,"method":"ping"}));
        let r = self.next(10, "ping");
        assert_eq!(r, serde_json::json!({"jsonrpc":"2.0","id":id,"result":{}}));
    }

    /// Closes stdin and waits for the exit: (status, stderr).
    pub fn close(&mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            std::io::Read::read_to_string(&mut err, &mut stderr).unwrap();
        }
        (status, stderr)
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `splice` server spoken to as raw JSON-RPC lines, for kill tests: it
/// can be SIGKILLed at any moment, then recovered as the next start of the
/// server would recover.
pub struct Killable {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Killable {
    /// Starts `splice --root root --journal-dir journal` with `server_args`
    /// and initializes it.
    pub fn start(root: &Path, journal: &Path, server_args: &[&std::ffi::OsStr]) -> Killable {
        use std::process::{Command, Stdio};
        let mut child = Command::new(splice_bin())
            .arg("--root")
            .arg(root)
            .arg("--journal-dir")
            .arg(journal)
            .args(server_args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut k = Killable {
            child,
            stdin,
            stdout,
        };
        k.send(
            serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "crash", "version": "0"}}}),
        );
        k.read();
        k.send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        k
    }

    /// Sends one JSON-RPC message.
    pub fn send(&mut self, v: Value) {
        use std::io::Write;
        let mut line = serde_json::to_vec(&v).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends `tools/call` with `params` as request `id`.
    pub fn call(&mut self, id: u64, params: Value) {
        self.send(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
    }

    /// Reads the next message.
    pub fn read(&mut self) -> Value {
        use std::io::BufRead;
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// SIGKILLs the server `after` from now, then runs `splice recover` on
    /// `root` and `journal` and asserts that it succeeded.
    pub fn kill_then_recover(mut self, root: &Path, journal: &Path, after: std::time::Duration) {
        std::thread::sleep(after);
        let _ = self.child.kill();
        let _ = self.child.wait();
        let status = std::process::Command::new(splice_bin())
            .arg("--root")
            .arg(root)
            .arg("--journal-dir")
            .arg(journal)
            .arg("recover")
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "splice recover failed");
    }
}

/// One iteration of a kill test: a [`Killable`] server is sent `tools/call`
/// with `params` and SIGKILLed `after` the call was sent (anywhere from
/// "just received" to "long done"), then recovered.
pub fn kill_mid_call_then_recover(
    root: &Path,
    journal: &Path,
    server_args: &[&std::ffi::OsStr],
    params: Value,
    after: std::time::Duration,
) {
    let mut server = Killable::start(root, journal, server_args);
    server.call(1, params);
    server.kill_then_recover(root, journal, after);
}
