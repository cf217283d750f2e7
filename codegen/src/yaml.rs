//! A YAML tree in which every node knows where it was written.
//!
//! serde-based YAML loaders stop at the first error and silently keep the
//! last of two duplicate keys; we need every problem at once, each with a
//! line and column. So this module builds its own small tree from the events
//! of `saphyr-parser`: scalars keep their text and quoting style (a quoted
//! `"2000"` is a string, a plain `2000` an integer), mappings keep every
//! entry in order *including duplicates* (the loader reports them with both
//! locations), and each node carries a [`Loc`].
//!
//! Anchors and aliases are supported, so that a list repeated by many codes
//! (the same `params:` or `context:`) is written once: `context: &ctx {...}`
//! on the first code, `context: *ctx` on the others. An alias stands for a
//! copy of its anchored node, which keeps the locations of the anchored text:
//! a problem in it is reported where it was written. Aliases may expand to
//! at most [`MAX_ALIAS_NODES`] nodes and [`MAX_ALIAS_BYTES`] bytes of text
//! in all (no "billion laughs", and no long string repeated until memory
//! runs out). Merge keys
//! (`<<: *base`) are not: they are a YAML 1.1 loader feature, not syntax.
//! Tags and multiple documents are rejected with a diagnostic: they would
//! only make the file harder to read and to point into.

use saphyr_parser::{Event, Marker, Parser, ScalarStyle};

use crate::diagnostic::Diagnostic;
use crate::span::Loc;
use crate::text::{Refusal, TextKind};

/// Deeper nesting than this is rejected. The spec needs five levels; the cap
/// keeps adversarial input from exhausting the stack when trees are dropped
/// or walked recursively.
pub const MAX_DEPTH: usize = 64;

/// How many nodes all aliases of a file may expand to together: far more
/// than a spec of a thousand codes needs, far less than an exponential
/// chain of aliases of aliases would build.
pub const MAX_ALIAS_NODES: usize = 1_000_000;

/// How many bytes of text (scalars and keys) all aliases of a file may
/// expand to together: a spec of 40,000 codes that alias one `context:`
/// each expands to about 4 MB.
pub const MAX_ALIAS_BYTES: usize = 32 * 1024 * 1024;

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Unquoted: subject to typing (`true`, `12`, `~`).
    Plain,
    /// `'...'` or `"..."`: always a string.
    Quoted,
    /// `|` or `>` block: always a string.
    Block,
}

/// A node of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// What the node is.
    pub kind: NodeKind,
    /// Where it was written. For collections, from the first to the end of
    /// the last child.
    pub loc: Loc,
}

/// The three shapes of YAML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind {
    /// A scalar, with its (unescaped) text and style.
    Scalar(String, Style),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, entries in file order, duplicates kept.
    Map(Vec<(Node, Node)>),
}

/// What a plain scalar means under the YAML 1.2 core schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarType {
    /// `~`, `null`, or nothing at all.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A decimal integer.
    Int(i128),
    /// A float (`1.5`, `.inf`).
    Float,
    /// Anything else, and every quoted or block scalar.
    Str,
}

impl Node {
    /// A short description of the node's type for messages
    /// ("a string", "a list", "nothing").
    pub fn describe(&self) -> &'static str {
        match &self.kind {
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a mapping",
            NodeKind::Scalar(..) => match self.scalar_type() {
                Some(ScalarType::Null) => "nothing",
                Some(ScalarType::Bool(_)) => "a boolean",
                Some(ScalarType::Int(_)) => "an integer",
                Some(ScalarType::Float) => "a number",
                _ => "a string",
            },
        }
    }

    /// The scalar's text, whatever its type.
    pub fn as_scalar(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(s, _) => Some(s),
            _ => None,
        }
    }

    /// The type of a scalar under the core schema; `None` for collections.
    pub fn scalar_type(&self) -> Option<ScalarType> {
        let NodeKind::Scalar(s, style) = &self.kind else {
            return None;
        };
        if *style != Style::Plain {
            return Some(ScalarType::Str);
        }
        Some(match s.as_str() {
            "" | "~" | "null" | "Null" | "NULL" => ScalarType::Null,
            "true" | "True" | "TRUE" => ScalarType::Bool(true),
            "false" | "False" | "FALSE" => ScalarType::Bool(false),
            ".inf" | ".Inf" | ".INF" | "-.inf" | "+.inf" | ".nan" | ".NaN" | ".NAN" => {
                ScalarType::Float
            }
            t => {
                let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
                if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    match t.parse::<i128>() {
                        Ok(n) => ScalarType::Int(n),
                        Err(_) => ScalarType::Float,
                    }
                } else if t.parse::<f64>().is_ok() && t.bytes().any(|b| b.is_ascii_digit()) {
                    ScalarType::Float
                } else {
                    ScalarType::Str
                }
            }
        })
    }
}

