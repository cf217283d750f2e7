//! Fuzzes the edit engine (`splice_server::engine::apply_capped`, the entry
//! for untrusted edits) against a plain reference implementation, and the
//! failure → error envelope mapping.
//!
//! Input layout (so seeds are readable and easy to write by hand): the first
//! byte is a bit set (bit `i % 8` sets `replace_all` on edit `i`); the rest
//! is split on `0xFF` (a byte that never occurs in UTF-8) into the file
//! bytes, then `old_string`, `new_string` pairs (lossily decoded; a missing
//! `new_string` is empty). The file may hold any other byte, so invalid
//! UTF-8 is exercised too.
//!
//! Checked on every input:
//! - no panic, and the same call gives the same result twice;
//! - the result equals the reference (a restatement of the engine's rules
//!   with `str::find`-style loops, shared with `server/tests/it/engine_props.rs`):
//!   the content, the replacements and first line of every edit, or the
//!   failing edit's index and kind (the match count when ambiguous, the
//!   size when over the cap);
//! - the structural invariants of an outcome and of each failure;
//! - the failure maps to an error envelope that serializes and reads back
//!   unchanged.

use splice_server::args::{EditArg, FileArgs};
use splice_server::engine::{
    self, AIM_MARGIN, CappedFailure, Failure, MAX_AIM_SNIPPET_BYTES, MAX_MATCH_LINES,
    MAX_MATCH_LOCATIONS, MAX_SNIPPET_BYTES, NOT_FOUND_LINES,
};
use splice_server::envelopes::{self, FileCtx};
use splice_server::taxonomy::ErrorEnvelope;
use splice_server::taxonomy::operation::MultiEditFiles;

use crate::reference::{self, BOM, TestEdit, reference, summarize};

/// More edits add little coverage and slow every run down.
const MAX_EDITS: usize = 16;
/// The size cap: small, so that growing edits reach it often and the
/// reference stays fast.
const CAP: usize = 1 << 16;

/// Runs one input; panics on any broken rule.
pub fn run(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut parts = rest.split(|&b| b == 0xFF);
    let file = parts.next().unwrap_or_default();
    let strings: Vec<String> = parts
        .take(2 * MAX_EDITS)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let edits: Vec<TestEdit> = strings
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| TestEdit {
            old: pair[0].clone(),
            new: pair.get(1).cloned().unwrap_or_default(),
            all: flags & (1 << (i % 8)) != 0,
        })
        .collect();
    let result = reference::run(file, &edits, CAP);
    assert_eq!(
        result,
        reference::run(file, &edits, CAP),
        "not deterministic"
    );
    check_invariants(file, &edits, &result);

    match std::str::from_utf8(file) {
        Ok(original) => assert_eq!(summarize(&result), reference(original, &edits, CAP)),
        Err(e) => assert_eq!(
            result,
            Err(CappedFailure::Edit(Failure::InvalidEncoding {
                byte_offset: e.valid_up_to()
            }))
        ),
    }

    if let Err(failure) = result {
        // The diagnosis of the whole call starts with the same failure.
        let diagnosed = engine::apply_diagnosed(file, &reference::engine_edits(&edits), CAP as u64)
            .expect_err("a failing call fails diagnosed");
        assert_eq!(diagnosed.failure, failure);
        check_envelope(&edits, diagnosed);
    }
}

