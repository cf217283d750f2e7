//! Path resolution beneath pinned root directories, without a
//! time-of-check/time-of-use gap.
//!
//! # Why
//!
//! Checking a path (`canonicalize`, compare with the roots) and then opening
//! it by name are two lookups: a process that can write inside a root can swap
//! a directory for a symlink in between and redirect the read or the write
//! outside. Here the check *is* the open: the path is walked one component at
//! a time with `openat(O_PATH | O_NOFOLLOW | O_DIRECTORY)` relative to the
//! directory handle of the previous component, starting from a handle of the
//! root opened when the root was configured. Symlinks are never followed by
//! the kernel; the walk reads each one (`readlinkat`) and resolves its text
//! itself, so it knows at every step which canonical path it stands on. The
//! result ([`Located`]) is the handle of the file's parent directory, the
//! file's name in it and its canonical path. The read opens the file relative
//! to that handle ([`crate::fsio::read_located`]), and the commit creates its
//! temp files, links, renames and fsyncs relative to it
//! ([`crate::commit`]). A symlink swapped in anywhere along the path after the
//! walk therefore cannot redirect anything: the handles point at the
//! directories that were walked, and the final name is opened and replaced
//! with `O_NOFOLLOW` / `renameat`, which never follow a symlink.
//!
//! # Rules of the walk
//!
//! - **Roots are pinned.** [`Handles`] holds an `O_PATH` handle of `/` and of
//!   every root, opened when the configuration is built. Whenever the walk
//!   reaches a root's canonical path it continues from that pinned handle, so
//!   renaming or replacing a root (or one of its ancestors) later changes
//!   nothing. Roots added later (an MCP client narrowing the roots to a
//!   subdirectory) are opened on first use, by a walk that follows no symlink
//!   from the nearest pinned handle, and then stay pinned.
//! - **Symlinks are followed by text.** A relative target continues from the
//!   link's directory (`..` pops back to the handle the walk came through,
//!   never `openat(fd, "..")`); an absolute target restarts from `/` or from
//!   the pinned handle of the root its text lies in. Links inside a root may
//!   point anywhere inside any root (absolute or relative). At most 40 links
//!   are followed (`ELOOP`). Symlinks on procfs are refused (`Outside`): they
//!   are the kernel's "magic links" (`/proc/self/root`, `/proc/self/fd/N`,
//!   `/proc/PID/cwd`), whose text does not say where they lead; so
//!   `/proc/self/root/...` is refused even when a root contains `/proc`.
//! - **Nothing outside the roots is looked up once the walk is inside one.**
//!   Before it first enters a root, the walk resolves the caller's own path
//!   like `realpath` would (so `/home/me/link-to-project/file` works when the
//!   link leads into a root). After that, a step to a name outside every root
//!   is refused as `Outside` without a system call, unless it is an ancestor
//!   of a root on the way to one (`../other-root/file`): a symlink planted
//!   inside a root cannot be used to probe which outside paths exist.
//! - **One answer for outside.** Any failure at a position outside every root,
//!   and any result outside every root, is [`LocateError::Outside`], whether
//!   the outside path exists, loops, is a FIFO or is unreadable. Failures
//!   inside a root carry their errno.
//!
//! # Threat model
//!
//! Defended: a local process (or the model, through other tools) that can
//! create, rename and delete entries *inside* a root, racing splice's calls,
//! including symlink swaps of any directory or of the file itself; symlinks
//! pointing outside, absolute or relative; `/proc` magic links. Not defended,
//! by design:
//!
//! - **Hard links.** A hard link is the file itself, not a path: splice cannot
//!   tell where else an inode is linked. A file inside a root that is also
//!   linked outside is read through its inside name; writing it replaces the
//!   inside name with a new inode (atomic rename), so the outside names keep
//!   the old content and are never written. With `fs.protected_hardlinks=1`
//!   (the default on Linux distributions) only a user who owns a file, or can
//!   read and write it, can link it into a root.
//! - **Directories moved out of a root mid-call.** A process that can write
//!   both inside a root and outside can move a directory out while a call
//!   holds its handle; the call's write then lands in that moved directory.
//!   That is no escalation: the same process could move the directory after
//!   the write. Symlinks inside the moved directory still resolve by the
//!   canonical path the walk tracked, not by where the directory now is.
//! - **Device nodes swapped in** between the type check and the open of the
//!   final file (`mknod` needs privileges the defended process lacks); FIFOs
//!   are harmless because the open is `O_NONBLOCK`.
//! - Mounts inside a root (bind mounts included) are part of the root.
//!
//! Linux only (`O_PATH`, procfs). `openat2(RESOLVE_BENEATH)` is not used: it
//! refuses absolute symlinks (`EXDEV`), which splice must follow when they stay
//! inside a root, and it would still need this walk for links between roots.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// Most symlinks one resolution follows (Linux's own limit).
pub const MAX_HOPS: u32 = 40;
/// Longest canonical path the walk builds, in bytes (PATH_MAX).
const MAX_PATH: usize = 4096;

