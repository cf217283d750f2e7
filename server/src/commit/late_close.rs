//! Closing a committed call's replaced files beside its answer, not before.
//!
//! Why this exists: a commit holds every file it replaces open (its lock,
//! [`super::lock`]) until the end. Once the new content is renamed over the
//! path and the directory fsynced, that descriptor is the last reference to
//! the old inode, and closing it frees the inode and its blocks. On this
//! project's machines (ext4 without a journal, which discards what it
//! frees) that close is the slowest system call of a small edit after the
//! two fsyncs: 0.3-0.4 ms under `strace`, where the benchmark's floor pays
//! the same cost inside its `rename`. Nothing the answer says depends on
//! it: the rename is durable already. So a successful commit hands those
//! descriptors to [`LateClose::defer`], and a thread of the committer's
//! [`LateClose`] closes them once the call's answer is written.
//!
//! **When.** Waking the thread is itself a cost on the call's path: a futex
//! wake of a thread on the other core, and on this VM taking it off the
//! path measured 50-90 µs a call through the SDK client, side by side
//! (bench/README). So, as for the undo store's thread, the answer wakes it
//! (the server's [`AnswerGate`], which the transport moves after the
//! answer reaches stdout). [`LateClose::defer`] wakes it at once
//! ([`AnswerGate::nudge`]) when no answer is coming to do it: the gate has
//! no transport (nothing is owed), or descriptors deferred earlier are still queued (their answer
//! did not come). The transport also nudges when a call is cancelled (its
//! answer may never be written). What is left, a call whose answer is never
//! written while others are still owed, waits for the next answer or the
//! next commit's [`LateClose::settle`], at most [`IDLE`]. (A first version that waited
//! for every answer, with no nudge, left a descriptor open for as long as
//! no answer came, and another process waiting on its `flock` timed out:
//! `commit_crash::two_processes_committing_the_same_files_lose_no_update`.)
//!
//! What it keeps:
//!
//! - **Disk space.** Every commit, once it holds its locks and before it
//!   stages anything, calls [`LateClose::settle`], which returns once every descriptor
//!   handed over before it is closed (whoever closes it): the next call
//!   never stages its files while an earlier call's replaced files still
//!   hold their blocks (a nearly full disk sees what it saw when they were
//!   closed at once).
//! - **Locks.** Only descriptors of files that are no longer at their path
//!   come here (replaced, deleted or moved by a successful commit). Their
//!   `flock` guards nothing anyone can open by name; a process that was
//!   already waiting on it finds, once it gets it, that the path holds
//!   another inode and starts over ([`super::lock::lock_file_until`]), a
//!   moment later than before.

use std::fs::File;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::answer_gate::AnswerGate;

#[derive(Default)]
struct Queue {
    /// Descriptors to close.
    files: Vec<File>,
    /// Batches taken from `files` and not closed yet (by the thread or by
    /// a [`LateClose::settle`]).
    closing: usize,
}

/// What the committer and its thread share.
struct Closer {
    queue: Mutex<Queue>,
    /// Signalled when a batch is closed (for [`LateClose::settle`]).
    closed: Condvar,
    /// The server's answers: the thread waits for them.
    answers: Arc<AnswerGate>,
}

/// The late closer of one [`super::Committer`]: its queue and its thread,
/// which ends once the committer is dropped.
pub(super) struct LateClose {
    closer: Arc<Closer>,
}

/// Longest the thread sleeps without an answer or a nudge before it looks
/// at its queue again.
const IDLE: std::time::Duration = std::time::Duration::from_secs(5);

fn queue(closer: &Closer) -> MutexGuard<'_, Queue> {
    closer.queue.lock().unwrap_or_else(|e| e.into_inner())
}

impl LateClose {
    /// The queue, and its thread started now (not inside a first call),
    /// woken by `answers`.
    pub(super) fn start(answers: Arc<AnswerGate>) -> LateClose {
        let closer = Arc::new(Closer {
            queue: Mutex::new(Queue::default()),
            closed: Condvar::new(),
            answers,
        });
        let shared = closer.clone();
        let spawned = std::thread::Builder::new()
            .name("splice-late-close".into())
            .spawn(move || work_loop(shared));
        if let Err(e) = spawned {
            // Without the thread each descriptor is closed by the next
            // commit's `settle`.
            tracing::warn!(error = %e, "cannot start the thread that closes replaced files");
        }
        LateClose { closer }
    }

    /// Has `files` closed by the thread (see the module docs): only
    /// descriptors of files a successful commit replaced, deleted or moved
    /// away.
    pub(super) fn defer(&self, files: impl IntoIterator<Item = File>) {
        let mut files = files.into_iter().peekable();
        if files.peek().is_none() {
            return;
        }
        let closer = &*self.closer;
        let mut waiting = queue(closer);
        let earlier = !waiting.files.is_empty();
        waiting.files.extend(files);
        drop(waiting);
        // The call's answer, written next, wakes the thread (module docs).
        if earlier || closer.answers.owed() == 0 {
            closer.answers.nudge();
        }
    }

