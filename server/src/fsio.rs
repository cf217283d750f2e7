//! Reading files for editing, and classifying file-system failures.
//!
//! Everything the server learns from the file system passes through here so that
//! two rules hold everywhere:
//!
//! - A file is only ever edited if it is a regular file no larger than the limit.
//!   Symlinks are followed by [`crate::sandbox`]'s walk: the snapshot records the
//!   resolved target and the pinned handle of its directory, which is where the
//!   commit rewrites it (the link itself survives). The file is opened relative to
//!   that handle with `O_NOFOLLOW`, never again by path. Non-regular files
//!   (directories, FIFOs, sockets, devices) are refused by the type the walk saw
//!   *before* they are opened, because opening a tape device has side effects;
//!   the open is `O_NONBLOCK` so a FIFO swapped in meanwhile cannot hang it, and
//!   the opened file's type is checked again.
//! - The snapshot's sha256 is computed only when someone asks for it (an
//!   `expected_sha256` to compare, a stale report): the commit verifies by
//!   comparing bytes, which is much cheaper than hashing.
//! - An operating-system failure is reduced to an [`FsErrorKind`] chosen by errno,
//!   the operation that failed ([`FsOp`]) and the errno's symbolic name. The raw OS
//!   message never travels further: envelopes are built from these plain values.
//!
//! How the integrator maps a failure to a taxonomy code:
//!
//! | kind | code |
//! | --- | --- |
//! | `NotFound` | FILE_NOT_FOUND |
//! | `PermissionDenied` | PERMISSION_DENIED |
//! | `ReadOnly` | READ_ONLY_FS |
//! | `DiskFull` | DISK_FULL |
//! | `SymlinkLoop` | SYMLINK_LOOP |
//! | `NotRegularFile` | the "not a regular file" code, with `file_type` |
//! | `TooLarge` | the file-too-large code, with `limit` |
//! | `Stale` | the stale-file code, with `current_sha256` |
//! | `Busy`, `DuplicatePath`, `Other` | BACKUP_FAILED if `op` is [`FsOp::Backup`], else WRITE_FAILED (READ failures: the generic I/O code) |

use std::ffi::OsString;
use std::fmt;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustix::fs::{FileType, Mode, OFlags};
use sha2::{Digest, Sha256};

use crate::sandbox::{self, Dir, Handles, LocateError, Located};

/// What was read from disk: the bytes the edit engine works on and the facts the
/// commit needs to check and preserve.
#[derive(Debug, Clone)]
pub struct FileSnapshot {
    /// The resolved file (every symlink followed, absolute, canonical).
    pub path: PathBuf,
    /// The pinned handle of the file's directory: where the commit writes.
    pub dir: Arc<Dir>,
    /// The file's name in `dir`.
    pub name: OsString,
    pub bytes: Vec<u8>,
    /// Metadata of the opened file (mode, owner, inode) at read time.
    pub metadata: Metadata,
    sha256: OnceLock<[u8; 32]>,
}

impl FileSnapshot {
    /// The content hash, computed on first use.
    pub fn sha256(&self) -> [u8; 32] {
        *self
            .sha256
            .get_or_init(|| Sha256::digest(&self.bytes).into())
    }

    /// Replaces the bytes (re-read under the commit's lock, after another
    /// call changed the file); forgets the cached hash.
    pub fn replace_bytes(&mut self, bytes: Vec<u8>) {
        self.bytes = bytes;
        self.sha256 = OnceLock::new();
    }

    /// The content hash as lowercase hex, the form `expected_sha256` uses.
    pub fn sha256_hex(&self) -> String {
        hex::encode(self.sha256())
    }
}

