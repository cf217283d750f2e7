//! splice's own private state directories: where the commit journal and the
//! undo store live by default, and the check that nobody else can write them.
//!
//! Why a module of its own: the journal ([`crate::commit`]) and the undo
//! store ([`crate::undo`]) both act on what they read from their directory
//! (recovery renames and removes the user's files as a journal says; an undo
//! writes what a record holds), so both refuse a directory another user could
//! have written, with the same rule and message. Keeping that rule and the
//! default locations here lets neither module depend on the other.
//!
//! By default both live under `$XDG_STATE_HOME/splice` (an absolute, non-empty
//! `XDG_STATE_HOME`), else `$HOME/.local/state/splice`: `journal/` and `undo/`.
//! Never a shared fallback such as a directory under `/tmp`: another local user
//! could create it first and plant journals that recovery acts on.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// `$XDG_STATE_HOME/splice`, else `$HOME/.local/state/splice`; `None` when
/// neither variable gives an absolute directory.
fn default_root() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            let home = std::env::var_os("HOME").filter(|v| !v.is_empty())?;
            Some(PathBuf::from(home).join(".local/state"))
        })?;
    Some(state.join("splice"))
}

/// The default journal directory: `$XDG_STATE_HOME/splice/journal`, else
/// `$HOME/.local/state/splice/journal`.
pub fn default_journal_dir() -> Option<PathBuf> {
    Some(default_root()?.join("journal"))
}

/// The default undo store: `$XDG_STATE_HOME/splice/undo`, else
/// `$HOME/.local/state/splice/undo`.
pub fn default_undo_dir() -> Option<PathBuf> {
    Some(default_root()?.join("undo"))
}

/// Refuses a directory (or file) of splice's own state that another user
/// could have written: not owned by this process's effective user, or
/// writable by its group or by others. `what` names it in the message,
/// `option` is the flag that chooses another one.
pub(crate) fn check_private(
    meta: &fs::Metadata,
    path: &Path,
    what: &str,
    option: &str,
) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{what} {} is owned by uid {}, not by this user (uid {me}); refusing to trust it. \
                 Remove it if you do not know who made it, or pass {option} DIR (a directory only you can write)",
                path.display(),
                meta.uid()
            ),
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{what} {} is writable by group or others (mode {:o}); refusing to trust it. \
                 Check its contents, then `chmod go-w` it, or pass {option} DIR",
                path.display(),
                meta.mode() & 0o7777
            ),
        ));
    }
    Ok(())
}
