//! Scoring: where an `old_string` that is not in the file most plausibly
//! aimed.
//!
//! Where to look is decided by scoring every *alignment* `s` (the 0-based
//! file line where the first line of `old_string` would sit) with three kinds
//! of evidence, all measured in the same unit, the surprise (in nats) of
//! seeing a piece of `old_string` on a given line of *this* file:
//!
//! 1. **Rare tokens.** A token is a run of at least [`MIN_TOKEN_BYTES`](super::MIN_TOKEN_BYTES)
//!    letters, digits, `_` or non-ASCII bytes (identifiers, numbers, words),
//!    or a two-digit number.
//!    For each distinct token of `old_string` (the [`MAX_TOKENS`](super::MAX_TOKENS) longest)
//!    the file lines holding it as a whole word are counted in one pass
//!    (in a large file, only the tokens that are not common: see below); a
//!    token on `c` of the file's `n` lines weighs `ln((n + 1) / c)`, so a
//!    number or a long identifier that occurs once outweighs `const` or
//!    `return`, and a token the file does not have (the stale identifier
//!    itself) weighs nothing. A token on exactly one line of the file (a
//!    unique name or number) weighs twice that: it pins the place, where
//!    the tokens and lines a block shares with its many look-alikes only
//!    add up to a crowd of equal scores. A token on line `i` of `old_string` found on
//!    file line `L` votes its weight for the alignment `L - i`, once per
//!    line pair. This is what finds a block whose every line differs from
//!    the model's memory by one renamed identifier.
//! 2. **Whole lines** (the evidence of earlier versions, kept): every line of
//!    `old_string` with at least [`MIN_ANCHOR_CHARS`] non-blank characters is
//!    compared with every file line, whitespace-insensitively (a changed
//!    indent or a CRLF is the most common reason an edit misses); the first
//!    line of a multi-line `old_string` may match the end of a file line and
//!    the last line its start, since edits often begin or end mid-line. A
//!    match votes for `L - i` with `1 + ln((n + 1) / c)`, `c` being the number
//!    of file lines it matches, so an exact line adds to its tokens' weight.
//! 3. **Line order.** Votes land on alignments, so evidence only adds up
//!    when it appears in the file in the same order and spacing as in
//!    `old_string`; an alignment's score also takes half the votes of the
//!    alignments one line away and a quarter of those two lines away
//!    ([`ORDER_SLACK`]), so a block into which a line was inserted, or from
//!    which one was deleted, since the model read it still adds up.
//!
//! The best-scoring alignment wins, the earliest on ties (all sums are
//! computed in file order, so the answer is deterministic). When nothing
//! votes, the predecessor's rule is the fallback: the first, then the last
//! 20, 10 and 5 characters of `old_string` (leading and trailing whitespace
//! ignored) searched verbatim; otherwise the start of the file.
//!
//! **Cost.** The line scan compares each line whose first and last
//! non-blank bytes can match with the few `old_string` lines that have the
//! same ends, without copying it; the tokens come from one pass of `scan`.
//! Votes go to a dense array of one counter per alignment.

use memchr::memmem;

use super::scan::{LineIndex, TokenHits, old_tokens, token_hits};
use super::{MAX_VOTES_PER_LINE, MIN_ANCHOR_CHARS, ORDER_SLACK, char_count, split_lines};

/// Lines of `old_string` that provide evidence; a longer `old_string` is
/// placed by its first lines, which bounds the vote array.
const MAX_OLD_LINES: usize = 1000;

/// Prefix and suffix lengths tried, in characters, when no line anchors.
const PREFIX_CHARS: [usize; 3] = [20, 10, 5];

/// Most whole-line keys a file line is compared with directly; beyond, it
/// is squeezed and looked up.
const COMPARE_KEYS: usize = 8;

/// Appends the non-whitespace bytes of `line` to `out` (cleared first).
pub(super) fn squeeze_into(line: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend(line.iter().copied().filter(|b| !b.is_ascii_whitespace()));
}

/// The surprise of seeing something that is on `count` of `lines` lines.
pub(super) fn rarity(lines: usize, count: usize) -> f64 {
    ((lines + 1) as f64 / count.max(1) as f64).ln()
}

/// Votes per alignment: index `s + offset` holds the votes for the
/// alignment `s`, which ranges over `-offset ..= lines - 1 + ORDER_SLACK`
/// (the slack keeps the smoothing inside the array).
pub(super) struct Votes {
    votes: Vec<f64>,
    offset: usize,
    cast: bool,
}

impl Votes {
    fn add(&mut self, file_line: usize, old_line: usize, weight: f64) {
        // `old_line < MAX_OLD_LINES` and `offset` covers it.
        self.votes[file_line + self.offset - old_line] += weight;
        self.cast = true;
    }
}

