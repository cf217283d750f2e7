//! What the language server knows of a spec: every name it declares and
//! every place that names one, with byte ranges, read from the spanned YAML
//! tree and not from a checked [`Spec`](crate::spec::Spec), so a spec with
//! mistakes (the usual state of a file being edited) still has its outline,
//! hover, definitions, references and renames.
//!
//! Where names are declared and where they are referred to is data, two
//! tables of paths into the tree ([`DEFINITION_SITES`], [`REFERENCE_SITES`]):
//! a new section that names codes (a list of the codes an operation raises)
//! is one more row, and definition, references, rename, hover ("named by")
//! and completion follow.

use std::collections::HashMap;

use crate::span::Loc;
use crate::yaml::{Node, NodeKind, ScalarType};

pub use crate::grammar::Kind;

/// One step of a path into the tree.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// The value of this key.
    Key(&'static str),
    /// The value of any key (a name-keyed mapping: `codes`, `types`).
    AnyKey,
    /// Every item of a sequence.
    Item,
    /// The value of any key of a mapping, at any depth below (`envelope`'s
    /// nested members).
    Deep,
}

/// How the node at the end of a reference path names things.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// The scalar is a name; a sequence of scalars is a list of names.
    Value,
    /// Each key of the mapping is a name.
    Keys,
    /// A type spelling: every declared type name in `Foo[]`,
    /// `map<string, Foo>`.
    TypeSpelling,
    /// A message template: every `{placeholder}` (a field or a parameter
    /// of the code).
    Template,
}

/// A place where names of `kind` are declared: the keys of the mapping at
/// `path`. `scope`: the position in the path of the key that scopes the
/// name (the type of a member, the code of a parameter).
pub struct DefinitionSite {
    /// The path of the mapping whose keys are the names.
    pub path: &'static [Step],
    /// What they name.
    pub kind: Kind,
}

/// Where names are declared.
pub const DEFINITION_SITES: &[DefinitionSite] = &[
    DefinitionSite {
        path: &[Step::Key("categories")],
        kind: Kind::Category,
    },
    DefinitionSite {
        path: &[Step::Key("codes")],
        kind: Kind::Code,
    },
    DefinitionSite {
        path: &[Step::Key("types")],
        kind: Kind::Type,
    },
    DefinitionSite {
        path: &[Step::Key("fields")],
        kind: Kind::Field,
    },
    DefinitionSite {
        path: &[Step::Key("types"), Step::AnyKey, Step::Key("members")],
        kind: Kind::Member,
    },
    DefinitionSite {
        path: &[Step::Key("retry"), Step::Key("classes")],
        kind: Kind::RetryClass,
    },
    DefinitionSite {
        path: &[Step::Key("attributes")],
        kind: Kind::Attribute,
    },
    DefinitionSite {
        path: &[Step::Key("codes"), Step::AnyKey, Step::Key("params")],
        kind: Kind::Param,
    },
    // A category's default parameters, scoped by the category's key (a
    // category is lower_snake, a code SCREAMING_SNAKE: they never meet).
    DefinitionSite {
        path: &[Step::Key("categories"), Step::AnyKey, Step::Key("params")],
        kind: Kind::Param,
    },
    DefinitionSite {
        path: &[Step::Key("code_groups")],
        kind: Kind::Group,
    },
    DefinitionSite {
        path: &[Step::Key("operations")],
        kind: Kind::Operation,
    },
    DefinitionSite {
        path: &[Step::Key("families")],
        kind: Kind::Family,
    },
];

/// The role of an operation's `codes:` in [`REFERENCE_SITES`].
pub const OPERATION_CODES: &str = "operation codes";
/// The role of a group's `codes:` in [`REFERENCE_SITES`].
pub const GROUP_CODES: &str = "code group codes";
/// The role of an operation's `groups:` in [`REFERENCE_SITES`].
pub const OPERATION_GROUPS: &str = "operation groups";

/// A place where names are referred to.
pub struct ReferenceSite {
    /// The path of the node that names.
    pub path: &'static [Step],
    /// What the names name. For [`How::Template`] and a code's `example`
    /// keys this is [`Kind::Field`], and a name that is a parameter of the
    /// code is a [`Kind::Param`] instead.
    pub kind: Kind,
    /// How the node names.
    pub how: How,
    /// What the place is, for hover ("named by `X` (`replaced_by`)").
    pub role: &'static str,
}

