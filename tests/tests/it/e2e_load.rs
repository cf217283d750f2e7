//! End-to-end: the server under load.
//!
//! Another process holds the lock of one file while 1,000 calls arrive at
//! once: 630 edits of the locked file, 340 edits of 20 other files and 30 dry
//! runs of a 4 MiB file, with `--max-calls-in-flight 8 --memory-budget 64`.
//! What a user would notice is checked: every call gets exactly one answer;
//! `ping`s and the edits of other files are answered while the lock is still
//! held (before this, waiters held every blocking thread, stdin was no longer
//! read and a ping took 39 s); each edit of the locked file either landed or
//! was refused as busy, never half; peak memory stays near the budget.
//!
//! Bounds asserted are generous behaviour checks (a debug build on a busy
//! 2-core machine); the figures themselves are printed (`--nocapture`).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use splice_tests::harness::splice_bin;

const LOCKED_CALLS: usize = 630;
const OTHER_FILES: usize = 20;
const LINES_PER_OTHER: usize = 17;
const DRY_RUNS: usize = 30;

fn call(id: usize, file: &Path, old: &str, new: &str, dry_run: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
    "name": "multi_edit",
    "arguments": {
        "file_path": file.to_str().unwrap(),
        "edits": [{"old_string": old, "new_string": new}],
        "backup": false,
        "dry_run": dry_run,
    }}})
}

/// Takes an exclusive `flock` on `path`, as a second splice or an editor
/// would hold it; dropping the file releases it.
fn hold_lock(path: &Path) -> File {
    let held = File::open(path).unwrap();
    // SAFETY: flock on an open descriptor has no memory-safety preconditions.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    held
}

/// The real binary over `root`, with piped stdin and stdout.
fn spawn(root: &Path, extra: &[&str]) -> std::process::Child {
    Command::new(splice_bin())
        .arg("--root")
        .arg(root)
        .arg("--journal-dir")
        .arg(root.join(".journal"))
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn splice")
}

fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/pid/status")
}

