//! The streaming scan of a request line too long to buffer: only its
//! top-level `id` and `method` are kept, so the line can be answered
//! (`REQUEST_TOO_LARGE` with its id) without holding it in memory.

use serde_json::Value;

/// A streaming scan of a JSON object's top-level `id` and `method`, for a
/// line too large to buffer. Strings are tracked so braces inside them do not
/// count; only small scalars are captured.
#[derive(Default)]
pub(super) struct Scan {
    depth: u32,
    in_str: bool,
    esc: bool,
    /// At depth 1: whether the next string is a key.
    want_key: bool,
    key: Vec<u8>,
    /// The key whose value is being read at depth 1.
    current: Option<Vec<u8>>,
    token: Vec<u8>,
    token_is_str: bool,
    pub(super) id: Option<Value>,
    pub(super) method: Option<String>,
}

impl Scan {
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_str {
            if self.esc {
                self.esc = false;
            } else if b == b'\\' {
                self.esc = true;
            } else if b == b'"' {
                self.in_str = false;
                if self.depth == 1 {
                    if self.want_key {
                        self.current = Some(std::mem::take(&mut self.key));
                        self.want_key = false;
                    } else {
                        self.finish_value();
                    }
                }
                return;
            }
            if self.depth == 1 {
                let dst = if self.want_key {
                    &mut self.key
                } else {
                    &mut self.token
                };
                if dst.len() < 256 {
                    dst.push(b);
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_str = true;
                if self.depth == 1 && !self.want_key {
                    self.token.clear();
                    self.token_is_str = true;
                }
                if self.depth == 1 && self.want_key {
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.want_key = true;
                }
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.finish_value();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if self.depth == 1 => {
                self.finish_value();
                self.want_key = true;
            }
            b':' if self.depth == 1 => {
                self.token.clear();
                self.token_is_str = false;
            }
            _ if self.depth == 1 && !b.is_ascii_whitespace() && self.token.len() < 64 => {
                self.token.push(b);
            }
            _ => {}
        }
    }

    fn finish_value(&mut self) {
        let Some(key) = self.current.take() else {
            return;
        };
        let token = std::mem::take(&mut self.token);
        match key.as_slice() {
            b"id" if self.token_is_str => {
                self.id = Some(Value::String(String::from_utf8_lossy(&token).into_owned()));
            }
            b"id" => self.id = serde_json::from_slice(&token).ok(),
            b"method" if self.token_is_str => {
                self.method = Some(String::from_utf8_lossy(&token).into_owned());
            }
            _ => {}
        }
        self.token_is_str = false;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn scan(s: &str) -> (Option<Value>, Option<String>) {
        let mut sc = Scan::default();
        for chunk in s.as_bytes().chunks(3) {
            sc.feed(chunk);
        }
        (sc.id, sc.method)
    }

    #[test]
    fn finds_the_id_wherever_it_is() {
        let (id, m) = scan(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":1}}"#);
        assert_eq!(id, Some(json!(7)));
        assert_eq!(m.as_deref(), Some("tools/call"));
        let (id, m) = scan(
            r#"{"method":"tools/call","params":{"arguments":{"x":"}{\"id\":3"}},"jsonrpc":"2.0","id":"a-b"}"#,
        );
        assert_eq!(id, Some(json!("a-b")));
        assert_eq!(m.as_deref(), Some("tools/call"));
        let (id, _) = scan(r#"{"params":{"x":[1,2,{"id":9}]}, "id" : 12 }"#);
        assert_eq!(id, Some(json!(12)));
    }
}
