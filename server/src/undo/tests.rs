//! The store through its public face and its files: what is recorded
//! reads back, bounds drop the oldest, segments go once empty, torn and
//! damaged records are refused, older layouts are still read.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::json;

use super::record::RecordFile;
use super::*;
use crate::answer_gate::AnswerGate;
use crate::fsio::sha256_hex;

fn edit(path: &str, before: &[u8], after: &[u8]) -> PathRecord {
    PathRecord {
        path: PathBuf::from(path),
        operation: Operation::Edit,
        before: Some((before.to_vec(), 0o644)),
        after_sha256: Some(sha256_hex(after)),
    }
}

fn store(dir: &Path, limits: UndoLimits) -> UndoStore {
    UndoStore::open(dir.join("undo"), limits, AnswerGate::new()).unwrap()
}

/// The segment files in the store `dir`, oldest first.
fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("log-"))
        .collect();
    out.sort();
    out
}

fn ids_of(s: &UndoStore) -> Vec<TransactionId> {
    s.list(100)
        .unwrap()
        .into_iter()
        .map(|t| t.transaction_id)
        .collect()
}

#[test]
fn a_transaction_reads_back_as_recorded_after_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let tx = Transaction::now(
        "multi_edit_files",
        None,
        vec![
            edit("/r/a.rs", b"old a", b"new a"),
            PathRecord {
                path: PathBuf::from("/r/new.rs"),
                operation: Operation::Create,
                before: None,
                after_sha256: Some(sha256_hex(b"created")),
            },
            PathRecord {
                path: PathBuf::from("/r/gone.rs"),
                operation: Operation::Delete,
                before: Some((b"deleted".to_vec(), 0o600)),
                after_sha256: None,
            },
        ],
    );
    assert_eq!(
        store(tmp.path(), UndoLimits::default())
            .record(&tx)
            .unwrap(),
        Recorded::Stored
    );
    // Another server process, later.
    let again = store(tmp.path(), UndoLimits::default());
    assert_eq!(again.get(&tx.id).unwrap().as_ref(), Some(&tx));
    let listed = again.list(10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].transaction_id, tx.id);
    assert_eq!(listed[0].stored_bytes, 12);
    assert_eq!(
        listed[0]
            .files
            .iter()
            .map(|f| f.operation)
            .collect::<Vec<_>>(),
        [Operation::Edit, Operation::Create, Operation::Delete]
    );
}

#[test]
fn the_oldest_go_first_when_a_bound_is_reached() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(
        tmp.path(),
        UndoLimits {
            max_transactions: 3,
            max_bytes: 100,
        },
    );
    let mut ids = Vec::new();
    for i in 0..5 {
        let tx = Transaction::now("multi_edit", None, vec![edit("/r/a", &[b'x'; 10], &[i])]);
        s.record(&tx).unwrap();
        ids.push(tx.id);
    }
    let listed: Vec<TransactionId> = s
        .list(10)
        .unwrap()
        .into_iter()
        .map(|t| t.transaction_id)
        .collect();
    assert_eq!(listed, [ids[4].clone(), ids[3].clone(), ids[2].clone()]);

    // 60 bytes more: only what fits in 100 bytes stays, the new one first.
    let big = Transaction::now("multi_edit", None, vec![edit("/r/b", &[b'y'; 60], b"z")]);
    s.record(&big).unwrap();
    let listed: Vec<TransactionId> = s
        .list(10)
        .unwrap()
        .into_iter()
        .map(|t| t.transaction_id)
        .collect();
    assert_eq!(listed, [big.id.clone(), ids[4].clone(), ids[3].clone()]);

    // Alone over the bound: not kept, nothing else dropped.
    let huge = Transaction::now("multi_edit", None, vec![edit("/r/c", &[0; 101], b"z")]);
    assert_eq!(s.record(&huge).unwrap(), Recorded::TooLarge);
    assert_eq!(s.list(10).unwrap().len(), 3);
}

