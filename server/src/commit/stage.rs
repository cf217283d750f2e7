//! Writing the files a transaction renames into place, beside their targets.
//!
//! Every name made here is hidden, unique and recognisable:
//! `.<name>.splice-<pid>-<nonce>.<tmp|undo|bak.tmp|bak.undo>`. Unique because it
//! is created with `O_EXCL`; recognisable so a human who finds one after a power
//! loss knows what it is.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Permissions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;
use sha2::{Digest, Sha256};

use crate::sandbox::Dir;

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

/// `.<name><tail>`, with `name` shortened so the result stays within NAME_MAX
/// (255 bytes).
fn hidden(name: &OsStr, tail: &str) -> OsString {
    let name = name.as_bytes();
    let keep = name.len().min(255 - 1 - tail.len());
    let mut bytes = Vec::with_capacity(1 + keep + tail.len());
    bytes.push(b'.');
    bytes.extend_from_slice(&name[..keep]);
    bytes.extend_from_slice(tail.as_bytes());
    OsString::from_vec(bytes)
}

/// A hidden, unique sibling name for `name` (journaled commits):
/// `.<name>.splice-<pid>-<nonce>.<suffix>`.
pub(crate) fn sibling(name: &OsStr, suffix: &str) -> OsString {
    hidden(
        name,
        &format!(".splice-{}-{}.{suffix}", std::process::id(), nonce()),
    )
}

/// True if `candidate` is a name [`sibling`] could have made for `name` and
/// `suffix`: `.<name>.splice-<pid>-<nonce>.<suffix>`, with `name` possibly
/// shortened to fit NAME_MAX. Recovery touches only such names, so a journal
/// cannot make it remove or rename any other file.
pub(crate) fn is_sibling(name: &OsStr, candidate: &OsStr, suffix: &str) -> bool {
    let c = candidate.as_bytes();
    let Some(rest) = c.strip_prefix(b".") else {
        return false;
    };
    let tail = format!(".{suffix}");
    let Some(rest) = rest.strip_suffix(tail.as_bytes()) else {
        return false;
    };
    let marker = b".splice-";
    let Some(at) = rest.windows(marker.len()).rposition(|w| w == marker) else {
        return false;
    };
    let (head, id) = (&rest[..at], &rest[at + marker.len()..]);
    let Some((pid, nonce)) = std::str::from_utf8(id).ok().and_then(|s| s.split_once('-')) else {
        return false;
    };
    let id_ok = !pid.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && !nonce.is_empty()
        && nonce.bytes().all(|b| b.is_ascii_hexdigit());
    let name = name.as_bytes();
    id_ok && (head == name || (c.len() == 255 && !head.is_empty() && name.starts_with(head)))
}

/// The fixed sibling name the single-file path uses for `name` and one of its
/// roles (`tmp`, `undo`, `bak-tmp`, `bak-undo`): `.<name>.splice.<role>`.
/// Fixed, so a name a crash left behind is found and replaced by the next
/// commit of the same file (which holds the file's lock, so no live commit
/// can own it). Names too long for that get a hash of the whole name instead
/// of a truncation, so two files never share one.
pub(crate) fn fixed(name: &OsStr, role: &str) -> OsString {
    let plain = format!(".splice.{role}");
    if 1 + name.len() + plain.len() <= 255 {
        return hidden(name, &plain);
    }
    let hash = hex::encode(&Sha256::digest(name.as_bytes())[..16]);
    hidden(name, &format!(".splice-{hash}.{role}"))
}

/// `<name>.bak`.
pub(crate) fn backup_name(name: &OsStr) -> OsString {
    let mut n = name.to_owned();
    n.push(".bak");
    n
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

impl Attrs {
    /// What a new file gets: mode 0666 less the process umask (as `open`
    /// with `O_CREAT` would give), owned by this process's user.
    pub(crate) fn new_file() -> Attrs {
        // SAFETY: geteuid and getegid have no preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Attrs {
            mode: 0o666 & !umask(),
            uid,
            gid,
        }
    }
}

/// The process umask, read from `/proc/self/status` (setting it to read it
/// would race other threads' file creations); 022 when unreadable.
fn umask() -> u32 {
    static UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UMASK.get_or_init(|| {
        fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022)
    })
}

