//! The file excerpts that make a failed edit recoverable.
//!
//! A model that sent an `old_string` which is not in the file needs to see the
//! text it was aiming at, raw (no line numbers, so it can be copied into the
//! retry), and nothing else: the locked decisions forbid "did you mean"
//! suggestions, so this module only chooses *where* to look, never proposes
//! replacement text.
//!
//! Where to look is decided by scoring every *alignment* `s` (the 0-based
//! file line where the first line of `old_string` would sit) with three kinds
//! of evidence, all measured in the same unit, the surprise (in nats) of
//! seeing a piece of `old_string` on a given line of *this* file:
//!
//! 1. **Rare tokens.** A token is a run of at least [`MIN_TOKEN_BYTES`]
//!    letters, digits, `_` or non-ASCII bytes (identifiers, numbers, words),
//!    or a two-digit number.
//!    For each distinct token of `old_string` (the [`MAX_TOKENS`] longest)
//!    the file lines holding it as a whole word are counted in one pass
//!    (in a large file, only the tokens that are not common: see below); a
//!    token on `c` of the file's `n` lines weighs `ln((n + 1) / c)`, so a
//!    number or a long identifier that occurs once outweighs `const` or
//!    `return`, and a token the file does not have (the stale identifier
//!    itself) weighs nothing. A token on line `i` of `old_string` found on
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
//! **Large files.** In a file over [`SCAN_WHOLE_BYTES`] (1 MiB), a token
//! that a sample of the file finds on more than one line in
//! [`COMMON_LINES`] (32) is not searched for: such a token weighs under
//! `ln 32 ≈ 3.5` per line, votes for every block that looks alike, and
//! would make most of the search's hits (in Rust, `request` or `Error` on
//! every function). The sample is [`SAMPLE_CHUNKS`] (16) stretches of about
//! 64 KiB, evenly spaced through the file, so it depends on the file alone
//! and the answer stays deterministic. A file up to 1 MiB has every token
//! counted.
//!
//! **Cost.** The line scan compares each line whose first and last
//! non-blank bytes can match with the few `old_string` lines that have the
//! same ends, without copying it. Tokens are found, in a file up to 1 MiB,
//! by one pass over its bytes that also finds the line starts: 64 bytes
//! at a time are classified into a mask of word bytes and one of line
//! breaks (branch-free code the compiler vectorizes), each word is taken
//! from the mask's edges, and only a word whose first byte, last byte and
//! length some token has is looked up, in a small open-addressing table
//! that compares a word's first and last eight bytes as integers (a
//! multi-pattern automaton costs more to build than such a file takes to
//! scan). In a larger file, the line starts come from `memchr` and the
//! uncommon tokens from one packed (Teddy, SIMD) multi-pattern search
//! ([`aho_corasick::packed`]), whose hits are sparse. Votes go to a dense
//! array of one counter per alignment. Measured (`not_found` criterion
//! bench, release, quiet 2-core machine, side by side in one run with the
//! line-vote-only placement of 1.1, which misses the block in both cases):
//! 16 MB 27.8 ms (was 53.4 ms: 0.52×), 10 KB 26.0 µs (was 29.3 µs: 0.89×).

//! Excerpts are bounded: [`NOT_FOUND_LINES`] lines for a missing match,
//! [`AMBIGUOUS_RADIUS`] lines either side of each ambiguous match, lines longer
//! than [`MAX_LINE_BYTES`] cut with a visible marker, and at most
//! [`MAX_SNIPPET_BYTES`] per excerpt. Lines are joined with `\n` and their
//! `\r` is dropped: the engine matches an LF `old_string` against CRLF text,
//! so LF is what a retry should send.

use aho_corasick::{AhoCorasick, MatchKind};
use memchr::memmem;

/// Lines in a not-found excerpt (the locked decisions ask for 10 to 15).
pub const NOT_FOUND_LINES: usize = 15;
/// Lines shown before and after an ambiguous match (7-line excerpts).
pub const AMBIGUOUS_RADIUS: usize = 3;
/// Longest line kept whole in an excerpt, in bytes.
pub const MAX_LINE_BYTES: usize = 500;
/// Upper bound of one excerpt, in bytes.
pub const MAX_SNIPPET_BYTES: usize = 4096;
/// Shortest line (in non-blank characters) that may anchor a not-found excerpt.
pub const MIN_ANCHOR_CHARS: usize = 4;
/// Shortest token, in bytes, that votes for a placement (shorter ones, such
/// as `i`, `x` or `if`, say little about where an edit aimed).
pub const MIN_TOKEN_BYTES: usize = 3;
/// Most distinct tokens of one `old_string` searched for (the longest win).
pub const MAX_TOKENS: usize = 64;
/// How many lines an alignment's score reaches either side (halving weights).
pub const ORDER_SLACK: usize = 2;
/// Lines of `old_string` that provide evidence; a longer `old_string` is
/// placed by its first lines, which bounds the vote array.
const MAX_OLD_LINES: usize = 1000;
/// Most lines of one `old_string` a repeated file line or token votes for,
/// which bounds the work on files of near-identical lines.
const MAX_VOTES_PER_LINE: usize = 8;
/// Prefix and suffix lengths tried, in characters, when no line anchors.
const PREFIX_CHARS: [usize; 3] = [20, 10, 5];
/// Texts up to this size have every token counted; a larger text is
/// sampled first (see [`tokens_worth_searching`]) and searched for the
/// tokens that are not common in it.
const SCAN_WHOLE_BYTES: usize = 1 << 20;
/// Evenly spaced stretches of a large text that make its sample.
const SAMPLE_CHUNKS: usize = 16;
/// A token the sample of a large text finds on more than one line in this
/// many is left out of the search.
const COMMON_LINES: usize = 32;
/// Most whole-line keys a file line is compared with directly; beyond, it
/// is squeezed and looked up.
const COMPARE_KEYS: usize = 8;

