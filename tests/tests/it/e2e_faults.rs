//! End-to-end: real file-system faults through the real binary.
//!
//! ENOSPC on a tiny tmpfs, EROFS after a read-only remount, EPERM from
//! `chattr +i`, EACCES with the server running as uid 65534 (root ignores
//! file modes). Each asserts the code, `retryable`, `cause`, `isError`, the
//! payload's validity (the harness checks every payload against the
//! published schemas) and that the file is byte-identical with nothing left
//! beside it. Without root these fail when `CI=true` and skip locally.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use splice_tests::faults::{Immutable, ScratchDir, Tmpfs, give_to_nobody, require};
use splice_tests::harness::{Launch, Outcome, Server};

pub(crate) fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

async fn edit_and_expect(
    server: &Server,
    dir: &Path,
    file: &Path,
    code: &str,
    cause: &str,
) -> Outcome {
    let before = std::fs::read(file).unwrap();
    let names = listing(dir);
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": file.to_str().unwrap(),
                   "edits": [{"old_string": "needle", "new_string": "NEEDLE"}]}),
        )
        .await;
    assert!(
        out.is_error,
        "{code}: expected an error, got {}",
        out.structured
    );
    let e: &Value = &out.structured;
    assert_eq!(e["error_code"], code, "{e:#}");
    assert_eq!(e["retryable"], false);
    assert_eq!(e["cause"], cause);
    assert_eq!(e["file_path"], file.to_str().unwrap());
    assert_eq!(std::fs::read(file).unwrap(), before, "{code}: file changed");
    assert_eq!(listing(dir), names, "{code}: temp or backup left behind");
    out
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap()
}

#[tokio::test]
async fn disk_full_on_a_tiny_tmpfs() {
    let Some(fs) = require(Tmpfs::mount(256 * 1024)) else {
        return;
    };
    let dir = canonical(fs.path());
    let file = dir.join("big.txt");
    let mut text = "needle\n".to_string();
    text.push_str(&"x".repeat(100 * 1024));
    std::fs::write(&file, &text).unwrap();
    // Leave less room than one more copy of the file needs.
    std::fs::write(dir.join("filler"), vec![0u8; 120 * 1024]).unwrap();
    let server = Server::in_root(&dir).await;
    let out = edit_and_expect(&server, &dir, &file, "DISK_FULL", "environment").await;
    assert_eq!(out.structured["context"]["os_error"], "ENOSPC");
    server.stop().await;
}

#[tokio::test]
async fn read_only_remount() {
    let Some(fs) = require(Tmpfs::mount(1024 * 1024)) else {
        return;
    };
    let dir = canonical(fs.path());
    let file = dir.join("ro.txt");
    std::fs::write(&file, "needle\n").unwrap();
    require(fs.remount_ro()).expect("remount read-only");
    let server = Server::in_root(&dir).await;
    let out = edit_and_expect(&server, &dir, &file, "READ_ONLY_FS", "environment").await;
    assert_eq!(out.structured["context"]["os_error"], "EROFS");
    server.stop().await;
    let _ = fs.remount_rw();
}

#[tokio::test]
async fn immutable_file_is_permission_denied() {
    let scratch = ScratchDir::new("splice-e2e-immutable").unwrap();
    let dir = canonical(scratch.path());
    let file = dir.join("locked.txt");
    std::fs::write(&file, "needle\n").unwrap();
    let Some(_guard) = require(Immutable::set(&file)) else {
        return;
    };
    let server = Server::in_root(&dir).await;
    let out = edit_and_expect(&server, &dir, &file, "PERMISSION_DENIED", "environment").await;
    assert_eq!(out.structured["context"]["os_error"], "EPERM");
    server.stop().await;
}

#[tokio::test]
async fn unreadable_file_as_nobody_is_permission_denied() {
    let scratch = ScratchDir::new("splice-e2e-nobody").unwrap();
    let dir = canonical(scratch.path());
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let journal = dir.join(".journal");
    std::fs::create_dir(&journal).unwrap();
    if require(give_to_nobody(&journal)).is_none() {
        return;
    }
    let file = dir.join("secret.txt");
    std::fs::write(&file, "needle\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let server = Server::start(Launch {
        roots: vec![dir.clone()],
        as_nobody: true,
        journal_dir: Some(journal),
        ..Launch::default()
    })
    .await;
    let out = edit_and_expect(&server, &dir, &file, "PERMISSION_DENIED", "environment").await;
    assert_eq!(out.structured["context"]["os_error"], "EACCES");
    server.stop().await;
}

