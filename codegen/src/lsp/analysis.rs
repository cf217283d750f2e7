//! One check of one version of a document: the compiler's diagnostics (the
//! same problems `splice-codegen check` reports) and the [`Index`] of its
//! names, built from as much of the YAML as parses.
//!
//! A YAML syntax error stops the parser, so the tree would end there and
//! the outline with it. Like the loader (`load.rs`), the analysis blanks
//! out the entry holding the error (byte for byte, so every location stays
//! valid) and parses again, a few times over, so the rest of the document
//! keeps its symbols; the names of the skipped entries are still declared.

use std::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::spec::Spec;
use crate::yaml::{self, Node};

use super::index::{At, Definition, Index, Kind, Name};

/// How many broken entries are skipped before the rest is given up.
const MAX_RECOVERIES: usize = 8;

/// What one check of one version found.
#[derive(Debug)]
pub struct Analysis {
    /// The version of the document checked.
    pub version: i32,
    /// Every name declared and used, and the tree of what parsed (with
    /// broken entries blanked out).
    pub index: Index,
    /// The problems `check` reports, in its order.
    pub diagnostics: Vec<Diagnostic>,
    /// The checked spec, when there is no problem.
    pub spec: Option<Spec>,
    /// Byte ranges skipped because their YAML does not parse.
    pub skipped: Vec<Range<usize>>,
}

impl Analysis {
    /// Checks `text` (version `version`) as the file `file_name`.
    pub fn run(text: &str, version: i32, file_name: &str) -> Analysis {
        let parsed = yaml::parse(text);
        let (root, skipped, checked) = if parsed.complete {
            // One parse feeds both: the compiler checks the tree the index
            // reads.
            let checked =
                crate::load::load_tree(text, file_name, parsed.root.as_ref(), parsed.diagnostics);
            (parsed.root, Vec::new(), checked)
        } else {
            // The compiler reports the syntax error and what it finds
            // beside it on its own parses; the index reads the tree with
            // the broken entries blanked out.
            let (root, skipped) = recover(text, parsed);
            (root, skipped, crate::load_str(text, file_name))
        };
        let (spec, diagnostics) = match checked {
            Ok(spec) => {
                let warnings = crate::lint(&spec);
                (Some(spec), warnings)
            }
            Err(d) => (None, d.items),
        };
        let mut index = root
            .map(|root| Index::build(text, root))
            .unwrap_or_default();
        // The names of skipped entries are still declared (their keys
        // parse on their own), so the outline does not lose them.
        for range in &skipped {
            declare_skipped(text, range.clone(), &mut index);
        }
        Analysis {
            version,
            index,
            diagnostics,
            spec,
            skipped,
        }
    }
}

impl Analysis {
    /// The analysis of a version whose check failed (a bug): one problem
    /// saying so, and no names.
    pub fn failed(version: i32) -> Analysis {
        Analysis {
            version,
            index: Index::default(),
            diagnostics: vec![
                Diagnostic::new(
                    crate::span::Loc::default(),
                    "internal error: checking this text failed",
                )
                .with_help("this is a bug in splice-codegen; please report it with the spec"),
            ],
            spec: None,
            skipped: Vec::new(),
        }
    }
}

/// The tree of `text` with the lines holding syntax errors blanked out,
/// and the blanked ranges, from `parsed`, the parse of `text` that stopped
/// at a syntax error. For each error the smallest blank that lets the
/// parser past it is kept: the error's line, that line and the one before
/// (the parser often stops a line late), or the whole entry around it.
fn recover(text: &str, mut parsed: yaml::Parsed) -> (Option<Node>, Vec<Range<usize>>) {
    let mut current = text.to_owned();
    let mut skipped: Vec<Range<usize>> = Vec::new();
    while !parsed.complete && skipped.len() < MAX_RECOVERIES {
        let Some(at) = error_at(&parsed) else { break };
        // Small files try the narrow blanks first; a large one goes
        // straight to the entry, since each try is a parse of it all.
        let mut candidates = Vec::new();
        if current.len() < (1 << 20) {
            candidates.extend(line_around(&current, at, 0));
            candidates.extend(line_around(&current, at, 1));
        }
        candidates.extend(entry_around(&current, at));
        // The blank that gets the parser furthest (to the end is best),
        // the smallest of those: blanking a line that is fine only moves
        // the error down by a line.
        let mut progressed: Option<(Range<usize>, String, yaml::Parsed, usize)> = None;
        for range in candidates {
            if skipped.contains(&range) {
                continue;
            }
            let mut blanked = current.clone();
            blank(&mut blanked, range.clone());
            let next = yaml::parse(&blanked);
            let reach = error_at(&next).unwrap_or(usize::MAX);
            if reach < range.end {
                continue;
            }
            if progressed
                .as_ref()
                .is_none_or(|(_, _, _, best)| reach > *best)
            {
                progressed = Some((range, blanked, next, reach));
            }
        }
        let progressed = progressed.map(|(r, b, n, _)| (r, b, n));
        let Some((range, blanked, next)) = progressed else {
            break;
        };
        skipped.push(range);
        current = blanked;
        parsed = next;
    }
    (parsed.root, skipped)
}

