//! An example string for a `pattern:`.
//!
//! The documentation example of a code shows a value for every required
//! field, and a field without an `example:` gets one built from its type
//! (`"example file path"` for `file_path`). A string with a `pattern:` must
//! match it, or the example contradicts its own schema. This module builds
//! a matching string from the pattern: it parses the pattern with
//! `regex-syntax` (whose syntax agrees with ECMA-262 on the usual subset:
//! literals, classes, `\d`/`\w`/`\s`, repetitions, groups, alternatives,
//! `^` and `$`) and walks it, following the text the example would
//! otherwise hold where the pattern allows (`^[a-z]+$` for `file_path`
//! gives `example`), and otherwise taking the first simple character each
//! class allows.
//!
//! The walk only emits what it can prove matches: `^` only before anything
//! is emitted, `$` only with nothing after it. A pattern outside that
//! subset (look-around, back-references, word boundaries, a syntax
//! `regex-syntax` does not read) gets no example: `check` then asks for an
//! `example:` (`validate::declarations`), so no example a reader sees
//! fails its own schema.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// The longest example built; a pattern that needs more (`^a{5000}$`)
/// gets none.
const MAX_LEN: usize = 256;

/// A string that matches `pattern`, as close to `natural` (the example the
/// value would have without a pattern) as the pattern allows; `Err` with
/// the reason when the pattern is outside the subset this module reads.
pub fn example(pattern: &str, natural: &str) -> Result<String, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|e| match e {
            regex_syntax::Error::Parse(e) => e.kind().to_string(),
            regex_syntax::Error::Translate(e) => e.kind().to_string(),
            _ => e.to_string(),
        })?;
    let mut walk = Walk {
        hint: natural.chars().collect(),
        state: State::default(),
    };
    walk.emit(&hir, false)?;
    Ok(walk.state.out)
}

#[derive(Clone, Default)]
struct State {
    out: String,
    /// Characters of the hint used so far.
    pos: usize,
    /// A `$` was passed: nothing may follow.
    ended: bool,
}

struct Walk {
    hint: Vec<char>,
    state: State,
}

/// Characters a class is asked for, in order, when the hint's next one is
/// not in it.
const PLAIN: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/ ";

impl Walk {
    /// Emits a string matching `hir` after what is emitted. With `strict`,
    /// only by following the hint (for the optional repetitions of a
    /// repetition, which stop where the hint stops fitting).
    fn emit(&mut self, hir: &Hir, strict: bool) -> Result<(), String> {
        match hir.kind() {
            HirKind::Empty => Ok(()),
            HirKind::Literal(lit) => {
                let text = std::str::from_utf8(&lit.0)
                    .map_err(|_| "the pattern matches bytes that are not UTF-8".to_string())?;
                let follows = self.hint[self.state.pos.min(self.hint.len())..]
                    .iter()
                    .copied()
                    .zip(text.chars())
                    .take_while(|(h, t)| h == t)
                    .count();
                let whole = follows == text.chars().count();
                if strict && !whole {
                    return Err("the hint does not fit".into());
                }
                if whole {
                    self.state.pos += follows;
                }
                self.push(text)
            }
            HirKind::Class(Class::Unicode(class)) => {
                let has = |c: char| {
                    class
                        .ranges()
                        .iter()
                        .any(|r| r.start() <= c && c <= r.end())
                };
                let next = self.hint.get(self.state.pos).copied();
                let from_hint = next.and_then(|h| {
                    [h, h.to_ascii_uppercase(), h.to_ascii_lowercase()]
                        .into_iter()
                        .find(|&c| has(c))
                });
                let c = match from_hint {
                    Some(c) => {
                        self.state.pos += 1;
                        c
                    }
                    None if strict => return Err("the hint does not fit".into()),
                    None => PLAIN
                        .chars()
                        .find(|&c| has(c))
                        .or_else(|| class.ranges().first().map(|r| r.start()))
                        .ok_or("the pattern has a class no character is in")?,
                };
                self.push(c.encode_utf8(&mut [0; 4]))
            }
            HirKind::Class(Class::Bytes(_)) => {
                Err("the pattern matches bytes that are not UTF-8".into())
            }
            HirKind::Look(Look::Start) if self.state.out.is_empty() => Ok(()),
            HirKind::Look(Look::Start) => Err("`^` after the start cannot match".into()),
            HirKind::Look(Look::End) => {
                self.state.ended = true;
                Ok(())
            }
            HirKind::Look(_) => {
                Err("word boundaries and multi-line anchors are not supported".into())
            }
            HirKind::Repetition(rep) => {
                let max = rep.max.unwrap_or(u32::MAX);
                if rep.min as usize > MAX_LEN {
                    return Err(format!("a repetition of more than {MAX_LEN}"));
                }
                let mut n = 0;
                while n < rep.min {
                    self.emit(&rep.sub, strict)?;
                    n += 1;
                }
                // Further repetitions while the hint fits them.
                while n < max {
                    let before = self.state.clone();
                    match self.emit(&rep.sub, true) {
                        Ok(()) if self.state.pos > before.pos => n += 1,
                        _ => {
                            self.state = before;
                            break;
                        }
                    }
                }
                Ok(())
            }
            HirKind::Capture(cap) => self.emit(&cap.sub, strict),
            HirKind::Concat(items) => items.iter().try_for_each(|h| self.emit(h, strict)),
            HirKind::Alternation(alternatives) => {
                let before = self.state.clone();
                let mut last = Err(String::new());
                // The first alternative the hint fits, else the first that
                // can be emitted at all.
                for strict_try in [true, false] {
                    if strict && !strict_try {
                        break;
                    }
                    for alt in alternatives {
                        last = self.emit(alt, strict_try);
                        if last.is_ok() {
                            return last;
                        }
                        self.state = before.clone();
                    }
                }
                last
            }
        }
    }

    fn push(&mut self, text: &str) -> Result<(), String> {
        if text.is_empty() {
            return Ok(());
        }
        if self.state.ended {
            return Err("text after `$` cannot match".into());
        }
        if self.state.out.len() + text.len() > MAX_LEN {
            return Err(format!("the shortest match is longer than {MAX_LEN} bytes"));
        }
        self.state.out.push_str(text);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::example;

    #[test]
    fn examples_follow_the_natural_text_where_the_pattern_allows() {
        let cases = [
            ("^[a-z]+$", "example attempt", "example"),
            ("^-?[0-9]+$", "example quota value", "0"),
            ("^[A-Z][A-Z0-9_]+[A-Z0-9]$", "example reason", "EXAMPLEA"),
            ("^https://", "example link", "https://"),
            ("^(GET|POST)$", "example method", "GET"),
            ("^[a-z]{2}-[A-Z]{2}$", "example locale", "ex-AM"),
            ("^\\d{3}$", "example", "000"),
            ("id", "example id", "id"),
            ("^[^\\s]+$", "example name", "example"),
            ("^.{1,4}$", "example", "exam"),
        ];
        for (pattern, natural, want) in cases {
            assert_eq!(example(pattern, natural).as_deref(), Ok(want), "{pattern}");
        }
    }

    #[test]
    fn patterns_outside_the_subset_get_no_example() {
        for pattern in [
            "^(?=a)a$",
            "^(a)\\1$",
            "\\bword\\b",
            "a$b",
            "a^b",
            "^a{5000}$",
            "[",
        ] {
            assert!(example(pattern, "example").is_err(), "{pattern}");
        }
    }
}