/// What a SIGKILL inside single-file commits leaves (found by
/// `scripts/fault-points`): for `a.txt`, killed after its `.bak` was renamed
/// but before the file was (the old `.bak` survives as `bak-undo`); for
/// `b.txt`, killed after the file was renamed, before its undo link was
/// removed.
fn interrupted_single_file_commits(dir: &Path) {
    std::fs::write(dir.join("a.txt"), "a needle\n").unwrap();
    std::fs::write(dir.join(".a.txt.splice.tmp"), "a NEEDLE\n").unwrap();
    std::fs::hard_link(dir.join("a.txt"), dir.join(".a.txt.splice.undo")).unwrap();
    std::fs::write(dir.join("a.txt.bak"), "a needle\n").unwrap();
    std::fs::write(dir.join(".a.txt.splice.bak-undo"), "older backup\n").unwrap();
    std::fs::write(dir.join("b.txt"), "b NEEDLE\n").unwrap();
    std::fs::write(dir.join(".b.txt.splice.undo"), "b needle\n").unwrap();
}

fn assert_finished(dir: &Path) {
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "a needle\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt.bak")).unwrap(),
        "older backup\n",
        "the .bak of a commit that did not happen must be the old one"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("b.txt")).unwrap(),
        "b NEEDLE\n"
    );
    let hidden: Vec<String> = listing(dir)
        .into_iter()
        .filter(|n| n.contains(".splice."))
        .collect();
    assert!(hidden.is_empty(), "staging files left: {hidden:?}");
}

#[tokio::test]
async fn splice_recover_finishes_interrupted_single_file_commits() {
    let scratch = ScratchDir::new("splice-e2e-sweep").unwrap();
    let dir = canonical(scratch.path());
    let root = dir.join("tree");
    let sub = root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    interrupted_single_file_commits(&sub);
    let journal = dir.join("journal");
    let run = |json: bool| {
        let mut cmd = std::process::Command::new(splice_tests::harness::splice_bin());
        cmd.arg("--root")
            .arg(&root)
            .arg("--journal-dir")
            .arg(&journal);
        cmd.arg("recover");
        if json {
            cmd.arg("--json");
        }
        cmd.output().unwrap()
    };
    let out = run(false);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "rolled back, 1 file(s): {}",
            sub.join("a.txt").display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "completed, 1 file(s): {}",
            sub.join("b.txt").display()
        )),
        "{text}"
    );
    assert!(!text.contains("RecoveryReport"), "{text}");
    assert_finished(&sub);
    // A second run has nothing left to do; --json says so for scripts.
    let out = run(true);
    assert!(out.status.success());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["finished"], true);
    assert_eq!(doc["transactions"], json!([]));
    assert_eq!(doc["single_file_commits"]["rolled_back"], json!([]));
}

#[tokio::test]
async fn the_next_edit_in_the_directory_finishes_interrupted_single_file_commits() {
    let scratch = ScratchDir::new("splice-e2e-sweep-edit").unwrap();
    let dir = canonical(scratch.path());
    interrupted_single_file_commits(&dir);
    let other = dir.join("c.txt");
    std::fs::write(&other, "c needle\n").unwrap();
    let server = Server::in_root(&dir).await;
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": other.to_str().unwrap(), "backup": false,
                   "edits": [{"old_string": "needle", "new_string": "NEEDLE"}]}),
        )
        .await;
    assert!(!out.is_error, "{}", out.structured);
    assert_finished(&dir);
    server.stop().await;
}

#[test]
fn splice_recover_exits_nonzero_with_advice_when_a_journal_is_unreadable() {
    let scratch = ScratchDir::new("splice-e2e-recover-corrupt").unwrap();
    let dir = canonical(scratch.path());
    let journal = dir.join("journal");
    std::fs::create_dir(&journal).unwrap();
    std::fs::write(journal.join("1-2-3.journal"), "not a journal\n").unwrap();
    let out = recover(&dir, &journal);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("corrupt"), "{text}");
    assert!(text.contains("to do:"), "{text}");
}