/// The SHA-256 of `bytes` in lowercase hex: the form `expected_sha256`, the
/// answers and the undo store's records use.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The step during which a file-system failure happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FsOp {
    /// Reading a file to edit it.
    Read,
    /// Re-checking a file's content at commit time.
    Verify,
    /// Writing a temp file (or an undo copy) beside the target.
    Stage,
    /// `fsync` of a staged file or a directory.
    Sync,
    /// Renaming a staged file over its target.
    Rename,
    /// Creating or installing `<file>.bak`.
    Backup,
    /// Undoing renames after a failure.
    Restore,
    /// Taking a file's lock.
    Lock,
    /// Writing or removing the transaction journal.
    Journal,
}

impl FsOp {
    pub fn as_str(self) -> &'static str {
        match self {
            FsOp::Read => "read",
            FsOp::Verify => "verify",
            FsOp::Stage => "stage",
            FsOp::Sync => "sync",
            FsOp::Rename => "rename",
            FsOp::Backup => "backup",
            FsOp::Restore => "restore",
            FsOp::Lock => "lock",
            FsOp::Journal => "journal",
        }
    }
}

/// Why a file-system operation failed, by errno (or by a check of ours).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsErrorKind {
    /// ENOENT, or ENOTDIR (a path component is not a directory).
    NotFound,
    /// EACCES or EPERM (EPERM is also what an immutable file gives).
    PermissionDenied,
    /// EROFS.
    ReadOnly,
    /// ENOSPC or EDQUOT.
    DiskFull,
    /// ELOOP.
    SymlinkLoop,
    /// Not a regular file: "directory", "fifo", "socket", "block device",
    /// "char device" (EISDIR maps to "directory").
    NotRegularFile(&'static str),
    /// The file is larger than the configured limit.
    TooLarge { size: u64, max: u64 },
    /// The file changed since it was read; the hash (lowercase hex) of what is
    /// on disk now.
    Stale { current_sha256: String },
    /// Another process held the file's lock for longer than the lock timeout.
    Busy,
    /// The same file appears twice in one commit.
    DuplicatePath,
    /// A path to create exists (what it is, when not a regular file).
    AlreadyExists(Option<&'static str>),
    /// The directory a path is to be created in does not exist.
    ParentMissing,
    /// Anything else; `os_error` names the errno when there is one.
    Other,
}

/// A classified file-system failure. Carries no OS message, only plain facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsError {
    pub kind: FsErrorKind,
    pub op: FsOp,
    pub path: PathBuf,
    /// The errno's symbolic name ("ENOSPC"), when the failure came from the OS.
    pub os_error: Option<&'static str>,
}

impl FsError {
    pub fn new(kind: FsErrorKind, op: FsOp, path: impl Into<PathBuf>) -> FsError {
        FsError {
            kind,
            op,
            path: path.into(),
            os_error: None,
        }
    }

    /// Classifies an `io::Error` by its errno.
    pub fn from_io(err: &io::Error, op: FsOp, path: impl Into<PathBuf>) -> FsError {
        let errno = err.raw_os_error();
        FsError {
            kind: errno.map_or(FsErrorKind::Other, classify_errno),
            op,
            path: path.into(),
            os_error: errno.and_then(errno_name),
        }
    }
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        let op = self.op.as_str();
        match &self.kind {
            FsErrorKind::NotFound => write!(f, "{op} failed: {path} does not exist"),
            FsErrorKind::PermissionDenied => write!(f, "{op} failed: permission denied on {path}"),
            FsErrorKind::ReadOnly => write!(f, "{op} failed: {path} is on a read-only file system"),
            FsErrorKind::DiskFull => write!(f, "{op} failed: no space left for {path}"),
            FsErrorKind::SymlinkLoop => write!(
                f,
                "{op} failed: too many levels of symbolic links in {path}"
            ),
            FsErrorKind::NotRegularFile(ty) => write!(f, "{path} is a {ty}, not a regular file"),
            FsErrorKind::TooLarge { size, max } => {
                write!(f, "{path} is {size} bytes, over the {max} byte limit")
            }
            FsErrorKind::Stale { current_sha256 } => write!(
                f,
                "{path} changed since it was read (sha256 is now {current_sha256})"
            ),
            FsErrorKind::Busy => write!(f, "{op} failed: {path} is locked by another process"),
            FsErrorKind::DuplicatePath => write!(f, "{path} appears more than once in one commit"),
            FsErrorKind::AlreadyExists(_) => write!(f, "{path} already exists"),
            FsErrorKind::ParentMissing => write!(f, "the directory of {path} does not exist"),
            FsErrorKind::Other => match self.os_error {
                Some(name) => write!(f, "{op} failed on {path} ({name})"),
                None => write!(f, "{op} failed on {path}"),
            },
        }
    }
}