fn check_invariants(
    file: &[u8],
    edits: &[TestEdit],
    result: &Result<engine::Outcome, CappedFailure>,
) {
    let result = match result {
        Ok(outcome) => Ok(outcome),
        Err(CappedFailure::Edit(f)) => Err(f),
        Err(CappedFailure::TooLarge { edit_index, size }) => {
            assert!(*edit_index < edits.len());
            assert!(*size > CAP as u64);
            return;
        }
    };
    match result {
        Ok(outcome) => {
            assert!(outcome.content.len() <= CAP || edits.is_empty());
            assert_eq!(outcome.per_edit.len(), edits.len());
            let content = std::str::from_utf8(&outcome.content).expect("output is UTF-8");
            assert_eq!(outcome.bom, file.starts_with(BOM.as_bytes()));
            if outcome.bom {
                assert!(content.starts_with(BOM));
            }
            assert_eq!(outcome.changed, outcome.content != file);
            assert_eq!(
                outcome.eol_translated,
                outcome.per_edit.iter().any(|r| r.eol_translated)
            );
            for (e, r) in edits.iter().zip(&outcome.per_edit) {
                assert!(r.first_line >= 1);
                match (e.old == e.new, e.all) {
                    (true, _) => assert_eq!(r.replacements, 0),
                    (false, false) => assert_eq!(r.replacements, 1),
                    (false, true) => assert!(r.replacements >= 1),
                }
            }
        }
        Err(Failure::InvalidEncoding { byte_offset }) => {
            assert!(*byte_offset < file.len());
            assert!(std::str::from_utf8(file).is_err());
        }
        Err(Failure::EmptyOldString { edit_index }) => {
            assert!(edits[*edit_index].old.is_empty());
        }
        Err(Failure::NotFound {
            edit_index,
            snippet,
            snippet_start_line,
            lookalike,
            candidates,
        }) => {
            assert!(candidates.len() <= 2);
            if let Some(l) = lookalike {
                assert!(l.line >= 1 && l.column >= 1);
                assert!(l.difference_count >= 1);
                assert!(l.differences.len() <= l.difference_count);
            }
            assert!(*snippet_start_line >= 1);
            assert!(*edit_index < edits.len());
            assert!(!edits[*edit_index].old.is_empty());
            let old = &edits[*edit_index].old;
            assert!(
                snippet.lines().count()
                    <= NOT_FOUND_LINES.max(old.lines().count() + 2 * AIM_MARGIN)
            );
            assert!(
                snippet.len()
                    <= MAX_SNIPPET_BYTES.max(MAX_AIM_SNIPPET_BYTES.min(old.len() * 2 + 2048)),
                "{}",
                snippet.len()
            );
        }
        Err(Failure::Ambiguous {
            edit_index,
            count,
            locations,
            lines,
        }) => {
            assert_eq!(lines.len(), (*count).min(MAX_MATCH_LINES));
            assert!(*edit_index < edits.len());
            assert!(!edits[*edit_index].all);
            assert!(*count >= 2);
            assert_eq!(locations.len(), (*count).min(MAX_MATCH_LOCATIONS));
            for l in locations {
                assert!(l.line >= 1 && l.column >= 1);
                assert!(l.snippet.lines().count() <= 7);
                assert!(l.snippet.len() <= MAX_SNIPPET_BYTES);
            }
            assert!(
                locations
                    .windows(2)
                    .all(|w| (w[0].line, w[0].column) < (w[1].line, w[1].column))
            );
        }
    }
}

/// The envelope the server would send for `failure` serializes, and reads
/// back as the same envelope.
fn check_envelope(edits: &[TestEdit], failure: engine::Diagnosed) {
    let file = FileArgs {
        file_path: "/fuzz/file.txt".into(),
        edits: edits
            .iter()
            .map(|e| EditArg {
                old_string: e.old.clone(),
                new_string: e.new.clone(),
                replace_all: e.all,
            })
            .collect(),
        expected_sha256: None,
        op: Default::default(),
        create_parents: false,
    };
    for ctx in [
        FileCtx::single(&file.file_path),
        FileCtx::multi(1, &file.file_path, 2),
    ] {
        let envelope = envelopes::capped_failure::<MultiEditFiles>(
            &ctx,
            &file,
            CAP as u64,
            failure.clone(),
            4 << 20,
        )
        .into_envelope();
        let json = serde_json::to_string(&envelope).expect("the envelope serializes");
        let back: ErrorEnvelope = serde_json::from_str(&json).expect("the envelope reads back");
        assert_eq!(back, envelope);
    }
}

// ---------------------------------------------------------------------------