/// A not-found excerpt and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotFoundExcerpt {
    /// [`NOT_FOUND_LINES`] raw lines (fewer near the end of a short file).
    pub(crate) snippet: String,
    /// 1-based line of the file where the excerpt starts.
    pub(crate) start_line: usize,
    /// Byte offset of that line.
    pub(crate) start_offset: usize,
}

/// The excerpt for an `old_string` that does not occur in `text`.
pub(crate) fn not_found_excerpt(text: &[u8], old: &str) -> NotFoundExcerpt {
    let (index, aligned) = best_alignment(text, old);
    let total = index.count();
    let old_lines = split_lines(old.as_bytes()).len().max(1);
    let top = match aligned {
        Some(start) if old_lines <= NOT_FOUND_LINES => {
            start - ((NOT_FOUND_LINES - old_lines) / 2) as isize
        }
        Some(start) => start - 2,
        None => match prefix_anchor(text, old) {
            Some(offset) => index.line_of(offset) as isize - 7,
            None => 0,
        },
    };
    let top = top.clamp(0, total.saturating_sub(NOT_FOUND_LINES) as isize) as usize;
    let start = index.starts.get(top).copied().unwrap_or(text.len());
    NotFoundExcerpt {
        snippet: excerpt_from(text, start, NOT_FOUND_LINES),
        start_line: top + 1,
        start_offset: start,
    }
}

/// The not-found excerpt placed on a known 1-based `line`, where `old`
/// would start (a look-alike match).
pub(crate) fn excerpt_at_line(text: &[u8], line: usize, old: &str) -> NotFoundExcerpt {
    let old_lines = split_lines(old.as_bytes()).len().max(1);
    let total = LineIndex::new(text);
    let line0 = line.saturating_sub(1) as isize;
    let top = if old_lines <= NOT_FOUND_LINES {
        line0 - ((NOT_FOUND_LINES - old_lines) / 2) as isize
    } else {
        line0 - 2
    };
    let top = top.clamp(0, total.count().saturating_sub(NOT_FOUND_LINES) as isize) as usize;
    let start = total.starts.get(top).copied().unwrap_or(text.len());
    NotFoundExcerpt {
        snippet: excerpt_from(text, start, NOT_FOUND_LINES),
        start_line: top + 1,
        start_offset: start,
    }
}

/// The excerpt alone (tests).
#[cfg(test)]
pub(crate) fn not_found_snippet(text: &[u8], old: &str) -> String {
    not_found_excerpt(text, old).snippet
}

/// Where a match starts, in the terms of a user looking at the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located {
    /// 1-based line of the match's first byte.
    pub(crate) line: usize,
    /// 1-based column, in characters, of the match's first byte.
    pub(crate) column: usize,
    /// [`AMBIGUOUS_RADIUS`] lines before, the line, and as many after.
    pub(crate) snippet: String,
}

/// Locates the sorted byte `offsets` in `text` in one forward pass.
pub(crate) fn locate(text: &[u8], offsets: &[usize]) -> Vec<Located> {
    let mut out = Vec::with_capacity(offsets.len());
    let (mut line0, mut counted_to) = (0usize, 0usize);
    for &offset in offsets {
        let offset = offset.min(text.len());
        if offset >= counted_to {
            line0 += memchr::memchr_iter(b'\n', &text[counted_to..offset]).count();
            counted_to = offset;
        }
        let line_start = memchr::memrchr(b'\n', &text[..offset]).map_or(0, |i| i + 1);
        let column = char_count(&text[line_start..offset]) + 1;
        let top = line0.saturating_sub(AMBIGUOUS_RADIUS);
        let start = back_lines(text, line_start, line0 - top);
        let snippet = excerpt_from(text, start, line0 - top + 1 + AMBIGUOUS_RADIUS);
        out.push(Located {
            line: line0 + 1,
            column,
            snippet,
        });
    }
    out
}

/// The 1-based lines of the sorted byte `offsets`, in one forward pass.
pub(crate) fn lines_of(text: &[u8], offsets: &[usize]) -> Vec<usize> {
    let (mut line0, mut counted_to) = (0usize, 0usize);
    offsets
        .iter()
        .map(|&offset| {
            let offset = offset.min(text.len());
            if offset >= counted_to {
                line0 += memchr::memchr_iter(b'\n', &text[counted_to..offset]).count();
                counted_to = offset;
            }
            line0 + 1
        })
        .collect()
}

/// 0-based line of byte `offset`.
pub(crate) fn line_index(text: &[u8], offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &text[..offset.min(text.len())]).count()
}