impl std::error::Error for FsError {}

/// Maps an errno to the kind callers act on.
pub fn classify_errno(errno: i32) -> FsErrorKind {
    match errno {
        libc::ENOENT | libc::ENOTDIR => FsErrorKind::NotFound,
        libc::EACCES | libc::EPERM => FsErrorKind::PermissionDenied,
        libc::EROFS => FsErrorKind::ReadOnly,
        libc::ENOSPC | libc::EDQUOT => FsErrorKind::DiskFull,
        libc::ELOOP => FsErrorKind::SymlinkLoop,
        libc::EISDIR => FsErrorKind::NotRegularFile("directory"),
        _ => FsErrorKind::Other,
    }
}

/// The symbolic name of an errno, for the errnos file operations produce.
pub fn errno_name(errno: i32) -> Option<&'static str> {
    Some(match errno {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::ENXIO => "ENXIO",
        libc::E2BIG => "E2BIG",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::EXDEV => "EXDEV",
        libc::ENODEV => "ENODEV",
        libc::ENOTDIR => "ENOTDIR",
        libc::EISDIR => "EISDIR",
        libc::EINVAL => "EINVAL",
        libc::ENFILE => "ENFILE",
        libc::EMFILE => "EMFILE",
        libc::ETXTBSY => "ETXTBSY",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::ESPIPE => "ESPIPE",
        libc::EROFS => "EROFS",
        libc::EMLINK => "EMLINK",
        libc::EPIPE => "EPIPE",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::ENOLCK => "ENOLCK",
        libc::ENOSYS => "ENOSYS",
        libc::ENOTEMPTY => "ENOTEMPTY",
        libc::ELOOP => "ELOOP",
        libc::ENODATA => "ENODATA",
        libc::EOVERFLOW => "EOVERFLOW",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ESTALE => "ESTALE",
        libc::EDQUOT => "EDQUOT",
        libc::ETIMEDOUT => "ETIMEDOUT",
        libc::ECANCELED => "ECANCELED",
        _ => return None,
    })
}

/// The name of a non-regular file type, or `None` for a regular file.
pub fn irregular_type(metadata: &Metadata) -> Option<&'static str> {
    let ty = metadata.file_type();
    if ty.is_file() {
        None
    } else if ty.is_dir() {
        Some("directory")
    } else if ty.is_fifo() {
        Some("fifo")
    } else if ty.is_socket() {
        Some("socket")
    } else if ty.is_block_device() {
        Some("block device")
    } else if ty.is_char_device() {
        Some("char device")
    } else {
        Some("special file")
    }
}

/// [`irregular_type`] for a type from `lstat`: `None` for a regular file.
pub fn type_name(ty: FileType) -> Option<&'static str> {
    match ty {
        FileType::RegularFile => None,
        FileType::Directory => Some("directory"),
        FileType::Symlink => Some("symlink"),
        FileType::Fifo => Some("fifo"),
        FileType::Socket => Some("socket"),
        FileType::BlockDevice => Some("block device"),
        FileType::CharacterDevice => Some("char device"),
        _ => Some("special file"),
    }
}