/// An open directory (an `O_PATH` handle) and the canonical path it had when
/// the walk opened it. Every `*at` call of the read and the commit is made
/// relative to one of these.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

impl Dir {
    /// The canonical path the directory had when it was opened (for journals,
    /// lock ordering and messages; never used to reach the directory).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The handle, for `*at` calls.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Opens `/` (absolute paths only make sense from there) or walks
    /// `path`'s components from `/` following no symlink.
    pub fn open_nofollow(path: &Path) -> io::Result<Dir> {
        let slash = Dir::slash()?;
        slash.descend_nofollow(path.strip_prefix("/").map_err(|_| einval())?)
    }

    fn slash() -> io::Result<Dir> {
        let fd = rustix::fs::open("/", dir_flags(), Mode::empty())?;
        Ok(Dir {
            fd,
            path: PathBuf::from("/"),
        })
    }

    /// Walks the relative `rest` below this directory, refusing symlinks
    /// (a symlink component fails with ENOTDIR).
    fn descend_nofollow(&self, rest: &Path) -> io::Result<Dir> {
        let mut fd = rustix::fs::openat(self.fd(), ".", dir_flags(), Mode::empty())?;
        let mut path = self.path.clone();
        for c in rest.components() {
            match c {
                Component::Normal(name) => {
                    fd = rustix::fs::openat(&fd, name, dir_flags(), Mode::empty())?;
                    path.push(name);
                }
                Component::CurDir => {}
                _ => return Err(einval()),
            }
        }
        Ok(Dir { fd, path })
    }

    /// Creates the directory `name` here (mode 0777 less the umask, as
    /// `mkdir` does) and opens it, following no symlink. A directory that
    /// already exists there is opened (`Ok((dir, false))`).
    pub fn make_child(&self, name: &OsStr) -> io::Result<(Dir, bool)> {
        let made = match rustix::fs::mkdirat(self.fd(), name, Mode::from_raw_mode(0o777)) {
            Ok(()) => true,
            Err(Errno::EXIST) => false,
            Err(e) => return Err(e.into()),
        };
        let fd = match rustix::fs::openat(self.fd(), name, dir_flags(), Mode::empty()) {
            Ok(fd) => fd,
            Err(e) => {
                // Not left behind: the caller never learns it was made.
                if made {
                    let _ = rustix::fs::unlinkat(self.fd(), name, AtFlags::REMOVEDIR);
                }
                return Err(e.into());
            }
        };
        Ok((
            Dir {
                fd,
                path: self.path.join(name),
            },
            made,
        ))
    }

