//! End-to-end: the journal directory is not trusted blindly.
//!
//! Recovery performs the renames and removals a journal lists, so a journal
//! another local user could write is a way to delete this user's files. These
//! tests plant a valid, checksummed journal that names a victim file and
//! check that the real binary refuses to start (non-zero exit, a message
//! naming the problem) and leaves the victim alone: in a directory another
//! user owns, in one writable by others, and when `HOME` and
//! `XDG_STATE_HOME` are unset (where splice once fell back to a shared
//! `$TMPDIR/splice-journal`).

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use sha2::{Digest, Sha256};
use splice_tests::harness::{is_root, skip_or_fail, splice_bin};

/// One journal line: payload, space, the first 8 bytes of its SHA-256 in hex.
fn line(payload: &str) -> String {
    format!(
        "{payload} {}\n",
        hex::encode(&Sha256::digest(payload.as_bytes())[..8])
    )
}

/// A `begin` record (a transaction interrupted while staging) whose "temp"
/// and "undo" names are `victim`: recovery of such a journal removes them.
fn plant(journal_dir: &Path, victim: &Path) {
    let dir = victim.parent().unwrap();
    let h = |p: &Path| hex::encode(p.as_os_str().as_bytes());
    let payload = format!(
        "begin v1 999999 1 F 0 {} {} {}",
        h(&dir.join("decoy.txt")),
        h(victim),
        h(victim)
    );
    std::fs::write(journal_dir.join("1-planted-0.journal"), line(&payload)).unwrap();
}

/// Starts `splice` (serve, stdin closed) and waits for it to exit.
fn run(args: &[&std::ffi::OsStr], env: &[(&str, &Path)], clear_home: bool) -> Output {
    let mut cmd = Command::new(splice_bin());
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("RUST_LOG", "warn");
    if clear_home {
        cmd.env_remove("HOME").env_remove("XDG_STATE_HOME");
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run splice")
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap().join("root");
    std::fs::create_dir(&root).unwrap();
    let victim = root.join("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    (t, root, victim)
}

fn assert_refused(out: &Output, victim: &Path, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "expected a refusal; stderr: {stderr}"
    );
    assert!(
        stderr.contains(needle),
        "stderr should say `{needle}`: {stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(victim).expect("the victim file must survive"),
        "precious\n"
    );
}

#[test]
fn a_journal_directory_writable_by_others_is_refused() {
    let (t, root, victim) = setup();
    let journal = t.path().join("journal");
    std::fs::create_dir(&journal).unwrap();
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o777)).unwrap();
    plant(&journal, &victim);
    let out = run(
        &[
            "--root".as_ref(),
            root.as_os_str(),
            "--journal-dir".as_ref(),
            journal.as_os_str(),
        ],
        &[],
        false,
    );
    assert_refused(&out, &victim, "writable by group or others");
}

#[test]
fn a_journal_file_writable_by_others_is_refused() {
    let (t, root, victim) = setup();
    let journal = t.path().join("journal");
    std::fs::create_dir(&journal).unwrap();
    plant(&journal, &victim);
    let planted = journal.join("1-planted-0.journal");
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o666)).unwrap();
    for cmd in [None, Some("recover")] {
        let mut args = vec![
            "--root".as_ref(),
            root.as_os_str(),
            "--journal-dir".as_ref(),
            journal.as_os_str(),
        ];
        args.extend(cmd.map(std::ffi::OsStr::new));
        let out = run(&args, &[], false);
        assert_refused(&out, &victim, "writable by group or others");
    }
}

#[test]
fn a_journal_directory_owned_by_another_user_is_refused() {
    if !is_root() {
        return skip_or_fail("root (to chown the journal directory to uid 65534)");
    }
    let (t, root, victim) = setup();
    let journal = t.path().join("journal");
    std::fs::create_dir(&journal).unwrap();
    plant(&journal, &victim);
    std::os::unix::fs::chown(&journal, Some(65534), Some(65534)).unwrap();
    let out = run(
        &[
            "--root".as_ref(),
            root.as_os_str(),
            "--journal-dir".as_ref(),
            journal.as_os_str(),
        ],
        &[],
        false,
    );
    assert_refused(&out, &victim, "owned by uid 65534");
}

