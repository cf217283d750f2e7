//! The benchmark floor: the least work an exact, durable edit of one file
//! must do, so the report can say how close splice gets to the physical
//! limit of the machine.
//!
//! It is a long-lived process driven over stdin/stdout, one JSON request per
//! line and one JSON reply per line, so that the per-edit cost it reports
//! excludes process start-up, exactly like the MCP servers it is compared
//! with (which are also measured over one open connection). A request is
//!
//! ```json
//! {"path": "/abs/file", "edits": [{"old": "a", "new": "b", "all": false}], "fsync": true}
//! ```
//!
//! and for it the floor does, in this order, and nothing else:
//!
//! 1. read the whole file into memory;
//! 2. for each edit, in order, against the result of the previous edits:
//!    search `old` with [`memchr::memmem`]; without `all`, look for a second
//!    (overlapping) start too, so a unique match costs one full scan, and
//!    refuse zero or several matches; then splice `new` into the buffer in
//!    place (one `memmove` of the tail). With `all`, build the output in one
//!    left-to-right pass over the non-overlapping occurrences;
//! 3. create a temp file next to the target (`O_EXCL`), write the buffer;
//! 4. `fsync` the temp file (when `fsync` is true);
//! 5. `rename` it over the target;
//! 6. `fsync` the directory (when `fsync` is true).
//!
//! It does not validate paths, check encodings, preserve permissions,
//! journal, back up or compute a diff: those are what a real server adds on
//! top. The reply is `{"ok":true,"replacements":N,"bytes":LEN}` or
//! `{"ok":false,"error":"..."}`; a malformed request gets an error reply and
//! the loop goes on.
//!
//! With `--mcp` the same edit is served as an MCP server instead: newline-
//! delimited JSON-RPC on stdin/stdout, answering `initialize`, `ping`,
//! `tools/list` (one tool, `edit`, whose arguments are the request above and
//! which declares no output schema) and `tools/call`, whose result is the
//! reply above as one text block (`isError` on failure). It is the least an
//! MCP server must add to the floor, so the driver, calling it through the
//! same SDK client as splice, can say how much of a server's time is the
//! protocol and the client rather than the server's own work
//! (see [`serve_mcp`]).
//!
//! With `--mcp --answer FILE` (FILE: `{"outputSchema": {...},
//! "structuredContent": {...}}`) the tool declares that output schema and
//! answers every successful edit with that structured result and its JSON as
//! the text block, as a server with structured results does. The driver
//! takes both from splice (its `multi_edit` output schema, and the answer of
//! one real small edit), so this side costs the client what splice's answer
//! costs it while the server still does only the floor's work: beside the
//! plain `--mcp` side it separates the client's handling of splice's answer
//! (parsing it, checking it against the output schema) from splice's own
//! work. The answer is the same bytes every time, serialized once at start;
//! the floor does not hash, diff or count lines for it.
//!
//! One request is not an edit but a service to the driver: `{"syncfs":
//! "/dir"}` runs `syncfs(2)` on the file system holding `/dir` and replies
//! `{"ok":true}`. The driver sends it, untimed, before every timed edit, so
//! that a side which fsyncs never pays for the writeback of another side's
//! earlier (unsynced) writes: on ext4 a journal commit can carry them.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use memchr::memmem;
use serde_json::{Value, json};

/// One find-and-replace of a request.
struct Edit {
    old: Vec<u8>,
    new: Vec<u8>,
    all: bool,
}

