//! The answers to requests, as pure functions of a document and its
//! [`Analysis`]: hover, completion, definition, references, rename,
//! document symbols, quick fixes, and the conversion of the compiler's
//! diagnostics. Nothing here does I/O or knows about threads, so each is
//! measured alone (`codegen/benches/lsp.rs`) and fuzzed through the server.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CompletionItem, CompletionItemKind,
    CompletionTextEdit, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol,
    Documentation, Hover, HoverContents, Location, MarkupContent, MarkupKind, Position,
    PrepareRenameResponse, Range, SymbolKind, TextEdit, Uri, WorkspaceEdit,
};

use crate::case::Case;
use crate::grammar::{self, Kind, MapKeys, Value};
use crate::yaml::{Node, NodeKind, ScalarType};

use super::analysis::Analysis;
use super::cursor::{self, Slot};
use super::index::{Definition, Name};
use super::text::Document;

/// The LSP diagnostics of an analysis: every problem `check` reports, at
/// its range, with its help and the places that explain it.
pub fn diagnostics(doc: &Document, analysis: &Analysis, uri: &Uri) -> Vec<lsp_types::Diagnostic> {
    analysis
        .diagnostics
        .iter()
        .map(|d| {
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            let related: Vec<DiagnosticRelatedInformation> = d
                .related
                .iter()
                .filter(|(loc, _)| loc.line != 0)
                .map(|(loc, label)| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), doc.range(*loc)),
                    message: label.clone(),
                })
                .collect();
            lsp_types::Diagnostic {
                range: doc.range(d.loc),
                severity: Some(if d.is_warning() {
                    DiagnosticSeverity::WARNING
                } else {
                    DiagnosticSeverity::ERROR
                }),
                source: Some("splice-codegen".into()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                ..Default::default()
            }
        })
        .collect()
}

fn map_get<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
    match &node.kind {
        NodeKind::Map(entries) => entries
            .iter()
            .find(|(k, _)| k.as_scalar() == Some(key))
            .map(|(_, v)| v),
        _ => None,
    }
}

fn scalar<'n>(node: &'n Node, key: &str) -> Option<&'n str> {
    map_get(node, key).and_then(Node::as_scalar)
}

fn list_of(node: Option<&Node>) -> Vec<&str> {
    match node.map(|n| &n.kind) {
        Some(NodeKind::Seq(items)) => items.iter().filter_map(Node::as_scalar).collect(),
        Some(NodeKind::Scalar(s, _)) if !s.is_empty() => vec![s.as_str()],
        _ => Vec::new(),
    }
}

fn boolean(node: &Node, key: &str) -> Option<bool> {
    match map_get(node, key)?.scalar_type()? {
        ScalarType::Bool(b) => Some(b),
        _ => None,
    }
}

/// The raw text of a node, one line.
fn raw<'t>(text: &'t str, node: &Node) -> &'t str {
    let (s, e) = super::text::first_line_span(text, node.loc.start, node.loc.end);
    &text[s..e]
}

fn markdown(value: String) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: None,
    }
}

/// Hover: what the name under the cursor is (a code with its number,
/// category, retry meaning, cause, title, message and hints; a category; a
/// type with its members; a field; ...), or what the key or value under the
/// cursor means in the format.
pub fn hover(doc: &Document, analysis: &Analysis, position: Position) -> Option<Hover> {
    let offset = doc.offset(position);
    let index = &analysis.index;
    if let Some(name) = index.at(offset) {
        let text = describe(doc, analysis, &name)?;
        let mut h = markdown(text);
        h.range = Some(doc.exact_range(name.start, name.end));
        return Some(h);
    }
    let root = analysis.index.root()?;
    let (path, on_key, node) = tree_path(root, offset)?;
    let steps: Vec<grammar::Step<'_>> = path.iter().map(to_step).collect();
    if on_key {
        let (last, parent) = steps.split_last()?;
        let grammar::Step::Key(k) = last else {
            return None;
        };
        let key = grammar::at(parent)?.object()?.key(k)?;
        let mut h = markdown(format!(
            "`{}`{}: {}",
            key.name,
            if key.required { " (required)" } else { "" },
            key.doc
        ));
        h.range = Some(doc.exact_range(node.loc.start, node.loc.end));
        return Some(h);
    }
    let value = grammar::at(&steps)?;
    let word = node.as_scalar()?;
    let choice = choices(value).into_iter().find(|c| c.name == word)?;
    let mut h = markdown(format!("`{}`: {}", choice.name, choice.doc));
    h.range = Some(doc.exact_range(node.loc.start, node.loc.end));
    Some(h)
}

