//! What a commit answers: what it wrote, or what failed and how far the
//! failure was undone.
//!
//! A module of its own so that the committer ([`super::Committer`]) and
//! the two write paths ([`super::transaction`], [`super::single`]), which
//! build these answers, share them without depending on each other.

use std::path::PathBuf;

use crate::fsio::FsError;

/// A successful commit, one entry per change, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitReport {
    pub files: Vec<FileCommitReport>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCommitReport {
    pub path: PathBuf,
    /// False when the new bytes equal the old ones: nothing was written.
    pub written: bool,
    pub backup_path: Option<PathBuf>,
}

/// What went wrong and how far the commit got before it was undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitFailure {
    /// The change (input index) whose step failed; `None` for a failure of the
    /// transaction itself (its journal, or a directory shared by several files).
    pub failed_index: Option<usize>,
    pub error: FsError,
    /// Edited files (not `.bak`s) renamed into place before the failure.
    pub renamed_before_failure: usize,
    pub rollback: RollbackOutcome,
}

/// Why [`super::Committer::commit_with`] wrote nothing (or undid what it wrote).
#[derive(Debug)]
pub enum CommitError<E> {
    /// A file-system step failed; see [`CommitFailure`].
    Failed(CommitFailure),
    /// The rebase hook refused change `index` with `error`; nothing was written.
    Rebase { index: usize, error: E },
    /// The call was cancelled before the commit point; nothing was written.
    Cancelled,
}

impl<E> From<CommitFailure> for CommitError<E> {
    fn from(failure: CommitFailure) -> Self {
        CommitError::Failed(failure)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RollbackOutcome {
    /// Whether any rename had to be undone (false: failed before the renames).
    pub attempted: bool,
    /// Files put back to their original content.
    pub restored: usize,
    /// The files (positions in the commit's changes) that had been replaced,
    /// or whose state could not be read, and could not be put back: they
    /// hold, or may hold, the new content.
    pub not_restored: Vec<usize>,
    /// Whether every temp and undo name is gone. If not, the journal was kept
    /// and [`super::Committer::recover`] removes them once the file system allows.
    pub cleanup_complete: bool,
}

impl CommitFailure {
    /// A failure before any rename: nothing had to be restored, and
    /// `cleanup_complete` says whether every staged name is gone.
    pub(super) fn before_renames(
        failed_index: Option<usize>,
        error: FsError,
        cleanup_complete: bool,
    ) -> CommitFailure {
        CommitFailure {
            failed_index,
            error,
            renamed_before_failure: 0,
            rollback: RollbackOutcome {
                cleanup_complete,
                ..RollbackOutcome::default()
            },
        }
    }
}

/// A failure before anything was staged.
pub(super) fn fail(index: Option<usize>, error: FsError) -> CommitFailure {
    CommitFailure::before_renames(index, error, true)
}