/// Where every line of a text starts, found in one pass: the line numbers
/// of token hits, the line scan and the excerpt all read it instead of
/// counting line breaks again.
struct LineIndex {
    /// Byte offset of each line's first byte. A final line break does not
    /// start a new (empty) line, so an empty text has no lines.
    starts: Vec<usize>,
    /// Where the last line ends (before a final line break).
    end: usize,
}

impl LineIndex {
    fn new(text: &[u8]) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        if !text.is_empty() {
            starts.push(0);
        }
        starts.extend(
            memchr::memchr_iter(b'\n', text)
                .map(|i| i + 1)
                .filter(|&i| i < text.len()),
        );
        LineIndex::with_starts(text, starts)
    }

    /// The index of `text` whose line starts are `starts`.
    fn with_starts(text: &[u8], starts: Vec<usize>) -> Self {
        let end = text.len() - usize::from(text.last() == Some(&b'\n'));
        LineIndex { starts, end }
    }

    fn count(&self) -> usize {
        self.starts.len()
    }

    /// Line `l` without its line break (`\r` kept).
    fn line<'t>(&self, text: &'t [u8], l: usize) -> &'t [u8] {
        let end = self.starts.get(l + 1).map_or(self.end, |&next| next - 1);
        &text[self.starts[l]..end]
    }

    /// 0-based line of byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }
}

/// Characters in a slice that holds whole UTF-8 sequences.
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// The lines of `bytes` without their `\n` (a final line break does not open
/// an empty last line, but an empty input is one empty line).
fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if lines.len() > 1 && lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Appends the non-whitespace bytes of `line` to `out` (cleared first).
fn squeeze_into(line: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend(line.iter().copied().filter(|b| !b.is_ascii_whitespace()));
}

/// Whether `b` belongs to a token: ASCII letters, digits, `_`, and every
/// byte of a non-ASCII character (so tokens never split a character).
const fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The tokens of `line` (see the module docs).
fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| !is_word(b))
        .filter(|t| t.len() >= MIN_TOKEN_BYTES || (t.len() == 2 && t[0].is_ascii_digit()))
}

/// The surprise of seeing something that is on `count` of `lines` lines.
fn rarity(lines: usize, count: usize) -> f64 {
    ((lines + 1) as f64 / count.max(1) as f64).ln()
}

/// Votes per alignment: index `s + offset` holds the votes for the
/// alignment `s`, which ranges over `-offset ..= lines - 1 + ORDER_SLACK`
/// (the slack keeps the smoothing inside the array).
struct Votes {
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

/// The text's line index, and the 0-based line where `old` most plausibly
/// starts (possibly negative or past the end when the evidence is near an
/// edge), or `None` when nothing in the file votes for any place.
fn best_alignment(text: &[u8], old: &str) -> (LineIndex, Option<isize>) {
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
        return (index, None);
    }
    let v = &votes.votes;
    let mut best = (0usize, f64::MIN);
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
    }
    (index, Some(best.0 as isize - offset as isize))
}

/// Whether each byte belongs to a token (see [`is_word`]).
const WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_word(b as u8);
        b += 1;
    }
    table
};

/// Slots of a [`TokenTable`]: a power of two, four times [`MAX_TOKENS`], so
/// probes are short.
const TOKEN_SLOTS: usize = 4 * MAX_TOKENS;
// Ids are kept in a byte and slots come from the top byte of a hash.
const _: () = assert!(MAX_TOKENS < 256 && TOKEN_SLOTS <= 256 && TOKEN_SLOTS.is_power_of_two());

/// A word's first and last eight bytes (the same eight when it is shorter),
/// read as integers: for a word of up to 16 bytes they and its length are
/// the word, so most lookups compare two integers instead of calling
/// `memcmp`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct WordKey {
    head: u64,
    tail: u64,
    len: usize,
}

impl WordKey {
    /// The key of `bytes[start..end]`.
    #[inline(always)]
    fn of(bytes: &[u8], start: usize, end: usize) -> Self {
        let len = end - start;
        let (head, tail) = if len >= 8 {
            (load8(&bytes[start..]), load8(&bytes[end - 8..]))
        } else {
            let head = if bytes.len() - start >= 8 {
                load8(&bytes[start..]) & ((1u64 << (8 * len)) - 1)
            } else {
                bytes[start..end]
                    .iter()
                    .rev()
                    .fold(0u64, |v, &b| (v << 8) | u64::from(b))
            };
            (head, head)
        };
        WordKey { head, tail, len }
    }

    /// The slot where probing for this key starts.
    #[inline]
    fn slot(&self) -> usize {
        let mixed = (self.head ^ self.tail.rotate_left(29)).wrapping_add(self.len as u64);
        (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % TOKEN_SLOTS
    }
}

/// The first eight bytes of `bytes` (at least eight long), little-endian.
#[inline]
fn load8(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().expect("eight bytes"))
}

/// The distinct tokens of `old_string`, looked up word by word in a text:
/// an open-addressing table of their [`WordKey`]s (a general hash map costs
/// more than the rest of the scan on a small file).
struct TokenTable<'a> {
    tokens: Vec<(&'a [u8], WordKey)>,
    /// `id + 1` of the token whose probe sequence passes here, `0` if free.
    slots: [u8; TOKEN_SLOTS],
    /// Bytes some token starts and ends with, and the token lengths (bit
    /// `n` for length `n`; bit 63 for every length from 63 on): cheap
    /// filters that spare most words of a text the lookup.
    first: [bool; 256],
    last: [bool; 256],
    lengths: u64,
}

