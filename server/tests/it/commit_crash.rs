//! SIGKILL during commits, and two processes committing the same files.
//!
//! Both tests re-execute this test binary as the child (`--exact <child test>`
//! with an environment variable selecting the mode), so the child runs the
//! real `Committer` on the real file system and dies the way a killed server
//! does: no unwinding, no destructors, fds closed by the kernel.
//!
//! `SPLICE_CRASH_ITERATIONS` sets the number of kills (default 200);
//! `scripts/soak-crash` runs thousands.
//!
//! Where the files live: on a tmpfs when we are root (a 20-file commit takes
//! ~2 ms there, so kills land in every phase in proportion: staging, renames,
//! commit record, cleanup), else in the temp dir; `SPLICE_CRASH_ON_DISK=1`
//! forces the temp dir (fsync on: a commit can take 200 ms on a slow disk).
//! SIGKILL keeps the page cache, so fsync plays no part in what a kill can
//! break; both places test the same protocol.

use crate::faults;
use splice_server::answer_gate::AnswerGate;
use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use splice_server::commit::{Before, Committer, FileChange, PathChange, RecoveryOutcome, Wait};
use splice_server::fsio::{FsErrorKind, read_file};

const FILES: usize = 20;
const MAX: u64 = 1 << 20;
const MODE: u32 = 0o640;
const CHILD_DIR: &str = "SPLICE_CRASH_CHILD_DIR";
const CHILD_JOURNAL: &str = "SPLICE_CRASH_CHILD_JOURNAL";

/// The content of file `i` at generation `gen`: sizes vary with both, so a
/// torn or mixed write cannot look valid.
fn content(generation: u64, i: usize) -> Vec<u8> {
    let pad = (generation as usize * 7919 + i * 104_729) % 6000;
    format!(
        "gen {generation} file {i}\n{}\nend {generation} {i}\n",
        "x".repeat(pad)
    )
    .into_bytes()
}

fn generation_of(bytes: &[u8]) -> u64 {
    let text = std::str::from_utf8(bytes).expect("utf-8 content");
    let first = text.lines().next().unwrap_or_default();
    first
        .split(' ')
        .nth(1)
        .and_then(|g| g.parse().ok())
        .unwrap_or_else(|| panic!("corrupt file: {first:?}"))
}

fn has_backup(i: usize) -> bool {
    i.is_multiple_of(4)
}

/// A small xorshift generator; the seed is printed so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn seed() -> u64 {
    std::env::var("SPLICE_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        })
}

/// This test binary, set to run only the child test `test` (ignored unless
/// run this way), on one thread.
pub(crate) fn child(test: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        test,
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd
}

/// In a child test, the directory and the journal directory its parent
/// passed in `dir_var` and `journal_var`; `None` when the test runs on its
/// own (it then does nothing).
pub(crate) fn child_dirs(dir_var: &str, journal_var: &str) -> Option<(PathBuf, PathBuf)> {
    let dir = PathBuf::from(std::env::var_os(dir_var)?);
    let journal = PathBuf::from(std::env::var_os(journal_var).unwrap());
    Some((dir, journal))
}

/// Checks the invariant after a recovery and returns the files' generation.
fn check_all_old_or_all_new(dir: &Path) -> u64 {
    let mut generations = Vec::with_capacity(FILES);
    for i in 0..FILES {
        let path = dir.join(format!("f{i:02}"));
        let bytes = fs::read(&path).unwrap();
        let generation = generation_of(&bytes);
        assert_eq!(
            bytes,
            content(generation, i),
            "f{i:02} is not a whole generation"
        );
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
            MODE,
            "f{i:02} mode"
        );
        generations.push(generation);
    }
    let generation = generations[0];
    assert!(
        generations.iter().all(|&g| g == generation),
        "mixed generations: {generations:?}"
    );
    for i in (0..FILES).filter(|&i| has_backup(i)) {
        let bak = dir.join(format!("f{i:02}.bak"));
        if generation == 0 {
            assert!(!bak.exists(), "{} exists before any commit", bak.display());
        } else {
            let bytes = fs::read(&bak).unwrap();
            assert_eq!(
                bytes,
                content(generation - 1, i),
                "{} is not the previous generation",
                bak.display()
            );
        }
    }
    let leftovers: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains(".splice-"))
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");
    generation
}

