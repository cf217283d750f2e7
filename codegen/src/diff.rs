//! Compatibility of two versions of the taxonomy.
//!
//! The envelope is a contract with clients that match on `error_code`, read
//! `retryable` and `cause`, and rely on the context fields a code promises.
//! Like a semver checker comparing a crate against its last published
//! version, [`diff`] compares a spec against the last released one
//! (`schema/baseline/errors.yaml`) and classifies every difference as
//! [`Compat::Breaking`] or [`Compat::Compatible`]. CI fails on a breaking
//! change unless the new spec bumps the major version.
//!
//! Classification (documented in `docs/spec-format.md`):
//!
//! - breaking: a code deleted from the file, renumbered, moved to another
//!   category, a changed (resolved) `retryable` or `cause`, a required
//!   context field added or no longer required, an active code marked
//!   removed, a number reused by a different code, a category deleted or its
//!   range changed, a changed `base_uri` (the schema `$id`),
//!   a code family removed, narrowed, re-categorized or put before another
//!   family of another category that its codes may match, a code added
//!   whose name an old family of another category held;
//! - compatible: codes, categories and families added, a family widened,
//!   text reworded (title, message,
//!   hints, explanation, descriptions), parameters changed, examples
//!   changed (documentation only), deprecations,
//!   optional context added or dropped.
//!
//! Independently, the version must move forward: a spec whose content
//! changed needs a higher version than the baseline, and a spec that adds
//! to the contract ([`Change::adds`]) a higher minor version: a client
//! validating with the old release's schema rejects what is added.

use std::fmt::Write as _;

use crate::span::Loc;
use crate::spec::{Code, HintCondition, Lifecycle, Spec};

/// Whether a change can break a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Compat {
    /// A client written against the old spec may misbehave.
    Breaking,
    /// Old clients keep working.
    Compatible,
}

/// One difference between the two specs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Its classification.
    pub compat: Compat,
    /// What changed, lowercase, naming the code.
    pub message: String,
    /// Where in the new spec, when the thing still exists there.
    pub loc: Option<Loc>,
    /// Whether it adds to the contract (a code, a category, a field, a type,
    /// an enum value, a member, a field a code may carry): something a
    /// client built against the old release does not know. Only a minor or
    /// major release may add.
    pub adds: bool,
    /// A compatible change clients should still look at (an operation
    /// raises a code it did not: a client that matches the operation's
    /// codes exhaustively sees a new one), as smithy-diff warns on
    /// `AddedOperationError`. Shown as `warning:`.
    pub warning: bool,
}

/// The result of [`diff`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffReport {
    /// Version of the old spec.
    pub old_version: semver::Version,
    /// Version of the new spec.
    pub new_version: semver::Version,
    /// Every difference, breaking ones first, then in new-file order.
    pub changes: Vec<Change>,
    /// Problems with the version number itself (it went backwards, or the
    /// content changed without a new version). Always fatal.
    pub version_problems: Vec<String>,
}

impl DiffReport {
    /// True if any change is breaking.
    pub fn has_breaking(&self) -> bool {
        self.changes.iter().any(|c| c.compat == Compat::Breaking)
    }

    /// True if the new spec has a higher major version.
    pub fn major_bump(&self) -> bool {
        self.new_version.major > self.old_version.major
    }

    /// True when the new spec may be released: the version moved forward as
    /// needed, and breaking changes (if any) come with a major bump.
    pub fn is_acceptable(&self) -> bool {
        self.version_problems.is_empty() && (!self.has_breaking() || self.major_bump())
    }

    /// The report for people: one line per change, then the verdict.
    /// `new_file` prefixes locations (`errors.yaml:12:5`).
    pub fn render(&self, new_file: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "comparing taxonomy {} -> {}",
            self.old_version, self.new_version
        );
        for c in &self.changes {
            let tag = match c.compat {
                Compat::Breaking => "breaking",
                Compat::Compatible if c.warning => "warning",
                Compat::Compatible => "compatible",
            };
            match c.loc {
                Some(loc) => {
                    let _ = writeln!(out, "{tag}: {new_file}:{loc}: {}", c.message);
                }
                None => {
                    let _ = writeln!(out, "{tag}: {}", c.message);
                }
            }
        }
        for p in &self.version_problems {
            let _ = writeln!(out, "error: {p}");
        }
        let breaking = self
            .changes
            .iter()
            .filter(|c| c.compat == Compat::Breaking)
            .count();
        let compatible = self.changes.len() - breaking;
        let _ = write!(
            out,
            "{breaking} breaking, {compatible} compatible change(s): "
        );
        let verdict = if !self.version_problems.is_empty() {
            "not acceptable (see the version errors above)".to_string()
        } else if breaking > 0 && self.major_bump() {
            format!(
                "breaking changes are allowed by the major version bump {} -> {}",
                self.old_version, self.new_version
            )
        } else if breaking > 0 {
            format!(
                "not acceptable: breaking changes need a new major version (taxonomy.version {} -> {}.0.0), \
                 or undo them",
                self.new_version,
                self.old_version.major.saturating_add(1)
            )
        } else {
            "compatible".to_string()
        };
        let _ = writeln!(out, "{verdict}");
        out
    }
}

/// Compares `old` (the released baseline) with `new`.
pub fn diff(old: &Spec, new: &Spec) -> DiffReport {
    let mut d = Differ {
        changes: Vec::new(),
    };
    d.taxonomy(old, new);
    let entry = d.response(
        old.envelope.response.as_ref(),
        new.envelope.response.as_ref(),
    );
    d.envelope(&old.envelope.members, &new.envelope.members, &entry);
    d.categories(old, new);
    d.declarations(old, new);
    d.codes(old, new);
    d.reserved(old, new);
    d.retry(old, new);
    d.attributes(old, new);
    d.operations(old, new);
    d.families(old, new);
    let mut changes = d.changes;
    // Stable: breaking first, each group in the order found.
    changes.sort_by_key(|c| c.compat);

    let (ov, nv) = (&old.taxonomy.version.value, &new.taxonomy.version.value);
    let mut version_problems = Vec::new();
    if nv < ov {
        version_problems.push(format!("taxonomy.version went backwards: {ov} -> {nv}"));
    } else if nv == ov && (!changes.is_empty() || old != new && content_differs(old, new)) {
        version_problems.push(format!(
            "the taxonomy changed but taxonomy.version is still {nv}; bump it ({})",
            if changes.iter().any(|c| c.compat == Compat::Breaking) {
                format!("{}.0.0 for breaking changes", ov.major.saturating_add(1))
            } else if changes.iter().any(|c| c.adds) {
                format!(
                    "at least {}.{}.0 for additions",
                    ov.major,
                    ov.minor.saturating_add(1)
                )
            } else {
                format!(
                    "at least {}.{}.{}",
                    ov.major,
                    ov.minor,
                    ov.patch.saturating_add(1)
                )
            }
        ));
    }
    // The published schema is open (an unlisted code, member or enum value
    // still validates), so a client built against the previous release
    // accepts an envelope that uses an addition; but it cannot know what
    // the addition means. Semantic versioning therefore puts additions in
    // a minor release, which tells clients there is something new to
    // learn; a patch release only rewords.
    if let Some(first) = changes.iter().find(|c| c.adds)
        && nv > ov
        && (nv.major, nv.minor) == (ov.major, ov.minor)
    {
        version_problems.push(format!(
            "{} in a patch release ({ov} -> {nv}): an addition is new behaviour, which semantic \
             versioning releases in a minor version (envelopes that use it still validate against \
             the {ov} schema, but {ov} clients do not know what it means); bump to at least {}.{}.0",
            first.message,
            ov.major,
            ov.minor.saturating_add(1)
        ));
    }
    DiffReport {
        old_version: ov.clone(),
        new_version: nv.clone(),
        changes,
        version_problems,
    }
}

/// True when the specs differ in anything but where things are written
/// (comments and formatting are not content; [`Spanned`](crate::span::Spanned)
/// equality ignores locations).
fn content_differs(old: &Spec, new: &Spec) -> bool {
    normalized(old) != normalized(new)
}

/// `spec` with what is formatting rather than content made alike: the order
/// of a code's example entries, and whether splice's envelope is written
/// out or left implicit.
fn normalized(spec: &Spec) -> Spec {
    let mut s = spec.clone();
    s.envelope.declared = false;
    for c in &mut s.codes {
        c.examples.sort_by(|a, b| a.name.value.cmp(&b.name.value));
    }
    s
}

/// The old and new value of a `pattern` or `format`, and which one.
type ConstraintPair<'a> = (
    &'a Option<crate::span::Spanned<String>>,
    &'a Option<crate::span::Spanned<String>>,
    &'a str,
);

struct Differ {
    changes: Vec<Change>,
}

/// ` (VALUE)` for a constant, else nothing.
fn constant(c: &crate::envelope::Carries) -> String {
    match c {
        crate::envelope::Carries::Constant(v) => format!(" ({v})"),
        _ => String::new(),
    }
}

impl Differ {
    fn breaking(&mut self, loc: Option<Loc>, message: String) {
        self.changes.push(Change {
            compat: Compat::Breaking,
            message,
            loc,
            adds: false,
            warning: false,
        });
    }

    fn compatible(&mut self, loc: Option<Loc>, message: String) {
        self.changes.push(Change {
            compat: Compat::Compatible,
            message,
            loc,
            adds: false,
            warning: false,
        });
    }

    /// A compatible change that adds to the contract (see [`Change::adds`]).
    fn added(&mut self, loc: Option<Loc>, message: String) {
        self.changes.push(Change {
            compat: Compat::Compatible,
            message,
            loc,
            adds: true,
            warning: false,
        });
    }

    /// An addition clients should look at (see [`Change::warning`]).
    fn added_with_warning(&mut self, loc: Option<Loc>, message: String) {
        self.changes.push(Change {
            compat: Compat::Compatible,
            message,
            loc,
            adds: true,
            warning: true,
        });
    }

    /// The operations and the codes each raises (groups are how the spec
    /// writes the lists, not part of the contract: only what each operation
    /// raises is compared). Removing an operation or renaming it on the
    /// wire breaks its callers; adding one is an addition; an operation
    /// that raises a new code is an addition clients with exhaustive
    /// matches must look at (a warning); one that no longer raises a code
    /// is compatible (its clients handle a code that no longer comes).
    fn operations(&mut self, old: &Spec, new: &Spec) {
        for o in &old.operations {
            let name = &o.name.value;
            let Some(n) = new.operation(name) else {
                self.breaking(
                    None,
                    format!("operation `{name}` removed: its callers break"),
                );
                continue;
            };
            if o.wire() != n.wire() {
                self.breaking(
                    Some(n.wire.as_ref().map_or(n.name.loc, |w| w.loc)),
                    format!(
                        "wire name of operation `{name}` changed from `{}` to `{}`: its callers break",
                        o.wire(),
                        n.wire()
                    ),
                );
            }
            if o.doc.value != n.doc.value {
                self.compatible(
                    Some(n.doc.loc),
                    format!("doc of operation `{name}` reworded"),
                );
            }
            let was: Vec<&str> = old
                .operation_codes(o)
                .iter()
                .map(|c| c.name.value.as_str())
                .collect();
            let now: Vec<&str> = new
                .operation_codes(n)
                .iter()
                .map(|c| c.name.value.as_str())
                .collect();
            for code in now.iter().filter(|c| !was.contains(c)) {
                self.added_with_warning(
                    Some(n.codes_at),
                    format!(
                        "operation `{name}` now raises `{code}`: clients that match its codes \
                         exhaustively (or validate with the older `{}`) see a code they did not expect",
                        n.error_type_name()
                    ),
                );
            }
            for code in was.iter().filter(|c| !now.contains(c)) {
                self.compatible(
                    Some(n.codes_at),
                    format!(
                        "operation `{name}` no longer raises `{code}`: its clients' handling of it \
                         is no longer reached"
                    ),
                );
            }
        }
        for n in &new.operations {
            if old.operation(&n.name.value).is_none() {
                self.added(
                    Some(n.name.loc),
                    format!("operation `{}` added", n.name.value),
                );
            }
        }
        self.code_groups(old, new);
    }

