//! `splice-codegen generate [--check]`: keeps the committed artifacts in step
//! with `errors.yaml`.
//!
//! The generated files are committed (clients read them without building
//! anything), so they can go stale. Following rust-analyzer's
//! `ensure_file_contents`, one function computes every artifact from the spec
//! and either writes the ones that differ or, in check mode, writes nothing
//! and reports each stale file with a unified diff and the command that fixes
//! it. The CLI and the `artifacts_are_fresh` test both call [`run`].
//!
//! Files are compared with line endings normalized (a checkout with
//! `core.autocrlf` is not stale) and only rewritten when their content
//! differs, so an up-to-date tree keeps its timestamps.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostics;
use crate::spec::Spec;
use crate::{emit_markdown, emit_python, emit_schema, emit_ts};

/// The command that regenerates splice's own artifacts in its workspace
/// (what `generate --check` tells a splice developer to run).
pub const GENERATE_COMMAND: &str = "cargo run -p splice-codegen -- generate";

/// The spec, relative to the workspace root.
pub const SPEC_PATH: &str = "errors.yaml";

/// The JSON Schema of the spec format itself ([`crate::grammar::json_schema`]),
/// relative to the workspace root: it belongs to the format, not to a spec,
/// so [`run`] (a workspace's `generate` without arguments) writes it and
/// [`run_at`] (a spec's artifacts into a directory) does not.
pub const FORMAT_SCHEMA_PATH: &str = "schema/errors-yaml.schema.json";

/// Diffs longer than this many lines are cut in the report.
const MAX_DIFF_LINES: usize = 200;

/// Every generated artifact of `spec`: path relative to the workspace root,
/// and its full content.
pub fn artifacts(spec: &Spec) -> Vec<(PathBuf, String)> {
    vec![
        (
            PathBuf::from("schema/error-envelope.schema.json"),
            emit_schema::emit_string(spec),
        ),
        (
            PathBuf::from("schema/error-envelope.d.ts"),
            emit_ts::emit(spec),
        ),
        (
            PathBuf::from("schema/error-envelope.js"),
            emit_ts::emit_js(spec),
        ),
        (
            PathBuf::from("schema/error_envelope.py"),
            emit_python::emit(spec),
        ),
        (PathBuf::from("docs/errors.md"), emit_markdown::emit(spec)),
    ]
}

/// What [`run`] did.
#[derive(Debug)]
pub struct Outcome {
    /// Set when `errors.yaml` did not load; no artifact was read or written.
    pub diagnostics: Option<Diagnostics>,
    /// One entry per artifact, in [`artifacts`] order.
    pub files: Vec<FileReport>,
    /// Whether this was a check (nothing written).
    pub check: bool,
    /// The spec, as given.
    pub spec: PathBuf,
    /// Where the artifacts are, as given (`--out`); empty for the
    /// workspace's own, whose paths are shown relative to its root.
    pub out: PathBuf,
    /// The command that brings the artifacts up to date.
    pub fix: String,
}

/// The state of one artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// Relative to the output directory ([`Outcome::out`]).
    pub path: PathBuf,
    /// What was found or done.
    pub status: FileStatus,
}

/// See [`FileReport`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStatus {
    /// Already up to date.
    Fresh,
    /// Was stale or missing, and has been rewritten.
    Written,
    /// Stale or missing, and left alone (check mode). `diff` is a unified
    /// diff from the committed file to the expected one.
    Stale {
        /// `--- committed` / `+++ expected` unified diff, possibly cut.
        diff: String,
    },
}

impl Outcome {
    /// True when the spec loaded and no artifact is stale (in check mode) or
    /// every artifact has been brought up to date.
    pub fn is_success(&self) -> bool {
        self.diagnostics.is_none()
            && self
                .files
                .iter()
                .all(|f| !matches!(f.status, FileStatus::Stale { .. }))
    }

    /// Artifacts that are stale (check mode only).
    pub fn stale(&self) -> impl Iterator<Item = &FileReport> {
        self.files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Stale { .. }))
    }

    /// Human-readable report: diagnostics, or one line per artifact plus the
    /// diff of each stale one and the command that fixes them.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(d) = &self.diagnostics {
            out.push_str(&d.render());
            if !out.ends_with('\n') {
                out.push('\n');
            }
            let _ = writeln!(
                out,
                "error: {} has errors; no artifact was {}",
                self.spec.display(),
                if self.check { "checked" } else { "written" }
            );
            return out;
        }
        for file in &self.files {
            let path = self.out.join(&file.path);
            let path = path.display();
            match &file.status {
                FileStatus::Fresh => {
                    let _ = writeln!(out, "fresh: {path}");
                }
                FileStatus::Written => {
                    let _ = writeln!(out, "updated: {path}");
                }
                FileStatus::Stale { diff } => {
                    let _ = writeln!(out, "error: {path} is stale");
                    out.push_str(diff);
                    if !diff.ends_with('\n') {
                        out.push('\n');
                    }
                }
            }
        }
        if self.stale().next().is_some() {
            let _ = writeln!(
                out,
                "error: generated files are out of date with {}; run `{}` to update",
                self.spec.display(),
                self.fix
            );
        }
        out
    }
}

