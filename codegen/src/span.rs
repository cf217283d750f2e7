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
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl<T> std::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}