/// EIO while reading: `/proc/<pid>/mem` of a live process is a regular file
/// whose read at offset 0 fails with EIO (address 0 is never mapped), a real
/// read error without a broken disk. It is `READ_FAILED` ("could not read"),
/// not `WRITE_FAILED` as before 1.2.0, and nothing is written.
#[tokio::test]
async fn eio_while_reading_is_read_failed() {
    let mut sleeper = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("spawn sleep");
    let proc_dir = PathBuf::from(format!("/proc/{}", sleeper.id()));
    let mem = proc_dir.join("mem");
    let server = Server::start(Launch {
        roots: vec![proc_dir.clone()],
        ..Launch::default()
    })
    .await;
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": mem.to_str().unwrap(),
                   "edits": [{"old_string": "needle", "new_string": "NEEDLE"}]}),
        )
        .await;
    server.stop().await;
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    let e = &out.structured;
    if e["error_code"] == "PERMISSION_DENIED" {
        // Not root, and ptrace rules forbid reading another process's memory.
        require::<()>(Err(splice_tests::faults::Unavailable(
            "reading /proc/<pid>/mem of a non-child needs root".into(),
        )));
        return;
    }
    assert!(out.is_error, "{e:#}");
    assert_eq!(e["error_code"], "READ_FAILED", "{e:#}");
    assert_eq!(e["context"]["os_error"], "EIO", "{e:#}");
    assert_eq!(e["cause"], "environment");
    assert!(e["message"].as_str().unwrap().starts_with("could not read"));
}

/// Whether `strace` can run here; `None` (after [`require`] failed loudly
/// in CI or printed why it skips) when it cannot.
pub(crate) fn strace() -> Option<()> {
    let have = std::process::Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    require(if have {
        Ok(())
    } else {
        Err(splice_tests::faults::Unavailable(
            "strace is not installed".into(),
        ))
    })
}

