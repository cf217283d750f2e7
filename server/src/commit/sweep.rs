//! Finishing single-file commits a crash interrupted, from the names they left.
//!
//! A single-file commit has no journal (see [`super::single`], whose module
//! docs give the step-by-step power-loss table this sweep answers): a crash in it leaves its fixed-name staging files
//! `.<name>.splice.{bak-tmp,bak-undo,tmp,undo}` beside the file, hidden but
//! visible to `git status`. The names themselves say how far the commit got,
//! because it creates them in that order and renames `bak-tmp` over `.bak`,
//! then `tmp` over the file:
//!
//! - `tmp` still there, or `undo` still the file's inode (a power loss
//!   dropped `tmp`'s unsynced entry): the file was not replaced. Roll back: remove `tmp`
//!   and `undo`; if `bak-tmp` is gone, the `.bak` was replaced, so put the
//!   old one back from `bak-undo` (with no `bak-undo` there was no old
//!   `.bak`, and the new one, holding the file's current content, stays);
//!   remove `bak-tmp` and `bak-undo`.
//! - `tmp` gone but `undo` there and not the file's inode: the file was
//!   replaced (the commit point):
//!   roll forward, remove `undo` and `bak-undo`; a `bak-tmp` still there
//!   means a power loss dropped the `.bak`'s rename and kept the file's
//!   (renames are durable only with the directory's fsync after both), so
//!   it is renamed over the `.bak` first.
//! - neither: the commit died while staging the backup, or after its
//!   cleanup began; remove what is left.
//!
//! It runs on the next commit in that directory and from `splice recover`
//! (over every directory of the roots). A file whose lock another process
//! or another call of this one holds is skipped: its names may belong to a
//! live commit. After a directory's first clean sweep, a commit there
//! probes only its own files' names ([`SweptDirs`]).

use std::collections::{BTreeMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use super::lock::{self, LockTable};
use super::stage::{self, backup_name, remove_if_exists};
use crate::fsio::{FsError, FsErrorKind, FsOp};
use crate::sandbox::Dir;

const ROLES: [&str; 4] = ["bak-tmp", "bak-undo", "tmp", "undo"];

/// What a sweep of one directory did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Swept {
    /// Files whose interrupted commit was undone (the file is old).
    pub rolled_back: Vec<PathBuf>,
    /// Files whose interrupted commit had replaced them (the file is new).
    pub completed: Vec<PathBuf>,
    /// Files skipped because a live commit holds their lock.
    pub busy: Vec<PathBuf>,
    /// Steps that failed (the names stay for the next sweep).
    pub problems: Vec<FsError>,
}

impl Swept {
    pub fn is_empty(&self) -> bool {
        self.rolled_back.is_empty()
            && self.completed.is_empty()
            && self.busy.is_empty()
            && self.problems.is_empty()
    }

    pub(crate) fn absorb(&mut self, other: Swept) {
        self.rolled_back.extend(other.rolled_back);
        self.completed.extend(other.completed);
        self.busy.extend(other.busy);
        self.problems.extend(other.problems);
    }
}

/// Directories this process has listed once and left clean, so that a
/// commit does not list its directory every time: listing is `O(entries)`,
/// and in a directory of 20,000 files it cost every edit about 10 ms of
/// `getdents64`, whether or not other programs were writing there.
///
/// The first commit of this process in a directory lists it and finishes
/// whatever an interrupted commit left ([`sweep`]). When that sweep found
/// nothing busy and nothing failing, the directory is marked, by device and
/// inode, and later commits there only probe the committing files' own four
/// staging names ([`sweep_names`], `O(1)`): those are the names a commit
/// would collide with, and a crash of this process cannot leave others
/// without ending it. A single-file commit that could not remove its own
/// names unmarks the directory, so the next commit lists it again.
///
/// What it gives up: names that *another* process leaves in an already
/// swept directory, by dying in a single-file commit of a file this process
/// does not commit afterwards, wait for the next start of a server (its
/// first commit there lists the directory) or `splice recover`. The file
/// they belong to is entirely old or entirely new either way (one rename);
/// only the hidden names and, with a backup, the `.bak` wait.
#[derive(Debug, Default)]
pub(crate) struct SweptDirs(Mutex<HashSet<(u64, u64)>>);

/// Directories remembered at most; past it the memory starts over (each
/// forgotten directory is listed once more).
const SWEPT_DIRS_MAX: usize = 4096;

impl SweptDirs {
    /// `dir`'s device and inode, or `None` if `fstat` fails.
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    fn id(dir: &Dir) -> Option<(u64, u64)> {
        let st = rustix::fs::fstat(dir.fd()).ok()?;
        Some((st.st_dev as u64, st.st_ino as u64))
    }

    fn known(&self) -> std::sync::MutexGuard<'_, HashSet<(u64, u64)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// True if this process swept `dir` and left it clean.
    pub(crate) fn holds(&self, dir: &Dir) -> bool {
        Self::id(dir).is_some_and(|id| self.known().contains(&id))
    }

