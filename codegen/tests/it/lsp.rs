//! `splice-codegen lsp`, the real binary over stdio.
//!
//! - `pytest_lsp_drives_every_capability`: the suite of
//!   `tests/lsp-py/test_lsp.py`, run by pytest-lsp (pygls's client, pinned
//!   with hashes in `tests/lsp-py/requirements.txt`) against one server
//!   process: diagnostics on open and on incremental changes (UTF-16
//!   ranges after non-ASCII text), hover, completion, definition,
//!   references, document symbols, rename and quick fixes, on splice's
//!   `errors.yaml` and on `examples/http-fetch`; a YAML error that keeps
//!   the outline; binary text, a 5 MB document, deep nesting and changes
//!   faster than checks. The same run drives the real yaml-language-server
//!   (npm, pinned by `tests/yaml-ls/package-lock.json`) with
//!   `schema/errors-yaml.schema.json` (`tests/lsp-py/test_format_schema.py`):
//!   every spec of the repository validates through its modeline, and a
//!   broken one is refused. `.ci/run` installs both; this test installs
//!   what is missing, and fails under `CI=true` when it cannot run.
//! - `unreadable_messages_do_not_end_the_server`: bytes no client would
//!   send (a frame that is not JSON, a header without a length, invalid
//!   UTF-8) are answered with a parse error, and the session goes on.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{in_ci, root};

fn skip_or_fail(why: &str) {
    assert!(!in_ci(), "cannot run under CI=true: {why}");
    eprintln!("SKIPPED: {why}");
}

/// `tests/lsp-py/.venv` with the pinned requirements (hashes required).
fn install(dir: &Path) -> bool {
    let venv = Command::new("python3")
        .args(["-m", "venv", ".venv"])
        .current_dir(dir)
        .status()
        .is_ok_and(|s| s.success());
    venv && Command::new(".venv/bin/pip")
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "--require-hashes",
            "-r",
            "requirements.txt",
        ])
        .current_dir(dir)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn pytest_lsp_drives_every_capability() {
    let dir = root().join("tests/lsp-py");
    let python = dir.join(".venv/bin/python");
    let ready = |p: &Path| {
        Command::new(p)
            .args(["-c", "import pytest_lsp"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let installed = ready(&python) || (install(&dir) && ready(&python));
    if !installed {
        skip_or_fail("pytest-lsp (tests/lsp-py/.venv could not be installed)");
        return;
    }
    let yaml_ls = root().join("tests/yaml-ls");
    let server = yaml_ls.join("node_modules/yaml-language-server/bin/yaml-language-server");
    let npm_ci = || {
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&yaml_ls)
            .status()
            .is_ok_and(|s| s.success())
    };
    if !(server.exists() || npm_ci() && server.exists()) {
        skip_or_fail("yaml-language-server (npm ci in tests/yaml-ls failed)");
        return;
    }
    let out = Command::new(&python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "test_lsp.py",
            "test_format_schema.py",
        ])
        .current_dir(&dir)
        .env("SPLICE_CODEGEN", env!("CARGO_BIN_EXE_splice-codegen"))
        .env("YAML_LANGUAGE_SERVER", &server)
        .output()
        .expect("run pytest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "pytest-lsp failed:\n{stdout}\n{stderr}"
    );
    let summary = stdout.lines().last().unwrap_or_default();
    let passed: u32 = summary
        .split(" passed")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(passed >= 15, "expected every case to pass:\n{stdout}");
    assert!(!summary.contains("skipped"), "skipped cases:\n{stdout}");
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// Reads one framed message.
fn read(r: &mut impl BufRead) -> serde_json::Value {
    let mut length = 0;
    loop {
        let mut line = String::new();
        assert!(
            r.read_line(&mut line).expect("read a header") > 0,
            "the server closed stdout"
        );
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse().expect("a length");
        }
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body).expect("read a body");
    serde_json::from_slice(&body).expect("JSON")
}

#[test]
fn unreadable_messages_do_not_end_the_server() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_splice-codegen"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn splice-codegen lsp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let send =
        |stdin: &mut std::process::ChildStdin, bytes: &[u8]| stdin.write_all(bytes).expect("write");
    send(&mut stdin, &frame("{not json"));
    send(&mut stdin, b"Content-Length: 4\r\n\r\n\xff\xfe\x00\x01");
    send(&mut stdin, b"X-Header-Without-Length: 1\r\n\r\n");
    send(
        &mut stdin,
        &frame(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#),
    );
    for _ in 0..3 {
        let error = read(&mut stdout);
        assert_eq!(error["error"]["code"], -32700, "{error}");
        assert!(error["id"].is_null(), "{error}");
    }
    let init = read(&mut stdout);
    assert_eq!(init["id"], 1);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    send(
        &mut stdin,
        &frame(
            r#"{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.yaml"},"position":{"line":0,"character":0}}}"#,
        ),
    );
    let unopened = read(&mut stdout);
    assert_eq!(unopened["id"], 2);
    assert_eq!(unopened["error"]["code"], -32602, "{unopened}");
    send(
        &mut stdin,
        &frame(r#"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#),
    );
    assert_eq!(read(&mut stdout)["id"], 3);
    send(&mut stdin, &frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(status.success(), "exit after shutdown is 0: {status}");
}
