//! Finding an `old_string` in its plain and its CRLF form at once.
//!
//! An `old_string` with bare LFs stands for text the model saw with its `\r`
//! hidden, so in a text that has CRLF line breaks it may occur in two forms:
//! as written, and with every bare LF as `\r\n`. Treating the two forms as
//! one set of occurrences keeps the uniqueness rule honest in mixed files
//! (one LF and one CRLF copy of the same lines *are* ambiguous to the model)
//! and lets `replace_all` reach both.
//!
//! In a text with both kinds of line break, an `old_string` with several
//! bare LFs may also occur with its lines ending differently ([`Form::Mixed`]):
//! [`Matcher::mixed`] then matches each bare LF with whichever of `\n` and
//! `\r\n` the text has at that point, which finds the plain, the CRLF and
//! the mixed occurrences in one pass.
//!
//! [`Matcher::next_from`] yields the earliest occurrence starting at or after
//! an offset. Each form caches its last search result, and callers only ever
//! ask with growing offsets, so a whole scan costs one pass per form however
//! the occurrences interleave.

use std::cell::Cell;

use memchr::memmem::Finder;

/// The form in which an occurrence was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// The `old_string` bytes as given.
    Plain,
    /// The `old_string` with every bare LF written as `\r\n`.
    Crlf,
    /// The `old_string` with some bare LFs written as `\r\n` and some not
    /// (a span of a mixed file whose lines end differently).
    Mixed,
}

/// One occurrence: where it starts, how long it is, in which form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) start: usize,
    pub(crate) len: usize,
    pub(crate) form: Form,
}

impl Hit {
    pub(crate) fn end(self) -> usize {
        self.start + self.len
    }
}

struct Searcher<'n> {
    finder: Finder<'n>,
    form: Form,
    /// The last answer: the first start at or after `.0` is `.1`.
    cache: Cell<Option<(usize, Option<usize>)>>,
}

/// Searches for an `old_string` whose every bare LF may stand for `\n` or
/// `\r\n` independently (used in mixed files, where a span's lines may end
/// differently).
struct Flexible<'n> {
    /// `old_string` cut at its bare LFs.
    segments: Vec<&'n [u8]>,
    /// Finds the first segment (or, when it is empty, a `\n`).
    finder: Finder<'n>,
    /// The last answer: the first hit at or after `.0` is `.1`.
    cache: Cell<Option<(usize, Option<Hit>)>>,
}

impl Flexible<'_> {
    /// The occurrence starting at `p`, if any: each bare LF of `old_string`
    /// matched by the `\n` or the `\r\n` found there.
    fn at(&self, text: &[u8], p: usize) -> Option<Hit> {
        let (mut q, mut crlf, mut lf) = (p, 0, 0);
        for (k, segment) in self.segments.iter().enumerate() {
            if k > 0 {
                match text.get(q..q + 2) {
                    Some(b"\r\n") => (q, crlf) = (q + 2, crlf + 1),
                    _ if text.get(q) == Some(&b'\n') => (q, lf) = (q + 1, lf + 1),
                    _ => return None,
                }
            }
            if !text.get(q..)?.starts_with(segment) {
                return None;
            }
            q += segment.len();
        }
        let form = match (crlf, lf) {
            (0, _) => Form::Plain,
            (_, 0) => Form::Crlf,
            _ => Form::Mixed,
        };
        Some(Hit {
            start: p,
            len: q - p,
            form,
        })
    }

    fn next_from(&self, text: &[u8], from: usize) -> Option<Hit> {
        if let Some((asked, answer)) = self.cache.get()
            && asked <= from
        {
            match answer {
                None => return None,
                Some(hit) if hit.start >= from => return Some(hit),
                Some(_) => {}
            }
        }
        let leading_lf = self.segments[0].is_empty();
        let mut at = from;
        let answer = loop {
            if at > text.len() {
                break None;
            }
            let Some(i) = self.finder.find(&text[at..]) else {
                break None;
            };
            let mut p = at + i;
            if leading_lf && p > 0 && text[p - 1] == b'\r' {
                // The `\r\n` form starts at the `\r`; starting at the `\n`
                // would split the pair.
                if p - 1 < from {
                    at = p + 1;
                    continue;
                }
                p -= 1;
            }
            if let Some(hit) = self.at(text, p) {
                break Some(hit);
            }
            at = at + i + 1;
        };
        self.cache.set(Some((from, answer)));
        answer
    }
}

/// Searches one text for the forms of one `old_string`.
pub(crate) struct Matcher<'n> {
    searchers: Vec<Searcher<'n>>,
    flexible: Option<Flexible<'n>>,
    /// Whether plain matches that begin between the `\r` and the `\n` of a
    /// pair must be skipped (the plain form starts with a bare LF; such a
    /// match would split the pair, and the CRLF form covers that line break).
    skip_split: bool,
}