impl<'a> TokenTable<'a> {
    /// The table of at most [`MAX_TOKENS`] distinct tokens.
    fn new(tokens: impl Iterator<Item = &'a [u8]>) -> Self {
        let mut table = TokenTable {
            tokens: Vec::new(),
            slots: [0; TOKEN_SLOTS],
            first: [false; 256],
            last: [false; 256],
            lengths: 0,
        };
        for token in tokens.take(MAX_TOKENS) {
            let key = WordKey::of(token, 0, token.len());
            let mut slot = key.slot();
            while table.slots[slot] != 0 {
                slot = (slot + 1) % TOKEN_SLOTS;
            }
            table.tokens.push((token, key));
            table.slots[slot] = table.tokens.len() as u8;
            table.first[token[0] as usize] = true;
            table.last[token[token.len() - 1] as usize] = true;
            table.lengths |= 1 << token.len().min(63);
        }
        table
    }

    /// The id of the token `bytes[start..end]`, if it is one.
    #[inline(always)]
    fn get(&self, bytes: &[u8], start: usize, end: usize) -> Option<usize> {
        let key = WordKey::of(bytes, start, end);
        let mut slot = key.slot();
        loop {
            let id = usize::from(self.slots[slot]).checked_sub(1)?;
            let (token, token_key) = self.tokens[id];
            if token_key == key && (key.len <= 16 || token[8..] == bytes[start + 8..end]) {
                return Some(id);
            }
            slot = (slot + 1) % TOKEN_SLOTS;
        }
    }

    /// Calls `hit(token, line)` for every whole-word occurrence of a token
    /// on the lines `lines` of `text`, once per token and line.
    fn scan(
        &self,
        text: &[u8],
        index: &LineIndex,
        lines: std::ops::Range<usize>,
        last_line: &mut [usize],
        hit: impl FnMut(usize, usize),
    ) {
        if lines.is_empty() {
            return;
        }
        let from = index.starts[lines.start];
        let to = index.starts.get(lines.end).map_or(text.len(), |&s| s);
        self.scan_bytes(&text[from..to], lines.start, last_line, hit, |_| {});
    }

    /// [`TokenTable::scan`] over all of `text`, which also finds its line
    /// starts: the one pass over a small text's bytes.
    fn scan_indexing(
        &self,
        text: &[u8],
        last_line: &mut [usize],
        hit: impl FnMut(usize, usize),
    ) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        if !text.is_empty() {
            starts.push(0);
        }
        self.scan_bytes(text, 0, last_line, hit, |at| {
            if at + 1 < text.len() {
                starts.push(at + 1);
            }
        });
        LineIndex::with_starts(text, starts)
    }

    /// The pass of [`TokenTable::scan`] over `bytes`, whose first line is
    /// `line`, calling `line_break(at)` for each `\n`.
    #[inline(always)]
    fn scan_bytes(
        &self,
        bytes: &[u8],
        mut line: usize,
        last_line: &mut [usize],
        mut hit: impl FnMut(usize, usize),
        mut line_break: impl FnMut(usize),
    ) {
        // 64 bytes at a time: a mask of word bytes and one of line breaks
        // (computed without branches, so the compiler vectorizes them),
        // then one step per word, found from the mask's edges.
        let mut open: Option<usize> = None; // a word that runs on from the last block
        for (block, chunk) in bytes.chunks(64).enumerate() {
            let base = block * 64;
            let (words, breaks) = block_masks(chunk);
            let mut starts = words & !((words << 1) | u64::from(open.is_some()));
            let mut ends = words & !(words >> 1);
            if chunk.len() == 64 && bytes.get(base + 64).is_some_and(|&b| WORD[b as usize]) {
                ends &= !(1 << 63);
            }
            while ends != 0 {
                let e = ends.trailing_zeros() as usize;
                ends &= ends - 1;
                let start = open.take().unwrap_or_else(|| {
                    let s = starts.trailing_zeros() as usize;
                    starts &= starts - 1;
                    base + s
                });
                let end = base + e + 1;
                if !self.first[bytes[start] as usize]
                    || !self.last[bytes[end - 1] as usize]
                    || self.lengths & (1 << (end - start).min(63)) == 0
                {
                    continue;
                }
                if let Some(id) = self.get(bytes, start, end) {
                    let at = line + (breaks & ((1u64 << e) - 1)).count_ones() as usize;
                    if last_line[id] != at {
                        last_line[id] = at;
                        hit(id, at);
                    }
                }
            }
            if starts != 0 {
                open = Some(base + starts.trailing_zeros() as usize);
            }
            line += breaks.count_ones() as usize;
            let mut breaks = breaks;
            while breaks != 0 {
                line_break(base + breaks.trailing_zeros() as usize);
                breaks &= breaks - 1;
            }
        }
    }
}

