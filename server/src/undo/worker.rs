//! The store's thread: writes each published record once its call's answer
//! is out, then drops what the bounds no longer hold.
//!
//! Why after the answer: a file creation in the same file system just
//! before, during or just after a commit's `fsync`s costs that call
//! 0.3-0.5 ms, far more than its system calls (on this project's machines,
//! ext4 without a journal, `perf` shows inode allocation skipping recently
//! freed inodes and `fsync` writing metadata buffers one by one), while the
//! budget for recording is 0.1 ms at the p50 of a small edit (issue #25).
//! So [`super::Pending::publish`] queues the record and returns at once,
//! without waking the thread: the thread waits on the server's answer gate
//! ([`crate::answer_gate::AnswerGate`]), and the call's own answer, written
//! to the client next, wakes it. It competes with neither the answer nor
//! its commit and costs one wake a call; a wake at the publish as well
//! costs the small edit a measurable 10-30 µs at the p50. The thread then
//! hashes the contents and appends the record to its segment with one
//! `writev`. A record whose answer never comes (a call cancelled after its
//! commit point) is written when the next one is published, a reader needs
//! it, or the thread's idle timeout passes. The thread runs at nice 19, so
//! on a busy machine (2 cores: the server, its client, the store) it takes
//! the cores only while the calls wait on a disk flush or on the client.
//!
//! The same thread then drops the oldest transactions from the index (the
//! bounds are a window over the newest records, see [`super::log`]),
//! reconciled with the directory at most once a second
//! ([`super::store`]'s `LIST_EVERY`: it reads only what other processes
//! appended since), and removes a segment once all its records are
//! dropped. Nothing is created, renamed or removed per call: on ext4
//! without a journal each creation skips past every recently freed inode
//! and each removal discards blocks, which is what a file per transaction
//! cost. A kill in the middle of a prune leaves a segment for the next
//! prune; it never touches the transaction just recorded, nor anything
//! newer.

use std::sync::{Arc, MutexGuard};
use std::time::Duration;

use super::record::{Transaction, TransactionId};
use super::store::Shared;
use crate::answer_gate::Mark;

/// The store thread's queue, in order: each transaction to write, then at
/// most one prune (requests coalesce; the newest transaction is the one
/// never dropped).
#[derive(Debug, Default)]
pub(super) struct Work {
    /// Each with the answer gate's mark when it was published
    /// ([`crate::answer_gate::AnswerGate::mark`]): its own answer comes
    /// after it.
    pub(super) writes: std::collections::VecDeque<(Arc<Transaction>, Mark)>,
    /// Readers waiting in [`super::UndoStore::settle`]: write without
    /// pacing.
    pub(super) hurry: usize,
    /// A prune is wanted, keeping this transaction.
    pub(super) prune: Option<TransactionId>,
    /// A write or a prune is running.
    pub(super) busy: bool,
    /// The thread exists.
    pub(super) worker: bool,
}

/// How long the store's thread waits for a call's answer to be written
/// before it writes the call's record anyway.
const ANSWER_PACE: Duration = Duration::from_millis(2);

/// How long an idle store thread waits before it checks whether its store
/// is still in use.
const WORKER_IDLE: Duration = Duration::from_secs(5);

impl Shared {
    fn work(&self) -> MutexGuard<'_, Work> {
        self.work.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `tx` for the thread after the commit point; `false` when no
    /// thread can run (the caller then writes it itself).
    pub(super) fn queue(self: &Arc<Self>, tx: Arc<Transaction>) -> bool {
        let mut work = self.work();
        if !self.ensure_worker(&mut work) {
            return false;
        }
        // No wake here: the store's thread waits for answers, and this
        // call's own answer, written next, wakes it (one wake a call, not
        // two). A record already waiting means an answer did not come (a
        // call cancelled after its commit point, or no transport at all, as
        // in a benchmark): then wake it now, so that at most one record
        // ever waits for an answer.
        let waiting = !work.writes.is_empty();
        work.writes.push_back((tx, self.answers.mark()));
        drop(work);
        if waiting {
            self.answers.nudge();
        }
        true
    }

