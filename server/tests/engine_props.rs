//! Property tests: the engine against a plain reference implementation.
//!
//! The reference below restates the engine's rules (see the `engine` module
//! docs) with `String::find`, `str::replace` and loops, the obvious and slow
//! way. Random small texts over a tiny alphabet that includes `\r` and `\n`
//! make collisions, overlaps, CRLF pairs and lone carriage returns common.

use proptest::prelude::*;
use splice_server::engine::{self, Edit, Failure, LineEnding, MAX_MATCH_LOCATIONS};

const BOM: &str = "\u{FEFF}";

/// What a call did, in the terms both implementations can produce.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Result_ {
    Applied {
        content: String,
        /// Per edit: (replacements, 1-based line of the first occurrence).
        replacements: Vec<(usize, usize)>,
    },
    Empty(usize),
    NotFound(usize),
    Ambiguous(usize, usize),
}

#[derive(Debug, Clone)]
struct TestEdit {
    old: String,
    new: String,
    all: bool,
}

fn style(s: &str) -> LineEnding {
    let (mut crlf, mut lf) = (0, 0);
    let mut prev = None;
    for c in s.chars() {
        if c == '\n' {
            if prev == Some('\r') {
                crlf += 1;
            } else {
                lf += 1;
            }
        }
        prev = Some(c);
    }
    match (crlf > 0, lf > 0) {
        (false, false) => LineEnding::None,
        (false, true) => LineEnding::Lf,
        (true, false) => LineEnding::Crlf,
        (true, true) => LineEnding::Mixed,
    }
}

fn has_bare_lf(s: &str) -> bool {
    s.replace("\r\n", "").contains('\n')
}

fn to_crlf(s: &str) -> String {
    let mut out = String::new();
    let mut prev = None;
    for c in s.chars() {
        if c == '\n' && prev != Some('\r') {
            out.push('\r');
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

/// Start positions of `needle` in `hay`, overlapping ones included.
fn positions(hay: &str, needle: &str) -> Vec<usize> {
    hay.char_indices()
        .map(|(i, _)| i)
        .filter(|&i| hay[i..].starts_with(needle))
        .collect()
}

fn reference(original: &str, edits: &[TestEdit]) -> Result_ {
    let (bom, mut text) = match original.strip_prefix(BOM) {
        Some(rest) => (BOM, rest.to_owned()),
        None => ("", original.to_owned()),
    };
    let original_style = style(&text);
    let mut replacements = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        if e.old.is_empty() {
            return Result_::Empty(i);
        }
        let current = style(&text);
        let style = if current == LineEnding::None {
            original_style
        } else {
            current
        };
        // Every start of the plain form (never between the \r and \n of a
        // pair) and of the CRLF form, sorted: (start, length, is_crlf_form).
        let mut hits: Vec<(usize, usize, bool)> = positions(&text, &e.old)
            .into_iter()
            .filter(|&p| !(e.old.starts_with('\n') && p > 0 && text.as_bytes()[p - 1] == b'\r'))
            .map(|p| (p, e.old.len(), false))
            .collect();
        if has_bare_lf(&e.old) && text.contains("\r\n") {
            let crlf_old = to_crlf(&e.old);
            hits.extend(
                positions(&text, &crlf_old)
                    .into_iter()
                    .map(|p| (p, crlf_old.len(), true)),
            );
        }
        hits.sort();
        let Some(&(first, ..)) = hits.first() else {
            return Result_::NotFound(i);
        };
        let first_line = text[..first].matches('\n').count() + 1;
        if e.old == e.new {
            replacements.push((0, first_line));
            continue;
        }
        let plain_new = if !e.old.contains('\n') && style == LineEnding::Crlf {
            to_crlf(&e.new)
        } else {
            e.new.clone()
        };
        let crlf_new = to_crlf(&e.new);
        if !e.all && hits.len() > 1 {
            return Result_::Ambiguous(i, hits.len());
        }
        // Left to right, skipping occurrences that overlap a replaced one.
        let mut out = String::new();
        let (mut at, mut count) = (0, 0);
        for (start, len, crlf) in hits {
            if start < at {
                continue;
            }
            out.push_str(&text[at..start]);
            out.push_str(if crlf { &crlf_new } else { &plain_new });
            at = start + len;
            count += 1;
        }
        out.push_str(&text[at..]);
        text = out;
        replacements.push((count, first_line));
    }
    Result_::Applied {
        content: format!("{bom}{text}"),
        replacements,
    }
}

fn run_engine(original: &[u8], edits: &[TestEdit]) -> Result<engine::Outcome, Failure> {
    let edits: Vec<Edit<'_>> = edits
        .iter()
        .map(|e| Edit {
            old_string: &e.old,
            new_string: &e.new,
            replace_all: e.all,
        })
        .collect();
    engine::apply(original, &edits)
}

fn summarize(result: Result<engine::Outcome, Failure>) -> Result_ {
    match result {
        Ok(outcome) => Result_::Applied {
            content: String::from_utf8(outcome.content).expect("engine output is UTF-8"),
            replacements: outcome
                .per_edit
                .iter()
                .map(|r| (r.replacements, r.first_line))
                .collect(),
        },
        Err(Failure::EmptyOldString { edit_index }) => Result_::Empty(edit_index),
        Err(Failure::NotFound { edit_index, .. }) => Result_::NotFound(edit_index),
        Err(Failure::Ambiguous {
            edit_index, count, ..
        }) => Result_::Ambiguous(edit_index, count),
        Err(other) => panic!("unexpected failure on UTF-8 input: {other:?}"),
    }
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
        let expected = reference(&original, &edits);
        let actual = summarize(run_engine(original.as_bytes(), &edits));
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
        let expected = reference(&original, &edits);
        let actual = summarize(run_engine(original.as_bytes(), &edits));
        prop_assert_eq!(actual, expected);
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
            Err(Failure::Ambiguous { edit_index, count, locations }) => {
                prop_assert!(edit_index < edits.len());
                prop_assert!(count >= 2);
                prop_assert_eq!(locations.len(), count.min(MAX_MATCH_LOCATIONS));
                for l in &locations {
                    prop_assert!(l.line >= 1 && l.column >= 1);
                    prop_assert!(l.snippet.lines().count() <= 7);
                }
                prop_assert!(locations.windows(2).all(|w| (w[0].line, w[0].column) < (w[1].line, w[1].column)));
            }
            Err(Failure::NotFound { edit_index, snippet }) => {
                prop_assert!(edit_index < edits.len());
                prop_assert!(snippet.lines().count() <= engine::NOT_FOUND_LINES);
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
            Result_::Applied { content, replacements } => Result_::Applied {
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
