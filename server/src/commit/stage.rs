//! Writing the files a transaction renames into place, beside their targets.
//!
//! Every name made here is hidden, unique and recognisable:
//! `.<name>.splice-<pid>-<nonce>.<tmp|undo|bak.tmp|bak.undo>`. Unique because it
//! is created with `O_EXCL`; recognisable so a human who finds one after a power
//! loss knows what it is.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A per-process unique-ish number for file names (uniqueness itself comes
/// from `O_EXCL`).
pub(crate) fn nonce() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // Mix so names differ in their leading characters, not only the tail.
    let mixed = (nanos ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    format!("{:x}", mixed >> 16)
}

/// A hidden sibling name for `target`: `.<name>.splice-<pid>-<nonce>.<suffix>`.
/// Long names are shortened so the result stays within NAME_MAX (255 bytes).
pub(crate) fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let name = target.file_name().map_or(&[][..], |n| n.as_bytes());
    let tail = format!(".splice-{}-{}.{suffix}", std::process::id(), nonce());
    let keep = name.len().min(255 - 1 - tail.len());
    let mut bytes = Vec::with_capacity(1 + keep + tail.len());
    bytes.push(b'.');
    bytes.extend_from_slice(&name[..keep]);
    bytes.extend_from_slice(tail.as_bytes());
    target.with_file_name(OsString::from_vec(bytes))
}

/// `<target>.bak`.
pub(crate) fn backup_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}

/// Permissions and owner to give a staged file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attrs {
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

impl Attrs {
    pub(crate) fn of(metadata: &fs::Metadata) -> Attrs {
        Attrs {
            mode: metadata.mode() & 0o7777,
            uid: metadata.uid(),
            gid: metadata.gid(),
        }
    }
}

/// Creates `path` (which must not exist) holding `bytes` with `attrs`, fsynced
/// when `durable`. Returns the new file's metadata. On error the partial file is
/// left for the caller's cleanup (its name is already in the journal).
pub(crate) fn write_new(
    path: &Path,
    bytes: &[u8],
    attrs: Attrs,
    durable: bool,
) -> io::Result<fs::Metadata> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    // chown before chmod: chown clears the set-id bits.
    if is_root() {
        std::os::unix::fs::fchown(&file, Some(attrs.uid), Some(attrs.gid))?;
    }
    file.set_permissions(Permissions::from_mode(attrs.mode))?;
    if durable {
        file.sync_all()?;
    }
    file.metadata()
}

/// Gives `undo` the content of `target` (whose content is `bytes`, if known):
/// a hard link when possible (cheap, and keeps the original inode), else a copy.
/// Links fail on immutable files, with protected_hardlinks, and on file systems
/// without them.
pub(crate) fn make_undo(
    target: &Path,
    undo: &Path,
    bytes: Option<&[u8]>,
    attrs: Attrs,
    durable: bool,
) -> io::Result<()> {
    if fs::hard_link(target, undo).is_ok() {
        return Ok(());
    }
    let owned;
    let bytes = match bytes {
        Some(bytes) => bytes,
        None => {
            owned = fs::read(target)?;
            &owned
        }
    };
    write_new(undo, bytes, attrs, durable).map(drop)
}

/// `fsync` of a directory, making the names in it durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Removes `path`; a missing file is success.
pub(crate) fn remove_if_exists(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// `lstat` identity of `path`, `None` if it does not exist.
pub(crate) fn id_of(path: &Path) -> io::Result<Option<(u64, u64)>> {
    match fs::symlink_metadata(path) {
        Ok(m) => Ok(Some((m.dev(), m.ino()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_names_are_hidden_unique_and_bounded() {
        let a = sibling(Path::new("/d/file.rs"), "tmp");
        let b = sibling(Path::new("/d/file.rs"), "tmp");
        assert_ne!(a, b);
        assert_eq!(a.parent(), Some(Path::new("/d")));
        let name = a.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with(".file.rs.splice-"), "{name}");
        assert!(name.ends_with(".tmp"));

        let long = "x".repeat(255);
        let s = sibling(&Path::new("/d").join(&long), "bak.undo");
        assert!(s.file_name().unwrap().len() <= 255);
    }

    #[test]
    fn write_new_sets_mode_and_refuses_existing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let attrs = Attrs {
            mode: 0o640,
            uid: 0,
            gid: 0,
        };
        let m = write_new(
            &p,
            b"abc",
            Attrs {
                uid: m_uid(),
                gid: m_gid(),
                ..attrs
            },
            true,
        )
        .unwrap();
        assert_eq!(m.mode() & 0o7777, 0o640);
        assert_eq!(fs::read(&p).unwrap(), b"abc");
        assert!(write_new(&p, b"x", attrs, false).is_err());
    }

    fn m_uid() -> u32 {
        // SAFETY: no preconditions.
        unsafe { libc::geteuid() }
    }

    fn m_gid() -> u32 {
        // SAFETY: no preconditions.
        unsafe { libc::getegid() }
    }
}
