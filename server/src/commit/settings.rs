//! What every step of a commit needs from its committer: the journal
//! directory, whether to fsync, and the test hook called at the points
//! between steps ([`Phase`]).
//!
//! A module of its own so that the two write paths
//! ([`super::transaction`], [`super::single`]) take just this, not the
//! whole [`super::Committer`] (which calls them).

use std::path::PathBuf;
use std::sync::Arc;

/// A point between the steps of a commit, for tests that inject faults.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Every lock taken (step 1), nothing verified yet.
    Locked,
    /// Journaled only: the `begin` record durable, nothing staged yet
    /// ([`super::transaction::Transaction::begin`]).
    Begun,
    /// Journaled only: every temp and undo name staged and every directory
    /// fsynced, the prepare record not written yet
    /// ([`super::transaction::Transaction::stage`]).
    Staged,
    /// Staging done: every temp staged and, journaled, the prepare record
    /// durable ([`super::transaction::Transaction::prepare`],
    /// [`super::single::SingleFile::stage`]). Renames come next.
    Prepared,
    /// The `n`th rename (counting `.bak`s) just happened.
    Renamed(usize),
    /// The commit is durable: the journal's commit record
    /// ([`super::transaction::Transaction::commit`]), or the directory's fsync after
    /// the rename ([`super::single::SingleFile::commit`]).
    Committed,
}

pub(super) type Hook = Arc<dyn Fn(Phase) + Send + Sync>;

/// The committer's settings the steps read; see the module docs.
pub(super) struct Settings {
    /// Canonical, checked as private at start ([`super::Committer::new`]).
    pub(super) journal_dir: PathBuf,
    /// Whether to fsync (off only to measure what durability costs).
    pub(super) durable: bool,
    pub(super) hook: Option<Hook>,
}

impl Settings {
    /// Calls the test hook, if any, at `phase`.
    pub(super) fn at(&self, phase: Phase) {
        if let Some(hook) = &self.hook {
            hook(phase);
        }
    }
}