/// [`run_at`] for `<workspace_root>/errors.yaml`, with the artifacts
/// beside it: splice's own layout.
pub fn run(workspace_root: &Path, check: bool) -> io::Result<Outcome> {
    let mut outcome = run_at(&workspace_root.join(SPEC_PATH), workspace_root, check)?;
    // Like every artifact, written only beside a spec that loads.
    if outcome.diagnostics.is_none() {
        outcome.files.push(ensure(
            workspace_root,
            PathBuf::from(FORMAT_SCHEMA_PATH),
            &crate::grammar::json_schema_string(),
            check,
        )?);
    }
    outcome.spec = PathBuf::from(SPEC_PATH);
    outcome.out = PathBuf::new();
    outcome.fix = GENERATE_COMMAND.to_string();
    Ok(outcome)
}

/// Loads the spec at `spec_path`, computes every artifact and writes the
/// ones under `out_dir` that differ (`check == false`) or reports them as
/// stale (`check == true`, nothing written): how a project other than
/// splice keeps its artifacts where it keeps them. A spec that does not
/// load is an [`Outcome`] with diagnostics, not an `Err`; `Err` is an I/O
/// failure on an artifact.
pub fn run_at(spec_path: &Path, out_dir: &Path, check: bool) -> io::Result<Outcome> {
    let fix = format!(
        "splice-codegen generate {} --out {}",
        spec_path.display(),
        out_dir.display()
    );
    let spec = match crate::load_path(spec_path) {
        Ok(spec) => spec,
        Err(diagnostics) => {
            return Ok(Outcome {
                diagnostics: Some(diagnostics),
                files: Vec::new(),
                check,
                spec: spec_path.to_path_buf(),
                out: out_dir.to_path_buf(),
                fix,
            });
        }
    };
    let mut files = Vec::new();
    for (path, expected) in artifacts(&spec) {
        files.push(ensure(out_dir, path, &expected, check)?);
    }
    Ok(Outcome {
        diagnostics: None,
        files,
        check,
        spec: spec_path.to_path_buf(),
        out: out_dir.to_path_buf(),
        fix,
    })
}

/// Compares the artifact `path` under `out_dir` with `expected`, and writes
/// it when it differs, unless `check`.
fn ensure(out_dir: &Path, path: PathBuf, expected: &str, check: bool) -> io::Result<FileReport> {
    let full = out_dir.join(&path);
    let current = match std::fs::read_to_string(&full) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("cannot read {}: {e}", full.display()),
            ));
        }
    };
    let status = match &current {
        Some(text) if normalize_newlines(text) == expected => FileStatus::Fresh,
        _ if check => FileStatus::Stale {
            diff: diff(&path, current.as_deref().unwrap_or(""), expected),
        },
        _ => {
            if let Some(dir) = full.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&full, expected).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot write {}: {e}", full.display()))
            })?;
            FileStatus::Written
        }
    };
    Ok(FileReport { path, status })
}

fn normalize_newlines(text: &str) -> String {
    text.replace("\r\n", "\n")
}

fn diff(path: &Path, old: &str, new: &str) -> String {
    let old = normalize_newlines(old);
    let name = path.display().to_string();
    let text = similar::TextDiff::from_lines(old.as_str(), new)
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{name} (committed)"),
            &format!("{name} (expected)"),
        )
        .to_string();
    let total = text.lines().count();
    if total <= MAX_DIFF_LINES {
        return text;
    }
    let mut cut: String = text
        .lines()
        .take(MAX_DIFF_LINES)
        .flat_map(|l| [l, "\n"])
        .collect();
    let _ = writeln!(cut, "... ({} more diff lines)", total - MAX_DIFF_LINES);
    cut
}

/// The spec in `codegen/tests/fixtures/demo.yaml`, for the emitters' unit
/// tests.
#[cfg(test)]
pub(crate) fn test_fixture() -> Spec {
    crate::load_str(
        include_str!("../tests/fixtures/demo.yaml"),
        "tests/fixtures/demo.yaml",
    )
    .unwrap_or_else(|d| panic!("fixture does not load:\n{}", d.render()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_names_both_sides_and_is_cut() {
        let d = diff(Path::new("docs/x.md"), "a\nb\n", "a\nc\n");
        assert!(d.starts_with("--- docs/x.md (committed)\n+++ docs/x.md (expected)\n"));
        assert!(d.contains("-b\n+c\n"));
        let long_new: String = (0..1000).map(|i| format!("{i}\n")).collect();
        let cut = diff(Path::new("x"), "", &long_new);
        assert_eq!(cut.lines().count(), MAX_DIFF_LINES + 1);
        assert!(cut.ends_with("more diff lines)\n"));
    }

    #[test]
    fn artifacts_are_deterministic() {
        let spec = test_fixture();
        assert_eq!(artifacts(&spec), artifacts(&spec));
    }
}