fn to_step(s: &PathStep) -> grammar::Step<'_> {
    match s {
        PathStep::Key(k) => grammar::Step::Key(k),
        PathStep::Item => grammar::Step::Item,
    }
}

/// One step of a path in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStep {
    /// The value of a key.
    Key(String),
    /// An item of a list.
    Item,
}

/// The path to the innermost node at `offset`, whether it is a key, and
/// that node.
pub fn tree_path(root: &Node, offset: usize) -> Option<(Vec<PathStep>, bool, &Node)> {
    let mut path = Vec::new();
    let mut node = root;
    loop {
        let next = match &node.kind {
            NodeKind::Map(entries) => entries.iter().find_map(|(k, v)| {
                let key = k.as_scalar()?;
                if k.loc.start <= offset && offset <= k.loc.end {
                    Some((PathStep::Key(key.to_owned()), k, true))
                } else if v.loc.start <= offset && offset <= v.loc.end && v.loc.end > v.loc.start {
                    Some((PathStep::Key(key.to_owned()), v, false))
                } else {
                    None
                }
            }),
            NodeKind::Seq(items) => items
                .iter()
                .find(|v| v.loc.start <= offset && offset <= v.loc.end)
                .map(|v| (PathStep::Item, v, false)),
            NodeKind::Scalar(..) => return Some((path, false, node)),
        };
        let (step, child, is_key) = next?;
        path.push(step);
        if is_key {
            return Some((path, true, child));
        }
        node = child;
    }
}