    /// The code groups. A client sees only what each operation raises (see
    /// [`Self::operations`]); a group is how the spec and the service's own
    /// code (the Rust bound `operation::group::X`) share a list. So a
    /// change to one is compatible and adds nothing, but is reported: the
    /// service's code that names a removed group no longer builds, and the
    /// release must still say it changed.
    fn code_groups(&mut self, old: &Spec, new: &Spec) {
        fn group<'s>(spec: &'s Spec, name: &str) -> Option<&'s crate::spec::CodeGroup> {
            spec.groups.iter().find(|g| g.name.value == name)
        }
        for o in &old.groups {
            let name = &o.name.value;
            let Some(n) = group(new, name) else {
                self.compatible(None, format!("code group `{name}` removed"));
                continue;
            };
            if o.doc.value != n.doc.value {
                self.compatible(
                    Some(n.doc.loc),
                    format!("doc of code group `{name}` reworded"),
                );
            }
            let codes = |g: &crate::spec::CodeGroup| -> Vec<String> {
                g.codes.iter().map(|c| c.value.clone()).collect()
            };
            let (was, now) = (codes(o), codes(n));
            for code in now.iter().filter(|c| !was.contains(c)) {
                self.compatible(
                    Some(n.name.loc),
                    format!("code group `{name}` now holds `{code}`"),
                );
            }
            for code in was.iter().filter(|c| !now.contains(c)) {
                self.compatible(
                    Some(n.name.loc),
                    format!("code group `{name}` no longer holds `{code}`"),
                );
            }
        }
        for n in &new.groups {
            if group(old, &n.name.value).is_none() {
                self.compatible(
                    Some(n.name.loc),
                    format!("code group `{}` added", n.name.value),
                );
            }
        }
    }

    /// The families (`families:`). A client of the released version reads an
    /// unlisted code of a family as that family's category, `retryable`
    /// and cause (its schema fixes them in the family's variant), so what
    /// changes that reading for some name is breaking: a family removed,
    /// narrowed or given another rule, its category changed (or the
    /// category's `retryable` or `cause`), or a family that now comes first
    /// for names an old family of another category held. A family added or
    /// widened only gives names that were of no family one: compatible.
    /// What a listed code reads as cannot change, since a listed name is
    /// never a family's; a code added whose name an old family held is
    /// judged with the codes.
    fn families(&mut self, old: &Spec, new: &Spec) {
        use crate::spec::Family;
        fn find<'s>(spec: &'s Spec, name: &str) -> Option<(usize, &'s Family)> {
            spec.families
                .iter()
                .enumerate()
                .find(|(_, f)| f.name.value == name)
        }
        for o in &old.families {
            let name = &o.name.value;
            let (o_rule, o_glob) = (&o.rule.value, o.rule.value.glob());
            let Some((_, n)) = find(new, name) else {
                self.breaking(
                    None,
                    format!(
                        "family `{name}` (`{o_glob}`) removed: clients of the released version read its codes as category `{}`",
                        o.category.value
                    ),
                );
                continue;
            };
            let n_glob = n.rule.value.glob();
            if o_rule != &n.rule.value {
                if n.rule.value.covers(o_rule) {
                    self.added(
                        Some(n.rule.loc),
                        format!("family `{name}` widened from `{o_glob}` to `{n_glob}`"),
                    );
                } else {
                    self.breaking(
                        Some(n.rule.loc),
                        format!(
                            "family `{name}` changed from `{o_glob}` to `{n_glob}`: a code named as `{o_glob}` may no longer be of it"
                        ),
                    );
                }
            }
            if o.category.value != n.category.value {
                self.breaking(
                    Some(n.category.loc),
                    format!(
                        "family `{name}` moved from category `{}` to `{}`",
                        o.category.value, n.category.value
                    ),
                );
            } else if let (Some(oc), Some(nc)) = (
                old.category(&o.category.value),
                new.category(&n.category.value),
            ) {
                if oc.retryable.value != nc.retryable.value {
                    self.breaking(
                        Some(nc.retryable.loc),
                        format!(
                            "the codes of family `{name}` changed from retryable: {} to {} (category `{}`)",
                            oc.retryable.value, nc.retryable.value, nc.key.value
                        ),
                    );
                }
                if oc.cause.value != nc.cause.value {
                    self.breaking(
                        Some(nc.cause.loc),
                        format!(
                            "the cause of the codes of family `{name}` changed from {} to {} (category `{}`)",
                            oc.cause.value.as_str(),
                            nc.cause.value.as_str(),
                            nc.key.value
                        ),
                    );
                }
            }
            if o.doc.value != n.doc.value {
                self.compatible(Some(n.doc.loc), format!("doc of family `{name}` reworded"));
            }
        }
        for (i, a) in new.families.iter().enumerate() {
            let old_a = find(old, &a.name.value);
            if old_a.is_none() {
                self.added(
                    Some(a.name.loc),
                    format!(
                        "family `{}` (`{}`, category `{}`) added",
                        a.name.value,
                        a.rule.value.glob(),
                        a.category.value
                    ),
                );
            }
            // A family before `b` that was not before it (new, moved up,
            // or with another rule) takes the names both match.
            for b in &new.families[i + 1..] {
                let Some((j, old_b)) = find(old, &b.name.value) else {
                    continue;
                };
                let was_first = old_a.is_some_and(|(k, o)| k < j && o.rule.value == a.rule.value);
                if was_first
                    || a.category.value == b.category.value
                    || !a.rule.value.may_overlap(&old_b.rule.value)
                {
                    continue;
                }
                self.breaking(
                    Some(a.name.loc),
                    format!(
                        "family `{}` (`{}`, category `{}`) now comes before family `{}` (`{}`, category `{}`): a code both match is no longer `{}`",
                        a.name.value,
                        a.rule.value.glob(),
                        a.category.value,
                        b.name.value,
                        old_b.rule.value.glob(),
                        b.category.value,
                        b.category.value
                    ),
                );
            }
        }
    }

    fn taxonomy(&mut self, old: &Spec, new: &Spec) {
        let (o, n) = (&old.taxonomy, &new.taxonomy);
        if o.base_uri.value != n.base_uri.value {
            self.breaking(
                Some(n.base_uri.loc),
                format!(
                    "base_uri changed from `{}` to `{}`: the schema $id changes",
                    o.base_uri.value, n.base_uri.value
                ),
            );
        }
        if o.name.value != n.name.value {
            self.compatible(
                Some(n.name.loc),
                format!(
                    "taxonomy renamed from `{}` to `{}`",
                    o.name.value, n.name.value
                ),
            );
        }
        if o.description.as_ref().map(|d| &d.value) != n.description.as_ref().map(|d| &d.value) {
            self.compatible(
                n.description.as_ref().map(|d| d.loc),
                "taxonomy description reworded".into(),
            );
        }
        // A rule on how the spec assigns numbers, never on the wire: the
        // ranges themselves are compared per category.
        if o.range_block.as_ref().map(|b| b.value) != n.range_block.as_ref().map(|b| b.value) {
            let show = |b: Option<i64>| b.map_or("none".to_string(), |b| b.to_string());
            self.compatible(
                n.range_block.as_ref().map(|b| b.loc),
                format!(
                    "range_block changed from {} to {}",
                    show(o.range_block.as_ref().map(|b| b.value)),
                    show(n.range_block.as_ref().map(|b| b.value))
                ),
            );
        }
        // Numbers leave every artifact (the `number` of `CodeInfo`, Rust's
        // `ErrorCode::number()`, the reference's columns): code that reads
        // them breaks. Numbering a taxonomy adds them, and each code's number
        // is new, so there is nothing to compare it with.
        match (o.numbered(), n.numbered()) {
            (true, false) => self.breaking(
                n.numbered.as_ref().map(|b| b.loc),
                "the codes are no longer numbered (`numbered: false`): clients reading a \
                 code's number lose it"
                    .into(),
            ),
            (false, true) => self.compatible(
                n.numbered.as_ref().map(|b| b.loc),
                "the codes are numbered now: each code gains a number".into(),
            ),
            _ => {}
        }
        // Under `code_names: per_category` two categories may share a name:
        // a client that keys codes by name alone reads the wrong one.
        use crate::spec::CodeNames;
        let at = n.code_names.as_ref().map(|c| c.loc);
        match (o.code_names(), n.code_names()) {
            (CodeNames::Unique, CodeNames::PerCategory) => self.breaking(
                at,
                "code names are unique only within their category now (`code_names: \
                 per_category`): clients that key codes by name alone may read the wrong code"
                    .into(),
            ),
            (CodeNames::PerCategory, CodeNames::Unique) => self.compatible(
                at,
                "code names are unique across the taxonomy now: a name alone tells a code".into(),
            ),
            _ => {}
        }
        // With optional hints the schema accepts an empty list of hints: a
        // reader validating with the old schema, or reading the first
        // hint, breaks when the envelope sends them.
        use crate::spec::HintsRule;
        let at = n.hints.as_ref().map(|h| h.loc);
        match (o.hints(), n.hints()) {
            (HintsRule::Required, HintsRule::Optional) if new.envelope.carries("hints") => self
                .breaking(
                    at,
                    "recovery hints are optional now (`hints: optional`): an envelope may \
                     carry an empty list of hints, which clients expecting one refuse"
                        .into(),
                ),
            (HintsRule::Required, HintsRule::Optional) => self.compatible(
                at,
                "recovery hints are optional now (`hints: optional`)".into(),
            ),
            (HintsRule::Optional, HintsRule::Required) => self.compatible(
                at,
                "recovery hints are required now: every code has at least one".into(),
            ),
            _ => {}
        }
    }

    /// The response around a list of envelopes (`list: true`). Adding,
    /// removing or renaming the list breaks every reader (an error moves
    /// into or out of a list); a response member is on the wire as an
    /// envelope member is: removing it, changing what it holds, or making it
    /// optional breaks readers, adding an optional one is an addition, a
    /// required one breaks. Returns the prefix of an entry's members in the
    /// messages (`errors[].`).
    fn response(
        &mut self,
        old: Option<&crate::envelope::Response>,
        new: Option<&crate::envelope::Response>,
    ) -> String {
        use crate::envelope::{Holds, ResponseMember};
        let loc = |m: &ResponseMember| (m.name.loc.line > 0).then_some(m.name.loc);
        let (old, new) = match (old, new) {
            (None, None) => return String::new(),
            (Some(o), None) => {
                self.breaking(
                    None,
                    format!(
                        "envelope member `{}` is no longer a list: an error is no longer an entry of a response",
                        o.list().name.value
                    ),
                );
                return String::new();
            }
            (None, Some(n)) => {
                self.breaking(
                    loc(n.list()),
                    format!(
                        "envelope member `{}` is a list now: an error is an entry of a response",
                        n.list().name.value
                    ),
                );
                return format!("{}[].", n.list().name.value);
            }
            (Some(o), Some(n)) => (o, n),
        };
        if old.list().name.value != new.list().name.value {
            self.breaking(
                loc(new.list()),
                format!(
                    "the list of errors moved from `{}` to `{}`",
                    old.list().name.value,
                    new.list().name.value
                ),
            );
        }
        let holds = |m: &ResponseMember| match &m.holds {
            Holds::List => "the list of errors".to_owned(),
            Holds::Constant(v) => format!("the constant {v}"),
            Holds::Typed { .. } => format!(
                "a value of type `{}`",
                m.ty().map_or_else(String::new, |t| t.spelling())
            ),
        };
        for o in &old.members {
            let name = &o.name.value;
            let Some(n) = new.members.iter().find(|n| n.name.value == *name) else {
                if o.holds != Holds::List {
                    self.breaking(None, format!("response member `{name}` removed or renamed"));
                }
                continue;
            };
            if o.holds == Holds::List || n.holds == Holds::List {
                continue;
            }
            if holds(o) != holds(n) {
                self.breaking(
                    loc(n),
                    format!(
                        "response member `{name}` held {} and now holds {}",
                        holds(o),
                        holds(n)
                    ),
                );
            }
            if o.required && !n.required {
                self.breaking(loc(n), format!("response member `{name}` made optional"));
            } else if !o.required && n.required {
                self.compatible(
                    loc(n),
                    format!("response member `{name}` made always present"),
                );
            }
            if o.doc.as_ref().map(|d| &d.value) != n.doc.as_ref().map(|d| &d.value) {
                self.compatible(loc(n), format!("doc of response member `{name}` reworded"));
            }
        }
        for n in &new.members {
            if n.holds == Holds::List || old.members.iter().any(|o| o.name.value == n.name.value) {
                continue;
            }
            let name = &n.name.value;
            if n.required {
                self.breaking(
                    loc(n),
                    format!("response member `{name}` added as always present"),
                );
            } else {
                self.added(loc(n), format!("optional response member `{name}` added"));
            }
        }
        format!("{}[].", new.list().name.value)
    }

    /// The declared `envelope:` (splice's when absent). Every member is on
    /// the wire: removing one, renaming one, changing what it carries or its
    /// nesting, or making it optional breaks readers; adding an optional
    /// member is an addition (open objects accept it); rewording a `doc`
    /// is compatible.
    fn envelope(
        &mut self,
        old: &[crate::envelope::Member],
        new: &[crate::envelope::Member],
        prefix: &str,
    ) {
        use crate::envelope::Carries;
        let loc = |m: &crate::envelope::Member| (m.name.loc.line > 0).then_some(m.name.loc);
        for o in old {
            let path = format!("{prefix}{}", o.name.value);
            let Some(n) = new.iter().find(|n| n.name.value == o.name.value) else {
                self.breaking(None, format!("envelope member `{path}` removed or renamed"));
                continue;
            };
            match (&o.carries, &n.carries) {
                (Carries::Object(oi), Carries::Object(ni)) => {
                    self.envelope(oi, ni, &format!("{path}."));
                }
                (oc, nc) if oc != nc => self.breaking(
                    loc(n),
                    format!(
                        "envelope member `{path}` carried `{}`{} and now carries `{}`{}",
                        oc.as_str(),
                        constant(oc),
                        nc.as_str(),
                        constant(nc)
                    ),
                ),
                _ => {}
            }
            if o.required && !n.required {
                self.breaking(loc(n), format!("envelope member `{path}` made optional"));
            } else if !o.required && n.required {
                self.compatible(
                    loc(n),
                    format!("envelope member `{path}` made always present"),
                );
            }
            self.absent_means(&path, o, n);
            if o.doc.as_ref().map(|d| &d.value) != n.doc.as_ref().map(|d| &d.value) {
                self.compatible(loc(n), format!("doc of envelope member `{path}` reworded"));
            }
            self.constraints(
                &format!("envelope member `{path}`"),
                n.name.loc,
                [
                    (&o.pattern, &n.pattern, "pattern"),
                    (&o.format, &n.format, "format"),
                ],
            );
        }
        for n in new {
            if old.iter().any(|o| o.name.value == n.name.value) {
                continue;
            }
            let path = format!("{prefix}{}", n.name.value);
            if n.required {
                self.breaking(
                    loc(n),
                    format!("envelope member `{path}` added as always present"),
                );
            } else {
                self.added(loc(n), format!("optional envelope member `{path}` added"));
            }
        }
    }

    /// The declared `fields:` and `types:`. Every field is written by the
    /// server and read by clients, so: removing a field, type, member or enum
    /// value, changing a type or a placement, or changing whether a member is
    /// required breaks readers (or clients validating with the old schema);
    /// adding a field, a type, an optional member or an enum value and
    /// rewording docs is compatible.
    fn declarations(&mut self, old: &Spec, new: &Spec) {
        for o in &old.fields {
            let name = o.name();
            match new.field(name) {
                None => self.breaking(
                    None,
                    format!("context field `{name}` was removed: clients reading it break"),
                ),
                Some(n) => {
                    if o.ty() != n.ty() {
                        self.breaking(
                            Some(n.ty.loc),
                            format!(
                                "type of context field `{name}` changed from `{}` to `{}`",
                                o.ty(),
                                n.ty()
                            ),
                        );
                    }
                    if o.wire() != n.wire() {
                        self.breaking(
                            Some(n.wire.as_ref().map_or(n.name.loc, |w| w.loc)),
                            format!(
                                "wire name of context field `{name}` changed from `{}` to `{}`",
                                o.wire(),
                                n.wire()
                            ),
                        );
                    }
                    self.constraints(
                        &format!("context field `{name}`"),
                        n.name.loc,
                        [
                            (&o.pattern, &n.pattern, "pattern"),
                            (&o.format, &n.format, "format"),
                        ],
                    );
                    if o.placement() != n.placement() {
                        self.breaking(
                            Some(n.placement.loc),
                            format!(
                                "context field `{name}` moved from `{}` to `{}`",
                                o.placement().as_str(),
                                n.placement().as_str()
                            ),
                        );
                    }
                    if o.doc() != n.doc() {
                        self.compatible(
                            Some(n.doc.loc),
                            format!("doc of context field `{name}` reworded"),
                        );
                    }
                    let example =
                        |f: &crate::context::FieldDef| f.example.as_ref().map(|e| e.value.clone());
                    if example(o) != example(n) {
                        self.compatible(
                            Some(n.example.as_ref().map_or(n.name.loc, |e| e.loc)),
                            format!(
                                "example of context field `{name}` changed (documentation only)"
                            ),
                        );
                    }
                }
            }
        }
        for n in &new.fields {
            if old.field(n.name()).is_none() {
                self.added(
                    Some(n.name.loc),
                    format!("context field `{}` added", n.name()),
                );
            }
        }
        for o in &old.types {
            let name = &o.name.value;
            let Some(n) = new.type_def(name) else {
                self.breaking(None, format!("type `{name}` was removed"));
                continue;
            };
            if o.doc.value != n.doc.value {
                self.compatible(Some(n.doc.loc), format!("doc of type `{name}` reworded"));
            }
            match (o.values(), n.values()) {
                (Some(ov), Some(nv)) => {
                    for v in ov {
                        if !nv.iter().any(|w| w.value == v.value) {
                            self.breaking(
                                Some(n.name.loc),
                                format!("value `{}` of enum `{name}` was removed", v.value),
                            );
                        } else if o.wire_of(&v.value) != n.wire_of(&v.value) {
                            self.breaking(
                                Some(n.name.loc),
                                format!(
                                    "wire spelling of value `{}` of enum `{name}` changed from `{}` to `{}`",
                                    v.value,
                                    o.wire_of(&v.value),
                                    n.wire_of(&v.value)
                                ),
                            );
                        }
                    }
                    for v in nv {
                        if !ov.iter().any(|w| w.value == v.value) {
                            self.added(
                                Some(v.loc),
                                format!(
                                    "value `{}` added to enum `{name}` (written by the server only; \
                                     clients must treat unknown values as unknown)",
                                    v.value
                                ),
                            );
                        }
                    }
                }
                (None, None) => match (o.union(), n.union(), o.one_of(), n.one_of()) {
                    (None, None, None, None) => self.members(name, o, n),
                    (Some(ou), Some(nu), _, _) => self.union(name, ou, nu),
                    (_, _, Some(oo), Some(no)) => self.one_of(name, oo, no, n.name.loc),
                    _ => self.breaking(
                        Some(n.name.loc),
                        format!(
                            "type `{name}` changed from {} to {}",
                            type_kind(o),
                            type_kind(n)
                        ),
                    ),
                },
                _ => self.breaking(
                    Some(n.name.loc),
                    format!(
                        "type `{name}` changed from {} to {}",
                        type_kind(o),
                        type_kind(n)
                    ),
                ),
            }
        }
        for n in &new.types {
            if old.type_def(&n.name.value).is_none() {
                self.added(Some(n.name.loc), format!("type `{}` added", n.name.value));
            }
        }
    }

    /// A union: its discriminator and each variant's tag are wire names
    /// (changing one is breaking); a variant dropped is breaking, a variant
    /// added an addition.
    fn union(&mut self, name: &str, o: &crate::context::Union, n: &crate::context::Union) {
        if o.discriminator.value != n.discriminator.value {
            self.breaking(
                Some(n.discriminator.loc),
                format!(
                    "discriminator of union `{name}` changed from `{}` to `{}`",
                    o.discriminator.value, n.discriminator.value
                ),
            );
        }
        for ov in &o.variants {
            match n.variants.iter().find(|v| v.ty.value == ov.ty.value) {
                None => self.breaking(
                    Some(n.discriminator.loc),
                    format!("variant `{}` of union `{name}` was removed", ov.ty.value),
                ),
                Some(nv) if nv.tag.value != ov.tag.value => self.breaking(
                    Some(nv.tag.loc),
                    format!(
                        "tag of variant `{}` of union `{name}` changed from `{}` to `{}`",
                        ov.ty.value, ov.tag.value, nv.tag.value
                    ),
                ),
                Some(_) => {}
            }
        }
        // The released schema's union is a `oneOf` of its variants, each
        // with its tag pinned: a value of a new variant matches none.
        for nv in &n.variants {
            if !o.variants.iter().any(|v| v.ty.value == nv.ty.value) {
                self.breaking(
                    Some(nv.ty.loc),
                    format!(
                        "variant `{}` added to union `{name}`: the released schema refuses a value \
                         tagged `{}: {}` (its `oneOf` lists only the variants it knew)",
                        nv.ty.value, n.discriminator.value, nv.tag.value
                    ),
                );
            }
        }
    }

    /// A union of scalars: a type (or `null`) added lets the server send
    /// values old clients reject (breaking, as a member made `nullable`
    /// is); one dropped only narrows what it sends (compatible).
    fn one_of(
        &mut self,
        name: &str,
        o: &crate::context::OneOf,
        n: &crate::context::OneOf,
        at: Loc,
    ) {
        let (os, ns) = (o.entries(), n.entries());
        for (t, loc) in &ns {
            if !os.iter().any(|(u, _)| u == t) {
                self.breaking(
                    Some(*loc),
                    format!(
                        "`{t}` added to `one_of` of type `{name}` (clients of the older schema reject such values)"
                    ),
                );
            }
        }
        for (t, _) in &os {
            if !ns.iter().any(|(u, _)| u == t) {
                self.compatible(
                    Some(at),
                    format!("`{t}` dropped from `one_of` of type `{name}` (the server sends less)"),
                );
            }
        }
    }

    /// What an envelope without the code-name member means, old against
    /// new, per category (a single code stands for every category), read
    /// as adding and dropping `absent_means` are: a fallback for a category
    /// that had none is breaking (old clients require the member there),
    /// one pointing at another code is breaking (old clients read such an
    /// envelope as the old code), and dropping one is compatible (the
    /// member is then always there, which old clients accept).
    fn absent_means(
        &mut self,
        path: &str,
        o: &crate::envelope::Member,
        n: &crate::envelope::Member,
    ) {
        use crate::envelope::AbsentMeans;
        let (Some(oa), Some(na)) = (&o.absent_means, &n.absent_means) else {
            return;
        };
        match (oa, na) {
            (AbsentMeans::One(oc), AbsentMeans::One(nc)) => {
                if oc.value != nc.value {
                    self.breaking(
                        Some(nc.loc),
                        format!(
                            "an envelope without member `{path}` meant `{}` and now means `{}`",
                            oc.value, nc.value
                        ),
                    );
                }
            }
            (AbsentMeans::ByCategory { .. }, AbsentMeans::One(nc)) => self.breaking(
                Some(nc.loc),
                format!(
                    "an envelope without member `{path}` meant a code per category and now means `{}` in every category",
                    nc.value
                ),
            ),
            (AbsentMeans::One(oc), AbsentMeans::ByCategory { entries, loc }) => {
                let mut changed = false;
                for (key, code) in entries.iter().filter(|(_, c)| c.value != oc.value) {
                    changed = true;
                    self.breaking(
                        Some(code.loc),
                        format!(
                            "an envelope of category `{}` without member `{path}` meant `{}` and now means `{}`",
                            key.value, oc.value, code.value
                        ),
                    );
                }
                if !changed {
                    self.compatible(
                        Some(*loc),
                        format!(
                            "an envelope without member `{path}` means `{}` only in the categories `absent_means` lists",
                            oc.value
                        ),
                    );
                }
            }
            (
                AbsentMeans::ByCategory { entries: oe, .. },
                AbsentMeans::ByCategory { entries: ne, loc },
            ) => {
                for (key, old) in oe {
                    match ne.iter().find(|(k, _)| k.value == key.value) {
                        Some((_, new)) if new.value != old.value => self.breaking(
                            Some(new.loc),
                            format!(
                                "an envelope of category `{}` without member `{path}` meant `{}` and now means `{}`",
                                key.value, old.value, new.value
                            ),
                        ),
                        Some(_) => {}
                        None => self.compatible(
                            Some(*loc),
                            format!(
                                "an envelope of category `{}` always has member `{path}` (it meant `{}` without it)",
                                key.value, old.value
                            ),
                        ),
                    }
                }
                for (key, new) in ne {
                    if !oe.iter().any(|(k, _)| k.value == key.value) {
                        // Old clients require the member in envelopes of
                        // this category.
                        self.breaking(
                            Some(key.loc),
                            format!(
                                "an envelope of category `{}` may lack member `{path}` (meaning `{}`)",
                                key.value, new.value
                            ),
                        );
                    }
                }
            }
        }
    }

    /// `pattern` and `format`: a new one only narrows what the server
    /// sends (compatible); a changed or dropped one lets it send what old
    /// clients reject (breaking).
    fn constraints(&mut self, what: &str, at: Loc, pairs: [ConstraintPair<'_>; 2]) {
        for (o, n, key) in pairs {
            let loc = Some(n.as_ref().map_or(at, |n| n.loc));
            match (o, n) {
                (None, Some(n)) => {
                    self.compatible(loc, format!("`{key}: {}` added to {what}", n.value));
                }
                (Some(o), None) => self.breaking(
                    loc,
                    format!("`{key}: {}` of {what} was dropped: clients validating with the released schema reject what it now allows", o.value),
                ),
                (Some(o), Some(n)) if o.value != n.value => self.breaking(
                    loc,
                    format!("`{key}` of {what} changed from `{}` to `{}`", o.value, n.value),
                ),
                _ => {}
            }
        }
    }

    fn members(&mut self, name: &str, o: &crate::context::TypeDef, n: &crate::context::TypeDef) {
        // Opening a type lets the server send more, as a new member does;
        // closing one takes away what readers typed to keep (the
        // TypeScript index signature, Rust's `other_members`).
        match (o.open, n.open) {
            (false, true) => self.compatible(
                Some(n.name.loc),
                format!("type `{name}` is open now: its values may hold members it does not list"),
            ),
            (true, false) => self.breaking(
                Some(n.name.loc),
                format!(
                    "type `{name}` is no longer open: readers that keep the members it does not \
                     list lose them"
                ),
            ),
            _ => {}
        }
        for om in o.members() {
            let member = &om.name.value;
            let Some(nm) = n.members().iter().find(|m| &m.name.value == member) else {
                self.breaking(
                    Some(n.name.loc),
                    format!("member `{member}` of type `{name}` was removed"),
                );
                continue;
            };
            if om.wire() != nm.wire() {
                self.breaking(
                    Some(nm.wire.as_ref().map_or(nm.name.loc, |w| w.loc)),
                    format!(
                        "wire name of member `{member}` of `{name}` changed from `{}` to `{}`",
                        om.wire(),
                        nm.wire()
                    ),
                );
            }
            match (om.nullable, nm.nullable) {
                (false, true) => self.breaking(
                    Some(nm.name.loc),
                    format!("member `{member}` of `{name}` became nullable: clients reading it break on `null`"),
                ),
                (true, false) => self.compatible(
                    Some(nm.name.loc),
                    format!("member `{member}` of `{name}` is no longer nullable"),
                ),
                _ => {}
            }
            self.constraints(
                &format!("member `{member}` of `{name}`"),
                nm.name.loc,
                [
                    (&om.pattern, &nm.pattern, "pattern"),
                    (&om.format, &nm.format, "format"),
                ],
            );
            if om.ty.value != nm.ty.value {
                self.breaking(
                    Some(nm.ty.loc),
                    format!(
                        "type of member `{member}` of `{name}` changed from `{}` to `{}`",
                        om.ty.value, nm.ty.value
                    ),
                );
            }
            match (om.required, nm.required) {
                (false, true) => self.breaking(
                    Some(nm.name.loc),
                    format!("member `{member}` of `{name}` was optional and is now required"),
                ),
                (true, false) => self.breaking(
                    Some(nm.name.loc),
                    format!(
                        "member `{member}` of `{name}` was required and is now optional: clients reading it break"
                    ),
                ),
                _ => {}
            }
            if om.doc.value != nm.doc.value {
                self.compatible(
                    Some(nm.doc.loc),
                    format!("doc of member `{member}` of `{name}` reworded"),
                );
            }
        }
        for nm in n.members() {
            if !o.members().iter().any(|m| m.name.value == nm.name.value) {
                let what = format!("member `{}` added to `{name}`", nm.name.value);
                if nm.required {
                    self.breaking(
                        Some(nm.name.loc),
                        format!(
                            "required {what}: the released strict schema refuses envelopes holding it (the open one accepts them)"
                        ),
                    );
                } else {
                    self.added(Some(nm.name.loc), format!("optional {what}"));
                }
            }
        }
    }

    fn categories(&mut self, old: &Spec, new: &Spec) {
        for o in &old.categories {
            let key = &o.key.value;
            let Some(n) = new.category(key) else {
                self.breaking(None, format!("category `{key}` was deleted"));
                continue;
            };
            let value = |r: &[crate::span::Spanned<(i64, i64)>]| -> Vec<(i64, i64)> {
                let mut v: Vec<(i64, i64)> = r.iter().map(|r| r.value).collect();
                v.sort();
                v
            };
            // Ranges hold numbers: they come and go with them, which the
            // taxonomy's `numbered` reports once.
            let both_numbered = old.taxonomy.numbered() && new.taxonomy.numbered();
            if both_numbered && value(&o.ranges) != value(&n.ranges) {
                let show = |r: Vec<(i64, i64)>| {
                    if r.is_empty() {
                        "no range".to_string()
                    } else {
                        r.iter()
                            .map(|(lo, hi)| format!("[{lo}, {hi}]"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                };
                self.breaking(
                    n.ranges.first().map(|r| r.loc),
                    format!(
                        "range of category `{key}` changed from {} to {}",
                        show(value(&o.ranges)),
                        show(value(&n.ranges))
                    ),
                );
            }
            if o.description.value != n.description.value {
                self.compatible(
                    Some(n.description.loc),
                    format!("description of category `{key}` reworded"),
                );
            }
            // Changed defaults surface as per-code retryable/cause changes;
            // a category without codes has no client-visible default.
        }
        for n in &new.categories {
            if old.category(&n.key.value).is_none() {
                self.added(Some(n.key.loc), format!("category `{}` added", n.key.value));
            }
        }
    }

    /// Retry semantics are part of the contract: what `retryable` means,
    /// and the classes each code is retried by. A new class is an addition;
    /// a class dropped, a meaning changed or a code's classes changed is
    /// breaking (a client retries by them).
    fn retry(&mut self, old: &Spec, new: &Spec) {
        if old.retry_meaning() != new.retry_meaning() {
            self.breaking(
                new.retry.meaning.as_ref().map(|m| m.loc),
                format!(
                    "the meaning of `retryable` changed from \"{}\" to \"{}\"",
                    old.retry_meaning(),
                    new.retry_meaning()
                ),
            );
        }
        for o in &old.retry.classes {
            match new.retry_class(&o.name.value) {
                None => self.breaking(None, format!("retry class `{}` removed", o.name.value)),
                Some(n) if n.doc.value != o.doc.value => self.compatible(
                    Some(n.doc.loc),
                    format!("doc of retry class `{}` reworded", o.name.value),
                ),
                Some(_) => {}
            }
        }
        for n in &new.retry.classes {
            if old.retry_class(&n.name.value).is_none() {
                self.added(
                    Some(n.name.loc),
                    format!("retry class `{}` added", n.name.value),
                );
            }
        }
        let names =
            |c: &Code| -> Vec<String> { c.retry_classes.iter().map(|r| r.value.clone()).collect() };
        for n in new.emitted_codes() {
            let Some(o) = old.code(&n.name.value).filter(|o| o.is_emitted()) else {
                continue;
            };
            let (was, is) = (names(o), names(n));
            if was != is {
                let show = |v: &[String]| {
                    if v.is_empty() {
                        "none".to_string()
                    } else {
                        v.join(", ")
                    }
                };
                self.breaking(
                    n.retry_classes.first().map(|r| r.loc).or(Some(n.name.loc)),
                    format!(
                        "retry classes of code `{}` changed from {} to {}",
                        n.name.value,
                        show(&was),
                        show(&is)
                    ),
                );
            }
        }
    }

    /// Per-code attributes: a declaration or a code's value added is an
    /// addition; dropped, retyped or changed is breaking.
    fn attributes(&mut self, old: &Spec, new: &Spec) {
        for o in &old.attributes {
            let Some(n) = new.attributes.iter().find(|a| a.name.value == o.name.value) else {
                self.breaking(None, format!("attribute `{}` removed", o.name.value));
                continue;
            };
            if n.ty.value != o.ty.value {
                self.breaking(
                    Some(n.ty.loc),
                    format!(
                        "type of attribute `{}` changed from {} to {}",
                        o.name.value,
                        o.ty.value.as_str(),
                        n.ty.value.as_str()
                    ),
                );
            }
            if n.format.as_ref().map(|f| &f.value) != o.format.as_ref().map(|f| &f.value) {
                self.breaking(
                    Some(n.name.loc),
                    format!("`format` of attribute `{}` changed", o.name.value),
                );
            }
            if n.doc.value != o.doc.value {
                self.compatible(
                    Some(n.doc.loc),
                    format!("doc of attribute `{}` reworded", o.name.value),
                );
            }
        }
        for n in &new.attributes {
            if !old.attributes.iter().any(|a| a.name.value == n.name.value) {
                self.added(
                    Some(n.name.loc),
                    format!("attribute `{}` added", n.name.value),
                );
            }
        }
        for n in new.emitted_codes() {
            let Some(o) = old.code(&n.name.value).filter(|o| o.is_emitted()) else {
                continue;
            };
            for def in &new.attributes {
                let attr = def.name.value.as_str();
                let at = n
                    .attributes
                    .iter()
                    .find(|a| a.name.value == attr)
                    .map(|a| a.value.loc)
                    .or(Some(n.name.loc));
                match (old.attribute(o, attr), new.attribute(n, attr)) {
                    (Some(a), Some(b)) if a != b => self.breaking(
                        at,
                        format!(
                            "attribute `{attr}` of code `{}` changed from {a} to {b}",
                            n.name.value
                        ),
                    ),
                    (Some(a), None) => self.breaking(
                        at,
                        format!(
                            "attribute `{attr}` of code `{}` ({a}) dropped",
                            n.name.value
                        ),
                    ),
                    (None, Some(b)) => self.added(
                        at,
                        format!("attribute `{attr}` of code `{}` set to {b}", n.name.value),
                    ),
                    _ => {}
                }
            }
        }
    }

    /// A reserved number stays reserved: no code takes it later, and the
    /// reservation is not dropped (which would let a later release reuse
    /// it). New reservations are compatible.
    fn reserved(&mut self, old: &Spec, new: &Spec) {
        for o in &old.reserved {
            let n = o.number.value;
            if let Some(code) = new.codes.iter().find(|c| c.number() == Some(n)) {
                self.breaking(
                    code.number.as_ref().map(|n| n.loc),
                    format!(
                        "code `{}` takes number {n}, which the old spec reserved ({}); reserved numbers are never reused",
                        code.name.value, o.reason.value
                    ),
                );
            } else if !new.reserved.iter().any(|r| r.number.value == n) {
                self.breaking(
                    None,
                    format!("reserved number {n} is no longer reserved; keep it in `reserved` so it is never reused"),
                );
            }
        }
        for r in &new.reserved {
            if !old
                .reserved
                .iter()
                .any(|o| o.number.value == r.number.value)
            {
                self.compatible(
                    Some(r.number.loc),
                    format!("number {} reserved", r.number.value),
                );
            }
        }
    }

    fn codes(&mut self, old: &Spec, new: &Spec) {
        for o in &old.codes {
            let name = &o.name.value;
            match new.code(name) {
                None if o.is_emitted() => self.breaking(
                    None,
                    format!(
                        "code {} was deleted from the spec; mark it `removed` instead so its {} stays reserved",
                        named(o),
                        if o.number.is_some() { "number" } else { "name" }
                    ),
                ),
                None => self.breaking(
                    None,
                    format!(
                        "removed code {} was deleted from the spec; removed codes stay in the file so their {} is never reused",
                        named(o),
                        if o.number.is_some() { "number" } else { "name" }
                    ),
                ),
                Some(n) => self.code(old, o, n),
            }
        }
        for n in &new.codes {
            if old.code(&n.name.value).is_some() {
                continue;
            }
            if let Some((o, number)) = n.number.as_ref().and_then(|number| {
                let o = old
                    .codes
                    .iter()
                    .find(|o| o.number() == Some(number.value))?;
                Some((o, number))
            }) {
                let state = if o.is_emitted() { "" } else { "removed " };
                self.breaking(
                    Some(number.loc),
                    format!(
                        "code `{}` reuses number {} of {state}code `{}`; numbers are never reused",
                        n.name.value, number.value, o.name.value
                    ),
                );
            } else if let Some(why) = n
                .wire_names()
                .find_map(|w| refused_as_unlisted(old, w, &n.category.value, n.number(), false))
            {
                self.breaking(
                    Some(n.name.loc),
                    format!("code {} added, but {why}", named(n)),
                );
            } else if let Some(why) = n
                .wire_names()
                .find_map(|w| read_as_family(old, old.family_of(w), &format!("`{w}`"), n))
                .or_else(|| {
                    let number = n.number()?;
                    read_as_family(old, old.family_of_number(number), &number.to_string(), n)
                })
            {
                self.breaking(
                    Some(n.name.loc),
                    format!("code {} added, but {why}", named(n)),
                );
            } else {
                self.added(Some(n.name.loc), format!("code {} added", named(n)));
            }
        }
    }

    fn code(&mut self, old: &Spec, o: &Code, n: &Code) {
        let name = &n.name.value;
        match (&o.lifecycle, &n.lifecycle) {
            (Lifecycle::Removed { .. }, Lifecycle::Removed { .. }) => {}
            (Lifecycle::Removed { .. }, _) => {
                // The released schema's unlisted envelope refuses every name
                // and number the release ever gave out, removed ones too.
                self.breaking(
                    Some(n.name.loc),
                    format!(
                        "removed code `{name}` was restored: the released schema refuses its envelopes \
                         (its name `{}`{} among those no unlisted code may take)",
                        o.wire(),
                        o.number()
                            .map_or(" is".into(), |n| format!(" and number {n} are"))
                    ),
                );
            }
            (_, Lifecycle::Removed { since, .. }) => {
                self.breaking(
                    Some(since.loc),
                    format!(
                        "code `{name}` was removed: clients matching on it will never see it again"
                    ),
                );
            }
            (Lifecycle::Active, Lifecycle::Deprecated { replaced_by, .. }) => {
                self.compatible(
                    Some(n.name.loc),
                    format!(
                        "code `{name}` deprecated in favour of `{}`",
                        replaced_by.value
                    ),
                );
            }
            (Lifecycle::Deprecated { .. }, Lifecycle::Active) => {
                self.compatible(
                    Some(n.name.loc),
                    format!("code `{name}` is no longer deprecated"),
                );
            }
            _ => {}
        }
        if n.is_emitted() {
            for a in &o.aliases {
                if !n.aliases.iter().any(|b| b.value == a.value) {
                    self.breaking(
                        Some(n.name.loc),
                        format!(
                            "alias `{}` of code `{name}` was dropped: envelopes spelled so are no longer read as the code",
                            a.value
                        ),
                    );
                }
            }
            for a in &n.aliases {
                if !o.aliases.iter().any(|b| b.value == a.value) {
                    match refused_as_unlisted(old, &a.value, &n.category.value, n.number(), true) {
                        Some(why) => self.breaking(
                            Some(a.loc),
                            format!("alias `{}` added to code `{name}`, but {why}", a.value),
                        ),
                        None => self.added(
                            Some(a.loc),
                            format!("alias `{}` added to code `{name}`", a.value),
                        ),
                    }
                }
            }
            for c in &n.constants {
                match o.constant(&c.name.value) {
                    Some(v) if *v != c.value.value => self.breaking(
                        Some(c.value.loc),
                        format!(
                            "constant `{}` of code `{name}` changed from {} to {}",
                            c.name.value, v, c.value.value
                        ),
                    ),
                    _ => {}
                }
            }
            for c in &o.constants {
                if n.constant(&c.name.value).is_none() {
                    self.breaking(
                        Some(n.name.loc),
                        format!(
                            "constant `{}` of code `{name}` was dropped: its envelopes no longer pin {}",
                            c.name.value, c.value.value
                        ),
                    );
                }
            }
        }
        if o.wire() != n.wire() && n.is_emitted() {
            self.breaking(
                Some(n.wire.as_ref().map_or(n.name.loc, |w| w.loc)),
                format!(
                    "wire name of code `{name}` changed from `{}` to `{}`: clients matching on it break",
                    o.wire(),
                    n.wire()
                ),
            );
        }
        if o.sent_as() != n.sent_as() && n.is_emitted() {
            let loc = n.sent_as.as_ref().map_or(n.name.loc, |s| s.loc);
            if n.is_violation_kind() {
                self.compatible(
                    Some(loc),
                    format!(
                        "code `{name}` now arrives only as a violation kind (`violations[].code`), \
                         never as an envelope's own `error_code`: its envelope variant leaves the \
                         published schema and the client types (no envelope of this release has \
                         it; a client naming the type stops compiling, as with a new value of an \
                         exhaustive match)"
                    ),
                );
            } else {
                self.added(
                    Some(loc),
                    format!(
                        "code `{name}` may now arrive as an envelope's own `error_code`: its \
                         variant joins the published schema (an older client reads it as an \
                         unlisted code)"
                    ),
                );
            }
        }
        // A taxonomy that gains or loses its numbers is reported once, above.
        if let (Some(a), Some(b)) = (o.number(), &n.number)
            && a != b.value
        {
            self.breaking(
                Some(b.loc),
                format!("code `{name}` was renumbered from {a} to {}", b.value),
            );
        }
        if !n.is_emitted() {
            // Only the number of a removed code still matters (it stays
            // reserved); nothing else about it reaches a client.
            return;
        }
        if o.category.value != n.category.value {
            self.breaking(
                Some(n.category.loc),
                format!(
                    "code `{name}` moved from category `{}` to `{}`",
                    o.category.value, n.category.value
                ),
            );
        }
        if o.retryable != n.retryable {
            let loc = n.retryable_override.as_ref().map_or(n.name.loc, |r| r.loc);
            self.breaking(
                Some(loc),
                format!(
                    "`retryable` of code `{name}` changed from {} to {}",
                    o.retryable, n.retryable
                ),
            );
        }
        if o.cause != n.cause {
            let loc = n.cause_override.as_ref().map_or(n.name.loc, |r| r.loc);
            self.breaking(
                Some(loc),
                format!(
                    "`cause` of code `{name}` changed from {} to {}",
                    o.cause.as_str(),
                    n.cause.as_str()
                ),
            );
        }
        let had =
            |list: &[crate::span::Spanned<String>], f: &String| list.iter().any(|x| &x.value == f);
        for f in &n.required_context {
            if !had(&o.required_context, &f.value) {
                self.breaking(
                    Some(f.loc),
                    format!(
                        "code `{name}` now requires context field `{}`: clients building or validating envelopes break",
                        f.value
                    ),
                );
            }
        }
        for f in &o.required_context {
            if !had(&n.required_context, &f.value) {
                let now = if had(&n.optional_context, &f.value) {
                    "is now only optional"
                } else {
                    "was dropped"
                };
                self.breaking(
                    Some(n.name.loc),
                    format!(
                        "required context field `{}` of code `{name}` {now}: clients reading it break",
                        f.value
                    ),
                );
            }
        }
        for f in &n.optional_context {
            if !had(&o.optional_context, &f.value) && !had(&o.required_context, &f.value) {
                self.added(
                    Some(f.loc),
                    format!("code `{name}` may now carry context field `{}`", &f.value),
                );
            }
        }
        for f in &o.optional_context {
            if !had(&n.optional_context, &f.value) && !had(&n.required_context, &f.value) {
                self.compatible(
                    Some(n.name.loc),
                    format!(
                        "code `{name}` no longer carries optional context field `{}`",
                        f.value
                    ),
                );
            }
        }
        for (what, a, b, loc) in [
            ("title", &o.title.value, &n.title.value, n.title.loc),
            ("message", &o.message.value, &n.message.value, n.message.loc),
            (
                "explanation",
                &o.explanation.value,
                &n.explanation.value,
                n.explanation.loc,
            ),
        ] {
            if a != b {
                self.compatible(Some(loc), format!("{what} of code `{name}` reworded"));
            }
        }
        let hints = |c: &Code| {
            c.hints()
                .map(|(h, cond)| (h.value.clone(), cond.map(HintCondition::describe)))
                .collect::<Vec<_>>()
        };
        if hints(o) != hints(n) {
            let loc = n.recovery_hints.first().map_or(n.name.loc, |h| h.loc);
            let conditional = |c: &Code| c.hint_conditions.iter().flatten().count();
            let detail = match (conditional(o), conditional(n)) {
                (a, b) if a == b => String::new(),
                (_, 0) => "; every hint is sent again".to_string(),
                (_, b) => format!(
                    "; {b} of {} now sent only when their condition holds (an envelope carries \
                     fewer hints; docs/errors.md lists each with its condition)",
                    n.recovery_hints.len()
                ),
            };
            self.compatible(
                Some(loc),
                format!("recovery hints of code `{name}` changed{detail}"),
            );
        }
        let params = |c: &Code| {
            c.params
                .iter()
                .map(|p| {
                    (
                        p.name.value.clone(),
                        p.ty.value,
                        p.description.value.clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        if params(o) != params(n) {
            self.compatible(
                Some(n.name.loc),
                format!("message parameters of code `{name}` changed"),
            );
        }
        // Examples only shape the documented envelope; their order in the
        // file is formatting.
        let examples = |c: &Code| {
            let mut e: Vec<(String, String)> = c
                .examples
                .iter()
                .map(|e| (e.name.value.clone(), e.value.value.to_string()))
                .collect();
            e.sort();
            e
        };
        if examples(o) != examples(n) {
            let loc = n.examples.first().map_or(n.name.loc, |e| e.name.loc);
            self.compatible(
                Some(loc),
                format!("examples of code `{name}` changed (documentation only)"),
            );
        }
    }
}

/// `` `NAME` (number) ``, or `` `NAME` `` in a taxonomy without numbers.
fn named(code: &Code) -> String {
    match code.number() {
        Some(n) => format!("`{}` ({n})", code.name.value),
        None => format!("`{}`", code.name.value),
    }
}

/// Why the released schema of `old` refuses an envelope whose code is
/// spelled `wire` and numbered `number` (or reads it as another code), or
/// `None` when it accepts it as an unlisted code. An
/// envelope of a code the release did not list validates only as the
/// release's unlisted envelope (`docs/spec-format.md`, Schemas), which
/// refuses the names every code of the release had (removed ones too), a
/// name outside `SCREAMING_SNAKE_CASE` when no code of the release was
/// spelled otherwise, a negative number when every number was
/// non-negative, and, when codes are told apart by number, a number the
/// release gave out or reserved. `known_number` says the number is one the
/// release gave out (an alias of a code it has). Under `code_names:
/// per_category` a name is the release's only in `category`, and the
/// unlisted name has no pattern.
fn refused_as_unlisted(
    old: &Spec,
    wire: &str,
    category: &str,
    number: Option<i64>,
    known_number: bool,
) -> Option<String> {
    let env = &old.envelope;
    let per_category = old.taxonomy.per_category();
    if let Some(c) = old.codes.iter().find(|c| {
        (!per_category || c.category.value == category) && c.wire_names().any(|w| w == wire)
    }) {
        // The unlisted envelope refuses the name; the released code's own
        // envelope refuses it too when the numbers on the wire differ,
        // and otherwise may take it for that code.
        return Some(if env.carries("number") && c.number() != number {
            format!(
                "the released schema refuses an envelope spelled `{wire}` with {}: \
                 `{wire}` is the name of its code {}",
                number.map_or("no number".into(), |n| format!("number {n}")),
                named(c)
            )
        } else {
            format!(
                "clients of the released schema read an envelope spelled `{wire}` as its code `{}`",
                c.name.value
            )
        });
    }
    // With families, the unlisted code's name is any string.
    let pattern = old.families.is_empty()
        && !per_category
        && !old
            .codes
            .iter()
            .any(|c| c.wire.is_some() || !c.aliases.is_empty());
    if env.carries("code_name") && pattern && !crate::case::Case::ScreamingSnake.matches(wire) {
        return Some(format!(
            "the released schema refuses an envelope spelled `{wire}`: an unlisted code's name must be \
             SCREAMING_SNAKE_CASE there, as every name of that release was"
        ));
    }
    if env.carries("number")
        && let Some(number) = number
    {
        if number < 0 && old.codes.iter().all(|c| c.number() >= Some(0)) {
            return Some(format!(
                "the released schema refuses number {number}: an unlisted code's number is non-negative there"
            ));
        }
        if known_number && !env.carries("code_name") {
            return Some(format!(
                "the released schema refuses an envelope spelled `{wire}` with number {number}: codes are told \
                 apart by number there, and {number} is a number it lists"
            ));
        }
    }
    None
}

/// Why clients of `old` read an envelope of `code` (its name or number
/// shown as `wire`) as something it is not: an unlisted code of `family`,
/// `old`'s family of it, whose category,
/// `retryable` or cause differ from the code's (the released schema's
/// family variant fixes them, and `familyOf` answers them). `None` when
/// `wire` is of no family of `old`, or the family says what the code is.
fn read_as_family(
    old: &Spec,
    family: Option<&crate::spec::Family>,
    wire: &str,
    code: &Code,
) -> Option<String> {
    let family = family?;
    let category = old.category(&family.category.value)?;
    let mut differs = Vec::new();
    if family.category.value != code.category.value {
        differs.push(format!(
            "category `{}`, not `{}`",
            family.category.value, code.category.value
        ));
    }
    if category.retryable.value != code.retryable {
        differs.push(format!("retryable: {}", category.retryable.value));
    }
    if category.cause.value != code.cause {
        differs.push(format!("cause {}", category.cause.value.as_str()));
    }
    if differs.is_empty() {
        return None;
    }
    Some(format!(
        "clients of the released version read {wire} as family `{}` (`{}`): {}",
        family.name.value,
        family.rule.value.glob(),
        differs.join(", ")
    ))
}

/// What kind of type a declared type is, for "changed from an object to a
/// union".
fn type_kind(t: &crate::context::TypeDef) -> &'static str {
    match t.body {
        crate::context::TypeBody::Object(_) => "an object",
        crate::context::TypeBody::Enum(_) => "an enum",
        crate::context::TypeBody::Union(_) => "a tagged union",
        crate::context::TypeBody::OneOf(_) => "a union of scalars",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
taxonomy: { name: t, version: 1.0.0, base_uri: "schema://t" }
categories:
  validation: { range: [1000, 1999], description: bad input, retryable: true, cause: input }
  external: { range: [4000, 4999], description: environment, retryable: false, cause: environment }
codes:
  EMPTY_EDITS:
    number: 1000
    category: validation
    since: 1.0.0
    title: no edits
    message: "no edits"
    recovery_hints: [Pass at least one edit]
    context: { required: [file_path], optional: [backup_path] }
    explanation: x
  DISK_FULL:
    number: 4000
    category: external
    since: 1.0.0
    title: disk full
    message: "disk full"
    recovery_hints: [Free space]
    explanation: x
"#;

    fn spec(src: &str) -> Spec {
        crate::load::load_baseline_str(src, "t.yaml").unwrap_or_else(|d| panic!("{}", d.render()))
    }

    /// A reserved number is never taken by a code and never un-reserved;
    /// a new reservation is compatible.
    #[test]
    fn reserved_numbers_stay_reserved() {
        let reserved = |src: &str, r: &str| {
            let (head, tail) = src.split_at(src.find("categories:").unwrap());
            format!("{head}reserved:\n{r}{tail}")
        };
        let old = spec(&reserved(BASE, "  1001: never released\n"));
        // Dropped, and taken by a code.
        let new = spec(
            &BASE
                .replace("number: 4000", "number: 1001")
                .replace("category: external\n", "category: validation\n")
                .replace("version: 1.0.0", "version: 2.0.0"),
        );
        let r = diff(&old, &new);
        assert!(
            r.changes.iter().any(|c| c.compat == Compat::Breaking
                && c.message
                    .contains("takes number 1001, which the old spec reserved (never released)")),
            "{r:#?}"
        );
        // Dropped only.
        let r = diff(
            &old,
            &spec(&BASE.replace("version: 1.0.0", "version: 2.0.0")),
        );
        assert!(
            r.changes.iter().any(|c| c.compat == Compat::Breaking
                && c.message == "reserved number 1001 is no longer reserved; keep it in `reserved` so it is never reused"),
            "{r:#?}"
        );
        // Kept, and one more: compatible.
        let r = diff(
            &old,
            &spec(
                &reserved(
                    BASE,
                    "  1001: never released\n  0: OK is success, not an error\n",
                )
                .replace("version: 1.0.0", "version: 1.0.1"),
            ),
        );
        assert!(r.is_acceptable(), "{r:#?}");
        assert_eq!(r.changes.len(), 1, "{r:#?}");
        assert_eq!(r.changes[0].message, "number 0 reserved");
    }

    fn changed(edit: impl Fn(&str) -> String) -> DiffReport {
        diff(&spec(BASE), &spec(&edit(BASE)))
    }

    fn only(report: &DiffReport, compat: Compat, needle: &str) {
        assert!(
            report
                .changes
                .iter()
                .any(|c| c.compat == compat && c.message.contains(needle)),
            "no {compat:?} change containing {needle:?} in {report:#?}"
        );
    }

    /// Code families: what a client of the released version reads an
    /// unlisted code of a family as may not change; a family added or
    /// widened is an addition.
    #[test]
    fn families_are_compared() {
        const FAMILIES: &str = include_str!("../tests/fixtures/envelopes/families.yaml");
        let old = spec(FAMILIES);
        let changed = |edit: &dyn Fn(&str) -> String| {
            diff(
                &old,
                &spec(&edit(&FAMILIES.replace("version: 1.0.0", "version: 2.0.0"))),
            )
        };
        let breaking = |r: &DiffReport| {
            r.changes
                .iter()
                .filter(|c| c.compat == Compat::Breaking)
                .map(|c| c.message.clone())
                .collect::<Vec<_>>()
        };
        // Removed, narrowed, another rule, another category.
        let r = changed(&|s| {
            s.replace(
                "  not_found:\n    suffix: NotFoundException\n    category: not_found\n    doc: A missing resource, named by the code's first words.\n",
                "",
            )
        });
        only(
            &r,
            Compat::Breaking,
            "family `not_found` (`*NotFoundException`) removed",
        );
        let r = changed(&|s| s.replace("prefix: Throttling", "prefix: ThrottlingOn"));
        only(
            &r,
            Compat::Breaking,
            "family `throttling` changed from `Throttling*` to `ThrottlingOn*`",
        );
        let r = changed(&|s| s.replace("suffix: NotFoundException", "prefix: NotFound"));
        only(
            &r,
            Compat::Breaking,
            "family `not_found` changed from `*NotFoundException` to `NotFound*`",
        );
        let r = changed(&|s| {
            s.replace(
                "suffix: NotFoundException\n    category: not_found",
                "suffix: NotFoundException\n    category: throttling",
            )
            .replace(
                "category: not_found\n    since: 1.0.0\n    wire: ResourceNotFoundException",
                "category: throttling\n    since: 1.0.0\n    wire: ResourceNotFoundException",
            )
        });
        only(
            &r,
            Compat::Breaking,
            "family `not_found` moved from category `not_found` to `throttling`",
        );
        // The category's defaults are the family's.
        let r = changed(&|s| s.replacen("retryable: false", "retryable: true", 1));
        only(
            &r,
            Compat::Breaking,
            "the codes of family `not_found` changed from retryable: false to true",
        );
        // Widened, added, reworded: compatible.
        let r = changed(&|s| s.replace("suffix: NotFoundException", "suffix: Exception"));
        assert!(breaking(&r).is_empty(), "{r:#?}");
        only(
            &r,
            Compat::Compatible,
            "family `not_found` widened from `*NotFoundException` to `*Exception`",
        );
        assert!(r.changes.iter().any(|c| c.adds), "{r:#?}");
        // Last: before no family whose codes it may match.
        let added = "  gone:\n    suffix: Gone\n    category: not_found\n    doc: Deleted resources.\ncodes:\n";
        let r = changed(&|s| s.replace("\ncodes:\n", &format!("\n{added}")));
        assert!(breaking(&r).is_empty(), "{r:#?}");
        only(
            &r,
            Compat::Compatible,
            "family `gone` (`*Gone`, category `not_found`) added",
        );
        let r = changed(&|s| s.replace("doc: Throttling of any kind", "doc: Any throttling"));
        assert_eq!(r.changes.len(), 1, "{r:#?}");
        only(
            &r,
            Compat::Compatible,
            "doc of family `throttling` reworded",
        );
        // A new family first, of another category, takes names an old one
        // held; of the same category, it changes nothing a client reads.
        let first =
            "families:\n  sunday:\n    suffix: Sunday\n    category: not_found\n    doc: Closed.\n";
        let r = changed(&|s| s.replace("families:\n", first));
        only(
            &r,
            Compat::Breaking,
            "family `sunday` (`*Sunday`, category `not_found`) now comes before family `throttling`",
        );
        assert_eq!(breaking(&r).len(), 1, "{r:#?}");
        // A code added whose name an old family held: in its category, an
        // addition; in another, clients read it as the family's.
        let code = |category: &str| {
            format!(
                "  QUEUE_NOT_FOUND:\n    category: {category}\n    since: 2.0.0\n    wire: QueueNotFoundException\n    title: no such queue\n    explanation: The queue does not exist.\n"
            )
        };
        let r = changed(&|s| format!("{s}{}", code("not_found")));
        assert!(breaking(&r).is_empty(), "{r:#?}");
        only(&r, Compat::Compatible, "code `QUEUE_NOT_FOUND` added");
        // `check` refuses a listed code of another category inside a
        // family, so such a code comes with the family removed (or
        // narrowed): both are reported.
        let r = changed(&|s| {
            format!("{s}{}", code("throttling")).replace(
                "  not_found:\n    suffix: NotFoundException\n    category: not_found\n    doc: A missing resource, named by the code's first words.\n",
                "",
            )
        });
        only(
            &r,
            Compat::Breaking,
            "family `not_found` (`*NotFoundException`) removed",
        );
        only(
            &r,
            Compat::Breaking,
            "code `QUEUE_NOT_FOUND` added, but clients of the released version read `QueueNotFoundException` as family `not_found` (`*NotFoundException`): category `not_found`, not `throttling`, retryable: false, cause input",
        );
    }

    /// Range families are compared as name families are: narrowed is
    /// breaking, widened an addition.
    #[test]
    fn range_families_are_compared() {
        const RANGES: &str = include_str!("../tests/fixtures/envelopes/families_range.yaml");
        let old = spec(RANGES);
        let changed = |from: &str, to: &str| {
            diff(
                &old,
                &spec(
                    &RANGES
                        .replace("version: 1.0.0", "version: 2.0.0")
                        .replace(from, to),
                ),
            )
        };
        let r = changed(
            "range: [-32099, -32000]\n    category: server",
            "range: [-32099, -32010]\n    category: server",
        );
        only(
            &r,
            Compat::Breaking,
            "family `server_error` changed from `-32099..=-32000` to `-32099..=-32010`",
        );
        let r = changed("range: [-32768, -32000]", "range: [-32768, -31000]");
        assert!(
            r.changes.iter().all(|c| c.compat == Compat::Compatible),
            "{r:#?}"
        );
        only(
            &r,
            Compat::Compatible,
            "family `reserved` widened from `-32768..=-32000` to `-32768..=-31000`",
        );
    }

    /// Retry semantics and per-code attributes: what a client retries by,
    /// and what it reads per code, cannot change under it; new classes,
    /// attributes and values are additions.
    #[test]
    fn retry_semantics_and_attributes_are_compared() {
        let old = include_str!("../tests/fixtures/retry.yaml");
        let changed = |from: &str, to: &str| {
            assert!(old.contains(from), "{from}");
            diff(&spec(old), &spec(&old.replacen(from, to, 1)))
        };
        for (from, to, compat, needle) in [
            (
                "meaning: the same request may succeed",
                "meaning: the caller may succeed",
                Compat::Breaking,
                "the meaning of `retryable` changed",
            ),
            (
                "retry_classes: [throttling, transient]",
                "retry_classes: [throttling]",
                Compat::Breaking,
                "retry classes of code `PRIOR_REQUEST_NOT_COMPLETE` changed from throttling, transient to throttling",
            ),
            (
                "    retry_classes: [throttling]\n  caller:",
                "    retry_classes: [throttling, transient]\n  caller:",
                Compat::Breaking,
                "retry classes of code `SLOW_DOWN` changed from throttling to throttling, transient",
            ),
            (
                "    transient: Retried at once with a short backoff.\n",
                "    transient: Retried at once with a short backoff.\n    quota: Retried when quota frees.\n",
                Compat::Compatible,
                "retry class `quota` added",
            ),
            (
                "transient: Retried at once with a short backoff.",
                "transient: Retried at once.",
                Compat::Compatible,
                "doc of retry class `transient` reworded",
            ),
            (
                "attributes: { http_status: 503,",
                "attributes: { http_status: 429,",
                Compat::Breaking,
                "attribute `http_status` of code `SLOW_DOWN` changed from 503 to 429",
            ),
            (
                "attributes: { http_status: 400, idempotent_only: true }",
                "attributes: { http_status: 400 }",
                Compat::Breaking,
                "attribute `idempotent_only` of code `PRIOR_REQUEST_NOT_COMPLETE` (true) dropped",
            ),
            (
                "attributes: { http_status: 400 }\n",
                "attributes: { http_status: 400, help_url: \"https://example.com/e\" }\n",
                Compat::Compatible,
                "attribute `help_url` of code `BAD_REQUEST` set to",
            ),
        ] {
            let report = changed(from, to);
            only(&report, compat, needle);
        }
        let retyped = old
            .replacen(
                "idempotent_only: { type: boolean,",
                "idempotent_only: { type: string,",
                1,
            )
            .replacen("idempotent_only: true", "idempotent_only: \"yes\"", 1);
        let report = diff(&spec(old), &spec(&retyped));
        only(
            &report,
            Compat::Breaking,
            "type of attribute `idempotent_only` changed from boolean to string",
        );
        only(&report, Compat::Breaking, "changed from true to \"yes\"");
        // Attribute `idempotent_only` dropped with its values.
        let dropped = old
            .replacen("  idempotent_only: { type: boolean, doc: Retried only for idempotent operations. }\n", "", 1)
            .replacen(", idempotent_only: true", "", 1);
        let report = diff(&spec(old), &spec(&dropped));
        only(
            &report,
            Compat::Breaking,
            "attribute `idempotent_only` removed",
        );
    }

    /// Changing a name on the wire (of a field, a member, an enum value, a
    /// code) is breaking: a client reading the old name finds nothing.
    #[test]
    fn wire_names_are_compared() {
        let old = include_str!("../tests/fixtures/constructs.yaml");
        let changed = |from: &str, to: &str| {
            assert!(old.contains(from), "{from}");
            diff(&spec(old), &spec(&old.replacen(from, to, 1)))
        };
        for (from, to, needle) in [
            (
                "in: context, wire: retryDelay",
                "in: context, wire: retry_delay",
                "wire name of context field `retry_delay` changed from `retryDelay` to `retry_delay`",
            ),
            (
                "wire: \"@type\"",
                "wire: typeUrl",
                "wire name of member `type_url` of `Detail` changed from `@type` to `typeUrl`",
            ),
            (
                "wire: API_DISABLED",
                "wire: DISABLED",
                "wire spelling of value `api_disabled` of enum `Reason` changed from `API_DISABLED` to `DISABLED`",
            ),
            (
                "wire: ThrottlingException",
                "wire: Throttled",
                "wire name of code `THROTTLED` changed from `ThrottlingException` to `Throttled`",
            ),
        ] {
            only(&changed(from, to), Compat::Breaking, needle);
        }
        // Writing out the identifier as the wire name changes nothing.
        let same = diff(
            &spec(old),
            &spec(&old.replacen(
                "    number: 2\n",
                "    number: 2\n    wire: UNAVAILABLE\n",
                1,
            )),
        );
        assert!(same.changes.is_empty(), "{same:#?}");
    }

    /// Aliases and constants of a code: a dropped alias, a changed or
    /// dropped constant is breaking; an alias added is compatible (an
    /// addition).
    #[test]
    fn aliases_and_constants_are_compared() {
        let old = include_str!("../tests/fixtures/constructs.yaml");
        let changed = |from: &str, to: &str| {
            assert!(old.contains(from), "{from}");
            diff(&spec(old), &spec(&old.replacen(from, to, 1)))
        };
        for (from, to, compat, needle) in [
            (
                "aliases: [Throttling, ",
                "aliases: [Throttled, Throttling, ",
                Compat::Compatible,
                "alias `Throttled` added to code `THROTTLED`",
            ),
            (
                "aliases: [Throttling, ",
                "aliases: [",
                Compat::Breaking,
                "alias `Throttling` of code `THROTTLED` was dropped",
            ),
            (
                "problem_type: https://example.com/problems/throttled",
                "problem_type: https://example.com/problems/slow-down",
                Compat::Breaking,
                "constant `problem_type` of code `THROTTLED` changed from \"https://example.com/problems/throttled\" to \"https://example.com/problems/slow-down\"",
            ),
            (
                "      grpc_status: resource_exhausted\n",
                "",
                Compat::Breaking,
                "constant `grpc_status` of code `THROTTLED` was dropped",
            ),
        ] {
            only(&changed(from, to), compat, needle);
        }
    }

    /// A union's discriminator and tags are wire names (breaking to
    /// change); dropping a variant is breaking, adding one compatible.
    #[test]
    fn unions_are_compared() {
        let old = include_str!("../tests/fixtures/constructs.yaml");
        let added = old
            .replacen(
                "  StatusDetail:\n",
                "  QuotaFailure:\n    doc: Q.\n    members:\n      limit: { type: int64, doc: L. }\n  StatusDetail:\n",
                1,
            )
            .replacen(
                "        ErrorInfo: type.googleapis.com/google.rpc.ErrorInfo\n",
                "        ErrorInfo: type.googleapis.com/google.rpc.ErrorInfo\n        QuotaFailure: q\n",
                1,
            );
        // The released schema's `oneOf` refuses a value of a new variant.
        only(
            &diff(&spec(old), &spec(&added)),
            Compat::Breaking,
            "variant `QuotaFailure` added to union `StatusDetail`: the released schema refuses a value tagged `@type: q`",
        );
        // The discriminator and a tag, with the example written with them.
        let renamed = old
            .replacen("discriminator: \"@type\"", "discriminator: kind", 1)
            .replace(
                "- { \"@type\": type.googleapis.com/",
                "- { kind: type.googleapis.com/",
            )
            .replace("google.rpc.RetryInfo", "google.rpc.Retry");
        let r = diff(&spec(old), &spec(&renamed));
        only(
            &r,
            Compat::Breaking,
            "discriminator of union `StatusDetail` changed from `@type` to `kind`",
        );
        only(
            &r,
            Compat::Breaking,
            "tag of variant `RetryInfo` of union `StatusDetail` changed",
        );
        // Dropping a variant (and the example that used it).
        let dropped = old
            .replacen("        RetryInfo: type.googleapis.com/google.rpc.RetryInfo\n", "", 1)
            .replacen(
                "        - { \"@type\": type.googleapis.com/google.rpc.RetryInfo, retry_delay: 2s }\n",
                "",
                1,
            );
        only(
            &diff(&spec(old), &spec(&dropped)),
            Compat::Breaking,
            "variant `RetryInfo` of union `StatusDetail` was removed",
        );
    }

    /// Turning `code_names: per_category` on is breaking (a client keying
    /// codes by name may read the wrong one), off compatible; under it, a
    /// new code whose name another category has is a compatible addition.
    #[test]
    fn codes_unique_per_category_are_compared() {
        let unique = include_str!("../tests/fixtures/envelopes/stripe.yaml");
        let pairs = unique.replacen(
            "  hints: optional\n",
            "  hints: optional\n  code_names: per_category\n",
            1,
        );
        only(
            &diff(&spec(unique), &spec(&pairs)),
            Compat::Breaking,
            "code names are unique only within their category now",
        );
        only(
            &diff(&spec(&pairs), &spec(unique)),
            Compat::Compatible,
            "code names are unique across the taxonomy now",
        );
        let shared = format!(
            "{pairs}  EXPIRED_KEY:\n    category: invalid_request_error\n    since: 1.0.0\n    \
             wire: expired_card\n    title: the key has expired\n    \
             explanation: The key's lifetime has passed.\n"
        );
        let r = diff(&spec(&pairs), &spec(&shared));
        only(&r, Compat::Compatible, "code `EXPIRED_KEY` added");
        assert!(
            r.changes.iter().all(|c| c.compat != Compat::Breaking),
            "{r:#?}"
        );
    }

    /// Opening a type lets the server send more (compatible); closing one
    /// takes the members it does not list from readers (breaking).
    #[test]
    fn opening_a_type_is_compatible_and_closing_one_breaking() {
        let fixture = include_str!("../tests/fixtures/envelopes/odata.yaml");
        // Without the examples that write members `InnerError` does not
        // list (a closed type's example may not).
        let open: String = fixture
            .lines()
            .filter(|l| !l.contains("minLength"))
            .map(|l| format!("{l}\n"))
            .collect();
        let closed = open.replacen("    open: true\n", "", 1);
        assert_ne!(open, closed);
        let open = open.as_str();
        let r = diff(&spec(&closed), &spec(open));
        assert!(!r.has_breaking(), "{r:#?}");
        only(
            &r,
            Compat::Compatible,
            "type `InnerError` is open now: its values may hold members it does not list",
        );
        only(
            &diff(&spec(open), &spec(&closed)),
            Compat::Breaking,
            "type `InnerError` is no longer open",
        );
        assert!(diff(&spec(open), &spec(open)).changes.is_empty());
    }

    /// `pattern` and `format` of an envelope member change as a field's: a
    /// new one is compatible, a changed or dropped one breaking.
    #[test]
    fn envelope_member_constraints_are_compared() {
        let old = include_str!("../tests/fixtures/envelopes/oauth.yaml");
        let pattern = "    pattern: '^[\\x20-\\x21\\x23-\\x5B\\x5D-\\x7E]*$'\n";
        assert!(old.contains(pattern));
        let dropped = old.replacen(pattern, "", 1);
        only(
            &diff(&spec(old), &spec(&dropped)),
            Compat::Breaking,
            "of envelope member `error_description` was dropped",
        );
        only(
            &diff(&spec(&dropped), &spec(old)),
            Compat::Compatible,
            "added to envelope member `error_description`",
        );
        let changed = old.replacen(pattern, "    pattern: '^[ -~]*$'\n", 1);
        only(
            &diff(&spec(old), &spec(&changed)),
            Compat::Breaking,
            "`pattern` of envelope member `error_description` changed",
        );
    }

    /// Numbers, maps, nullable members, `pattern` and `format`: a changed
    /// type (also a map's value type) or a looser value is breaking; an
    /// optional member or a new constraint is compatible.
    #[test]
    fn types_are_compared() {
        let old = include_str!("../tests/fixtures/constructs.yaml");
        let changed = |from: &str, to: &str| {
            assert!(old.contains(from), "{from}");
            diff(&spec(old), &spec(&old.replacen(from, to, 1)))
        };
        for (from, to, compat, needle) in [
            (
                "count: { type: int32,",
                "count: { type: int64,",
                Compat::Breaking,
                "type of member `count` of `Detail` changed from `int32` to `int64`",
            ),
            (
                "type: \"map<string, int64>\"",
                "type: \"map<string, int32>\"",
                Compat::Breaking,
                "changed from `map<string, int64>` to `map<string, int32>`",
            ),
            (
                "type: \"map<string, int64>\"",
                "type: \"map<string, float>\"",
                Compat::Breaking,
                "type of context field `quotas` changed",
            ),
            (
                "count: { type: int32,",
                "count: { type: int32, nullable: true,",
                Compat::Breaking,
                "member `count` of `Detail` became nullable",
            ),
            (
                "ratio: { type: float, optional: true, nullable: true,",
                "ratio: { type: float, optional: true,",
                Compat::Compatible,
                "member `ratio` of `Detail` is no longer nullable",
            ),
            (
                "pattern: \"^https://\"",
                "pattern: \"^https?://\"",
                Compat::Breaking,
                "`pattern` of member `link` of `Detail` changed",
            ),
            (
                "format: date-time,",
                "",
                Compat::Breaking,
                "`format: date-time` of context field `occurred_at` was dropped",
            ),
            (
                "retry_delay: { type: string,",
                "retry_delay: { type: string, format: duration,",
                Compat::Compatible,
                "`format: duration` added to context field `retry_delay`",
            ),
            (
                "      metadata:",
                "      extra: { type: float, optional: true, doc: New. }\n      metadata:",
                Compat::Compatible,
                "optional member `extra` added to `Detail`",
            ),
            (
                "one_of: [int64, string, \"null\"]",
                "one_of: [int64, string, boolean, \"null\"]",
                Compat::Breaking,
                "`boolean` added to `one_of` of type `RequestId`",
            ),
            (
                "one_of: [int64, string, \"null\"]",
                "one_of: [int32, string, \"null\"]",
                Compat::Breaking,
                "`int32` added to `one_of` of type `RequestId`",
            ),
            (
                "one_of: [int64, string, \"null\"]",
                "one_of: [int64, string]",
                Compat::Compatible,
                "`null` dropped from `one_of` of type `RequestId`",
            ),
            (
                "    one_of: [int64, string, \"null\"]",
                "    enum: [abc, b]",
                Compat::Breaking,
                "type `RequestId` changed from a union of scalars to an enum",
            ),
        ] {
            only(&changed(from, to), compat, needle);
        }
    }

    #[test]
    fn identical_specs_are_compatible_without_a_bump() {
        let r = diff(&spec(BASE), &spec(BASE));
        assert!(r.changes.is_empty() && r.version_problems.is_empty() && r.is_acceptable());
        // Comments and formatting are not content.
        let r = diff(&spec(BASE), &spec(&format!("# a comment\n{BASE}")));
        assert!(r.is_acceptable(), "{r:#?}");
    }

    #[test]
    fn breaking_changes() {
        let cases = [
            (
                "number: 4000",
                "number: 4001",
                "renumbered from 4000 to 4001",
            ),
            (
                "    category: external\n",
                "    category: external\n    retryable: true\n",
                "`retryable` of code `DISK_FULL` changed from false to true",
            ),
            (
                "    category: external\n",
                "    category: external\n    cause: server\n",
                "`cause` of code `DISK_FULL` changed from environment to server",
            ),
            (
                "required: [file_path]",
                "required: [file_path, snippet]",
                "now requires context field `snippet`",
            ),
            (
                "required: [file_path], optional: [backup_path]",
                "optional: [backup_path, file_path]",
                "required context field `file_path` of code `EMPTY_EDITS` is now only optional",
            ),
            (
                "recovery_hints: [Free space]\n",
                "removed: { since: 1.1.0, reason: gone }\n",
                "code `DISK_FULL` was removed",
            ),
            (
                "range: [4000, 4999]",
                "range: [4000, 4499]",
                "range of category `external` changed",
            ),
            (
                "range: [4000, 4999]",
                "range: [[4000, 4499], [4600, 4999]]",
                "range of category `external` changed from [4000, 4999] to [4000, 4499], [4600, 4999]",
            ),
            (
                "DISK_FULL",
                "NO_SPACE",
                "code `DISK_FULL` (4000) was deleted",
            ),
            (
                "DISK_FULL",
                "NO_SPACE",
                "code `NO_SPACE` reuses number 4000",
            ),
            ("schema://t", "schema://u", "base_uri changed"),
        ];
        for (from, to, needle) in cases {
            let r = changed(|s| {
                s.replace("version: 1.0.0", "version: 1.1.0")
                    .replace(from, to)
            });
            only(&r, Compat::Breaking, needle);
            assert!(
                !r.is_acceptable(),
                "breaking without a major bump must fail: {needle}"
            );
            assert!(r.render("t.yaml").contains("need a new major version"));
        }
    }

    #[test]
    fn a_major_bump_allows_breaking_changes() {
        let r = changed(|s| {
            s.replace("version: 1.0.0", "version: 2.0.0")
                .replace("number: 4000", "number: 4001")
        });
        assert!(r.has_breaking() && r.is_acceptable());
        assert!(
            r.render("t.yaml")
                .contains("allowed by the major version bump 1.0.0 -> 2.0.0")
        );
    }

    #[test]
    fn compatible_changes() {
        let r = changed(|s| {
            s.replace("version: 1.0.0", "version: 1.1.0")
                .replace("title: disk full", "title: the disk is full")
                .replace(
                    "optional: [backup_path]",
                    "optional: [backup_path, snippet]",
                )
                .replace("[Free space]", "[Free some space]")
                + "  READ_ONLY_FS:\n    number: 4001\n    category: external\n    since: 1.1.0\n    title: read-only\n    message: ro\n    recovery_hints: [Remount]\n    explanation: x\n"
        });
        assert!(!r.has_breaking(), "{r:#?}");
        assert!(r.is_acceptable());
        only(&r, Compat::Compatible, "title of code `DISK_FULL` reworded");
        only(
            &r,
            Compat::Compatible,
            "may now carry context field `snippet`",
        );
        only(
            &r,
            Compat::Compatible,
            "recovery hints of code `DISK_FULL` changed",
        );
        only(&r, Compat::Compatible, "code `READ_ONLY_FS` (4001) added");
    }

    /// A taxonomy whose codes take their message, parameters, hints and
    /// context from their categories, and carry no hints.
    const DEFAULTS: &str = r#"
taxonomy: { name: t, version: 1.0.0, base_uri: "schema://t", numbered: false, hints: optional }
fields:
  status: { type: integer, in: top_level, doc: The HTTP status. }
categories:
  client:
    description: bad request
    retryable: false
    cause: input
    message: "{text}"
    params:
      text: { type: string, description: The server's message. }
    context: { required: [status] }
codes:
  NOT_FOUND: { category: client, since: 1.0.0, title: not found, explanation: x }
  GONE:
    category: client
    since: 1.0.0
    title: gone
    explanation: x
    message: "gone: {text}"
"#;

    /// A changed category default is a change of every code that inherits
    /// it, reported as if the code's own value had changed, where the
    /// category writes it; a code with its own value is not reported.
    #[test]
    fn a_changed_default_is_a_change_of_each_code_inheriting_it() {
        let old = spec(DEFAULTS);
        let edit = |from: &str, to: &str| {
            let text = DEFAULTS.replace(from, to);
            assert_ne!(text, DEFAULTS, "{from}");
            let line = text
                .lines()
                .position(|l| l.contains(to.lines().next().unwrap_or(to).trim()))
                .unwrap()
                + 1;
            (diff(&old, &spec(&text)), line)
        };

        let (r, line) = edit(r#"message: "{text}""#, r#"message: "failed: {text}""#);
        assert_eq!(r.changes.len(), 1, "{r:#?}");
        assert_eq!(r.changes[0].message, "message of code `NOT_FOUND` reworded");
        assert_eq!(r.changes[0].loc.map(|l| l.line), Some(line));

        let (r, _) = edit("required: [status]", "optional: [status]");
        for code in ["NOT_FOUND", "GONE"] {
            only(
                &r,
                Compat::Breaking,
                &format!("required context field `status` of code `{code}`"),
            );
        }

        let (r, line) = edit(
            "    context:",
            "    recovery_hints: [Read the message]\n    context:",
        );
        assert_eq!(r.changes.len(), 2, "{r:#?}");
        for code in ["NOT_FOUND", "GONE"] {
            only(
                &r,
                Compat::Compatible,
                &format!("recovery hints of code `{code}` changed"),
            );
        }
        assert!(
            r.changes
                .iter()
                .all(|c| c.loc.map(|l| l.line) == Some(line)),
            "{r:#?}"
        );

        let (r, _) = edit(
            "description: The server's message.",
            "description: What the server said.",
        );
        only(
            &r,
            Compat::Compatible,
            "message parameters of code `NOT_FOUND` changed",
        );
        only(
            &r,
            Compat::Compatible,
            "message parameters of code `GONE` changed",
        );

        // Requiring hints (here, the category gives them) is compatible;
        // making them optional breaks readers of an envelope that carries
        // them (splice's, here), which may now be empty.
        let required = DEFAULTS
            .replace("hints: optional", "hints: required")
            .replace(
                "    context:",
                "    recovery_hints: [Read the message]\n    context:",
            );
        only(
            &diff(&old, &spec(&required)),
            Compat::Compatible,
            "recovery hints are required now",
        );
        only(
            &diff(&spec(&required), &old),
            Compat::Breaking,
            "recovery hints are optional now",
        );
    }

    /// [`BASE`] without numbers: `numbered: false`, no `range`, no `number`.
    fn without_numbers(text: &str) -> String {
        text.replace(
            r#"base_uri: "schema://t" }"#,
            r#"base_uri: "schema://t", numbered: false }"#,
        )
        .replace("range: [1000, 1999], ", "")
        .replace("range: [4000, 4999], ", "")
        .replace("    number: 1000\n", "")
        .replace("    number: 4000\n", "")
    }

    /// A release that drops its numbers breaks the clients reading them
    /// (and splice's envelope loses its `code`); one that numbers its codes
    /// adds them. Between two releases without numbers, codes are compared
    /// by name, with no number in the messages.
    #[test]
    fn numbering_a_taxonomy_or_dropping_its_numbers() {
        let (numbered, unnumbered) = (spec(BASE), spec(&without_numbers(BASE)));
        assert_eq!(numbered.codes[0].number(), Some(1000));
        assert_eq!(unnumbered.codes[0].number(), None);

        let r = diff(&numbered, &unnumbered);
        only(&r, Compat::Breaking, "the codes are no longer numbered");
        only(&r, Compat::Breaking, "`code`");
        assert!(
            !r.changes.iter().any(|c| c.message.contains("renumbered")),
            "{r:#?}"
        );

        let r = diff(&unnumbered, &numbered);
        only(&r, Compat::Compatible, "the codes are numbered now");
        assert!(
            !r.changes.iter().any(|c| c.message.contains("range")),
            "ranges come with the numbers: {r:#?}"
        );

        let later = without_numbers(BASE).replace("version: 1.0.0", "version: 1.1.0")
            + "  READ_ONLY_FS:\n    category: external\n    since: 1.1.0\n    title: read-only\n    message: ro\n    recovery_hints: [Remount]\n    explanation: x\n";
        let r = diff(&unnumbered, &spec(&later));
        assert!(r.is_acceptable(), "{r:#?}");
        only(&r, Compat::Compatible, "code `READ_ONLY_FS` added");
        assert!(
            r.changes.iter().all(|c| !c.message.contains('(')),
            "a code without a number is named without one: {r:#?}"
        );
        let r = diff(&spec(&later), &unnumbered);
        only(
            &r,
            Compat::Breaking,
            "code `READ_ONLY_FS` was deleted from the spec; mark it `removed` instead so its name stays reserved",
        );
    }

    /// `range_block` only constrains how the spec assigns numbers: adding
    /// or dropping it is compatible (the ranges are compared on their own).
    #[test]
    fn declaring_a_range_block_is_compatible() {
        let r = changed(|s| {
            s.replace("version: 1.0.0", "version: 1.0.1").replace(
                r#"base_uri: "schema://t" }"#,
                r#"base_uri: "schema://t", range_block: 1000 }"#,
            )
        });
        assert!(!r.has_breaking(), "{r:#?}");
        only(
            &r,
            Compat::Compatible,
            "range_block changed from none to 1000",
        );
    }

    #[test]
    fn a_code_becoming_a_violation_kind_is_compatible_and_said() {
        let r = changed(|s| {
            s.replace("version: 1.0.0", "version: 1.1.0").replacen(
                "category: validation\n",
                "category: validation\n    sent_as: violation\n",
                1,
            )
        });
        assert!(!r.has_breaking() && r.is_acceptable(), "{r:#?}");
        only(
            &r,
            Compat::Compatible,
            "code `EMPTY_EDITS` now arrives only as a violation kind",
        );
        assert_eq!(r.changes.len(), 1, "{r:#?}");
        // And back: the variant was in the schema all along.
        let back = diff(
            &spec(&BASE.replacen(
                "category: validation\n",
                "category: validation\n    sent_as: violation\n",
                1,
            )),
            &spec(&BASE.replace("version: 1.0.0", "version: 1.1.0")),
        );
        only(
            &back,
            Compat::Compatible,
            "code `EMPTY_EDITS` may now arrive as an envelope's own `error_code`",
        );
    }

    /// The rules of `operations:` (smithy-diff's): adding an operation is
    /// an addition, removing one or renaming it on the wire breaks its
    /// callers, an operation raising a new code is an addition shown as a
    /// warning, and one that stops raising a code is reported.
    #[test]
    fn operations_are_compared() {
        let ops = |body: &str| format!("{BASE}operations:\n{body}");
        let old = spec(&ops(
            "  edit:\n    doc: Edits.\n    codes: [EMPTY_EDITS, DISK_FULL]\n  \
             list:\n    doc: Lists.\n    codes: [DISK_FULL]\n",
        ));
        let bumped = |body: &str| spec(&ops(body).replace("version: 1.0.0", "version: 1.1.0"));

        // Added: an addition, refused in a patch release.
        let r = diff(
            &old,
            &bumped(
                "  edit:\n    doc: Edits.\n    codes: [EMPTY_EDITS, DISK_FULL]\n  \
                 list:\n    doc: Lists.\n    codes: [DISK_FULL]\n  \
                 undo:\n    doc: Undoes.\n    codes: [DISK_FULL]\n",
            ),
        );
        only(&r, Compat::Compatible, "operation `undo` added");
        assert!(
            r.is_acceptable() && r.changes.iter().all(|c| c.adds),
            "{r:#?}"
        );

        // Removed, or renamed on the wire: breaking.
        let r = diff(
            &old,
            &bumped(
                "  edit:\n    wire: editFile\n    doc: Edits.\n    codes: [EMPTY_EDITS, DISK_FULL]\n",
            ),
        );
        only(&r, Compat::Breaking, "operation `list` removed");
        only(
            &r,
            Compat::Breaking,
            "wire name of operation `edit` changed from `edit` to `editFile`",
        );
        assert!(!r.is_acceptable(), "{r:#?}");

        // A code added to an operation: compatible, with a warning.
        let r = diff(
            &old,
            &bumped(
                "  edit:\n    doc: Edits.\n    codes: [EMPTY_EDITS, DISK_FULL]\n  \
                 list:\n    doc: Lists.\n    codes: [EMPTY_EDITS, DISK_FULL]\n",
            ),
        );
        only(
            &r,
            Compat::Compatible,
            "operation `list` now raises `EMPTY_EDITS`",
        );
        assert!(
            r.is_acceptable() && r.changes.len() == 1 && r.changes[0].warning,
            "{r:#?}"
        );
        assert!(
            r.render("t.yaml").contains("warning: t.yaml:"),
            "{}",
            r.render("t.yaml")
        );

        // A code no longer raised: compatible, reported.
        let r = diff(
            &old,
            &bumped(
                "  edit:\n    doc: Edits.\n    codes: [DISK_FULL]\n  \
                 list:\n    doc: Lists.\n    codes: [DISK_FULL]\n",
            ),
        );
        only(
            &r,
            Compat::Compatible,
            "operation `edit` no longer raises `EMPTY_EDITS`",
        );
        assert!(r.is_acceptable() && !r.has_breaking(), "{r:#?}");

        // Regrouping the same lists changes nothing a client sees: only the
        // new group is reported, as a change that adds nothing.
        let grouped = format!(
            "{BASE}code_groups:\n  disk:\n    doc: Disk.\n    codes: [DISK_FULL]\n\
             operations:\n  edit:\n    doc: Edits.\n    groups: [disk]\n    codes: [EMPTY_EDITS]\n  \
             list:\n    doc: Lists.\n    groups: [disk]\n"
        );
        let r = diff(&old, &spec(&grouped));
        only(&r, Compat::Compatible, "code group `disk` added");
        assert!(
            r.changes.len() == 1 && !r.changes[0].adds && !r.changes[0].warning,
            "{r:#?}"
        );
    }

    #[test]
    fn declared_fields_and_types_are_compared() {
        // BASE declares nothing, so it reads with the format-1 vocabulary;
        // the edited side declares it explicitly, then changes it.
        let declared = |edit: &dyn Fn(String) -> String| {
            let vocabulary = include_str!("format1_declarations.yaml");
            let text = format!("{BASE}{}", edit(vocabulary.to_owned()))
                .replace("version: 1.0.0,", "version: 1.0.1,");
            diff(&spec(BASE), &spec(&text))
        };
        let same = declared(&|v| v);
        assert!(same.changes.is_empty(), "{:?}", same.changes);
        let r = declared(&|v| {
            v.replacen(
                "  file_path:\n    type: string",
                "  file_path:\n    type: integer",
                1,
            )
        });
        only(
            &r,
            Compat::Breaking,
            "type of context field `file_path` changed",
        );
        let r = declared(&|v| {
            v.replacen(
                "      actual:\n        type: integer\n        optional: true\n",
                "      actual:\n        type: integer\n",
                1,
            )
        });
        only(
            &r,
            Compat::Breaking,
            "`actual` of `Limit` was optional and is now required",
        );
        let r = declared(&|v| {
            v.replacen(
                "  file_type:\n    type: string\n    in: context",
                "  file_type:\n    type: string\n    in: top_level",
                1,
            )
        });
        only(&r, Compat::Breaking, "moved from `context` to `top_level`");
        let r = declared(&|v| {
            v.replacen(
                "enum: [failed, skipped]",
                "enum: [failed, skipped, aborted]",
                1,
            )
        });
        only(
            &r,
            Compat::Compatible,
            "value `aborted` added to enum `EditState`",
        );
        let r = declared(&|v| {
            format!("{v}  retry_after_ms: {{ type: integer, in: context, doc: Wait. }}\n")
        });
        only(
            &r,
            Compat::Compatible,
            "context field `retry_after_ms` added",
        );
        // An addition is compatible, but not in a patch release (1.0.1):
        // semver releases new behaviour in a minor version. The refusal
        // does not claim that 1.0.0 clients reject it: the open schema
        // accepts it (the `schema` tests validate such envelopes).
        assert!(!r.is_acceptable(), "{r:?}");
        assert!(
            r.version_problems[0].contains("in a patch release")
                && r.version_problems[0].contains("at least 1.1.0")
                && r.version_problems[0].contains("still validate against the 1.0.0 schema")
                && !r.version_problems[0].contains("reject"),
            "{r:?}"
        );
        let minor = diff(
            &spec(BASE),
            &spec(
                &format!(
                    "{BASE}{}  retry_after_ms: {{ type: integer, in: context, doc: Wait. }}\n",
                    include_str!("format1_declarations.yaml")
                )
                .replace("version: 1.0.0,", "version: 1.1.0,"),
            ),
        );
        assert!(minor.is_acceptable(), "{minor:?}");
        // A patch release that only rewords is fine.
        let reworded = changed(|s| {
            s.replace("version: 1.0.0", "version: 1.0.1")
                .replace("title: disk full", "title: the disk is full")
        });
        assert_eq!(reworded.changes.len(), 1, "{reworded:?}");
        assert!(!reworded.changes[0].adds, "{reworded:?}");
        assert!(reworded.is_acceptable(), "{reworded:?}");
    }

    #[test]
    fn examples_are_documentation_a_patch_release_may_change() {
        let old = format!("{BASE}{}", include_str!("format1_declarations.yaml"));
        let new = old
            .replace(
                "    doc: \"The file the error is about, as the caller wrote it.\"\n",
                "    doc: \"The file the error is about, as the caller wrote it.\"\n    example: /p/a.rs\n",
            )
            .replace(
                "recovery_hints: [Pass at least one edit]\n",
                "recovery_hints: [Pass at least one edit]\n    example: { backup_path: /p/a.rs.bak }\n",
            );
        assert_ne!(old, new);
        let same_version = diff(&spec(&old), &spec(&new));
        assert!(!same_version.has_breaking(), "{same_version:#?}");
        only(
            &same_version,
            Compat::Compatible,
            "example of context field `file_path` changed (documentation only)",
        );
        only(
            &same_version,
            Compat::Compatible,
            "examples of code `EMPTY_EDITS` changed (documentation only)",
        );
        assert!(
            same_version.changes.iter().all(|c| !c.adds),
            "{same_version:#?}"
        );
        assert!(
            same_version.version_problems[0].contains("at least 1.0.1"),
            "{same_version:#?}"
        );
        let patch = diff(
            &spec(&old),
            &spec(&new.replace("version: 1.0.0,", "version: 1.0.1,")),
        );
        assert!(patch.is_acceptable(), "{patch:#?}");
        // Reordering a code's example entries is formatting, not content.
        let two = new.replace(
            "example: { backup_path: /p/a.rs.bak }",
            "example: { backup_path: /p/a.rs.bak, file_path: /p/b.rs }",
        );
        let swapped = two.replace(
            "example: { backup_path: /p/a.rs.bak, file_path: /p/b.rs }",
            "example: { file_path: /p/b.rs, backup_path: /p/a.rs.bak }",
        );
        let r = diff(&spec(&two), &spec(&swapped));
        assert!(r.changes.is_empty(), "{r:#?}");
        assert!(r.is_acceptable(), "{r:#?}");
    }

    #[test]
    fn the_envelope_shape_is_compared() {
        const SPLICE: &str = "envelope:\n  success: { carries: constant, value: false, doc: Always false for an error. }\n  error_code: { carries: code_name }\n  code: { carries: number }\n  category: { carries: category }\n  message: { carries: message }\n  retryable: { carries: retryable }\n  cause: { carries: cause }\n  recovery_hints: { carries: hints }\n  context: { carries: context }\n";
        let bumped = |s: &str| s.replace("version: 1.0.0", "version: 2.0.0");
        // Writing out the default envelope changes nothing.
        let r = changed(|b| format!("{SPLICE}{b}"));
        assert!(r.changes.is_empty() && r.is_acceptable(), "{r:#?}");
        for (edit, compat, needle) in [
            ("", Compat::Breaking, "member `code` removed or renamed"),
            (
                "  code: { carries: constant, value: 7 }\n",
                Compat::Breaking,
                "`code` carried `number` and now carries `constant` (7)",
            ),
            (
                "  code: { carries: number, optional: true }\n",
                Compat::Breaking,
                "`code` made optional",
            ),
            (
                "  code: { carries: number }\n  ts: { carries: constant, value: 1, optional: true }\n",
                Compat::Compatible,
                "optional envelope member `ts` added",
            ),
            (
                "  code: { carries: number }\n  ts: { carries: constant, value: 1 }\n",
                Compat::Breaking,
                "`ts` added as always present",
            ),
            (
                "  code: { carries: number, doc: The number. }\n",
                Compat::Compatible,
                "doc of envelope member `code` reworded",
            ),
        ] {
            let new = SPLICE.replace("  code: { carries: number }\n", edit);
            let r = changed(|b| bumped(&format!("{new}{b}")));
            only(&r, compat, needle);
        }
        // A constant's value is part of the wire.
        let r = changed(|b| format!("{}{b}", SPLICE.replace("value: false", "value: true")));
        only(
            &r,
            Compat::Breaking,
            "carried `constant` (false) and now carries `constant` (true)",
        );
    }

    /// `absent_means` (RFC 9457's absent `type` is `about:blank`): adding it
    /// makes the code name optional, which old clients reject; pointing it at
    /// another code changes what old clients read an envelope without it as;
    /// dropping it makes the member always present again, which they accept.
    #[test]
    fn the_code_of_an_envelope_without_its_name_is_compared() {
        const SHAPE: &str = "envelope:\n  error_code: { carries: code_name }\n  message: { carries: message }\n  context: { carries: context }\n";
        let with = |code: &str| {
            SHAPE.replace(
                "{ carries: code_name }",
                &format!("{{ carries: code_name, absent_means: {code} }}"),
            )
        };
        let bump = |s: String, v: &str| s.replace("version: 1.0.0", &format!("version: {v}"));
        let old = spec(&format!("{SHAPE}{BASE}"));
        let r = diff(
            &old,
            &spec(&bump(format!("{}{BASE}", with("DISK_FULL")), "2.0.0")),
        );
        only(
            &r,
            Compat::Breaking,
            "envelope member `error_code` made optional",
        );
        let old = spec(&format!("{}{BASE}", with("DISK_FULL")));
        let r = diff(
            &old,
            &spec(&bump(format!("{}{BASE}", with("EMPTY_EDITS")), "2.0.0")),
        );
        only(
            &r,
            Compat::Breaking,
            "an envelope without member `error_code` meant `DISK_FULL` and now means `EMPTY_EDITS`",
        );
        let r = diff(&old, &spec(&bump(format!("{SHAPE}{BASE}"), "1.1.0")));
        assert!(!r.has_breaking(), "{r:#?}");
        only(&r, Compat::Compatible, "`error_code` made always present");
    }

    /// `absent_means` per category (Stripe's `type` without `code`): a
    /// fallback for a category whose envelopes carried the member breaks
    /// old clients, as does pointing one at another code; dropping one
    /// leaves the member in every envelope of the category, which old
    /// clients accept, as dropping `absent_means` does.
    #[test]
    fn the_code_of_an_envelope_without_its_name_is_compared_per_category() {
        const SHAPE: &str = "envelope:\n  category: { carries: category }\n  error_code: { carries: code_name, absent_means: MAP }\n  message: { carries: message }\n  context: { carries: context }\n";
        const OTHER: &str = "  TOO_MANY:\n    number: 1001\n    category: validation\n    since: 1.0.0\n    title: too many edits\n    message: \"too many edits\"\n    recovery_hints: [Pass fewer edits]\n    explanation: x\n";
        let with = |map: &str, version: &str| {
            spec(
                &format!("{}{BASE}{OTHER}", SHAPE.replace("MAP", map))
                    .replace("version: 1.0.0", &format!("version: {version}")),
            )
        };
        let one = "{ validation: EMPTY_EDITS }";
        let two = "{ validation: EMPTY_EDITS, external: DISK_FULL }";
        let old = with(one, "1.0.0");

        let r = diff(&old, &with(two, "2.0.0"));
        only(
            &r,
            Compat::Breaking,
            "an envelope of category `external` may lack member `error_code` (meaning `DISK_FULL`)",
        );

        let r = diff(&with(two, "1.0.0"), &with(one, "1.1.0"));
        assert!(!r.has_breaking(), "{r:#?}");
        only(
            &r,
            Compat::Compatible,
            "an envelope of category `external` always has member `error_code`",
        );

        let r = diff(&old, &with("{ validation: TOO_MANY }", "2.0.0"));
        only(
            &r,
            Compat::Breaking,
            "an envelope of category `validation` without member `error_code` meant `EMPTY_EDITS` and now means `TOO_MANY`",
        );

        let r = diff(&old, &with("EMPTY_EDITS", "2.0.0"));
        only(
            &r,
            Compat::Breaking,
            "meant a code per category and now means `EMPTY_EDITS` in every category",
        );
        let r = diff(&with("DISK_FULL", "1.0.0"), &with(two, "2.0.0"));
        only(
            &r,
            Compat::Breaking,
            "an envelope of category `validation` without member `error_code` meant `DISK_FULL` and now means `EMPTY_EDITS`",
        );
    }

    #[test]
    fn deprecation_is_compatible() {
        let r = changed(|s| {
            s.replace("version: 1.0.0", "version: 1.1.0").replace(
                "recovery_hints: [Free space]\n",
                "recovery_hints: [Free space]\n    deprecated: { since: 1.1.0, replaced_by: EMPTY_EDITS }\n",
            )
        });
        assert!(!r.has_breaking(), "{r:#?}");
        only(
            &r,
            Compat::Compatible,
            "deprecated in favour of `EMPTY_EDITS`",
        );
    }

    #[test]
    fn version_must_move_forward() {
        let r = changed(|s| s.replace("title: disk full", "title: the disk is full"));
        assert!(!r.is_acceptable());
        assert!(r.version_problems[0].contains("still 1.0.0"), "{r:#?}");
        let old = spec(&BASE.replace("version: 1.0.0", "version: 1.2.0"));
        let r = diff(&old, &spec(BASE));
        assert!(r.version_problems[0].contains("went backwards"), "{r:#?}");
    }
}
