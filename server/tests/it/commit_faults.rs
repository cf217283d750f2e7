//! Commits through real kernel faults: a full disk, a read-only remount, an
//! immutable target, a user without permission. Each must leave every file
//! byte-identical, no temp, undo or `.bak` behind, and report the right kind,
//! operation and rollback counts.

use splice_server::answer_gate::AnswerGate;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::faults::{self, Immutable, Tmpfs, require};
use splice_server::commit::{
    CommitFailure, Committer, FileChange, Phase, RecoveryOutcome, RollbackOutcome,
};
use splice_server::fsio::{FsErrorKind, FsOp, read_file};

const MAX: u64 = 16 << 20;

/// Every entry of `dir`: name => (bytes, mode).
fn listing(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = fs::metadata(e.path()).unwrap();
            let bytes = if meta.is_file() {
                fs::read(e.path()).unwrap()
            } else {
                Vec::new()
            };
            (
                e.file_name().into_string().unwrap(),
                (bytes, meta.permissions().mode() & 0o7777),
            )
        })
        .collect()
}

/// Five files `f0`..`f4` with distinct content and modes.
fn five_files(dir: &Path) -> Vec<PathBuf> {
    (0..5)
        .map(|i| {
            let p = dir.join(format!("f{i}"));
            fs::write(&p, format!("original content of file {i}\n")).unwrap();
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640 + i)).unwrap();
            p
        })
        .collect()
}

fn changes(
    paths: &[PathBuf],
    backup: impl Fn(usize) -> bool,
    new: impl Fn(usize) -> Vec<u8>,
) -> Vec<FileChange> {
    paths
        .iter()
        .enumerate()
        .map(|(i, p)| FileChange {
            snapshot: read_file(p, MAX).unwrap(),
            new_bytes: new(i),
            backup: backup(i),
        })
        .collect()
}

fn assert_empty(dir: &Path) {
    let left: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.is_empty(),
        "left behind in {}: {left:?}",
        dir.display()
    );
}

#[test]
fn disk_full_while_staging_the_third_of_five_files() {
    let Some(fs_) = require(Tmpfs::mount(256 << 10)) else {
        return;
    };
    let journal = tempfile::tempdir().unwrap();
    let paths = five_files(fs_.path());
    fs::write(fs_.path().join("f0.bak"), "an older backup\n").unwrap();
    let before = listing(fs_.path());

    // The third file's new content cannot fit in 256 KiB.
    let new = |i| {
        if i == 2 {
            vec![b'x'; 1 << 20]
        } else {
            format!("new {i}\n").into_bytes()
        }
    };
    let committer = Committer::new(journal.path().into(), AnswerGate::new()).unwrap();
    let failure = committer
        .commit(changes(&paths, |_| true, new))
        .unwrap_err();

    assert_eq!(failure.failed_index, Some(2));
    assert_eq!(failure.error.kind, FsErrorKind::DiskFull);
    assert_eq!(failure.error.op, FsOp::Stage);
    assert_eq!(failure.error.os_error, Some("ENOSPC"));
    assert_eq!(failure.error.path, paths[2].canonicalize().unwrap());
    assert_eq!(failure.renamed_before_failure, 0);
    assert_eq!(
        failure.rollback,
        RollbackOutcome {
            attempted: false,
            restored: 0,
            not_restored: Vec::new(),
            cleanup_complete: true
        }
    );
    assert_eq!(
        listing(fs_.path()),
        before,
        "files, modes and the old .bak unchanged; nothing added"
    );
    assert_empty(journal.path());
}

