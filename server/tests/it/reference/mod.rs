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

/// The occurrence of `old` at byte `p` of `text`, each bare LF of `old`
/// matched by a `\n` or a `\r\n`: its length and, per bare LF, whether it
/// was a `\r\n`.
fn flexible_at(text: &str, p: usize, old: &str) -> Option<(usize, Vec<bool>)> {
    let mut segments = vec![String::new()];
    let mut prev = None;
    for c in old.chars() {
        if c == '\n' && prev != Some('\r') {
            segments.push(String::new());
        } else {
            segments.last_mut().unwrap().push(c);
        }
        prev = Some(c);
    }
    let mut rest = &text[p..];
    let mut breaks = Vec::new();
    for (k, segment) in segments.iter().enumerate() {
        if k > 0 {
            if let Some(r) = rest.strip_prefix("\r\n") {
                breaks.push(true);
                rest = r;
            } else if let Some(r) = rest.strip_prefix('\n') {
                breaks.push(false);
                rest = r;
            } else {
                return None;
            }
        }
        rest = rest.strip_prefix(segment.as_str())?;
    }
    Some((text.len() - p - rest.len(), breaks))
}

/// `new` with its bare LFs written as `breaks` says (see the engine docs:
/// line by line when the counts agree, else the majority, the first on a tie).
fn follow(new: &str, breaks: &[bool]) -> String {
    let bare = new.replace("\r\n", "").matches('\n').count();
    let crlfs = breaks.iter().filter(|&&b| b).count();
    let majority = if crlfs * 2 == breaks.len() {
        breaks[0]
    } else {
        crlfs * 2 > breaks.len()
    };
    let mut out = String::new();
    let (mut k, mut prev) = (0, None);
    for c in new.chars() {
        if c == '\n' && prev != Some('\r') {
            let crlf = if bare == breaks.len() {
                breaks[k]
            } else {
                majority
            };
            out.push_str(if crlf { "\r\n" } else { "\n" });
            k += 1;
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    out
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
        // Every start where each bare LF of old_string matches a \n or a
        // \r\n (never beginning between the \r and \n of a pair), sorted:
        // (start, length, the line breaks matched: true for \r\n).
        let hits: Vec<(usize, usize, Vec<bool>)> = text
            .char_indices()
            .map(|(p, _)| p)
            .filter(|&p| {
                let t = text.as_bytes();
                !(e.old.starts_with('\n') && p > 0 && t[p - 1] == b'\r' && t[p] == b'\n')
            })
            .filter_map(|p| flexible_at(&text, p, &e.old).map(|(len, b)| (p, len, b)))
            .collect();
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
        let replacement = |breaks: &[bool]| -> String {
            if breaks.iter().all(|b| !b) {
                plain_new.clone()
            } else if breaks.iter().all(|&b| b) {
                crlf_new.clone()
            } else {
                follow(&e.new, breaks)
            }
        };
        let mut used = Vec::new();
        let mut at = 0;
        for (start, len, breaks) in hits {
            if start >= at {
                used.push((start, len, replacement(&breaks)));
                at = start + len;
            }
        }
        // The size is checked before the text is built.
        let size = used
            .iter()
            .fold(bom.len() + text.len(), |size, (_, len, new)| {
                size - len + new.len()
            });
        if size > cap {
            return Summary::TooLarge(i, size as u64);
        }
        let mut out = String::new();
        let (mut at, mut count) = (0, 0);
        for (start, len, new) in used {
            out.push_str(&text[at..start]);
            out.push_str(&new);
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