/// Where the syntax error of an incomplete parse really is: an unclosed
/// bracket is reported where the parser gave up, and points back at where
/// it was opened.
fn error_at(parsed: &yaml::Parsed) -> Option<usize> {
    if parsed.complete {
        return None;
    }
    let d = parsed.diagnostics.last()?;
    std::iter::once(d.loc)
        .chain(d.related.iter().map(|(l, _)| *l))
        .filter(|l| l.line > 0)
        .map(|l| l.start)
        .min()
}

/// The line holding byte `at`, with `before` more lines before it.
fn line_around(text: &str, at: usize, before: usize) -> Option<Range<usize>> {
    let at = at.min(text.len());
    let mut start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    for _ in 0..before {
        if start == 0 {
            return None;
        }
        start = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
    }
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
    (start < end).then_some(start..end)
}

/// The lines of the entry holding byte `at`: from the nearest line at or
/// before it indented by at most two spaces (a section, or an entry of
/// one: a code, a type, a category) to the next such line.
fn entry_around(text: &str, at: usize) -> Option<Range<usize>> {
    let at = at.min(text.len());
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |pos, l| {
            let start = *pos;
            *pos += l.len();
            Some((start, l))
        })
        .collect();
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let is_entry = |l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#')
    };
    let here = lines
        .iter()
        .rposition(|&(start, _)| start <= at)
        .unwrap_or(0);
    let first = (0..=here.min(lines.len().checked_sub(1)?))
        .rev()
        .find(|&i| is_entry(lines[i].1) && indent(lines[i].1) <= 2)
        .unwrap_or(here);
    let end = (first + 1..lines.len())
        .find(|&i| is_entry(lines[i].1) && indent(lines[i].1) <= indent(lines[first].1))
        .unwrap_or(lines.len());
    // A top-level section is kept whole only when the error is on its own
    // line; otherwise only that line goes.
    let end = if indent(lines[first].1) == 0 && first != here {
        here + 1
    } else {
        end
    };
    let first = if indent(lines[first].1) == 0 && first != here {
        here
    } else {
        first
    };
    let from = lines[first].0;
    let to = lines.get(end).map_or(text.len(), |&(s, _)| s);
    (from < to).then_some(from..to)
}

/// Replaces every character of `range` but newlines by spaces, keeping
/// byte offsets.
fn blank(text: &mut String, range: Range<usize>) {
    let replaced: String = text[range.clone()]
        .chars()
        .map(|c| match c {
            '\n' => "\n".to_owned(),
            c => " ".repeat(c.len_utf8()),
        })
        .collect();
    text.replace_range(range, &replaced);
}

/// Declares the key of a skipped entry, if it is an entry of a section
/// whose keys are names (a code, a type, ...).
fn declare_skipped(text: &str, range: Range<usize>, index: &mut Index) {
    let Some(line) = text.get(range.clone()).and_then(|t| t.lines().next()) else {
        return;
    };
    let body = line.trim_start();
    if line.len() - body.len() != 2 {
        return;
    }
    let Some(key) = body.split(':').next().map(str::trim) else {
        return;
    };
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return;
    }
    // The section is the last top-level key before the entry.
    let section = index
        .sections
        .iter()
        .rev()
        .find(|(_, loc, _)| loc.start < range.start)
        .map(|(name, _, _)| name.as_str());
    let kind = match section {
        Some("codes") => Kind::Code,
        Some("types") => Kind::Type,
        Some("fields") => Kind::Field,
        Some("categories") => Kind::Category,
        Some("attributes") => Kind::Attribute,
        _ => return,
    };
    if index.definition(kind, key, "").is_some() {
        return;
    }
    let start = range.start + 2;
    let end_of_entry = range.end;
    index.definitions.push(Definition {
        name: Name {
            kind,
            name: key.to_owned(),
            scope: String::new(),
            start,
            end: start + key.len(),
        },
        entry: crate::yaml::loc_of_range(text, start, end_of_entry),
        value: At::nowhere(),
    });
    index.reindex();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_does_not_hide_the_other_entries() {
        let text = "categories:\n  domain:\n    description: d\ncodes:\n  A:\n    title: [unclosed\n    number: 1\n  B:\n    title: fine\n  C:\n    title: fine\n";
        let a = Analysis::run(text, 1, "errors.yaml");
        assert!(
            a.diagnostics[0].message.starts_with("invalid YAML"),
            "{:?}",
            a.diagnostics
        );
        let codes: Vec<&str> = a
            .index
            .names_of(Kind::Code)
            .map(|d| d.name.name.as_str())
            .collect();
        assert_eq!(codes, ["A", "B", "C"]);
        assert!(a.index.definition(Kind::Category, "domain", "").is_some());
    }
}