const CODE: [Step; 2] = [Step::Key("codes"), Step::AnyKey];
/// A category: its defaults name fields and parameters as a code's keys do.
const CATEGORY: [Step; 2] = [Step::Key("categories"), Step::AnyKey];

/// Where names are referred to.
pub const REFERENCE_SITES: &[ReferenceSite] = &[
    ReferenceSite {
        path: &[Step::Key("families"), Step::AnyKey, Step::Key("category")],
        kind: Kind::Category,
        how: How::Value,
        role: "family category",
    },
    ReferenceSite {
        path: &[CODE[0], CODE[1], Step::Key("category")],
        kind: Kind::Category,
        how: How::Value,
        role: "category",
    },
    ReferenceSite {
        path: &[
            CODE[0],
            CODE[1],
            Step::Key("context"),
            Step::Key("required"),
        ],
        kind: Kind::Field,
        how: How::Value,
        role: "context.required",
    },
    ReferenceSite {
        path: &[
            CODE[0],
            CODE[1],
            Step::Key("context"),
            Step::Key("optional"),
        ],
        kind: Kind::Field,
        how: How::Value,
        role: "context.optional",
    },
    ReferenceSite {
        path: &[
            CODE[0],
            CODE[1],
            Step::Key("recovery_hints"),
            Step::Item,
            Step::Key("when"),
        ],
        kind: Kind::Field,
        how: How::Keys,
        role: "a hint condition",
    },
    ReferenceSite {
        path: &[CODE[0], CODE[1], Step::Key("example")],
        kind: Kind::Field,
        how: How::Keys,
        role: "example",
    },
    ReferenceSite {
        path: &[CODE[0], CODE[1], Step::Key("constants")],
        kind: Kind::Field,
        how: How::Keys,
        role: "constants",
    },
    ReferenceSite {
        path: &[CODE[0], CODE[1], Step::Key("message")],
        kind: Kind::Field,
        how: How::Template,
        role: "message",
    },
    ReferenceSite {
        path: &[CODE[0], CODE[1], Step::Key("recovery_hints"), Step::Item],
        kind: Kind::Field,
        how: How::Template,
        role: "recovery_hints",
    },
    ReferenceSite {
        path: &[
            CODE[0],
            CODE[1],
            Step::Key("recovery_hints"),
            Step::Item,
            Step::Key("text"),
        ],
        kind: Kind::Field,
        how: How::Template,
        role: "recovery_hints",
    },
    ReferenceSite {
        path: &[
            CODE[0],
            CODE[1],
            Step::Key("deprecated"),
            Step::Key("replaced_by"),
        ],
        kind: Kind::Code,
        how: How::Value,
        role: "deprecated.replaced_by",
    },
    ReferenceSite {
        path: &[Step::Key("envelope"), Step::Deep, Step::Key("absent_means")],
        kind: Kind::Code,
        how: How::Value,
        role: "absent_means",
    },
    // The mapping form: category keys, each naming a code.
    ReferenceSite {
        path: &[Step::Key("envelope"), Step::Deep, Step::Key("absent_means")],
        kind: Kind::Category,
        how: How::Keys,
        role: "absent_means",
    },
    ReferenceSite {
        path: &[
            Step::Key("envelope"),
            Step::Deep,
            Step::Key("absent_means"),
            Step::AnyKey,
        ],
        kind: Kind::Code,
        how: How::Value,
        role: "absent_means",
    },
    ReferenceSite {
        path: &[CODE[0], CODE[1], Step::Key("retry_classes")],
        kind: Kind::RetryClass,
        how: How::Value,
        role: "retry_classes",
    },
    ReferenceSite {
        path: &[
            CATEGORY[0],
            CATEGORY[1],
            Step::Key("context"),
            Step::Key("required"),
        ],
        kind: Kind::Field,
        how: How::Value,
        role: "context.required",
    },
    ReferenceSite {
        path: &[
            CATEGORY[0],
            CATEGORY[1],
            Step::Key("context"),
            Step::Key("optional"),
        ],
        kind: Kind::Field,
        how: How::Value,
        role: "context.optional",
    },
    ReferenceSite {
        path: &[
            CATEGORY[0],
            CATEGORY[1],
            Step::Key("recovery_hints"),
            Step::Item,
            Step::Key("when"),
        ],
        kind: Kind::Field,
        how: How::Keys,
        role: "a hint condition",
    },
    ReferenceSite {
        path: &[CATEGORY[0], CATEGORY[1], Step::Key("message")],
        kind: Kind::Field,
        how: How::Template,
        role: "message",
    },
    ReferenceSite {
        path: &[
            CATEGORY[0],
            CATEGORY[1],
            Step::Key("recovery_hints"),
            Step::Item,
        ],
        kind: Kind::Field,
        how: How::Template,
        role: "recovery_hints",
    },
    ReferenceSite {
        path: &[
            CATEGORY[0],
            CATEGORY[1],
            Step::Key("recovery_hints"),
            Step::Item,
            Step::Key("text"),
        ],
        kind: Kind::Field,
        how: How::Template,
        role: "recovery_hints",
    },
    ReferenceSite {
        path: &[
            Step::Key("categories"),
            Step::AnyKey,
            Step::Key("retry_classes"),
        ],
        kind: Kind::RetryClass,
        how: How::Value,
        role: "retry_classes",
    },
    ReferenceSite {
        path: &[CODE[0], CODE[1], Step::Key("attributes")],
        kind: Kind::Attribute,
        how: How::Keys,
        role: "attributes",
    },
    ReferenceSite {
        path: &[Step::Key("fields"), Step::AnyKey, Step::Key("type")],
        kind: Kind::Type,
        how: How::TypeSpelling,
        role: "type",
    },
    // A member of the response beside the list of errors (`list: true`).
    ReferenceSite {
        path: &[Step::Key("envelope"), Step::AnyKey, Step::Key("type")],
        kind: Kind::Type,
        how: How::TypeSpelling,
        role: "type",
    },
    ReferenceSite {
        path: &[
            Step::Key("types"),
            Step::AnyKey,
            Step::Key("members"),
            Step::AnyKey,
            Step::Key("type"),
        ],
        kind: Kind::Type,
        how: How::TypeSpelling,
        role: "type",
    },
    ReferenceSite {
        path: &[
            Step::Key("types"),
            Step::AnyKey,
            Step::Key("union"),
            Step::Key("variants"),
        ],
        kind: Kind::Type,
        how: How::Keys,
        role: "union variant",
    },
    ReferenceSite {
        path: &[Step::Key("operations"), Step::AnyKey, Step::Key("codes")],
        kind: Kind::Code,
        how: How::Value,
        role: OPERATION_CODES,
    },
    ReferenceSite {
        path: &[Step::Key("operations"), Step::AnyKey, Step::Key("groups")],
        kind: Kind::Group,
        how: How::Value,
        role: OPERATION_GROUPS,
    },
    ReferenceSite {
        path: &[Step::Key("code_groups"), Step::AnyKey, Step::Key("codes")],
        kind: Kind::Code,
        how: How::Value,
        role: GROUP_CODES,
    },
];

