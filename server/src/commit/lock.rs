//! Per-file locks: an in-process table plus an `flock` on the file itself.
//!
//! The table serializes calls of this process that touch the same file; the
//! `flock` serializes them with other splice processes. Both are taken in the
//! order of the sorted canonical paths, so two transactions can never each hold
//! a lock the other waits for. Calls on disjoint files never wait for each other.
//!
//! The `flock` is on the target's inode, which a commit replaces. A waiter that
//! wakes up holding the lock of a replaced inode notices (the path no longer
//! names the inode it locked) and locks the new one instead.
//!
//! Every wait polls a cancellation check (a client's `notifications/cancelled`)
//! so that a cancelled call stops waiting and never reaches the write, and
//! every wait ends at the call's deadline ([`Wait::until`]): the table wait and
//! the `flock` wait share it, so a call queued behind another that waits for a
//! foreign lock does not wait twice as long.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::stage::id_of;
pub(crate) use crate::fsio::flock;
use crate::fsio::{FsError, FsErrorKind, FsOp, irregular_type, open_in};
use crate::sandbox::Dir;

/// How often a waiter checks whether its call was cancelled.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// What a waiting call may wait for: its cancellation and its deadline,
/// and how it waits.
#[derive(Clone, Copy)]
pub struct Wait<'a> {
    /// True once the client cancelled the call.
    pub cancelled: &'a dyn Fn() -> bool,
    /// When waiting for locks gives up ([`FsErrorKind::Busy`]); `None`: the
    /// committer's lock timeout from the start of the commit.
    pub until: Option<Instant>,
    /// Runs a lock wait that found the lock taken (it may last until
    /// `until`). The server runs it with its event-loop worker lent to the
    /// runtime (`mcp::lent`), so a call that does its work on the worker
    /// that decoded it never holds that worker while it waits.
    pub lend: Lend,
}

/// How a lock wait is run: it calls the wait it is given, once.
pub type Lend = fn(&mut dyn FnMut());

/// Runs the wait on the calling thread.
pub fn on_this_thread(wait: &mut dyn FnMut()) {
    wait()
}

impl Wait<'_> {
    /// Never cancelled, the committer's own timeout.
    pub const PATIENT: Wait<'static> = Wait {
        cancelled: &|| false,
        until: None,
        lend: on_this_thread,
    };
}

impl std::fmt::Debug for Wait<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wait")
            .field("until", &self.until)
            .finish_non_exhaustive()
    }
}

/// Why a lock wait ended without the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Cancelled,
    /// The deadline passed while waiting for `paths[index]`.
    TimedOut(usize),
}

/// The files this process is committing right now.
#[derive(Debug, Default)]
pub(crate) struct LockTable {
    held: Mutex<HashSet<PathBuf>>,
    freed: Condvar,
}

/// Holds a set of paths in a [`LockTable`] until dropped.
pub(crate) struct TableGuard<'a> {
    table: &'a LockTable,
    paths: Vec<PathBuf>,
}

