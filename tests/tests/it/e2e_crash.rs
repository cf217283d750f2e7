//! SIGKILL of the real binary at random points of a commit, then `splice
//! recover`: every file set comes out entirely old or entirely new, with no
//! staging name, journal or stray directory left. The transaction is the
//! mixed one of `splice_tests::fixtures::MixedTree` (edits, creations in a
//! new directory, deletions, moves into another), run forward and, undone,
//! backward. Kills in single-file and plain multi-file commits are in
//! splice-server's `commit_crash` tests; every kill point enumerated is in
//! `scripts/fault-points`.
//!
//! `SPLICE_CRASH_ITERATIONS` sets the number of kills; `scripts/soak-crash`
//! runs thousands.

use std::time::Duration;

use serde_json::json;
use splice_tests::fixtures::{MixedTree, root, tree};
use splice_tests::harness::{Killable, kill_mid_call_then_recover};

fn iterations(default: usize) -> usize {
    std::env::var("SPLICE_CRASH_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The next kill delay from a xorshift state.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

/// SIGKILL at random points of mixed transactions (5 edits, 5 creations
/// in a new directory, 5 deletions, 5 moves into another new directory),
/// then `splice recover`: the tree is entirely the old one or entirely the
/// new one, with no staging name, journal or stray directory.
#[test]
fn sigkill_during_mixed_transactions_leaves_all_old_or_all_new() {
    let iterations = iterations(60);
    let (_d, r) = root();
    let journal = tempfile::tempdir().unwrap();
    let undo_store = tempfile::tempdir().unwrap();
    let mixed = MixedTree { n: 5 };
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut outcomes = [0usize; 2];
    let mut window_us: u64 = 30_000;
    for iteration in 0..iterations {
        // Widen the window while fewer than a quarter of the kills come
        // after the commit (a loaded machine commits more slowly).
        if iteration > 0 && iteration % 10 == 0 && outcomes[1] * 4 < iteration {
            window_us = (window_us * 2).min(2_000_000);
        }
        // Start from the old tree each time.
        mixed.reset(&r);
        let delay = next(&mut seed) % window_us;
        kill_mid_call_then_recover(
            &r,
            journal.path(),
            &["--undo-dir".as_ref(), undo_store.path().as_os_str()],
            json!({
            "name": "multi_edit_files", "arguments": mixed.forward(&r)}),
            Duration::from_micros(delay),
        );
        let now = mixed.read(&r);
        let dirs: Vec<String> = tree(&r).into_iter().filter(|n| n.ends_with('/')).collect();
        if now == mixed.before() {
            assert!(dirs.is_empty(), "old tree with directories left: {dirs:?}");
            outcomes[0] += 1;
        } else if now == mixed.after() {
            assert_eq!(dirs, ["created/", "moved/"]);
            outcomes[1] += 1;
        } else {
            panic!(
                "iteration {iteration}: neither all old nor all new: {:?}",
                now.iter().map(|(n, _)| n).collect::<Vec<_>>()
            );
        }
        assert_eq!(
            std::fs::read_dir(journal.path()).unwrap().count(),
            0,
            "journal left"
        );
    }
    eprintln!(
        "mixed crash test: {} all-old, {} all-new (kill window {} ms)",
        outcomes[0],
        outcomes[1],
        window_us / 1000
    );
    assert!(
        outcomes[1] > 0,
        "no iteration completed a commit; the kill window is too short"
    );
}

/// SIGKILL at random points of an `undo` of a mixed transaction (4 edits,
/// 4 creations in a new directory, 4 deletions, 4 moves into another),
/// then `splice recover`: the files are entirely as the transaction left
/// them or entirely as before it, with no staging name and no journal left.
#[test]
fn sigkill_during_an_undo_leaves_all_old_or_all_new() {
    let iterations = iterations(30);
    let (_d, r) = root();
    let journal = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let mixed = MixedTree { n: 4 };
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut outcomes = [0usize; 2]; // [not undone, undone]
    let mut window_us: u64 = 20_000;
    for iteration in 0..iterations {
        if iteration > 0 && iteration % 10 == 0 && outcomes[1] * 4 < iteration {
            window_us = (window_us * 2).min(2_000_000);
        }
        mixed.reset(&r);
        let delay = next(&mut seed) % window_us;
        let mut server = Killable::start(
            &r,
            journal.path(),
            &["--undo-dir".as_ref(), store.path().as_os_str()],
        );
        server.call(
            1,
            json!({"name": "multi_edit_files", "arguments": mixed.forward(&r)}),
        );
        let answer = server.read();
        let id = answer["result"]["structuredContent"]["transaction_id"]
            .as_str()
            .unwrap_or_else(|| panic!("no transaction_id in {answer:#}"))
            .to_string();
        assert_eq!(mixed.read(&r), mixed.after());
        server.call(
            2,
            json!({"name": "undo", "arguments": {"transaction_id": id}}),
        );
        server.kill_then_recover(&r, journal.path(), Duration::from_micros(delay));
        let now = mixed.read(&r);
        if now == mixed.after() {
            outcomes[0] += 1;
        } else if now == mixed.before() {
            outcomes[1] += 1;
        } else {
            panic!(
                "iteration {iteration}: neither all old nor all new: {:?}",
                now.iter().map(|(n, _)| n).collect::<Vec<_>>()
            );
        }
        assert_eq!(
            std::fs::read_dir(journal.path()).unwrap().count(),
            0,
            "journal left"
        );
    }
    eprintln!(
        "undo crash test: {} not undone, {} undone (kill window {} ms)",
        outcomes[0],
        outcomes[1],
        window_us / 1000
    );
}
