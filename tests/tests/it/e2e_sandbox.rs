//! The sandbox, through the real binary over stdio: nothing outside the
//! configured roots is read, written or revealed.
//!
//! - **Escape table.** Many attempts to leave the configured root
//!   (`..`, symlinks of every shape, `/proc` magic links, NUL bytes,
//!   overlong names, relative, `~` and Windows paths, look-alike dots, other
//!   directories, the root itself, FIFOs, sockets, devices, a mixed
//!   `multi_edit_files` call). Each row states the exact answer, and every
//!   row is checked against a snapshot of the whole scratch tree (the root
//!   *and* everything outside it: names, types, modes, mtimes, inodes,
//!   content hashes, link targets) taken before and after it. Every
//!   `PATH_OUTSIDE_ROOTS` answer must be the same envelope once the path is
//!   blanked out, so the answer never tells whether an outside path exists,
//!   loops or is a FIFO. Failing rows are collected and reported together.
//! - **Two roots, hard links.** A path in a second `--root` works, a link
//!   between roots works; a hard link to an outside file is edited by
//!   replacing the inside name, so the outside name keeps its content.
//! - **Symlink race.** A thread swaps `root/dir` between a real directory
//!   and a symlink to an outside directory (atomically, `RENAME_EXCHANGE`)
//!   while 10,000 edits of `root/dir/f.txt` run over one connection: nothing
//!   outside may be read or written.
//!
//! Limits and answer caps are in `e2e_limits.rs`.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::Digest;
use splice_tests::faults::{Unavailable, is_root, require};
use splice_tests::fixtures::{edit, root as scratch, s};
use splice_tests::harness::{Launch, Outcome, Server};

/// The edit every escape row sends: it applies to every `secret` file of the
/// fixture, inside or outside, and can be applied again and again, so a row
/// that wrongly succeeds always changes bytes somewhere.
fn pwn() -> Value {
    json!([edit("secret", "secret+PWNED")])
}

// ------------------------------------------------------------------ snapshots

/// Everything observable about a tree, by relative path: type, mode, mtime
/// (ns), size, inode, and the SHA-256 of a file's bytes or a link's target.
/// Symlinks are not followed; FIFOs, sockets and devices are not opened.
type Snapshot = BTreeMap<PathBuf, String>;

fn snapshot(top: &Path) -> Snapshot {
    let mut out = Snapshot::new();
    walk(top, top, &mut out);
    out
}

fn walk(top: &Path, at: &Path, out: &mut Snapshot) {
    let md = std::fs::symlink_metadata(at).unwrap();
    let ft = md.file_type();
    let (kind, extra) = if ft.is_symlink() {
        let t = std::fs::read_link(at).unwrap();
        ("link", format!("-> {}", t.display()))
    } else if ft.is_file() {
        let bytes = std::fs::read(at).unwrap();
        ("file", hex::encode(sha2::Sha256::digest(&bytes)))
    } else if ft.is_dir() {
        ("dir", String::new())
    } else if ft.is_fifo() {
        ("fifo", String::new())
    } else if ft.is_socket() {
        ("socket", String::new())
    } else {
        ("device", format!("rdev={}", md.rdev()))
    };
    out.insert(
        at.strip_prefix(top).unwrap().to_path_buf(),
        format!(
            "{kind} mode={:o} mtime={}.{:09} size={} ino={} {extra}",
            md.mode(),
            md.mtime(),
            md.mtime_nsec(),
            md.size(),
            md.ino()
        ),
    );
    if ft.is_dir() {
        let mut names: Vec<_> = std::fs::read_dir(at)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        for n in names {
            walk(top, &n, out);
        }
    }
}

/// The differences between two snapshots, one line each.
fn changes(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut v = Vec::new();
    for (k, a) in before {
        match after.get(k) {
            None => v.push(format!("removed {}: {a}", k.display())),
            Some(b) if a != b => v.push(format!("changed {}: {a} => {b}", k.display())),
            _ => {}
        }
    }
    for (k, b) in after {
        if !before.contains_key(k) {
            v.push(format!("created {}: {b}", k.display()));
        }
    }
    v
}

// ---------------------------------------------------------------- escape table