/// `renameat2(RENAME_NOREPLACE)` of `from` to `to`, both in `dir`: fails with
/// `EEXIST` instead of replacing whatever appeared at `to`.
pub(crate) fn rename_new(dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()> {
    rustix::fs::renameat_with(
        dir.fd(),
        from,
        dir.fd(),
        to,
        rustix::fs::RenameFlags::NOREPLACE,
    )?;
    Ok(())
}

/// Unlinks the regular file `name` in `dir` (a deletion's commit step).
pub(crate) fn unlink(dir: &Dir, name: &OsStr) -> io::Result<()> {
    rustix::fs::unlinkat(dir.fd(), name, AtFlags::empty())?;
    Ok(())
}

/// Creates `name` in `dir` (it must not exist; `O_EXCL`, no symlink followed)
/// holding `bytes` with `attrs`, fsynced when `durable`. Returns the new file's
/// metadata. On error the partial file is left for the caller's cleanup.
pub(crate) fn write_new(
    dir: &Dir,
    name: &OsStr,
    bytes: &[u8],
    attrs: Attrs,
    durable: bool,
) -> io::Result<fs::Metadata> {
    let fd = rustix::fs::openat(
        dir.fd(),
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    fill(File::from(fd), bytes, attrs, durable)
}

/// [`write_new`], but a file already at `name` (left by a crash) is removed
/// first. Only for [`fixed`] names, under the target's lock.
pub(crate) fn write_fresh(
    dir: &Dir,
    name: &OsStr,
    bytes: &[u8],
    attrs: Attrs,
    durable: bool,
) -> io::Result<fs::Metadata> {
    match write_new(dir, name, bytes, attrs, durable) {
        Err(e) if e.raw_os_error() == Some(libc::EEXIST) => {
            remove_if_exists(dir, name)?;
            write_new(dir, name, bytes, attrs, durable)
        }
        other => other,
    }
}

fn fill(mut file: File, bytes: &[u8], attrs: Attrs, durable: bool) -> io::Result<fs::Metadata> {
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
/// without them. With `fresh`, an `undo` left by a crash is replaced.
pub(crate) fn make_undo(
    dir: &Dir,
    target: &OsStr,
    undo: &OsStr,
    bytes: Option<&[u8]>,
    attrs: Attrs,
    durable: bool,
    fresh: bool,
) -> io::Result<()> {
    let link = || rustix::fs::linkat(dir.fd(), target, dir.fd(), undo, AtFlags::empty());
    match link() {
        Ok(()) => return Ok(()),
        Err(Errno::EXIST) if fresh => {
            remove_if_exists(dir, undo)?;
            if link().is_ok() {
                return Ok(());
            }
        }
        Err(_) => {}
    }
    let owned;
    let bytes = match bytes {
        Some(bytes) => bytes,
        None => {
            let mut v = Vec::new();
            crate::fsio::open_in(dir, target)?.read_to_end(&mut v)?;
            owned = v;
            &owned
        }
    };
    if fresh {
        write_fresh(dir, undo, bytes, attrs, durable).map(drop)
    } else {
        write_new(dir, undo, bytes, attrs, durable).map(drop)
    }
}

/// `renameat` of `from` over `to`, both in `dir` (never follows a symlink).
pub(crate) fn rename(dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()> {
    rustix::fs::renameat(dir.fd(), from, dir.fd(), to)?;
    Ok(())
}

/// Removes `name` from `dir`; a missing file is success. A failure is
/// tried once more before it is returned: every removal is a cleanup or
/// rollback step, and a transient error (an `EIO` from a network file
/// system) would otherwise leave a hidden staging name in the user's tree
/// until the next edit there or `splice recover`.
///
/// A read-only file system refuses an unlink (`EROFS`) before it looks the
/// name up, so a name that was never staged there is asked about: absent,
/// it is removed all the same. Otherwise every call that failed on a
/// read-only file system would count its cleanup as failed and leave its
/// journal for recovery.
pub(crate) fn remove_if_exists(dir: &Dir, name: &OsStr) -> io::Result<()> {
    let unlink = || match rustix::fs::unlinkat(dir.fd(), name, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(Errno::ROFS)
            if matches!(
                rustix::fs::statat(dir.fd(), name, AtFlags::SYMLINK_NOFOLLOW),
                Err(Errno::NOENT)
            ) =>
        {
            Ok(())
        }
        Err(e) => Err(io::Error::from(e)),
    };
    unlink().or_else(|e| {
        tracing::debug!(error = %e, ?name, "removal failed; trying once more");
        unlink()
    })
}

/// What `lstat` says about a name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lstat {
    pub file_type: rustix::fs::FileType,
    pub attrs: Attrs,
    pub id: (u64, u64),
}

/// `lstat` of `name` in `dir`, `None` if it does not exist.
// The `stat` field types differ between architectures.
#[allow(clippy::unnecessary_cast)]
pub(crate) fn lstat(dir: &Dir, name: &OsStr) -> io::Result<Option<Lstat>> {
    match rustix::fs::statat(dir.fd(), name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some(Lstat {
            file_type: rustix::fs::FileType::from_raw_mode(st.st_mode as _),
            attrs: Attrs {
                mode: st.st_mode as u32 & 0o7777,
                uid: st.st_uid as u32,
                gid: st.st_gid as u32,
            },
            id: (st.st_dev as u64, st.st_ino as u64),
        })),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// `lstat` identity of `name` in `dir`, `None` if it does not exist.
pub(crate) fn id_of(dir: &Dir, name: &OsStr) -> io::Result<Option<(u64, u64)>> {
    Ok(lstat(dir, name)?.map(|l| l.id))
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
        let a = sibling(OsStr::new("file.rs"), "tmp");
        let b = sibling(OsStr::new("file.rs"), "tmp");
        assert_ne!(a, b);
        let name = a.to_str().unwrap();
        assert!(name.starts_with(".file.rs.splice-"), "{name}");
        assert!(name.ends_with(".tmp"));

        let long = "x".repeat(255);
        let s = sibling(OsStr::new(&long), "bak.undo");
        assert!(is_sibling(OsStr::new(&long), &s, "bak.undo"));
        assert!(is_sibling(
            OsStr::new("a.rs"),
            &sibling(OsStr::new("a.rs"), "tmp"),
            "tmp"
        ));
        assert!(!is_sibling(
            OsStr::new("a.rs"),
            &sibling(OsStr::new("a.rs"), "tmp"),
            "undo"
        ));
        assert!(!is_sibling(
            OsStr::new("a.rs"),
            &sibling(OsStr::new("b.rs"), "tmp"),
            "tmp"
        ));
        assert!(!is_sibling(OsStr::new("a.rs"), OsStr::new("a.rs"), "tmp"));
        assert!(!is_sibling(
            OsStr::new("a.rs"),
            OsStr::new(".a.rs.splice-1-x.tmp"),
            "tmp"
        ));
        assert!(s.len() <= 255);
    }

    #[test]
    fn fixed_names_are_per_name_and_role_and_never_shared_by_long_names() {
        assert_eq!(fixed(OsStr::new("a.rs"), "tmp"), ".a.rs.splice.tmp");
        // `a`'s backup temp and the temp of a file named `a.bak` differ.
        assert_ne!(
            fixed(OsStr::new("a"), "bak-tmp"),
            fixed(&backup_name(OsStr::new("a")), "tmp")
        );
        let x = "x".repeat(250);
        let (l1, l2) = (format!("{x}1"), format!("{x}2"));
        let (f1, f2) = (fixed(OsStr::new(&l1), "tmp"), fixed(OsStr::new(&l2), "tmp"));
        assert_ne!(f1, f2);
        assert!(f1.len() <= 255 && f2.len() <= 255);
        assert_eq!(f1, fixed(OsStr::new(&l1), "tmp"));
    }

    #[test]
    fn write_new_sets_mode_and_refuses_existing_write_fresh_replaces() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open_nofollow(&tmp.path().canonicalize().unwrap()).unwrap();
        let attrs = Attrs {
            mode: 0o640,
            uid: m_uid(),
            gid: m_gid(),
        };
        let m = write_new(&dir, OsStr::new("f"), b"abc", attrs, true).unwrap();
        assert_eq!(m.mode() & 0o7777, 0o640);
        assert_eq!(fs::read(tmp.path().join("f")).unwrap(), b"abc");
        assert!(write_new(&dir, OsStr::new("f"), b"x", attrs, false).is_err());
        write_fresh(&dir, OsStr::new("f"), b"new", attrs, false).unwrap();
        assert_eq!(fs::read(tmp.path().join("f")).unwrap(), b"new");
        // A symlink at the name is never followed.
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), tmp.path().join("l")).unwrap();
        assert!(write_new(&dir, OsStr::new("l"), b"x", attrs, false).is_err());
        assert!(!tmp.path().join("elsewhere").exists());
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
