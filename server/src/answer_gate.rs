//! How many answers this process has written to its client: lets work that
//! follows an answer (writing the call's undo record, `crate::undo`;
//! closing the files it replaced, `crate::commit::late_close`) start once
//! the answer is out, and be woken by it, instead of competing with it for
//! the CPU and the file system, or costing it a wake, while the client
//! waits. And how many it owes ([`owed`]): `crate::mcp` runs a call the
//! client waits on alone on the thread that decoded it, without lending
//! that thread.
//!
//! The transport ([`crate::transport`]) calls [`note_written`] after each
//! answer reaches stdout; a background thread takes a [`mark`] when its
//! work is queued (and before it looks for work) and waits with
//! [`wait_past`] until a later answer is out, someone [`nudge`]s it (a
//! reader needs the work done), or a timeout: nothing depends on it being
//! exact, and a process with no transport, such as a benchmark calling the
//! tools directly, only waits that long. Both events are counted under one
//! lock, so a wait that starts after the event it waits for still sees it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Requests the client waits for an answer to: passed on to the service
/// and neither answered nor cancelled (the process has one transport).
static OWED: AtomicUsize = AtomicUsize::new(0);

/// The transport ([`crate::transport`]) owes `n` answers now.
pub fn set_owed(n: usize) {
    OWED.store(n, Ordering::Relaxed);
}

/// How many answers the client waits for, that of the call asking
/// included; 0 in a process with no transport.
pub fn owed() -> usize {
    OWED.load(Ordering::Relaxed)
}

/// Answers written and nudges, so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    written: u64,
    nudges: u64,
}

static GATE: Mutex<Mark> = Mutex::new(Mark {
    written: 0,
    nudges: 0,
});
static CHANGED: Condvar = Condvar::new();

fn gate() -> MutexGuard<'static, Mark> {
    GATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Where the gate stands now.
pub fn mark() -> Mark {
    *gate()
}

/// An answer was written to the client.
pub fn note_written() {
    gate().written += 1;
    CHANGED.notify_all();
}

/// Ends every [`wait_past`] of a mark taken before now (someone needs the
/// work done).
pub fn nudge() {
    gate().nudges += 1;
    CHANGED.notify_all();
}

/// Waits until an answer is written or a [`nudge`] comes after `mark`, at
/// most `timeout`.
pub fn wait_past(mark: Mark, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    let mut now_at = gate();
    while *now_at == mark {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        now_at = CHANGED
            .wait_timeout(now_at, deadline - now)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer or a nudge that came after the mark ends the wait at once,
    /// even when the wait starts later; without either it times out.
    #[test]
    fn a_wait_sees_what_came_after_its_mark() {
        let long = Duration::from_secs(30);
        let before = mark();
        note_written();
        let started = Instant::now();
        wait_past(before, long);
        let before = mark();
        nudge();
        wait_past(before, long);
        assert!(started.elapsed() < Duration::from_secs(10));
        let idle = mark();
        let started = Instant::now();
        wait_past(idle, Duration::from_millis(30));
        // Other tests in this process may write or nudge: only the upper
        // bound is certain when they do.
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
