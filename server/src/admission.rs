//! Admission: how many calls work at once, how much memory they may hold, and
//! waiting that holds no thread.
//!
//! Why this module exists: a call's work (resolve, read, plan, commit) holds a
//! thread of its own while it runs (`mcp::run_blocking`: a worker lent with
//! `block_in_place`, whose other tasks move to a thread of tokio's blocking
//! pool; a call alone runs on its worker and lends it only to wait for a
//! lock). When calls waited for a file's lock on the blocking pool, 1,000
//! calls on one locked file took every pool thread: stdin was no longer read
//! and a `ping` took 39 s. Nothing bounded memory either: 1,000 dry runs on a
//! 16 MiB file (about 75 MiB each) got the server killed with none answered.
//!
//! So a call passes three gates before it gets a thread, each an `async` wait
//! that holds nothing but the call's request:
//!
//! 1. **Its files' queues** ([`Admission::queue`]): one async mutex per file
//!    path as the client spelled it. Calls naming the same file line up here,
//!    in arrival order, instead of each holding a thread at the commit's lock.
//!    The key is the spelling, not the canonical path (finding that takes the
//!    file system); two spellings of one file both pass and meet at the
//!    commit's own lock, which remains the correctness boundary. This gate is
//!    only scheduling. Its wait counts against the call's lock deadline, the
//!    same one the commit's lock waits use, so a call never waits longer than
//!    the lock timeout in total; past it the call fails like a lock timeout
//!    (`WRITE_FAILED`, `EBUSY`).
//! 2. **Calls in flight** (`--max-calls-in-flight`): at most that many calls
//!    do work at the same time.
//! 3. **Memory** (`--memory-budget`): a call reserves an estimate of what it
//!    will hold at its peak ([`crate::tools::footprint`]) and waits while the
//!    reservations of the calls in flight would pass the budget. A call
//!    larger than the whole budget runs alone. A call under [`SMALL_CALL`]
//!    skips this gate. It is taken before gate 2, so a large call waiting for
//!    memory holds no slot.
//!
//! Gates 2 and 3 are fair (first come, first served) and wait at most
//! [`ADMISSION_WAIT`] together; past it the call fails with `SERVER_BUSY`
//! (retryable, nothing read or written). A cancelled call leaves any gate at
//! once.
//!
//! Pings and calls on other files never wait behind a locked file: they do
//! not share its queue, and the waiters hold no permit.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use tokio::sync::{Mutex, OwnedMutexGuard, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// The longest a call waits for a slot (gates 2 and 3) before `SERVER_BUSY`.
pub const ADMISSION_WAIT: Duration = Duration::from_secs(30);

/// Calls estimated below this skip the memory gate: together they hold at
/// most `--max-calls-in-flight` times this, and waiting behind a large call
/// for memory they barely use would only add latency.
pub const SMALL_CALL: u64 = 1024 * 1024;

/// The bounds of [`Admission`], from the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Most calls doing work at once.
    pub max_calls_in_flight: usize,
    /// Most memory the calls in flight may reserve, in bytes.
    pub memory_budget: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_calls_in_flight: 16,
            memory_budget: 1024 * 1024 * 1024,
        }
    }
}

/// Why a call did not get through the gates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The client cancelled the call while it waited.
    Cancelled,
    /// The lock deadline passed while waiting behind other calls on the file
    /// at this index of the call's paths.
    LockTimeout(usize),
    /// No slot within [`ADMISSION_WAIT`]: `limit` names the bound that was
    /// full (`max_calls_in_flight` or `memory_budget`), `max` its value,
    /// `actual` what the call would have brought it to.
    Busy {
        limit: &'static str,
        max: u64,
        actual: u64,
    },
}

/// The shared gates of one server.
#[derive(Debug)]
pub struct Admission {
    bounds: Bounds,
    calls: Arc<Semaphore>,
    /// Permits are KiB of the memory budget.
    memory: Arc<Semaphore>,
    memory_kib: u32,
    queues: Arc<StdMutex<HashMap<PathBuf, Arc<Mutex<()>>>>>,
}

/// A call's place at the head of its files' queues; dropping it lets the
/// next call on those files through.
#[derive(Debug)]
pub struct Queued {
    guards: Vec<OwnedMutexGuard<()>>,
    keys: Vec<PathBuf>,
    queues: Arc<StdMutex<HashMap<PathBuf, Arc<Mutex<()>>>>>,
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.guards.clear();
        let mut queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        for key in &self.keys {
            // Only the map holds it: nobody waits on this file any more.
            if queues.get(key).is_some_and(|m| Arc::strong_count(m) == 1) {
                queues.remove(key);
            }
        }
    }
}

