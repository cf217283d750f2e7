//! Property tests: the engine against a plain reference implementation.
//!
//! The reference (`reference/mod.rs`, shared with the `engine` fuzz target)
//! restates the engine's rules (see the `engine` module docs) with `str`
//! searches and loops, the obvious and slow way. Random small texts over a tiny alphabet that includes `\r` and `\n`
//! make collisions, overlaps, CRLF pairs and lone carriage returns common.

use proptest::prelude::*;
use splice_server::engine::{self, CappedFailure, Edit, Failure, MAX_MATCH_LOCATIONS};

use crate::reference::{self, BOM, Summary, TestEdit, reference};

fn run_engine(original: &[u8], edits: &[TestEdit]) -> Result<engine::Outcome, Failure> {
    engine::apply(original, &reference::engine_edits(edits))
}

/// `engine::apply` (no size cap) in the reference's terms.
fn summarize(result: Result<engine::Outcome, Failure>) -> Summary {
    reference::summarize(&result.map_err(CappedFailure::Edit))
}

fn text(alphabet: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(alphabet), 0..max).prop_map(|v| v.concat())
}

const FILE_ALPHABET: &[&str] = &["a", "b", "é", "\n", "\r\n", "\r", "ab"];
const EDIT_ALPHABET: &[&str] = &["a", "b", "é", "\n", "\r\n", "\r"];
const LF_ALPHABET: &[&str] = &["a", "b", "é", "\n"];

fn edits(alphabet: &'static [&'static str]) -> impl Strategy<Value = Vec<TestEdit>> {
    proptest::collection::vec(
        (
            text(alphabet, 4),
            text(alphabet, 4),
            any::<bool>(),
            any::<u8>(),
        )
            .prop_map(|(old, new, all, noop)| TestEdit {
                // Keep empty and no-op edits present but rare.
                new: if noop < 16 { old.clone() } else { new },
                old,
                all,
            }),
        0..5,
    )
}