/// A scratch directory with an empty `tree/` (the root) and `journal/`;
/// keep the first element alive for as long as they are used.
fn tree_and_journal(name: &str) -> (ScratchDir, PathBuf, PathBuf) {
    let scratch = ScratchDir::new(name).unwrap();
    let dir = canonical(scratch.path());
    let (root, journal) = (dir.join("tree"), dir.join("journal"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&journal).unwrap();
    (scratch, root, journal)
}

/// A server in `root` whose system calls go through `strace` with `args`
/// (the options before `--`).
async fn straced(root: &Path, journal: &Path, args: &[&std::ffi::OsStr]) -> Server {
    straced_with(
        Launch {
            roots: vec![root.to_path_buf()],
            journal_dir: Some(journal.to_path_buf()),
            ..Launch::default()
        },
        args,
    )
    .await
}

/// The server `launch` describes, its system calls through `strace` with
/// `args` (the options before `--`).
pub(crate) async fn straced_with(launch: Launch, args: &[&std::ffi::OsStr]) -> Server {
    let mut wrapper: Vec<std::ffi::OsString> = ["strace", "-f", "-qq", "-o", "/dev/null"]
        .map(Into::into)
        .into();
    wrapper.extend(args.iter().map(|a| a.to_os_string()));
    wrapper.push("--".into());
    Server::start(Launch { wrapper, ..launch }).await
}

/// `multi_edit_files` replacing `needle` in each of `files`, no backups.
fn edit_each(files: &[&Path]) -> Value {
    let files: Vec<Value> = files
        .iter()
        .map(|p| {
            json!({"file_path": p.to_str().unwrap(),
                   "edits": [{"old_string": "needle", "new_string": "NEEDLE"}]})
        })
        .collect();
    json!({"files": files, "backup": false})
}

/// A journaled commit whose journal directory cannot be fsynced after the
/// `begin` record was renamed into place (found by `scripts/fault-points`,
/// `fsync` and `openat` of the journal directory): the call fails with
/// `JOURNAL_UNAVAILABLE` having staged nothing, and leaves no journal
/// behind either (it used to leave the renamed `begin` journal in the
/// journal directory until the next start or `splice recover`). `strace`
/// fails exactly that fsync: `-P` limits tracing and injection to calls on
/// the journal directory itself.
#[tokio::test]
async fn failed_fsync_of_the_journal_directory_leaves_no_journal() {
    if strace().is_none() {
        return;
    }
    let (_scratch, root, journal) = tree_and_journal("splice-e2e-journal-fsync");
    let (a, b) = (root.join("a.txt"), root.join("b.txt"));
    std::fs::write(&a, "a needle\n").unwrap();
    std::fs::write(&b, "b needle\n").unwrap();
    let server = straced(
        &root,
        &journal,
        &[
            "-e".as_ref(),
            "trace=fsync".as_ref(),
            "-P".as_ref(),
            journal.as_os_str(),
            "-e".as_ref(),
            "inject=fsync:error=EIO:when=1".as_ref(),
        ],
    )
    .await;
    let out = server.call("multi_edit_files", edit_each(&[&a, &b])).await;
    server.stop().await;
    let e = &out.structured;
    assert!(out.is_error, "{e:#}");
    assert_eq!(e["error_code"], "JOURNAL_UNAVAILABLE", "{e:#}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "a needle\n");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "b needle\n");
    assert_eq!(listing(&root), ["a.txt", "b.txt"], "staging names left");
    assert_eq!(
        listing(&journal),
        Vec::<String>::new(),
        "the failed call left its journal"
    );
}

/// `a.txt`, `b.txt` and `c.txt` in `root`, each holding `old needle`.
fn three_old_files(root: &Path) -> Vec<PathBuf> {
    let files: Vec<PathBuf> = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|n| root.join(n))
        .collect();
    for f in &files {
        std::fs::write(f, "old needle\n").unwrap();
    }
    files
}

/// `strace` arguments that fail every rename beneath `root` from the second
/// on (the journal directory is not traced): a commit of several files
/// whose rollback of the first fails too.
fn renames_fail_from_the_second(root: &Path) -> Vec<OsString> {
    let renames = "rename,renameat,renameat2";
    vec![
        "-e".into(),
        format!("trace={renames}").into(),
        "-P".into(),
        root.into(),
        "-e".into(),
        format!("inject={renames}:error=EIO:when=2+").into(),
    ]
}

/// The `status` of each entry of an envelope's `file_statuses`.
fn statuses(e: &Value) -> Vec<&str> {
    e["file_statuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect()
}

/// `splice recover` of `journal`, with `root` as the root.
fn recover(root: &Path, journal: &Path) -> std::process::Output {
    std::process::Command::new(splice_tests::harness::splice_bin())
        .arg("--root")
        .arg(root)
        .arg("--journal-dir")
        .arg(journal)
        .arg("recover")
        .output()
        .unwrap()
}

/// The one double fault that leaves files neither all old nor all new: a
/// journaled commit whose second rename fails, and whose rollback of the
/// first fails too (`strace` fails every rename in the tree from the second
/// on; the journal directory is not traced). The answer is ROLLBACK_FAILED,
/// `file_statuses` names the file that holds the new content
/// (`not_restored`: it said `rolled_back` before), the journal is kept, and
/// `splice recover`, once renames work again, puts every file back and
/// leaves nothing behind.
#[tokio::test]
async fn a_failed_rollback_is_reported_per_file_and_finished_by_recover() {
    if strace().is_none() {
        return;
    }
    let (_scratch, root, journal) = tree_and_journal("splice-e2e-rollback-failed");
    let files = three_old_files(&root);
    let server = straced(
        &root,
        &journal,
        &renames_fail_from_the_second(&root)
            .iter()
            .map(OsString::as_os_str)
            .collect::<Vec<_>>(),
    )
    .await;
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let out = server.call("multi_edit_files", edit_each(&paths)).await;
    server.stop().await;
    let e = &out.structured;
    assert!(out.is_error, "{e:#}");
    assert_eq!(e["error_code"], "ROLLBACK_FAILED", "{e:#}");
    assert_eq!(e["retryable"], false);
    assert_eq!(e["cause"], "environment");
    assert_eq!(
        e["rollback"],
        json!({"attempted": true, "restored": 0, "failed": 1}),
        "{e:#}"
    );
    assert_eq!(statuses(e), ["not_restored", "failed", "skipped"], "{e:#}");
    // What the envelope says is what the disk holds.
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), "old NEEDLE\n");
    assert_eq!(std::fs::read_to_string(&files[1]).unwrap(), "old needle\n");
    assert_eq!(
        listing(&journal).len(),
        1,
        "the journal is kept for recovery"
    );

    let out = recover(&root, &journal);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("rolled back, 3 file(s)"), "{text}");
    for f in &files {
        assert_eq!(std::fs::read_to_string(f).unwrap(), "old needle\n");
    }
    assert_eq!(
        listing(&root),
        ["a.txt", "b.txt", "c.txt"],
        "staging names left"
    );
    assert_eq!(listing(&journal), Vec::<String>::new());
}

/// A removal after the commit point that keeps failing (every unlink in
/// the tree fails with EIO, the retry too): the edit stands and is answered
/// as a success, the undo name it could not remove stays beside the file,
/// and the next edit in that directory removes it. A single failed removal
/// is retried at once (`scripts/fault-points` checks that it leaves
/// nothing).
#[tokio::test]
async fn a_cleanup_that_keeps_failing_is_finished_by_the_next_edit() {
    if strace().is_none() {
        return;
    }
    let (_scratch, root, journal) = tree_and_journal("splice-e2e-cleanup-fails");
    let (a, b) = (root.join("a.txt"), root.join("b.txt"));
    std::fs::write(&a, "a needle\n").unwrap();
    std::fs::write(&b, "b needle\n").unwrap();
    let unlinks = "unlink,unlinkat";
    let server = straced(
        &root,
        &journal,
        &[
            "-e".as_ref(),
            format!("trace={unlinks}").as_ref(),
            "-P".as_ref(),
            root.as_os_str(),
            "-e".as_ref(),
            format!("inject={unlinks}:error=EIO:when=1+").as_ref(),
        ],
    )
    .await;
    let edit = |p: &Path| {
        json!({"file_path": p.to_str().unwrap(), "backup": false,
               "edits": [{"old_string": "needle", "new_string": "NEEDLE"}]})
    };
    let out = server.call("multi_edit", edit(&a)).await;
    server.stop().await;
    assert!(!out.is_error, "{}", out.structured);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "a NEEDLE\n");
    assert_eq!(
        listing(&root),
        [".a.txt.splice.undo", "a.txt", "b.txt"],
        "the undo name is left when its removal keeps failing"
    );

    let server = Server::in_root(&root).await;
    let out = server.call("multi_edit", edit(&b)).await;
    server.stop().await;
    assert!(!out.is_error, "{}", out.structured);
    assert_eq!(listing(&root), ["a.txt", "b.txt"]);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "a NEEDLE\n");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "b NEEDLE\n");
}