/// Bit `i` of the first mask: whether `chunk[i]` is a word byte (see
/// [`is_word`]); of the second: whether it is `\n`. `chunk` holds at most
/// 64 bytes. The bytes are classified into flag arrays (a loop the
/// compiler vectorizes), which [`pack`] turns into bits.
#[inline(always)]
fn block_masks(chunk: &[u8]) -> (u64, u64) {
    let (mut words, mut breaks) = ([0u8; 64], [0u8; 64]);
    if let Ok(block) = <&[u8; 64]>::try_from(chunk) {
        for i in 0..64 {
            words[i] = u8::from(word_byte(block[i]));
            breaks[i] = u8::from(block[i] == b'\n');
        }
    } else {
        for (i, &b) in chunk.iter().enumerate() {
            words[i] = u8::from(word_byte(b));
            breaks[i] = u8::from(b == b'\n');
        }
    }
    (pack(&words), pack(&breaks))
}

/// The 64 flags (each 0 or 1) as the bits of one integer, eight at a
/// time: multiplying eight flag bytes by `0x0102040810204080` gathers
/// flag `k` into bit `56 + k`, and no carry reaches those bits.
#[inline(always)]
fn pack(flags: &[u8; 64]) -> u64 {
    let mut bits = 0u64;
    for (j, eight) in flags.chunks_exact(8).enumerate() {
        let eight = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        bits |= (eight.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * j);
    }
    bits
}

/// [`is_word`] in comparisons only, which vectorize.
#[inline(always)]
fn word_byte(b: u8) -> bool {
    ((b | 0x20).wrapping_sub(b'a') < 26) | (b.wrapping_sub(b'0') < 10) | (b == b'_') | (b >= 0x80)
}

/// The distinct tokens of `old_string` (the [`MAX_TOKENS`] longest, ties
/// in order of first appearance), each with the lines of `old_string` it
/// is on.
fn old_tokens<'o>(old_lines: &[&'o [u8]]) -> Vec<(&'o [u8], Vec<usize>)> {
    let mut ids: foldhash::HashMap<&[u8], usize> = foldhash::HashMap::default();
    let mut found: Vec<(&[u8], Vec<usize>)> = Vec::new();
    for (i, line) in old_lines.iter().enumerate() {
        for token in tokens(line) {
            let k = *ids.entry(token).or_insert_with(|| {
                found.push((token, Vec::new()));
                found.len() - 1
            });
            let on = &mut found[k].1;
            if on.last() != Some(&i) && on.len() < MAX_VOTES_PER_LINE {
                on.push(i);
            }
        }
    }
    // The longest first (stable: ties keep their order of appearance).
    found.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
    found.truncate(MAX_TOKENS);
    found
}

/// Where the tokens of `old_string` are in a text: every (token, file
/// line) pair once, in file order, and the lines each token is on.
struct TokenHits {
    hits: Vec<(u32, u32)>,
    counts: Vec<usize>,
}

impl TokenHits {
    /// Evidence 1 of the module docs: each hit votes the rarity of its
    /// token for every alignment that puts one of the token's lines of
    /// `old_string` on the hit's line.
    fn vote(&self, found: &[(&[u8], Vec<usize>)], lines: usize, votes: &mut Votes) {
        let weights: Vec<f64> = self.counts.iter().map(|&c| rarity(lines, c)).collect();
        for &(id, line) in &self.hits {
            let id = id as usize;
            for &i in &found[id].1 {
                votes.add(line as usize, i, weights[id]);
            }
        }
    }
}

/// The text's line index and where the tokens `found` are in it: in a
/// text up to [`SCAN_WHOLE_BYTES`], every token, found in the pass that
/// also indexes the lines; in a larger one, the tokens worth searching.
fn token_hits(text: &[u8], found: &[(&[u8], Vec<usize>)]) -> (LineIndex, TokenHits) {
    let mut hits = TokenHits {
        hits: Vec::new(),
        counts: vec![0; found.len()],
    };
    if found.is_empty() {
        return (LineIndex::new(text), hits);
    }
    let table = TokenTable::new(found.iter().map(|(t, _)| *t));
    let mut last_line = vec![usize::MAX; found.len()];
    let mut record = |id: usize, line: usize| {
        hits.counts[id] += 1;
        hits.hits.push((id as u32, line as u32));
    };
    let index = if text.len() <= SCAN_WHOLE_BYTES {
        table.scan_indexing(text, &mut last_line, &mut record)
    } else {
        let index = LineIndex::new(text);
        let searched = tokens_worth_searching(text, &index, &table, found.len());
        if !searched.is_empty() {
            search(text, &index, found, &searched, &mut last_line, &mut record);
        }
        index
    };
    (index, hits)
}

/// Calls `hit(token, line)` for every whole-word occurrence in `text` of
/// the tokens `searched` (indices into `found`), once per token and line,
/// in one multi-pattern search: the same hits as [`TokenTable::scan`], at
/// SIMD speed when they are sparse.
fn search(
    text: &[u8],
    index: &LineIndex,
    found: &[(&[u8], Vec<usize>)],
    searched: &[usize],
    last_line: &mut [usize],
    mut hit: impl FnMut(usize, usize),
) {
    let patterns = || searched.iter().map(|&id| found[id].0);
    // A whole-word occurrence is never hidden by a rejected match: a
    // pattern is made of word bytes only, so a match that starts before a
    // word cannot reach it, and at the start of a word the longest pattern
    // is tried first.
    let mut line = 0usize;
    let mut on_match = |start: usize, end: usize, pattern: usize| {
        if (start > 0 && is_word(text[start - 1])) || (end < text.len() && is_word(text[end])) {
            return;
        }
        line += index.starts[line..].partition_point(|&s| s <= start) - 1;
        let id = searched[pattern];
        if last_line[id] != line {
            last_line[id] = line;
            hit(id, line);
        }
    };
    // The packed (Teddy) searcher alone where the CPU has it: it builds in
    // microseconds, where the full automaton costs more than searching a
    // small file.
    if let Some(packed) = aho_corasick::packed::Config::new()
        .match_kind(aho_corasick::packed::MatchKind::LeftmostLongest)
        .builder()
        .extend(patterns())
        .build()
    {
        for m in packed.find_iter(text) {
            on_match(m.start(), m.end(), m.pattern().as_usize());
        }
    } else if let Ok(searcher) = AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(patterns())
    {
        for m in searcher.find_iter(text) {
            on_match(m.start(), m.end(), m.pattern().as_usize());
        }
    }
}

