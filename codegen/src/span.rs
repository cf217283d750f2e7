//! Source positions: where in the spec file a value was written.
//!
//! The base of the compiler: the YAML reader, the diagnostics, the spec model
//! and the context vocabulary all carry [`Loc`]s and [`Spanned`] values, and
//! this module depends on none of them.

use std::fmt;

/// A position in the spec file: 1-based line and column, plus the byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Loc {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub col: usize,
    /// Byte offset of the start of the node.
    pub start: usize,
    /// Byte offset one past the end of the node.
    pub end: usize,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A value together with where it was written.
///
/// Two spanned values are equal when their values are: where a value was
/// written is not part of it, so a spec moved around in its file (comments
/// added, keys reordered, a block re-indented) compares equal to itself, and
/// the compatibility diff can tell content changes from formatting by `==`.
#[derive(Debug, Clone)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub loc: Loc,
}

impl<T> Spanned<T> {
    /// Wraps `value` found at `loc`.
    pub fn new(value: T, loc: Loc) -> Self {
        Spanned { value, loc }
    }
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Spanned<T> {}

impl<T> std::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_ignores_where_a_value_was_written() {
        let at = |line| Loc {
            line,
            col: 3,
            start: line * 10,
            end: line * 10 + 4,
        };
        assert_eq!(Spanned::new("text", at(1)), Spanned::new("text", at(7)));
        assert_ne!(Spanned::new("text", at(1)), Spanned::new("other", at(1)));
    }
}