    /// Returns once every descriptor handed to [`LateClose::defer`] before
    /// this call is closed: closes those still queued here, and waits for
    /// the batches the thread or another `settle` took before.
    pub(super) fn settle(&self) {
        let closer = &*self.closer;
        let mut waiting = queue(closer);
        if !waiting.files.is_empty() {
            let mine = std::mem::take(&mut waiting.files);
            waiting = close_batch(closer, waiting, mine);
        }
        while waiting.closing > 0 {
            waiting = closer
                .closed
                .wait(waiting)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for LateClose {
    /// Wakes the thread, which closes what is queued and ends.
    fn drop(&mut self) {
        self.closer.answers.nudge();
    }
}

/// Closes `batch`, taken from the queue under `waiting`, outside the lock,
/// counted in `closing` meanwhile; returns the lock again.
fn close_batch<'a>(
    closer: &'a Closer,
    mut waiting: MutexGuard<'a, Queue>,
    batch: Vec<File>,
) -> MutexGuard<'a, Queue> {
    waiting.closing += 1;
    drop(waiting);
    drop(batch);
    let mut waiting = queue(closer);
    waiting.closing -= 1;
    closer.closed.notify_all();
    waiting
}

/// The thread: closes whatever is queued, as soon as it is; ends once its
/// [`LateClose`] is gone and the queue is empty.
fn work_loop(closer: Arc<Closer>) {
    // The lowest priority, as the undo store's thread: the close yields a
    // core to a call or its client.
    // SAFETY: a plain system call on this thread's own id.
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) };
    loop {
        // Read before looking at the queue: descriptors deferred after the
        // look are answered after this count, so the wait below cannot miss
        // their answer.
        let answers = closer.answers.mark();
        let mut waiting = queue(&closer);
        if waiting.files.is_empty() {
            drop(waiting);
            if Arc::strong_count(&closer) == 1 {
                return;
            }
            closer.answers.wait_past(answers, IDLE);
            continue;
        }
        let batch = std::mem::take(&mut waiting.files);
        drop(close_batch(&closer, waiting, batch));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use std::time::{Duration, Instant};

    /// Whether another open file description can take `path`'s `flock`,
    /// i.e. whether the descriptor holding it was closed.
    fn lock_is_free(path: &std::path::Path) -> bool {
        let probe = File::open(path).unwrap();
        // SAFETY: flock on a descriptor this function owns.
        unsafe { libc::flock(probe.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
    }

    fn locked(path: &std::path::Path) -> File {
        let file = File::create(path).unwrap();
        // SAFETY: flock on a descriptor this function owns.
        assert_eq!(unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) }, 0);
        file
    }

    /// A descriptor handed over is closed once `settle` returns, and without
    /// one soon, by the thread: its lock does not outlive the commit for
    /// long whether or not another commit comes.
    #[test]
    fn a_deferred_file_is_closed_by_settle_or_soon_by_the_thread() {
        let late = LateClose::start(AnswerGate::new());
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        late.defer([locked(&a)]);
        late.settle();
        assert!(
            lock_is_free(&a),
            "settle returned with a deferred file still open"
        );

        let b = dir.path().join("b");
        late.defer([locked(&b)]);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !lock_is_free(&b) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(lock_is_free(&b), "no settle came, the file stayed open");
    }

    /// `settle` also waits for a batch that someone else (the thread, or
    /// another commit's `settle`) took from the queue and is still closing:
    /// a `settle` that saw an empty queue and returned let a commit stage
    /// on a disk whose space was not back yet.
    #[test]
    fn settle_waits_for_a_batch_closing_elsewhere() {
        let late = std::sync::Arc::new(LateClose::start(AnswerGate::new()));
        let closer = late.closer.clone();
        // A batch in flight elsewhere, as `close_batch` counts it.
        queue(&closer).closing += 1;
        let (done, settled) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            late.settle();
            done.send(()).unwrap();
        });
        let early = settled.recv_timeout(Duration::from_millis(50));
        // The batch is closed.
        queue(&closer).closing -= 1;
        closer.closed.notify_all();
        assert!(
            early.is_err(),
            "settle returned while a batch was still closing"
        );
        settled
            .recv_timeout(Duration::from_secs(10))
            .expect("settle returned once the batch was closed");
        waiter.join().unwrap();
    }

    /// A descriptor still queued when the committer goes is closed by the
    /// thread on its way out.
    #[test]
    fn dropping_the_closer_closes_what_is_queued() {
        let gate = AnswerGate::new();
        // A transport owes an answer: `defer` leaves the wake to it.
        gate.set_owed(1);
        let late = LateClose::start(gate);
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        late.defer([locked(&a)]);
        drop(late);
        // Well before the thread's idle timeout: the drop woke it.
        let deadline = Instant::now() + IDLE / 2;
        while !lock_is_free(&a) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(lock_is_free(&a), "the queued file outlived its closer");
    }
}