impl LockTable {
    /// Locks `paths`, which must be sorted and distinct, one by one in order.
    pub(crate) fn lock_all(&self, paths: &[&Path]) -> TableGuard<'_> {
        match self.lock_all_until(paths, &|| false, None, on_this_thread) {
            Ok(guard) => guard,
            Err(_) => unreachable!("a wait without deadline or cancel ends holding the locks"),
        }
    }

    /// [`LockTable::lock_all`], giving up (and releasing what it took) once
    /// `cancelled` returns true or `until` passes. A path another call holds
    /// is waited for through `lend` ([`Wait::lend`]).
    pub(crate) fn lock_all_until(
        &self,
        paths: &[&Path],
        cancelled: &dyn Fn() -> bool,
        until: Option<Instant>,
        lend: Lend,
    ) -> Result<TableGuard<'_>, Stop> {
        debug_assert!(paths.windows(2).all(|w| w[0] < w[1]));
        let mut guard = TableGuard {
            table: self,
            paths: Vec::with_capacity(paths.len()),
        };
        for (index, path) in paths.iter().enumerate() {
            let mut held = self.held();
            if held.contains(*path) {
                drop(held);
                let mut waited = None;
                lend(&mut || waited = Some(self.wait_until_free(path, index, cancelled, until)));
                // Returning drops `guard`, which releases what was taken.
                held = waited.expect("`lend` runs the wait")?;
            }
            held.insert(path.to_path_buf());
            guard.paths.push(path.to_path_buf());
        }
        Ok(guard)
    }

    /// Waits until no call holds `path` (the `index`-th path asked for),
    /// and returns the table locked with it free.
    fn wait_until_free(
        &self,
        path: &Path,
        index: usize,
        cancelled: &dyn Fn() -> bool,
        until: Option<Instant>,
    ) -> Result<MutexGuard<'_, HashSet<PathBuf>>, Stop> {
        let mut held = self.held();
        while held.contains(path) {
            if cancelled() {
                return Err(Stop::Cancelled);
            }
            if until.is_some_and(|t| Instant::now() >= t) {
                return Err(Stop::TimedOut(index));
            }
            held = self
                .freed
                .wait_timeout(held, CANCEL_POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        Ok(held)
    }

    /// Locks `path` if no call of this process holds it, without waiting.
    pub(crate) fn try_lock(&self, path: &Path) -> Option<TableGuard<'_>> {
        let mut held = self.held();
        if !held.insert(path.to_path_buf()) {
            return None;
        }
        Some(TableGuard {
            table: self,
            paths: vec![path.to_path_buf()],
        })
    }

    fn held(&self) -> MutexGuard<'_, HashSet<PathBuf>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for TableGuard<'_> {
    fn drop(&mut self) {
        let mut held = self.table.held();
        for path in &self.paths {
            held.remove(path);
        }
        drop(held);
        self.table.freed.notify_all();
    }
}

/// Opens `name` in `dir` (canonically `path`, for messages) and takes an
/// exclusive `flock` on the inode it names when the lock is granted, waiting
/// at most `timeout` for other processes. The open file is the lock: closing
/// it releases it. No symlink is followed.
pub(crate) fn lock_file(
    dir: &Dir,
    name: &OsStr,
    path: &Path,
    timeout: Duration,
) -> Result<File, FsError> {
    let deadline = Instant::now() + timeout;
    lock_file_until(dir, name, path, deadline, &|| false, on_this_thread)?
        .ok_or_else(|| unreachable!("a wait that is never cancelled ends holding the lock"))
}

/// [`lock_file`] with a deadline, giving up once `cancelled` returns true:
/// `Ok(None)`. A lock another process holds is waited for through `lend`
/// ([`Wait::lend`]).
pub(crate) fn lock_file_until(
    dir: &Dir,
    name: &OsStr,
    path: &Path,
    deadline: Instant,
    cancelled: &dyn Fn() -> bool,
    lend: Lend,
) -> Result<Option<File>, FsError> {
    let err = |e: io::Error| FsError::from_io(&e, FsOp::Lock, path);
    loop {
        let file = open_in(dir, name).map_err(err)?;
        let meta = file.metadata().map_err(err)?;
        if let Some(ty) = irregular_type(&meta) {
            return Err(FsError::new(
                FsErrorKind::NotRegularFile(ty),
                FsOp::Lock,
                path,
            ));
        }
        match flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => {
                let mut waited = None;
                let wait = || wait_for_flock(&file, path, deadline, cancelled);
                lend(&mut || waited = Some(wait()));
                if !waited.expect("`lend` runs the wait")? {
                    return Ok(None);
                }
            }
            Err(e) => return Err(err(e)),
        }
        // Still the file at `path`? If a commit replaced it while we waited, we
        // hold the lock of the old inode: start over on the new one.
        match id_of(dir, name) {
            Ok(Some(now)) if now == (meta.dev(), meta.ino()) => return Ok(Some(file)),
            Ok(_) => continue,
            Err(e) => return Err(err(e)),
        }
    }
}