fn choices(value: &'static Value) -> Vec<&'static grammar::Choice> {
    match value {
        Value::Enum(c) => c.iter().collect(),
        Value::Either(alts) => alts.iter().flat_map(choices).collect(),
        Value::List(item) => choices(item),
        _ => Vec::new(),
    }
}

/// The Markdown description of a declared name.
pub fn describe(doc: &Document, analysis: &Analysis, name: &Name) -> Option<String> {
    let index = &analysis.index;
    let text = &doc.text;
    let def = index.definition(name.kind, &name.name, &name.scope);
    let mut out = String::new();
    let Some(def) = def else {
        return Some(format!(
            "unknown {} `{}`: nothing in this file declares it",
            name.kind.describe(),
            name.name
        ));
    };
    let v = index.value(def);
    match name.kind {
        Kind::Code => describe_code(analysis, text, def, &mut out),
        Kind::Category => {
            out.push_str(&format!("**category `{}`**", name.name));
            if let Some(r) = map_get(v, "range") {
                out.push_str(&format!(" {}", raw(text, r)));
            }
            out.push_str("\n\n");
            if let Some(d) = scalar(v, "description") {
                out.push_str(&format!("{d}\n\n"));
            }
            let retryable = boolean(v, "retryable");
            out.push_str(&format!(
                "default retryable: {} · default cause: {}\n\n",
                retryable.map_or("?".into(), |r| retry_words(analysis, r)),
                scalar(v, "cause").unwrap_or("?")
            ));
            let codes = index
                .names_of(Kind::Code)
                .filter(|c| scalar(index.value(c), "category") == Some(&name.name))
                .count();
            out.push_str(&format!("{codes} codes"));
        }
        Kind::Type => {
            out.push_str(&format!("**type `{}`**\n\n", name.name));
            if let Some(d) = scalar(v, "doc") {
                out.push_str(&format!("{d}\n\n"));
            }
            if let Some(NodeKind::Map(members)) = map_get(v, "members").map(|m| &m.kind) {
                out.push_str("members:\n");
                for (k, m) in members {
                    let optional = boolean(m, "optional") == Some(true);
                    out.push_str(&format!(
                        "- `{}`{}: `{}` — {}\n",
                        k.as_scalar().unwrap_or("?"),
                        if optional { "?" } else { "" },
                        scalar(m, "type").unwrap_or("?"),
                        scalar(m, "doc").unwrap_or("")
                    ));
                }
            }
            if let Some(NodeKind::Seq(values)) = map_get(v, "enum").map(|m| &m.kind) {
                let names: Vec<String> = values
                    .iter()
                    .filter_map(|n| n.as_scalar().or_else(|| scalar(n, "name")))
                    .map(|s| format!("`{s}`"))
                    .collect();
                out.push_str(&format!("enum: {}\n", names.join(", ")));
            }
            if let Some(u) = map_get(v, "union") {
                out.push_str(&format!(
                    "union on `{}` of: ",
                    scalar(u, "discriminator").unwrap_or("?")
                ));
                if let Some(NodeKind::Map(vs)) = map_get(u, "variants").map(|m| &m.kind) {
                    let names: Vec<String> = vs
                        .iter()
                        .filter_map(|(k, _)| k.as_scalar())
                        .map(|s| format!("`{s}`"))
                        .collect();
                    out.push_str(&names.join(", "));
                }
                out.push('\n');
            }
            if let Some(o) = map_get(v, "one_of") {
                out.push_str(&format!("one of: {}\n", raw(text, o)));
            }
        }
        Kind::Field => {
            out.push_str(&format!(
                "**context field `{}`**: `{}`, in `{}`\n\n",
                name.name,
                scalar(v, "type").unwrap_or("?"),
                scalar(v, "in").unwrap_or("?")
            ));
            if let Some(d) = scalar(v, "doc") {
                out.push_str(&format!("{d}\n\n"));
            }
            if let Some(e) = map_get(v, "example") {
                out.push_str(&format!("example: `{}`\n\n", raw(text, e)));
            }
            let (mut req, mut opt) = (0, 0);
            for r in index.uses(name) {
                match r.role {
                    "context.required" => req += 1,
                    "context.optional" => opt += 1,
                    _ => {}
                }
            }
            out.push_str(&format!("required by {req} codes, optional in {opt}"));
        }
        Kind::Member => {
            let optional = boolean(v, "optional") == Some(true);
            out.push_str(&format!(
                "**member `{}.{}`**{}: `{}`\n\n{}",
                name.scope,
                name.name,
                if optional { " (optional)" } else { "" },
                scalar(v, "type").unwrap_or("?"),
                scalar(v, "doc").unwrap_or("")
            ));
        }
        Kind::Param => out.push_str(&format!(
            "**parameter `{}` of `{}`**: `{}`\n\n{}",
            name.name,
            name.scope,
            scalar(v, "type").unwrap_or("?"),
            scalar(v, "description").unwrap_or("")
        )),
        Kind::RetryClass => out.push_str(&format!(
            "**retry class `{}`**\n\n{}",
            name.name,
            v.as_scalar().unwrap_or("")
        )),
        Kind::Attribute => out.push_str(&format!(
            "**attribute `{}`**: `{}`\n\n{}",
            name.name,
            scalar(v, "type").unwrap_or("?"),
            scalar(v, "doc").unwrap_or("")
        )),
        Kind::Group => {
            out.push_str(&format!("**code group `{}`**\n\n", name.name));
            if let Some(d) = scalar(v, "doc") {
                out.push_str(&format!("{d}\n\n"));
            }
            let ops: Vec<String> = index
                .uses(name)
                .iter()
                .map(|r| format!("`{}`", r.name.scope))
                .collect();
            out.push_str(&format!(
                "raised by operations: {}",
                if ops.is_empty() {
                    "none".to_owned()
                } else {
                    ops.join(", ")
                }
            ));
        }
        Kind::Family => {
            out.push_str(&format!("**family `{}`**", name.name));
            if let Some(p) = scalar(v, "prefix") {
                out.push_str(&format!(": codes `{p}*`"));
            } else if let Some(s) = scalar(v, "suffix") {
                out.push_str(&format!(": codes `*{s}`"));
            }
            if let Some(c) = scalar(v, "category") {
                out.push_str(&format!(", category `{c}`"));
            }
            out.push_str("\n\n");
            if let Some(d) = scalar(v, "doc") {
                out.push_str(d);
            }
        }
        Kind::Operation => {
            out.push_str(&format!("**operation `{}`**", name.name));
            if let Some(w) = scalar(v, "wire") {
                out.push_str(&format!(" (on the wire `{w}`)"));
            }
            out.push_str("\n\n");
            if let Some(d) = scalar(v, "doc") {
                out.push_str(&format!("{d}\n\n"));
            }
            let codes: Vec<String> = index
                .codes_of_operation(&name.name)
                .into_iter()
                .map(|c| format!("`{c}`"))
                .collect();
            out.push_str(&format!(
                "raises {} codes: {}",
                codes.len(),
                codes.join(", ")
            ));
        }
    }
    Some(out)
}

/// What `retryable: b` means in this taxonomy.
fn retry_words(analysis: &Analysis, b: bool) -> String {
    let meaning = analysis
        .index
        .root()
        .and_then(|r| map_get(r, "retry"))
        .and_then(|r| scalar(r, "meaning"))
        .unwrap_or(crate::spec::DEFAULT_RETRY_MEANING);
    if b {
        format!("**yes** ({meaning})")
    } else {
        format!("**no** (not: {meaning})")
    }
}

fn describe_code(analysis: &Analysis, text: &str, def: &Definition, out: &mut String) {
    let index = &analysis.index;
    let v = index.value(def);
    let name = &def.name.name;
    out.push_str(&format!("**{name}**"));
    if let Some(n) = scalar(v, "number") {
        out.push_str(&format!(" — {n}"));
    }
    out.push_str("\n\n");
    if let Some(t) = scalar(v, "title") {
        out.push_str(&format!("{t}\n\n"));
    }
    let category = scalar(v, "category");
    let cat_def = category.and_then(|c| index.definition(Kind::Category, c, ""));
    let retryable = boolean(v, "retryable")
        .or_else(|| cat_def.and_then(|c| boolean(index.value(c), "retryable")));
    let cause =
        scalar(v, "cause").or_else(|| cat_def.and_then(|c| scalar(index.value(c), "cause")));
    out.push_str(&format!(
        "- category: `{}`\n- retryable: {}\n- cause: `{}`\n",
        category.unwrap_or("?"),
        retryable.map_or("?".into(), |r| retry_words(analysis, r)),
        cause.unwrap_or("?")
    ));
    if let Some(m) = map_get(v, "message") {
        out.push_str(&format!(
            "- message: `{}`\n",
            m.as_scalar().unwrap_or_else(|| raw(text, m))
        ));
    }
    if let Some(d) = map_get(v, "deprecated") {
        out.push_str(&format!(
            "- **deprecated** since {}, replaced by `{}`\n",
            scalar(d, "since").unwrap_or("?"),
            scalar(d, "replaced_by").unwrap_or("?")
        ));
    }
    if let Some(r) = map_get(v, "removed") {
        out.push_str(&format!(
            "- **removed** since {}: {}\n",
            scalar(r, "since").unwrap_or("?"),
            scalar(r, "reason").unwrap_or("")
        ));
    }
    if let Some(NodeKind::Seq(hints)) = map_get(v, "recovery_hints").map(|h| &h.kind) {
        out.push_str("\nrecovery hints:\n");
        for h in hints {
            let t = h.as_scalar().or_else(|| scalar(h, "text")).unwrap_or("");
            out.push_str(&format!("- {t}\n"));
        }
    }
    let ops = index.operations_raising(name);
    if !ops.is_empty() {
        let ops: Vec<String> = ops.iter().map(|o| format!("`{o}`")).collect();
        out.push_str(&format!("\nraised by operations: {}\n", ops.join(", ")));
    }
    // Every other place that names the code, by the role of the place (a
    // deprecated code it replaces, the envelope's `absent_means`, and any
    // section added to the reference table).
    let uses = index.uses(&def.name);
    if !uses.is_empty() {
        out.push_str("\nnamed by:\n");
        for r in uses {
            let owner = if r.name.scope.is_empty() {
                String::new()
            } else {
                format!("`{}` ", r.name.scope)
            };
            out.push_str(&format!("- {owner}({})\n", r.role));
        }
    }
}

/// Go to definition: where the name under the cursor is declared.
pub fn definition(
    doc: &Document,
    analysis: &Analysis,
    uri: &Uri,
    position: Position,
) -> Option<Location> {
    let name = analysis.index.at(doc.offset(position))?;
    let def = analysis
        .index
        .definition(name.kind, &name.name, &name.scope)?;
    Some(Location::new(
        uri.clone(),
        doc.exact_range(def.name.start, def.name.end),
    ))
}

/// Find references: every place naming what the cursor names.
pub fn references(
    doc: &Document,
    analysis: &Analysis,
    uri: &Uri,
    position: Position,
    with_declaration: bool,
) -> Vec<Location> {
    let Some(name) = analysis.index.at(doc.offset(position)) else {
        return Vec::new();
    };
    analysis
        .index
        .occurrences(&name, with_declaration)
        .into_iter()
        .map(|n| Location::new(uri.clone(), doc.exact_range(n.start, n.end)))
        .collect()
}

/// The naming convention of a kind's names.
fn case_of(kind: Kind) -> Case {
    match kind {
        Kind::Code => Case::ScreamingSnake,
        Kind::Type => Case::UpperCamel,
        _ => Case::LowerSnake,
    }
}

/// Prepare rename: the name under the cursor, if it is one this server
/// can rename (a declared name or a use of one).
pub fn prepare_rename(
    doc: &Document,
    analysis: &Analysis,
    position: Position,
) -> Option<PrepareRenameResponse> {
    let name = analysis.index.at(doc.offset(position))?;
    analysis
        .index
        .definition(name.kind, &name.name, &name.scope)?;
    Some(PrepareRenameResponse::RangeWithPlaceholder {
        range: doc.exact_range(name.start, name.end),
        placeholder: name.name,
    })
}

/// Rename: the declaration and every use, or why not.
pub fn rename(
    doc: &Document,
    analysis: &Analysis,
    uri: &Uri,
    position: Position,
    new_name: &str,
) -> Result<WorkspaceEdit, String> {
    let name = analysis
        .index
        .at(doc.offset(position))
        .ok_or("there is no code, type, field or other declared name here")?;
    if analysis
        .index
        .definition(name.kind, &name.name, &name.scope)
        .is_none()
    {
        return Err(format!("`{}` is not declared in this file", name.name));
    }
    let case = case_of(name.kind);
    if !case.matches(new_name) {
        return Err(format!(
            "`{new_name}` is not a valid {} name: write it as {}",
            name.kind.describe(),
            case.convert(new_name)
        ));
    }
    if analysis
        .index
        .definition(name.kind, new_name, &name.scope)
        .is_some()
    {
        return Err(format!(
            "a {} `{new_name}` already exists",
            name.kind.describe()
        ));
    }
    let edits: Vec<TextEdit> = analysis
        .index
        .occurrences(&name, true)
        .into_iter()
        .map(|n| TextEdit::new(doc.exact_range(n.start, n.end), new_name.to_owned()))
        .collect();
    Ok(WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    })
}