/// One decoded request line.
struct Request {
    path: PathBuf,
    edits: Vec<Edit>,
    fsync: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--mcp") {
        let answer = match args.get(1..) {
            Some([flag, file]) if flag == "--answer" => match read_answer(Path::new(file)) {
                Ok(answer) => Some(answer),
                Err(e) => {
                    eprintln!("splice-bench-floor: --answer {file}: {e}");
                    std::process::exit(2);
                }
            },
            Some([]) => None,
            _ => {
                eprintln!("splice-bench-floor: usage: splice-bench-floor [--mcp [--answer FILE]]");
                std::process::exit(2);
            }
        };
        return serve_mcp(answer.as_ref());
    }
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut counter: u64 = 0;
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(err) => {
                eprintln!("splice-bench-floor: cannot read stdin: {err}");
                std::process::exit(1);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        counter += 1;
        if let Some(dir) = syncfs_request(&line) {
            let reply = match syncfs(&dir) {
                Ok(()) => json!({"ok": true}),
                Err(e) => json!({"ok": false, "error": format!("syncfs {}: {e}", dir.display())}),
            };
            if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
                return;
            }
            continue;
        }
        let reply = match decode(&line).and_then(|req| run(&req, counter)) {
            Ok((replacements, bytes)) => {
                json!({"ok": true, "replacements": replacements, "bytes": bytes})
            }
            Err(error) => json!({"ok": false, "error": error}),
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            // The driver went away: nothing left to answer.
            return;
        }
    }
}

/// What `--answer FILE` gives a successful edit's result.
struct Answer {
    output_schema: Value,
    /// The whole `result` of a successful call, serialized once: the
    /// structured result and its JSON as the text block. Each answer writes
    /// these bytes and nothing else is done for them.
    result: String,
}

fn read_answer(file: &Path) -> Result<Answer, String> {
    let text = fs::read_to_string(file).map_err(|e| e.to_string())?;
    let mut v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let mut take = |key: &str| match v.get_mut(key).map(Value::take) {
        Some(Value::Object(m)) => Ok(Value::Object(m)),
        _ => Err(format!("`{key}` is not an object")),
    };
    let output_schema = take("outputSchema")?;
    let structured = take("structuredContent")?;
    let result = json!({
        "content": [{"type": "text", "text": structured.to_string()}],
        "structuredContent": structured,
        "isError": false,
    });
    Ok(Answer {
        output_schema,
        result: result.to_string(),
    })
}

/// The floor as an MCP server: one JSON-RPC message per line, answered in
/// order on the one thread that reads them, with nothing but the edit
/// between the request and its answer. Notifications (no `id`) get no
/// answer; an unknown method gets JSON-RPC's -32601. With `like`, the tool
/// declares its output schema and a successful edit answers with it.
fn serve_mcp(like: Option<&Answer>) {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut counter: u64 = 0;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let mut answer = match message.get("method").and_then(Value::as_str) {
            Some("initialize") => json!({"result": {
                "protocolVersion": params.get("protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "splice-bench-floor", "version": env!("CARGO_PKG_VERSION")},
            }}),
            Some("ping") => json!({"result": {}}),
            Some("tools/list") => {
                let mut tool = json!({
                    "name": "edit",
                    "description": "The floor's durable edit: {path, edits: [{old, new, all}], fsync}.",
                    "inputSchema": {"type": "object"},
                });
                if let Some(a) = like {
                    tool["outputSchema"] = a.output_schema.clone();
                }
                json!({"result": {"tools": [tool]}})
            }
            Some("tools/call") => {
                counter += 1;
                let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
                let reply = match decode_value(&arguments).and_then(|req| run(&req, counter)) {
                    Ok((replacements, bytes)) => {
                        json!({"ok": true, "replacements": replacements, "bytes": bytes})
                    }
                    Err(error) => json!({"ok": false, "error": error}),
                };
                let failed = reply["ok"] != json!(true);
                if let Some(a) = like.filter(|_| !failed) {
                    let line = format!(
                        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{}}}",
                        a.result
                    );
                    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                        return;
                    }
                    continue;
                }
                json!({"result": {
                    "content": [{"type": "text", "text": reply.to_string()}],
                    "isError": failed,
                }})
            }
            _ => json!({"error": {"code": -32601, "message": "method not found"}}),
        };
        answer["jsonrpc"] = json!("2.0");
        answer["id"] = id;
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}