/// One file-system fault of the table: `bad` is the file it hits, `ok` a
/// file the same call changes too, in a directory no fault touches.
struct Fault {
    code: &'static str,
    os_error: &'static str,
    bad: PathBuf,
    ok: PathBuf,
    /// The call asks for a `.bak` (the fault is on the backup).
    backup: bool,
}

/// The six file-system faults a call that reads and commits files meets,
/// each on a file of its own, all beneath the roots of one server:
///
/// | code | fault |
/// |---|---|
/// | PERMISSION_DENIED | `chattr +i` on the file (EPERM) |
/// | DISK_FULL | the file on a tmpfs filled to the last byte (ENOSPC) |
/// | READ_ONLY_FS | the file on a tmpfs remounted read-only (EROFS) |
/// | BACKUP_FAILED | a directory where its `.bak` goes |
/// | READ_FAILED | `strace` fails every `read` of the file (EIO) |
/// | WRITE_FAILED | `strace` fails every rename in its directory (EIO) |
///
/// [`FaultTable::lay_out`] writes the files; [`FaultTable::set`] sets the
/// faults, so that a transaction can first be made and then undone.
struct FaultTable {
    // Dropped in this order: the flag cleared before the files go.
    immutable: Option<Immutable>,
    full: Tmpfs,
    read_only: Tmpfs,
    _scratch: ScratchDir,
    roots: Vec<PathBuf>,
    journal: PathBuf,
    undo: PathBuf,
    faults: Vec<Fault>,
}

impl FaultTable {
    /// `None` (after [`require`]) without root or `strace`.
    fn lay_out(name: &str) -> Option<FaultTable> {
        strace()?;
        let full = require(Tmpfs::mount(256 * 1024))?;
        let read_only = require(Tmpfs::mount(256 * 1024))?;
        let scratch = ScratchDir::new(name).unwrap();
        let base = canonical(scratch.path());
        for d in [
            "tree/ok",
            "tree/perm",
            "tree/bak",
            "tree/read",
            "tree/write",
            "journal",
        ] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        let tree = base.join("tree");
        let (full_dir, ro_dir) = (canonical(full.path()), canonical(read_only.path()));
        let faults = [
            ("PERMISSION_DENIED", "EPERM", tree.join("perm"), false),
            ("DISK_FULL", "ENOSPC", full_dir.clone(), false),
            ("READ_ONLY_FS", "EROFS", ro_dir.clone(), false),
            ("BACKUP_FAILED", "EISDIR", tree.join("bak"), true),
            ("READ_FAILED", "EIO", tree.join("read"), false),
            ("WRITE_FAILED", "EIO", tree.join("write"), false),
        ]
        .map(|(code, os_error, dir, backup)| {
            let (bad, ok) = (
                dir.join("b.txt"),
                tree.join("ok").join(format!("{code}.txt")),
            );
            std::fs::write(&bad, "b needle\n").unwrap();
            std::fs::write(&ok, "a needle\n").unwrap();
            Fault {
                code,
                os_error,
                bad,
                ok,
                backup,
            }
        })
        .into();
        Some(FaultTable {
            immutable: None,
            full,
            read_only,
            _scratch: scratch,
            roots: vec![tree, full_dir, ro_dir],
            journal: base.join("journal"),
            undo: base.join("undo"),
            faults,
        })
    }

    fn fault(&self, code: &str) -> &Fault {
        self.faults.iter().find(|f| f.code == code).unwrap()
    }