/// Reads `path` (following symlinks) for editing, resolving it beneath `/`
/// with the same walk the server uses beneath its roots (no root confines it:
/// for tests and tools; the server calls [`read_located`]).
pub fn read_file(path: &Path, max_size: u64) -> Result<FileSnapshot, FsError> {
    let handles =
        Handles::open(&[PathBuf::from("/")]).map_err(|e| FsError::from_io(&e, FsOp::Read, path))?;
    let located = sandbox::locate(&handles, &[PathBuf::from("/")], path).map_err(|e| {
        let errno = match e {
            // Only procfs magic links are "outside" of `/`.
            LocateError::Outside => libc::EACCES,
            LocateError::Os(n) => n,
        };
        FsError::from_io(&io::Error::from_raw_os_error(errno), FsOp::Read, path)
    })?;
    read_located(located, max_size)
}

/// Reads the file the sandbox walk found, opening it relative to its pinned
/// directory (`O_NOFOLLOW`: a symlink swapped in since the walk is refused,
/// `ELOOP`).
///
/// Refuses non-regular files without opening them, and files over `max_size`
/// without reading past the limit (at most `max_size + 1` bytes are read, to
/// notice a file that grew after its size was checked).
pub fn read_located(loc: Located, max_size: u64) -> Result<FileSnapshot, FsError> {
    let Located {
        dir,
        name,
        path,
        file_type,
        size,
    } = loc;
    if let Some(ty) = irregular_file_type(file_type) {
        return Err(FsError::new(
            FsErrorKind::NotRegularFile(ty),
            FsOp::Read,
            path,
        ));
    }
    if size > max_size {
        return Err(FsError::new(
            FsErrorKind::TooLarge {
                size,
                max: max_size,
            },
            FsOp::Read,
            path,
        ));
    }
    // O_NONBLOCK: if the name was swapped for a FIFO since the walk, opening
    // must not hang; O_NOFOLLOW: a symlink now is a race, refused.
    let file = open_in(&dir, &name).map_err(|e| FsError::from_io(&e, FsOp::Read, &path))?;
    let metadata = file
        .metadata()
        .map_err(|e| FsError::from_io(&e, FsOp::Read, &path))?;
    if let Some(ty) = irregular_type(&metadata) {
        return Err(FsError::new(
            FsErrorKind::NotRegularFile(ty),
            FsOp::Read,
            path,
        ));
    }
    let bytes = read_limited(&file, metadata.len(), max_size)
        .map_err(|e| FsError::from_io(&e, FsOp::Read, &path))?;
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(size) => {
            return Err(FsError::new(
                FsErrorKind::TooLarge {
                    size,
                    max: max_size,
                },
                FsOp::Read,
                path,
            ));
        }
    };
    Ok(FileSnapshot {
        path,
        dir,
        name,
        bytes,
        metadata,
        sha256: OnceLock::new(),
    })
}

/// Opens `name` in `dir` for reading without following a symlink and without
/// blocking on a FIFO.
pub(crate) fn open_in(dir: &Dir, name: &std::ffi::OsStr) -> io::Result<File> {
    let fd = rustix::fs::openat(
        dir.fd(),
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(File::from(fd))
}

/// The name of a non-regular file type, or `None` for a regular file.
fn irregular_file_type(ty: FileType) -> Option<&'static str> {
    match ty {
        FileType::RegularFile => None,
        FileType::Directory => Some("directory"),
        FileType::Fifo => Some("fifo"),
        FileType::Socket => Some("socket"),
        FileType::BlockDevice => Some("block device"),
        FileType::CharacterDevice => Some("char device"),
        _ => Some("special file"),
    }
}

/// Re-reads an open file from its start: at most `max` bytes, `Err(n)` if
/// there were more. For the commit's re-read under the lock.
pub fn reread(file: &File, max: u64) -> io::Result<Result<Vec<u8>, u64>> {
    use std::io::{Seek, SeekFrom};
    (&*file).seek(SeekFrom::Start(0))?;
    read_limited(file, file.metadata()?.len(), max)
}