/// The directory of a `{"syncfs": DIR}` request, if `line` is one.
fn syncfs_request(line: &str) -> Option<PathBuf> {
    let value: Value = serde_json::from_str(line).ok()?;
    value.get("syncfs")?.as_str().map(PathBuf::from)
}

fn syncfs(dir: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let dir = File::open(dir)?;
    // SAFETY: `dir` is an open descriptor for the duration of the call;
    // syncfs(2) only reads it.
    if unsafe { libc::syncfs(dir.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn decode(line: &str) -> Result<Request, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("bad request json: {e}"))?;
    decode_value(&value)
}

fn decode_value(value: &Value) -> Result<Request, String> {
    let path = value
        .get("path")
        .and_then(Value::as_str)
        .ok_or("request needs a string `path`")?;
    let edits = value
        .get("edits")
        .and_then(Value::as_array)
        .ok_or("request needs an array `edits`")?;
    let edits = edits
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let text = |key: &str| {
                e.get(key)
                    .and_then(Value::as_str)
                    .map(|s| s.as_bytes().to_vec())
                    .ok_or_else(|| format!("edits[{i}] needs a string `{key}`"))
            };
            let old = text("old")?;
            if old.is_empty() {
                return Err(format!("edits[{i}].old is empty"));
            }
            Ok(Edit {
                old,
                new: text("new")?,
                all: e.get("all").and_then(Value::as_bool).unwrap_or(false),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Request {
        path: PathBuf::from(path),
        edits,
        fsync: value.get("fsync").and_then(Value::as_bool).unwrap_or(true),
    })
}

/// Applies `req`; returns (replacements, bytes written).
fn run(req: &Request, counter: u64) -> Result<(usize, usize), String> {
    let path = &req.path;
    let mut buf = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut replacements = 0;
    for (i, edit) in req.edits.iter().enumerate() {
        replacements += if edit.all {
            replace_all(&mut buf, edit).ok_or_else(|| format!("edits[{i}]: no match"))?
        } else {
            replace_one(&mut buf, edit).map_err(|e| format!("edits[{i}]: {e}"))?
        };
    }
    write_atomically(path, &buf, req.fsync, counter)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok((replacements, buf.len()))
}

fn replace_one(buf: &mut Vec<u8>, edit: &Edit) -> Result<usize, &'static str> {
    let finder = memmem::Finder::new(&edit.old);
    let at = finder.find(buf).ok_or("no match")?;
    // A second start anywhere after the first (overlapping counts) makes the
    // edit ambiguous; for a unique match this completes one full scan.
    if finder.find(&buf[at + 1..]).is_some() {
        return Err("ambiguous match");
    }
    buf.splice(at..at + edit.old.len(), edit.new.iter().copied());
    Ok(1)
}

fn replace_all(buf: &mut Vec<u8>, edit: &Edit) -> Option<usize> {
    let mut out = Vec::with_capacity(buf.len());
    let mut last = 0;
    let mut count = 0;
    for at in memmem::find_iter(buf, &edit.old) {
        // find_iter yields non-overlapping occurrences, left to right.
        out.extend_from_slice(&buf[last..at]);
        out.extend_from_slice(&edit.new);
        last = at + edit.old.len();
        count += 1;
    }
    if count == 0 {
        return None;
    }
    out.extend_from_slice(&buf[last..]);
    *buf = out;
    Some(count)
}

fn write_atomically(path: &Path, bytes: &[u8], fsync: bool, counter: u64) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("path has no file name"))?;
    let mut temp_name = name.to_os_string();
    temp_name.push(format!(".{}.{counter}.floor-tmp", std::process::id()));
    let temp = dir.join(temp_name);
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        if fsync {
            file.sync_all()?;
        }
        drop(file);
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
        return result;
    }
    if fsync {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}