/// The tokens worth searching a large text for: those that a sample of
/// [`SAMPLE_CHUNKS`] evenly spaced stretches of the text (about
/// [`SCAN_WHOLE_BYTES`] in all) finds on at most one line in
/// [`COMMON_LINES`]. The others weigh under `ln COMMON_LINES` per line and
/// would make most of the search's hits.
fn tokens_worth_searching(
    text: &[u8],
    index: &LineIndex,
    table: &TokenTable<'_>,
    tokens: usize,
) -> Vec<usize> {
    let mut sampled = vec![0usize; tokens];
    let mut last_line = vec![usize::MAX; tokens];
    let mut sample_lines = 0;
    let mut next_free = 0;
    for chunk in 0..SAMPLE_CHUNKS {
        let from = index
            .line_of(text.len() / SAMPLE_CHUNKS * chunk)
            .max(next_free);
        let to = (index
            .line_of(text.len() / SAMPLE_CHUNKS * chunk + SCAN_WHOLE_BYTES / SAMPLE_CHUNKS)
            + 1)
        .min(index.count());
        if from >= to {
            continue;
        }
        sample_lines += to - from;
        next_free = to;
        table.scan(text, index, from..to, &mut last_line, |id, _| {
            sampled[id] += 1
        });
    }
    (0..tokens)
        .filter(|&id| sampled[id] * COMMON_LINES <= sample_lines)
        .collect()
}

/// How a squeezed line of `old_string` may match a squeezed file line.
enum Rule {
    /// The whole line, at these lines of `old_string`.
    Whole(Vec<usize>),
    /// The end of the file line (the first line of a multi-line `old_string`).
    First,
    /// The start of the file line (the last line of a multi-line `old_string`).
    Last(usize),
}

/// Whether `line` with its whitespace removed is `key`.
fn squeezed_eq(line: &[u8], key: &[u8]) -> bool {
    let mut key = key.iter();
    for &b in line.iter().filter(|b| !b.is_ascii_whitespace()) {
        if key.next() != Some(&b) {
            return false;
        }
    }
    key.next().is_none()
}

/// Whether `line` with its whitespace removed starts with `key`.
fn squeezed_starts_with(line: &[u8], key: &[u8]) -> bool {
    let mut line = line.iter().filter(|b| !b.is_ascii_whitespace());
    key.iter().all(|k| line.next() == Some(k))
}

/// Whether `line` with its whitespace removed ends with `key`.
fn squeezed_ends_with(line: &[u8], key: &[u8]) -> bool {
    let mut line = line.iter().rev().filter(|b| !b.is_ascii_whitespace());
    key.iter().rev().all(|k| line.next() == Some(k))
}

