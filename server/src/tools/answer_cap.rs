//! The bound on a success answer's size, shared by the tools that answer
//! per-file results (`multi_edit`, `multi_edit_files`).
//!
//! The whole answer is bounded ([`fit_answer`],
//! [`crate::config::MAX_ANSWER_BYTES`] by default): MCP clients read a
//! message into one buffer (the official TypeScript SDK drops the
//! connection above 10 MiB), and the answer travels twice, as
//! `structuredContent` and as escaped text. Past the bound, whole fields are
//! dropped file by file, the last file first, and each file's `omitted`
//! names what it lost.

use serde::Serialize;

use crate::response::{FileResult, MultiEditFilesSuccess, MultiEditSuccess};

/// Room kept under the bound for what cutting adds (`omitted`, the note in
/// `message`) and for the JSON-RPC framing around the two copies.
const ANSWER_SLACK: usize = 64 * 1024;

/// A success answer whose per-file fields can be cut to fit the bound.
pub trait Answer: Serialize {
    /// The per-file results, in call order.
    fn files_mut(&mut self) -> Vec<&mut FileResult>;
    /// The one-line summary, which says what was cut.
    fn message_mut(&mut self) -> &mut String;
}

impl Answer for MultiEditSuccess {
    fn files_mut(&mut self) -> Vec<&mut FileResult> {
        vec![&mut self.file]
    }
    fn message_mut(&mut self) -> &mut String {
        &mut self.message
    }
}

impl Answer for MultiEditFilesSuccess {
    fn files_mut(&mut self) -> Vec<&mut FileResult> {
        self.file_results.iter_mut().collect()
    }
    fn message_mut(&mut self) -> &mut String {
        &mut self.message
    }
}

