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
        let mut words: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut prev_lower = false;
        for c in s.chars() {
            if !c.is_ascii_alphanumeric() {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                prev_lower = false;
                continue;
            }
            if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_ascii_lowercase();
            cur.push(c);
        }
        if !cur.is_empty() {
            words.push(cur);
        }
        let joined = words.join("_");
        match self {
            Case::ScreamingSnake => joined.to_ascii_uppercase(),
            Case::LowerSnake => joined.to_ascii_lowercase(),
            Case::UpperCamel => words
                .iter()
                .map(|w| {
                    let mut c = w.chars();
                    c.next().map_or(String::new(), |f| {
                        f.to_ascii_uppercase().to_string() + &c.as_str().to_ascii_lowercase()
                    })
                })
                .collect(),
        }
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
}
