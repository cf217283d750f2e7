//! Path resolution against the allowed roots.
//!
//! Every path a call names is resolved (symlinks followed) beneath the
//! pinned roots *before* anything is read, by [`crate::sandbox`]'s walk: the
//! answer is not a path to open later but the open handle of the file's
//! parent directory, so nothing can redirect the read or the write after
//! this check. A path that resolves outside every root is refused with one
//! answer whatever is out there: [`ResolveError::Outside`] never says whether
//! the outside path exists, is a loop, or is unreadable.
//!
//! Editing a symlink inside a root edits its target (which must also be
//! inside a root); the link itself survives because the commit replaces the
//! target's name in the target's directory, not the link.

use std::path::Path;

use crate::config::Config;
use crate::sandbox::{self, LocateError, Located};

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

impl From<LocateError> for ResolveError {
    fn from(e: LocateError) -> ResolveError {
        match e {
            LocateError::Outside => ResolveError::Outside,
            LocateError::Os(libc::ENOENT | libc::ENOTDIR) => ResolveError::NotFound,
            LocateError::Os(libc::ELOOP) => ResolveError::Loop,
            LocateError::Os(libc::EACCES | libc::EPERM) => ResolveError::PermissionDenied,
            LocateError::Os(n) => ResolveError::Other(crate::fsio::errno_name(n).unwrap_or("EIO")),
        }
    }
}

/// Resolves `file_path` (absolute, already lexically checked) to its parent
/// directory's handle and name inside one of the roots.
pub fn resolve(cfg: &Config, file_path: &str) -> Result<Located, ResolveError> {
    Ok(sandbox::locate(
        &cfg.handles,
        &cfg.roots,
        Path::new(file_path),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;
    use std::os::unix::fs::symlink;

    fn resolve(cfg: &Config, p: &str) -> Result<std::path::PathBuf, ResolveError> {
        super::resolve(cfg, p).map(|l| l.path)
    }

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