#[test]
fn sigkill_at_random_points_then_recovery_leaves_all_old_or_all_new() {
    let iterations: usize = std::env::var("SPLICE_CRASH_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let seed = seed();
    let mut rng = Rng(seed);
    eprintln!("crash test: {iterations} iterations, SPLICE_CRASH_SEED={seed}");

    let on_disk = std::env::var_os("SPLICE_CRASH_ON_DISK").is_some_and(|v| v == "1");
    let tmpfs = if on_disk {
        None
    } else {
        faults::Tmpfs::mount(64 << 20).ok()
    };
    let disk_dir = tempfile::tempdir().unwrap();
    let dir = tmpfs.as_ref().map_or(disk_dir.path(), |t| t.path());
    eprintln!(
        "crash test: files in {}",
        if tmpfs.is_some() {
            "a tmpfs"
        } else {
            "the temp dir"
        }
    );
    let journal = tempfile::tempdir().unwrap();
    let journal_dir = match &tmpfs {
        Some(t) => t.path().join("journal"),
        None => journal.path().to_path_buf(),
    };
    for i in 0..FILES {
        let path = dir.join(format!("f{i:02}"));
        fs::write(&path, content(0, i)).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(MODE)).unwrap();
    }

    // Kill 0-20 ms into the child's run, or within two commit times where a
    // commit takes longer than 10 ms (fsync on a slow disk), so kills land in
    // every phase and commits still complete between kills.
    let one_commit = {
        let started = Instant::now();
        commit_next_generation(
            dir,
            &Committer::new(journal_dir.as_path().into(), AnswerGate::new()).unwrap(),
        );
        started.elapsed()
    };
    let window = Duration::from_millis(20).max(one_commit * 2).as_micros() as u64;
    eprintln!("crash test: one commit takes {one_commit:.1?}; kill window 0-{window} us");

    let started = Instant::now();
    let mut generation = 1;
    let (mut discarded, mut rolled_back, mut completed, mut clean) = (0, 0, 0, 0);
    // At least `iterations` kills, and more (up to four times as many) until a
    // quarter of them have landed inside a transaction: where a kill lands is
    // random, and the proof needs kills in every phase.
    let most = iterations * 4;
    let mut iteration = 0;
    while iteration < most
        && (iteration < iterations || discarded + rolled_back + completed < iterations / 4)
    {
        let mut proc = child("commit_crash::crash_child")
            .env(CHILD_DIR, dir)
            .env(CHILD_JOURNAL, journal_dir.as_path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the child is committing, then kill it within the window.
        let mut lines = BufReader::new(proc.stdout.take().unwrap()).lines();
        let ready = lines.any(|l| l.is_ok_and(|l| l.contains("crash-child: committing")));
        std::thread::sleep(Duration::from_micros(rng.next() % (window + 1)));
        proc.kill().unwrap();
        let output = proc.wait_with_output().unwrap();
        assert!(
            ready && output.status.signal() == Some(libc::SIGKILL),
            "iteration {iteration}: child did not run until killed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );

        let report = Committer::new(journal_dir.as_path().into(), AnswerGate::new())
            .unwrap()
            .recover()
            .unwrap();
        assert!(
            report.transactions.len() <= 1,
            "one child, one transaction at a time: {report:?}"
        );
        match report.transactions.first() {
            None => clean += 1,
            Some(t) => {
                assert!(
                    t.problems.is_empty() && t.conflicts.is_empty(),
                    "iteration {iteration}: {t:?}"
                );
                match t.outcome {
                    RecoveryOutcome::Discarded => discarded += 1,
                    RecoveryOutcome::RolledBack => rolled_back += 1,
                    RecoveryOutcome::Completed => completed += 1,
                    RecoveryOutcome::Corrupt | RecoveryOutcome::Deferred => {
                        panic!("iteration {iteration}: {:?}", t.outcome)
                    }
                }
            }
        }
        assert_eq!(
            fs::read_dir(journal_dir.as_path()).unwrap().count(),
            0,
            "journal left after recovery"
        );
        let now = check_all_old_or_all_new(dir);
        assert!(
            now >= generation,
            "iteration {iteration}: generation went back from {generation} to {now}"
        );
        generation = now;
        iteration += 1;
    }
    eprintln!(
        "crash test: {iteration} kills in {:.1?}; reached generation {generation}; recovery found \
         {discarded} staging, {rolled_back} mid-rename/prepared (rolled back), {completed} committed \
         (completed), {clean} between commits",
        started.elapsed()
    );
    // The kills must land inside transactions, or this test proves nothing.
    assert!(
        discarded + rolled_back + completed >= iterations / 4,
        "too few kills landed inside a transaction"
    );
    assert!(generation > 1, "no commit completed between kills");
}

/// The child of the crash test: commits generation after generation forever.
#[test]
#[ignore = "child process of sigkill_at_random_points_then_recovery_leaves_all_old_or_all_new"]
fn crash_child() {
    let Some((dir, journal)) = child_dirs(CHILD_DIR, CHILD_JOURNAL) else {
        return;
    };
    let committer = Committer::new(journal, AnswerGate::new()).unwrap();
    println!("crash-child: committing");
    loop {
        commit_next_generation(&dir, &committer);
    }
}

/// Reads the 20 files and commits their next generation.
fn commit_next_generation(dir: &Path, committer: &Committer) {
    let changes: Vec<FileChange> = (0..FILES)
        .map(|i| {
            let snapshot = read_file(&dir.join(format!("f{i:02}")), MAX).unwrap();
            let next = generation_of(&snapshot.bytes) + 1;
            FileChange {
                snapshot,
                new_bytes: content(next, i),
                backup: has_backup(i),
            }
        })
        .collect();
    committer.commit(changes).unwrap();
}

const MIXED_DIR: &str = "SPLICE_MIXED_CHILD_DIR";
const MIXED_JOURNAL: &str = "SPLICE_MIXED_CHILD_JOURNAL";
const KINDS: usize = 5;

/// The generation of a mixed tree (edits, creations, deletions, moves) and its check: `e{i}` hold
/// `content(g, i)`; `n{g}/c{i}` (created by the transaction that made
/// generation g, in a directory it created) hold `content(g, 100 + i)`;
/// every `n{h}` with h < g is empty (its files were deleted by the next
/// transaction), none with h > g exists; `mv/m{i}.g{g}` (moved once per
/// transaction, mode kept) hold `content(0, 200 + i)`. Nothing else.
fn check_mixed(dir: &Path) -> u64 {
    let g = generation_of(&fs::read(dir.join("e0")).unwrap());
    let mut want: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..KINDS {
        want.push((format!("e{i}"), content(g, i)));
        want.push((format!("n{g}/c{i}"), content(g, 100 + i)));
        want.push((format!("mv/m{i}.g{g}"), content(0, 200 + i)));
    }
    want.sort();
    let mut got: Vec<(String, Vec<u8>)> = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if e.file_type().unwrap().is_dir() {
            dirs.push(name.clone());
            for f in fs::read_dir(e.path()).unwrap() {
                let f = f.unwrap();
                let rel = format!("{name}/{}", f.file_name().into_string().unwrap());
                got.push((rel, fs::read(f.path()).unwrap()));
            }
        } else if name != "journal" {
            got.push((name.clone(), fs::read(e.path()).unwrap()));
        }
    }
    got.sort();
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&got),
        names(&want),
        "generation {g}: not a whole tree"
    );
    assert!(
        got == want,
        "generation {g}: a file holds another generation"
    );
    for i in 0..KINDS {
        let m = dir.join(format!("mv/m{i}.g{g}"));
        assert_eq!(
            fs::metadata(&m).unwrap().permissions().mode() & 0o7777,
            MODE
        );
    }
    for d in &dirs {
        if let Some(h) = d.strip_prefix('n').and_then(|h| h.parse::<u64>().ok()) {
            assert!(h <= g, "directory {d} of a transaction that did not commit");
        }
    }
    g
}

