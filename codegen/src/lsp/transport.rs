//! LSP's base protocol over a byte stream: `Content-Length` framed JSON.
//!
//! lsp-server's own stdio reader ends the connection at the first message
//! it cannot read; this one reports it ([`Frame::Malformed`]), so the server
//! answers it with a parse error and goes on. A frame larger than
//! [`MAX_FRAME`] is skipped without being held in memory.

use std::io::{self, BufRead, Read, Write};

use lsp_server::Message;

/// The largest message read (a 5 MB document is sent whole on open, and
/// JSON escapes may double it).
pub const MAX_FRAME: usize = 64 << 20;

/// One frame of the stream.
#[derive(Debug)]
pub enum Frame {
    /// A message.
    Message(Message),
    /// A frame that is not a JSON-RPC message, and why.
    Malformed(String),
}

/// Reads the next frame; `Ok(None)` at the end of the stream.
pub fn read(r: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length: Option<Result<usize, String>> = None;
    let mut line = Vec::new();
    let mut saw_header = false;
    loop {
        line.clear();
        let n = r.by_ref().take(8 << 10).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(if saw_header {
                Some(Frame::Malformed("the stream ended inside a header".into()))
            } else {
                None
            });
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if saw_header {
                break;
            }
            // Blank lines between messages are noise.
            continue;
        }
        saw_header = true;
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(
                value
                    .trim()
                    .parse::<usize>()
                    .map_err(|e| format!("bad Content-Length `{}`: {e}", value.trim())),
            );
        }
    }
    let size = match length {
        None => {
            return Ok(Some(Frame::Malformed(
                "a header without Content-Length".into(),
            )));
        }
        Some(Err(why)) => return Ok(Some(Frame::Malformed(why))),
        Some(Ok(size)) => size,
    };
    if size > MAX_FRAME {
        io::copy(&mut r.by_ref().take(size as u64), &mut io::sink())?;
        return Ok(Some(Frame::Malformed(format!(
            "a message of {size} bytes, more than the {MAX_FRAME} this server reads"
        ))));
    }
    let mut body = vec![0; size];
    r.read_exact(&mut body)?;
    Ok(Some(parse(&body)))
}

/// A frame's body as a message.
pub fn parse(body: &[u8]) -> Frame {
    match serde_json::from_slice::<Message>(body) {
        Ok(m) => Frame::Message(m),
        Err(e) => Frame::Malformed(format!("not a JSON-RPC message: {e}")),
    }
}

/// A message, framed.
pub fn frame(message: &Message) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = message.write(&mut out);
    out
}

/// The error answer to a message that could not be read (JSON-RPC's parse
/// error, with a null id since none could be read), framed.
pub fn parse_error(why: &str) -> Vec<u8> {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32700, "message": why },
    })
    .to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// Writes framed bytes and flushes.
pub fn write(w: &mut impl Write, framed: &[u8]) -> io::Result<()> {
    w.write_all(framed)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_between_messages_is_reported_and_skipped() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let mut stream = Vec::new();
        stream.extend_from_slice(b"Content-Length: 5\r\n\r\n\xff\xfe{{x");
        stream.extend_from_slice(b"X-Nonsense\r\n\r\n");
        stream
            .extend_from_slice(format!("Content-Length: {}\r\n\r\n{good}", good.len()).as_bytes());
        let mut r = std::io::Cursor::new(stream);
        assert!(matches!(read(&mut r).unwrap(), Some(Frame::Malformed(_))));
        assert!(matches!(read(&mut r).unwrap(), Some(Frame::Malformed(_))));
        assert!(matches!(read(&mut r).unwrap(), Some(Frame::Message(_))));
        assert!(read(&mut r).unwrap().is_none());
    }
}