/// The result of [`parse`].
#[derive(Debug)]
pub struct Parsed {
    /// The document's root; `None` for a file with no document at all.
    pub root: Option<Node>,
    /// Every problem found.
    pub diagnostics: Vec<Diagnostic>,
    /// False when a syntax error (or a second document, or excessive
    /// nesting) stopped the parser: `root` is then only the part before the
    /// error, and checking it would report keys as missing that are merely
    /// unparsed.
    pub complete: bool,
}

/// The byte offset of the first tab in the indentation of a line, if any.
fn leading_tab(source: &str) -> Option<usize> {
    let mut line_start = 0;
    for line in source.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some(tab) = line[..indent].find('\t') {
            return Some(line_start + tab);
        }
        line_start += line.len();
    }
    None
}

/// Parses `source` into its single document.
///
/// Anchors, aliases and tags are reported but do not stop parsing; a syntax
/// error does (see [`Parsed::complete`]).
pub fn parse(source: &str) -> Parsed {
    let mut builder = Builder {
        offsets: Offsets::new(source),
        anchors: std::collections::HashMap::new(),
        expanded: 0,
        expanded_bytes: 0,
        stack: Vec::new(),
        root: None,
        diags: Vec::new(),
        documents: 0,
        complete: true,
    };
    // The parser is third-party code; a panic inside it must not take the
    // caller (a proc macro, the CLI) down with it.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| builder.run(source)));
    if result.is_err() {
        builder.diags.push(
            Diagnostic::new(
                builder.offsets.loc_at_byte(0),
                "the YAML parser failed on this file",
            )
            .with_help("this is a bug in the YAML parser; simplify the file and report it"),
        );
        builder.complete = false;
    }
    Parsed {
        root: builder.root,
        diagnostics: builder.diags,
        complete: builder.complete,
    }
}

enum Frame {
    Seq {
        start: Loc,
        items: Vec<Node>,
        anchor: usize,
    },
    Map {
        start: Loc,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        anchor: usize,
    },
}

struct Builder {
    offsets: Offsets,
    /// Completed anchored nodes by the parser's anchor id, with their size.
    anchors: std::collections::HashMap<usize, (Node, Size)>,
    /// Nodes added by aliases so far.
    expanded: usize,
    /// Bytes of text added by aliases so far.
    expanded_bytes: usize,
    stack: Vec<Frame>,
    root: Option<Node>,
    diags: Vec<Diagnostic>,
    documents: usize,
    complete: bool,
}