/// Reads at most `max + 1` bytes; `Err(n)` if there were more than `max`.
fn read_limited(file: &File, hint: u64, max: u64) -> io::Result<Result<Vec<u8>, u64>> {
    let mut bytes = Vec::with_capacity(hint.min(max) as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Ok(Err(bytes.len() as u64));
    }
    Ok(Ok(bytes))
}

/// The device and inode of a file, which identify it across renames.
pub(crate) fn file_id(metadata: &Metadata) -> (u64, u64) {
    (metadata.dev(), metadata.ino())
}

/// Takes a `flock` on `file` (retried when a signal interrupts it). Used by the per-file
/// locks, the journal's lock (a journal whose lock can be taken belongs to no
/// live process) and the undo store's segments.
pub(crate) fn flock(file: &File, op: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: the fd is owned by `file`, open for the duration of the call.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn reads_regular_file_and_hashes_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, b"hello\n").unwrap();
        let snap = read_file(&path, 1024).unwrap();
        assert_eq!(snap.bytes, b"hello\n");
        assert_eq!(
            snap.sha256_hex(),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        );
        assert_eq!(snap.path, std::fs::canonicalize(&path).unwrap());
    }

    #[test]
    fn follows_symlinks_to_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        std::fs::write(&target, b"x").unwrap();
        symlink(&target, &link).unwrap();
        let snap = read_file(&link, 1024).unwrap();
        assert_eq!(snap.path, std::fs::canonicalize(&target).unwrap());
    }

    #[test]
    fn refuses_directories_fifos_and_sockets_by_type() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_file(dir.path(), 1024).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::NotRegularFile("directory"));

        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = read_file(&fifo, 1024).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::NotRegularFile("fifo"));

        let sock = dir.path().join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let err = read_file(&sock, 1024).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::NotRegularFile("socket"));

        let err = read_file(Path::new("/dev/null"), 1024).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::NotRegularFile("char device"));
    }

    #[test]
    fn refuses_files_over_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, vec![b'a'; 100]).unwrap();
        let err = read_file(&path, 99).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::TooLarge { size: 100, max: 99 });
        assert_eq!(err.op, FsOp::Read);
        assert!(read_file(&path, 100).is_ok());
    }

    #[test]
    fn classifies_missing_files_and_loops() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_file(&dir.path().join("nope"), 10).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::NotFound);
        assert_eq!(err.os_error, Some("ENOENT"));

        let a = dir.path().join("a");
        let b = dir.path().join("b");
        symlink(&b, &a).unwrap();
        symlink(&a, &b).unwrap();
        let err = read_file(&a, 10).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::SymlinkLoop);
        assert_eq!(err.os_error, Some("ELOOP"));

        let file = dir.path().join("f");
        std::fs::write(&file, b"").unwrap();
        let err = read_file(&file.join("child"), 10).unwrap_err();
        assert_eq!(err.kind, FsErrorKind::NotFound);
        assert_eq!(err.os_error, Some("ENOTDIR"));
    }

    #[test]
    fn errno_classification_table() {
        assert_eq!(classify_errno(libc::EPERM), FsErrorKind::PermissionDenied);
        assert_eq!(classify_errno(libc::EDQUOT), FsErrorKind::DiskFull);
        assert_eq!(classify_errno(libc::EIO), FsErrorKind::Other);
        let err = FsError::from_io(&io::Error::from_raw_os_error(libc::EIO), FsOp::Sync, "/x");
        assert_eq!(err.os_error, Some("EIO"));
        assert_eq!(err.to_string(), "sync failed on /x (EIO)");
        let err = FsError::from_io(&io::Error::other("no errno"), FsOp::Stage, "/x");
        assert_eq!((err.kind, err.os_error), (FsErrorKind::Other, None));
    }
}