/// A commit leaves the closing of the files it replaced (which frees their
/// blocks) to another thread (`commit::late_close`), but the next commit
/// waits for those closes before it stages: back-to-back edits of a file
/// that takes most of a nearly full disk each find the space the previous
/// one freed.
///
/// The edits run in a child process of their own: a fork by another test's
/// thread (`Command::spawn`) copies this process's descriptors, the old
/// file's among them, and keeps that inode alive until the child execs.
/// The server never forks, but this test binary does.
#[test]
fn back_to_back_edits_find_the_space_their_predecessors_freed() {
    let Some(fs_) = require(Tmpfs::mount(256 << 10)) else {
        return;
    };
    let journal = tempfile::tempdir().unwrap();
    // 100 KiB of file and 40 KiB of filler leave about 116 KiB: room for one
    // new copy of the file beside the old one, not for two.
    fs::write(fs_.path().join("big.txt"), vec![b'a'; 100 << 10]).unwrap();
    fs::write(fs_.path().join("filler"), vec![0u8; 40 << 10]).unwrap();
    let output = crate::commit_crash::child("commit_faults::back_to_back_child")
        .env(BACK_TO_BACK_DIR, fs_.path())
        .env(BACK_TO_BACK_JOURNAL, journal.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("back-to-back: 6 edits"),
        "the child failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

const BACK_TO_BACK_DIR: &str = "SPLICE_BACK_TO_BACK_DIR";
const BACK_TO_BACK_JOURNAL: &str = "SPLICE_BACK_TO_BACK_JOURNAL";

/// The child of the test above: six edits of `big.txt`, each rewriting all
/// of it.
#[test]
#[ignore = "child process of back_to_back_edits_find_the_space_their_predecessors_freed"]
fn back_to_back_child() {
    let Some((dir, journal)) =
        crate::commit_crash::child_dirs(BACK_TO_BACK_DIR, BACK_TO_BACK_JOURNAL)
    else {
        return;
    };
    let path = dir.join("big.txt");
    let committer = Committer::new(journal, AnswerGate::new()).unwrap();
    for round in 0..6u8 {
        let new = vec![b'b' + round; 100 << 10];
        let change = changes(std::slice::from_ref(&path), |_| false, |_| new.clone());
        if let Err(failure) = committer.commit(change) {
            panic!("edit {round} of a file that fits: {:?}", failure.error);
        }
        assert_eq!(fs::read(&path).unwrap(), new);
    }
    println!("back-to-back: 6 edits");
}

#[test]
fn read_only_remount_before_the_renames() {
    let Some(fs_) = require(Tmpfs::mount(4 << 20)) else {
        return;
    };
    let journal = tempfile::tempdir().unwrap();
    let paths = five_files(fs_.path());
    let before = listing(fs_.path());

    let mount_point = fs_.path().to_path_buf();
    let committer = Committer::new(journal.path().into(), AnswerGate::new())
        .unwrap()
        .with_hook(move |phase| {
            if phase == Phase::Prepared {
                faults::remount(&mount_point, true).expect("remount read-only");
            }
        });
    let new = |i| format!("new {i}\n").into_bytes();
    let failure = committer
        .commit(changes(&paths, |i| i > 0, new))
        .unwrap_err();

    assert_eq!(failure.failed_index, Some(0));
    assert_eq!(failure.error.kind, FsErrorKind::ReadOnly);
    assert_eq!(failure.error.op, FsOp::Rename);
    assert_eq!(failure.error.os_error, Some("EROFS"));
    assert_eq!(failure.renamed_before_failure, 0);
    // Nothing was renamed, but the staged files cannot be removed from a
    // read-only file system: the journal is kept for recovery.
    assert_eq!(
        failure.rollback,
        RollbackOutcome {
            attempted: true,
            restored: 0,
            not_restored: Vec::new(),
            cleanup_complete: false
        }
    );
    for (p, (bytes, mode)) in paths.iter().zip(before.values()) {
        assert_eq!(&fs::read(p).unwrap(), bytes);
        assert_eq!(
            fs::metadata(p).unwrap().permissions().mode() & 0o7777,
            *mode
        );
    }

    fs_.remount_rw().unwrap();
    let report = committer.recover().unwrap();
    assert_eq!(report.transactions.len(), 1);
    let t = &report.transactions[0];
    assert_eq!(t.outcome, RecoveryOutcome::RolledBack);
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    assert_eq!(t.restored, 0);
    assert_eq!(
        listing(fs_.path()),
        before,
        "no temp, undo or .bak left once writable"
    );
    assert_empty(journal.path());
}

#[test]
fn immutable_fourth_target_fails_its_rename_after_three_succeeded() {
    let dir = tempfile::tempdir().unwrap();
    let journal = tempfile::tempdir().unwrap();
    let paths = five_files(dir.path());
    fs::write(dir.path().join("f1.bak"), "an older backup of f1\n").unwrap();
    let before = listing(dir.path());
    let new = |i| format!("new content {i}\n").into_bytes();
    let changes = changes(&paths, |_| true, new);
    let Some(_immutable) = require(Immutable::set(&paths[3])) else {
        return;
    };

    let committer = Committer::new(journal.path().into(), AnswerGate::new()).unwrap();
    let failure: CommitFailure = committer.commit(changes).unwrap_err();

    assert_eq!(failure.failed_index, Some(3));
    assert_eq!(failure.error.kind, FsErrorKind::PermissionDenied);
    assert_eq!(
        failure.error.op,
        FsOp::Rename,
        "the .bak of f3 was installed; f3 itself refused"
    );
    assert_eq!(failure.error.os_error, Some("EPERM"));
    assert_eq!(failure.renamed_before_failure, 3);
    assert_eq!(
        failure.rollback,
        RollbackOutcome {
            attempted: true,
            restored: 3,
            not_restored: Vec::new(),
            cleanup_complete: true
        }
    );
    assert_eq!(
        listing(dir.path()),
        before,
        "f0-f2 restored, new .baks removed, f1.bak restored"
    );
    assert_empty(journal.path());
}

/// Environment variable selecting the unprivileged child of the test below.
const CHILD: &str = "SPLICE_FAULTS_NOBODY_CHILD";

#[test]
fn permission_denied_as_nobody_for_read_and_write() {
    let dir = tempfile::tempdir().unwrap();
    let journal = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let secret = dir.path().join("secret");
    let public = dir.path().join("public");
    fs::write(&secret, "root only\n").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
    fs::write(&public, "readable, in a directory nobody cannot write\n").unwrap();
    fs::set_permissions(&public, fs::Permissions::from_mode(0o644)).unwrap();
    if require(faults::give_to_nobody(journal.path())).is_none() {
        return;
    }
    let before = listing(dir.path());

    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "commit_faults::nobody_child",
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, dir.path())
    .env("SPLICE_FAULTS_JOURNAL", journal.path());
    let Some(mut cmd) = require(faults::as_nobody(&cmd)) else {
        return;
    };
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("nobody-child: checks passed"),
        "child failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(listing(dir.path()), before);
    assert_empty(journal.path());
}

/// Runs as `nobody` inside [`permission_denied_as_nobody_for_read_and_write`].
#[test]
#[ignore = "child process of permission_denied_as_nobody_for_read_and_write"]
fn nobody_child() {
    let Some(dir) = std::env::var_os(CHILD).map(PathBuf::from) else {
        return;
    };
    let journal = PathBuf::from(std::env::var_os("SPLICE_FAULTS_JOURNAL").unwrap());
    assert_ne!(effective_uid(), 0, "the child must not run as root");

    let err = read_file(&dir.join("secret"), MAX).unwrap_err();
    assert_eq!(
        (err.kind, err.op, err.os_error),
        (FsErrorKind::PermissionDenied, FsOp::Read, Some("EACCES"))
    );

    let snapshot = read_file(&dir.join("public"), MAX).unwrap();
    let committer = Committer::new(journal, AnswerGate::new()).unwrap();
    let failure = committer
        .commit(vec![FileChange {
            snapshot,
            new_bytes: b"changed".to_vec(),
            backup: true,
        }])
        .unwrap_err();
    assert_eq!(failure.failed_index, Some(0));
    assert_eq!(failure.error.kind, FsErrorKind::PermissionDenied);
    assert_eq!(
        failure.error.op,
        FsOp::Backup,
        "the .bak temp is the first file staged"
    );
    assert_eq!(failure.error.os_error, Some("EACCES"));
    assert!(failure.rollback.cleanup_complete);
    println!("nobody-child: checks passed");
}

fn effective_uid() -> u32 {
    fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        .unwrap()
        .parse()
        .unwrap()
}