    /// Remembers `dir` as swept and clean.
    pub(crate) fn mark(&self, dir: &Dir) {
        let Some(id) = Self::id(dir) else { return };
        let mut known = self.known();
        if known.len() >= SWEPT_DIRS_MAX && !known.contains(&id) {
            known.clear();
        }
        known.insert(id);
    }

    /// Forgets `dir`: the next commit there lists it again.
    pub(crate) fn forget(&self, dir: &Dir) {
        if let Some(id) = Self::id(dir) {
            self.known().remove(&id);
        }
    }
}

/// The file name and role a fixed staging name stands for, if it is one
/// (`.<name>.splice.<role>`; hashed long names are left alone).
fn parse(name: &OsStr) -> Option<(OsString, &'static str)> {
    let bytes = name.as_bytes();
    let rest = bytes.strip_prefix(b".")?;
    for role in ROLES {
        let tail = format!(".splice.{role}");
        if let Some(file) = rest.strip_suffix(tail.as_bytes())
            && !file.is_empty()
        {
            return Some((OsStr::from_bytes(file).to_os_string(), role));
        }
    }
    None
}

/// Finishes every interrupted single-file commit whose names are in `dir`.
/// `held` are the files of `dir` the caller already holds locked (its own
/// commit's), which are swept without taking their lock again.
pub(crate) fn sweep(dir: &Dir, locks: &LockTable, held: &[&OsStr]) -> Swept {
    let mut out = Swept::default();
    let mut found: BTreeMap<OsString, Vec<&'static str>> = BTreeMap::new();
    let entries = match std::fs::read_dir(dir.path()) {
        Ok(e) => e,
        Err(e) => {
            out.problems
                .push(FsError::from_io(&e, FsOp::Restore, dir.path()));
            return out;
        }
    };
    for entry in entries.flatten() {
        if let Some((file, role)) = parse(&entry.file_name()) {
            found.entry(file).or_default().push(role);
        }
    }
    for (file, roles) in found {
        let path = dir.path().join(&file);
        let own = held.contains(&file.as_os_str());
        let _table;
        let _flock;
        if !own {
            let Some(guard) = locks.try_lock(&path) else {
                out.busy.push(path);
                continue;
            };
            _table = guard;
            match lock::lock_file(dir, &file, &path, Duration::ZERO) {
                Ok(f) => _flock = Some(f),
                Err(e) if e.kind == FsErrorKind::NotFound => _flock = None,
                Err(e) if e.kind == FsErrorKind::Busy => {
                    out.busy.push(path);
                    continue;
                }
                Err(e) => {
                    out.problems.push(e);
                    continue;
                }
            }
        }
        finish(dir, &file, &path, &roles, &mut out);
    }
    out
}

/// [`sweep`] restricted to the staging names of `own`, files of `dir` the
/// caller holds locked: four `fstatat`s a file instead of a listing. For a
/// directory already swept ([`SweptDirs`]).
pub(crate) fn sweep_names(dir: &Dir, own: &[&OsStr]) -> Swept {
    let mut out = Swept::default();
    for &file in own {
        let mut roles = Vec::new();
        for role in ROLES {
            match stage::lstat(dir, &stage::fixed(file, role)) {
                Ok(Some(_)) => roles.push(role),
                Ok(None) => {}
                Err(e) => out.problems.push(FsError::from_io(
                    &e,
                    FsOp::Restore,
                    dir.path().join(stage::fixed(file, role)),
                )),
            }
        }
        if !roles.is_empty() {
            finish(dir, file, &dir.path().join(file), &roles, &mut out);
        }
    }
    out
}

fn finish(dir: &Dir, file: &OsStr, path: &Path, roles: &[&str], out: &mut Swept) {
    let has = |role: &str| roles.contains(&role);
    let name = |role: &str| stage::fixed(file, role);
    let mut problems = Vec::new();
    let mut step = |r: std::io::Result<()>, what: &OsStr| {
        if let Err(e) = r {
            problems.push(FsError::from_io(&e, FsOp::Restore, dir.path().join(what)));
        }
    };
    // The file was not replaced while its temp is there, nor while it is
    // still the undo name's inode: a power loss before the directory's
    // fsync may drop the temp's entry and keep the undo's.
    let unreplaced = has("undo")
        && matches!(
            (stage::id_of(dir, file), stage::id_of(dir, &name("undo"))),
            (Ok(Some(f)), Ok(Some(u))) if f == u
        );
    let rolled_back = has("tmp") || unreplaced;
    if rolled_back {
        if !has("bak-tmp") && has("bak-undo") {
            // The `.bak` was replaced, the file was not: the old `.bak` back.
            let bak = backup_name(file);
            step(stage::rename(dir, &name("bak-undo"), &bak), &bak);
            // Durable before the names that say it is needed go (power loss).
            step(dir.sync(), OsStr::new("."));
        }
        for role in ROLES {
            step(remove_if_exists(dir, &name(role)), &name(role));
        }
    } else {
        if has("undo") && has("bak-tmp") {
            // The file was replaced, but a power loss kept that rename and
            // dropped the `.bak`'s (made first, durable only with the
            // directory's fsync after both): finish it (found by
            // scripts/power-loss).
            let bak = backup_name(file);
            step(stage::rename(dir, &name("bak-tmp"), &bak), &bak);
            step(dir.sync(), OsStr::new("."));
        }
        for role in ["undo", "bak-undo", "bak-tmp"] {
            step(remove_if_exists(dir, &name(role)), &name(role));
        }
    }
    if problems.is_empty()
        && let Err(e) = dir.sync()
    {
        problems.push(FsError::from_io(&e, FsOp::Sync, dir.path()));
    }
    if !problems.is_empty() {
        out.problems.extend(problems);
    } else if rolled_back {
        tracing::info!(file = %path.display(), "rolled back an interrupted single-file commit");
        out.rolled_back.push(path.to_path_buf());
    } else if has("undo") {
        tracing::info!(file = %path.display(), "finished an interrupted single-file commit");
        out.completed.push(path.to_path_buf());
    } else {
        out.rolled_back.push(path.to_path_buf());
    }
}