/// A call's slot among the calls in flight and its memory reservation.
#[derive(Debug)]
pub struct Admitted {
    _call: OwnedSemaphorePermit,
    _memory: Option<OwnedSemaphorePermit>,
}

impl Admission {
    pub fn new(bounds: Bounds) -> Admission {
        let calls = bounds.max_calls_in_flight.clamp(1, Semaphore::MAX_PERMITS);
        let memory_kib = kib(bounds.memory_budget).max(1);
        Admission {
            bounds,
            calls: Arc::new(Semaphore::new(calls)),
            memory: Arc::new(Semaphore::new(memory_kib as usize)),
            memory_kib,
            queues: Arc::default(),
        }
    }

    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// Gate 1: waits until the call is first in line for every path in
    /// `paths` (taken in sorted order, so two calls can never each hold a
    /// place the other waits for), until `until` or until `cancelled`
    /// completes.
    pub async fn queue(
        &self,
        paths: &[PathBuf],
        until: Instant,
        cancelled: impl Future<Output = ()>,
    ) -> Result<Queued, Refused> {
        let mut order: Vec<(usize, &PathBuf)> = paths.iter().enumerate().collect();
        order.sort_by(|a, b| a.1.cmp(b.1));
        order.dedup_by(|a, b| a.1 == b.1);
        let mut queued = Queued {
            guards: Vec::with_capacity(order.len()),
            keys: Vec::with_capacity(order.len()),
            queues: self.queues.clone(),
        };
        tokio::pin!(cancelled);
        for (index, path) in order {
            let mutex = {
                let mut queues = self.queues.lock().unwrap_or_else(|e| e.into_inner());
                queues.entry(path.clone()).or_default().clone()
            };
            queued.keys.push(path.clone());
            tokio::select! {
                biased;
                _ = &mut cancelled => return Err(Refused::Cancelled),
                guard = mutex.lock_owned() => queued.guards.push(guard),
                _ = tokio::time::sleep_until(until) => return Err(Refused::LockTimeout(index)),
            }
        }
        Ok(queued)
    }

    /// Gates 3 and 2 without waiting, for a caller off the event loop:
    /// `Some` when both are open now (the common case), `None` when the call
    /// must wait in [`Admission::admit`]. It never overtakes a waiting call:
    /// a released permit goes to the first waiter, not back to the pool.
    pub fn try_admit(&self, bytes: u64) -> Option<Admitted> {
        let memory = if bytes >= SMALL_CALL {
            let want = kib(bytes).clamp(1, self.memory_kib);
            Some(self.memory.clone().try_acquire_many_owned(want).ok()?)
        } else {
            None
        };
        let call = self.calls.clone().try_acquire_owned().ok()?;
        Some(Admitted {
            _call: call,
            _memory: memory,
        })
    }

    /// Gates 3 and 2: `bytes` of the memory budget (for a call of at least
    /// [`SMALL_CALL`]), then a slot among the calls in flight, waiting at
    /// most [`ADMISSION_WAIT`] in all. Memory comes first so that a large
    /// call waiting for memory holds no slot that small calls could use.
    pub async fn admit(
        &self,
        bytes: u64,
        cancelled: impl Future<Output = ()>,
    ) -> Result<Admitted, Refused> {
        let until = Instant::now() + ADMISSION_WAIT;
        tokio::pin!(cancelled);
        let memory = if bytes >= SMALL_CALL {
            let want = kib(bytes).clamp(1, self.memory_kib);
            let permit = tokio::select! {
                biased;
                _ = &mut cancelled => return Err(Refused::Cancelled),
                permit = self.memory.clone().acquire_many_owned(want) => permit,
                _ = tokio::time::sleep_until(until) => {
                    let free = self.memory.available_permits() as u64;
                    let reserved = u64::from(self.memory_kib).saturating_sub(free) * 1024;
                    return Err(Refused::Busy {
                        limit: "memory_budget",
                        max: self.bounds.memory_budget,
                        actual: reserved.saturating_add(bytes),
                    });
                }
            };
            // Semaphores are only closed by their owner, and these never are.
            Some(permit.map_err(|_| closed())?)
        } else {
            None
        };
        let call = tokio::select! {
            biased;
            _ = &mut cancelled => return Err(Refused::Cancelled),
            permit = self.calls.clone().acquire_owned() => permit.map_err(|_| closed())?,
            _ = tokio::time::sleep_until(until) => {
                return Err(Refused::Busy {
                    limit: "max_calls_in_flight",
                    max: self.bounds.max_calls_in_flight as u64,
                    actual: self.bounds.max_calls_in_flight as u64 + 1,
                });
            }
        };
        Ok(Admitted {
            _call: call,
            _memory: memory,
        })
    }
}