    /// Sets the faults that are states of the file system (the `strace`
    /// ones are the server's: [`FaultTable::server`]).
    fn set(&mut self) {
        let mut filler = std::fs::File::create(self.full.path().join("filler")).unwrap();
        let chunk = vec![0u8; 16 * 1024];
        loop {
            match std::io::Write::write_all(&mut filler, &chunk) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
                Err(e) => panic!("filling the tmpfs: {e}"),
            }
        }
        drop(filler);
        self.read_only
            .remount_ro()
            .expect("remount read-only (a file on it still open for writing?)");
        self.immutable = Some(Immutable::set(&self.fault("PERMISSION_DENIED").bad).unwrap());
        let bak = &self.fault("BACKUP_FAILED").bad;
        std::fs::create_dir(bak.with_file_name("b.txt.bak")).unwrap();
    }

    /// A server on the table's roots, journal and undo store; `faulty`:
    /// through `strace`, failing what READ_FAILED and WRITE_FAILED need.
    async fn server(&self, faulty: bool) -> Server {
        let launch = Launch {
            roots: self.roots.clone(),
            journal_dir: Some(self.journal.clone()),
            undo_dir: Some(self.undo.clone()),
            ..Launch::default()
        };
        if !faulty {
            return Server::start(launch).await;
        }
        let renames = "rename,renameat,renameat2";
        let read = self.fault("READ_FAILED").bad.clone();
        let write = self
            .fault("WRITE_FAILED")
            .bad
            .parent()
            .unwrap()
            .to_path_buf();
        let args: Vec<std::ffi::OsString> = vec![
            "-e".into(),
            format!("trace=read,{renames}").into(),
            "-P".into(),
            read.into(),
            "-P".into(),
            write.into(),
            "-e".into(),
            "inject=read:error=EIO:when=1+".into(),
            "-e".into(),
            format!("inject={renames}:error=EIO:when=1+").into(),
        ];
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        straced_with(launch, &args).await
    }
}

/// What a failed call must leave: both files and both directories as they
/// were, and no journal.
struct Untouched {
    files: Vec<(PathBuf, Vec<u8>)>,
    dirs: Vec<(PathBuf, Vec<String>)>,
}

impl Untouched {
    fn of(f: &Fault) -> Untouched {
        let files = [&f.ok, &f.bad].map(|p| (p.clone(), std::fs::read(p).unwrap()));
        let dirs = [&f.ok, &f.bad].map(|p| {
            let d = p.parent().unwrap().to_path_buf();
            let names = listing(&d);
            (d, names)
        });
        Untouched {
            files: files.into(),
            dirs: dirs.into(),
        }
    }

    fn check(&self, code: &str, journal: &Path) {
        for (p, bytes) in &self.files {
            assert_eq!(&std::fs::read(p).unwrap(), bytes, "{code}: {p:?} changed");
        }
        for (d, names) in &self.dirs {
            assert_eq!(&listing(d), names, "{code}: a staging name left in {d:?}");
        }
        assert_eq!(
            listing(journal),
            Vec::<String>::new(),
            "{code}: a journal left"
        );
    }
}

/// The envelope of a call that failed on `f.bad`: the fault's code and
/// errno, blamed on the environment, naming the file (and, when the call
/// names several, saying which one failed and that none was written).
fn assert_fault_envelope(out: &Outcome, f: &Fault) {
    let e = &out.structured;
    assert!(out.is_error, "{}: expected an error, got {e:#}", f.code);
    assert_eq!(e["error_code"], f.code, "{e:#}");
    assert_eq!(e["retryable"], false, "{e:#}");
    assert_eq!(e["cause"], "environment", "{e:#}");
    assert_eq!(e["file_path"], f.bad.to_str().unwrap(), "{e:#}");
    assert_eq!(e["context"]["os_error"], f.os_error, "{e:#}");
    if f.code == "BACKUP_FAILED" {
        let bak = f.bad.with_file_name("b.txt.bak");
        assert_eq!(e["backup_path"], bak.to_str().unwrap(), "{e:#}");
    }
    if let Some(statuses) = e["file_statuses"].as_array() {
        for s in statuses {
            let failed = s["file_path"] == f.bad.to_str().unwrap();
            let status = s["status"].as_str().unwrap();
            if failed {
                assert_eq!(status, "failed", "{e:#}");
                assert_eq!(s["error_code"], f.code, "{e:#}");
            } else {
                assert!(
                    ["rolled_back", "skipped", "would_succeed"].contains(&status),
                    "{e:#}"
                );
            }
        }
    }
    assert!(
        e["recovery_hints"]
            .as_array()
            .is_some_and(|h| !h.is_empty()),
        "{e:#}"
    );
}

/// `multi_edit_files` replacing `needle` in both files of `f`.
fn edit_pair(f: &Fault, backup: bool) -> Value {
    let mut args = edit_each(&[&f.ok, &f.bad]);
    args["backup"] = backup.into();
    args
}