/// Polls `file`'s `flock` (another process holds it) until it is granted
/// (`Ok(true)`), the call is cancelled (`Ok(false)`) or `deadline` passes.
fn wait_for_flock(
    file: &File,
    path: &Path,
    deadline: Instant,
    cancelled: &dyn Fn() -> bool,
) -> Result<bool, FsError> {
    let mut pause = Duration::from_micros(200);
    loop {
        if cancelled() {
            return Ok(false);
        }
        if Instant::now() >= deadline {
            return Err(FsError {
                kind: FsErrorKind::Busy,
                op: FsOp::Lock,
                path: path.to_path_buf(),
                os_error: Some("EWOULDBLOCK"),
            });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
        match flock(file, libc::LOCK_EX | libc::LOCK_NB) {
            Ok(()) => return Ok(true),
            Err(e) if e.raw_os_error() == Some(libc::EWOULDBLOCK) => {}
            Err(e) => return Err(FsError::from_io(&e, FsOp::Lock, path)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn table_excludes_overlapping_sets_but_not_disjoint_ones() {
        let table = Arc::new(LockTable::default());
        let a = PathBuf::from("/a");
        let b = PathBuf::from("/b");
        let guard = table.lock_all(&[&a, &b]);
        // A disjoint set is granted while /a and /b are held.
        drop(table.lock_all(&[Path::new("/c")]));

        let entered = Arc::new(AtomicUsize::new(0));
        let t = {
            let (table, entered) = (table.clone(), entered.clone());
            std::thread::spawn(move || {
                let _g = table.lock_all(&[Path::new("/b")]);
                entered.fetch_add(1, Ordering::SeqCst);
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(entered.load(Ordering::SeqCst), 0, "/b was granted twice");
        drop(guard);
        t.join().unwrap();
        assert_eq!(entered.load(Ordering::SeqCst), 1);
    }

    /// Waits that found the lock taken run through `lend` (the server lends
    /// its worker for them), the whole wait inside it; a lock taken at once
    /// never calls it.
    #[test]
    fn only_a_wait_goes_through_lend() {
        static LENT: AtomicUsize = AtomicUsize::new(0);
        static WAITING: AtomicUsize = AtomicUsize::new(0);
        fn counting(wait: &mut dyn FnMut()) {
            LENT.fetch_add(1, Ordering::SeqCst);
            WAITING.store(1, Ordering::SeqCst);
            wait();
            WAITING.store(0, Ordering::SeqCst);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"1").unwrap();
        let d = Dir::open_nofollow(&dir.path().canonicalize().unwrap()).unwrap();
        let far = Instant::now() + Duration::from_secs(5);
        let never = || false;

        // Free: no lend.
        let held = lock_file_until(&d, OsStr::new("f"), &path, far, &never, counting).unwrap();
        let table = LockTable::default();
        let guard = table
            .lock_all_until(&[&path], &never, Some(far), counting)
            .unwrap();
        assert_eq!(LENT.load(Ordering::SeqCst), 0);

        // Taken: one lend each, and the cancellation is polled inside it.
        let inside = || WAITING.load(Ordering::SeqCst) == 1;
        let got = lock_file_until(&d, OsStr::new("f"), &path, far, &inside, counting).unwrap();
        assert!(got.is_none(), "cancelled inside the lent wait");
        let stop = table.lock_all_until(&[&path], &inside, Some(far), counting);
        assert!(matches!(stop, Err(Stop::Cancelled)));
        assert_eq!(LENT.load(Ordering::SeqCst), 2);
        drop((held, guard));
    }

    #[test]
    fn flock_times_out_as_busy_and_follows_replaced_inodes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"1").unwrap();
        let d = Arc::new(Dir::open_nofollow(&dir.path().canonicalize().unwrap()).unwrap());
        let held = lock_file(&d, OsStr::new("f"), &path, Duration::from_secs(1)).unwrap();
        let err = lock_file(&d, OsStr::new("f"), &path, Duration::from_millis(30)).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::Busy);
        assert_eq!(err.op, FsOp::Lock);

        // Replace the file while a waiter blocks on the old inode's lock.
        let waiter = {
            let (path, d) = (path.clone(), d.clone());
            std::thread::spawn(move || {
                let f = lock_file(&d, OsStr::new("f"), &path, Duration::from_secs(5)).unwrap();
                f.metadata().unwrap().ino()
            })
        };
        std::thread::sleep(Duration::from_millis(30));
        let tmp = dir.path().join("g");
        std::fs::write(&tmp, b"2").unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        let new_ino = std::fs::metadata(&path).unwrap().ino();
        drop(held);
        assert_eq!(waiter.join().unwrap(), new_ino);
    }
}