/// Where an `old_string` most plausibly starts in a text, and where else
/// it starts about as plausibly.
pub(super) struct Aim {
    /// The text's line index.
    pub(super) index: LineIndex,
    /// The 0-based line where `old` most plausibly starts (possibly
    /// negative or past the end when the evidence is near an edge), or
    /// `None` when nothing in the file votes for any place.
    pub(super) best: Option<isize>,
    /// The runner-ups: other alignments that score at least
    /// [`CLOSE_RATIO`] of the best, share at least one whole line with
    /// `old` or hold one of its tokens found nowhere else, and lie apart from it and from each other by the lines of
    /// `old`; the highest first, at most [`MAX_CANDIDATES`] with the best,
    /// each with why it was chosen.
    pub(super) close: Vec<(isize, String)>,
}

/// How close to the best score a runner-up must come to be shown.
pub(super) const CLOSE_RATIO: f64 = 0.6;
/// Most regions shown, the best included (so at most two runner-ups).
pub(super) const MAX_CANDIDATES: usize = 3;

/// Scores every alignment of `old` in `text` (see the module docs).
pub(super) fn aim(text: &[u8], old: &str) -> Aim {
    let mut old_lines = split_lines(old.as_bytes());
    old_lines.truncate(MAX_OLD_LINES);
    let found = old_tokens(&old_lines);
    let (index, hits) = token_hits(text, &found);
    let lines = index.count().max(1);
    let offset = old_lines.len() - 1 + ORDER_SLACK;
    let mut votes = Votes {
        votes: vec![0.0; lines + offset + ORDER_SLACK],
        offset,
        cast: false,
    };
    hits.vote(&found, lines, &mut votes);
    line_votes(text, &index, &old_lines, lines, &mut votes);
    if !votes.cast {
        return Aim {
            index,
            best: None,
            close: Vec::new(),
        };
    }
    let v = &votes.votes;
    // Alignments closer than this overlap on the lines of `old` (or on
    // the smoothing of the best one's score).
    let apart = old_lines.len().max(2 * ORDER_SLACK + 1);
    let mut best = (0usize, f64::MIN);
    // Alignments that may make runner-ups: the best only grows, so one
    // under CLOSE_RATIO of the best so far never will, and most stop at
    // that comparison.
    let mut close: Vec<(usize, f64)> = Vec::new();
    for at in 0..v.len() {
        let mut score = v[at];
        let mut weight = 1.0;
        for d in 1..=ORDER_SLACK {
            weight *= 0.5;
            if at >= d {
                score += weight * v[at - d];
            }
            if at + d < v.len() {
                score += weight * v[at + d];
            }
        }
        if score > best.1 {
            best = (at, score);
        }
        if score > 0.0 && score >= CLOSE_RATIO * best.1 {
            close.push((at, score));
        }
    }
    // The highest first (the earliest on ties), each apart from the best
    // and from those taken before it.
    close.retain(|&(_, score)| score >= CLOSE_RATIO * best.1);
    close.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut chosen = vec![best.0];
    let to_line = |at: usize| at as isize - offset as isize;
    // The lines holding a token found nowhere else (usually a handful).
    let unique: Vec<u32> = hits
        .hits
        .iter()
        .filter(|&&(id, _)| hits.counts[id as usize] == 1)
        .map(|&(_, line)| line)
        .collect();
    for (at, _) in close {
        if chosen.len() == MAX_CANDIDATES {
            break;
        }
        // A runner-up shares a whole line with `old`, or a token found
        // nowhere else in the file: common words alone are shared by every
        // block written alike.
        let line = to_line(at);
        if chosen.iter().all(|&c| c.abs_diff(at) >= apart)
            && (!matched_lines(text, &index, &old_lines, line).is_empty()
                || holds_unique(&unique, line, old_lines.len()))
        {
            chosen.push(at);
        }
    }
    let close = chosen[1..]
        .iter()
        .map(|&at| {
            let line = to_line(at);
            (line, why(text, &index, &old_lines, &found, &hits, line))
        })
        .collect();
    Aim {
        index,
        best: Some(to_line(best.0)),
        close,
    }
}

