//! Naming conventions, in one place: which names the spec format accepts
//! (`MATCH_NOT_FOUND` codes, `file_path` fields, `MatchLocation` types),
//! the spelling a diagnostic suggests for a name that breaks them, and the
//! identifiers the emitters derive from valid names (`MatchNotFound` in
//! Rust and TypeScript). The loader, every emitter and the tests crate's
//! sample generator (`tests/build.rs`) call this module, so a name is never
//! converted two ways.

/// A naming convention of the spec format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// `MATCH_NOT_FOUND`: code names.
    ScreamingSnake,
    /// `file_path`: field, member, category and enum value names.
    LowerSnake,
    /// `MatchLocation`: type names, and Rust/TypeScript variants.
    UpperCamel,
}

impl Case {
    /// Whether `s` is a valid name in this convention.
    pub fn matches(self, s: &str) -> bool {
        if let Case::UpperCamel = self {
            return s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && s.chars().all(|c| c.is_ascii_alphanumeric());
        }
        let ok_char = |c: char| match self {
            Case::ScreamingSnake => c.is_ascii_uppercase() || c.is_ascii_digit(),
            Case::LowerSnake | Case::UpperCamel => c.is_ascii_lowercase() || c.is_ascii_digit(),
        };
        let first_alpha = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        first_alpha
            && s.split('_')
                .all(|w| !w.is_empty() && w.chars().all(ok_char))
    }

    /// `s` in this convention. Words are split at `_`, `-`, spaces and
    /// lower-to-upper case changes (`matchNotFound`); a valid name in one
    /// convention converts to the others word for word
    /// (`MATCH_NOT_FOUND` / `match_not_found` / `MatchNotFound`).
    pub fn convert(self, s: &str) -> String {
        // One pass, straight into the result: the validator converts every
        // code name several times per check, so no word is a String.
        let mut out = String::with_capacity(s.len() + s.len() / 4);
        let mut in_word = false;
        let mut prev_lower = false;
        for c in s.chars() {
            if !c.is_ascii_alphanumeric() {
                in_word = false;
                prev_lower = false;
                continue;
            }
            if c.is_ascii_uppercase() && prev_lower && in_word {
                in_word = false;
            }
            prev_lower = c.is_ascii_lowercase();
            let starts_word = !in_word;
            if starts_word && !out.is_empty() && self != Case::UpperCamel {
                out.push('_');
            }
            in_word = true;
            out.push(match self {
                Case::ScreamingSnake => c.to_ascii_uppercase(),
                Case::LowerSnake => c.to_ascii_lowercase(),
                Case::UpperCamel if starts_word => c.to_ascii_uppercase(),
                Case::UpperCamel => c.to_ascii_lowercase(),
            });
        }
        out
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Case::ScreamingSnake => "SCREAMING_SNAKE_CASE",
            Case::LowerSnake => "lower_snake_case",
            Case::UpperCamel => "UpperCamelCase",
        }
    }

    pub(crate) fn example(self) -> &'static str {
        match self {
            Case::ScreamingSnake => "MATCH_NOT_FOUND",
            Case::LowerSnake => "file_path",
            Case::UpperCamel => "MatchLocation",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_conversion() {
        assert_eq!(
            Case::ScreamingSnake.convert("matchNotFound"),
            "MATCH_NOT_FOUND"
        );
        assert_eq!(
            Case::ScreamingSnake.convert("match-not-found"),
            "MATCH_NOT_FOUND"
        );
        assert_eq!(Case::LowerSnake.convert("NeedlePreview"), "needle_preview");
        assert!(Case::ScreamingSnake.matches("E2BIG_2"));
        assert!(!Case::ScreamingSnake.matches("A__B"));
        assert!(!Case::ScreamingSnake.matches("_A"));
        assert!(!Case::LowerSnake.matches("2fast"));
        // What the emitters derive from valid names.
        assert_eq!(Case::UpperCamel.convert("MATCH_NOT_FOUND"), "MatchNotFound");
        assert_eq!(Case::UpperCamel.convert("would_succeed"), "WouldSucceed");
        assert_eq!(Case::UpperCamel.convert("E2BIG_2"), "E2big2");
    }

    /// The words of `s` as `convert` reads them, the plain way: split at
    /// every character that is not an ASCII letter or digit, and before an
    /// upper-case letter that follows a lower-case one.
    fn words(s: &str) -> Vec<String> {
        let mut words = vec![String::new()];
        let mut prev_lower = false;
        for c in s.chars() {
            if !c.is_ascii_alphanumeric() {
                words.push(String::new());
                prev_lower = false;
                continue;
            }
            if c.is_ascii_uppercase() && prev_lower {
                words.push(String::new());
            }
            prev_lower = c.is_ascii_lowercase();
            words.last_mut().expect("one word").push(c);
        }
        words.retain(|w| !w.is_empty());
        words
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 2000,
            rng_seed: proptest::test_runner::RngSeed::Fixed(50),
            ..Default::default()
        })]

        /// `convert` is the words joined in the convention's way, for
        /// every string (separators, digits, case changes, non-ASCII).
        #[test]
        fn conversion_is_the_words_joined(s in "[a-zA-Z0-9_ \\-é.]{0,16}") {
            let words = words(&s);
            let upper = words.iter().map(|w| {
                let (first, rest) = w.split_at(1);
                first.to_ascii_uppercase() + &rest.to_ascii_lowercase()
            });
            proptest::prop_assert_eq!(Case::UpperCamel.convert(&s), upper.collect::<String>());
            proptest::prop_assert_eq!(Case::ScreamingSnake.convert(&s), words.join("_").to_ascii_uppercase());
            proptest::prop_assert_eq!(Case::LowerSnake.convert(&s), words.join("_").to_ascii_lowercase());
        }
    }
}
