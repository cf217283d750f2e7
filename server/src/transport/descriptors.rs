//! The process's stdin and stdout as the transport reads and writes them:
//! on the runtime's event loop when they are a pipe or a socket (how every
//! MCP client starts a server), through tokio's blocking-pool `stdin()` and
//! `stdout()` otherwise.

use tokio::io::{AsyncRead, AsyncWrite};

/// What [`stdio`] reads from.
pub type Input = Box<dyn AsyncRead + Send + Unpin>;
/// What [`stdio`] writes to.
pub type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// The process's stdin and stdout, for [`StdioTransport`]; call it inside the
/// runtime.
///
/// tokio's `stdin()` and `stdout()` do every read and write on the blocking
/// pool: one more thread hand-off (a futex wake and a switch) each way for
/// every message. When they are a pipe or a socket, which is how an MCP
/// client starts a server (Node's `child_process` gives socket pairs,
/// Python's `subprocess` pipes), they are put in non-blocking mode and
/// driven by the runtime's own event loop instead. Anything else (a file, a
/// terminal, a closed descriptor) keeps tokio's. Non-blocking mode belongs
/// to the open file, which only this end of the client's pipe uses.
pub fn stdio() -> (Input, Output) {
    use tokio::net::unix::pipe;
    let input: Input = match evented(0, false) {
        Some(Evented::Pipe(fd)) => match pipe::Receiver::from_owned_fd(fd) {
            Ok(rx) => Box::new(rx),
            Err(e) => {
                tracing::error!("stdin could not join the event loop: {e}");
                Box::new(tokio::io::empty())
            }
        },
        Some(Evented::Socket(s)) => Box::new(s),
        None => Box::new(tokio::io::stdin()),
    };
    let output: Output = match evented(1, true) {
        Some(Evented::Pipe(fd)) => match pipe::Sender::from_owned_fd(fd) {
            Ok(tx) => Box::new(tx),
            Err(e) => {
                tracing::error!("stdout could not join the event loop: {e}");
                Box::new(tokio::io::sink())
            }
        },
        Some(Evented::Socket(s)) => Box::new(s),
        None => Box::new(tokio::io::stdout()),
    };
    (input, output)
}

/// A standard descriptor the event loop can drive.
enum Evented {
    /// A pipe (tokio's pipe types set it non-blocking).
    Pipe(std::os::fd::OwnedFd),
    /// A stream socket, already non-blocking and registered.
    Socket(tokio::net::UnixStream),
}

/// Descriptor `fd` (0 or 1) itself, not a duplicate (a trace of the server
/// shows the protocol on 0 and 1, as `scripts/fault-points` and
/// `scripts/power-loss` expect), if it is a pipe or a socket open for
/// `write` or for reading.
fn evented(fd: std::os::fd::RawFd, write: bool) -> Option<Evented> {
    use rustix::fs::{FileType, OFlags};
    use std::os::fd::FromRawFd;
    // SAFETY: 0 and 1 are open for the whole process (checked by fstat).
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let st = rustix::fs::fstat(borrowed).ok()?;
    let access = rustix::fs::fcntl_getfl(borrowed).ok()? & OFlags::RWMODE;
    let usable = access == OFlags::RDWR
        || access
            == if write {
                OFlags::WRONLY
            } else {
                OFlags::RDONLY
            };
    #[allow(clippy::unnecessary_cast)]
    let kind = FileType::from_raw_mode(st.st_mode as _);
    if !usable || !matches!(kind, FileType::Fifo | FileType::Socket) {
        return None;
    }
    // SAFETY: from here the transport alone uses the descriptor: stdout
    // belongs to the protocol, and nothing else reads stdin. It is closed
    // when the transport ends, which tells the client the server is done.
    let owned = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
    if kind == FileType::Fifo {
        return Some(Evented::Pipe(owned));
    }
    let socket = std::os::unix::net::UnixStream::from(owned);
    if let Err(e) = socket.set_nonblocking(true) {
        tracing::error!("stdio socket: {e}");
    }
    match tokio::net::UnixStream::from_std(socket) {
        Ok(s) => Some(Evented::Socket(s)),
        Err(e) => {
            // The descriptor went with the failed stream.
            tracing::error!("stdio socket could not join the event loop: {e}");
            None
        }
    }
}
