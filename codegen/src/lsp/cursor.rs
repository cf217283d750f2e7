//! Where in the spec's structure a position is, read from the text around
//! it rather than from the parsed tree: while a key is half typed the YAML
//! often does not parse (`    ti` under a code is a syntax error), and
//! completion is asked exactly then. Block structure comes from the
//! indentation of the lines above, flow structure (`{ type: string, in: |`)
//! from the brackets of the current line.

/// A position's place in the structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// The keys of the mappings around the position, outermost first; a
    /// list item is `-`.
    pub path: Vec<String>,
    /// What is being written.
    pub slot: Slot,
    /// The word before the position (what completion replaces), and the
    /// byte offset where it starts.
    pub prefix: String,
    /// Byte offset where `prefix` starts.
    pub prefix_start: usize,
}

/// What is being written at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// A key of the mapping at `path`.
    Key,
    /// The value of the key last in `path` (for a list, an item of it).
    Value,
    /// A placeholder inside `{` of a template at `path`.
    Placeholder,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_content(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// The key a line starts (after its indentation and any `- `), if it has
/// one: `  title: x` -> `title`.
fn line_key(line: &str) -> Option<&str> {
    let body = line.trim_start().trim_start_matches("- ").trim_start();
    let (key, rest) = body.split_once(':')?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t', '\r'])) {
        return None;
    }
    let key = key.trim().trim_matches(['"', '\'']);
    (!key.is_empty() && !key.contains(['{', '[', ' '])).then_some(key)
}

/// The place of byte `offset` in `text`.
pub fn at(text: &str, offset: usize) -> Cursor {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let prefix_len = before
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .map(char::len_utf8)
        .sum::<usize>();
    let prefix_start = offset - prefix_len;
    let prefix = text[prefix_start..offset].to_owned();

    // The block keys around the line, from the indentation above it.
    let own_indent = if before.trim().is_empty() {
        before.len()
    } else {
        indent(before)
    };
    let is_dash = before.trim_start().starts_with("- ") || before.trim_start() == "-";
    let mut path = parents(&text[..line_start], own_indent, is_dash);
    if is_dash {
        path.push("-".to_owned());
    }

    // The current line: its flow brackets and the key being valued.
    let body_start = line_start + indent(before);
    let body = text[body_start..offset]
        .trim_start_matches("- ")
        .trim_start_matches('-');
    let (mut flow, key, placeholder) = scan_line(body);
    let slot = if placeholder {
        Slot::Placeholder
    } else {
        match (&key, flow.last()) {
            (Some(_), _) => Slot::Value,
            (None, Some((b'[', _))) => Slot::Value,
            (None, Some(_)) => Slot::Key,
            // `- item` under a key: an item of that key's list.
            (None, None) if is_dash => Slot::Value,
            (None, None) => Slot::Key,
        }
    };
    for (bracket, k) in flow.drain(..) {
        if let Some(k) = k {
            path.push(k);
        }
        if bracket == b'[' {
            // Items of a flow list have no key of their own.
        }
    }
    if let Some(k) = key {
        path.push(k);
    }
    if is_dash && slot == Slot::Value && path.last().is_some_and(|p| p == "-") {
        // `- fo|`: the item itself is the value of the list's key.
        path.pop();
    }
    Cursor {
        path,
        slot,
        prefix,
        prefix_start,
    }
}

/// The keys of the block mappings enclosing a line indented by `own`, from
/// the lines before it (`above`), outermost first.
fn parents(above: &str, own: usize, is_dash: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut limit = own;
    // A `- item` may sit at its key's indentation.
    let mut same_allowed = is_dash;
    for line in above.lines().rev() {
        if !is_content(line) {
            continue;
        }
        let i = indent(line);
        let dash = line.trim_start().starts_with('-');
        let encloses = i < limit || (same_allowed && i == limit && !dash);
        if !encloses {
            continue;
        }
        if dash {
            // A mapping that is a list item: its parent is the list's key.
            if let Some(k) = line_key(line)
                && i + 2 < limit
            {
                // The line is `- key: ...` and we are below its value.
                out.push(k.to_owned());
            }
            out.push("-".to_owned());
            limit = i;
            same_allowed = true;
            continue;
        }
        match line_key(line) {
            Some(k) => out.push(k.to_owned()),
            None => continue,
        }
        limit = i;
        same_allowed = false;
        if i == 0 {
            break;
        }
    }
    out.reverse();
    out
}

