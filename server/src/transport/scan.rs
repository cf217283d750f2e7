//! The streaming scan of a request line too long to buffer: only its
//! top-level `id` and `method` are kept, so the line can be answered
//! (`REQUEST_TOO_LARGE` with its id) without holding it in memory.

use serde_json::Value;

/// A streaming scan of a JSON object's top-level `id` and `method`, for a
/// line too large to buffer. Strings are tracked so braces inside them do not
/// count; only small scalars are captured.
#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
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
    /// Scans the next bytes of the line. Inside a string below the top
    /// level nothing is kept, so the scan jumps to that string's next quote
    /// or backslash (`memchr2`) instead of stepping through it: a request
    /// over the limit is almost all one such string (an `old_string`, a
    /// `content`), and is scanned at memory speed.
    pub(super) fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.in_str && !self.esc && self.depth != 1 {
                match memchr::memchr2(b'"', b'\\', bytes) {
                    Some(i) => bytes = &bytes[i..],
                    None => return,
                }
            }
            self.byte(bytes[0]);
            bytes = &bytes[1..];
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

    /// Skipping through nested strings keeps exactly what stepping through
    /// every byte keeps, however the line is cut into reads: on JSON-RPC
    /// shaped lines (nested strings full of quotes, backslashes and
    /// brackets) and on arbitrary bytes.
    #[test]
    fn skipping_nested_strings_scans_as_every_byte_does() {
        use proptest::prelude::*;

        fn stepped(line: &[u8]) -> Scan {
            let mut sc = Scan::default();
            line.iter().for_each(|&b| sc.byte(b));
            sc
        }
        fn fed(line: &[u8], cuts: &[usize]) -> Scan {
            let mut sc = Scan::default();
            let mut rest = line;
            for &cut in cuts {
                let (now, later) = rest.split_at(cut.min(rest.len()));
                sc.feed(now);
                rest = later;
            }
            sc.feed(rest);
            sc
        }
        let text = "[a-z\"\\\\{}\\[\\]:, ]{0,12}";
        let leaf = prop_oneof![
            text.prop_map(Value::String),
            any::<i64>().prop_map(Value::from),
            Just(Value::Null),
        ];
        let value = leaf.prop_recursive(4, 32, 4, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(text, inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        let message = (value, any::<u8>(), text).prop_map(|(params, id, method)| {
            serde_json::to_vec(&json!({"params": params, "id": id, "method": method})).unwrap()
        });
        let line = prop_oneof![message, prop::collection::vec(any::<u8>(), 0..200)];
        let mut runner = proptest::test_runner::TestRunner::new_with_rng(
            ProptestConfig::with_cases(2000),
            proptest::test_runner::TestRng::deterministic_rng(
                proptest::test_runner::RngAlgorithm::ChaCha,
            ),
        );
        runner
            .run(
                &(line, prop::collection::vec(0usize..40, 0..8)),
                |(line, cuts)| {
                    prop_assert_eq!(fed(&line, &cuts), stepped(&line));
                    Ok(())
                },
            )
            .unwrap();
    }
}