/// Each file-system fault, through `multi_edit_files` (one server for all):
/// the fault's code on the file it hits, and the other file of the call not
/// written either.
#[tokio::test]
async fn each_file_system_fault_through_multi_edit_files() {
    let Some(mut table) = FaultTable::lay_out("splice-e2e-faults-mef") else {
        return;
    };
    let codes: Vec<&str> = table.faults.iter().map(|f| f.code).collect();
    assert_eq!(
        codes,
        [
            "PERMISSION_DENIED",
            "DISK_FULL",
            "READ_ONLY_FS",
            "BACKUP_FAILED",
            "READ_FAILED",
            "WRITE_FAILED"
        ]
    );
    table.set();
    let server = table.server(true).await;
    for f in &table.faults {
        let before = Untouched::of(f);
        let out = server
            .call("multi_edit_files", edit_pair(f, f.backup))
            .await;
        assert_fault_envelope(&out, f);
        before.check(f.code, &table.journal);
    }
    server.stop().await;
}

/// Each file-system fault an undo can meet, through `undo`: transactions
/// made before the faults are set, undone after (one server for all
/// undos). Each undo fails with the fault's code on the file it hits, and
/// neither file of the transaction is put back. BACKUP_FAILED is not among
/// them: an undo writes no `.bak`.
#[tokio::test]
async fn each_file_system_fault_through_undo() {
    let Some(mut table) = FaultTable::lay_out("splice-e2e-faults-undo") else {
        return;
    };
    let server = table.server(false).await;
    let mut ids = Vec::new();
    for f in &table.faults {
        let out = server.call("multi_edit_files", edit_pair(f, false)).await;
        assert!(!out.is_error, "{:#}", out.structured);
        ids.push(
            out.structured["transaction_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    server.stop().await;
    table.set();
    let server = table.server(true).await;
    let mut codes = Vec::new();
    for (f, id) in table.faults.iter().zip(&ids) {
        if f.code == "BACKUP_FAILED" {
            continue;
        }
        codes.push(f.code);
        let before = Untouched::of(f);
        let out = server.call("undo", json!({"transaction_id": id})).await;
        assert_fault_envelope(&out, f);
        before.check(f.code, &table.journal);
    }
    server.stop().await;
    assert_eq!(
        codes,
        [
            "PERMISSION_DENIED",
            "DISK_FULL",
            "READ_ONLY_FS",
            "READ_FAILED",
            "WRITE_FAILED"
        ]
    );
}

/// A single-file commit whose directory `fsync` fails after the rename (so
/// the file is not durably written and splice puts the original back), and
/// whose rename back fails too: `multi_edit` answers ROLLBACK_FAILED, and
/// the envelope says what the disk holds (the new content, `not_restored`).
/// `strace` fails the first `fsync` of the directory and its second rename.
#[tokio::test]
async fn a_single_file_commit_whose_rollback_fails_is_rollback_failed() {
    if strace().is_none() {
        return;
    }
    let (_scratch, root, journal) = tree_and_journal("splice-e2e-single-rollback");
    let a = root.join("a.txt");
    std::fs::write(&a, "a needle\n").unwrap();
    let renames = "rename,renameat,renameat2";
    let server = straced(
        &root,
        &journal,
        &[
            "-e".as_ref(),
            format!("trace=fsync,fdatasync,{renames}").as_ref(),
            "-P".as_ref(),
            root.as_os_str(),
            "-e".as_ref(),
            "inject=fsync,fdatasync:error=EIO:when=1".as_ref(),
            "-e".as_ref(),
            format!("inject={renames}:error=EIO:when=2").as_ref(),
        ],
    )
    .await;
    let out = server
        .call(
            "multi_edit",
            json!({"file_path": a.to_str().unwrap(), "backup": false,
                   "edits": [{"old_string": "needle", "new_string": "NEEDLE"}]}),
        )
        .await;
    server.stop().await;
    let e = &out.structured;
    assert!(out.is_error, "{e:#}");
    assert_eq!(e["error_code"], "ROLLBACK_FAILED", "{e:#}");
    assert_eq!(e["cause"], "environment");
    assert_eq!(e["file_path"], a.to_str().unwrap(), "{e:#}");
    assert_eq!(
        e["rollback"],
        json!({"attempted": true, "restored": 0, "failed": 1}),
        "{e:#}"
    );
    assert_eq!(e["file_statuses"][0]["status"], "not_restored", "{e:#}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "a NEEDLE\n");
}

/// Transactions made by a plain server in `root` (each a list of files
/// edited `needle` to `NEEDLE` in one `multi_edit_files` call), with the
/// server's journal and undo store in `state`: their ids.
async fn transactions(root: &Path, state: &Path, calls: &[&[&Path]]) -> Vec<String> {
    let server = Server::start(Launch {
        roots: vec![root.to_path_buf()],
        journal_dir: Some(state.join("journal")),
        undo_dir: Some(state.join("undo")),
        ..Launch::default()
    })
    .await;
    let mut ids = Vec::new();
    for files in calls {
        let out = server.call("multi_edit_files", edit_each(files)).await;
        assert!(!out.is_error, "{:#}", out.structured);
        ids.push(
            out.structured["transaction_id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    server.stop().await;
    ids
}

/// An undo whose second rename fails, and whose rollback of the first
/// fails too (`strace` fails every rename in the tree from the second on):
/// `undo` answers ROLLBACK_FAILED with each file's state as the disk holds
/// it, keeps its journal, and `splice recover` puts the files back as the
/// undone call left them.
#[tokio::test]
async fn an_undo_whose_rollback_fails_is_rollback_failed_and_recovered() {
    if strace().is_none() {
        return;
    }
    let (_scratch, root, journal) = tree_and_journal("splice-e2e-undo-rollback");
    let state = journal.parent().unwrap().to_path_buf();
    let files = three_old_files(&root);
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let id = transactions(&root, &state, &[&paths]).await.remove(0);
    let server = straced_with(
        Launch {
            roots: vec![root.clone()],
            journal_dir: Some(journal.clone()),
            undo_dir: Some(state.join("undo")),
            ..Launch::default()
        },
        &renames_fail_from_the_second(&root)
            .iter()
            .map(OsString::as_os_str)
            .collect::<Vec<_>>(),
    )
    .await;
    let out = server.call("undo", json!({"transaction_id": id})).await;
    server.stop().await;
    let e = &out.structured;
    assert!(out.is_error, "{e:#}");
    assert_eq!(e["error_code"], "ROLLBACK_FAILED", "{e:#}");
    assert_eq!(
        e["rollback"],
        json!({"attempted": true, "restored": 0, "failed": 1}),
        "{e:#}"
    );
    assert_eq!(statuses(e), ["not_restored", "failed", "skipped"], "{e:#}");
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), "old needle\n");
    assert_eq!(std::fs::read_to_string(&files[1]).unwrap(), "old NEEDLE\n");
    assert_eq!(listing(&journal).len(), 1, "the journal is kept");

    let out = recover(&root, &journal);
    assert!(out.status.success(), "{out:?}");
    for f in &files {
        assert_eq!(std::fs::read_to_string(f).unwrap(), "old NEEDLE\n");
    }
    assert_eq!(listing(&root), ["a.txt", "b.txt", "c.txt"]);
    assert_eq!(listing(&journal), Vec::<String>::new());
}

/// An undo whose journal directory cannot be fsynced after its `begin`
/// record: `undo` answers JOURNAL_UNAVAILABLE naming the journal directory,
/// having written nothing, and leaves no journal.
#[tokio::test]
async fn an_undo_without_a_usable_journal_is_journal_unavailable() {
    if strace().is_none() {
        return;
    }
    let (_scratch, root, journal) = tree_and_journal("splice-e2e-undo-journal");
    let state = journal.parent().unwrap().to_path_buf();
    let (a, b) = (root.join("a.txt"), root.join("b.txt"));
    std::fs::write(&a, "a needle\n").unwrap();
    std::fs::write(&b, "b needle\n").unwrap();
    let id = transactions(&root, &state, &[&[&a, &b]]).await.remove(0);
    let server = straced_with(
        Launch {
            roots: vec![root.clone()],
            journal_dir: Some(journal.clone()),
            undo_dir: Some(state.join("undo")),
            ..Launch::default()
        },
        &[
            "-e".as_ref(),
            "trace=fsync".as_ref(),
            "-P".as_ref(),
            journal.as_os_str(),
            "-e".as_ref(),
            "inject=fsync:error=EIO:when=1".as_ref(),
        ],
    )
    .await;
    let out = server.call("undo", json!({"transaction_id": id})).await;
    server.stop().await;
    let e = &out.structured;
    assert!(out.is_error, "{e:#}");
    assert_eq!(e["error_code"], "JOURNAL_UNAVAILABLE", "{e:#}");
    assert_eq!(
        e["context"]["journal_dir"],
        journal.to_str().unwrap(),
        "{e:#}"
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "a NEEDLE\n");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "b NEEDLE\n");
    assert_eq!(listing(&root), ["a.txt", "b.txt"], "staging names left");
    assert_eq!(listing(&journal), Vec::<String>::new());
}
