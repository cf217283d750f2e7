//! The undo store: what each committed call changed, kept so that an `undo`
//! can put it back (issue #14).
//!
//! Why a store of its own: an undo must survive a server restart and must
//! never litter the user's tree (that is what `.bak` files do, and they stay
//! for drop-in compatibility). So each committed transaction is kept in
//! splice's state directory, by default `$XDG_STATE_HOME/splice/undo` (else
//! `~/.local/state/splice/undo`), beside the commit journal:
//!
//! ```text
//! undo/
//!   log-019a2b3c4d5e-00001f2a-0000   a segment: each transaction appended as
//!                                    a line of JSON (id, time, tool, and per
//!                                    path: operation, the SHA-256, length and
//!                                    mode of its content before, or "absent",
//!                                    and the SHA-256 after, or "absent"),
//!                                    then each content before, back to back
//! ```
//!
//! How segments are written, rotated, read by other processes and removed
//! is [`log`]'s. A store written by an earlier splice holds one file per
//! transaction, named by its id, with the same line and contents, or one
//! directory per transaction: [`legacy`] still reads, lists and prunes
//! them, and nothing writes them.
//!
//! **Durability.** The store is not `fsync`ed: recording costs a few page
//! cache writes per committed call, not more disk flushes (which would
//! double the latency of a small edit). This is safe because nothing the
//! store says is trusted unchecked: after a power loss a record may be
//! missing (the call can no longer be undone: `TRANSACTION_NOT_FOUND`) or
//! hold torn content, which the hashes refuse; it can never make an undo
//! write wrong bytes. The user's files themselves are committed through the
//! fsynced journal as always, undos included.
//!
//! A reader takes a record only once its line and contents are all in its
//! segment, so it sees all of a transaction or nothing; a crash leaves at
//! most a torn record at a segment's end, never read. Each content is
//! checked against its recorded SHA-256 when read back, so a damaged store
//! refuses an undo instead of writing damaged bytes.
//!
//! **After the answer.** Recording is on by default, so it must cost next to
//! nothing on the most common call, and a file-system write beside a
//! commit's `fsync`s costs that call far more than its own system calls. So
//! [`UndoStore::begin`], before the commit, only decides whether the
//! transaction can be kept and gives it its id; [`Pending::publish`], after
//! the commit point, queues it; the store's thread ([`worker`]) writes it
//! once the call's answer is out. Readers ([`UndoStore::get`],
//! [`UndoStore::list`]) let the thread finish what is queued first, and the
//! server flushes the queue before it exits ([`UndoState::flush`]). A write
//! that fails is remembered: an `undo` of that id answers
//! `UNDO_UNAVAILABLE` with the errno, not "not found", and later calls
//! record before they answer until the store takes a write again. A kill
//! between the answer and the append loses that record, as a power loss
//! can; it never makes an undo write wrong bytes.
//!
//! The content before is written as a copy rather than kept by hard-linking
//! the replaced inode: a link would save the page-cache write of the bytes
//! the call already holds (after the answer anyway), but the store
//! may live on another file system (`~/.local/state`), and a linked inode
//! could still be changed in place by whoever holds it open or another hard
//! link to it, which the hashes would then refuse: the copy keeps every
//! record usable.
//!
//! The store is bounded by a number of transactions and a number of bytes
//! of stored content ([`UndoLimits`]); after each new transaction the oldest
//! are dropped until both hold. A transaction larger than the byte bound on
//! its own is not stored ([`Recorded::TooLarge`]): the call still commits,
//! it just cannot be undone.
//!
//! The directory is trusted like the journal's: it must be owned by this
//! user and not writable by group or others
//! ([`crate::state_dir::check_private`]), since an undo writes what the
//! store says into the user's files. Ids are parsed
//! ([`TransactionId::parse`]) before they name a path, so an id from a tool
//! call cannot reach outside the store.
//!
//! This module stores and reads; it does not touch the user's files. The
//! undo itself is a transaction like any other (`commit::commit_paths`) from
//! each path's state after the call back to its state before, guarded by
//! the recorded `after` hashes.
//!
//! One concept a file: [`record`] (the transaction, its id, its record
//! line), [`store`] (the store: open, decide, read back, list; what the
//! tools see), [`worker`] (the store's thread: writes after the answer,
//! prunes), [`log`] (segments and the index), [`legacy`] (the older
//! layouts, read only).

mod legacy;
mod log;
mod record;
mod store;
#[cfg(test)]
mod tests;
mod worker;

pub use record::{Operation, PathRecord, Summary, SummaryFile, Transaction, TransactionId};
pub use store::{
    DEFAULT_MAX_BYTES, DEFAULT_MAX_TRANSACTIONS, Pending, Recorded, UndoLimits, UndoState,
    UndoStore, errno_name,
};