impl Builder {
    fn run(&mut self, source: &str) {
        let mut parser = Parser::new_from_str(source);
        while let Some(next) = parser.next_event() {
            let (event, span) = match next {
                Ok(ev) => ev,
                Err(e) if e.info().contains("tab") && leading_tab(source).is_some() => {
                    // The scanner meets the tab after the end of the line
                    // before it, and reports that position: point at the tab.
                    let at = leading_tab(source).unwrap_or_default();
                    let loc = loc_of_range(source, at, at + 1);
                    self.diags.push(
                        Diagnostic::new(loc, "invalid YAML: a tab in the indentation")
                            .with_label("tab")
                            .with_help(
                                "YAML indents with spaces only: replace this tab with spaces",
                            ),
                    );
                    self.complete = false;
                    self.close_all();
                    return;
                }
                Err(e) => {
                    let loc = self.offsets.loc(*e.marker(), *e.marker());
                    let mut d = Diagnostic::new(loc, format!("invalid YAML: {}", e.info()))
                        .with_label("the YAML parser stopped here")
                        .with_help("fix the YAML syntax first; the spec is checked once it parses");
                    // The usual cause of a confusing parser message: a flow
                    // collection left open on an earlier line.
                    if let Some((open, close)) = self.unclosed_flow(source)
                        && open.line < loc.line
                    {
                        let bracket = close_of(close);
                        d = d
                            .with_related(open, format!("this `{bracket}` is still open"))
                            .with_help(format!(
                                "check that the `{bracket}` opened on line {} is closed with `{close}`",
                                open.line
                            ));
                    }
                    self.diags.push(d);
                    self.complete = false;
                    self.close_all();
                    return;
                }
            };
            let loc = self.offsets.loc(span.start, span.end);
            if !self.event(event, loc, source) {
                self.complete = false;
                self.close_all();
                return;
            }
        }
    }

    /// The innermost open flow collection (`[` or `{`), with the bracket
    /// that would close it.
    fn unclosed_flow(&self, source: &str) -> Option<(Loc, char)> {
        self.stack.iter().rev().find_map(|frame| {
            let start = match frame {
                Frame::Seq { start, .. } | Frame::Map { start, .. } => *start,
            };
            match source.as_bytes().get(start.start) {
                Some(b'[') => Some((
                    Loc {
                        end: start.start + 1,
                        ..start
                    },
                    ']',
                )),
                Some(b'{') => Some((
                    Loc {
                        end: start.start + 1,
                        ..start
                    },
                    '}',
                )),
                _ => None,
            }
        })
    }

