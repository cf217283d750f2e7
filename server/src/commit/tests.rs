//! Unit tests of the commit protocol that need no privileges. Real faults
//! (ENOSPC, EROFS, EPERM, EACCES) and SIGKILL crashes: `server/tests/it/commit_*.rs`.

use crate::answer_gate::AnswerGate;
use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::fsio::read_file;

const MAX: u64 = 1 << 20;

struct Fixture {
    dir: tempfile::TempDir,
    journal: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
            journal: tempfile::tempdir().unwrap(),
        }
    }

    fn committer(&self) -> Committer {
        Committer::new(self.journal.path().to_path_buf(), AnswerGate::new()).unwrap()
    }

    fn write(&self, name: &str, bytes: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        fs::write(&p, bytes).unwrap();
        p
    }

    fn change(&self, name: &str, new: &str, backup: bool) -> FileChange {
        let snapshot = read_file(&self.dir.path().join(name), MAX).unwrap();
        FileChange {
            snapshot,
            new_bytes: new.as_bytes().to_vec(),
            backup,
        }
    }

    /// Every directory entry, name => content (symlinks as "-> target").
    fn listing(&self) -> BTreeMap<String, String> {
        fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let name = e.file_name().into_string().unwrap();
                let content = if e.file_type().unwrap().is_symlink() {
                    format!("-> {}", fs::read_link(e.path()).unwrap().display())
                } else {
                    String::from_utf8(fs::read(e.path()).unwrap()).unwrap()
                };
                (name, content)
            })
            .collect()
    }

    fn journal_is_empty(&self) -> bool {
        fs::read_dir(self.journal.path()).unwrap().next().is_none()
    }
}