fn symbol_kind(kind: Kind) -> SymbolKind {
    match kind {
        Kind::Category => SymbolKind::NAMESPACE,
        Kind::Code => SymbolKind::CONSTANT,
        Kind::Type => SymbolKind::STRUCT,
        Kind::Field => SymbolKind::FIELD,
        Kind::Member => SymbolKind::PROPERTY,
        Kind::RetryClass => SymbolKind::ENUM_MEMBER,
        Kind::Attribute => SymbolKind::PROPERTY,
        Kind::Param => SymbolKind::VARIABLE,
        Kind::Group => SymbolKind::ARRAY,
        Kind::Operation => SymbolKind::FUNCTION,
        Kind::Family => SymbolKind::CLASS,
    }
}

/// Document symbols: the sections, and in them the categories, types (with
/// their members), fields and codes (with their number and title).
#[allow(deprecated)]
pub fn symbols(doc: &Document, analysis: &Analysis) -> Vec<DocumentSymbol> {
    let index = &analysis.index;
    let range_of = |d: &Definition| {
        let (s, e) = trimmed(&doc.text, d.entry.start, d.entry.end.max(d.name.end));
        doc.exact_range(s, e)
    };
    let symbol = |d: &Definition, children: Option<Vec<DocumentSymbol>>| {
        let v = index.value(d);
        let detail = match d.name.kind {
            Kind::Code => Some(format!(
                "{} {}",
                scalar(v, "number").unwrap_or(""),
                scalar(v, "title").unwrap_or("")
            )),
            Kind::Field => scalar(v, "type").map(str::to_owned),
            Kind::Member => scalar(v, "type").map(str::to_owned),
            Kind::Category => scalar(v, "description").map(str::to_owned),
            Kind::Type => scalar(v, "doc").map(str::to_owned),
            _ => None,
        };
        let deprecated = map_get(v, "deprecated").is_some() || map_get(v, "removed").is_some();
        DocumentSymbol {
            name: d.name.name.clone(),
            detail: detail
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
            kind: symbol_kind(d.name.kind),
            tags: deprecated.then(|| vec![lsp_types::SymbolTag::DEPRECATED]),
            deprecated: None,
            range: range_of(d),
            selection_range: doc.exact_range(d.name.start, d.name.end),
            children,
        }
    };
    let mut out = Vec::new();
    for (section, key, entry) in &index.sections {
        let (s, e) = trimmed(&doc.text, entry.start, entry.end.max(key.end));
        let range = doc.exact_range(s, e);
        let children: Vec<DocumentSymbol> = index
            .definitions
            .iter()
            .filter(|d| {
                d.name.start > key.end
                    && d.name.start < e
                    && !matches!(d.name.kind, Kind::Member | Kind::Param)
            })
            .map(|d| {
                let members = match d.name.kind {
                    Kind::Type => Some(
                        index
                            .definitions
                            .iter()
                            .filter(|m| m.name.kind == Kind::Member && m.name.scope == d.name.name)
                            .filter(|m| {
                                m.name.start > d.name.start
                                    && m.name.start < d.entry.end.max(d.name.end) + 1
                            })
                            .map(|m| symbol(m, None))
                            .collect::<Vec<_>>(),
                    )
                    .filter(|c| !c.is_empty()),
                    _ => None,
                };
                symbol(d, members)
            })
            .collect();
        out.push(DocumentSymbol {
            name: section.clone(),
            detail: None,
            kind: SymbolKind::MODULE,
            tags: None,
            deprecated: None,
            range,
            selection_range: doc.exact_range(key.start, key.end),
            children: (!children.is_empty()).then_some(children),
        });
    }
    out
}