#[test]
fn records_append_to_segments_that_go_once_all_their_records_are_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    // A segment holds a quarter of the bounds: 2 records here.
    let limits = UndoLimits {
        max_transactions: 8,
        max_bytes: 1000,
    };
    let s = store(tmp.path(), limits);
    let mut ids = Vec::new();
    for n in 0..12u8 {
        let tx = Transaction::now("multi_edit", None, vec![edit("/r/a", &[n; 10], &[n])]);
        s.record(&tx).unwrap();
        ids.push(tx.id);
    }
    // Records 0-3 are dropped, and their two segments with them; the
    // other four stay, no file per record.
    assert_eq!(
        ids_of(&s),
        ids[4..].iter().rev().cloned().collect::<Vec<_>>()
    );
    assert_eq!(segments(s.dir()).len(), 4);
    assert_eq!(fs::read_dir(s.dir()).unwrap().count(), 4);
    assert_eq!(s.get(&ids[3]).unwrap(), None);
    assert!(s.get(&ids[4]).unwrap().is_some());
    drop(s);
    // Another server process, later, sees the same window.
    let again = store(tmp.path(), limits);
    assert_eq!(
        ids_of(&again),
        ids[4..].iter().rev().cloned().collect::<Vec<_>>()
    );
}

#[test]
fn pruning_weighs_what_another_server_recorded_and_removes_only_abandoned_segments() {
    let tmp = tempfile::tempdir().unwrap();
    let limits = UndoLimits {
        max_transactions: 2,
        max_bytes: 1000,
    };
    let a = store(tmp.path(), limits);
    let b = store(tmp.path(), limits);
    let tx = |n: u8| Transaction::now("multi_edit", None, vec![edit("/r/a", &[n; 10], &[n])]);
    let (t1, t2, t3, t4) = (tx(1), tx(2), tx(3), tx(4));
    a.record(&t1).unwrap();
    a.record(&t2).unwrap();
    let of_a = segments(a.dir());
    // `b` never saw t1 or t2: it reads a's segments, weighs them, and
    // drops t1; an undo through `a` sees the same.
    b.record(&t3).unwrap();
    let of_b: Vec<PathBuf> = segments(b.dir())
        .into_iter()
        .filter(|p| !of_a.contains(p))
        .collect();
    assert_eq!(of_b.len(), 1);
    assert_eq!(ids_of(&b), [t3.id.clone(), t2.id.clone()]);
    assert_eq!(a.get(&t1.id).unwrap(), None);
    assert_eq!(a.get(&t2.id).unwrap().as_ref(), Some(&t2));
    // One record per segment at these bounds. a's segments of t1 and
    // t2, closed and dropped, are removed by a; b's stays.
    a.record(&t4).unwrap();
    assert_eq!(ids_of(&a), [t4.id.clone(), t3.id.clone()]);
    assert!(of_a.iter().all(|p| !p.exists()), "{:?}", segments(a.dir()));
    assert_eq!(segments(a.dir()).len(), 2);
    // t3 is dropped too, but b is alive and holds its segment's lock:
    // nobody else removes it.
    let t5 = tx(5);
    *a.shared.listed_at.lock().unwrap() = None;
    a.record(&t5).unwrap();
    assert_eq!(ids_of(&a), [t5.id.clone(), t4.id.clone()]);
    assert!(of_b[0].exists());
    assert_eq!(b.get(&t3.id).unwrap(), None);
    // b exits: its segment, all dropped, goes at a's next listing.
    drop(b);
    *a.shared.listed_at.lock().unwrap() = None;
    let t6 = tx(6);
    a.record(&t6).unwrap();
    a.settle(); // the prune runs on the store's thread
    assert!(!of_b[0].exists());
    assert_eq!(segments(a.dir()).len(), 2);
    assert_eq!(ids_of(&a), [t6.id.clone(), t5.id.clone()]);
}