#[test]
fn a_thousand_calls_while_one_file_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let locked = root.join("locked.txt");
    std::fs::write(
        &locked,
        (0..LOCKED_CALLS)
            .map(|i| format!("line {i}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let others: Vec<_> = (0..OTHER_FILES)
        .map(|k| {
            let p = root.join(format!("other{k}.txt"));
            let text: String = (0..LINES_PER_OTHER).map(|i| format!("row {i}\n")).collect();
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    let big = root.join("big.txt");
    let big_text: String = (0..120_000)
        .map(|i| format!("{i:08} the quick brown fox jumps\n"))
        .collect();
    assert!(big_text.len() > 3_500_000);
    std::fs::write(&big, &big_text).unwrap();

    // Another process's lock, as a second splice or an editor would hold it.
    let held = hold_lock(&locked);
    let mut child = spawn(
        &root,
        &["--max-calls-in-flight", "8", "--memory-budget", "64"],
    );
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, answers) = mpsc::channel::<(Instant, Value)>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v: Value = serde_json::from_str(&line).expect("stdout is JSON-RPC");
            if tx.send((Instant::now(), v)).is_err() {
                break;
            }
        }
    });
    let send = |v: &Value, stdin: &mut std::process::ChildStdin| {
        let mut line = serde_json::to_vec(v).unwrap();
        line.push(b'\n');
        stdin.write_all(&line).unwrap();
        stdin.flush().unwrap();
    };
    send(
        &json!({"jsonrpc":"2.0","id":"init","method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"load","version":"0"}}}),
        &mut stdin,
    );
    let (_, init) = answers.recv_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(init["id"], "init", "{init}");
    send(
        &json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        &mut stdin,
    );

    // What each id is, and when it was sent.
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Kind {
        Locked(usize),
        Other,
        DryRun,
    }
    let mut kinds: HashMap<usize, Kind> = HashMap::new();
    let mut requests: Vec<Value> = Vec::new();
    let mut id = 0;
    for i in 0..LOCKED_CALLS {
        id += 1;
        kinds.insert(id, Kind::Locked(i));
        requests.push(call(
            id,
            &locked,
            &format!("line {i}\n"),
            &format!("LINE {i}\n"),
            false,
        ));
    }
    for i in 0..LINES_PER_OTHER {
        for p in &others {
            id += 1;
            kinds.insert(id, Kind::Other);
            requests.push(call(
                id,
                p,
                &format!("row {i}\n"),
                &format!("ROW {i}\n"),
                false,
            ));
        }
    }
    for i in 0..DRY_RUNS {
        id += 1;
        kinds.insert(id, Kind::DryRun);
        requests.push(call(
            id,
            &big,
            &format!("{:08} the quick", i * 1000),
            "the slow",
            true,
        ));
    }
    assert_eq!(requests.len(), 1000);

    // All 1,000 at once, in arrival order: the locked file's first.
    let start = Instant::now();
    let mut sent: HashMap<String, Instant> = HashMap::new();
    for r in &requests {
        sent.insert(r["id"].to_string(), Instant::now());
        send(r, &mut stdin);
    }

    // While the lock is held: ping every 50 ms until every edit of the
    // other files is answered (the dry runs, one at a time within the
    // memory budget, may go on after the lock is freed).
    let mut got: HashMap<String, (Instant, Value)> = HashMap::new();
    let mut pings: Vec<Duration> = Vec::new();
    let need_unlocked = OTHER_FILES * LINES_PER_OTHER;
    let unlocked_answered = |got: &HashMap<String, (Instant, Value)>| {
        got.keys()
            .filter(|k| {
                k.parse::<usize>()
                    .ok()
                    .and_then(|n| kinds.get(&n))
                    .is_some_and(|k| *k == Kind::Other)
            })
            .count()
    };
    let mut ping_id = 0;
    while unlocked_answered(&got) < need_unlocked {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "edits of unlocked files were not all answered while the lock was held: {} of {need_unlocked}",
            unlocked_answered(&got)
        );
        ping_id += 1;
        let key = format!("\"ping{ping_id}\"");
        let t = Instant::now();
        send(
            &json!({"jsonrpc":"2.0","id":format!("ping{ping_id}"),"method":"ping"}),
            &mut stdin,
        );
        let deadline = t + Duration::from_millis(50);
        let mut pinged = false;
        loop {
            let wait = if pinged {
                deadline.saturating_duration_since(Instant::now())
            } else {
                Duration::from_secs(10)
            };
            match answers.recv_timeout(wait) {
                Ok((at, v)) => {
                    let k = v["id"].to_string();
                    if k == key {
                        assert_eq!(v["result"], json!({}), "{v}");
                        pings.push(at - t);
                        pinged = true;
                    } else {
                        assert!(got.insert(k, (at, v)).is_none(), "an id answered twice");
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) if pinged => break,
                Err(e) => panic!("ping {ping_id} not answered in 10 s: {e:?}"),
            }
            if pinged && Instant::now() >= deadline {
                break;
            }
        }
    }
    let unlocked_done = start.elapsed();
    // Until now, no edit of the locked file can have been written.
    let locked_early: Vec<_> = got
        .values()
        .filter(|(_, v)| {
            matches!(
                kinds[&(v["id"].as_u64().unwrap() as usize)],
                Kind::Locked(_)
            ) && v["result"]["isError"] != json!(true)
        })
        .collect();
    assert!(
        locked_early.is_empty(),
        "an edit of the locked file succeeded while it was locked"
    );
    drop(held);

    // Every call gets exactly one answer.
    while got.len() < requests.len() {
        let (at, v) = answers
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("only {} of {} calls answered", got.len(), requests.len()));
        let k = v["id"].to_string();
        assert!(sent.contains_key(&k), "an answer to no request: {v}");
        assert!(got.insert(k, (at, v)).is_none(), "an id answered twice");
    }
    let all_done = start.elapsed();
    let rss_mib = peak_rss_kib(pid) as f64 / 1024.0;
    drop(stdin);
    let _ = child.wait();
    let _ = reader.join();

    // Each edit of the locked file landed or was refused as busy, never half.
    let content = std::fs::read_to_string(&locked).unwrap();
    let (mut landed, mut busy) = (0, 0);
    let mut other_latency: Vec<Duration> = Vec::new();
    for (k, (at, v)) in &got {
        let n: usize = k.parse().unwrap();
        let result = &v["result"];
        let s = &result["structuredContent"];
        match kinds[&n] {
            Kind::Locked(i) => {
                let present = content.contains(&format!("LINE {i}\n"));
                if result["isError"] == json!(true) {
                    assert_eq!(s["error_code"], "WRITE_FAILED", "{v}");
                    assert_eq!(s["context"]["os_error"], "EBUSY", "{v}");
                    assert!(!present, "a refused edit landed: {i}");
                    busy += 1;
                } else {
                    assert!(present, "an answered edit is missing: {i}");
                    landed += 1;
                }
            }
            Kind::Other => {
                assert_ne!(result["isError"], json!(true), "{v}");
                other_latency.push(*at - sent[k]);
            }
            Kind::DryRun => {
                assert_ne!(result["isError"], json!(true), "{v}");
                assert_eq!(s["dry_run"], true, "{v}");
            }
        }
    }
    assert_eq!(landed + busy, LOCKED_CALLS);
    assert!(
        landed > 0,
        "no edit of the locked file landed after the lock was freed"
    );
    assert_eq!(std::fs::read_to_string(&big).unwrap(), big_text);
    for p in &others {
        let text = std::fs::read_to_string(p).unwrap();
        let want: String = (0..LINES_PER_OTHER).map(|i| format!("ROW {i}\n")).collect();
        assert_eq!(text, want, "{}", p.display());
    }

    pings.sort();
    other_latency.sort();
    let p = |v: &[Duration], q: f64| v[((v.len() - 1) as f64 * q) as usize];
    eprintln!(
        "load: {} pings while locked, latency median {:?} max {:?}; other-file calls \
         median {:?} max {:?}; other-file edits done at {unlocked_done:?}, all at {all_done:?}; \
         locked file: {landed} landed, {busy} busy; peak RSS {rss_mib:.1} MiB",
        pings.len(),
        p(&pings, 0.5),
        p(&pings, 1.0),
        p(&other_latency, 0.5),
        p(&other_latency, 1.0),
    );
    assert!(!pings.is_empty());
    assert!(
        p(&pings, 1.0) < Duration::from_secs(1),
        "a ping took {:?} under load",
        p(&pings, 1.0)
    );
    // 64 MiB of reservations, the requests, and the runtime.
    assert!(rss_mib < 300.0, "peak RSS {rss_mib:.1} MiB");
}

/// Calls queued behind a file another process keeps locked all get their
/// answer at the lock timeout (10 s from when each arrived), not one after
/// another: before, each waited its own 10 s once the previous one gave up,
/// so the fifth got its answer after 50 s.
#[test]
fn calls_behind_a_file_locked_for_good_all_answer_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let locked = root.join("locked.txt");
    std::fs::write(&locked, "a\nb\nc\nd\ne\n").unwrap();
    let held = hold_lock(&locked);
    let mut child = spawn(&root, &[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: Value| {
        let mut line = serde_json::to_vec(&v).unwrap();
        line.push(b'\n');
        stdin.write_all(&line).unwrap();
        stdin.flush().unwrap();
    };
    send(
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"load","version":"0"}}}),
    );
    lines.next().unwrap().unwrap();
    send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    let start = Instant::now();
    for (i, old) in ["a\n", "b\n", "c\n", "d\n", "e\n"].iter().enumerate() {
        send(call(i + 1, &locked, old, "X\n", false));
    }
    for _ in 0..5 {
        let v: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        let s = &v["result"]["structuredContent"];
        assert_eq!(s["error_code"], "WRITE_FAILED", "{v}");
        assert_eq!(s["context"]["os_error"], "EBUSY", "{v}");
        assert_eq!(s["retryable"], false, "{v}");
    }
    let took = start.elapsed();
    eprintln!("five calls behind a held lock answered after {took:?}");
    assert!(
        took < Duration::from_secs(25),
        "the queued calls waited one after another: {took:?}"
    );
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), "a\nb\nc\nd\ne\n");
    drop(held);
    let _ = child.kill();
    let _ = child.wait();
}