#[test]
fn without_home_there_is_no_shared_fallback() {
    let (t, root, victim) = setup();
    // The shared directory splice used to fall back to, planted first by
    // "another user" (here: with a journal naming the victim).
    let tmp = t.path().join("tmp");
    let shared = tmp.join("splice-journal");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o700)).unwrap();
    plant(&shared, &victim);
    let out = run(
        &["--root".as_ref(), root.as_os_str()],
        &[("TMPDIR", &tmp)],
        true,
    );
    assert_refused(&out, &victim, "--journal-dir");
    assert!(shared.join("1-planted-0.journal").exists());
}

#[test]
fn a_new_journal_directory_is_private() {
    let (t, root, _victim) = setup();
    let state = t.path().join("state");
    let out = run(
        &["--root".as_ref(), root.as_os_str(), "recover".as_ref()],
        &[("XDG_STATE_HOME", &state)],
        true,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta = std::fs::metadata(state.join("splice/journal")).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o700);
}

/// Runs `splice recover`, killing it (and failing) if it has not finished in
/// 30 s: a FIFO under a journal's name once hung it forever.
fn recover_bounded(root: &Path, journal: &Path) -> Output {
    let mut child = Command::new(splice_bin())
        .args([
            "--root".as_ref(),
            root.as_os_str(),
            "--journal-dir".as_ref(),
            journal.as_os_str(),
        ])
        .arg("recover")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("RUST_LOG", "warn")
        .spawn()
        .expect("spawn splice");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("`splice recover` hung on the journal directory's entries");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn odd_entries_in_the_journal_directory_are_skipped_and_reported() {
    let (t, root, victim) = setup();
    let journal = t.path().join("journal");
    std::fs::create_dir(&journal).unwrap();
    let fifo = journal.join("a.journal");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::fs::create_dir(journal.join("b.journal")).unwrap();
    std::os::unix::fs::symlink(&victim, journal.join("c.journal")).unwrap();
    let sparse = std::fs::File::create(journal.join("d.journal")).unwrap();
    sparse.set_len(8 << 30).unwrap();
    std::fs::create_dir(journal.join(".1-x-0.journal.tmp")).unwrap();

    let out = recover_bounded(&root, &journal);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "recovery must go on past odd entries: {stderr}"
    );
    for name in ["a.journal", "b.journal", "c.journal", "d.journal"] {
        assert!(stderr.contains(name), "{name} not reported: {stderr}");
    }
    assert!(
        stderr.contains("a FIFO") && stderr.contains("a directory"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(
        journal.join("c.journal").symlink_metadata().is_ok(),
        "entries left alone"
    );
}

#[test]
fn a_journal_is_not_a_delete_list() {
    // A trusted directory (ours, 0700) holding a well-formed journal whose
    // staging names are ordinary files: recovery touches none of them, with
    // `splice recover` (anywhere) as at start-up (inside the roots).
    let (t, root, victim) = setup();
    let journal = t.path().join("journal");
    std::fs::create_dir(&journal).unwrap();
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o700)).unwrap();
    plant(&journal, &victim);
    let out = recover_bounded(&root, &journal);
    assert_eq!(
        std::fs::read_to_string(&victim).expect("recovery deleted a file the journal listed"),
        "precious\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        journal.join("1-planted-0.journal").exists(),
        "journal kept for a human"
    );
    let out = run(
        &[
            "--root".as_ref(),
            root.as_os_str(),
            "--journal-dir".as_ref(),
            journal.as_os_str(),
        ],
        &[],
        false,
    );
    let _ = out;
    assert!(victim.exists());
}

mod journal_unavailable {
    use serde_json::json;
    use splice_tests::faults::{Immutable, ScratchDir, require};
    use splice_tests::harness::{Launch, Server};
    use std::os::unix::fs::MetadataExt;