/// Evidence 2 of the module docs: whole (and partial first and last) lines.
fn line_votes(
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
fn prefix_anchor(text: &[u8], old: &str) -> Option<usize> {
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

/// Byte offset of the start of the line `n` lines above the line starting at
/// `line_start`.
fn back_lines(text: &[u8], line_start: usize, n: usize) -> usize {
    let mut start = line_start;
    for _ in 0..n {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &text[..start - 1]).map_or(0, |i| i + 1);
    }
    start
}

/// `count` lines of `text` starting at 0-based line `top`.
#[cfg(test)]
fn excerpt(text: &[u8], top: usize, count: usize) -> String {
    let start = if top == 0 {
        0
    } else {
        memchr::memchr_iter(b'\n', text)
            .nth(top - 1)
            .map_or(text.len(), |i| i + 1)
    };
    excerpt_from(text, start, count)
}

/// At most `count` lines of `text` from byte offset `start` (a line start),
/// within the byte bounds of the module docs.
fn excerpt_from(text: &[u8], start: usize, count: usize) -> String {
    let mut out = String::new();
    let mut rest = &text[start.min(text.len())..];
    for n in 0..count {
        if rest.is_empty() {
            break;
        }
        let (line, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let rendered = render_line(line);
        if n > 0 && out.len() + 1 + rendered.len() > MAX_SNIPPET_BYTES {
            break;
        }
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&rendered);
    }
    out
}

/// One line as shown in an excerpt: cut at a character boundary with a
/// marker when longer than [`MAX_LINE_BYTES`].
fn render_line(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    if text.len() <= MAX_LINE_BYTES {
        return text.into_owned();
    }
    let mut cut = MAX_LINE_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} […{} more bytes]", &text[..cut], text.len() - cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line number {i}\n")).collect()
    }

    #[test]
    fn excerpt_drops_carriage_returns_and_keeps_raw_text() {
        assert_eq!(excerpt(b"a\r\nb\r\nc", 1, 5), "b\nc");
        assert_eq!(excerpt(b"a\nb\n", 0, 1), "a");
        assert_eq!(excerpt(b"", 0, 15), "");
        assert_eq!(excerpt(b"a\n", 9, 15), "");
    }

    #[test]
    fn long_lines_are_cut_with_a_marker() {
        let long = "é".repeat(400); // 800 bytes
        let shown = render_line(long.as_bytes());
        assert!(shown.starts_with(&"é".repeat(250)));
        assert!(shown.ends_with(" […300 more bytes]"), "{shown}");
    }

    #[test]
    fn excerpts_are_bounded_in_bytes() {
        let text = format!("{}\n", "x".repeat(499)).repeat(40);
        let snippet = excerpt(text.as_bytes(), 0, 40);
        assert!(snippet.len() <= MAX_SNIPPET_BYTES);
        assert_eq!(snippet.lines().count(), 8);
    }

    #[test]
    fn not_found_centres_on_agreeing_lines() {
        let text = numbered(100);
        // Lines 50 and 51 exist; the middle line was changed by the model.
        let old = "line number 50\nline number 5O\nline number 52\n";
        let snippet = not_found_snippet(text.as_bytes(), old);
        let lines: Vec<&str> = snippet.lines().collect();
        assert_eq!(lines.len(), NOT_FOUND_LINES);
        assert_eq!(lines[0], "line number 44");
        assert_eq!(lines[14], "line number 58");
    }

    #[test]
    fn not_found_ignores_indentation_and_crlf() {
        let text = numbered(60).replace("line number 40\n", "    line   number 40\r\n");
        let snippet = not_found_snippet(text.as_bytes(), "line number 40 \nzzzz");
        assert!(snippet.lines().any(|l| l == "    line   number 40"));
        assert!(!snippet.contains('\r'));
    }

    #[test]
    fn not_found_prefers_the_heavier_vote_over_the_first_occurrence() {
        let mut text = numbered(30);
        text.push_str("alpha beta gamma\n");
        text.push_str(&numbered(30));
        text.push_str("alpha beta gamma\ndelta epsilon\n");
        let snippet = not_found_snippet(text.as_bytes(), "alpha beta gamma\ndelta epsilon\nnope");
        let lines: Vec<&str> = snippet.lines().collect();
        assert_eq!(lines.last(), Some(&"delta epsilon"));
    }

    #[test]
    fn not_found_falls_back_to_prefixes_then_the_top() {
        let text = numbered(60).replace(
            "line number 33\n",
            "fn compute_total(items: &[Item]) -> u64 {\n",
        );
        // The one line does not occur whitespace-insensitively, but its
        // 20-character prefix does.
        let old = "fn compute_total(items: &[Item], tax: u8) -> u64 {";
        let snippet = not_found_snippet(text.as_bytes(), old);
        let lines: Vec<&str> = snippet.lines().collect();
        assert_eq!(lines[7], "fn compute_total(items: &[Item]) -> u64 {");
        let snippet = not_found_snippet(text.as_bytes(), "qqqq");
        assert_eq!(snippet.lines().next(), Some("line number 1"));
        assert_eq!(snippet.lines().count(), NOT_FOUND_LINES);
    }

    #[test]
    fn repetitive_files_stay_cheap_to_search() {
        let text = "    return;\n".repeat(20_000);
        let old = format!("{}nope\n", "    return;\n".repeat(2_000));
        let start = std::time::Instant::now();
        let snippet = not_found_snippet(text.as_bytes(), &old);
        assert_eq!(snippet.lines().count(), NOT_FOUND_LINES);
        // Unbounded voting would cast 40 million votes here.
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    /// Rust-like functions with distinct names and numbers and common
    /// keywords everywhere (the shape of the `not_found` bench).
    fn functions(count: usize) -> String {
        (0..count)
            .map(|i| {
                format!(
                    "pub fn handler_{i}(request: &Request) -> Result<Response, Error> {{\n    let total = request.count * {k} + offset_{i};\n    if total > LIMIT {{\n        return Err(Error::TooLarge(total));\n    }}\n    Ok(Response::new(total))\n}}\n\n",
                    k = i % 97 + 3
                )
            })
            .collect()
    }

    #[test]
    fn the_scan_indexes_lines_as_the_line_index_does() {
        let table = TokenTable::new(["abc".as_bytes()].into_iter());
        for text in [
            "",
            "\n",
            "\n\n",
            "abc",
            "abc\n",
            "a\r\nabc\r\n\r\nx",
            "\nabc\nd",
        ] {
            let mut last_line = vec![usize::MAX];
            let mut hits = Vec::new();
            let scanned =
                table.scan_indexing(text.as_bytes(), &mut last_line, |id, l| hits.push((id, l)));
            let index = LineIndex::new(text.as_bytes());
            assert_eq!(
                (scanned.starts, scanned.end),
                (index.starts.clone(), index.end),
                "{text:?}"
            );
            let abc: Vec<usize> = (0..index.count())
                .filter(|&l| index.line(text.as_bytes(), l).starts_with(b"abc"))
                .collect();
            assert_eq!(
                hits.iter().map(|h| h.1).collect::<Vec<_>>(),
                abc,
                "{text:?}"
            );
        }
    }

    /// (token, file line) pairs.
    type Hits = Vec<(usize, usize)>;

    /// The sorted hits of `found` in `text`, by the word scan and by the
    /// multi-pattern search.
    fn scan_and_search(text: &str, found: &[(&[u8], Vec<usize>)]) -> (Hits, Hits) {
        let index = LineIndex::new(text.as_bytes());
        let table = TokenTable::new(found.iter().map(|(t, _)| *t));
        let mut scanned = Vec::new();
        let mut last_line = vec![usize::MAX; found.len()];
        table.scan(
            text.as_bytes(),
            &index,
            0..index.count(),
            &mut last_line,
            |id, l| scanned.push((id, l)),
        );
        let mut searched = Vec::new();
        let mut last_line = vec![usize::MAX; found.len()];
        let all: Vec<usize> = (0..found.len()).collect();
        search(
            text.as_bytes(),
            &index,
            found,
            &all,
            &mut last_line,
            |id, l| searched.push((id, l)),
        );
        scanned.sort();
        searched.sort();
        (scanned, searched)
    }

    #[test]
    fn the_vectorized_word_test_is_the_word_test() {
        for b in 0..=255u8 {
            assert_eq!(word_byte(b), is_word(b), "byte {b:#x}");
        }
    }

    #[test]
    fn words_across_block_edges_are_found_whole() {
        // Words that end, start or run through the 64-byte edges, one of
        // them longer than a block, at every offset from a block's start.
        let long = "w".repeat(70);
        let tokens = ["abc", "abcd", long.as_str(), "tail"];
        let found: Vec<(&[u8], Vec<usize>)> =
            tokens.iter().map(|t| (t.as_bytes(), vec![0])).collect();
        for pad in 0..70 {
            let text = format!(
                "{}abc abcd\nxabc {long} {long}w\ny{}abcd.tail",
                " ".repeat(pad),
                "y".repeat(pad)
            );
            let (scanned, searched) = scan_and_search(&text, &found);
            assert_eq!(scanned, searched, "pad {pad}");
            // `yabcd` is no word of the table, so line 2 has `tail` only.
            assert_eq!(scanned, [(0, 0), (1, 0), (2, 1), (3, 2)], "pad {pad}");
        }
    }

    #[test]
    fn the_search_and_the_word_scan_find_the_same_hits() {
        let text = "offset offset_1 offset_12 12 123 x12 _12 été étés\r\n\
                    offset_12.offset_12(offset_1)\n\n  12-12 été\nlast offset";
        let found: Vec<(&[u8], Vec<usize>)> = ["offset_12", "offset", "offset_1", "été", "12"]
            .iter()
            .map(|t| (t.as_bytes(), vec![0]))
            .collect();
        let (scanned, searched) = scan_and_search(text, &found);
        assert_eq!(scanned, searched);
        assert_eq!(
            scanned,
            [
                (0, 0),
                (0, 1),
                (1, 0),
                (1, 4),
                (2, 0),
                (2, 1),
                (3, 0),
                (3, 3),
                (4, 0),
                (4, 3)
            ]
        );
    }

    #[test]
    fn large_files_are_searched_for_their_uncommon_tokens_only() {
        let text = functions(12_000);
        assert!(text.len() > SCAN_WHOLE_BYTES);
        let index = LineIndex::new(text.as_bytes());
        let found = ["request", "offset_9000", "TooLarge", "sum", "55"];
        let table = TokenTable::new(found.iter().map(|t| t.as_bytes()));
        let kept = tokens_worth_searching(text.as_bytes(), &index, &table, found.len());
        // `request` and `TooLarge` are on every function; the unique name,
        // the absent identifier and a number on one function in 97 stay.
        assert_eq!(kept, [1, 3, 4]);
    }

    #[test]
    fn a_stale_block_in_a_large_file_is_found_with_its_line() {
        let text = functions(12_000);
        // `total` was renamed `sum` in the model's memory: no line matches.
        let old = "    let sum = request.count * 79 + offset_9000;\n    if sum > LIMIT {\n        return Err(Error::TooLarge(sum));";
        let excerpt = not_found_excerpt(text.as_bytes(), old);
        let wanted = "    let total = request.count * 79 + offset_9000;";
        let at = excerpt.snippet.lines().position(|l| l == wanted);
        assert!(at.is_some(), "{}", excerpt.snippet);
        let line = text.lines().position(|l| l == wanted).unwrap();
        assert_eq!(excerpt.start_line + at.unwrap(), line + 1);
    }

    #[test]
    fn locate_reports_lines_columns_and_seven_line_snippets() {
        let text = numbered(20).replace("line number 10\n", "line number 10 ééX\n");
        let at = text.find('X').unwrap();
        let located = locate(text.as_bytes(), &[0, at]);
        assert_eq!((located[0].line, located[0].column), (1, 1));
        assert_eq!(located[0].snippet.lines().count(), 4);
        assert_eq!((located[1].line, located[1].column), (10, 18));
        let lines: Vec<&str> = located[1].snippet.lines().collect();
        assert_eq!(lines.len(), 7);
        assert_eq!(lines[0], "line number 7");
        assert_eq!(lines[3], "line number 10 ééX");
        assert_eq!(lines[6], "line number 13");
    }
}
