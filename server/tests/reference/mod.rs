//! The edit engine's rules restated the obvious and slow way (`str`
//! searches, `String` building, loops), for `engine_props.rs` (proptest)
//! and the `engine` fuzz target (`#[path]`-included from
//! `fuzz/fuzz_targets/engine.rs`), so both check the engine against the same
//! reference. See the `engine` module docs for the rules.

use splice_server::engine::{self, CappedFailure, Edit, Failure, LineEnding};

pub const BOM: &str = "\u{FEFF}";

/// What a call did, in the terms both implementations can produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Summary {
    Applied {
        content: String,
        /// Per edit: (replacements, 1-based line of the first occurrence).
        replacements: Vec<(usize, usize)>,
    },
    Empty(usize),
    NotFound(usize),
    Ambiguous(usize, usize),
    /// Edit index, the size it would have made.
    TooLarge(usize, u64),
    InvalidEncoding,
}

/// One edit, owned (the strategies and the fuzzer build these).
#[derive(Debug, Clone)]
pub struct TestEdit {
    pub old: String,
    pub new: String,
    pub all: bool,
}

/// The engine's answer in the reference's terms.
/// The engine on the same edits (`engine::apply_capped`).
pub fn run(
    original: &[u8],
    edits: &[TestEdit],
    cap: usize,
) -> Result<engine::Outcome, CappedFailure> {
    engine::apply_capped(original, &engine_edits(edits), cap as u64)
}

/// The engine's borrowed form of `edits`.
pub fn engine_edits(edits: &[TestEdit]) -> Vec<Edit<'_>> {
    edits
        .iter()
        .map(|e| Edit {
            old_string: &e.old,
            new_string: &e.new,
            replace_all: e.all,
        })
        .collect()
}

pub fn summarize(result: &Result<engine::Outcome, CappedFailure>) -> Summary {
    let result = match result {
        Ok(outcome) => Ok(outcome),
        Err(CappedFailure::Edit(f)) => Err(f),
        Err(CappedFailure::TooLarge { edit_index, size }) => {
            return Summary::TooLarge(*edit_index, *size);
        }
    };
    match result {
        Ok(outcome) => Summary::Applied {
            content: String::from_utf8(outcome.content.clone()).expect("engine output is UTF-8"),
            replacements: outcome
                .per_edit
                .iter()
                .map(|r| (r.replacements, r.first_line))
                .collect(),
        },
        Err(Failure::EmptyOldString { edit_index }) => Summary::Empty(*edit_index),
        Err(Failure::NotFound { edit_index, .. }) => Summary::NotFound(*edit_index),
        Err(Failure::Ambiguous {
            edit_index, count, ..
        }) => Summary::Ambiguous(*edit_index, *count),
        Err(Failure::InvalidEncoding { .. }) => Summary::InvalidEncoding,
    }
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

/// What the engine must answer for `edits` on `original`, with results
/// capped at `cap` bytes (BOM included).
pub fn reference(original: &str, edits: &[TestEdit], cap: usize) -> Summary {
    let (bom, mut text) = match original.strip_prefix(BOM) {
        Some(rest) => (BOM, rest.to_owned()),
        None => ("", original.to_owned()),
    };
    let original_style = style(&text);
    let mut replacements = Vec::new();
    for (i, e) in edits.iter().enumerate() {
        if e.old.is_empty() {
            return Summary::Empty(i);
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
            return Summary::NotFound(i);
        };
        let first_line = text[..first].matches('\n').count() + 1;
        if e.old == e.new {
            let size = bom.len() + text.len();
            if size > cap {
                return Summary::TooLarge(i, size as u64);
            }
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
            return Summary::Ambiguous(i, hits.len());
        }
        // Left to right, skipping occurrences that overlap a replaced one.
        let mut used = Vec::new();
        let mut at = 0;
        for (start, len, crlf) in hits {
            if start >= at {
                used.push((start, len, crlf));
                at = start + len;
            }
        }
        // The size is checked before the text is built.
        let size = used
            .iter()
            .fold(bom.len() + text.len(), |size, &(_, len, crlf)| {
                size - len
                    + if crlf {
                        crlf_new.len()
                    } else {
                        plain_new.len()
                    }
            });
        if size > cap {
            return Summary::TooLarge(i, size as u64);
        }
        let mut out = String::new();
        let (mut at, mut count) = (0, 0);
        for (start, len, crlf) in used {
            out.push_str(&text[at..start]);
            out.push_str(if crlf { &crlf_new } else { &plain_new });
            at = start + len;
            count += 1;
        }
        out.push_str(&text[at..]);
        text = out;
        replacements.push((count, first_line));
    }
    Summary::Applied {
        content: format!("{bom}{text}"),
        replacements,
    }
}