    /// Waits until the thread has written and pruned everything queued
    /// ([`super::UndoStore::settle`]).
    pub(super) fn settle(&self) {
        let mut work = self.work();
        work.hurry += 1;
        self.answers.nudge();
        while !work.writes.is_empty() || work.prune.is_some() || work.busy {
            work = self.changed.wait(work).unwrap_or_else(|e| e.into_inner());
        }
        work.hurry -= 1;
    }

    /// Asks the store's thread to drop the oldest transactions (never
    /// `keep`) until the bounds hold; prunes right here if there is no
    /// thread. Nothing waits for a prune but the readers: a transaction
    /// over the bounds is only garbage, and a crash in the middle leaves it
    /// for the next prune.
    pub(super) fn request_prune(self: &Arc<Self>, keep: &TransactionId) {
        let mut work = self.work();
        if !self.ensure_worker(&mut work) {
            drop(work);
            self.prune(keep);
            return;
        }
        work.prune = Some(keep.clone());
        // On the store's thread (busy with the write that asked) the loop
        // takes the prune next; from another thread, wake it.
        if !work.busy {
            drop(work);
            self.answers.nudge();
        }
    }

    /// Starts the store's thread unless it runs; false if it cannot be
    /// started (the caller then does the work itself).
    fn ensure_worker(self: &Arc<Self>, work: &mut Work) -> bool {
        if work.worker {
            return true;
        }
        let shared = Arc::clone(self);
        match std::thread::Builder::new()
            .name("splice-undo".into())
            .spawn(move || shared.work_loop())
        {
            Ok(_) => {
                work.worker = true;
                true
            }
            Err(e) => {
                tracing::debug!(error = %e, "no undo store thread; recording inline");
                false
            }
        }
    }

    /// The store's thread: writes each queued transaction, then runs the
    /// requested prune; exits once idle while nothing but itself holds the
    /// store.
    fn work_loop(self: Arc<Self>) {
        // The lowest priority (nice 19, this thread only): its work yields
        // a core to a call or its client, and runs while they wait (a
        // commit's fsync, the client reading its answer). A niced thread
        // still gets its share, so readers waiting in `settle` are never
        // starved. (Side by side on 2 cores the p50 moved within noise.)
        // SAFETY: a plain system call on this thread's own id.
        let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19) };
        loop {
            // Read before looking at the queue: a record published after
            // the look is answered after this count, so the wait below
            // cannot miss its answer.
            let answers = self.answers.mark();
            let mut work = self.work();
            if let Some((tx, seen)) = work.writes.pop_front() {
                work.busy = true;
                // Paced: once this call's answer is out (see the
                // module docs), unless more records wait or a reader does.
                let pace = work.writes.is_empty() && work.hurry == 0;
                drop(work);
                if pace {
                    self.answers.wait_past(seen, ANSWER_PACE);
                }
                // A panic must not leave `busy` set: readers would wait forever.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.store(&tx)));
                self.done(self.work());
                continue;
            }
            if let Some(keep) = work.prune.take() {
                work.busy = true;
                drop(work);
                let _ =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.prune(&keep)));
                self.done(self.work());
                continue;
            }
            if Arc::strong_count(&self) == 1 {
                work.worker = false;
                return;
            }
            drop(work);
            // Idle until the next answer is written (a published record's
            // own answer), a reader or a second record nudges, or a while
            // has passed (then it checks whether its store is gone).
            self.answers.wait_past(answers, WORKER_IDLE);
        }
    }

    /// The thread's write or prune is over: readers waiting in
    /// [`super::UndoStore::settle`] are told (nobody else waits on `changed`).
    fn done(&self, mut work: MutexGuard<'_, Work>) {
        work.busy = false;
        if work.hurry > 0 {
            self.changed.notify_all();
        }
    }
}