impl<'n> Matcher<'n> {
    /// A matcher for `plain`, and also for `crlf` when given.
    pub(crate) fn new(plain: &'n str, crlf: Option<&'n str>) -> Matcher<'n> {
        Matcher::with_forms(plain, crlf, true)
    }

    /// A matcher for the CRLF form only, for a text without bare LFs: there,
    /// every plain-form occurrence of an `old_string` with a bare LF would
    /// split a `\r\n` pair, so searching the plain form is wasted work.
    pub(crate) fn crlf_only(plain: &'n str, crlf: &'n str) -> Matcher<'n> {
        Matcher::with_forms(plain, Some(crlf), false)
    }

    fn with_forms(plain: &'n str, crlf: Option<&'n str>, with_plain: bool) -> Matcher<'n> {
        let searcher = |needle: &'n str, form| Searcher {
            finder: Finder::new(needle.as_bytes()),
            form,
            cache: Cell::new(None),
        };
        let mut searchers = Vec::with_capacity(2);
        if with_plain {
            searchers.push(searcher(plain, Form::Plain));
        }
        searchers.extend(crlf.map(|c| searcher(c, Form::Crlf)));
        Matcher {
            searchers,
            flexible: None,
            skip_split: plain.starts_with('\n'),
        }
    }

    /// A matcher for a text with both kinds of line break: every bare LF of
    /// `old` matches `\n` or `\r\n`, independently of the others.
    pub(crate) fn mixed(old: &'n str) -> Matcher<'n> {
        let bytes = old.as_bytes();
        let mut segments = Vec::new();
        let mut last = 0;
        for i in memchr::memchr_iter(b'\n', bytes) {
            if i == 0 || bytes[i - 1] != b'\r' {
                segments.push(&bytes[last..i]);
                last = i + 1;
            }
        }
        segments.push(&bytes[last..]);
        let anchor: &'n [u8] = if segments[0].is_empty() {
            b"\n"
        } else {
            segments[0]
        };
        Matcher {
            searchers: Vec::new(),
            flexible: Some(Flexible {
                segments,
                finder: Finder::new(anchor),
                cache: Cell::new(None),
            }),
            skip_split: false,
        }
    }

    /// For a hit in [`Form::Mixed`] (or any form), whether each bare LF of
    /// `old_string` was matched by a `\r\n`, in order.
    pub(crate) fn line_breaks(&self, text: &[u8], hit: Hit) -> Vec<bool> {
        let Some(f) = &self.flexible else {
            return Vec::new();
        };
        let mut q = hit.start + f.segments[0].len();
        let mut out = Vec::with_capacity(f.segments.len() - 1);
        for segment in &f.segments[1..] {
            let crlf = text.get(q) == Some(&b'\r');
            out.push(crlf);
            q += if crlf { 2 } else { 1 } + segment.len();
        }
        out
    }

    /// The earliest occurrence in `text` starting at or after `from`.
    ///
    /// `text` must be the same on every call; calls are cheapest with
    /// offsets that do not decrease.
    pub(crate) fn next_from(&self, text: &[u8], from: usize) -> Option<Hit> {
        if let Some(f) = &self.flexible {
            return f.next_from(text, from);
        }
        self.searchers
            .iter()
            .filter_map(|s| {
                let start = self.search(s, text, from)?;
                Some(Hit {
                    start,
                    len: s.finder.needle().len(),
                    form: s.form,
                })
            })
            .min_by_key(|hit| hit.start)
    }

    fn search(&self, s: &Searcher<'_>, text: &[u8], from: usize) -> Option<usize> {
        // A cached answer for an earlier offset still holds unless the
        // occurrence it found lies before `from`.
        if let Some((asked, answer)) = s.cache.get()
            && asked <= from
        {
            match answer {
                None => return None,
                Some(at) if at >= from => return Some(at),
                Some(_) => {}
            }
        }
        let mut at = from;
        let answer = loop {
            if at > text.len() {
                break None;
            }
            match s.finder.find(&text[at..]) {
                None => break None,
                Some(i) => {
                    let start = at + i;
                    let splits = self.skip_split
                        && s.form == Form::Plain
                        && start > 0
                        && text[start - 1] == b'\r';
                    if !splits {
                        break Some(start);
                    }
                    at = start + 1;
                }
            }
        };
        s.cache.set(Some((from, answer)));
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(m: &Matcher<'_>, text: &[u8]) -> Vec<(usize, Form)> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(hit) = m.next_from(text, from) {
            out.push((hit.start, hit.form));
            from = hit.start + 1;
        }
        out
    }

    #[test]
    fn yields_both_forms_in_order_with_overlaps() {
        let m = Matcher::new("a\nb", Some("a\r\nb"));
        let text = b"a\nb a\r\nb a\nb";
        assert_eq!(
            starts(&m, text),
            [(0, Form::Plain), (4, Form::Crlf), (9, Form::Plain)]
        );
        let m = Matcher::new("aa", None);
        assert_eq!(starts(&m, b"aaa"), [(0, Form::Plain), (1, Form::Plain)]);
    }

    #[test]
    fn plain_matches_never_split_a_crlf_pair() {
        let m = Matcher::new("\nb", Some("\r\nb"));
        assert_eq!(
            starts(&m, b"a\r\nb\nb"),
            [(1, Form::Crlf), (4, Form::Plain)]
        );
    }

    #[test]
    fn mixed_matcher_takes_each_line_break_as_it_comes() {
        let m = Matcher::mixed("a\nb\nc");
        let text = b"a\r\nb\nc a\nb\nc a\r\nb\r\nc";
        assert_eq!(
            starts(&m, text),
            [(0, Form::Mixed), (7, Form::Plain), (13, Form::Crlf)]
        );
        let hit = m.next_from(text, 0).unwrap();
        assert_eq!((hit.len, m.line_breaks(text, hit)), (6, vec![true, false]));
        // A leading LF starts at the `\r` of a pair, never between.
        let m = Matcher::mixed("\nb\nc");
        assert_eq!(starts(&m, b"a\r\nb\nc"), [(1, Form::Mixed)]);
    }

    #[test]
    fn searching_past_the_end_finds_nothing() {
        let m = Matcher::new("x", None);
        assert_eq!(m.next_from(b"x", 1), None);
        assert_eq!(m.next_from(b"x", 5), None);
    }
}