    /// `fsync` of the directory, making the names in it durable. An `O_PATH`
    /// handle cannot be fsynced; `openat(fd, ".")` reopens the same directory
    /// for reading without a lookup by name.
    pub fn sync(&self) -> io::Result<()> {
        let fd = rustix::fs::openat(
            self.fd(),
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        rustix::fs::fsync(&fd)?;
        Ok(())
    }
}

fn dir_flags() -> OFlags {
    OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

fn einval() -> io::Error {
    io::Error::from_raw_os_error(libc::EINVAL)
}

/// The pinned directories: `/` and every root, by canonical path. Cheap to
/// clone (shared); roots opened on first use are added for every clone.
#[derive(Debug, Clone)]
pub struct Handles {
    pinned: Arc<Mutex<HashMap<PathBuf, Arc<Dir>>>>,
}

impl Handles {
    /// Opens `/` and each of the canonical `roots` (following no symlink).
    pub fn open(roots: &[PathBuf]) -> io::Result<Handles> {
        let slash = Arc::new(Dir::slash()?);
        let mut pinned = HashMap::new();
        pinned.insert(PathBuf::from("/"), slash.clone());
        for root in roots {
            let rest = root.strip_prefix("/").map_err(|_| einval())?;
            let dir = slash.descend_nofollow(rest).map_err(|e| {
                io::Error::new(e.kind(), format!("opening root {}: {e}", root.display()))
            })?;
            pinned.insert(root.clone(), Arc::new(dir));
        }
        Ok(Handles {
            pinned: Arc::new(Mutex::new(pinned)),
        })
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Arc<Dir>>> {
        self.pinned.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn slash(&self) -> Arc<Dir> {
        // Inserted by `open`, never removed.
        self.map()
            .get(Path::new("/"))
            .cloned()
            .expect("`/` is pinned at construction")
    }

    /// The pinned handle of the canonical `root`, opening it (no symlink
    /// followed, from the nearest pinned ancestor) if this is its first use.
    pub fn root(&self, root: &Path) -> io::Result<Arc<Dir>> {
        if let Some(d) = self.map().get(root) {
            return Ok(d.clone());
        }
        let base = {
            let map = self.map();
            root.ancestors()
                .find_map(|a| map.get(a).cloned())
                .expect("`/` is an ancestor of every absolute path")
        };
        let rest = root.strip_prefix(&base.path).map_err(|_| einval())?;
        let dir = Arc::new(base.descend_nofollow(rest)?);
        Ok(self.map().entry(root.to_path_buf()).or_insert(dir).clone())
    }
}

/// What the walk found: the final name inside its pinned parent directory.
#[derive(Debug, Clone)]
pub struct Located {
    /// The parent directory, as walked.
    pub dir: Arc<Dir>,
    /// The final name in `dir` (`.` when the path names a directory the walk
    /// stood on, such as a root itself).
    pub name: OsString,
    /// The canonical path (`dir`'s path joined with `name`).
    pub path: PathBuf,
    /// The type of what `name` was when the walk looked (`lstat`): never a
    /// symlink.
    pub file_type: FileType,
    /// Its size then.
    pub size: u64,
}

/// Why a path could not be located.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocateError {
    /// Outside every root, as far as anyone may tell (see the module docs).
    Outside,
    /// A failure at a position inside a root, by errno.
    Os(i32),
}

/// Resolves the absolute `path` beneath `roots` (canonical, each pinned or
/// pinnable in `handles`).
pub fn locate(handles: &Handles, roots: &[PathBuf], path: &Path) -> Result<Located, LocateError> {
    match walk(handles, roots, path, false)? {
        Found::Existing(l) => Ok(l),
        Found::Absent(_) => Err(LocateError::Os(libc::ENOENT)),
    }
}

/// A path that does not exist yet, inside a root: the deepest existing
/// directory on the way (walked like any other), the directories still
/// missing below it, in order, and the final name.
#[derive(Debug, Clone)]
pub struct Absent {
    /// The deepest existing directory, as walked.
    pub dir: Arc<Dir>,
    /// Names of the directories to create below `dir`, outermost first
    /// (empty when the parent exists).
    pub missing: Vec<OsString>,
    /// The final name, in the last of `missing` (or in `dir`).
    pub name: OsString,
    /// The canonical path it will have.
    pub path: PathBuf,
}

impl Absent {
    /// The canonical path of the directory the name goes in.
    pub fn parent_path(&self) -> PathBuf {
        let mut p = self.dir.path().to_path_buf();
        p.extend(&self.missing);
        p
    }
}

/// What a walk that may end on a missing name found.
#[derive(Debug, Clone)]
pub enum Found {
    Existing(Located),
    Absent(Absent),
}

/// [`locate`] for a path that is to be created (a create, a move's
/// destination): symlinks are followed and the result is held to the roots
/// exactly as for [`locate`], but a missing final name, or missing
/// directories before it, is an answer ([`Found::Absent`]), not an error,
/// when that position is inside a root. A `..` after a missing directory
/// is `ENOENT`, as the kernel would say.
pub fn locate_new(handles: &Handles, roots: &[PathBuf], path: &Path) -> Result<Found, LocateError> {
    walk(handles, roots, path, true)
}

fn walk(
    handles: &Handles,
    roots: &[PathBuf],
    path: &Path,
    new_ok: bool,
) -> Result<Found, LocateError> {
    if !path.is_absolute() || path.as_os_str().as_bytes().contains(&0) {
        return Err(LocateError::Outside);
    }
    let mut w = Walk {
        handles,
        roots,
        stack: Vec::new(),
        pending: Vec::new(),
        hops: 0,
        entered: false,
        new_ok,
    };
    w.start(path)?;
    w.run()
}

/// One step still to take.
enum Step {
    Name(OsString),
    Parent,
}

/// A directory the walk stands on. `dir` is `None` only for an outside
/// ancestor of a root that the walk passed lexically (never looked up).
struct Pos {
    path: PathBuf,
    dir: Option<Arc<Dir>>,
}

struct Walk<'a> {
    handles: &'a Handles,
    roots: &'a [PathBuf],
    /// From `/` down to the current directory.
    stack: Vec<Pos>,
    /// Steps to take, last first.
    pending: Vec<Step>,
    hops: u32,
    /// Whether the walk has stood inside a root yet.
    entered: bool,
    /// Whether a missing name inside a root ends the walk as [`Found::Absent`].
    new_ok: bool,
}

impl Walk<'_> {
    fn inside(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| p.starts_with(r))
    }