    /// Handles one event; `false` stops parsing.
    fn event(&mut self, event: Event<'_>, loc: Loc, source: &str) -> bool {
        match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => true,
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    self.diags.push(
                        Diagnostic::new(loc, "the spec must be a single YAML document")
                            .with_label("a second document starts here")
                            .with_help("remove the `---` separator and merge the documents"),
                    );
                    return false;
                }
                true
            }
            Event::Alias(id) => {
                let Some((node, size)) = self.anchors.get(&id) else {
                    // The parser knows the anchor, so it is still open: the
                    // alias is inside the node it names.
                    let name = source.get(loc.start..loc.end).unwrap_or("*");
                    self.diags.push(
                        Diagnostic::new(
                            loc,
                            format!("the alias `{name}` is inside the node its anchor names"),
                        )
                        .with_label("alias")
                        .with_help(
                            "a node cannot contain itself; alias a node that ends before this line",
                        ),
                    );
                    // Stop like a syntax error: whatever the alias stood
                    // for, its entry would only report consequences.
                    return false;
                };
                self.expanded = self.expanded.saturating_add(size.nodes);
                self.expanded_bytes = self.expanded_bytes.saturating_add(size.bytes);
                if self.expanded_bytes > MAX_ALIAS_BYTES {
                    self.diags.push(
                        Diagnostic::new(
                            loc,
                            format!(
                                "the aliases expand to more than {MAX_ALIAS_BYTES} bytes of text"
                            ),
                        )
                        .with_label("the limit is passed here")
                        .with_help(
                            "a long text repeated by aliases is copied each time; write it once",
                        ),
                    );
                    return false;
                }
                if self.expanded > MAX_ALIAS_NODES {
                    self.diags.push(
                        Diagnostic::new(
                            loc,
                            format!("the aliases expand to more than {MAX_ALIAS_NODES} YAML nodes"),
                        )
                        .with_label("the limit is passed here")
                        .with_help("aliases of aliases multiply; write the repeated part once and alias it directly"),
                    );
                    return false;
                }
                if self.stack.len() + size.depth > MAX_DEPTH {
                    self.diags.push(
                        Diagnostic::new(
                            loc,
                            format!("the YAML is nested more than {MAX_DEPTH} levels deep"),
                        )
                        .with_label("with what this alias stands for")
                        .with_help("the spec format needs at most five levels of nesting"),
                    );
                    return false;
                }
                let node = node.clone();
                self.finish(node);
                true
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.check_decorations(loc, tag.is_some());
                if let Some(r) = crate::text::refused(&text, TextKind::Markdown) {
                    self.diags.push(refused_character(source, loc, r));
                }
                let style = match style {
                    ScalarStyle::Plain => Style::Plain,
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => Style::Quoted,
                    ScalarStyle::Literal | ScalarStyle::Folded => Style::Block,
                };
                let node = Node {
                    kind: NodeKind::Scalar(text.into_owned(), style),
                    loc,
                };
                self.remember(anchor, &node);
                self.finish(node);
                true
            }
            Event::SequenceStart(anchor, tag) => {
                self.check_decorations(loc, tag.is_some());
                self.open(Frame::Seq {
                    start: loc,
                    items: Vec::new(),
                    anchor,
                })
            }
            Event::MappingStart(anchor, tag) => {
                self.check_decorations(loc, tag.is_some());
                self.open(Frame::Map {
                    start: loc,
                    entries: Vec::new(),
                    key: None,
                    anchor,
                })
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(frame) = self.stack.pop() {
                    let anchor = match &frame {
                        Frame::Seq { anchor, .. } | Frame::Map { anchor, .. } => *anchor,
                    };
                    let mut node = close(frame);
                    // A flow collection's closing `]`/`}` has a real span;
                    // the end of a block collection is an empty marker that
                    // may lie after trailing comments, so it is ignored.
                    if loc.end > loc.start && loc.end > node.loc.end {
                        node.loc.end = loc.end;
                    }
                    self.remember(anchor, &node);
                    self.finish(node);
                }
                true
            }
        }
    }

    fn open(&mut self, frame: Frame) -> bool {
        if self.stack.len() >= MAX_DEPTH {
            let loc = match &frame {
                Frame::Seq { start, .. } | Frame::Map { start, .. } => *start,
            };
            self.diags.push(
                Diagnostic::new(
                    loc,
                    format!("the YAML is nested more than {MAX_DEPTH} levels deep"),
                )
                .with_help("the spec format needs at most five levels of nesting"),
            );
            return false;
        }
        self.stack.push(frame);
        true
    }

    /// Keeps a copy of a completed node that has an anchor (`anchor != 0`)
    /// for the aliases that name it.
    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            self.anchors.insert(anchor, (node.clone(), measure(node)));
        }
    }

    fn check_decorations(&mut self, loc: Loc, tagged: bool) {
        if tagged {
            self.diags.push(
                Diagnostic::new(loc, "YAML tags are not supported in the spec")
                    .with_label("tagged node")
                    .with_help("remove the `!tag`; values are typed by the key they belong to"),
            );
        }
    }

    /// Attaches a completed node to its parent (or makes it the root).
    fn finish(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
        }
    }

    /// After an error: closes every open collection so the partial tree is
    /// still well-formed.
    fn close_all(&mut self) {
        while let Some(frame) = self.stack.pop() {
            let node = close(frame);
            self.finish(node);
        }
    }
}

/// A scalar holding a character no generated file can hold as written
/// ([`crate::text`]), pointed at where it is written when it is written as
/// itself, else (an escape such as `"\r"`) at the whole scalar.
fn refused_character(source: &str, scalar: Loc, r: Refusal) -> Diagnostic {
    let written = source
        .get(scalar.start..scalar.end)
        .and_then(|text| text.find(r.ch))
        .map(|at| {
            let start = scalar.start + at;
            let before = &source[scalar.start..start];
            match before.rfind('\n') {
                // Same line as the scalar's start: count columns from it.
                None => Loc {
                    line: scalar.line,
                    col: scalar.col + before.chars().count(),
                    start,
                    end: start + r.ch.len_utf8(),
                },
                Some(nl) => Loc {
                    line: scalar.line + before.matches('\n').count(),
                    col: before[nl + 1..].chars().count() + 1,
                    start,
                    end: start + r.ch.len_utf8(),
                },
            }
        });
    Diagnostic::new(
        written.unwrap_or(scalar),
        format!(
            "the text holds {}, which no generated file can hold",
            r.describe()
        ),
    )
    .with_label(if written.is_some() {
        "this character"
    } else {
        "in this text"
    })
    .with_help(r.why())
}