    fn two_files(dir: &std::path::Path) -> serde_json::Value {
        let a = dir.join("a.txt");
        let b = dir.join("b.txt");
        std::fs::write(&a, "alpha\n").unwrap();
        std::fs::write(&b, "beta\n").unwrap();
        json!({"files": [
            {"file_path": a, "edits": [{"old_string": "alpha", "new_string": "ALPHA"}]},
            {"file_path": b, "edits": [{"old_string": "beta", "new_string": "BETA"}]}]})
    }

    #[tokio::test]
    async fn an_immutable_journal_directory_is_its_own_error_and_single_files_still_work() {
        let scratch = ScratchDir::new("splice-e2e-journal-immutable").unwrap();
        let dir = scratch.path().canonicalize().unwrap();
        let root = dir.join("root");
        let journal = dir.join("journal");
        std::fs::create_dir(&root).unwrap();
        std::fs::create_dir(&journal).unwrap();
        let args = two_files(&root);
        let server = Server::start(Launch {
            roots: vec![root.clone()],
            journal_dir: Some(journal.clone()),
            ..Launch::default()
        })
        .await;
        let Some(guard) = require(Immutable::set(&journal)) else {
            return;
        };
        let out = server.call("multi_edit_files", args).await;
        let e = &out.structured;
        assert_eq!(e["error_code"], "JOURNAL_UNAVAILABLE", "{e:#}");
        assert_eq!(e["cause"], "environment");
        assert_eq!(e["context"]["journal_dir"], journal.to_str().unwrap());
        assert_eq!(e["context"]["os_error"], "EPERM");
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "alpha\n"
        );
        let one = server
            .call(
                "multi_edit",
                json!({"file_path": root.join("a.txt"),
                       "edits": [{"old_string": "alpha", "new_string": "ALPHA"}]}),
            )
            .await;
        assert!(!one.is_error, "{}", one.structured);
        drop(guard);
        server.stop().await;
    }

    #[tokio::test]
    async fn a_deleted_journal_directory_is_recreated() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().canonicalize().unwrap();
        let root = dir.join("root");
        let journal = dir.join("state/journal");
        std::fs::create_dir(&root).unwrap();
        let args = two_files(&root);
        let server = Server::start(Launch {
            roots: vec![root.clone()],
            journal_dir: Some(journal.clone()),
            ..Launch::default()
        })
        .await;
        std::fs::remove_dir_all(dir.join("state")).unwrap();
        let out = server.call("multi_edit_files", args).await;
        assert!(!out.is_error, "{}", out.structured);
        assert_eq!(
            std::fs::read_to_string(root.join("b.txt")).unwrap(),
            "BETA\n"
        );
        assert_eq!(std::fs::metadata(&journal).unwrap().mode() & 0o777, 0o700);
        server.stop().await;
    }
}

#[test]
fn a_damaged_journal_after_a_rename_keeps_every_copy() {
    // A crash between renames whose `prepared` record was damaged: the
    // journal reads as "begun", yet the file was replaced (its temp is gone,
    // its undo link holds the original). Discarding would delete the only
    // copy of the original.
    let (t, root, _victim) = setup();
    let journal = t.path().join("journal");
    std::fs::create_dir(&journal).unwrap();
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o700)).unwrap();
    let target = root.join("a.txt");
    let temp = root.join(".a.txt.splice-4242-abc123.tmp");
    let undo = root.join(".a.txt.splice-4242-abc123.undo");
    std::fs::write(&target, "new\n").unwrap();
    std::fs::write(&undo, "original\n").unwrap();
    let h = |p: &Path| hex::encode(p.as_os_str().as_bytes());
    let mut text = line(&format!(
        "begin v1 4242 1 F 0 {} {} {}",
        h(&target),
        h(&temp),
        h(&undo)
    ));
    text.push_str("prepared 1 1 2 1 3 00000000deadbeef\n");
    std::fs::write(journal.join("4242-x-0.journal"), text).unwrap();
    let out = recover_bounded(&root, &journal);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        std::fs::read_to_string(&undo).unwrap_or_default(),
        "original\n",
        "the original's only copy was deleted: {stderr}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
    assert!(journal.join("4242-x-0.journal").exists(), "journal kept");
    assert!(
        stderr.contains("rename each `original` over its `target`"),
        "{stderr}"
    );
}