/// [`sweep`] over `root` and every directory below it (symlinks not
/// followed), for `splice recover`.
pub(crate) fn sweep_tree(root: &Path, locks: &LockTable) -> Swept {
    let mut out = Swept::default();
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let dir = match Dir::open_nofollow(&path) {
            Ok(d) => d,
            Err(e) => {
                out.problems
                    .push(FsError::from_io(&e, FsOp::Restore, &path));
                continue;
            }
        };
        if let Ok(entries) = std::fs::read_dir(&path) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(entry.path());
                }
            }
        }
        out.absorb(sweep(&dir, locks, &[]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_names_parse_to_their_file_and_role() {
        assert_eq!(
            parse(OsStr::new(".a.txt.splice.bak-undo")),
            Some((OsString::from("a.txt"), "bak-undo"))
        );
        assert_eq!(
            parse(OsStr::new(".a.txt.splice.tmp")),
            Some((OsString::from("a.txt"), "tmp"))
        );
        assert_eq!(parse(OsStr::new("a.txt.splice.tmp")), None);
        assert_eq!(parse(OsStr::new(".splice.tmp")), None);
        assert_eq!(parse(OsStr::new(".a.splice-1-2.tmp")), None);
    }

    /// The names in `dir`, sorted.
    fn sorted_names(dir: &std::path::Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    /// What a power loss can leave of a single-file commit with a backup
    /// (scripts/power-loss): the file's rename kept, the `.bak`'s (made
    /// first, not yet fsynced) dropped. The sweep finishes the `.bak`.
    #[test]
    fn a_file_renamed_without_its_bak_is_finished_with_the_bak() {
        let tmp = tempfile::tempdir().unwrap();
        let p = |n: &str| tmp.path().join(n);
        std::fs::write(p("a.txt"), "new").unwrap();
        std::fs::write(p("a.txt.bak"), "an older backup").unwrap();
        std::fs::write(p(".a.txt.splice.bak-tmp"), "old").unwrap();
        std::fs::write(p(".a.txt.splice.bak-undo"), "an older backup").unwrap();
        std::fs::write(p(".a.txt.splice.undo"), "old").unwrap();
        let dir = Dir::open_nofollow(tmp.path()).unwrap();
        let swept = sweep(&dir, &LockTable::default(), &[]);
        assert!(swept.problems.is_empty(), "{:?}", swept.problems);
        assert_eq!(swept.completed, vec![p("a.txt")]);
        assert_eq!(sorted_names(tmp.path()), ["a.txt", "a.txt.bak"]);
        assert_eq!(std::fs::read_to_string(p("a.txt")).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(p("a.txt.bak")).unwrap(), "old");
    }

    /// A power loss before the directory's fsync can drop the temp's entry
    /// and keep the undo link: the file is still the undo's inode, so the
    /// commit is rolled back, not finished (scripts/power-loss).
    #[test]
    fn an_undo_name_that_is_still_the_file_rolls_back() {
        let tmp = tempfile::tempdir().unwrap();
        let p = |n: &str| tmp.path().join(n);
        std::fs::write(p("a.txt"), "old").unwrap();
        std::fs::write(p("a.txt.bak"), "an older backup").unwrap();
        std::fs::write(p(".a.txt.splice.bak-tmp"), "old").unwrap();
        std::fs::hard_link(p("a.txt.bak"), p(".a.txt.splice.bak-undo")).unwrap();
        std::fs::hard_link(p("a.txt"), p(".a.txt.splice.undo")).unwrap();
        let dir = Dir::open_nofollow(tmp.path()).unwrap();
        let swept = sweep(&dir, &LockTable::default(), &[]);
        assert!(swept.problems.is_empty(), "{:?}", swept.problems);
        assert_eq!(swept.rolled_back, vec![p("a.txt")]);
        assert_eq!(sorted_names(tmp.path()), ["a.txt", "a.txt.bak"]);
        assert_eq!(std::fs::read_to_string(p("a.txt")).unwrap(), "old");
        assert_eq!(
            std::fs::read_to_string(p("a.txt.bak")).unwrap(),
            "an older backup"
        );
    }
}