/// What an anchored node adds to the tree each time an alias names it.
#[derive(Debug, Clone, Copy)]
struct Size {
    /// Nodes, keys included.
    nodes: usize,
    /// Depth: a scalar is 0.
    depth: usize,
    /// Bytes of the scalars' and keys' text.
    bytes: usize,
}

/// The size of a tree (bounded by [`MAX_DEPTH`], so the recursion is too).
fn measure(node: &Node) -> Size {
    let children: Vec<&Node> = match &node.kind {
        NodeKind::Scalar(text, _) => {
            return Size {
                nodes: 1,
                depth: 0,
                bytes: text.len(),
            };
        }
        NodeKind::Seq(items) => items.iter().collect(),
        NodeKind::Map(entries) => entries.iter().flat_map(|(k, v)| [k, v]).collect(),
    };
    children.into_iter().map(measure).fold(
        Size {
            nodes: 1,
            depth: 1,
            bytes: 0,
        },
        |total, child| Size {
            nodes: total.nodes.saturating_add(child.nodes),
            depth: total.depth.max(child.depth + 1),
            bytes: total.bytes.saturating_add(child.bytes),
        },
    )
}

fn close(frame: Frame) -> Node {
    match frame {
        Frame::Seq { start, items, .. } => {
            let loc = extend(start, items.last().map(|n| n.loc));
            Node {
                kind: NodeKind::Seq(items),
                loc,
            }
        }
        Frame::Map {
            start,
            mut entries,
            key,
            ..
        } => {
            // A key without a value (only possible after a syntax error).
            if let Some(k) = key {
                let loc = k.loc;
                entries.push((
                    k,
                    Node {
                        kind: NodeKind::Scalar(String::new(), Style::Plain),
                        loc,
                    },
                ));
            }
            let loc = extend(start, entries.last().map(|(_, v)| v.loc));
            Node {
                kind: NodeKind::Map(entries),
                loc,
            }
        }
    }
}

fn extend(start: Loc, last: Option<Loc>) -> Loc {
    match last {
        Some(last) if last.end > start.end => Loc {
            end: last.end,
            ..start
        },
        _ => start,
    }
}

/// The opening bracket of a closing one.
fn close_of(close: char) -> char {
    if close == ']' { '[' } else { '{' }
}

/// Converts the parser's character indices into byte offsets.
struct Offsets {
    /// Byte offset of each character, plus the source length at the end;
    /// `None` for ASCII text, where the two are the same.
    bytes: Option<Vec<usize>>,
    /// Length of the source in bytes.
    len: usize,
}

impl Offsets {
    fn new(source: &str) -> Self {
        let bytes = (!source.is_ascii()).then(|| {
            let mut bytes: Vec<usize> = source.char_indices().map(|(i, _)| i).collect();
            bytes.push(source.len());
            bytes
        });
        Offsets {
            bytes,
            len: source.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.bytes {
            None => char_index.min(self.len),
            Some(bytes) => bytes.get(char_index).copied().unwrap_or(self.len),
        }
    }

    fn loc(&self, start: Marker, end: Marker) -> Loc {
        let s = self.byte(start.index());
        let e = self.byte(end.index()).max(s);
        Loc {
            line: start.line().max(1),
            col: start.col() + 1,
            start: s,
            end: e,
        }
    }

    fn loc_at_byte(&self, byte: usize) -> Loc {
        Loc {
            line: 1,
            col: 1,
            start: byte.min(self.len),
            end: byte.min(self.len),
        }
    }
}

/// The location of the byte range `start..end` of `source`, for one
/// diagnostic computed from text rather than from the tree (invalid UTF-8,
/// a tab): a scan of the text. For many, build a [`LineIndex`] once.
pub fn loc_of_range(source: &str, start: usize, end: usize) -> Loc {
    LineIndex::new(source).loc(start, end)
}

/// Where each line of a text starts, built once, so that locating any
/// number of diagnostics costs a binary search each rather than a scan of
/// the text each (a spec with one problem in each of its 40,000 codes).
#[derive(Debug)]
pub struct LineIndex<'s> {
    source: &'s str,
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
    /// Whether each line is ASCII (its columns are byte differences).
    ascii: Vec<bool>,
}

