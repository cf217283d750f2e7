//! The tools as plain functions: decoded arguments in, a success value
//! ([`crate::response`]) or a taxonomy envelope out. One module per tool;
//! nothing here knows about MCP (the handlers in `crate::mcp` decode, call
//! these and wrap the result), and no file logic lives anywhere above.
//!
//! This is where the pieces meet: [`crate::resolve`] (roots), [`crate::fsio`]
//! (reading), [`crate::engine`] (the pure edit), [`crate::commit`] (the
//! atomic, journaled write), [`crate::undo`] (the record of each committed
//! call) and [`crate::envelopes`] (failure → envelope).
//!
//! - [`multi_edit`], [`multi_edit_files`]: the edit path. Order of work for
//!   every call: validate all arguments; resolve every file beneath the
//!   pinned roots and read it through the handle the resolution opened;
//!   check expected hashes; compute every new content in memory
//!   (`plan`); only then touch the disk, never on a dry run (`edit_commit`).
//!   A failure at any step before the commit leaves every file untouched.
//! - [`undo`]: the inverse of a recorded call, committed the same way.
//! - [`list_transactions`]: what `undo` can take (read-only).
//!
//! What they share is here once: recording a committed call for undo
//! (`record`), the bound on an answer's size ([`answer_cap`]), planning
//! (`plan`) and committing (`edit_commit`) an edit call, and what the server
//! needs before it runs an edit call ([`footprint`], [`lock_timeout`]).

pub mod answer_cap;
mod edit_commit;
pub mod list_transactions;
pub mod multi_edit;
pub mod multi_edit_files;
mod plan;
mod record;
pub mod undo;

pub use edit_commit::lock_timeout;
pub use plan::{FOOTPRINT_PER_FILE_BYTE, footprint};