    fn is_root(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| r == p)
    }

    fn leads_to_root(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| r.starts_with(p))
    }

    /// The answer for errno `e` at canonical position `at`.
    fn fail(&self, e: Errno, at: &Path) -> LocateError {
        if self.inside(at) {
            LocateError::Os(e.raw_os_error())
        } else {
            LocateError::Outside
        }
    }

    /// Positions the walk at `/`, or at the pinned root that lexically
    /// prefixes `target` (its ancestors passed lexically), and queues the
    /// rest of `target` before whatever is pending.
    fn start(&mut self, target: &Path) -> Result<(), LocateError> {
        self.stack.clear();
        let best = self
            .roots
            .iter()
            .filter(|r| target.starts_with(r))
            .max_by_key(|r| r.as_os_str().len());
        let rest = match best {
            Some(root) => {
                let pinned = self
                    .handles
                    .root(root)
                    .map_err(|e| self.fail(errno(&e), root))?;
                for a in root
                    .ancestors()
                    .skip(1)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                {
                    let dir = if a == Path::new("/") {
                        Some(self.handles.slash())
                    } else if self.is_root(a) {
                        self.handles.root(a).ok()
                    } else {
                        None
                    };
                    self.stack.push(Pos {
                        path: a.to_path_buf(),
                        dir,
                    });
                }
                self.stack.push(Pos {
                    path: root.clone(),
                    dir: Some(pinned),
                });
                self.entered = true;
                target.strip_prefix(root).unwrap_or(Path::new(""))
            }
            None => {
                self.stack.push(Pos {
                    path: PathBuf::from("/"),
                    dir: Some(self.handles.slash()),
                });
                target.strip_prefix("/").unwrap_or(target)
            }
        };
        self.queue(rest);
        Ok(())
    }

    /// Queues the components of the relative `p` to be taken next.
    fn queue(&mut self, p: &Path) {
        let steps: Vec<Step> = p
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(Step::Name(n.to_os_string())),
                Component::ParentDir => Some(Step::Parent),
                _ => None,
            })
            .collect();
        self.pending.extend(steps.into_iter().rev());
    }

    fn top(&self) -> &Pos {
        self.stack.last().expect("the walk always stands somewhere")
    }

    /// The handle of the current directory, opening it (no symlink followed)
    /// when the walk only passed it lexically. Only positions inside a root
    /// can need that (nested roots); outside ones are never looked up in.
    fn top_dir(&mut self) -> Result<Arc<Dir>, LocateError> {
        let pos = self.top();
        if let Some(d) = &pos.dir {
            return Ok(d.clone());
        }
        let path = pos.path.clone();
        if !self.inside(&path) {
            return Err(LocateError::Outside);
        }
        let dir = Arc::new(Dir::open_nofollow(&path).map_err(|e| self.fail(errno(&e), &path))?);
        if let Some(p) = self.stack.last_mut() {
            p.dir = Some(dir.clone());
        }
        Ok(dir)
    }

    /// The rest of the walk below a missing directory `first` at `at`: every
    /// pending step must be a name; the last is the file's.
    fn absent(&mut self, first: OsString, at: &Path) -> Result<Found, LocateError> {
        let mut names = vec![first];
        let mut path = at.to_path_buf();
        while let Some(step) = self.pending.pop() {
            match step {
                Step::Name(n) => {
                    path.push(&n);
                    names.push(n);
                }
                Step::Parent => return Err(self.fail(Errno::NOENT, at)),
            }
        }
        if path.as_os_str().len() > MAX_PATH {
            return Err(self.fail(Errno::NAMETOOLONG, &path));
        }
        let dir = self.top_dir()?;
        let name = names.pop().expect("at least `first`");
        Ok(Found::Absent(Absent {
            dir,
            missing: names,
            name,
            path,
        }))
    }

    fn run(&mut self) -> Result<Found, LocateError> {
        while let Some(step) = self.pending.pop() {
            let name = match step {
                Step::Parent => {
                    if self.stack.len() > 1 {
                        self.stack.pop();
                    }
                    continue;
                }
                Step::Name(n) => n,
            };
            let next = self.top().path.join(&name);
            if next.as_os_str().len() > MAX_PATH {
                return Err(self.fail(Errno::NAMETOOLONG, &next));
            }
            let last = self.pending.is_empty();
            if self.is_root(&next) {
                let dir = self
                    .handles
                    .root(&next)
                    .map_err(|e| self.fail(errno(&e), &next))?;
                self.stack.push(Pos {
                    path: next,
                    dir: Some(dir),
                });
                self.entered = true;
                continue;
            }
            if self.entered && !self.inside(&next) {
                // Only ever passed lexically, on the way into another root.
                if !last && self.leads_to_root(&next) {
                    self.stack.push(Pos {
                        path: next,
                        dir: None,
                    });
                    continue;
                }
                return Err(LocateError::Outside);
            }
            let dir = self.top_dir()?;
            if !last {
                match rustix::fs::openat(dir.fd(), &name, dir_flags(), Mode::empty()) {
                    Ok(fd) => {
                        self.entered |= self.inside(&next);
                        self.stack.push(Pos {
                            path: next.clone(),
                            dir: Some(Arc::new(Dir { fd, path: next })),
                        });
                    }
                    // A symlink (O_PATH|O_NOFOLLOW|O_DIRECTORY gives ENOTDIR
                    // for one), or a non-directory.
                    Err(Errno::NOTDIR) | Err(Errno::LOOP) => self.follow(&dir, &name, &next)?,
                    Err(Errno::NOENT) if self.new_ok && self.inside(&next) => {
                        return self.absent(name, &next);
                    }
                    Err(e) => return Err(self.fail(e, &next)),
                }
                continue;
            }
            match rustix::fs::statat(dir.fd(), &name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => {
                    let file_type = FileType::from_raw_mode(st.st_mode as _);
                    if file_type == FileType::Symlink {
                        self.follow(&dir, &name, &next)?;
                        continue;
                    }
                    if !self.inside(&next) {
                        return Err(LocateError::Outside);
                    }
                    return Ok(Found::Existing(Located {
                        dir,
                        name,
                        path: next,
                        file_type,
                        size: st.st_size as u64,
                    }));
                }
                Err(Errno::NOENT) if self.new_ok && self.inside(&next) => {
                    return self.absent(name, &next);
                }
                Err(e) => return Err(self.fail(e, &next)),
            }
        }
        // The path ends on a directory the walk stands on (a root, or a link
        // to a directory): report it as a directory, named `.` in itself.
        let path = self.top().path.clone();
        if !self.inside(&path) {
            return Err(LocateError::Outside);
        }
        let dir = self.top_dir()?;
        let st = rustix::fs::fstat(dir.fd()).map_err(|e| self.fail(e, &path))?;
        Ok(Found::Existing(Located {
            dir,
            name: OsString::from("."),
            path,
            file_type: FileType::from_raw_mode(st.st_mode as _),
            size: st.st_size as u64,
        }))
    }

    /// `name` in `dir` (at canonical `at`) is not a directory: follows it if
    /// it is a symlink.
    fn follow(&mut self, dir: &Dir, name: &OsStr, at: &Path) -> Result<(), LocateError> {
        let target = match rustix::fs::readlinkat(dir.fd(), name, Vec::new()) {
            Ok(t) => t,
            // Not a symlink: a file where a directory is needed.
            Err(Errno::INVAL) => return Err(self.fail(Errno::NOTDIR, at)),
            Err(e) => return Err(self.fail(e, at)),
        };
        self.hops += 1;
        if self.hops > MAX_HOPS {
            return Err(self.fail(Errno::LOOP, at));
        }
        // procfs links are magic: their text does not say where they lead.
        match rustix::fs::fstatfs(dir.fd()) {
            Ok(sfs) if sfs.f_type == rustix::fs::PROC_SUPER_MAGIC => {
                return Err(LocateError::Outside);
            }
            Ok(_) => {}
            Err(e) => return Err(self.fail(e, at)),
        }
        let target = PathBuf::from(OsString::from_vec(target.into_bytes()));
        if target.as_os_str().is_empty() {
            return Err(self.fail(Errno::NOENT, at));
        }
        if target.is_absolute() {
            self.start(&target)
        } else {
            self.queue(&target);
            Ok(())
        }
    }
}