/// What a closed semaphore would mean (never happens: nothing closes them).
fn closed() -> Refused {
    Refused::Busy {
        limit: "max_calls_in_flight",
        max: 0,
        actual: 0,
    }
}

/// `bytes` in whole KiB (rounded up), saturating at `u32::MAX`.
fn kib(bytes: u64) -> u32 {
    u32::try_from(bytes.div_ceil(1024)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::pending;

    fn never() -> impl Future<Output = ()> {
        pending()
    }

    fn soon(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms)
    }

    #[tokio::test]
    async fn calls_on_one_file_line_up_and_others_pass() {
        let a = Admission::new(Bounds::default());
        let f = PathBuf::from("/r/f");
        let g = PathBuf::from("/r/g");
        let first = a
            .queue(std::slice::from_ref(&f), soon(5000), never())
            .await
            .unwrap();
        // Another file is not held up by the first.
        let other = a.queue(std::slice::from_ref(&g), soon(50), never()).await;
        assert!(other.is_ok());
        // The same file waits, and times out naming its index.
        let second = a.queue(&[g.clone(), f.clone()], soon(50), never()).await;
        assert_eq!(second.unwrap_err(), Refused::LockTimeout(1));
        drop(other);
        drop(first);
        let third = a.queue(&[f.clone(), g.clone()], soon(50), never()).await;
        assert!(third.is_ok(), "the queue was not released");
        drop(third);
        assert!(a.queues.lock().unwrap().is_empty(), "queues leak entries");
    }

    #[tokio::test]
    async fn a_path_named_twice_does_not_wait_on_itself() {
        let a = Admission::new(Bounds::default());
        let f = PathBuf::from("/r/f");
        assert!(a.queue(&[f.clone(), f], soon(50), never()).await.is_ok());
    }

    #[tokio::test]
    async fn cancel_leaves_the_queue() {
        let a = Admission::new(Bounds::default());
        let f = PathBuf::from("/r/f");
        let _held = a
            .queue(std::slice::from_ref(&f), soon(5000), never())
            .await
            .unwrap();
        let r = a.queue(&[f], soon(5000), async {}).await;
        assert_eq!(r.unwrap_err(), Refused::Cancelled);
    }

    #[tokio::test(start_paused = true)]
    async fn calls_past_the_bound_wait_then_fail_busy() {
        let a = Admission::new(Bounds {
            max_calls_in_flight: 2,
            memory_budget: 10 * 1024 * 1024,
        });
        let one = a.admit(1024, never()).await.unwrap();
        let _two = a.admit(1024, never()).await.unwrap();
        let busy = a.admit(1024, never()).await.unwrap_err();
        assert_eq!(
            busy,
            Refused::Busy {
                limit: "max_calls_in_flight",
                max: 2,
                actual: 3
            }
        );
        drop(one);
        assert!(a.admit(1024, never()).await.is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn memory_is_reserved_and_a_huge_call_runs_alone() {
        let mib = 1024 * 1024;
        let a = Admission::new(Bounds {
            max_calls_in_flight: 8,
            memory_budget: 100 * mib,
        });
        let big = a.admit(80 * mib, never()).await.unwrap();
        match a.admit(30 * mib, never()).await.unwrap_err() {
            Refused::Busy { limit, max, actual } => {
                assert_eq!(limit, "memory_budget");
                assert_eq!(max, 100 * mib);
                assert_eq!(actual, 110 * mib);
            }
            other => panic!("{other:?}"),
        }
        drop(big);
        // Larger than the whole budget: admitted once nothing else runs.
        let huge = a.admit(500 * mib, never()).await.unwrap();
        assert!(matches!(
            a.admit(mib, never()).await,
            Err(Refused::Busy { .. })
        ));
        drop(huge);
        assert!(a.admit(mib, never()).await.is_ok());
    }
}
