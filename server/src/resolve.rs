//! Path resolution against the allowed roots.
//!
//! Every path a call names is resolved to its canonical target (symlinks
//! followed) and checked against the canonical roots *before* anything is
//! read. A path that resolves outside every root is refused with one answer
//! whatever is out there: [`ResolveError::Outside`] never says whether the
//! outside path exists, is a loop, or is unreadable.
//!
//! Editing a symlink inside a root edits its target (which must also be
//! inside a root); the link itself survives because the commit replaces the
//! target path, not the link.

use std::io;
use std::path::{Component, Path, PathBuf};

use crate::config::Config;

/// Why a path cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// Resolves (or would resolve) outside every root.
    Outside,
    /// Inside a root, but does not exist (or a parent is not a directory).
    NotFound,
    /// Inside a root, but a symlink loop prevents resolution.
    Loop,
    /// Inside a root, but a parent directory cannot be searched.
    PermissionDenied,
    /// Any other operating-system failure, by errno name.
    Other(&'static str),
}

/// Resolves `file_path` (absolute, already lexically checked) to a canonical
/// path inside one of the roots.
pub fn resolve(cfg: &Config, file_path: &str) -> Result<PathBuf, ResolveError> {
    let path = Path::new(file_path);
    match path.canonicalize() {
        Ok(c) if cfg.contains(&c) => Ok(c),
        Ok(_) => Err(ResolveError::Outside),
        Err(e) => {
            // Only say what went wrong if the path is, as far as it resolves,
            // inside a root; otherwise the answer is the same as for any
            // outside path.
            if !lexically_inside(cfg, path) {
                return Err(ResolveError::Outside);
            }
            Err(match e.raw_os_error() {
                Some(libc::ENOENT) | Some(libc::ENOTDIR) => ResolveError::NotFound,
                Some(libc::ELOOP) => ResolveError::Loop,
                Some(libc::EACCES) | Some(libc::EPERM) => ResolveError::PermissionDenied,
                _ if e.kind() == io::ErrorKind::NotFound => ResolveError::NotFound,
                Some(n) => ResolveError::Other(crate::fsio::errno_name(n).unwrap_or("EIO")),
                None => ResolveError::Other("EIO"),
            })
        }
    }
}

/// Canonicalizes the longest existing ancestor of `path` and appends the
/// rest; true if the result is inside a root.
fn lexically_inside(cfg: &Config, path: &Path) -> bool {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut full = c;
            for part in rest.iter().rev() {
                full.push(part);
            }
            return cfg.contains(&full);
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return false,
        }
        // `..` was refused by argument validation; be safe anyway.
        if existing.components().any(|c| c == Component::ParentDir) {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Config) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let cfg = Config::new(
            &[root.path().to_path_buf()],
            Limits::default(),
            root.path().join(".journal"),
        )
        .unwrap();
        (root, outside, cfg)
    }

    #[test]
    fn inside_outside_missing_and_symlinks() {
        let (root, outside, cfg) = setup();
        let r = root.path().canonicalize().unwrap();
        std::fs::write(r.join("a.txt"), "x").unwrap();
        std::fs::write(outside.path().join("secret"), "x").unwrap();
        assert_eq!(
            resolve(&cfg, r.join("a.txt").to_str().unwrap()),
            Ok(r.join("a.txt"))
        );
        assert_eq!(
            resolve(&cfg, r.join("missing.txt").to_str().unwrap()),
            Err(ResolveError::NotFound)
        );
        // Outside: existing and missing give the same answer.
        let o = outside.path().canonicalize().unwrap();
        assert_eq!(
            resolve(&cfg, o.join("secret").to_str().unwrap()),
            Err(ResolveError::Outside)
        );
        assert_eq!(
            resolve(&cfg, o.join("nope").to_str().unwrap()),
            Err(ResolveError::Outside)
        );
        // A symlink inside the root pointing outside is outside.
        symlink(o.join("secret"), r.join("link-out")).unwrap();
        assert_eq!(
            resolve(&cfg, r.join("link-out").to_str().unwrap()),
            Err(ResolveError::Outside)
        );
        // A symlink inside pointing inside resolves to its target.
        symlink(r.join("a.txt"), r.join("link-in")).unwrap();
        assert_eq!(
            resolve(&cfg, r.join("link-in").to_str().unwrap()),
            Ok(r.join("a.txt"))
        );
        // A loop inside the root is a loop.
        symlink(r.join("loop1"), r.join("loop2")).unwrap();
        symlink(r.join("loop2"), r.join("loop1")).unwrap();
        assert_eq!(
            resolve(&cfg, r.join("loop1").to_str().unwrap()),
            Err(ResolveError::Loop)
        );
    }
}