/// A name written in the spec: where it is declared, or where it is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// What it names.
    pub kind: Kind,
    /// The name.
    pub name: String,
    /// The name that scopes it: the type of a member, the code of a
    /// parameter or of a reference inside a code; empty otherwise.
    pub scope: String,
    /// Byte range of the name itself in the text.
    pub start: usize,
    /// End of that range.
    pub end: usize,
}

/// A declared name, with the entry that declares it.
#[derive(Debug, Clone)]
pub struct Definition {
    /// The name and where it is written (the key).
    pub name: Name,
    /// The whole entry: from its key to the end of its value.
    pub entry: Loc,
    /// Where the entry's value is in the index's tree ([`Index::value`]).
    pub value: At,
}

/// Where a node is in a tree: the position of the entry or item to take
/// at each mapping or sequence from the root down. A declaration points
/// into the one tree rather than holding a copy of its subtree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct At(Vec<u32>);

impl At {
    /// Nowhere: a declaration read from a line the parser skipped has no
    /// value in the tree.
    pub fn nowhere() -> At {
        At(Vec::new())
    }
}

/// The value of a declaration that has none in the tree: an empty mapping.
static NOTHING: Node = Node {
    kind: NodeKind::Map(Vec::new()),
    loc: Loc {
        line: 0,
        col: 0,
        start: 0,
        end: 0,
    },
};

