//! `splice explain CODE`: a code's explanation, hints, retryable flag and
//! cause (and its retry classes and per-code attributes, when the spec
//! declares any) and the tools (operations) that may answer with it, like
//! `rustc --explain`; `splice explain TOOL`: the codes a tool may answer
//! with. Everything comes from the generated taxonomy (compiled from
//! `errors.yaml`), so it always matches the server.

use std::fmt::Write;
use std::str::FromStr;

use crate::taxonomy::ErrorCode;
use crate::taxonomy::operation;

/// Looks `code` up by name (any case) or number and renders it; or, when
/// it names a tool (an operation of `errors.yaml`), lists the tool's codes.
pub fn explain(code: &str) -> Option<String> {
    let wanted = code.trim();
    if let Some(op) = operation::ALL
        .iter()
        .find(|op| op.wire == wanted || op.name == wanted)
    {
        return Some(render_operation(op));
    }
    let found = ErrorCode::from_str(&wanted.to_ascii_uppercase())
        .ok()
        .or_else(|| {
            let n: u64 = wanted.parse().ok()?;
            ErrorCode::ALL
                .iter()
                .copied()
                .find(|c| u64::from(c.number()) == n)
        })?;
    Some(render(found))
}

/// Renders one code.
pub fn render(c: ErrorCode) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({}): {}", c.as_str(), c.number(), c.title());
    let _ = writeln!(
        out,
        "category: {}   retryable: {}   cause: {}",
        c.category(),
        c.retryable(),
        c.cause()
    );
    if !c.retry_classes().is_empty() {
        let _ = writeln!(out, "retry classes: {}", c.retry_classes().join(", "));
    }
    for (name, value) in c.attributes() {
        let _ = writeln!(out, "{name}: {value}");
    }
    let _ = writeln!(out, "message: {}", c.message_template());
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", c.explanation().trim_end());
    let _ = writeln!(out);
    let _ = writeln!(out, "Recovery hints:");
    for h in c.recovery_hints() {
        let _ = writeln!(out, "  - {h}");
    }
    let tools: Vec<&str> = operation::raising(c).map(|op| op.wire).collect();
    if !tools.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "Returned by: {}", tools.join(", "));
    }
    out
}

/// Renders one tool: what it does and every code it may answer with.
pub fn render_operation(op: &operation::Info) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", op.wire, op.doc);
    let _ = writeln!(out);
    let _ = writeln!(out, "May answer with {} codes:", op.codes.len());
    for c in op.codes {
        let how = if c.is_violation_kind() {
            " (as a violation)"
        } else {
            ""
        };
        let _ = writeln!(out, "  {} ({}): {}{how}", c.as_str(), c.number(), c.title());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name_number_and_case() {
        let a = explain("MATCH_NOT_FOUND").unwrap();
        assert!(a.starts_with("MATCH_NOT_FOUND (2000)"), "{a}");
        assert!(a.contains("retryable: true"));
        assert_eq!(explain("match_not_found"), Some(a.clone()));
        assert_eq!(explain("2000"), Some(a));
        assert_eq!(explain("NO_SUCH_CODE"), None);
        assert_eq!(explain("123456"), None);
    }

    #[test]
    fn codes_name_their_tools_and_tools_list_their_codes() {
        let a = explain("UNDO_CONFLICT").unwrap();
        assert!(a.ends_with("Returned by: undo\n"), "{a}");
        let a = explain("MATCH_NOT_FOUND").unwrap();
        assert!(
            a.ends_with("Returned by: multi_edit, multi_edit_files\n"),
            "{a}"
        );
        let t = explain("list_transactions").unwrap();
        assert!(t.starts_with("list_transactions: "), "{t}");
        assert!(t.contains("  UNDO_UNAVAILABLE (5001): "), "{t}");
        assert!(!t.contains("MATCH_NOT_FOUND"), "{t}");
        let t = explain("multi_edit").unwrap();
        assert!(
            t.contains("  RELATIVE_PATH (1001): the file path is not absolute (as a violation)"),
            "{t}"
        );
    }

    #[test]
    fn every_code_has_hints_and_an_explanation() {
        for c in ErrorCode::ALL {
            let text = render(*c);
            assert!(!c.recovery_hints().is_empty(), "{c}");
            assert!(text.len() > 200, "{c} explanation too short");
        }
    }
}
