//! The token scan: where the tokens of `old_string` are in a text, and
//! where the text's lines start (see `score` for what the tokens weigh).
//!
//! A token is a run of at least [`MIN_TOKEN_BYTES`] letters, digits, `_` or
//! non-ASCII bytes (identifiers, numbers, words), or a two-digit number;
//! [`old_tokens`] keeps the [`MAX_TOKENS`] longest distinct ones.
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
//! **Cost.** Tokens are found, in a file up to 1 MiB,
//! by one pass over its bytes that also finds the line starts: 64 bytes
//! at a time are classified into a mask of word bytes and one of line
//! breaks (branch-free code the compiler vectorizes), each word is taken
//! from the mask's edges, and only a word whose first byte, last byte and
//! length some token has is looked up, in a small open-addressing table
//! that compares a word's first and last eight bytes as integers (a
//! multi-pattern automaton costs more to build than such a file takes to
//! scan). In a larger file, the line starts come from `memchr` and the
//! uncommon tokens from one packed (Teddy, SIMD) multi-pattern search
//! ([`aho_corasick::packed`]), whose hits are sparse.

use aho_corasick::{AhoCorasick, MatchKind};

use super::{MAX_TOKENS, MAX_VOTES_PER_LINE, MIN_TOKEN_BYTES};

/// Texts up to this size have every token counted; a larger text is
/// sampled first (see [`tokens_worth_searching`]) and searched for the
/// tokens that are not common in it.
const SCAN_WHOLE_BYTES: usize = 1 << 20;
/// Evenly spaced stretches of a large text that make its sample.
const SAMPLE_CHUNKS: usize = 16;
/// A token the sample of a large text finds on more than one line in this
/// many is left out of the search.
const COMMON_LINES: usize = 32;

/// Where every line of a text starts, found in one pass: the line numbers
/// of token hits, the line scan and the excerpt all read it instead of
/// counting line breaks again.
pub(super) struct LineIndex {
    /// Byte offset of each line's first byte. A final line break does not
    /// start a new (empty) line, so an empty text has no lines.
    pub(super) starts: Vec<usize>,
    /// Where the last line ends (before a final line break).
    pub(super) end: usize,
}

impl LineIndex {
    pub(super) fn new(text: &[u8]) -> Self {
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
    pub(super) fn with_starts(text: &[u8], starts: Vec<usize>) -> Self {
        let end = text.len() - usize::from(text.last() == Some(&b'\n'));
        LineIndex { starts, end }
    }

    pub(super) fn count(&self) -> usize {
        self.starts.len()
    }

    /// Line `l` without its line break (`\r` kept).
    pub(super) fn line<'t>(&self, text: &'t [u8], l: usize) -> &'t [u8] {
        let end = self.starts.get(l + 1).map_or(self.end, |&next| next - 1);
        &text[self.starts[l]..end]
    }

    /// 0-based line of byte `offset`.
    pub(super) fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }
}

/// Whether `b` belongs to a token: ASCII letters, digits, `_`, and every
/// byte of a non-ASCII character (so tokens never split a character).
pub(super) const fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The tokens of `line` (see the module docs).
pub(super) fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| !is_word(b))
        .filter(|t| t.len() >= MIN_TOKEN_BYTES || (t.len() == 2 && t[0].is_ascii_digit()))
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
pub(super) struct WordKey {
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
pub(super) fn load8(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().expect("eight bytes"))
}

/// The distinct tokens of `old_string`, looked up word by word in a text:
/// an open-addressing table of their [`WordKey`]s (a general hash map costs
/// more than the rest of the scan on a small file).
pub(super) struct TokenTable<'a> {
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
pub(super) fn block_masks(chunk: &[u8]) -> (u64, u64) {
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
pub(super) fn pack(flags: &[u8; 64]) -> u64 {
    let mut bits = 0u64;
    for (j, eight) in flags.chunks_exact(8).enumerate() {
        let eight = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        bits |= (eight.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * j);
    }
    bits
}

/// [`is_word`] in comparisons only, which vectorize.
#[inline(always)]
pub(super) fn word_byte(b: u8) -> bool {
    ((b | 0x20).wrapping_sub(b'a') < 26) | (b.wrapping_sub(b'0') < 10) | (b == b'_') | (b >= 0x80)
}

/// The distinct tokens of `old_string` (the [`MAX_TOKENS`] longest, ties
/// in order of first appearance), each with the lines of `old_string` it
/// is on.
pub(super) fn old_tokens<'o>(old_lines: &[&'o [u8]]) -> Vec<(&'o [u8], Vec<usize>)> {
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
pub(super) struct TokenHits {
    pub(super) hits: Vec<(u32, u32)>,
    pub(super) counts: Vec<usize>,
}

/// The text's line index and where the tokens `found` are in it: in a
/// text up to [`SCAN_WHOLE_BYTES`], every token, found in the pass that
/// also indexes the lines; in a larger one, the tokens worth searching.
pub(super) fn token_hits(text: &[u8], found: &[(&[u8], Vec<usize>)]) -> (LineIndex, TokenHits) {
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
pub(super) fn search(
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
pub(super) fn tokens_worth_searching(
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

#[cfg(test)]
mod tests {
    use super::super::test_text::functions;
    use super::*;

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
}