#[test]
fn a_torn_segment_gives_its_whole_records_only() {
    use std::io::Write as _;
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path(), UndoLimits::default());
    let t1 = Transaction::now("multi_edit", None, vec![edit("/r/a", b"one", b"1")]);
    s.record(&t1).unwrap();
    drop(s);
    let seg = segments(&tmp.path().join("undo")).pop().unwrap();
    let whole = fs::read(&seg).unwrap();
    // A record line whose contents are not all there (cut by a crash,
    // or its writer is appending right now): not listed.
    let t2 = Transaction::now("multi_edit", None, vec![edit("/r/b", b"two!", b"2")]);
    let mut line = serde_json::to_vec(&RecordFile::of(&t2).unwrap()).unwrap();
    line.push(b'\n');
    fs::OpenOptions::new()
        .append(true)
        .open(&seg)
        .unwrap()
        .write_all(&[&line[..], b"tw"].concat())
        .unwrap();
    let again = store(tmp.path(), UndoLimits::default());
    assert_eq!(ids_of(&again), std::slice::from_ref(&t1.id));
    // Once they are, it is (read on from where the reader stopped).
    fs::OpenOptions::new()
        .append(true)
        .open(&seg)
        .unwrap()
        .write_all(b"o!")
        .unwrap();
    assert_eq!(ids_of(&again), [t2.id.clone(), t1.id.clone()]);
    assert_eq!(again.get(&t2.id).unwrap().as_ref(), Some(&t2));
    // A whole line that does not parse (what a power loss leaves):
    // the records before it stay usable, nothing after it is read.
    fs::write(
        &seg,
        [&whole[..], &[0u8; 40][..], b"\n", &line[..], b"two!"].concat(),
    )
    .unwrap();
    let third = store(tmp.path(), UndoLimits::default());
    assert_eq!(ids_of(&third), std::slice::from_ref(&t1.id));
    assert_eq!(third.get(&t1.id).unwrap().as_ref(), Some(&t1));
    assert_eq!(third.get(&t2.id).unwrap(), None);
}

#[test]
fn damaged_content_is_refused_not_returned() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path(), UndoLimits::default());
    let tx = Transaction::now("multi_edit", None, vec![edit("/r/a", b"before", b"after")]);
    s.record(&tx).unwrap();
    let file = segments(s.dir()).pop().unwrap();
    let kept = fs::read(&file).unwrap();
    assert!(
        kept.ends_with(b"\nbefore"),
        "{}",
        String::from_utf8_lossy(&kept)
    );
    // The same length, other bytes.
    let mut other = kept.clone();
    let n = other.len();
    other[n - 6..].copy_from_slice(b"BEFORE");
    fs::write(&file, &other).unwrap();
    let err = s.get(&tx.id).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(err.to_string().contains("does not match its hash"), "{err}");
    // Torn (what a power loss can leave): refused.
    fs::write(&file, &kept[..n - 3]).unwrap();
    let err = s.get(&tx.id).unwrap_err();
    assert!(err.to_string().contains("does not match its hash"), "{err}");
    // Cut inside its record line: refused, and another process does
    // not list it.
    fs::write(&file, &kept[..10]).unwrap();
    let err = s.get(&tx.id).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(err.to_string().contains("cut short"), "{err}");
    let other_process = store(tmp.path(), UndoLimits::default());
    assert!(other_process.list(10).unwrap().is_empty());
    assert_eq!(other_process.get(&tx.id).unwrap(), None);
}