/// A use of a name.
#[derive(Debug, Clone)]
pub struct Reference {
    /// The name and where it is written.
    pub name: Name,
    /// What the place is ([`ReferenceSite::role`]).
    pub role: &'static str,
}

/// Every declared name and every use of one in a spec, and the tree they
/// were read from.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// The tree of the document (what parsed of it).
    root: Option<Node>,
    /// Declarations, in file order.
    pub definitions: Vec<Definition>,
    /// Uses, in file order within each site.
    pub references: Vec<Reference>,
    /// Top-level sections present, with their key's range and entry.
    pub sections: Vec<(String, Loc, Loc)>,
    /// The first declaration of each (kind, name, scope), by position in
    /// `definitions` (scope empty for kinds that are not scoped).
    /// Keyed by kind, then name, then scope, so that a lookup by `&str`
    /// allocates nothing.
    lookup: HashMap<Kind, HashMap<String, HashMap<String, usize>>>,
}

/// The byte range of `name` as written by the scalar `node`: its location
/// when the text there is exactly the name, else the name's first
/// occurrence inside it (a quoted `"Limit"`, a spelling `Limit[]`).
pub fn name_range(text: &str, node: &Node, name: &str) -> Option<(usize, usize)> {
    let raw = text.get(node.loc.start..node.loc.end)?;
    if raw == name {
        return Some((node.loc.start, node.loc.end));
    }
    if name.is_empty() {
        return None;
    }
    let at = find_word(raw, name, 0)?;
    Some((node.loc.start + at, node.loc.start + at + name.len()))
}

/// The first occurrence of `word` in `hay` at or after `from` that is not
/// part of a longer identifier.
fn find_word(hay: &str, word: &str, from: usize) -> Option<usize> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut at = from;
    while let Some(i) = hay.get(at..)?.find(word) {
        let start = at + i;
        let end = start + word.len();
        let before = hay[..start].chars().next_back();
        let after = hay[end..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Some(start);
        }
        at = end;
    }
    None
}

impl Index {
    /// Reads the names of the tree of `text`, and keeps the tree.
    pub fn build(text: &str, root: Node) -> Index {
        let mut index = Index::default();
        index.read(text, &root);
        index.root = Some(root);
        index
    }

    /// The tree the names were read from.
    pub fn root(&self) -> Option<&Node> {
        self.root.as_ref()
    }

    /// The value of the declaration `d`.
    pub fn value(&self, d: &Definition) -> &Node {
        let Some(mut node) = self.root.as_ref() else {
            return &NOTHING;
        };
        if d.value.0.is_empty() {
            return &NOTHING;
        }
        for &i in &d.value.0 {
            let i = i as usize;
            node = match &node.kind {
                NodeKind::Map(entries) => match entries.get(i) {
                    Some((_, v)) => v,
                    None => return &NOTHING,
                },
                NodeKind::Seq(items) => match items.get(i) {
                    Some(v) => v,
                    None => return &NOTHING,
                },
                NodeKind::Scalar(..) => return &NOTHING,
            };
        }
        node
    }

    fn read(&mut self, text: &str, root: &Node) {
        let index = self;
        let NodeKind::Map(entries) = &root.kind else {
            return;
        };
        for (k, v) in entries {
            if let Some(key) = k.as_scalar() {
                index
                    .sections
                    .push((key.to_owned(), k.loc, span(k.loc, v.loc)));
            }
        }
        for site in DEFINITION_SITES {
            walk(
                root,
                site.path,
                &mut Walked::default(),
                &mut |node, walked| {
                    let NodeKind::Map(entries) = &node.kind else {
                        return;
                    };
                    for (i, (k, v)) in entries.iter().enumerate() {
                        let Some(name) = k.as_scalar() else { continue };
                        let Some((start, end)) = name_range(text, k, name) else {
                            continue;
                        };
                        let mut at = walked.at.clone();
                        at.push(i as u32);
                        index.definitions.push(Definition {
                            name: Name {
                                kind: site.kind,
                                name: name.to_owned(),
                                scope: walked.scopes.last().copied().unwrap_or_default().to_owned(),
                                start,
                                end,
                            },
                            entry: span(k.loc, v.loc),
                            value: At(at),
                        });
                    }
                },
            );
        }
        index.reindex();
        for site in REFERENCE_SITES {
            walk(
                root,
                site.path,
                &mut Walked::default(),
                &mut |node, walked| {
                    let scope = walked.scopes.first().copied().unwrap_or_default();
                    index.references_of(text, site, node, scope);
                },
            );
        }
        // A placeholder or `example` key that names a parameter of its
        // code is that parameter, once and for all.
        let params: Vec<bool> = index
            .references
            .iter()
            .map(|r| {
                r.name.kind == Kind::Field
                    && index
                        .definition(Kind::Param, &r.name.name, &r.name.scope)
                        .is_some()
            })
            .collect();
        for (r, is_param) in index.references.iter_mut().zip(params) {
            if is_param {
                r.name.kind = Kind::Param;
            }
        }
    }