/// Why the alignment `at` was chosen, in words: the lines of `old` that
/// match there (whitespace ignored) and its rarest tokens found there.
fn why(
    text: &[u8],
    index: &LineIndex,
    old_lines: &[&[u8]],
    found: &[(&[u8], Vec<usize>)],
    hits: &TokenHits,
    at: isize,
) -> String {
    let k = old_lines.len();
    let matched = matched_lines(text, index, old_lines, at);
    let (from, to) = (at.max(0) as u32, (at + k as isize).max(0) as u32);
    let mut words: Vec<usize> = hits
        .hits
        .iter()
        .filter(|&&(_, line)| line >= from && line < to)
        .map(|&(id, _)| id as usize)
        .collect();
    words.sort_by_key(|&id| (hits.counts[id], id));
    words.dedup();
    words.truncate(3);
    let mut out = String::new();
    if !matched.is_empty() {
        let file: Vec<usize> = matched
            .iter()
            .map(|&i| (at + i as isize) as usize)
            .collect();
        out = format!(
            "{} of {k} lines of old_string match here (its {} at {}, whitespace ignored)",
            matched.len(),
            spans("line", &matched),
            spans("line", &file)
        );
    }
    if !words.is_empty() {
        let words: Vec<String> = words
            .iter()
            .map(|&id| String::from_utf8_lossy(found[id].0).into_owned())
            .collect();
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(&format!("its rarest words here: {}", words.join(", ")));
    }
    if out.is_empty() {
        out.push_str("its lines line up here");
    }
    out
}

/// Whether the `k` lines of alignment `at` include one of `unique`, the
/// lines that hold a token of `old` found on no other line of the file.
fn holds_unique(unique: &[u32], at: isize, k: usize) -> bool {
    let (from, to) = (at.max(0) as u32, (at + k as isize).max(0) as u32);
    unique.iter().any(|&line| line >= from && line < to)
}

/// The (0-based) lines of `old` that match the file at alignment `at`,
/// whitespace ignored (the first line may match the end of its file line,
/// the last one the start, as in the line votes); blank lines never do.
fn matched_lines(text: &[u8], index: &LineIndex, old_lines: &[&[u8]], at: isize) -> Vec<usize> {
    let k = old_lines.len();
    let mut key = Vec::new();
    let mut matched: Vec<usize> = Vec::new();
    for (i, old_line) in old_lines.iter().enumerate() {
        let l = at + i as isize;
        if l < 0 || l as usize >= index.count() {
            continue;
        }
        squeeze_into(old_line, &mut key);
        if key.is_empty() {
            continue;
        }
        let line = index.line(text, l as usize);
        let hit = if k > 1 && i == 0 {
            squeezed_ends_with(line, &key)
        } else if k > 1 && i == k - 1 {
            squeezed_starts_with(line, &key)
        } else {
            squeezed_eq(line, &key)
        };
        if hit {
            matched.push(i);
        }
    }
    matched
}

/// `lines 2-3, 7` for the 0-based `lines` (sorted), written 1-based.
fn spans(noun: &str, lines: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        while j + 1 < lines.len() && lines[j + 1] == lines[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            format!("{}", lines[i] + 1)
        } else {
            format!("{}-{}", lines[i] + 1, lines[j] + 1)
        });
        i = j + 1;
    }
    let plural = if lines.len() > 1 { "s" } else { "" };
    format!("{noun}{plural} {}", parts.join(", "))
}

impl TokenHits {
    /// Evidence 1 of the module docs: each hit votes the rarity of its
    /// token for every alignment that puts one of the token's lines of
    /// `old_string` on the hit's line.
    fn vote(&self, found: &[(&[u8], Vec<usize>)], lines: usize, votes: &mut Votes) {
        // A token on one line of the file pins the place: it counts twice.
        let weights: Vec<f64> = self
            .counts
            .iter()
            .map(|&c| rarity(lines, c) * if c == 1 { 2.0 } else { 1.0 })
            .collect();
        for &(id, line) in &self.hits {
            let id = id as usize;
            for &i in &found[id].1 {
                votes.add(line as usize, i, weights[id]);
            }
        }
    }
}

/// How a squeezed line of `old_string` may match a squeezed file line.
pub(super) enum Rule {
    /// The whole line, at these lines of `old_string`.
    Whole(Vec<usize>),
    /// The end of the file line (the first line of a multi-line `old_string`).
    First,
    /// The start of the file line (the last line of a multi-line `old_string`).
    Last(usize),
}

/// Whether `line` with its whitespace removed is `key`.
pub(super) fn squeezed_eq(line: &[u8], key: &[u8]) -> bool {
    let mut key = key.iter();
    for &b in line.iter().filter(|b| !b.is_ascii_whitespace()) {
        if key.next() != Some(&b) {
            return false;
        }
    }
    key.next().is_none()
}

/// Whether `line` with its whitespace removed starts with `key`.
pub(super) fn squeezed_starts_with(line: &[u8], key: &[u8]) -> bool {
    let mut line = line.iter().filter(|b| !b.is_ascii_whitespace());
    key.iter().all(|k| line.next() == Some(k))
}