#[test]
fn a_store_in_the_directory_layout_is_still_read_listed_and_pruned() {
    let tmp = tempfile::tempdir().unwrap();
    let limits = UndoLimits {
        max_transactions: 1,
        max_bytes: 1000,
    };
    let s = store(tmp.path(), limits);
    // What an earlier splice wrote for one edit of /r/a.
    let old = TransactionId::new(0x19a2b3c4d5e);
    let dir = s.dir().join(old.as_str());
    fs::create_dir(&dir).unwrap();
    let record = json!({
        "format": 1, "id": old, "time_unix_ms": 0x19a2b3c4d5e_u64, "tool": "multi_edit",
        "paths": [{"path": "/r/a", "operation": "edit",
                   "before": {"sha256": sha256_hex(b"old"), "len": 3, "mode": 0o644},
                   "after_sha256": sha256_hex(b"new")}],
    });
    fs::write(dir.join("record.json"), record.to_string()).unwrap();
    fs::write(dir.join("before-0"), b"old").unwrap();
    let got = s.get(&old).unwrap().unwrap();
    assert_eq!(got.paths[0].before, Some((b"old".to_vec(), 0o644)));
    assert_eq!(s.list(10).unwrap()[0].stored_bytes, 3);
    fs::write(dir.join("before-0"), b"OLD").unwrap();
    assert!(
        s.get(&old)
            .unwrap_err()
            .to_string()
            .contains("does not match its hash")
    );
    // A new transaction over the bound of one: the directory goes.
    let tx = Transaction::now("multi_edit", None, vec![edit("/r/b", b"1", b"2")]);
    s.record(&tx).unwrap();
    let listed = s.list(10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].transaction_id, tx.id);
    assert!(!dir.exists());
}

#[test]
fn a_pending_transaction_is_kept_only_once_published() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path(), UndoLimits::default());
    let tx = Arc::new(Transaction::now(
        "multi_edit",
        None,
        vec![edit("/r/a", b"1", b"2")],
    ));
    let pending = s.begin(Arc::clone(&tx));
    assert_eq!(pending.id(), Some(&tx.id));
    // Nothing is written while its commit runs.
    assert_eq!(fs::read_dir(s.dir()).unwrap().count(), 0);
    assert_eq!(pending.publish().unwrap(), Recorded::Stored);
    // A reader waits for the write after the answer.
    assert_eq!(s.get(&tx.id).unwrap().as_ref(), Some(&*tx));
    assert_eq!(segments(s.dir()).len(), 1);

    // A failed commit drops its Pending: nothing is kept.
    let failed = Arc::new(Transaction::now(
        "multi_edit",
        None,
        vec![edit("/r/b", b"1", b"2")],
    ));
    drop(s.begin(Arc::clone(&failed)));
    assert_eq!(s.get(&failed.id).unwrap(), None);
    assert_eq!(
        fs::read_dir(s.dir()).unwrap().count(),
        1,
        "one segment, nothing else"
    );
    assert_eq!(s.list(10).unwrap().len(), 1);
}

#[test]
fn a_write_that_fails_after_the_answer_is_reported_not_lost_silently() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path(), UndoLimits::default());
    // The store's directory disappears under the server.
    fs::remove_dir(s.dir()).unwrap();
    let lost = Arc::new(Transaction::now(
        "multi_edit",
        None,
        vec![edit("/r/a", b"1", b"2")],
    ));
    // Answered as recorded: the write comes after the answer.
    assert_eq!(
        s.begin(Arc::clone(&lost)).publish().unwrap(),
        Recorded::Stored
    );
    // An undo of it learns why it cannot be undone, not "not found".
    let err = s.get(&lost.id).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENOENT), "{err}");
    // The next call records before its answer, so the answer says so.
    let next = Arc::new(Transaction::now(
        "multi_edit",
        None,
        vec![edit("/r/a", b"2", b"3")],
    ));
    let err = s.begin(Arc::clone(&next)).publish().unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENOENT), "{err}");
    // Once the store takes a write again, recording is after the answer again.
    fs::create_dir(s.dir()).unwrap();
    let back = Arc::new(Transaction::now(
        "multi_edit",
        None,
        vec![edit("/r/a", b"3", b"4")],
    ));
    assert_eq!(
        s.begin(Arc::clone(&back)).publish().unwrap(),
        Recorded::Stored
    );
    assert!(!s.shared.broken.load(Ordering::Relaxed));
    assert_eq!(s.get(&back.id).unwrap().as_ref(), Some(&*back));
    let later = Arc::new(Transaction::now(
        "multi_edit",
        None,
        vec![edit("/r/a", b"4", b"5")],
    ));
    assert_eq!(
        s.begin(Arc::clone(&later)).publish().unwrap(),
        Recorded::Stored
    );
    assert_eq!(s.get(&later.id).unwrap().as_ref(), Some(&*later));
}