    /// Sorts the declarations by position and rebuilds the lookup (after
    /// adding one).
    pub fn reindex(&mut self) {
        self.definitions.sort_by_key(|d| d.name.start);
        self.lookup.clear();
        for (i, d) in self.definitions.iter().enumerate() {
            let scope = if scoped(d.name.kind) {
                d.name.scope.clone()
            } else {
                String::new()
            };
            self.lookup
                .entry(d.name.kind)
                .or_default()
                .entry(d.name.name.clone())
                .or_default()
                .entry(scope)
                .or_insert(i);
        }
    }

    /// Whether the use `r` names what `target` names.
    fn names(r: &Name, target: &Name) -> bool {
        r.kind == target.kind
            && r.name == target.name
            && (!scoped(target.kind) || r.scope == target.scope)
    }

    fn references_of(&mut self, text: &str, site: &ReferenceSite, node: &Node, scope: &str) {
        let mut push = |kind: Kind, name: &str, start: usize, end: usize| {
            self.references.push(Reference {
                name: Name {
                    kind,
                    name: name.to_owned(),
                    scope: scope.to_owned(),
                    start,
                    end,
                },
                role: site.role,
            });
        };
        match site.how {
            How::Value => {
                let items: Vec<&Node> = match &node.kind {
                    NodeKind::Seq(items) => items.iter().collect(),
                    _ => vec![node],
                };
                for item in items {
                    let Some(name) = item.as_scalar() else {
                        continue;
                    };
                    if name.is_empty() || item.scalar_type() == Some(ScalarType::Null) {
                        continue;
                    }
                    if let Some((s, e)) = name_range(text, item, name) {
                        push(site.kind, name, s, e);
                    }
                }
            }
            How::Keys => {
                let NodeKind::Map(entries) = &node.kind else {
                    return;
                };
                for (k, _) in entries {
                    let Some(name) = k.as_scalar() else { continue };
                    if let Some((s, e)) = name_range(text, k, name) {
                        push(site.kind, name, s, e);
                    }
                }
            }
            How::TypeSpelling => {
                let Some(raw) = text.get(node.loc.start..node.loc.end) else {
                    return;
                };
                for (at, word) in identifiers(raw) {
                    if crate::context::BUILTIN_TYPES.contains(&word) || word == "map" {
                        continue;
                    }
                    let s = node.loc.start + at;
                    push(site.kind, word, s, s + word.len());
                }
            }
            How::Template => {
                let Some(raw) = text.get(node.loc.start..node.loc.end) else {
                    return;
                };
                if node.as_scalar().is_none() {
                    return;
                }
                for (at, word) in placeholders(raw) {
                    let s = node.loc.start + at;
                    push(site.kind, word, s, s + word.len());
                }
            }
        }
    }

    /// The declaration of `kind` named `name` (in `scope` for members and
    /// parameters).
    pub fn definition(&self, kind: Kind, name: &str, scope: &str) -> Option<&Definition> {
        let scope = if scoped(kind) { scope } else { "" };
        let i = self.lookup.get(&kind)?.get(name)?.get(scope)?;
        self.definitions.get(*i)
    }

    /// Every declared name of `kind`.
    pub fn names_of(&self, kind: Kind) -> impl Iterator<Item = &Definition> {
        self.definitions.iter().filter(move |d| d.name.kind == kind)
    }