impl<'s> LineIndex<'s> {
    /// The index of `source`.
    pub fn new(source: &'s str) -> Self {
        let mut starts = vec![0];
        let mut ascii = Vec::new();
        let mut line_ascii = true;
        for (i, b) in source.bytes().enumerate() {
            line_ascii &= b.is_ascii();
            if b == b'\n' {
                starts.push(i + 1);
                ascii.push(line_ascii);
                line_ascii = true;
            }
        }
        ascii.push(line_ascii);
        LineIndex {
            source,
            starts,
            ascii,
        }
    }

    /// The location of the byte range `start..end` (clamped to the text
    /// and to character boundaries).
    pub fn loc(&self, start: usize, end: usize) -> Loc {
        let source = self.source;
        let mut start = start.min(source.len());
        while !source.is_char_boundary(start) {
            start -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= start);
        let line_start = self.starts[line - 1];
        let col = if self.ascii[line - 1] {
            start - line_start
        } else {
            source[line_start..start].chars().count()
        } + 1;
        Loc {
            line,
            col,
            start,
            end: end.clamp(start, source.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(src: &str) -> Node {
        let p = parse(src);
        assert!(
            p.diagnostics.is_empty() && p.complete,
            "{:?}",
            p.diagnostics
        );
        p.root.expect("a document")
    }

    fn diags(src: &str) -> Vec<Diagnostic> {
        parse(src).diagnostics
    }

    #[test]
    fn keeps_duplicates_and_locations() {
        let src = "a: 1\nb: \"x\"\na: 2\n";
        let NodeKind::Map(entries) = root(src).kind else {
            panic!()
        };
        let keys: Vec<_> = entries
            .iter()
            .map(|(k, _)| k.as_scalar().unwrap())
            .collect();
        assert_eq!(keys, ["a", "b", "a"]);
        let third = &entries[2].0;
        assert_eq!((third.loc.line, third.loc.col), (3, 1));
        assert_eq!(&src[third.loc.start..third.loc.end], "a");
        assert_eq!(entries[1].1.scalar_type(), Some(ScalarType::Str));
        assert_eq!(entries[0].1.scalar_type(), Some(ScalarType::Int(1)));
    }

    #[test]
    fn plain_scalars_are_typed_quoted_ones_are_strings() {
        let NodeKind::Map(entries) = root(
            "a: 12\nb: '12'\nc: true\nd: ~\ne:\nf: 1.0\ng: 1.0.0\nh: -3\ni: .inf\nj: |\n  12\n",
        )
        .kind
        else {
            panic!()
        };
        let types: Vec<_> = entries
            .iter()
            .map(|(_, v)| v.scalar_type().unwrap())
            .collect();
        assert_eq!(
            types,
            [
                ScalarType::Int(12),
                ScalarType::Str,
                ScalarType::Bool(true),
                ScalarType::Null,
                ScalarType::Null,
                ScalarType::Float,
                ScalarType::Str,
                ScalarType::Int(-3),
                ScalarType::Float,
                ScalarType::Str,
            ]
        );
        assert_eq!(entries[0].1.describe(), "an integer");
        assert_eq!(entries[4].1.describe(), "nothing");
    }

    #[test]
    fn byte_offsets_survive_multibyte_text() {
        let src = "é: ü\nk: v\n";
        let NodeKind::Map(entries) = root(src).kind else {
            panic!()
        };
        let k = &entries[1].0;
        assert_eq!(&src[k.loc.start..k.loc.end], "k");
        assert_eq!((k.loc.line, k.loc.col), (2, 1));
    }

    #[test]
    fn an_alias_is_a_copy_of_its_anchored_node_with_its_locations() {
        let src = "a: &x [1, {k: v}]\nb: *x\nc: &s text\nd: *s\n";
        let NodeKind::Map(entries) = root(src).kind else {
            panic!()
        };
        assert_eq!(entries[0].1, entries[1].1);
        assert_eq!(entries[2].1, entries[3].1);
        // The copy points at the anchored text (with its anchor), where a
        // problem is fixed.
        let copy = &entries[1].1;
        assert_eq!(&src[copy.loc.start..copy.loc.end], "&x [1, {k: v}]");
    }

    #[test]
    fn an_alias_inside_its_own_anchor_is_refused() {
        let d = diags("a: &x\n  b: *x\n");
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("`*x` is inside the node"), "{d:?}");
    }

    #[test]
    fn alias_expansion_is_bounded() {
        // Each level doubles: 2^30 nodes if expanded.
        let mut src = String::from("l0: &l0 [x, x]\n");
        for i in 1..30 {
            src.push_str(&format!("l{i}: &l{i} [*l{}, *l{}]\n", i - 1, i - 1));
        }
        let p = parse(&src);
        assert!(!p.complete);
        assert!(
            p.diagnostics
                .iter()
                .any(|d| d.message.contains("expand to more than")),
            "{:?}",
            p.diagnostics
        );
    }

    #[test]
    fn alias_expansion_is_bounded_in_bytes() {
        // One 1 MB string aliased 100,000 times: 100 GB if expanded.
        let mut src = format!("a: &s {}\nb:\n", "x".repeat(1 << 20));
        for _ in 0..100_000 {
            src.push_str("  - *s\n");
        }
        let p = parse(&src);
        assert!(!p.complete);
        let d = p
            .diagnostics
            .iter()
            .find(|d| d.message.contains("bytes of text"))
            .unwrap_or_else(|| panic!("{:?}", p.diagnostics));
        // Refused at the first alias past the limit: the 33rd.
        assert_eq!(d.loc.line, 2 + 33, "{d:?}");
    }

    #[test]
    fn aliases_cannot_nest_past_the_depth_limit() {
        let deep = |name: &str, inner: &str| {
            format!(
                "{name}: &{name} {}{inner}{}\n",
                "[".repeat(40),
                "]".repeat(40)
            )
        };
        let src = format!("{}{}", deep("a", "x"), deep("b", "*a"));
        let p = parse(&src);
        assert!(
            p.diagnostics
                .iter()
                .any(|d| d.message.contains("nested more than 64")),
            "{:?}",
            p.diagnostics
        );
    }

    #[test]
    fn rejects_tags_and_second_documents() {
        let d = diags("a: !!str 1\n");
        assert!(d[0].message.contains("tags"), "{d:?}");
        let d = diags("a: 1\n---\nb: 2\n");
        assert!(d[0].message.contains("single YAML document"), "{d:?}");
    }

    #[test]
    fn syntax_error_points_at_its_marker() {
        let p = parse("a: [1, 2\nb: 3\n");
        assert!(!p.complete);
        let d = p.diagnostics;
        assert_eq!(d.len(), 1);
        assert!(d[0].message.starts_with("invalid YAML"), "{d:?}");
        assert!(d[0].loc.line >= 1);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let d = diags(&"[".repeat(100));
        assert!(
            d.iter().any(|d| d.message.contains("nested more than 64")),
            "{d:?}"
        );
        // The parser's own limit may fire first on very deep input.
        assert!(!diags(&"[".repeat(100_000)).is_empty());
    }

    #[test]
    fn line_index_agrees_with_a_scan() {
        let src = "ab\né: x\n\nlast";
        let index = LineIndex::new(src);
        for start in 0..=src.len() + 2 {
            let mut s = start.min(src.len());
            while !src.is_char_boundary(s) {
                s -= 1;
            }
            let before = &src[..s];
            let line = before.matches('\n').count() + 1;
            let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
                .chars()
                .count()
                + 1;
            let loc = index.loc(start, start + 1);
            assert_eq!((loc.line, loc.col, loc.start), (line, col, s), "at {start}");
        }
    }

    #[test]
    fn empty_file_has_no_root() {
        for src in ["", "# only a comment\n"] {
            let p = parse(src);
            assert!(p.root.is_none() && p.diagnostics.is_empty() && p.complete);
        }
    }
}