/// Reads a mixed tree and commits its next generation through
/// [`Committer::commit_paths`]: 5 edits, 5 creations in a new directory, 5
/// deletions, 5 moves.
fn commit_next_mixed(dir: &Path, committer: &Committer) {
    use splice_server::sandbox::{Found, Handles, locate_new};
    let roots = [dir.to_path_buf()];
    let handles = Handles::open(&roots).unwrap();
    let absent = |rel: String| match locate_new(&handles, &roots, &dir.join(rel)).unwrap() {
        Found::Absent(a) => Before::Absent(a),
        Found::Existing(l) => panic!("{} exists", l.path.display()),
    };
    let snap = |rel: String| read_file(&dir.join(rel), MAX).unwrap();
    let g = generation_of(&snap("e0".into()).bytes);
    let mut changes = Vec::new();
    for i in 0..KINDS {
        changes.push(PathChange {
            before: Before::Present(snap(format!("e{i}"))),
            after: Some(content(g + 1, i)),
            like: None,
            mode: None,
            backup: false,
        });
        changes.push(PathChange {
            before: absent(format!("n{}/c{i}", g + 1)),
            after: Some(content(g + 1, 100 + i)),
            like: None,
            mode: None,
            backup: false,
        });
        changes.push(PathChange {
            before: Before::Present(snap(format!("n{g}/c{i}"))),
            after: None,
            like: None,
            mode: None,
            backup: false,
        });
        let m = snap(format!("mv/m{i}.g{g}"));
        changes.push(PathChange {
            before: absent(format!("mv/m{i}.g{}", g + 1)),
            after: Some(m.bytes.clone()),
            like: Some(m.metadata.clone()),
            mode: None,
            backup: false,
        });
        changes.push(PathChange {
            before: Before::Present(m),
            after: None,
            like: None,
            mode: None,
            backup: false,
        });
    }
    let never = |_: usize, _: &fs::File| Ok::<_, std::convert::Infallible>(None);
    committer
        .commit_paths(changes, Wait::PATIENT, never)
        .unwrap();
}