/// What a row must get back.
#[derive(Debug, Clone)]
enum Want {
    /// `VALIDATION_FAILED` with exactly this one violation (argument path, code).
    Violation(&'static str, &'static str),
    /// This top-level error code.
    Code(&'static str),
    /// This top-level error code naming file `index` of a `multi_edit_files`
    /// call (by `file_path`, and by `file_index` and `file_statuses` when the
    /// code carries them).
    FileCode(&'static str, u64),
}

struct Row {
    name: String,
    tool: &'static str,
    args: Value,
    want: Want,
}

impl Row {
    /// A `multi_edit` of `path` with the [`pwn`] edit.
    fn one(name: impl Into<String>, path: impl Into<String>, want: Want) -> Row {
        Row {
            name: name.into(),
            tool: "multi_edit",
            args: json!({"file_path": path.into(), "edits": pwn()}),
            want,
        }
    }

    /// A `multi_edit_files` of `paths`, each with the [`pwn`] edit.
    fn many(name: impl Into<String>, paths: &[String], want: Want) -> Row {
        let files: Vec<Value> = paths
            .iter()
            .map(|p| json!({"file_path": p, "edits": pwn()}))
            .collect();
        Row {
            name: name.into(),
            tool: "multi_edit_files",
            args: json!({"files": files}),
            want,
        }
    }
}

/// Why a row's answer is wrong, or `None`.
fn judge(row: &Row, out: &Outcome) -> Option<String> {
    let e = &out.structured;
    if !out.is_error {
        return Some(format!("SUCCEEDED: {e}"));
    }
    let code = e["error_code"].as_str().unwrap_or("?");
    match &row.want {
        Want::Violation(path, sub) => {
            let got: Vec<(String, String)> = e["violations"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .map(|v| {
                            (
                                v["path"].as_str().unwrap_or("?").to_string(),
                                v["code"].as_str().unwrap_or("?").to_string(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            if code != "VALIDATION_FAILED" || got != [(path.to_string(), sub.to_string())] {
                return Some(format!(
                    "want VALIDATION_FAILED [{path}={sub}], got {code} {got:?}: {}",
                    e["message"]
                ));
            }
        }
        Want::Code(want) => {
            if code != *want {
                return Some(format!("want {want}, got {code}: {}", e["message"]));
            }
        }
        Want::FileCode(want, index) => {
            // PATH_OUTSIDE_ROOTS carries only file_path (errors.yaml), so the
            // file is named by its path, and by file_statuses when present.
            let i = *index as usize;
            let path = &row.args["files"][i]["file_path"];
            let status = &e["file_statuses"][i]["status"];
            if code != *want
                || e["file_path"] != *path
                || !(e["file_index"].is_null() || e["file_index"] == *index)
                || !(status.is_null() || status == "failed")
            {
                return Some(format!(
                    "want {want} naming files[{index}] {path}, got {code}: {e}"
                ));
            }
        }
    }
    None
}

/// The envelope with the caller's path blanked out (single-file calls).
fn blank_path(e: &Value, path: &str) -> Value {
    let mut e = e.clone();
    let msg = e["message"].as_str().unwrap().replace(path, "<P>");
    e["message"] = json!(msg);
    e["file_path"] = json!("<P>");
    e
}

/// Calls the server, failing (instead of hanging) after 20 s.
async fn call(server: &Server, tool: &str, args: Value, what: &str) -> Outcome {
    tokio::time::timeout(Duration::from_secs(20), server.call(tool, args))
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within 20 s (the server hangs)"))
}

/// A character device (`/dev/null`'s numbers) at `path`: needs root.
fn char_device(path: &Path) -> Result<(), Unavailable> {
    if !is_root() {
        return Err(Unavailable("mknod of a character device needs root".into()));
    }
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mknod has no other precondition.
    let rc = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if rc != 0 {
        return Err(Unavailable(format!(
            "mknod {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    assert_eq!(rc, 0, "mkfifo: {}", std::io::Error::last_os_error());
}

/// The scratch tree of the escape table:
///
/// ```text
/// base/root/          the only --root (inside.txt, good.txt, sub/, links, fifo, socket)
/// base/outside/       the server's working directory; secret.txt, links back in
/// base/notroot/       another directory that is not a root
/// base/root-evil/     a sibling whose name starts with the root's name
/// ```
struct Tree {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    outside: PathBuf,
    notroot: PathBuf,
    evil: PathBuf,
}

fn tree() -> Tree {
    let (tmp, base) = scratch();
    let root = base.join("root");
    let outside = base.join("outside");
    let notroot = base.join("notroot");
    let evil = base.join("root-evil");
    for d in [&root, &outside, &notroot, &evil] {
        std::fs::create_dir(d).unwrap();
    }
    std::fs::write(root.join("inside.txt"), "inside secret\n").unwrap();
    std::fs::write(root.join("good.txt"), "good secret\n").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/file.txt"), "sub secret\n").unwrap();
    std::fs::write(outside.join("secret.txt"), "outside secret\n").unwrap();
    std::fs::write(notroot.join("secret.txt"), "notroot secret\n").unwrap();
    std::fs::write(evil.join("secret.txt"), "evil secret\n").unwrap();

    // Links out of the root, absolute and relative, to files and directories,
    // existing, missing, looping, chained, leaving and coming back.
    let l = |target: &Path, name: &str| symlink(target, root.join(name)).unwrap();
    l(&outside, "lnk-dir");
    l(Path::new("../outside"), "rel-dir");
    l(&outside.join("secret.txt"), "lnk-file");
    l(Path::new("../outside/secret.txt"), "rel-file");
    l(&outside.join("missing.txt"), "lnk-missing");
    l(&outside.join("nodir/missing.txt"), "lnk-missing-dir");
    l(Path::new("chain2"), "chain1");
    l(&outside.join("secret.txt"), "chain2");
    l(&outside.join("back-in"), "reenter");
    symlink(root.join("inside.txt"), outside.join("back-in")).unwrap();
    l(&outside.join("loop-a"), "lnk-loop");
    symlink(outside.join("loop-b"), outside.join("loop-a")).unwrap();
    symlink(outside.join("loop-a"), outside.join("loop-b")).unwrap();
    l(Path::new("/"), "lnk-slash");
    l(Path::new(".."), "up");
    l(Path::new("/dev/null"), "devnull");
    mkfifo(&outside.join("fifo"));
    l(&outside.join("fifo"), "lnk-fifo");
    l(Path::new("/proc/self/root"), "lnk-proc-root");
    l(Path::new("/proc/self/cwd"), "lnk-proc-cwd");

    // Special files inside the root.
    mkfifo(&root.join("fifo"));
    Tree {
        _tmp: tmp,
        base,
        root,
        outside,
        notroot,
        evil,
    }
}

#[tokio::test]
async fn escape_table() {
    let t = tree();
    let (root, outside) = (&t.root, &t.outside);
    let r = s(root);
    let o = s(outside);
    // A socket inside the root; kept bound for the whole table.
    let _sock = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    let device = require(char_device(&root.join("chardev"))).is_some();
    // Handles this test process holds, for /proc/<pid>/fd/N paths.
    let out_file = std::fs::File::open(outside.join("secret.txt")).unwrap();
    let out_dir = std::fs::File::open(outside).unwrap();
    let root_dir = std::fs::File::open(root).unwrap();
    let me = std::process::id();

    // The server runs in the outside directory, so a path resolved against
    // its working directory (relative, /proc/self/cwd) reaches secret.txt.
    let server = Server::start(Launch {
        roots: vec![root.clone()],
        current_dir: Some(outside.clone()),
        ..Launch::default()
    })
    .await;
    let pid = server.pid().expect("server pid");

    use Want::*;
    const TRAV: Want = Violation("file_path", "PATH_TRAVERSAL");
    const REL: Want = Violation("file_path", "RELATIVE_PATH");
    const BAD: Want = Violation("file_path", "INVALID_PATH");
    const OUT: Want = Code("PATH_OUTSIDE_ROOTS");
    const MISSING: Want = Code("FILE_NOT_FOUND");
    const IRREGULAR: Want = Code("NOT_A_REGULAR_FILE");
    let long_name = "n".repeat(256);
    let max_name = "n".repeat(255);
    let long_path = format!("{r}/{}x", "d/".repeat(2100));
    let mut rows = vec![
        // `..` anywhere is refused before anything is looked up, even when
        // the result would be inside the root.
        Row::one(
            "dotdot: root/../outside",
            format!("{r}/../outside/secret.txt"),
            TRAV,
        ),
        Row::one(
            "dotdot: in the middle",
            format!("{r}/sub/../../outside/secret.txt"),
            TRAV,
        ),
        Row::one("dotdot: trailing, above the root", format!("{r}/.."), TRAV),
        Row::one(
            "dotdot: trailing, inside the root",
            format!("{r}/sub/.."),
            TRAV,
        ),
        Row::one(
            "dotdot: right after /",
            format!("/..{}/outside/secret.txt", t.base.display()),
            TRAV,
        ),
        Row::one(
            "dotdot: doubled slashes",
            format!("{r}//..//outside/secret.txt"),
            TRAV,
        ),
        Row::one(
            "dotdot: after a dot",
            format!("{r}/./../outside/secret.txt"),
            TRAV,
        ),
        Row::one(
            "dotdot: deep to /etc/passwd",
            format!("{r}/sub/{}etc/passwd", "../".repeat(12)),
            TRAV,
        ),
        Row::one(
            "dotdot: after an outward symlink",
            format!("{r}/lnk-dir/../secret.txt"),
            TRAV,
        ),
        // Names that only look like `..` are ordinary names inside the root:
        // missing there, and never resolved anywhere else.
        Row::one(
            "name: %2e%2e (URL-encoded dots)",
            format!("{r}/%2e%2e/outside/secret.txt"),
            MISSING,
        ),
        Row::one(
            "name: ..%2f..%2f (encoded slashes)",
            format!("{r}/..%2f..%2foutside%2fsecret.txt"),
            MISSING,
        ),
        Row::one(
            "name: ... (three dots)",
            format!("{r}/.../outside/secret.txt"),
            MISSING,
        ),
        Row::one(
            "name: '.. ' (dot dot space)",
            format!("{r}/.. /outside/secret.txt"),
            MISSING,
        ),
        Row::one(
            "name: U+2025 two dot leader",
            format!("{r}/\u{2025}/outside/secret.txt"),
            MISSING,
        ),
        Row::one(
            "name: U+FF0E fullwidth dots",
            format!("{r}/\u{FF0E}\u{FF0E}/outside/secret.txt"),
            MISSING,
        ),
        Row::one(
            "name: U+2024 one dot leader twice",
            format!("{r}/\u{2024}\u{2024}/outside/secret.txt"),
            MISSING,
        ),
        Row::one(
            "name: U+2215 division slash",
            format!("{r}/..\u{2215}outside\u{2215}secret.txt"),
            MISSING,
        ),
        Row::one(
            "name: backslash traversal inside the root",
            format!("{r}/..\\..\\outside\\secret.txt"),
            MISSING,
        ),
        Row::one(
            "name: 255-byte component (the limit)",
            format!("{r}/{max_name}"),
            MISSING,
        ),
        // Symlinks leading out: one answer whatever is at the other end.
        Row::one(
            "symlink parent dir -> outside (abs)",
            format!("{r}/lnk-dir/secret.txt"),
            OUT,
        ),
        Row::one(
            "symlink parent dir -> outside, missing file",
            format!("{r}/lnk-dir/missing.txt"),
            OUT,
        ),
        Row::one(
            "symlink parent dir -> ../outside (rel)",
            format!("{r}/rel-dir/secret.txt"),
            OUT,
        ),
        Row::one("symlink final -> outside dir", format!("{r}/lnk-dir"), OUT),
        Row::one(
            "symlink final -> outside file (abs)",
            format!("{r}/lnk-file"),
            OUT,
        ),
        Row::one(
            "symlink final -> ../outside file (rel)",
            format!("{r}/rel-file"),
            OUT,
        ),
        Row::one(
            "symlink final -> missing outside file (dangling)",
            format!("{r}/lnk-missing"),
            OUT,
        ),
        Row::one(
            "symlink final -> file in a missing outside dir",
            format!("{r}/lnk-missing-dir"),
            OUT,
        ),
        Row::one(
            "symlink chain inside -> inside -> outside",
            format!("{r}/chain1"),
            OUT,
        ),
        Row::one(
            "symlink chain leaving and re-entering",
            format!("{r}/reenter"),
            OUT,
        ),
        Row::one("symlink -> outside loop", format!("{r}/lnk-loop"), OUT),
        Row::one(
            "symlink -> / then etc/passwd",
            format!("{r}/lnk-slash/etc/passwd"),
            OUT,
        ),
        Row::one(
            "symlink up -> .. then outside/",
            format!("{r}/up/outside/secret.txt"),
            OUT,
        ),
        Row::one(
            "symlink up -> .. (the root's parent)",
            format!("{r}/up"),
            OUT,
        ),
        Row::one("symlink -> /dev/null", format!("{r}/devnull"), OUT),
        Row::one(
            "symlink -> outside FIFO (no hang)",
            format!("{r}/lnk-fifo"),
            OUT,
        ),
        // /proc magic links: their text does not say where they lead.
        Row::one(
            "/proc/self/root + root file",
            format!("/proc/self/root{r}/inside.txt"),
            OUT,
        ),
        Row::one(
            "/proc/self/root + outside file",
            format!("/proc/self/root{o}/secret.txt"),
            OUT,
        ),
        Row::one(
            "/proc/thread-self/root + root file",
            format!("/proc/thread-self/root{r}/inside.txt"),
            OUT,
        ),
        Row::one(
            "/proc/self/cwd (server cwd = outside)",
            "/proc/self/cwd/secret.txt".to_string(),
            OUT,
        ),
        Row::one(
            "/proc/<server>/cwd",
            format!("/proc/{pid}/cwd/secret.txt"),
            OUT,
        ),
        Row::one(
            "/proc/<test>/fd/<outside file>",
            format!("/proc/{me}/fd/{}", out_file.as_raw_fd()),
            OUT,
        ),
        Row::one(
            "/proc/<test>/fd/<outside dir>/secret.txt",
            format!("/proc/{me}/fd/{}/secret.txt", out_dir.as_raw_fd()),
            OUT,
        ),
        Row::one(
            "/proc/<test>/fd/<root dir>/inside.txt",
            format!("/proc/{me}/fd/{}/inside.txt", root_dir.as_raw_fd()),
            OUT,
        ),
        Row::one(
            "/proc/self/fd/0 (stdin pipe)",
            "/proc/self/fd/0".to_string(),
            OUT,
        ),
        Row::one("/proc/self/environ", "/proc/self/environ".to_string(), OUT),
        Row::one(
            "symlink in root -> /proc/self/root + root file",
            format!("{r}/lnk-proc-root{r}/inside.txt"),
            OUT,
        ),
        Row::one(
            "symlink in root -> /proc/self/cwd",
            format!("{r}/lnk-proc-cwd/secret.txt"),
            OUT,
        ),
        // NUL bytes and lengths.
        Row::one("NUL at the end", format!("{r}/inside.txt\0"), BAD),
        Row::one(
            "NUL then traversal",
            format!("{r}/inside.txt\0/../../outside/secret.txt"),
            BAD,
        ),
        Row::one("NUL only", "\0".to_string(), BAD),
        Row::one("empty path", String::new(), BAD),
        Row::one("component of 256 bytes", format!("{r}/{long_name}"), BAD),
        Row::one("path over 4096 bytes", long_path, BAD),
        // Not absolute: never resolved against the server's working directory.
        Row::one(
            "relative name (exists in the server's cwd)",
            "secret.txt".to_string(),
            REL,
        ),
        Row::one("relative ./name", "./secret.txt".to_string(), REL),
        Row::one(
            "relative ../outside",
            "../outside/secret.txt".to_string(),
            REL,
        ),
        Row::one("tilde", "~".to_string(), REL),
        Row::one("tilde slash", "~/secret.txt".to_string(), REL),
        Row::one("tilde user", "~root/.bashrc".to_string(), REL),
        Row::one(
            "Windows drive with backslashes",
            "C:\\Windows\\win.ini".to_string(),
            REL,
        ),
        Row::one(
            "Windows drive with slashes",
            "C:/Windows/win.ini".to_string(),
            REL,
        ),
        Row::one("UNC path", "\\\\server\\share\\secret.txt".to_string(), REL),
        Row::one(
            "backslash traversal",
            "..\\..\\etc\\passwd".to_string(),
            REL,
        ),
        Row::one("file:// URI", format!("file://{o}/secret.txt"), REL),
        Row::one("leading space", format!(" {o}/secret.txt"), REL),
        // Absolute paths that are simply elsewhere.
        Row::one("outside dir, existing file", format!("{o}/secret.txt"), OUT),
        Row::one("outside dir, missing file", format!("{o}/missing.txt"), OUT),
        Row::one(
            "outside dir, missing dir",
            format!("{o}/nodir/missing.txt"),
            OUT,
        ),
        Row::one("outside FIFO directly (no hang)", format!("{o}/fifo"), OUT),
        Row::one(
            "another directory, not a root",
            format!("{}/secret.txt", t.notroot.display()),
            OUT,
        ),
        Row::one(
            "sibling sharing the root's name as prefix",
            format!("{}/secret.txt", t.evil.display()),
            OUT,
        ),
        Row::one(
            "root + backslash traversal (a name beside the root)",
            format!("{r}\\..\\outside\\secret.txt"),
            OUT,
        ),
        Row::one("the root's parent", s(&t.base), OUT),
        Row::one("/", "/".to_string(), OUT),
        Row::one("/etc/passwd", "/etc/passwd".to_string(), OUT),
        Row::one("/dev/null", "/dev/null".to_string(), OUT),
        // Inside, but not regular files.
        Row::one("the root itself", r.clone(), IRREGULAR),
        Row::one("the root with a trailing slash", format!("{r}/"), IRREGULAR),
        Row::one("the root as root/.", format!("{r}/."), IRREGULAR),
        Row::one("a directory inside", format!("{r}/sub"), IRREGULAR),
        Row::one("a FIFO inside (no hang)", format!("{r}/fifo"), IRREGULAR),
        Row::one("a socket inside", format!("{r}/sock"), IRREGULAR),
        // multi_edit_files: one escaping file spoils the call, nothing is
        // written to the good one.
        Row::many(
            "files: good + symlink out",
            &[format!("{r}/good.txt"), format!("{r}/lnk-file")],
            FileCode("PATH_OUTSIDE_ROOTS", 1),
        ),
        Row::many(
            "files: symlinked dir out + good",
            &[format!("{r}/lnk-dir/secret.txt"), format!("{r}/good.txt")],
            FileCode("PATH_OUTSIDE_ROOTS", 0),
        ),
        Row::many(
            "files: good + outside path",
            &[format!("{r}/good.txt"), format!("{o}/secret.txt")],
            FileCode("PATH_OUTSIDE_ROOTS", 1),
        ),
        Row::many(
            "files: good + /proc/self/root",
            &[
                format!("{r}/good.txt"),
                format!("/proc/self/root{o}/secret.txt"),
            ],
            FileCode("PATH_OUTSIDE_ROOTS", 1),
        ),
        Row::many(
            "files: good + FIFO",
            &[format!("{r}/good.txt"), format!("{r}/fifo")],
            FileCode("NOT_A_REGULAR_FILE", 1),
        ),
        Row::many(
            "files: good + traversal",
            &[
                format!("{r}/good.txt"),
                format!("{r}/../outside/secret.txt"),
            ],
            Violation("files[1].file_path", "PATH_TRAVERSAL"),
        ),
        Row::many(
            "files: good + relative",
            &[format!("{r}/good.txt"), "secret.txt".to_string()],
            Violation("files[1].file_path", "RELATIVE_PATH"),
        ),
    ];
    // Create, delete and move: every path, both ends of a move,
    // through the same walk; out of the roots is PATH_OUTSIDE_ROOTS, never
    // a write or a copy; what exists (a special file included) is not
    // replaced.
    let op = |name: &str, entry: Value, want: Want| Row {
        name: name.into(),
        tool: "multi_edit_files",
        args: json!({"files": [entry]}),
        want,
    };
    rows.extend([
        op(
            "create: through a link to an outside file",
            json!({"file_path": format!("{r}/lnk-file"), "op": "create", "content": "pwned"}),
            OUT,
        ),
        op(
            "create: through a dangling link to outside",
            json!({"file_path": format!("{r}/lnk-missing"), "op": "create", "content": "pwned"}),
            OUT,
        ),
        op(
            "create: parents through a link to a missing outside dir",
            json!({"file_path": format!("{r}/lnk-missing-dir"), "op": "create", "content": "pwned", "create_parents": true}),
            OUT,
        ),
        op(
            "create: in a linked outside directory, with parents",
            json!({"file_path": format!("{r}/lnk-dir/new/x.txt"), "op": "create", "content": "pwned", "create_parents": true}),
            OUT,
        ),
        op(
            "create: via a relative link out",
            json!({"file_path": format!("{r}/rel-dir/new.txt"), "op": "create", "content": "pwned"}),
            OUT,
        ),
        op(
            "create: dotdot",
            json!({"file_path": format!("{r}/../outside/new.txt"), "op": "create", "content": "pwned"}),
            Violation("files[0].file_path", "PATH_TRAVERSAL"),
        ),
        op(
            "create: over a FIFO inside",
            json!({"file_path": format!("{r}/fifo"), "op": "create", "content": "pwned"}),
            Code("FILE_ALREADY_EXISTS"),
        ),
        op(
            "create: over /dev/null via a link",
            json!({"file_path": format!("{r}/devnull"), "op": "create", "content": "pwned"}),
            OUT,
        ),
        op(
            "delete: through a link to an outside file",
            json!({"file_path": format!("{r}/lnk-file"), "op": "delete"}),
            OUT,
        ),
        op(
            "delete: via /proc/self/root",
            json!({"file_path": format!("/proc/self/root{o}/secret.txt"), "op": "delete"}),
            OUT,
        ),
        op(
            "delete: a FIFO inside",
            json!({"file_path": format!("{r}/fifo"), "op": "delete"}),
            IRREGULAR,
        ),
        op(
            "move: out of the root",
            json!({"file_path": format!("{r}/good.txt"), "op": "move", "move_to": format!("{o}/stolen.txt")}),
            OUT,
        ),
        op(
            "move: into a linked outside directory",
            json!({"file_path": format!("{r}/good.txt"), "op": "move", "move_to": format!("{r}/lnk-dir/stolen.txt")}),
            OUT,
        ),
        op(
            "move: onto a dangling link to outside",
            json!({"file_path": format!("{r}/good.txt"), "op": "move", "move_to": format!("{r}/lnk-missing")}),
            OUT,
        ),
        op(
            "move: into another, non-root directory",
            json!({"file_path": format!("{r}/good.txt"), "op": "move", "move_to": format!("{}/x.txt", t.notroot.display())}),
            OUT,
        ),
        op(
            "move: from outside into the root",
            json!({"file_path": format!("{o}/secret.txt"), "op": "move", "move_to": format!("{r}/stolen.txt")}),
            OUT,
        ),
        op(
            "move: dotdot in move_to",
            json!({"file_path": format!("{r}/good.txt"), "op": "move", "move_to": format!("{r}/../outside/x.txt")}),
            Violation("files[0].move_to", "PATH_TRAVERSAL"),
        ),
        op(
            "move: onto a FIFO inside",
            json!({"file_path": format!("{r}/good.txt"), "op": "move", "move_to": format!("{r}/fifo")}),
            Code("FILE_ALREADY_EXISTS"),
        ),
    ]);
    if device {
        rows.push(Row::one(
            "a character device inside",
            format!("{r}/chardev"),
            IRREGULAR,
        ));
    }

    let first = snapshot(&t.base);
    let mut failures: Vec<String> = Vec::new();
    // Every PATH_OUTSIDE_ROOTS answer of a single-file call, path blanked.
    let mut outside_answers: Vec<(String, Value)> = Vec::new();
    for row in &rows {
        let before = snapshot(&t.base);
        let out = call(&server, row.tool, row.args.clone(), &row.name).await;
        let after = snapshot(&t.base);
        let mut problems = Vec::new();
        if let Some(p) = judge(row, &out) {
            problems.push(p);
        }
        let touched = changes(&before, &after);
        if !touched.is_empty() {
            problems.push(format!("touched the tree: {touched:#?}"));
        }
        if out.is_error && out.code() == "PATH_OUTSIDE_ROOTS" && row.tool == "multi_edit" {
            let path = row.args["file_path"].as_str().unwrap();
            outside_answers.push((row.name.clone(), blank_path(&out.structured, path)));
        }
        eprintln!(
            "{:<4} {:<55} {}",
            if problems.is_empty() { "ok" } else { "FAIL" },
            row.name,
            if out.is_error {
                out.structured["error_code"].to_string()
            } else {
                "success".into()
            }
        );
        if !problems.is_empty() {
            failures.push(format!("[{}] {}", row.name, problems.join("; ")));
        }
        // Restore the tree so one wrong row does not spoil the next.
        if !touched.is_empty() {
            restore(&t, &before);
        }
    }
    let last = snapshot(&t.base);
    assert!(rows.len() >= 30);
    // One answer for outside, whatever is (or is not) out there.
    if let Some((first_name, reference)) = outside_answers.first() {
        for (name, answer) in &outside_answers[1..] {
            if answer != reference {
                failures.push(format!(
                    "[{name}] PATH_OUTSIDE_ROOTS differs from [{first_name}] beyond the path: {answer} vs {reference}"
                ));
            }
        }
    }
    if failures.is_empty() {
        assert_eq!(changes(&first, &last), Vec::<String>::new());
    }
    server.stop().await;
    assert!(
        failures.is_empty(),
        "{} of {} escape rows failed:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// Puts back the `secret` files a wrong row rewrote (their content is
/// known) and removes what it created, so later rows start from the same
/// tree. Only used after a failure has been recorded.
fn restore(t: &Tree, before: &Snapshot) {
    let originals = [
        (t.root.join("inside.txt"), "inside secret\n"),
        (t.root.join("good.txt"), "good secret\n"),
        (t.root.join("sub/file.txt"), "sub secret\n"),
        (t.outside.join("secret.txt"), "outside secret\n"),
        (t.notroot.join("secret.txt"), "notroot secret\n"),
        (t.evil.join("secret.txt"), "evil secret\n"),
    ];
    for (p, text) in originals {
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
            let _ = std::fs::write(&p, text);
        }
    }
    let now = snapshot(&t.base);
    for k in now.keys().rev() {
        if !before.contains_key(k) {
            let p = t.base.join(k);
            let _ = std::fs::remove_file(&p).or_else(|_| std::fs::remove_dir_all(&p));
        }
    }
}

// ------------------------------------------------------- roots and hard links

#[tokio::test]
async fn second_root_works_and_links_between_roots_work() {
    let (_tmp, base) = scratch();
    let (a, b, c) = (base.join("a"), base.join("b"), base.join("c"));
    for d in [&a, &b, &c] {
        std::fs::create_dir(d).unwrap();
    }
    std::fs::write(b.join("f.txt"), "in b\n").unwrap();
    std::fs::write(c.join("f.txt"), "in c\n").unwrap();
    symlink(b.join("f.txt"), a.join("to-b")).unwrap();
    symlink("..", a.join("up")).unwrap();
    let server = Server::start(Launch {
        roots: vec![a.clone(), b.clone()],
        ..Launch::default()
    })
    .await;
    let ok = |out: &Outcome| assert!(!out.is_error, "{}", out.structured);

    let out = server
        .call("multi_edit", json!({"file_path": s(&b.join("f.txt")), "edits": [edit("in b", "B1")], "backup": false}))
        .await;
    ok(&out);
    assert_eq!(std::fs::read_to_string(b.join("f.txt")).unwrap(), "B1\n");

    // A link in root a to a file in root b edits the file; the link survives.
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": s(&a.join("to-b")), "edits": [edit("B1", "B2")], "backup": false}),
        )
        .await;
    ok(&out);
    assert_eq!(std::fs::read_to_string(b.join("f.txt")).unwrap(), "B2\n");
    assert!(
        std::fs::symlink_metadata(a.join("to-b"))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // `..` through a link to the roots' common parent, on the way into b.
    let out = server
        .call("multi_edit", json!({"file_path": format!("{}/up/b/f.txt", a.display()), "edits": [edit("B2", "B3")], "backup": false}))
        .await;
    ok(&out);
    assert_eq!(std::fs::read_to_string(b.join("f.txt")).unwrap(), "B3\n");

    // The same `..` on the way to c, which is not a root.
    let before = snapshot(&base);
    for p in [format!("{}/up/c/f.txt", a.display()), s(&c.join("f.txt"))] {
        let out = server
            .call(
                "multi_edit",
                json!({"file_path": p, "edits": [edit("in c", "PWNED")]}),
            )
            .await;
        assert_eq!(out.code(), "PATH_OUTSIDE_ROOTS", "{p}");
    }
    // A lexical `..` is refused even between two roots.
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": format!("{}/../b/f.txt", a.display()), "edits": [edit("B3", "x")]}),
        )
        .await;
    assert_eq!(out.structured["violations"][0]["code"], "PATH_TRAVERSAL");
    assert_eq!(changes(&before, &snapshot(&base)), Vec::<String>::new());
    server.stop().await;
}

/// A hard link is the file itself, so splice cannot tell it is also linked
/// outside; the commit replaces the inside *name* with a new inode (README,
/// "Security"), so the outside name keeps the old bytes and is never written.
#[tokio::test]
async fn hard_link_to_an_outside_file_leaves_the_outside_name_alone() {
    let (_tmp, base) = scratch();
    let root = base.join("root");
    let outside = base.join("outside");
    std::fs::create_dir(&root).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("shared.txt"), "original secret\n").unwrap();
    // Same file system (both under one scratch dir), so linking works.
    std::fs::hard_link(outside.join("shared.txt"), root.join("shared.txt")).unwrap();
    let ino = std::fs::metadata(outside.join("shared.txt")).unwrap().ino();
    let outside_before = snapshot(&outside);
    let server = Server::in_root(&root).await;

    for backup in [false, true] {
        let out = server
            .call(
                "multi_edit",
                json!({"file_path": s(&root.join("shared.txt")), "edits": pwn(), "backup": backup}),
            )
            .await;
        assert!(!out.is_error, "{}", out.structured);
    }
    // The inside name has the new content in a new inode.
    assert_eq!(
        std::fs::read_to_string(root.join("shared.txt")).unwrap(),
        "original secret+PWNED+PWNED\n"
    );
    assert_ne!(
        std::fs::metadata(root.join("shared.txt")).unwrap().ino(),
        ino
    );
    assert_eq!(
        std::fs::read_to_string(root.join("shared.txt.bak")).unwrap(),
        "original secret+PWNED\n"
    );
    // The outside name: same inode, same bytes, same mtime, nothing beside it.
    assert_eq!(
        changes(&outside_before, &snapshot(&outside)),
        Vec::<String>::new()
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("shared.txt")).unwrap(),
        "original secret\n"
    );
    assert_eq!(
        std::fs::metadata(outside.join("shared.txt"))
            .unwrap()
            .nlink(),
        1
    );
    server.stop().await;
}

// --------------------------------------------------------------- symlink race

/// Swaps two names atomically (`renameat2(RENAME_EXCHANGE)`): both always
/// exist, whatever their types.
fn exchange(a: &CString, b: &CString) -> std::io::Result<()> {
    // SAFETY: valid NUL-terminated paths relative to the working directory
    // (absolute here); renameat2 has no other precondition.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Stops the swapping thread even when the test fails.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[derive(Debug, Default)]
struct Tally {
    /// Successes whose edit was found on line 1: the inside file was read.
    ok_inside: u64,
    /// Successes whose edit was found on line 2: the outside file was read.
    ok_outside: u64,
    codes: BTreeMap<String, u64>,
    unexpected: Vec<String>,
}

/// Codes a call may end with while its directory is being swapped: the walk
/// met the symlink, the name was briefly something else, or the file
/// changed between the read and the commit. Each means nothing was written.
const RACE_CODES: [&str; 3] = ["PATH_OUTSIDE_ROOTS", "FILE_NOT_FOUND", "STALE_FILE"];

/// `root/dir` flips between a real directory and a symlink to `outside`
/// while 10,000 edits of `root/dir/f.txt` run, 8 at a time, over one
/// connection. Both `f.txt` contain the edited `HEADER` line, so an edit
/// applies wherever the server ends up; they differ in the line it is on
/// (1 inside, 2 outside), which every success reports. Asserted: nothing
/// outside changes (no write), no success read the outside file (no leak),
/// every other answer is a clean refusal, and every success is in the
/// inside file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symlink_swap_race_never_reaches_outside() {
    const CALLS: u64 = 10_000;
    const IN_FLIGHT: u64 = 8;
    // 64 KiB files: reading, hashing and writing them widens every window.
    let filler: String = (0..1024)
        .map(|i| format!("{i:05} {}\n", "x".repeat(57)))
        .collect();
    let (_tmp, base) = scratch();
    let root = base.join("root");
    let outside = base.join("outside");
    std::fs::create_dir(&root).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::create_dir(root.join("dir")).unwrap();
    std::fs::write(root.join("dir/f.txt"), format!("HEADER\n{filler}")).unwrap();
    std::fs::write(outside.join("f.txt"), format!("OUTSIDE\nHEADER\n{filler}")).unwrap();
    symlink(&outside, root.join("swap")).unwrap();
    let outside_before = snapshot(&outside);

    let server = Arc::new(Server::in_root(&root).await);
    let stop = Arc::new(AtomicBool::new(false));
    let _guard = StopOnDrop(stop.clone());
    let swaps = Arc::new(AtomicU64::new(0));
    let flipper = {
        let (stop, swaps) = (stop.clone(), swaps.clone());
        let a = CString::new(root.join("dir").as_os_str().as_bytes()).unwrap();
        let b = CString::new(root.join("swap").as_os_str().as_bytes()).unwrap();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                exchange(&a, &b).expect("RENAME_EXCHANGE");
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    let file = s(&root.join("dir/f.txt"));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..IN_FLIGHT {
        let (server, file) = (server.clone(), file.clone());
        tasks.push(tokio::spawn(async move {
            let mut t = Tally::default();
            for k in (w..CALLS).step_by(IN_FLIGHT as usize) {
                let out = server
                    .call(
                        "multi_edit",
                        json!({"file_path": file, "backup": false,
                               "edits": [edit("HEADER\n", &format!("HEADER\nk={k}\n"))]}),
                    )
                    .await;
                if !out.is_error {
                    match out.structured["edits"][0]["line"].as_u64() {
                        Some(1) => t.ok_inside += 1,
                        _ => t.ok_outside += 1,
                    }
                    continue;
                }
                let code = out.code().to_string();
                if !RACE_CODES.contains(&code.as_str()) && t.unexpected.len() < 5 {
                    t.unexpected.push(out.structured.to_string());
                }
                *t.codes.entry(code).or_default() += 1;
            }
            t
        }));
    }
    let mut total = Tally::default();
    for task in tasks {
        let t = task.await.unwrap();
        total.ok_inside += t.ok_inside;
        total.ok_outside += t.ok_outside;
        for (c, n) in t.codes {
            *total.codes.entry(c).or_default() += n;
        }
        total.unexpected.extend(t.unexpected);
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    let swaps = swaps.load(Ordering::Relaxed);
    eprintln!(
        "race: {CALLS} calls ({IN_FLIGHT} in flight) in {:.1} s, {swaps} swaps; {total:?}",
        elapsed.as_secs_f64()
    );

    // Where the real directory ended up (`dir` or `swap`).
    let inside = ["dir", "swap"]
        .iter()
        .map(|n| root.join(n))
        .find(|p| std::fs::symlink_metadata(p).unwrap().is_dir())
        .unwrap();
    let inside_text = std::fs::read_to_string(inside.join("f.txt")).unwrap();
    let outside_text = std::fs::read_to_string(outside.join("f.txt")).unwrap();
    let outside_writes = outside_text.lines().filter(|l| l.starts_with("k=")).count();
    let touched = changes(&outside_before, &snapshot(&outside));
    // Every task has ended, so this is the last handle.
    if let Ok(server) = Arc::try_unwrap(server) {
        server.stop().await;
    }

    let created: Vec<&String> = touched
        .iter()
        .filter(|c| c.starts_with("created"))
        .collect();
    assert!(
        touched.is_empty(),
        "{outside_writes} edit(s) written to the outside f.txt, {} file(s) created outside \
         (first: {:#?}); all changes: {:#?}",
        created.len(),
        created.iter().take(3).collect::<Vec<_>>(),
        touched
            .iter()
            .filter(|c| !c.starts_with("created"))
            .collect::<Vec<_>>()
    );
    assert_eq!(total.ok_outside, 0, "successes that read the outside file");
    assert!(
        total.unexpected.is_empty(),
        "answers other than {RACE_CODES:?}: {:#?}",
        total.unexpected
    );
    let litter: Vec<_> = std::fs::read_dir(&inside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "f.txt")
        .collect();
    assert!(litter.is_empty(), "left behind inside: {litter:?}");
    let inside_writes = inside_text.lines().filter(|l| l.starts_with("k=")).count() as u64;
    assert_eq!(
        inside_writes, total.ok_inside,
        "every success must be in the inside file, and nothing else"
    );
    // The race was really run: both outcomes happened, many swaps.
    assert!(swaps > 1_000, "only {swaps} swaps");
    assert!(total.ok_inside > 0, "no call succeeded: {total:?}");
    assert!(
        total.codes.get("PATH_OUTSIDE_ROOTS").copied().unwrap_or(0) > 0,
        "no call met the symlink: {total:?}"
    );
}

/// `PATH_OUTSIDE_ROOTS` from a server started with `--root` (the
/// client offers no roots, so `roots_source` is `server`) carries only the
/// hints that apply to it: none about client roots, and the hints are under
/// half of the envelope's bytes (1,092 bytes, 822 of them hints, when every
/// hint was sent). Bytes are those of the compact JSON a model reads.
#[tokio::test]
async fn path_outside_roots_under_root_carries_only_the_server_hints() {
    let root = tempfile::tempdir().unwrap();
    let root_path = root.path().canonicalize().unwrap();
    let server = Server::in_root(&root_path).await;
    let out = server
        .call(
            "multi_edit",
            json!({
                "file_path": "/etc/hosts",
                "edits": [{"old_string": "localhost", "new_string": "devbox"}],
            }),
        )
        .await;
    server.stop().await;
    assert_eq!(out.code(), "PATH_OUTSIDE_ROOTS", "{}", out.structured);
    let e = &out.structured;
    assert_eq!(e["context"]["roots_source"], "server", "{e}");
    let hints = e["recovery_hints"].as_array().expect("hints");
    assert!(!hints.is_empty(), "{e}");
    for h in hints {
        let h = h.as_str().expect("a hint is a string");
        assert!(
            !h.contains("client"),
            "a hint about client roots under roots_source server: {h}"
        );
    }
    assert!(
        hints.iter().any(|h| h.as_str().unwrap().contains("--root")),
        "the server's --root hint is missing: {e}"
    );
    let envelope_bytes = serde_json::to_string(e).unwrap().len();
    let hint_bytes = serde_json::to_string(&e["recovery_hints"]).unwrap().len();
    println!("PATH_OUTSIDE_ROOTS under --root: {envelope_bytes} B, of which hints {hint_bytes} B");
    assert!(
        2 * hint_bytes < envelope_bytes,
        "hints are {hint_bytes} of {envelope_bytes} bytes: {e}"
    );
}
