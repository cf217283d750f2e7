//! How many answers this process has written to its client: lets work that
//! follows an answer (writing the call's undo record, `crate::undo`) start
//! once the answer is out, instead of competing with it for the CPU and
//! the file system while the client waits.
//!
//! The transport ([`crate::transport`]) calls [`note_written`] after each
//! answer reaches stdout; a background thread reads [`written`] when its
//! work is queued and waits with [`wait_past`] until a later answer is out
//! (or a short timeout: nothing depends on it being exact, and a process
//! with no transport, such as a benchmark calling the tools directly, only
//! waits that long).

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

static WRITTEN: Mutex<u64> = Mutex::new(0);
static CHANGED: Condvar = Condvar::new();

fn count() -> std::sync::MutexGuard<'static, u64> {
    WRITTEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Answers written so far.
pub fn written() -> u64 {
    *count()
}

/// An answer was written to the client.
pub fn note_written() {
    *count() += 1;
    CHANGED.notify_all();
}

/// Wakes every [`wait_past`] now (someone needs the work done).
pub fn nudge() {
    let _guard = count();
    CHANGED.notify_all();
}

/// Waits until more than `seen` answers are written, at most `timeout`, or
/// until [`nudge`]d.
pub fn wait_past(seen: u64, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    let mut n = count();
    if *n > seen {
        return;
    }
    let now = Instant::now();
    if now < deadline {
        n = CHANGED
            .wait_timeout(n, deadline - now)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    drop(n);
}