#[test]
fn sigkill_at_random_points_in_mixed_transactions_leaves_all_old_or_all_new() {
    let iterations: usize = std::env::var("SPLICE_CRASH_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let seed = seed();
    let mut rng = Rng(seed);
    eprintln!("mixed crash test: {iterations} iterations, SPLICE_CRASH_SEED={seed}");
    // On a tmpfs when we can mount one (as the 20-edit test), so kills land
    // in every phase rather than mostly in the fsyncs of the staging.
    let on_disk = std::env::var_os("SPLICE_CRASH_ON_DISK").is_some_and(|v| v == "1");
    let tmpfs = if on_disk {
        None
    } else {
        faults::Tmpfs::mount(64 << 20).ok()
    };
    let scratch = tempfile::tempdir().unwrap();
    let base = tmpfs.as_ref().map_or(scratch.path(), |t| t.path());
    let dir = base.canonicalize().unwrap().join("tree");
    let journal = base.join("journal");
    fs::create_dir_all(dir.join("n0")).unwrap();
    fs::create_dir_all(dir.join("mv")).unwrap();
    for i in 0..KINDS {
        fs::write(dir.join(format!("e{i}")), content(0, i)).unwrap();
        fs::write(dir.join(format!("n0/c{i}")), content(0, 100 + i)).unwrap();
        let m = dir.join(format!("mv/m{i}.g0"));
        fs::write(&m, content(0, 200 + i)).unwrap();
        fs::set_permissions(&m, fs::Permissions::from_mode(MODE)).unwrap();
    }
    let one_commit = {
        let started = Instant::now();
        commit_next_mixed(
            &dir,
            &Committer::new(journal.clone(), AnswerGate::new()).unwrap(),
        );
        started.elapsed()
    };
    let window = Duration::from_millis(20).max(one_commit * 2).as_micros() as u64;
    eprintln!("mixed crash test: one commit takes {one_commit:.1?}; kill window 0-{window} us");
    let mut generation = check_mixed(&dir);
    let (mut discarded, mut rolled_back, mut completed, mut clean) = (0, 0, 0, 0);
    for iteration in 0..iterations {
        let mut proc = child("commit_crash::mixed_child")
            .env(MIXED_DIR, &dir)
            .env(MIXED_JOURNAL, &journal)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(proc.stdout.take().unwrap()).lines();
        let ready = lines.any(|l| l.is_ok_and(|l| l.contains("mixed-child: committing")));
        std::thread::sleep(Duration::from_micros(rng.next() % (window + 1)));
        proc.kill().unwrap();
        let output = proc.wait_with_output().unwrap();
        assert!(
            ready && output.status.signal() == Some(libc::SIGKILL),
            "iteration {iteration}: child did not run until killed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        let report = Committer::new(journal.clone(), AnswerGate::new())
            .unwrap()
            .recover()
            .unwrap();
        match report.transactions.first() {
            None => clean += 1,
            Some(t) => {
                assert!(
                    t.problems.is_empty() && t.conflicts.is_empty(),
                    "iteration {iteration}: {t:?}"
                );
                match t.outcome {
                    RecoveryOutcome::Discarded => discarded += 1,
                    RecoveryOutcome::RolledBack => rolled_back += 1,
                    RecoveryOutcome::Completed => completed += 1,
                    other => panic!("iteration {iteration}: {other:?}"),
                }
            }
        }
        assert_eq!(fs::read_dir(&journal).unwrap().count(), 0, "journal left");
        let now = check_mixed(&dir);
        assert!(now >= generation, "generation went back");
        generation = now;
    }
    eprintln!(
        "mixed crash test: reached generation {generation}; recovery found {discarded} staging, \
         {rolled_back} rolled back, {completed} completed, {clean} between commits"
    );
    // The child spends about four fifths of its time resolving and reading
    // (a release build commits in under 2 ms on a tmpfs): a fifth of the
    // kills land inside a transaction (431 of 2,000 in one soak).
    assert!(
        discarded + rolled_back + completed >= iterations / 8,
        "too few kills landed inside a transaction"
    );
    assert!(generation > 1, "no commit completed between kills");
}

/// The child of the mixed crash test: commits generation after generation.
#[test]
#[ignore = "child process of sigkill_at_random_points_in_mixed_transactions_leaves_all_old_or_all_new"]
fn mixed_child() {
    let Some((dir, journal)) = child_dirs(MIXED_DIR, MIXED_JOURNAL) else {
        return;
    };
    let committer = Committer::new(journal, AnswerGate::new()).unwrap();
    println!("mixed-child: committing");
    loop {
        commit_next_mixed(&dir, &committer);
    }
}

const COUNTER_DIR: &str = "SPLICE_COUNTER_CHILD_DIR";
const COUNTER_ROUNDS: usize = 40;
const COUNTER_FILES: usize = 4;

/// Increments counters in overlapping pairs of files, retrying stale reads.
/// Returns how many times each file was incremented.
fn increment_counters(dir: &Path, committer: &Committer, salt: usize) -> Vec<usize> {
    let mut done = vec![0; COUNTER_FILES];
    for round in 0..COUNTER_ROUNDS {
        let a = (round + salt) % COUNTER_FILES;
        let b = (a + 1 + round % 2) % COUNTER_FILES;
        loop {
            let changes: Vec<FileChange> = [a, b]
                .iter()
                .map(|f| {
                    let snapshot = read_file(&dir.join(format!("c{f}")), MAX).unwrap();
                    let n: usize = std::str::from_utf8(&snapshot.bytes)
                        .unwrap()
                        .trim()
                        .parse()
                        .unwrap();
                    FileChange {
                        snapshot,
                        new_bytes: format!("{}\n", n + 1).into_bytes(),
                        backup: false,
                    }
                })
                .collect();
            match committer.commit(changes) {
                Ok(_) => break,
                Err(f) if matches!(f.error.kind, FsErrorKind::Stale { .. }) => continue,
                Err(f) => panic!("commit failed: {f:?}"),
            }
        }
        done[a] += 1;
        done[b] += 1;
    }
    done
}

#[test]
fn two_processes_committing_the_same_files_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let journal = tempfile::tempdir().unwrap();
    for f in 0..COUNTER_FILES {
        fs::write(dir.path().join(format!("c{f}")), "0\n").unwrap();
    }
    let children: Vec<_> = (0..2)
        .map(|k| {
            child("commit_crash::counter_child")
                .env(COUNTER_DIR, dir.path())
                .env(CHILD_JOURNAL, journal.path())
                .env("SPLICE_COUNTER_SALT", k.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // This process commits too, on its own Committer (so only flock, not the
    // in-process table, serializes it with the children).
    let committer = Committer::new(journal.path().into(), AnswerGate::new())
        .unwrap()
        .durable(false);
    let mut expected = increment_counters(dir.path(), &committer, 2);
    for proc in children {
        let out = proc.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "child failed: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = stdout
            .lines()
            .find_map(|l| l.split_once("counter-child: ").map(|(_, counts)| counts))
            .expect("child reported its increments");
        for (e, n) in expected.iter_mut().zip(line.split(',')) {
            *e += n.parse::<usize>().unwrap();
        }
    }
    for (f, e) in expected.iter().enumerate() {
        let n: usize = fs::read_to_string(dir.path().join(format!("c{f}")))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(n, *e, "lost update on c{f}");
    }
    assert_eq!(expected.iter().sum::<usize>(), 3 * 2 * COUNTER_ROUNDS);
}

#[test]
#[ignore = "child process of two_processes_committing_the_same_files_lose_no_update"]
fn counter_child() {
    let Some((dir, journal)) = child_dirs(COUNTER_DIR, CHILD_JOURNAL) else {
        return;
    };
    let salt = std::env::var("SPLICE_COUNTER_SALT")
        .unwrap()
        .parse()
        .unwrap();
    let committer = Committer::new(journal, AnswerGate::new())
        .unwrap()
        .durable(false);
    let done = increment_counters(&dir, &committer, salt);
    let done: Vec<String> = done.iter().map(usize::to_string).collect();
    println!("counter-child: {}", done.join(","));
}