/// Open flow brackets, innermost last, each with the key that opened it.
type Flow = Vec<(u8, Option<String>)>;

/// The open flow brackets of a line's text (each with the key that opened
/// it), the key whose value the text ends in, and whether it ends inside
/// an unclosed `{` of a quoted or plain string (a placeholder).
fn scan_line(body: &str) -> (Flow, Option<String>, bool) {
    let mut stack: Vec<(u8, Option<String>)> = Vec::new();
    let mut key: Option<String> = None;
    let mut token_start = 0;
    let mut quote: Option<char> = None;
    let mut brace_in_string = false;
    let bytes = body.as_bytes();
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if let Some(q) = quote {
            match c {
                '\\' if q == '"' => {
                    chars.next();
                }
                '{' => brace_in_string = true,
                '}' => brace_in_string = false,
                c if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                brace_in_string = false;
            }
            ':' if chars.peek().is_none_or(|(_, n)| *n == ' ') => {
                let k = body[token_start..i].trim().trim_matches(['"', '\'']);
                key = (!k.is_empty()).then(|| k.to_owned());
                token_start = i + 1;
            }
            '{' | '[' if key.is_none() || body[token_start..i].trim().is_empty() => {
                stack.push((bytes[i], key.take()));
                token_start = i + 1;
                brace_in_string = false;
            }
            // Inside a plain value: a `{` there opens a placeholder.
            '{' if key.is_some() => brace_in_string = true,
            '}' if brace_in_string => brace_in_string = false,
            ',' if !stack.is_empty() => {
                key = None;
                token_start = i + 1;
            }
            '}' | ']' if !stack.is_empty() && !brace_in_string => {
                stack.pop();
                key = None;
                token_start = i + 1;
            }
            _ => {}
        }
    }
    let _ = token_start;
    (stack, key, brace_in_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(text_with_bar: &str) -> Cursor {
        let at_ = text_with_bar.find('|').unwrap();
        let text = text_with_bar.replace('|', "");
        at(&text, at_)
    }

    fn path(c: &Cursor) -> Vec<&str> {
        c.path.iter().map(String::as_str).collect()
    }

    #[test]
    fn a_half_typed_key_inside_a_code() {
        let c = cursor("codes:\n  X:\n    title: t\n    ti|\n");
        assert_eq!(path(&c), ["codes", "X"]);
        assert_eq!((c.slot, c.prefix.as_str()), (Slot::Key, "ti"));
    }

    #[test]
    fn a_value_after_its_key() {
        let c = cursor("codes:\n  X:\n    category: do|\n");
        assert_eq!(path(&c), ["codes", "X", "category"]);
        assert_eq!(c.slot, Slot::Value);
    }

    #[test]
    fn flow_mappings_and_lists() {
        let c = cursor("fields:\n  f: { type: string, in: |\n");
        assert_eq!(path(&c), ["fields", "f", "in"]);
        assert_eq!(c.slot, Slot::Value);
        let c = cursor("fields:\n  f: { type: string, d| }\n");
        assert_eq!(path(&c), ["fields", "f"]);
        assert_eq!(c.slot, Slot::Key);
        let c = cursor("codes:\n  X:\n    context:\n      required: [a, |]\n");
        assert_eq!(path(&c), ["codes", "X", "context", "required"]);
        assert_eq!(c.slot, Slot::Value);
    }

    #[test]
    fn list_items_and_hint_objects() {
        let c = cursor("codes:\n  X:\n    context:\n      required:\n        - fi|\n");
        assert_eq!(path(&c), ["codes", "X", "context", "required"]);
        assert_eq!(c.slot, Slot::Value);
        let c = cursor("codes:\n  X:\n    recovery_hints:\n      - text: t\n        wh|\n");
        assert_eq!(path(&c), ["codes", "X", "recovery_hints", "-"]);
        assert_eq!(c.slot, Slot::Key);
    }

    #[test]
    fn a_placeholder_in_a_message() {
        let c = cursor("codes:\n  X:\n    message: \"edit {ed|\n");
        assert_eq!(path(&c), ["codes", "X", "message"]);
        assert_eq!((c.slot, c.prefix.as_str()), (Slot::Placeholder, "ed"));
        let c = cursor("codes:\n  X:\n    message: edit {|\n");
        assert_eq!(c.slot, Slot::Placeholder);
    }
}