/// Whether `line` with its whitespace removed ends with `key`.
pub(super) fn squeezed_ends_with(line: &[u8], key: &[u8]) -> bool {
    let mut line = line.iter().rev().filter(|b| !b.is_ascii_whitespace());
    key.iter().rev().all(|k| line.next() == Some(k))
}

/// Evidence 2 of the module docs: whole (and partial first and last) lines.
pub(super) fn line_votes(
    text: &[u8],
    index: &LineIndex,
    old_lines: &[&[u8]],
    lines: usize,
    votes: &mut Votes,
) {
    let multi = old_lines.len() > 1;
    let last = old_lines.len() - 1;
    let mut keys: Vec<(Vec<u8>, Rule)> = Vec::new();
    let mut whole: foldhash::HashMap<Vec<u8>, usize> = foldhash::HashMap::default();
    let mut buf = Vec::new();
    for (i, line) in old_lines.iter().enumerate() {
        squeeze_into(line, &mut buf);
        if char_count(&buf) < MIN_ANCHOR_CHARS {
            continue;
        }
        if multi && i == 0 {
            keys.push((buf.clone(), Rule::First));
        } else if multi && i == last {
            keys.push((buf.clone(), Rule::Last(i)));
        } else if let Some(&k) = whole.get(&buf) {
            if let Rule::Whole(on) = &mut keys[k].1
                && on.len() < MAX_VOTES_PER_LINE
            {
                on.push(i);
            }
        } else {
            whole.insert(buf.clone(), keys.len());
            keys.push((buf.clone(), Rule::Whole(vec![i])));
        }
    }
    if keys.is_empty() {
        return;
    }
    // The whole-line keys by their first and last byte: a file line is
    // compared, without copying it, with the few keys its ends allow, or
    // squeezed and looked up when a bucket holds many.
    let mut by_ends: foldhash::HashMap<(u8, u8), Vec<usize>> = foldhash::HashMap::default();
    let (mut firsts, mut lasts) = ([false; 256], [false; 256]);
    let mut partial: Vec<usize> = Vec::new();
    for (k, (key, rule)) in keys.iter().enumerate() {
        let (f, l) = (key[0], key[key.len() - 1]);
        match rule {
            Rule::Whole(_) => {
                (firsts[f as usize], lasts[l as usize]) = (true, true);
                by_ends.entry((f, l)).or_default().push(k);
            }
            _ => partial.push(k),
        }
    }
    let mut matches: Vec<(usize, usize)> = Vec::new();
    let mut counts = vec![0usize; keys.len()];
    for l in 0..index.count() {
        let line = index.line(text, l);
        let Some(f) = line.iter().position(|b| !b.is_ascii_whitespace()) else {
            continue;
        };
        let z = line
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .unwrap_or(f);
        let (first, last, line) = (line[f], line[z], &line[f..=z]);
        if firsts[first as usize]
            && lasts[last as usize]
            && let Some(bucket) = by_ends.get(&(first, last))
        {
            let k = if bucket.len() <= COMPARE_KEYS {
                bucket
                    .iter()
                    .copied()
                    .find(|&k| squeezed_eq(line, &keys[k].0))
            } else {
                squeeze_into(line, &mut buf);
                whole.get(&buf).copied()
            };
            if let Some(k) = k {
                counts[k] += 1;
                matches.push((l, k));
            }
        }
        for k in partial.iter().copied() {
            let key = &keys[k].0;
            let hit = match keys[k].1 {
                Rule::First => last == key[key.len() - 1] && squeezed_ends_with(line, key),
                _ => first == key[0] && squeezed_starts_with(line, key),
            };
            if hit {
                counts[k] += 1;
                matches.push((l, k));
            }
        }
    }
    for (l, k) in matches {
        let weight = 1.0 + rarity(lines, counts[k]);
        match &keys[k].1 {
            Rule::Whole(on) => on.iter().for_each(|&i| votes.add(l, i, weight)),
            Rule::First => votes.add(l, 0, weight),
            Rule::Last(i) => votes.add(l, *i, weight),
        }
    }
}

/// The fallback of the module docs: the byte offset of the first prefix or suffix
/// of `old` found in `text`.
pub(super) fn prefix_anchor(text: &[u8], old: &str) -> Option<usize> {
    let trimmed = old.trim();
    let chars: Vec<(usize, char)> = trimmed.char_indices().collect();
    for n in PREFIX_CHARS {
        if chars.len() < n {
            continue;
        }
        let prefix_end = chars.get(n).map_or(trimmed.len(), |&(i, _)| i);
        let suffix_start = chars[chars.len() - n].0;
        for needle in [&trimmed[..prefix_end], &trimmed[suffix_start..]] {
            if let Some(at) = memmem::find(text, needle.as_bytes()) {
                return Some(at);
            }
        }
    }
    None
}