/// `start..end` without trailing whitespace.
fn trimmed(text: &str, start: usize, end: usize) -> (usize, usize) {
    let end = end.min(text.len());
    let start = start.min(end);
    let mut e = end;
    while e > start && text.as_bytes()[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    (start, e)
}

/// Quick fixes: the suggestions of the diagnostics at `range` (a "did
/// you mean" name, the next free number), each as an edit.
pub fn code_actions(
    doc: &Document,
    analysis: &Analysis,
    uri: &Uri,
    range: Range,
) -> Vec<CodeActionOrCommand> {
    let (from, to) = doc.lines.byte_range(&doc.text, range);
    let lsp = diagnostics(doc, analysis, uri);
    analysis
        .diagnostics
        .iter()
        .zip(lsp)
        .filter_map(|(d, ld)| {
            let s = d.suggestion.as_ref()?;
            let (ds, de) = super::text::first_line_span(&doc.text, d.loc.start, d.loc.end);
            if de < from || ds > to {
                return None;
            }
            let edit = TextEdit::new(
                doc.exact_range(s.loc.start, s.loc.end),
                s.replacement.clone(),
            );
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("replace with `{}`", s.replacement),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![ld]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                    ..Default::default()
                }),
                is_preferred: Some(true),
                ..Default::default()
            }))
        })
        .collect()
}