    /// The name written at byte `offset`: a declaration or a use, resolved
    /// (a placeholder or `example` key that names a parameter of its code
    /// is that parameter).
    pub fn at(&self, offset: usize) -> Option<Name> {
        let hit = |n: &Name| n.start <= offset && offset <= n.end;
        if let Some(d) = self.definitions.iter().find(|d| hit(&d.name)) {
            return Some(d.name.clone());
        }
        let r = self.references.iter().find(|r| hit(&r.name))?;
        Some(self.resolve(&r.name))
    }

    /// A use as what it names (its kind resolved when the index was
    /// built), without the scope of the place for kinds that are not scoped.
    pub fn resolve(&self, name: &Name) -> Name {
        Name {
            scope: if scoped(name.kind) {
                name.scope.clone()
            } else {
                String::new()
            },
            ..name.clone()
        }
    }

    /// Every place that names what `target` names: its declaration first
    /// (when it has one, and `with_declaration`), then its uses.
    pub fn occurrences(&self, target: &Name, with_declaration: bool) -> Vec<Name> {
        let mut out = Vec::new();
        if with_declaration
            && let Some(d) = self.definition(target.kind, &target.name, &target.scope)
        {
            out.push(d.name.clone());
        }
        for r in &self.references {
            if Self::names(&r.name, target) {
                out.push(self.resolve(&r.name));
            }
        }
        out
    }

    /// The operations that raise code `code`: those listing it in their
    /// `codes:`, and those listing a group that lists it, in file order.
    pub fn operations_raising(&self, code: &str) -> Vec<String> {
        let listed = |role: &str, kind: Kind, name: &str| -> Vec<String> {
            self.references
                .iter()
                .filter(|r| r.role == role && r.name.kind == kind && r.name.name == name)
                .map(|r| r.name.scope.clone())
                .collect()
        };
        let groups = listed(GROUP_CODES, Kind::Code, code);
        let mut ops = listed(OPERATION_CODES, Kind::Code, code);
        for g in &groups {
            ops.extend(listed(OPERATION_GROUPS, Kind::Group, g));
        }
        let mut out: Vec<String> = Vec::new();
        for d in self.names_of(Kind::Operation) {
            if ops.contains(&d.name.name) && !out.contains(&d.name.name) {
                out.push(d.name.name.clone());
            }
        }
        out
    }

    /// The codes operation `op` raises (its own and its groups'), in the
    /// order the codes are declared.
    pub fn codes_of_operation(&self, op: &str) -> Vec<String> {
        self.names_of(Kind::Code)
            .filter(|c| {
                self.operations_raising(&c.name.name)
                    .iter()
                    .any(|o| o == op)
            })
            .map(|c| c.name.name.clone())
            .collect()
    }

    /// The uses of `target` with the role of each place.
    pub fn uses(&self, target: &Name) -> Vec<&Reference> {
        self.references
            .iter()
            .filter(|r| Self::names(&r.name, target))
            .collect()
    }
}

/// Kinds whose names are only unique inside their scope.
fn scoped(kind: Kind) -> bool {
    matches!(kind, Kind::Member | Kind::Param)
}

fn span(a: Loc, b: Loc) -> Loc {
    Loc {
        end: b.end.max(a.end),
        ..a
    }
}

/// The way down to a node [`walk`] found: the keys `AnyKey` steps matched
/// (outermost first), and where the node is in the tree.
#[derive(Default)]
struct Walked<'n> {
    scopes: Vec<&'n str>,
    at: Vec<u32>,
}

