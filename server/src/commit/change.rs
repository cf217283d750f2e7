//! What a commit is asked to do: each path from its state before (an
//! existing file as read, or absent) to its state after (new bytes, or
//! absent).
//!
//! A module of its own so that the committer ([`super::Committer`]) and
//! the two write paths ([`super::transaction`], [`super::single`]) share
//! this vocabulary without depending on each other.

use std::fs::Metadata;
use std::path::{Path, PathBuf};

use super::stage;
use crate::fsio::FileSnapshot;

/// One file to rewrite.
#[derive(Debug, Clone)]
pub struct FileChange {
    /// What was read; the commit fails as stale if the file differs from it.
    pub snapshot: FileSnapshot,
    pub new_bytes: Vec<u8>,
    /// Keep the original as `<file>.bak` (only if the file is actually written).
    pub backup: bool,
}

impl From<FileChange> for PathChange {
    fn from(c: FileChange) -> PathChange {
        PathChange {
            before: Before::Present(c.snapshot),
            after: Some(c.new_bytes),
            like: None,
            mode: None,
            backup: c.backup,
        }
    }
}

/// A path that does not exist yet: where it will be created (see
/// [`crate::sandbox::locate_new`]).
pub use crate::sandbox::Absent as NewPath;

/// What a path of a transaction is before it.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // a handful per call, moved once
pub enum Before {
    /// An existing regular file, as read (the commit fails as stale if it
    /// differs at the commit, unless the rebase hook recomputes it).
    Present(FileSnapshot),
    /// Nothing; the commit fails with [`crate::fsio::FsErrorKind::AlreadyExists`] if
    /// something is there by then.
    Absent(NewPath),
}

/// One path of a transaction: from `before` to `after` (`None`: absent).
/// An edit is present to new bytes, a creation absent to bytes, a deletion
/// present to absent, and a move a deletion plus a creation. Undoing a
/// committed transaction is the same with the two sides swapped.
#[derive(Debug, Clone)]
pub struct PathChange {
    pub before: Before,
    pub after: Option<Vec<u8>>,
    /// For a creation: the file whose mode (and owner, when root) the new
    /// file gets (a moved file keeps its own); `None`: 0666 less the umask.
    pub like: Option<Metadata>,
    /// For a creation without `like`: the mode bits the new file gets (an
    /// undo re-creating a deleted file gives it its recorded mode); `None`:
    /// 0666 less the umask.
    pub mode: Option<u32>,
    /// Keep the original as `<file>.bak` (edits only, and only if written).
    pub backup: bool,
}

impl PathChange {
    /// The canonical path.
    pub fn path(&self) -> &Path {
        match &self.before {
            Before::Present(s) => &s.path,
            Before::Absent(a) => &a.path,
        }
    }

    /// Whether committing it changes the disk.
    pub(super) fn writes(&self) -> bool {
        match (&self.before, &self.after) {
            (Before::Present(s), Some(after)) => *after != s.bytes,
            (Before::Present(_), None) | (Before::Absent(_), Some(_)) => true,
            (Before::Absent(_), None) => false,
        }
    }

    /// Present to present: an edit (the only kind the single-file path takes).
    pub(super) fn is_edit(&self) -> bool {
        matches!((&self.before, &self.after), (Before::Present(_), Some(_)))
    }

    /// The `.bak` an edit with a backup writes.
    pub(super) fn backup_path(&self) -> Option<PathBuf> {
        match &self.before {
            Before::Present(s) if self.backup && self.is_edit() => {
                Some(s.dir.path().join(stage::backup_name(&s.name)))
            }
            _ => None,
        }
    }
}
