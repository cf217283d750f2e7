//! How many answers a server has written to its client: lets work that
//! follows an answer (writing the call's undo record, `crate::undo`;
//! closing the files it replaced, `crate::commit`'s late closer) start once
//! the answer is out, and be woken by it, instead of competing with it for
//! the CPU and the file system, or costing it a wake, while the client
//! waits. And how many it owes ([`AnswerGate::owed`]): `crate::mcp` runs a
//! call the client waits on alone on the thread that decoded it, without
//! lending that thread.
//!
//! One [`AnswerGate`] per server, created by `main` and handed to each part
//! that reads or moves it: the transport ([`crate::transport`]) calls
//! [`AnswerGate::note_written`] after each answer reaches stdout and
//! [`AnswerGate::set_owed`] as requests come and go; the server reads
//! [`AnswerGate::owed`]; a background thread (the undo store's, the late
//! closer's) takes a [`AnswerGate::mark`] when its work is queued (and
//! before it looks for work) and waits with [`AnswerGate::wait_past`] until
//! a later answer is out, someone [`AnswerGate::nudge`]s it (a reader needs
//! the work done), or a timeout: nothing depends on it being exact, and a
//! gate with no transport, such as a benchmark's calling the tools directly,
//! only waits that long. Both events are counted under one lock, so a wait
//! that starts after the event it waits for still sees it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Answers written and nudges, so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    written: u64,
    nudges: u64,
}

/// The answers of one server (see the module docs).
#[derive(Debug)]
pub struct AnswerGate {
    /// Requests the client waits for an answer to: passed on to the
    /// service and neither answered nor cancelled.
    owed: AtomicUsize,
    at: Mutex<Mark>,
    changed: Condvar,
}

impl AnswerGate {
    /// A gate with nothing written and nothing owed, to share.
    pub fn new() -> Arc<AnswerGate> {
        Arc::new(AnswerGate {
            owed: AtomicUsize::new(0),
            at: Mutex::new(Mark {
                written: 0,
                nudges: 0,
            }),
            changed: Condvar::new(),
        })
    }

    fn at(&self) -> MutexGuard<'_, Mark> {
        self.at.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The transport owes `n` answers now.
    pub fn set_owed(&self, n: usize) {
        self.owed.store(n, Ordering::Relaxed);
    }

    /// How many answers the client waits for, that of the call asking
    /// included; 0 with no transport.
    pub fn owed(&self) -> usize {
        self.owed.load(Ordering::Relaxed)
    }

    /// Where the gate stands now.
    pub fn mark(&self) -> Mark {
        *self.at()
    }

    /// An answer was written to the client.
    pub fn note_written(&self) {
        self.at().written += 1;
        self.changed.notify_all();
    }

    /// Ends every [`AnswerGate::wait_past`] of a mark taken before now
    /// (someone needs the work done).
    pub fn nudge(&self) {
        self.at().nudges += 1;
        self.changed.notify_all();
    }

    /// Waits until an answer is written or a [`AnswerGate::nudge`] comes
    /// after `mark`, at most `timeout`.
    pub fn wait_past(&self, mark: Mark, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let mut now_at = self.at();
        while *now_at == mark {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            now_at = self
                .changed
                .wait_timeout(now_at, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer or a nudge that came after the mark ends the wait at once,
    /// even when the wait starts later; without either it lasts its
    /// timeout.
    #[test]
    fn a_wait_sees_what_came_after_its_mark() {
        let gate = AnswerGate::new();
        let long = Duration::from_secs(30);
        let before = gate.mark();
        gate.note_written();
        let started = Instant::now();
        gate.wait_past(before, long);
        let before = gate.mark();
        gate.nudge();
        gate.wait_past(before, long);
        assert!(started.elapsed() < Duration::from_secs(10));
        let idle = gate.mark();
        let started = Instant::now();
        gate.wait_past(idle, Duration::from_millis(30));
        // Nothing else moves this gate: the wait lasted its whole timeout.
        assert!(started.elapsed() >= Duration::from_millis(30));
    }

    /// A wait in another thread ends when this one writes an answer.
    #[test]
    fn an_answer_wakes_a_waiting_thread() {
        let gate = AnswerGate::new();
        let mark = gate.mark();
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                gate.wait_past(mark, Duration::from_secs(30));
                started.elapsed()
            })
        };
        gate.note_written();
        assert!(waiter.join().unwrap() < Duration::from_secs(10));
    }
}