/// Calls `found` on every node at `path` below `node`.
fn walk<'n>(
    node: &'n Node,
    path: &[Step],
    walked: &mut Walked<'n>,
    found: &mut dyn FnMut(&'n Node, &Walked<'n>),
) {
    let Some((step, rest)) = path.split_first() else {
        found(node, walked);
        return;
    };
    match (step, &node.kind) {
        (Step::Key(key), NodeKind::Map(entries)) => {
            for (i, (k, v)) in entries.iter().enumerate() {
                if k.as_scalar() == Some(key) {
                    walked.at.push(i as u32);
                    walk(v, rest, walked, found);
                    walked.at.pop();
                }
            }
        }
        (Step::AnyKey, NodeKind::Map(entries)) => {
            for (i, (k, v)) in entries.iter().enumerate() {
                walked.scopes.push(k.as_scalar().unwrap_or_default());
                walked.at.push(i as u32);
                walk(v, rest, walked, found);
                walked.at.pop();
                walked.scopes.pop();
            }
        }
        (Step::Item, NodeKind::Seq(items)) => {
            for (i, item) in items.iter().enumerate() {
                walked.at.push(i as u32);
                walk(item, rest, walked, found);
                walked.at.pop();
            }
        }
        (Step::Deep, NodeKind::Map(entries)) => {
            // Zero levels: the rest applies here; then one more level down.
            walk(node, rest, walked, found);
            for (i, (_, v)) in entries.iter().enumerate() {
                walked.at.push(i as u32);
                walk(v, path, walked, found);
                walked.at.pop();
            }
        }
        _ => {}
    }
}

