//! Unified diffs for dry runs.
//!
//! A dry run answers "what would this call write?", so it returns the change
//! as a unified diff (`--- a/…`, `+++ b/…`, hunks with 3 lines of context),
//! the format both models and people read best. The file is named the way
//! `git diff --no-index` names an absolute path: the caller's path without
//! its leading `/`, so `/src/a.rs` is headed `--- a/src/a.rs` / `+++
//! b/src/a.rs` (never `a//src/a.rs`), and `patch -p1 -d /` applies it. The
//! diff is bounded: a
//! response must stay small even when `replace_all` rewrote a large file, so
//! output stops at the last whole hunk that fits in the caller's budget and
//! the truncation is reported rather than hidden. Diffing is also bounded in
//! time ([`DIFF_TIMEOUT`]): past it, `similar` falls back to a coarser (still
//! correct) diff instead of running quadratically on pathological inputs.
//!
//! ```
//! let (diff, truncated) = splice_server::diff::unified("/src/a.rs", "a\nb\n", "a\nc\n", 4096);
//! assert_eq!(diff, "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
//! assert!(!truncated);
//! ```

use std::fmt::Write as _;
use std::time::Duration;

use similar::{Algorithm, TextDiff};

/// Lines of unchanged context around each change.
pub const CONTEXT_LINES: usize = 3;

/// Time after which the diff algorithm settles for a less minimal diff.
pub const DIFF_TIMEOUT: Duration = Duration::from_millis(500);

/// The unified diff from `old` to `new`, labelled `a/{path}` and `b/{path}`
/// with `path`'s leading slashes removed, and whether it was cut to fit in
/// `max_bytes`.
///
/// Identical inputs give an empty diff. When the diff is longer than
/// `max_bytes`, only the leading whole hunks that fit are kept (or, when not
/// even the first hunk fits, its leading whole lines), so the text is always
/// a prefix of the full diff ending at a line break.
pub fn unified(path: &str, old: &str, new: &str, max_bytes: usize) -> (String, bool) {
    let path_label = path.trim_start_matches('/');
    if old == new {
        return (String::new(), false);
    }
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "--- a/{path_label}\n+++ b/{path_label}");
    if out.len() > max_bytes {
        return (String::new(), true);
    }
    let mut formatter = diff.unified_diff();
    formatter.context_radius(CONTEXT_LINES);
    for hunk in formatter.iter_hunks() {
        let text = hunk.to_string();
        if out.len() + text.len() <= max_bytes {
            out.push_str(&text);
            continue;
        }
        if out.lines().count() == 2 {
            // Not even the first hunk fits: keep its leading whole lines.
            for line in text.split_inclusive('\n') {
                if out.len() + line.len() > max_bytes {
                    break;
                }
                out.push_str(line);
            }
        }
        return (out, true);
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_has_headers_hunks_and_three_lines_of_context() {
        let old: String = (1..=10).map(|i| format!("{i}\n")).collect();
        let new = old.replace("5\n", "five\n");
        let (diff, truncated) = unified("src/lib.rs", &old, &new, 10_000);
        assert!(!truncated);
        assert_eq!(
            diff,
            "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn absolute_paths_are_headed_like_git_without_a_double_slash() {
        let (diff, _) = unified("/tmp/x/y.txt", "a\n", "b\n", 1000);
        assert!(
            diff.starts_with("--- a/tmp/x/y.txt\n+++ b/tmp/x/y.txt\n@@ -1 +1 @@\n"),
            "{diff}"
        );
        assert!(!diff.contains("a//"), "{diff}");
    }

    #[test]
    fn identical_inputs_give_an_empty_diff() {
        assert_eq!(
            unified("f", "same\n", "same\n", 100),
            (String::new(), false)
        );
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let (diff, _) = unified("f", "a\nb", "a\nc", 1000);
        assert!(
            diff.ends_with("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"),
            "{diff}"
        );
    }

    #[test]
    fn truncation_keeps_whole_hunks() {
        let old: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 10\n", "ten\n")
            .replace("line 90\n", "ninety\n");
        let (full, truncated) = unified("f", &old, &new, usize::MAX);
        assert!(!truncated);
        assert_eq!(full.matches("@@ -").count(), 2);
        let (cut, truncated) = unified("f", &old, &new, full.len() - 1);
        assert!(truncated);
        assert!(full.starts_with(&cut));
        assert_eq!(cut.matches("@@ -").count(), 1);
        assert!(cut.ends_with("line 13\n"));
    }

    #[test]
    fn a_tiny_budget_keeps_whole_lines_only() {
        let (cut, truncated) = unified("f", "a\nb\nc\n", "a\nB\nc\n", 40);
        assert!(truncated);
        assert!(cut.len() <= 40);
        assert!(cut.ends_with('\n'));
        assert!(cut.starts_with("--- a/f\n+++ b/f\n@@"));
        let (cut, truncated) = unified("a-very-long-file-name", "a\n", "b\n", 10);
        assert_eq!((cut.as_str(), truncated), ("", true));
    }
}