/// Completion: the keys valid at the cursor, names at the values that
/// refer to them, enumerated values, type names, and placeholders inside
/// templates.
pub fn completion(doc: &Document, analysis: &Analysis, position: Position) -> Vec<CompletionItem> {
    let offset = doc.offset(position);
    let c = cursor::at(&doc.text, offset);
    let replace = doc.exact_range(c.prefix_start, offset);
    let item = |label: &str,
                kind: CompletionItemKind,
                detail: Option<String>,
                doc_text: Option<String>,
                insert: String| CompletionItem {
        label: label.to_owned(),
        kind: Some(kind),
        detail,
        documentation: doc_text.map(|d| {
            Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value: d,
            })
        }),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(replace, insert))),
        ..Default::default()
    };
    let path: Vec<grammar::Step<'_>> = c
        .path
        .iter()
        .map(|p| {
            if p == "-" {
                grammar::Step::Item
            } else {
                grammar::Step::Key(p)
            }
        })
        .collect();
    let index = &analysis.index;
    let code = (c.path.first().map(String::as_str) == Some("codes"))
        .then(|| c.path.get(1).cloned())
        .flatten()
        .unwrap_or_default();
    let names = |kind: Kind| -> Vec<CompletionItem> {
        let scope = if kind == Kind::Param {
            code.as_str()
        } else {
            ""
        };
        let candidates: Vec<&Definition> = index
            .names_of(kind)
            .filter(|d| kind != Kind::Param || d.name.scope == scope)
            .collect();
        // Each item explains itself as hover does while that stays cheap:
        // a list of a thousand codes gets their names only.
        let explained = candidates.len() <= 50;
        candidates
            .into_iter()
            .map(|d| {
                let detail = explained
                    .then(|| describe(doc, analysis, &d.name))
                    .flatten();
                item(
                    &d.name.name,
                    CompletionItemKind::REFERENCE,
                    Some(kind.describe().to_owned()),
                    detail,
                    d.name.name.clone(),
                )
            })
            .collect()
    };
    match c.slot {
        Slot::Key => {
            let Some(value) = grammar::at(&path) else {
                return Vec::new();
            };
            match value {
                Value::Map {
                    keys: MapKeys::Refers(kind),
                    ..
                } => {
                    let mut out = names(*kind);
                    if *kind == Kind::Field && !code.is_empty() {
                        out.extend(names(Kind::Param));
                    }
                    out.into_iter()
                        .map(|mut i| {
                            if let Some(CompletionTextEdit::Edit(e)) = &mut i.text_edit {
                                e.new_text.push_str(": ");
                            }
                            i
                        })
                        .collect()
                }
                _ => {
                    let Some(object) = value.object() else {
                        return Vec::new();
                    };
                    let present = sibling_keys(&doc.text, offset);
                    object
                        .keys
                        .iter()
                        .filter(|k| !present.iter().any(|p| p == k.name))
                        .map(|k| {
                            let mut i = item(
                                k.name,
                                CompletionItemKind::PROPERTY,
                                Some(if k.required {
                                    "required".into()
                                } else {
                                    "optional".into()
                                }),
                                Some(k.doc.to_owned()),
                                format!("{}: ", k.name),
                            );
                            // Required keys first.
                            i.sort_text =
                                Some(format!("{}{}", if k.required { 0 } else { 1 }, k.name));
                            i
                        })
                        .collect()
                }
            }
        }
        Slot::Value => {
            let Some(value) = grammar::at(&path) else {
                return Vec::new();
            };
            value_items(value, &names, &item)
        }
        Slot::Placeholder => {
            if code.is_empty() {
                return Vec::new();
            }
            let mut out = names(Kind::Param);
            // Required context fields of the code whose type is a string or
            // an integer: what a template may name.
            if let Some(def) = index.definition(Kind::Code, &code, "") {
                let required = list_of(
                    map_get(index.value(def), "context").and_then(|c| map_get(c, "required")),
                );
                for f in required {
                    let ty = index
                        .definition(Kind::Field, f, "")
                        .and_then(|d| scalar(index.value(d), "type"));
                    if matches!(ty, Some("string" | "integer")) {
                        out.push(item(
                            f,
                            CompletionItemKind::FIELD,
                            Some("required context field".into()),
                            None,
                            f.to_owned(),
                        ));
                    }
                }
            }
            // Close the brace when nothing closes it yet.
            let rest = &doc.text[offset..];
            let closed =
                rest.starts_with(|ch: char| ch == '}' || ch.is_ascii_alphanumeric() || ch == '_');
            if !closed {
                for i in &mut out {
                    if let Some(CompletionTextEdit::Edit(e)) = &mut i.text_edit {
                        e.new_text.push('}');
                    }
                }
            }
            out
        }
    }
}

