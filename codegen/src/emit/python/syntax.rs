//! Python source text: string and tuple literals, comments and docstrings
//! that nothing in a spec's text can break out of, and a `TypedDict` in the
//! class syntax or, when a key is not an identifier, the functional one.

use std::fmt::Write as _;

/// Python keywords a member name could collide with (`None`, `True`,
/// `False` and `__debug__` come from an envelope member, whose wire name is
/// any string); a `TypedDict` with such a key is written in the functional
/// syntax.
pub(super) const PY_KEYWORDS: &[&str] = &[
    "None",
    "True",
    "False",
    "__debug__",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
];

/// One key of a `TypedDict`.
#[derive(Clone)]
pub(super) struct Key {
    pub(super) name: String,
    pub(super) ty: String,
    pub(super) doc: String,
}

/// A `TypedDict` named `name`: class syntax, or the functional syntax when a
/// key is not an identifier, is a Python keyword (`class` bodies cannot
/// declare those) or starts with `__` and does not end with it (a class
/// body mangles such a name: `__x` in `class T` is the key `_T__x`).
pub(super) fn typed_dict(out: &mut String, name: &str, doc: &str, keys: &[Key]) {
    blank_lines(out, 2);
    let identifier = |k: &str| {
        let mut chars = k.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if keys.iter().any(|k| {
        PY_KEYWORDS.contains(&k.name.as_str())
            || !identifier(&k.name)
            || (k.name.starts_with("__") && !k.name.ends_with("__"))
    }) {
        comment(out, "", doc);
        let _ = writeln!(
            out,
            "{name} = typing.TypedDict(\n    {},\n    {{",
            py_str(name)
        );
        for k in keys {
            comment(out, "        ", &k.doc);
            let _ = writeln!(out, "        {}: {},", py_str(&k.name), k.ty);
        }
        out.push_str("    },\n)\n");
        blank_lines(out, 2);
        return;
    }
    let _ = writeln!(out, "class {name}(typing.TypedDict):");
    docstring(out, "    ", doc);
    if !keys.is_empty() {
        out.push('\n');
    }
    for k in keys {
        comment(out, "    ", &k.doc);
        let _ = writeln!(out, "    {}: {}", k.name, k.ty);
    }
    blank_lines(out, 2);
}

/// Ends `out` with exactly `n` blank lines (PEP 8: two around top-level
/// classes).
pub(super) fn blank_lines(out: &mut String, n: usize) {
    while out.ends_with("\n\n") {
        out.pop();
    }
    for _ in 0..n {
        out.push('\n');
    }
}

/// A JSON value as a Python literal (a `typing.Literal` argument).
pub(super) fn py_literal(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Bool(b) => py_bool(*b).into(),
        serde_json::Value::String(s) => py_str(s),
        serde_json::Value::Null => "None".into(),
        other => other.to_string(),
    }
}

/// `Name: typing.TypeAlias = typing.Literal[...]`, one value a line, or
/// `typing.Never` when there is none.
pub(super) fn literal_alias(out: &mut String, name: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        let _ = writeln!(out, "{name}: typing.TypeAlias = typing.Never\n");
        return;
    }
    let _ = writeln!(out, "{name}: typing.TypeAlias = typing.Literal[");
    for item in items {
        let _ = writeln!(out, "    {item},");
    }
    out.push_str("]\n\n");
}

/// `# text`, one comment line per line of text.
pub(super) fn comment(out: &mut String, indent: &str, text: &str) {
    for line in text.trim().lines() {
        let line = crate::text::comment_line(line.trim_end());
        if line.is_empty() {
            let _ = writeln!(out, "{indent}#");
        } else {
            let _ = writeln!(out, "{indent}# {line}");
        }
    }
}

/// A `"""docstring"""`; backslashes and quotes in the text cannot end it
/// early or escape anything.
pub(super) fn docstring(out: &mut String, indent: &str, text: &str) {
    let text = crate::text::py_docstring(text.trim());
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 1 {
        let _ = writeln!(out, "{indent}\"\"\"{text}\"\"\"");
        return;
    }
    let _ = writeln!(out, "{indent}\"\"\"{}", lines[0]);
    for line in &lines[1..] {
        if line.trim().is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{indent}{}", line.trim_end());
        }
    }
    let _ = writeln!(out, "{indent}\"\"\"");
}

/// A Python string literal. JSON string syntax is valid Python: serde_json
/// escapes only `"`, `\` and control characters, with escapes Python reads
/// the same way ([`crate::text::json_str`]).
pub(super) fn py_str(s: &str) -> String {
    crate::text::json_str(s)
}

pub(super) fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// `()`, `("a",)` or one item a line, as an argument of a `CodeInfo(...)`.
/// `("a", "b")` on one line; `("a",)` for one item.
pub(super) fn py_tuple_inline(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

pub(super) fn py_tuple(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    match items.len() {
        0 => "()".into(),
        1 => format!("({},)", items[0]),
        _ => {
            let mut text = String::from("(\n");
            for item in items {
                let _ = writeln!(text, "            {item},");
            }
            text.push_str("        )");
            text
        }
    }
}