fn file() -> impl Strategy<Value = String> {
    (text(FILE_ALPHABET, 40), any::<bool>())
        .prop_map(|(body, bom)| if bom { format!("{BOM}{body}") } else { body })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn engine_equals_reference(original in file(), edits in edits(EDIT_ALPHABET)) {
        let expected = reference(&original, &edits, usize::MAX);
        let actual = summarize(run_engine(original.as_bytes(), &edits));
        prop_assert_eq!(actual, expected);
    }

    /// With a size cap (`engine::apply_capped`): refused at the first edit
    /// whose result would exceed it, with that size, and otherwise the same.
    #[test]
    fn capped_engine_equals_reference(
        original in file(),
        edits in edits(EDIT_ALPHABET),
        cap in 0usize..48,
    ) {
        let expected = reference(&original, &edits, cap);
        let actual = reference::summarize(&reference::run(original.as_bytes(), &edits, cap));
        prop_assert_eq!(actual, expected);
    }

    /// Edits built from substrings of the file succeed far more often than
    /// random ones, which exercises the replacement paths.
    #[test]
    fn engine_equals_reference_on_edits_taken_from_the_file(
        original in file(),
        picks in proptest::collection::vec((any::<usize>(), 1usize..6, text(EDIT_ALPHABET, 4), any::<bool>(), any::<bool>()), 1..5),
    ) {
        let chars: Vec<char> = original.chars().collect();
        let edits: Vec<TestEdit> = picks
            .into_iter()
            .map(|(at, len, new, all, lf)| {
                let start = if chars.is_empty() { 0 } else { at % chars.len() };
                let end = (start + len).min(chars.len());
                let old: String = chars[start..end].iter().collect();
                // Half the time, write the picked text the way a model would.
                let old = if lf { old.replace("\r\n", "\n") } else { old };
                TestEdit { old, new, all }
            })
            .collect();
        let expected = reference(&original, &edits, usize::MAX);
        let actual = summarize(run_engine(original.as_bytes(), &edits));
        prop_assert_eq!(actual, expected);
    }

    /// The diagnosis of a failed call (`engine::apply_diagnosed`) is what
    /// applying the call without its failed edits gives: its first failure
    /// is `apply_capped`'s, every edit it says would apply does apply (at
    /// the line it names) once the failed edits are left out, and every
    /// later edit it says fails fails the same way after the edits before
    /// it, the failed ones left out.
    #[test]
    fn a_diagnosis_is_the_call_without_its_failed_edits(
        original in file(),
        edits in edits(EDIT_ALPHABET),
        cap in 0usize..80,
    ) {
        let all = reference::engine_edits(&edits);
        let capped = engine::apply_capped(original.as_bytes(), &all, cap as u64);
        let d = match engine::apply_diagnosed(original.as_bytes(), &all, cap as u64) {
            Ok(outcome) => {
                prop_assert_eq!(Ok(outcome), capped);
                return Ok(());
            }
            Err(d) => d,
        };
        prop_assert_eq!(Err(d.failure.clone()), capped);
        let first = match &d.failure {
            CappedFailure::Edit(f) => f.edit_index(),
            CappedFailure::TooLarge { edit_index, .. } => Some(*edit_index),
        };
        let Some(first) = first else {
            prop_assert!(d.later.is_empty());
            return Ok(());
        };
        if matches!(d.failure, CappedFailure::TooLarge { .. }) {
            prop_assert!(d.later.is_empty());
            return Ok(());
        }
        prop_assert_eq!(d.later.len(), edits.len() - first - 1);
        let mut kept: Vec<Edit<'_>> = all[..first].to_vec();
        for (k, verdict) in d.later.iter().enumerate() {
            let j = first + 1 + k;
            let mut tried = kept.clone();
            tried.push(all[j]);
            let alone = engine::apply_capped(original.as_bytes(), &tried, cap as u64);
            match verdict {
                engine::Verdict::WouldApply { first_line } => {
                    let outcome = alone.map_err(|e| TestCaseError::fail(format!("edit {j}: {e}")))?;
                    prop_assert_eq!(outcome.per_edit.last().map(|r| r.first_line), Some(*first_line));
                    kept.push(all[j]);
                }
                engine::Verdict::Fails(f) => {
                    let failed = alone.expect_err("a failing edit fails alone");
                    // The same failure, numbered as the edit it is in the call.
                    let renumbered = match failed {
                        CappedFailure::Edit(Failure::NotFound { snippet, snippet_start_line, lookalike, candidates, .. }) =>
                            CappedFailure::Edit(Failure::NotFound { edit_index: j, snippet, snippet_start_line, lookalike, candidates }),
                        CappedFailure::Edit(Failure::Ambiguous { count, locations, lines, .. }) =>
                            CappedFailure::Edit(Failure::Ambiguous { edit_index: j, count, locations, lines }),
                        CappedFailure::Edit(Failure::EmptyOldString { .. }) =>
                            CappedFailure::Edit(Failure::EmptyOldString { edit_index: j }),
                        CappedFailure::TooLarge { size, .. } => CappedFailure::TooLarge { edit_index: j, size },
                        other => other,
                    };
                    prop_assert_eq!(f, &renumbered);
                }
                engine::Verdict::NotFoundUnplaced => prop_assert!(false, "small texts are always placed"),
            }
        }
        // With every failed edit left out, the call applies.
        prop_assert!(engine::apply_capped(original.as_bytes(), &kept, cap as u64).is_ok());
    }

    /// A failing call yields no outcome, and failures carry what the error
    /// envelope needs.
    #[test]
    fn failures_are_complete_and_apply_nothing(original in file(), edits in edits(EDIT_ALPHABET)) {
        match run_engine(original.as_bytes(), &edits) {
            Ok(outcome) => {
                prop_assert_eq!(outcome.per_edit.len(), edits.len());
                prop_assert_eq!(outcome.bom, original.starts_with(BOM));
                prop_assert_eq!(outcome.changed, outcome.content != original.as_bytes());
                if original.starts_with(BOM) {
                    prop_assert!(outcome.content.starts_with(BOM.as_bytes()));
                }
            }
            Err(Failure::Ambiguous { edit_index, count, locations, lines }) => {
                prop_assert!(edit_index < edits.len());
                prop_assert!(count >= 2);
                prop_assert_eq!(locations.len(), count.min(MAX_MATCH_LOCATIONS));
                prop_assert_eq!(lines.len(), count.min(engine::MAX_MATCH_LINES));
                prop_assert!(lines.windows(2).all(|w| w[0] <= w[1]));
                for (l, line) in locations.iter().zip(&lines) {
                    prop_assert_eq!(l.line, *line);
                }
                for l in &locations {
                    prop_assert!(l.line >= 1 && l.column >= 1);
                    prop_assert!(l.snippet.lines().count() <= 7);
                }
                prop_assert!(locations.windows(2).all(|w| (w[0].line, w[0].column) < (w[1].line, w[1].column)));
            }
            Err(Failure::NotFound { edit_index, snippet, snippet_start_line, lookalike, candidates }) => {
                prop_assert!(edit_index < edits.len());
                let old_lines = edits[edit_index].old.lines().count();
                prop_assert!(snippet.lines().count() <= engine::NOT_FOUND_LINES.max(old_lines + 2 * engine::AIM_MARGIN));
                prop_assert!(candidates.len() <= 2);
                for c in &candidates {
                    prop_assert!(c.start_line >= 1 && !c.why.is_empty());
                }
                prop_assert!(snippet_start_line >= 1);
                // A look-alike report names text the file really has, at
                // the line it gives, and never the old_string itself.
                if let Some(l) = lookalike {
                    let exact: String = serde_json::from_str(&l.file_text).expect("file_text is a JSON string");
                    let lines: Vec<usize> = original
                        .match_indices(exact.as_str())
                        .map(|(at, _)| original[..at].matches('\n').count() + 1)
                        .collect();
                    prop_assert!(lines.contains(&l.line), "file_text {:?} is not at line {}", exact, l.line);
                    prop_assert_ne!(exact.as_str(), edits[edit_index].old.as_str());
                    prop_assert!(l.difference_count >= 1 && !l.differences.is_empty());
                }
            }
            Err(Failure::EmptyOldString { edit_index }) => {
                prop_assert!(edits[edit_index].old.is_empty());
            }
            Err(Failure::InvalidEncoding { .. }) => prop_assert!(false, "input was UTF-8"),
        }
    }

    /// LF text with LF edits, and the same text with CRLF endings with the
    /// same LF edits, give the same result up to line endings.
    #[test]
    fn crlf_round_trip(
        // At least one line break, so the file has a line-ending style.
        body in (text(LF_ALPHABET, 20), text(LF_ALPHABET, 20)).prop_map(|(a, b)| format!("{a}\n{b}")),
        edits in edits(LF_ALPHABET),
    ) {
        let crlf = body.replace('\n', "\r\n");
        let from_lf = summarize(run_engine(body.as_bytes(), &edits));
        let from_crlf = summarize(run_engine(crlf.as_bytes(), &edits));
        let expected = match from_lf {
            Summary::Applied { content, replacements } => Summary::Applied {
                content: content.replace('\n', "\r\n"),
                replacements,
            },
            failure => failure,
        };
        prop_assert_eq!(from_crlf, expected);
    }

    /// Invalid UTF-8 anywhere is refused with the offset std reports.
    #[test]
    fn invalid_utf8_is_refused_at_its_offset(
        prefix in text(FILE_ALPHABET, 20),
        bad in proptest::sample::select(vec![&b"\xFF"[..], b"\xC3", b"\xE2\x82", b"\xED\xA0\x80", b"\xC0\x80"]),
        suffix in text(FILE_ALPHABET, 20),
    ) {
        let mut bytes = prefix.clone().into_bytes();
        bytes.extend_from_slice(bad);
        bytes.extend_from_slice(suffix.as_bytes());
        let edit = [Edit { old_string: "a", new_string: "b", replace_all: true }];
        prop_assert_eq!(
            engine::apply(&bytes, &edit),
            Err(Failure::InvalidEncoding { byte_offset: prefix.len() })
        );
    }
}