/// Makes a completion item: label, kind, detail, documentation, text.
type MakeItem<'a> =
    dyn Fn(&str, CompletionItemKind, Option<String>, Option<String>, String) -> CompletionItem + 'a;

fn value_items(
    value: &'static Value,
    names: &dyn Fn(Kind) -> Vec<CompletionItem>,
    item: &MakeItem<'_>,
) -> Vec<CompletionItem> {
    match value {
        Value::Enum(choices) => choices
            .iter()
            .map(|ch| {
                item(
                    ch.name,
                    CompletionItemKind::ENUM_MEMBER,
                    None,
                    Some(ch.doc.into()),
                    ch.name.into(),
                )
            })
            .collect(),
        Value::Name(kind) => names(*kind),
        Value::TypeSpelling => {
            let mut out: Vec<CompletionItem> = grammar::BUILTIN_TYPES
                .iter()
                .map(|ch| {
                    item(
                        ch.name,
                        CompletionItemKind::KEYWORD,
                        Some("built-in type".into()),
                        Some(ch.doc.into()),
                        ch.name.into(),
                    )
                })
                .collect();
            out.extend(names(Kind::Type));
            out
        }
        Value::Boolean => ["true", "false"]
            .iter()
            .map(|b| item(b, CompletionItemKind::VALUE, None, None, (*b).into()))
            .collect(),
        Value::List(inner) => value_items(inner, names, item),
        Value::Either(alts) => alts
            .iter()
            .flat_map(|a| value_items(a, names, item))
            .collect(),
        _ => Vec::new(),
    }
}

/// The keys already written in the block mapping around `offset` (lines
/// at the same indentation, up to a shallower one).
fn sibling_keys(text: &str, offset: usize) -> Vec<String> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    let own = line.len() - line.trim_start_matches(' ').len();
    let key_of = |l: &str| -> Option<String> {
        let indent = l.len() - l.trim_start_matches(' ').len();
        if indent != own {
            return None;
        }
        let (k, _) = l.trim().split_once(':')?;
        Some(k.trim().to_owned())
    };
    let shallower = |l: &str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && l.len() - l.trim_start_matches(' ').len() < own
    };
    let mut keys = Vec::new();
    for l in text[..line_start].lines().rev() {
        if shallower(l) {
            break;
        }
        keys.extend(key_of(l));
    }
    let after = text[offset..]
        .find('\n')
        .map_or(text.len(), |i| offset + i + 1);
    for l in text[after.min(text.len())..].lines() {
        if shallower(l) {
            break;
        }
        keys.extend(key_of(l));
    }
    keys
}