fn errno(e: &io::Error) -> Errno {
    Errno::from_io_error(e).unwrap_or(Errno::IO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Fx {
        _a: tempfile::TempDir,
        _b: tempfile::TempDir,
        _out: tempfile::TempDir,
        a: PathBuf,
        b: PathBuf,
        out: PathBuf,
        handles: Handles,
    }

    fn fx() -> Fx {
        let (ta, tb, to) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let a = ta.path().canonicalize().unwrap();
        let b = tb.path().canonicalize().unwrap();
        let out = to.path().canonicalize().unwrap();
        let handles = Handles::open(&[a.clone(), b.clone()]).unwrap();
        Fx {
            _a: ta,
            _b: tb,
            _out: to,
            a,
            b,
            out,
            handles,
        }
    }

    impl Fx {
        fn locate(&self, p: &Path) -> Result<PathBuf, LocateError> {
            locate(&self.handles, &[self.a.clone(), self.b.clone()], p).map(|l| l.path)
        }
    }

    #[test]
    fn follows_links_inside_and_between_roots_absolute_or_relative() {
        let f = fx();
        std::fs::create_dir(f.a.join("d")).unwrap();
        std::fs::write(f.a.join("d/x"), "x").unwrap();
        std::fs::write(f.b.join("y"), "y").unwrap();
        symlink("d/x", f.a.join("rel")).unwrap();
        symlink(f.a.join("d"), f.a.join("absdir")).unwrap();
        symlink(f.b.join("y"), f.a.join("to-b")).unwrap();
        let up = "../".repeat(f.a.join("d").components().count() - 1);
        symlink(
            Path::new(&up)
                .join(f.b.strip_prefix("/").unwrap())
                .join("y"),
            f.a.join("d/rel-to-b"),
        )
        .unwrap();
        assert_eq!(f.locate(&f.a.join("rel")), Ok(f.a.join("d/x")));
        assert_eq!(f.locate(&f.a.join("absdir/x")), Ok(f.a.join("d/x")));
        assert_eq!(f.locate(&f.a.join("to-b")), Ok(f.b.join("y")));
        assert_eq!(f.locate(&f.a.join("d/rel-to-b")), Ok(f.b.join("y")));
        // A missing file inside is an errno, not Outside.
        assert_eq!(
            f.locate(&f.a.join("d/nope")),
            Err(LocateError::Os(libc::ENOENT))
        );
        assert_eq!(
            f.locate(&f.a.join("d/x/child")),
            Err(LocateError::Os(libc::ENOTDIR))
        );
    }

    #[test]
    fn outside_is_one_answer_whatever_is_there() {
        let f = fx();
        std::fs::write(f.out.join("secret"), "s").unwrap();
        std::fs::create_dir(f.out.join("dir")).unwrap();
        symlink(f.out.join("secret"), f.a.join("abs-out")).unwrap();
        symlink(f.out.join("missing"), f.a.join("abs-missing")).unwrap();
        symlink(f.out.join("dir"), f.a.join("dir-out")).unwrap();
        symlink("..", f.a.join("up")).unwrap();
        symlink("/proc/self/root", f.a.join("magic")).unwrap();
        for p in [
            f.out.join("secret"),
            f.out.join("missing"),
            f.a.join("abs-out"),
            f.a.join("abs-missing"),
            f.a.join("dir-out/anything"),
            f.a.join("dir-out"),
            f.a.join("up"),
            f.a.join("up/x"),
            f.a.join("magic").join(f.a.strip_prefix("/").unwrap()),
            PathBuf::from("/proc/self/root").join(f.a.strip_prefix("/").unwrap()),
            PathBuf::from("relative"),
        ] {
            assert_eq!(f.locate(&p), Err(LocateError::Outside), "{}", p.display());
        }
    }

    #[test]
    fn locate_new_finds_missing_names_and_directories_inside_only() {
        let f = fx();
        let roots = [f.a.clone(), f.b.clone()];
        std::fs::create_dir(f.a.join("d")).unwrap();
        std::fs::write(f.a.join("d/x"), "x").unwrap();
        symlink(f.out.join("missing"), f.a.join("dangling-out")).unwrap();
        symlink(f.a.join("d/new"), f.a.join("dangling-in")).unwrap();
        symlink(&f.out, f.a.join("dir-out")).unwrap();
        let new = |p: &Path| match locate_new(&f.handles, &roots, p) {
            Ok(Found::Absent(a)) => Ok((a.dir.path().to_path_buf(), a.missing, a.name, a.path)),
            Ok(Found::Existing(l)) => Err(format!("exists: {}", l.path.display())),
            Err(e) => Err(format!("{e:?}")),
        };
        assert_eq!(
            new(&f.a.join("d/y")),
            Ok((f.a.join("d"), vec![], "y".into(), f.a.join("d/y")))
        );
        assert_eq!(
            new(&f.a.join("p/q/r")),
            Ok((
                f.a.clone(),
                vec!["p".into(), "q".into()],
                "r".into(),
                f.a.join("p/q/r")
            ))
        );
        // A dangling link inside leads to its (inside) target.
        assert_eq!(
            new(&f.a.join("dangling-in")),
            Ok((f.a.join("d"), vec![], "new".into(), f.a.join("d/new")))
        );
        assert_eq!(
            new(&f.a.join("d/x")),
            Err(format!("exists: {}", f.a.join("d/x").display()))
        );
        for p in [
            f.a.join("dangling-out"),
            f.a.join("dir-out/new"),
            f.a.join("dir-out/p/q"),
            f.out.join("new"),
        ] {
            assert_eq!(new(&p), Err("Outside".into()), "{}", p.display());
        }
        // A file where a directory is needed is ENOTDIR, not a new directory.
        assert_eq!(
            new(&f.a.join("d/x/y")),
            Err(format!("{:?}", LocateError::Os(libc::ENOTDIR)))
        );
        // `locate` still says ENOENT for a missing name.
        assert_eq!(
            f.locate(&f.a.join("d/y")),
            Err(LocateError::Os(libc::ENOENT))
        );
    }

    #[test]
    fn loops_inside_are_eloop_and_a_root_is_a_directory() {
        let f = fx();
        symlink("l2", f.a.join("l1")).unwrap();
        symlink("l1", f.a.join("l2")).unwrap();
        assert_eq!(f.locate(&f.a.join("l1")), Err(LocateError::Os(libc::ELOOP)));
        let l = locate(&f.handles, std::slice::from_ref(&f.a), &f.a).unwrap();
        assert_eq!(l.file_type, FileType::Directory);
        assert_eq!(l.path, f.a);
    }

    #[test]
    fn roots_are_pinned_and_late_roots_open_without_following_links() {
        let f = fx();
        std::fs::create_dir(f.a.join("sub")).unwrap();
        std::fs::write(f.a.join("sub/f"), "1").unwrap();
        // A narrowed root, opened on first use.
        let sub = f.a.join("sub");
        let l = locate(&f.handles, std::slice::from_ref(&sub), &sub.join("f")).unwrap();
        assert_eq!(l.path, sub.join("f"));
        // A late root whose path is a symlink is not opened.
        symlink(f.out.clone(), f.a.join("link-root")).unwrap();
        let bad = f.a.join("link-root");
        assert_eq!(
            locate(&f.handles, std::slice::from_ref(&bad), &bad.join("x")).map(|l| l.path),
            Err(LocateError::Os(libc::ENOTDIR))
        );
    }
}
