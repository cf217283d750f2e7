//! Server configuration: allowed roots, limits, where the journal lives.
//!
//! Built once at start from the command line and shared read-only by every
//! call. Roots are canonicalized here so every later containment check
//! compares canonical paths, and each root's directory is opened and pinned
//! ([`crate::sandbox::Handles`]) so that later resolution walks beneath the
//! directory that was configured, whatever happens to its path.

use std::io;
use std::path::{Path, PathBuf};

use crate::sandbox::Handles;

/// Size and count limits. Each breach is a specific taxonomy code carrying
/// the limit, and nothing is read beyond a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest file the server reads or writes, in bytes.
    pub max_file_size: u64,
    /// Most edits in one file (and, times `max_files`, in one call).
    pub max_edits: usize,
    /// Most files in one `multi_edit_files` call.
    pub max_files: usize,
    /// Largest JSON arguments object, in bytes of its compact encoding.
    pub max_request_bytes: usize,
    /// Longest accepted path, in bytes.
    pub max_path_bytes: usize,
    /// Longest accepted path component, in bytes.
    pub max_name_bytes: usize,
    /// Cap on any text returned in a result (diffs, contents, snippets).
    pub max_output_bytes: usize,
    /// Cap on a whole success answer, both copies as sent
    /// ([`MAX_ANSWER_BYTES`] by default; [`crate::tools::answer_cap`]).
    pub max_answer_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_size: 16 * 1024 * 1024,
            max_edits: 1_000,
            max_files: 100,
            max_request_bytes: 64 * 1024 * 1024,
            max_path_bytes: 4_096,
            max_name_bytes: 255,
            max_output_bytes: 256 * 1024,
            max_answer_bytes: MAX_ANSWER_BYTES,
        }
    }
}

/// The largest answer splice sends, in bytes as they travel: the
/// `structuredContent` JSON plus the text copy, which is that JSON escaped
/// once more inside the JSON-RPC message. 4 MiB, well under the 10 MiB the
/// official TypeScript SDK accepts, with room for the JSON-RPC framing.
pub const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// Everything a call needs to know about the server it runs in.
#[derive(Debug, Clone)]
pub struct Config {
    /// Canonical allowed roots; no file outside them is read or written.
    pub roots: Vec<PathBuf>,
    /// Limits.
    pub limits: Limits,
    /// Directory of the commit journal (crash recovery).
    pub journal_dir: PathBuf,
    /// Open handles of `/` and of the roots, shared by every clone. A clone
    /// with other (narrower) `roots` opens those on first use.
    pub handles: Handles,
    /// The undo store (issue #14): where committed calls are recorded.
    pub undo: crate::undo::UndoState,
}

impl Config {
    /// Canonicalizes `roots` (each must be an existing directory).
    pub fn new(roots: &[PathBuf], limits: Limits, journal_dir: PathBuf) -> io::Result<Config> {
        let mut canon = Vec::with_capacity(roots.len());
        for r in roots {
            let c = r
                .canonicalize()
                .map_err(|e| io::Error::new(e.kind(), format!("root {}: {e}", r.display())))?;
            if !c.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("root {} is not a directory", r.display()),
                ));
            }
            if !canon.contains(&c) {
                canon.push(c);
            }
        }
        if canon.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "at least one root is required",
            ));
        }
        let handles = Handles::open(&canon)?;
        Ok(Config {
            roots: canon,
            limits,
            journal_dir,
            handles,
            undo: crate::undo::UndoState::Unavailable {
                dir: PathBuf::new(),
                os_error: "ENOENT".to_string(),
            },
        })
    }

    /// The configuration with the undo store `undo`.
    pub fn with_undo(mut self, undo: crate::undo::UndoState) -> Config {
        self.undo = undo;
        self
    }

    /// True if the canonical `path` is one of the roots or below one.
    pub fn contains(&self, path: &Path) -> bool {
        self.roots.iter().any(|r| path.starts_with(r))
    }
}