/// The identifiers of a type spelling, with their byte offsets.
fn identifiers(raw: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in raw.char_indices().chain(std::iter::once((raw.len(), ' '))) {
        let ident = c.is_ascii_alphanumeric() || c == '_';
        match (ident, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, &raw[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The names inside `{placeholder}`s of a raw template, with their byte
/// offsets (`{{` and `}}` are literal braces).
pub fn placeholders(raw: &str) -> Vec<(usize, &str)> {
    let bytes = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => i += 2,
            b'{' => {
                let from = i + 1;
                let len = raw[from..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(raw.len() - from);
                if len > 0 && bytes.get(from + len) == Some(&b'}') {
                    out.push((from, &raw[from..from + len]));
                }
                i = from + len;
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(text: &str) -> Index {
        let parsed = crate::yaml::parse(text);
        Index::build(text, parsed.root.expect("a document"))
    }

    #[test]
    fn reads_declarations_and_uses_with_their_ranges() {
        let text = "categories:\n  domain: {}\ntypes:\n  Limit:\n    members:\n      max: { type: integer }\n  Holder:\n    members:\n      l: { type: \"Limit[]\" }\nfields:\n  limit: { type: Limit }\ncodes:\n  X:\n    category: domain\n    message: \"{limit} {p} {{limit}}\"\n    params: { p: {} }\n    context: { required: [limit] }\n";
        let ix = index(text);
        let code = ix.definition(Kind::Code, "X", "").unwrap();
        assert_eq!(&text[code.name.start..code.name.end], "X");
        let member = ix.definition(Kind::Member, "max", "Limit").unwrap();
        assert_eq!(&text[member.name.start..member.name.end], "max");
        let limit_type = Name {
            kind: Kind::Type,
            name: "Limit".into(),
            scope: String::new(),
            start: 0,
            end: 0,
        };
        let uses: Vec<&str> = ix
            .occurrences(&limit_type, true)
            .iter()
            .map(|n| &text[n.start..n.end])
            .collect();
        assert_eq!(uses, ["Limit", "Limit", "Limit"]);
        let field = ix.at(text.find("[limit]").unwrap() + 1).unwrap();
        assert_eq!((field.kind, field.name.as_str()), (Kind::Field, "limit"));
        // `{limit}` in the message is the field, `{p}` the code's
        // parameter, `{{limit}}` literal text.
        let all = ix.occurrences(&field, true);
        assert_eq!(all.len(), 3, "{all:?}");
        let p = ix.at(text.find("{p}").unwrap() + 1).unwrap();
        assert_eq!((p.kind, p.scope.as_str()), (Kind::Param, "X"));
        let cat = ix.at(text.find("category: domain").unwrap() + 11).unwrap();
        assert_eq!(cat.kind, Kind::Category);
    }

    /// A category's defaults name fields and declare parameters as a
    /// code's keys do, so finding or renaming a field reaches them.
    #[test]
    fn category_defaults_are_indexed_like_a_codes_keys() {
        let text = "fields:\n  status: { type: integer }\ncategories:\n  client:\n    message: \"{status} {text}\"\n    params: { text: {} }\n    context: { required: [status] }\n    recovery_hints:\n      - { text: \"{text}\", when: { status: x } }\ncodes:\n  X:\n    category: client\n    context: { optional: [status] }\n";
        let ix = index(text);
        let field = ix.at(text.find("status:").unwrap() + 1).unwrap();
        assert_eq!((field.kind, field.name.as_str()), (Kind::Field, "status"));
        // The declaration, the message, the category's context and hint
        // condition, and the code's context.
        assert_eq!(ix.occurrences(&field, true).len(), 5);
        let p = ix.at(text.find("{text}").unwrap() + 1).unwrap();
        assert_eq!((p.kind, p.scope.as_str()), (Kind::Param, "client"));
        // The declaration and the two templates.
        assert_eq!(ix.occurrences(&p, true).len(), 3);
    }

    #[test]
    fn families_are_declared_and_name_their_category() {
        let text = "categories:\n  client: {}\nfamilies:\n  gone:\n    suffix: Gone\n    category: client\ncodes:\n  X:\n    category: client\n";
        let ix = index(text);
        let family = ix.at(text.find("gone:").unwrap() + 1).unwrap();
        assert_eq!((family.kind, family.name.as_str()), (Kind::Family, "gone"));
        let category = ix.at(text.find("client: {}").unwrap() + 1).unwrap();
        assert_eq!(category.kind, Kind::Category);
        // The declaration, the family's category and the code's: a rename
        // of the category reaches the family.
        assert_eq!(ix.occurrences(&category, true).len(), 3);
    }

    /// `absent_means` per category: its keys are categories, its values
    /// codes, so a rename of either reaches the mapping.
    #[test]
    fn absent_means_per_category_names_categories_and_codes() {
        let text = "envelope:\n  error:\n    members:\n      type: { carries: category }\n      code:\n        carries: code_name\n        absent_means: { api_error: API_ERROR }\ncategories:\n  api_error: {}\ncodes:\n  API_ERROR:\n    category: api_error\n";
        let ix = index(text);
        let code = ix.at(text.find("API_ERROR:").unwrap() + 1).unwrap();
        assert_eq!((code.kind, code.name.as_str()), (Kind::Code, "API_ERROR"));
        let uses: Vec<usize> = ix
            .occurrences(&code, true)
            .iter()
            .map(|n| n.start)
            .collect();
        assert!(
            uses.contains(&text.find("API_ERROR }").unwrap()),
            "{uses:?}"
        );
        assert_eq!(uses.len(), 2);
        let category = ix.at(text.find("api_error: {}").unwrap() + 1).unwrap();
        assert_eq!(category.kind, Kind::Category);
        let uses: Vec<usize> = ix
            .occurrences(&category, true)
            .iter()
            .map(|n| n.start)
            .collect();
        assert!(
            uses.contains(&text.find("api_error: API").unwrap()),
            "{uses:?}"
        );
        assert_eq!(uses.len(), 3);
    }

    /// The type of a member of a response (`type:` beside `list: true`)
    /// is a use of the type, so a rename of the type reaches it.
    #[test]
    fn a_response_members_type_is_a_use_of_the_type() {
        let text = "envelope:\n  errors:\n    list: true\n    members:\n      code: { carries: code_name }\n  data: { type: \"Result[]\", optional: true }\ntypes:\n  Result:\n    members:\n      id: { type: string }\n";
        let ix = index(text);
        let ty = ix.at(text.find("Result:").unwrap() + 1).unwrap();
        assert_eq!((ty.kind, ty.name.as_str()), (Kind::Type, "Result"));
        let uses: Vec<usize> = ix.occurrences(&ty, true).iter().map(|n| n.start).collect();
        assert_eq!(
            uses,
            [
                text.find("Result:").unwrap(),
                text.find("Result[]").unwrap()
            ]
        );
    }

    #[test]
    fn the_repository_specs_index_every_code() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let text = std::fs::read_to_string(root.join("errors.yaml")).unwrap();
        let spec = crate::load_str(&text, "errors.yaml").unwrap();
        let ix = index(&text);
        assert_eq!(ix.names_of(Kind::Code).count(), spec.codes.len());
        for code in &spec.codes {
            let d = ix.definition(Kind::Code, &code.name.value, "").unwrap();
            assert_eq!(&text[d.name.start..d.name.end], code.name.value);
            for r in code.required_context.iter().chain(&code.optional_context) {
                let here = ix.at(r.loc.start).unwrap();
                assert_eq!(
                    (here.kind, here.name.as_str()),
                    (Kind::Field, r.value.as_str())
                );
            }
        }
    }
}