/// Bytes `s` takes inside a JSON string (without the quotes), escaped the
/// way serde_json escapes: `"`, `\` and the short control escapes take two
/// bytes, other control characters six.
fn escaped_len(s: &str) -> usize {
    s.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0x00..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// Bytes the answer `v` takes on the wire: its compact JSON (the
/// `structuredContent`) plus the same JSON as an escaped string (the text copy).
pub fn wire_size(v: &impl Serialize) -> usize {
    let json = serde_json::to_string(v).unwrap_or_default();
    json.len() + escaped_len(&json)
}

/// What removing the member `"name":value,` saves on the wire (both copies).
fn member_cost(name: &str, value: &impl Serialize) -> usize {
    let member = format!(
        "\"{name}\":{},",
        serde_json::to_string(value).unwrap_or_default()
    );
    member.len() + escaped_len(&member)
}

/// The fields cut, in the order they go: the final content first (the
/// caller has it on disk), then the diff, then the per-edit details.
pub const CUT_ORDER: [&str; 3] = ["final_content", "diff_preview", "edits"];

/// Keeps `answer` within `max` bytes on the wire ([`wire_size`]). When it is
/// larger, drops [`CUT_ORDER`]'s fields file by file, from the last file
/// backwards, one kind of field at a time, until it fits; each file's
/// `omitted` names what it lost and `message` says so. Returns whether
/// anything was cut. The fields that stay (paths, hashes, counts) are small
/// and bounded by the argument limits, so the answer then fits.
pub fn fit_answer<A: Answer>(answer: &mut A, max: usize) -> bool {
    let total = wire_size(answer);
    if total <= max {
        return false;
    }
    let mut excess = total - max.saturating_sub(ANSWER_SLACK).min(total);
    let mut cut = [0usize; CUT_ORDER.len()];
    for (kind, name) in CUT_ORDER.iter().enumerate() {
        for f in answer.files_mut().into_iter().rev() {
            if excess == 0 {
                break;
            }
            let saved = match kind {
                0 => f.final_content.take().map(|v| member_cost(name, &v)),
                1 => f.diff_preview.take().map(|v| member_cost(name, &v)),
                _ => f.edits.take().map(|v| member_cost(name, &v)),
            };
            if let Some(saved) = saved {
                excess = excess.saturating_sub(saved);
                f.omitted.push((*name).to_string());
                cut[kind] += 1;
            }
        }
    }
    let parts: Vec<String> = CUT_ORDER
        .iter()
        .zip(cut)
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} for {n} file(s)"))
        .collect();
    if !parts.is_empty() {
        let note = format!(
            "; answer limited to {} MiB: omitted {} (see each file's `omitted`; \
             call again with fewer files to see them)",
            max / (1024 * 1024),
            parts.join(", ")
        );
        answer.message_mut().push_str(&note);
    }
    !parts.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MAX_ANSWER_BYTES;
    use crate::response::{EditSummary, FilesSummary, echo_old_string};
    use serde_json::Value;

    fn file(i: usize, diff: &str, content: &str) -> FileResult {
        FileResult {
            op: None,
            moved_to: None,
            file_index: i as u64,
            file_path: format!("/r/f{i}.txt"),
            changed: true,
            written: false,
            edits_applied: 1,
            replacements: 1,
            edits: Some(vec![EditSummary {
                edit_index: 0,
                old_string: echo_old_string("x"),
                matched: true,
                occurrences_replaced: 1,
                line: 1,
            }]),
            sha256: "0".repeat(64),
            line_ending: "lf".into(),
            bom: false,
            eol_translated: false,
            backup_path: None,
            diff_preview: Some(diff.to_string()),
            final_content: Some(content.to_string()),
            truncated: None,
            omitted: Vec::new(),
        }
    }

    fn answer(files: Vec<FileResult>) -> MultiEditFilesSuccess {
        let n = files.len() as u64;
        MultiEditFilesSuccess {
            success: true,
            message: "dry run".into(),
            dry_run: true,
            transaction_id: None,
            files_edited: n,
            summary: FilesSummary {
                total_files: n,
                files_succeeded: n,
                files_failed: 0,
                total_edits: n,
            },
            file_results: files,
        }
    }

    #[test]
    fn wire_size_counts_both_copies_exactly() {
        let a = answer(vec![file(0, "--- a/x\n\"q\"\t\u{1}é\n", "\\ \r\n")]);
        let json = serde_json::to_string(&a).unwrap();
        let text_copy = serde_json::to_string(&Value::String(json.clone())).unwrap();
        assert_eq!(wire_size(&a), json.len() + text_copy.len() - 2);
    }

    #[test]
    fn a_large_answer_is_cut_file_by_file_and_says_so() {
        // 100 files with a diff and a content at the per-file cap, full of
        // characters that escaping doubles: ~100 MB unbounded.
        let big = "\"line\"\n".repeat(256 * 1024 / 8);
        let mut a = answer((0..100).map(|i| file(i, &big, &big)).collect());
        assert!(fit_answer(&mut a, MAX_ANSWER_BYTES));
        let size = wire_size(&a);
        assert!(size <= MAX_ANSWER_BYTES, "{size}");
        // Contents went first, from every file; then diffs from the back.
        assert!(a.file_results.iter().all(|f| f.final_content.is_none()));
        let kept = a
            .file_results
            .iter()
            .take_while(|f| f.diff_preview.is_some())
            .count();
        assert!(kept > 0 && kept < 100, "{kept}");
        assert!(
            a.file_results[kept..]
                .iter()
                .all(|f| f.diff_preview.is_none() && f.omitted == ["final_content", "diff_preview"])
        );
        assert_eq!(a.file_results[0].omitted, ["final_content"]);
        assert!(a.file_results.iter().all(|f| f.edits.is_some()));
        assert!(
            a.message.contains(&format!(
                "omitted final_content for 100 file(s), diff_preview for {} file(s)",
                100 - kept
            )),
            "{}",
            a.message
        );
        // Nothing more was cut than needed: one more diff would not fit.
        assert!(size + member_cost("diff_preview", &big) > MAX_ANSWER_BYTES - ANSWER_SLACK);
    }

    #[test]
    fn a_small_answer_is_untouched_and_old_strings_are_echoed_like_the_predecessor() {
        let mut a = answer(vec![file(0, "d", "c")]);
        assert!(!fit_answer(&mut a, MAX_ANSWER_BYTES));
        assert_eq!(a.message, "dry run");
        assert!(a.file_results[0].omitted.is_empty());
        assert_eq!(echo_old_string(&"é".repeat(50)), "é".repeat(50));
        assert_eq!(
            echo_old_string(&"é".repeat(51)),
            format!("{}...", "é".repeat(47))
        );
    }
}