#[test]
fn a_store_deleted_while_its_segment_is_open_is_reported_not_written_into() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path(), UndoLimits::default());
    let first = Transaction::now("multi_edit", None, vec![edit("/r/a", b"1", b"2")]);
    s.record(&first).unwrap();
    // `rm -rf` of the store while the server runs: the open segment is
    // unlinked, and a record appended to it could never be read.
    fs::remove_dir_all(s.dir()).unwrap();
    let lost = Arc::new(Transaction::now(
        "multi_edit",
        None,
        vec![edit("/r/a", b"2", b"3")],
    ));
    assert_eq!(
        s.begin(Arc::clone(&lost)).publish().unwrap(),
        Recorded::Stored
    );
    let err = s.get(&lost.id).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENOENT), "{err}");
}

#[test]
fn dropping_the_store_lets_queued_records_reach_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let tx = Arc::new(Transaction::now(
        "multi_edit",
        None,
        vec![edit("/r/a", b"1", b"2")],
    ));
    {
        let s = store(tmp.path(), UndoLimits::default());
        s.begin(Arc::clone(&tx)).publish().unwrap();
    }
    // Another process, later, without any reader in between.
    let again = store(tmp.path(), UndoLimits::default());
    assert_eq!(again.get(&tx.id).unwrap().as_ref(), Some(&*tx));
}

#[test]
fn ids_are_parsed_before_they_name_a_path() {
    let id = TransactionId::new(0x19a2b3c4d5e);
    assert_eq!(TransactionId::parse(id.as_str()), Some(id.clone()));
    for bad in [
        "",
        "../../etc",
        "019a2b3c4d5e-00001f2a",
        "019a2b3c4d5e-00001f2a-00000003-00000004",
        "019a2b3c4d5e-00001F2A-00000003",
        "19a2b3c4d5e-00001f2a-00000003",
        "019a2b3c4d5e-00001f2a-3",
        "019a2b3c4d5e-0000/../-00000003",
        ".tmp-019a2b3c4d5e-00001f2a-00000003",
    ] {
        assert_eq!(TransactionId::parse(bad), None, "{bad:?}");
    }
    assert!(serde_json::from_str::<TransactionId>("\"../x\"").is_err());
}

#[test]
fn a_half_written_transaction_is_removed_on_open_and_never_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path(), UndoLimits::default());
    let half = s.dir().join(".tmp-019a2b3c4d5e-00000001-00000000");
    fs::write(&half, b"{\"format\": 2").unwrap();
    // And one an earlier splice left, in the directory layout.
    let half_dir = s.dir().join(".tmp-019a2b3c4d5e-00000001-00000001");
    fs::create_dir(&half_dir).unwrap();
    fs::write(half_dir.join("before-0"), b"x").unwrap();
    assert!(s.list(10).unwrap().is_empty());
    let _ = store(tmp.path(), UndoLimits::default());
    assert!(!half.exists());
    assert!(!half_dir.exists());
}

#[test]
fn a_store_others_can_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("undo");
    fs::create_dir(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
    let err = UndoStore::open(dir, UndoLimits::default(), AnswerGate::new()).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
    assert!(err.to_string().contains("--undo-dir"), "{err}");
}