fn listing_of(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn commits_several_files_preserving_modes_and_symlinks() {
    let fx = Fixture::new();
    let a = fx.write("a", "old a");
    fx.write("b", "old b");
    fs::set_permissions(&a, fs::Permissions::from_mode(0o751)).unwrap();
    symlink("b", fx.dir.path().join("link-to-b")).unwrap();
    let link_change = {
        let snapshot = read_file(&fx.dir.path().join("link-to-b"), MAX).unwrap();
        FileChange {
            snapshot,
            new_bytes: b"new b".to_vec(),
            backup: false,
        }
    };

    let report = fx
        .committer()
        .commit(vec![fx.change("a", "new a", false), link_change])
        .unwrap();
    assert!(
        report
            .files
            .iter()
            .all(|f| f.written && f.backup_path.is_none())
    );
    assert_eq!(
        fx.listing(),
        listing_of(&[("a", "new a"), ("b", "new b"), ("link-to-b", "-> b")])
    );
    assert_eq!(
        fs::metadata(&a).unwrap().permissions().mode() & 0o7777,
        0o751
    );
    assert!(fx.journal_is_empty());
}

#[test]
fn backups_hold_the_original_and_replace_an_old_bak_only_on_success() {
    let fx = Fixture::new();
    let a = fx.write("a", "v1");
    fs::set_permissions(&a, fs::Permissions::from_mode(0o604)).unwrap();
    fx.write("a.bak", "ancient");
    let report = fx
        .committer()
        .commit(vec![fx.change("a", "v2", true)])
        .unwrap();
    assert_eq!(
        report.files[0].backup_path,
        Some(fx.dir.path().join("a.bak").canonicalize().unwrap())
    );
    assert_eq!(fx.listing(), listing_of(&[("a", "v2"), ("a.bak", "v1")]));
    let bak_mode = fs::metadata(fx.dir.path().join("a.bak"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(bak_mode & 0o7777, 0o604);

    // A stale call writes nothing, so the old .bak survives.
    let stale = fx.change("a", "v3", true);
    fs::write(&a, "changed behind our back").unwrap();
    let failure = fx.committer().commit(vec![stale]).unwrap_err();
    assert!(matches!(failure.error.kind, FsErrorKind::Stale { .. }));
    assert_eq!(
        fx.listing(),
        listing_of(&[("a", "changed behind our back"), ("a.bak", "v1")])
    );
}

#[test]
fn unchanged_content_is_not_written_and_gets_no_backup() {
    let fx = Fixture::new();
    let a = fx.write("a", "same");
    let ino = std::os::unix::fs::MetadataExt::ino(&fs::metadata(&a).unwrap());
    let report = fx
        .committer()
        .commit(vec![fx.change("a", "same", true)])
        .unwrap();
    assert!(!report.files[0].written);
    assert_eq!(report.files[0].backup_path, None);
    assert_eq!(
        std::os::unix::fs::MetadataExt::ino(&fs::metadata(&a).unwrap()),
        ino
    );
    assert_eq!(fx.listing(), listing_of(&[("a", "same")]));
    assert!(fx.journal_is_empty());
}

#[test]
fn stale_files_are_reported_with_the_current_hash_and_nothing_is_written() {
    let fx = Fixture::new();
    fx.write("a", "a");
    let b = fx.write("b", "b");
    let changes = vec![fx.change("a", "A", false), fx.change("b", "B", false)];
    fs::write(&b, "b2").unwrap();
    let failure = fx.committer().commit(changes).unwrap_err();
    assert_eq!(failure.failed_index, Some(1));
    assert_eq!(failure.error.op, FsOp::Verify);
    let expected = read_file(&b, MAX).unwrap().sha256_hex();
    assert_eq!(
        failure.error.kind,
        FsErrorKind::Stale {
            current_sha256: expected
        }
    );
    assert_eq!(fx.listing(), listing_of(&[("a", "a"), ("b", "b2")]));
}

#[test]
fn the_same_file_twice_is_refused_even_through_a_symlink() {
    let fx = Fixture::new();
    fx.write("a", "a");
    symlink("a", fx.dir.path().join("l")).unwrap();
    let failure = fx
        .committer()
        .commit(vec![fx.change("a", "x", false), fx.change("l", "y", false)])
        .unwrap_err();
    assert_eq!(failure.error.kind, FsErrorKind::DuplicatePath);
    assert_eq!(failure.failed_index, Some(1));
    assert_eq!(fx.listing(), listing_of(&[("a", "a"), ("l", "-> a")]));
}

#[test]
fn a_backup_that_would_overwrite_another_edited_file_is_refused() {
    let fx = Fixture::new();
    fx.write("a", "a");
    fx.write("a.bak", "edited too");
    let failure = fx
        .committer()
        .commit(vec![
            fx.change("a", "A", true),
            fx.change("a.bak", "B", false),
        ])
        .unwrap_err();
    assert_eq!(
        (failure.error.kind.clone(), failure.error.op),
        (FsErrorKind::DuplicatePath, FsOp::Backup)
    );
    assert_eq!(failure.failed_index, Some(0));
    assert_eq!(
        fx.listing(),
        listing_of(&[("a", "a"), ("a.bak", "edited too")])
    );
}

/// Deletes the staged temp of `name` from inside the commit, after `after`
/// renames, so the next rename fails with ENOENT.
fn sabotage(fx: &Fixture, name: &'static str, after: usize) -> Committer {
    let dir = fx.dir.path().to_path_buf();
    fx.committer().with_hook(move |phase| {
        if phase == Phase::Renamed(after - 1) {
            for e in fs::read_dir(&dir).unwrap() {
                let n = e.unwrap().file_name().into_string().unwrap();
                if n.starts_with(&format!(".{name}.splice-"))
                    && n.ends_with(".tmp")
                    && !n.contains("bak")
                {
                    fs::remove_file(dir.join(n)).unwrap();
                }
            }
        }
    })
}

#[test]
fn a_failed_rename_rolls_back_earlier_renames_and_their_backups() {
    let fx = Fixture::new();
    for n in ["a", "b", "c"] {
        fx.write(n, &format!("old {n}"));
    }
    fx.write("a.bak", "old a.bak");
    let before = fx.listing();
    // Plan: a.bak, a, b.bak, b, c.bak, c. Break c's rename after 5 renames.
    let committer = sabotage(&fx, "c", 5);
    let changes = ["a", "b", "c"]
        .map(|n| fx.change(n, &format!("new {n}"), true))
        .to_vec();
    let failure = committer.commit(changes).unwrap_err();
    assert_eq!(failure.failed_index, Some(2));
    assert_eq!(
        (failure.error.kind.clone(), failure.error.op),
        (FsErrorKind::NotFound, FsOp::Rename)
    );
    assert_eq!(failure.renamed_before_failure, 2);
    assert_eq!(
        failure.rollback,
        RollbackOutcome {
            attempted: true,
            restored: 2,
            not_restored: Vec::new(),
            cleanup_complete: true
        }
    );
    assert_eq!(fx.listing(), before);
    assert!(fx.journal_is_empty());
}

/// Panics inside the commit at `phase`: the process state a crash leaves.
fn crash_at(fx: &Fixture, phase: Phase, changes: Vec<FileChange>) {
    let committer = fx.committer().with_hook(move |p| {
        if p == phase {
            panic!("simulated crash at {p:?}");
        }
    });
    let result = catch_unwind(AssertUnwindSafe(|| committer.commit(changes)));
    assert!(result.is_err(), "no crash at {phase:?}");
}

#[test]
fn recovery_after_a_crash_at_every_phase_leaves_all_old_or_all_new() {
    let phases = [
        Phase::Locked,
        Phase::Begun,
        Phase::Staged,
        Phase::Prepared,
        Phase::Renamed(0),
        Phase::Renamed(2),
        Phase::Committed,
    ];
    for phase in phases {
        let fx = Fixture::new();
        for n in ["a", "b"] {
            fx.write(n, &format!("old {n}"));
        }
        fx.write("b.bak", "old b.bak");
        let before = fx.listing();
        let changes = vec![fx.change("a", "new a", true), fx.change("b", "new b", true)];
        crash_at(&fx, phase, changes);

        let report = fx.committer().recover().unwrap();
        let expect_new = phase == Phase::Committed;
        if phase == Phase::Locked {
            assert!(report.transactions.is_empty(), "{phase:?}: {report:?}");
        } else {
            assert_eq!(report.transactions.len(), 1, "{phase:?}");
            let t = &report.transactions[0];
            assert!(t.problems.is_empty(), "{phase:?}: {:?}", t.problems);
            let outcome = match phase {
                Phase::Committed => RecoveryOutcome::Completed,
                Phase::Begun | Phase::Staged => RecoveryOutcome::Discarded,
                _ => RecoveryOutcome::RolledBack,
            };
            assert_eq!(t.outcome, outcome, "{phase:?}");
        }
        if expect_new {
            assert_eq!(
                fx.listing(),
                listing_of(&[
                    ("a", "new a"),
                    ("a.bak", "old a"),
                    ("b", "new b"),
                    ("b.bak", "old b")
                ])
            );
        } else {
            assert_eq!(fx.listing(), before, "{phase:?}");
        }
        assert!(fx.journal_is_empty(), "{phase:?}");
        // Idempotent: a second recovery finds nothing to do.
        assert!(fx.committer().recover().unwrap().transactions.is_empty());
    }
}

#[test]
fn recovery_waits_for_file_locks_and_defers_when_they_stay_held() {
    let fx = Fixture::new();
    fx.write("a", "old a");
    fx.write("b", "old b");
    let before = fx.listing();
    let changes = vec![
        fx.change("a", "new a", false),
        fx.change("b", "new b", false),
    ];
    crash_at(&fx, Phase::Renamed(0), changes);

    // Another process's commit holds b's lock.
    let b = read_file(&fx.dir.path().join("b"), MAX).unwrap();
    let held = lock::lock_file(&b.dir, &b.name, &b.path, Duration::from_secs(1)).unwrap();
    let impatient = fx.committer().lock_timeout(Duration::from_millis(50));
    let report = impatient.recover().unwrap();
    assert_eq!(report.transactions[0].outcome, RecoveryOutcome::Deferred);
    assert_eq!(report.transactions[0].problems[0].kind, FsErrorKind::Busy);
    assert_eq!(fx.listing()["a"], "new a", "nothing touched while deferred");
    assert!(!fx.journal_is_empty(), "journal kept for the next run");

    drop(held);
    let report = fx.committer().recover().unwrap();
    assert_eq!(report.transactions[0].outcome, RecoveryOutcome::RolledBack);
    assert_eq!(report.transactions[0].restored, 1);
    assert_eq!(fx.listing(), before);
    assert!(fx.journal_is_empty());
}

#[test]
fn recovery_skips_the_journal_of_a_live_commit() {
    let fx = Fixture::new();
    fx.write("a", "old");
    fx.write("b", "old b");
    let journal_dir = fx.journal.path().to_path_buf();
    let seen = Arc::new(AtomicUsize::new(usize::MAX));
    let seen2 = seen.clone();
    let committer = fx.committer().with_hook(move |p| {
        if p == Phase::Prepared {
            let other = Committer::new(journal_dir.clone(), AnswerGate::new()).unwrap();
            let report = other.recover().unwrap();
            seen2.store(
                report.skipped_live * 10 + report.transactions.len(),
                Ordering::SeqCst,
            );
        }
    });
    committer
        .commit(vec![
            fx.change("a", "new", false),
            fx.change("b", "new b", false),
        ])
        .unwrap();
    assert_eq!(
        seen.load(Ordering::SeqCst),
        10,
        "one live journal skipped, none recovered"
    );
    assert_eq!(fx.listing(), listing_of(&[("a", "new"), ("b", "new b")]));
}

#[test]
fn concurrent_overlapping_commits_lose_no_update_and_do_not_deadlock() {
    const THREADS: usize = 8;
    const ROUNDS: usize = 25;
    const FILES: usize = 6;
    let fx = Arc::new(Fixture::new());
    for f in 0..FILES {
        fx.write(&format!("f{f}"), "0");
    }
    let committer = Arc::new(fx.committer().durable(false));
    let expected: Vec<AtomicUsize> = (0..FILES).map(|_| AtomicUsize::new(0)).collect();
    let expected = Arc::new(expected);
    let stale_retries = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (fx, committer, expected, stale_retries) = (
                fx.clone(),
                committer.clone(),
                expected.clone(),
                stale_retries.clone(),
            );
            std::thread::spawn(move || {
                for round in 0..ROUNDS {
                    // Overlapping sets, listed in varying orders.
                    let mut set: Vec<usize> = (0..3).map(|k| (t + round + k * 2) % FILES).collect();
                    set.sort();
                    set.dedup();
                    if (t + round) % 2 == 1 {
                        set.reverse();
                    }
                    loop {
                        let changes: Vec<FileChange> = set
                            .iter()
                            .map(|f| {
                                let snapshot =
                                    read_file(&fx.dir.path().join(format!("f{f}")), MAX).unwrap();
                                let n: usize = std::str::from_utf8(&snapshot.bytes)
                                    .unwrap()
                                    .parse()
                                    .unwrap();
                                FileChange {
                                    snapshot,
                                    new_bytes: (n + 1).to_string().into_bytes(),
                                    backup: false,
                                }
                            })
                            .collect();
                        match committer.commit(changes) {
                            Ok(_) => break,
                            Err(f) if matches!(f.error.kind, FsErrorKind::Stale { .. }) => {
                                stale_retries.fetch_add(1, Ordering::Relaxed);
                            }
                            Err(f) => panic!("unexpected failure: {f:?}"),
                        }
                    }
                    for f in &set {
                        expected[*f].fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    for h in handles {
        while !h.is_finished() {
            assert!(
                std::time::Instant::now() < deadline,
                "deadlock: threads still running after 60 s"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        h.join().unwrap();
    }
    for f in 0..FILES {
        let n: usize = fs::read_to_string(fx.dir.path().join(format!("f{f}")))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            n,
            expected[f].load(Ordering::Relaxed),
            "lost update on f{f}"
        );
    }
    assert!(fx.listing().keys().all(|k| !k.contains(".splice-")));
    assert!(fx.journal_is_empty());
}

/// Every name under `dir`, recursively (directories end in `/`), with the
/// content of files.
fn tree_of(dir: &Path) -> BTreeMap<String, String> {
    fn walk(top: &Path, at: &Path, out: &mut BTreeMap<String, String>) {
        for e in fs::read_dir(at).unwrap() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(top).unwrap().display().to_string();
            if e.file_type().unwrap().is_dir() {
                out.insert(format!("{rel}/"), String::new());
                walk(top, &e.path(), out);
            } else {
                out.insert(rel, fs::read_to_string(e.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// An edit, a creation in two new directories, a deletion and a move (a
/// deletion plus a creation keeping the mode).
fn mixed_changes(fx: &Fixture) -> Vec<PathChange> {
    let handles = crate::sandbox::Handles::open(&[fx.dir.path().canonicalize().unwrap()]).unwrap();
    let roots = [fx.dir.path().canonicalize().unwrap()];
    let absent = |rel: &str| match crate::sandbox::locate_new(&handles, &roots, &roots[0].join(rel))
        .unwrap()
    {
        crate::sandbox::Found::Absent(a) => a,
        crate::sandbox::Found::Existing(l) => panic!("{} exists", l.path.display()),
    };
    let snap = |rel: &str| read_file(&roots[0].join(rel), MAX).unwrap();
    let m = snap("m");
    vec![
        PathChange::from(fx.change("e", "new e", false)),
        PathChange {
            before: Before::Absent(absent("p/q/c")),
            after: Some(b"created".to_vec()),
            like: None,
            mode: None,
            backup: false,
        },
        PathChange {
            before: Before::Present(snap("d")),
            after: None,
            like: None,
            mode: None,
            backup: false,
        },
        PathChange {
            before: Before::Absent(absent("m2")),
            after: Some(m.bytes.clone()),
            like: Some(m.metadata.clone()),
            mode: None,
            backup: false,
        },
        PathChange {
            before: Before::Present(m),
            after: None,
            like: None,
            mode: None,
            backup: false,
        },
    ]
}

#[test]
fn creations_deletions_and_moves_commit_and_recover_at_every_phase() {
    let phases = [
        None,
        Some(Phase::Locked),
        Some(Phase::Begun),
        Some(Phase::Staged),
        Some(Phase::Prepared),
        Some(Phase::Renamed(0)),
        Some(Phase::Renamed(2)),
        Some(Phase::Renamed(4)),
        Some(Phase::Committed),
    ];
    for phase in phases {
        let fx = Fixture::new();
        fx.write("e", "old e");
        fx.write("d", "old d");
        let m = fx.write("m", "old m");
        fs::set_permissions(&m, fs::Permissions::from_mode(0o740)).unwrap();
        let before = tree_of(fx.dir.path());
        let changes = mixed_changes(&fx);
        let never = |_: usize, _: &File| Ok::<_, std::convert::Infallible>(None);
        match phase {
            None => {
                let report = fx
                    .committer()
                    .commit_paths(changes, Wait::PATIENT, never)
                    .unwrap();
                assert!(report.files.iter().all(|f| f.written));
            }
            Some(phase) => {
                let committer = fx.committer().with_hook(move |p| {
                    if p == phase {
                        panic!("simulated crash at {p:?}");
                    }
                });
                let r = catch_unwind(AssertUnwindSafe(|| {
                    committer.commit_paths(changes, Wait::PATIENT, never)
                }));
                assert!(r.is_err(), "no crash at {phase:?}");
                let report = fx.committer().recover().unwrap();
                for t in &report.transactions {
                    assert!(t.problems.is_empty(), "{phase:?}: {:?}", t.problems);
                }
            }
        }
        let expect_new = matches!(phase, None | Some(Phase::Committed));
        if expect_new {
            assert_eq!(
                tree_of(fx.dir.path()),
                listing_of(&[
                    ("e", "new e"),
                    ("m2", "old m"),
                    ("p/", ""),
                    ("p/q/", ""),
                    ("p/q/c", "created")
                ]),
                "{phase:?}"
            );
            let mode = fs::metadata(fx.dir.path().join("m2"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o7777, 0o740, "a moved file keeps its mode");
        } else {
            assert_eq!(tree_of(fx.dir.path()), before, "{phase:?}");
        }
        assert!(fx.journal_is_empty(), "{phase:?}");
        assert!(fx.committer().recover().unwrap().transactions.is_empty());
    }
}

#[test]
fn a_creation_never_replaces_a_file_that_appeared_since_it_was_resolved() {
    let fx = Fixture::new();
    fx.write("e", "old e");
    fx.write("d", "old d");
    fx.write("m", "old m");
    let changes = mixed_changes(&fx);
    // Another process creates the move's destination after resolution.
    fx.write("m2", "someone else's");
    let before = tree_of(fx.dir.path());
    let never = |_: usize, _: &File| Ok::<_, std::convert::Infallible>(None);
    let err = fx
        .committer()
        .commit_paths(changes, Wait::PATIENT, never)
        .unwrap_err();
    let CommitError::Failed(f) = err else {
        panic!("{err:?}")
    };
    assert_eq!(f.error.kind, FsErrorKind::AlreadyExists(None));
    assert_eq!(f.failed_index, Some(3));
    assert_eq!(tree_of(fx.dir.path()), before);
    assert!(fx.journal_is_empty());
}

/// A recovery interrupted after it removed a created directory (found by
/// `scripts/fault-points`, `splice recover` killed mid-rollback): the next
/// recovery skips what was in it and finishes.
#[test]
fn a_recovery_interrupted_after_removing_a_created_directory_is_finished() {
    let fx = Fixture::new();
    fx.write("e", "old e");
    fx.write("d", "old d");
    fx.write("m", "old m");
    let before = tree_of(fx.dir.path());
    let changes = mixed_changes(&fx);
    let committer = fx.committer().with_hook(|p| {
        if p == Phase::Renamed(4) {
            panic!("simulated crash at {p:?}");
        }
    });
    let never = |_: usize, _: &File| Ok::<_, std::convert::Infallible>(None);
    let r = catch_unwind(AssertUnwindSafe(|| {
        committer.commit_paths(changes, Wait::PATIENT, never)
    }));
    assert!(r.is_err());
    // What the interrupted rollback had done: the created file and its
    // directories gone, the rest not yet.
    let p = fx.dir.path().join("p");
    for entry in fs::read_dir(p.join("q")).unwrap() {
        fs::remove_file(entry.unwrap().path()).unwrap();
    }
    fs::remove_dir(p.join("q")).unwrap();
    fs::remove_dir(&p).unwrap();
    let report = fx.committer().recover().unwrap();
    assert_eq!(report.transactions.len(), 1);
    let t = &report.transactions[0];
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    assert_eq!(t.outcome, RecoveryOutcome::RolledBack);
    assert_eq!(tree_of(fx.dir.path()), before);
    assert!(fx.journal_is_empty());
}

/// A power loss during staging can drop a temp's directory entry (not yet
/// fsynced) and keep the undo link beside it, while the journal holds only
/// its `begin` record. The target is still the original, so nothing was
/// renamed: recovery discards the transaction instead of refusing it
/// (found by scripts/power-loss).
#[test]
fn a_begun_journal_whose_temp_a_power_loss_dropped_is_discarded() {
    let fx = Fixture::new();
    fx.write("a", "old a");
    fx.write("b", "old b");
    let before = fx.listing();
    let changes = vec![
        fx.change("a", "new a", false),
        fx.change("b", "new b", false),
    ];
    crash_at(&fx, Phase::Prepared, changes);
    // The power loss: the journal's records after `begin` and a's temp gone.
    for e in fs::read_dir(fx.journal.path()).unwrap() {
        let p = e.unwrap().path();
        let text = fs::read_to_string(&p).unwrap();
        let begin = text.split_inclusive('\n').next().unwrap().to_string();
        assert!(begin.starts_with("begin "), "{text}");
        fs::write(&p, begin).unwrap();
    }
    let mut dropped = 0;
    for e in fs::read_dir(fx.dir.path()).unwrap() {
        let n = e.unwrap().file_name().into_string().unwrap();
        if n.starts_with(".a.splice-") && n.ends_with(".tmp") {
            fs::remove_file(fx.dir.path().join(n)).unwrap();
            dropped += 1;
        }
    }
    assert_eq!(dropped, 1);
    let report = fx.committer().recover().unwrap();
    assert_eq!(report.transactions.len(), 1);
    let t = &report.transactions[0];
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    assert_eq!(t.outcome, RecoveryOutcome::Discarded);
    assert_eq!(fx.listing(), before);
    assert!(fx.journal_is_empty());
}

/// A commit lists its directory for an interrupted commit's names only the
/// first time this process commits there; later commits probe only their own
/// files' names. Names another server's crash leaves for another file wait
/// for that file's next commit, or for the next process (server start).
#[test]
fn a_directory_is_listed_once_then_only_the_committed_files_names_are_probed() {
    let fx = Fixture::new();
    fx.write("a.txt", "one");
    let b = fx.write("b.txt", "kept");
    let c = fx.committer();
    let dir = crate::sandbox::Dir::open_nofollow(fx.dir.path()).unwrap();
    assert!(
        !c.swept_dirs.holds(&dir),
        "nothing is known before a commit"
    );
    c.commit(vec![fx.change("a.txt", "two", false)]).unwrap();
    assert!(
        c.swept_dirs.holds(&dir),
        "a clean sweep marks its directory"
    );

    // An interrupted commit of b.txt, as a crash of another server leaves it:
    // its temp and its undo link.
    let plant = || {
        fs::write(fx.dir.path().join(".b.txt.splice.tmp"), "half").unwrap();
        fs::hard_link(&b, fx.dir.path().join(".b.txt.splice.undo")).unwrap();
    };
    plant();
    c.commit(vec![fx.change("a.txt", "three", false)]).unwrap();
    assert!(
        fx.dir.path().join(".b.txt.splice.tmp").exists(),
        "a swept directory is not listed again"
    );
    // b.txt's own next commit finds its names and rolls them back first.
    c.commit(vec![fx.change("b.txt", "new b", false)]).unwrap();
    assert_eq!(
        fx.listing(),
        listing_of(&[("a.txt", "three"), ("b.txt", "new b")])
    );
    assert!(c.swept_dirs.holds(&dir));

    // A new process lists the directory at its first commit there.
    fx.write("b.txt", "kept");
    plant();
    fx.committer()
        .commit(vec![fx.change("a.txt", "four", false)])
        .unwrap();
    assert_eq!(
        fx.listing(),
        listing_of(&[("a.txt", "four"), ("b.txt", "kept")])
    );
}
