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
//! differs, so an up-to-date tree keeps its timestamps. The stale ones are
//! replaced together (each staged to a temporary file, then all renamed:
//! [`replace_all`] says what a failure or a crash leaves), and never through
//! a symbolic link ([`refuse_links`]).

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
    // The format's own schema too, like every artifact written only beside
    // a spec that loads, and replaced together with them.
    let mut outcome = generate_at(&workspace_root.join(SPEC_PATH), workspace_root, check, true)?;
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
    generate_at(spec_path, out_dir, check, false)
}

/// [`run_at`], plus the format's schema ([`FORMAT_SCHEMA_PATH`]) when
/// `format_schema` (splice's own workspace).
fn generate_at(
    spec_path: &Path,
    out_dir: &Path,
    check: bool,
    format_schema: bool,
) -> io::Result<Outcome> {
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
    let mut stale = Vec::new();
    let mut wanted = artifacts(&spec);
    if format_schema {
        wanted.push((
            PathBuf::from(FORMAT_SCHEMA_PATH),
            crate::grammar::json_schema_string(),
        ));
    }
    for (path, expected) in wanted {
        let full = out_dir.join(&path);
        refuse_links(out_dir, &path)?;
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
                diff: diff(&path, current.as_deref().unwrap_or(""), &expected),
            },
            _ => {
                stale.push(Replacement {
                    path: full,
                    old: current,
                    new: expected,
                });
                FileStatus::Written
            }
        };
        files.push(FileReport { path, status });
    }
    replace_all(&stale)?;
    Ok(Outcome {
        diagnostics: None,
        files,
        check,
        spec: spec_path.to_path_buf(),
        out: out_dir.to_path_buf(),
        fix,
    })
}

/// An artifact to rewrite: its path, what it holds (`None`: missing) and
/// what it must hold.
struct Replacement {
    path: PathBuf,
    old: Option<String>,
    new: String,
}

/// Refuses an artifact path under `out_dir` whose file, or a directory
/// between `out_dir` and it (`schema/`, `docs/`), is a symbolic link:
/// `generate` replaces the files it owns, and a link there (planted, or
/// left by a tool) would send the new artifact somewhere else or replace
/// the link by a file. `out_dir` itself may be a link: the user named it.
fn refuse_links(out_dir: &Path, relative: &Path) -> io::Result<()> {
    let mut at = out_dir.to_path_buf();
    for part in relative.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} is a symbolic link; generate writes its artifacts as files and does not \
                         follow links there: remove the link (or pass its target as --out)",
                        at.display()
                    ),
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot read {}: {e}", at.display()),
                ));
            }
        }
    }
    Ok(())
}

/// Replaces every stale artifact so that the set is either all old or all
/// new: each new content is first written in full to a temporary file
/// beside its artifact (created exclusively, flushed to disk, with the old
/// file's permissions); only when all are staged are they renamed over the
/// artifacts, one `rename` each. A failure while staging removes the
/// temporary files and changes no artifact; a failed rename puts the
/// artifacts already renamed back to their old content. A crash between two
/// renames (power loss, `kill -9`) leaves the artifacts renamed so far new
/// and the others old: `generate --check` then reports the old ones stale,
/// and running `generate` again completes the set.
fn replace_all(stale: &[Replacement]) -> io::Result<()> {
    let mut staged: Vec<PathBuf> = Vec::new();
    let cleanup = |staged: &[PathBuf]| {
        for tmp in staged {
            let _ = std::fs::remove_file(tmp);
        }
    };
    for r in stale {
        match stage(&r.path, &r.new) {
            Ok(tmp) => staged.push(tmp),
            Err(e) => {
                cleanup(&staged);
                return Err(e);
            }
        }
    }
    for (i, (r, tmp)) in stale.iter().zip(&staged).enumerate() {
        if let Err(e) = std::fs::rename(tmp, &r.path) {
            cleanup(&staged[i..]);
            let restored = restore(&stale[..i]);
            return Err(io::Error::new(
                e.kind(),
                format!(
                    "cannot replace {}: {e}; {}",
                    r.path.display(),
                    match restored {
                        Ok(()) => "the artifacts already replaced were put back".to_string(),
                        Err(r) =>
                            format!("putting back the artifacts already replaced failed: {r}"),
                    }
                ),
            ));
        }
    }
    for dir in stale.iter().filter_map(|r| r.path.parent()) {
        sync_dir(dir);
    }
    Ok(())
}

/// Puts replaced artifacts back as they were (a missing one removed).
fn restore(replaced: &[Replacement]) -> io::Result<()> {
    for r in replaced {
        match &r.old {
            Some(old) => {
                let tmp = stage(&r.path, old)?;
                std::fs::rename(&tmp, &r.path).inspect_err(|_| {
                    let _ = std::fs::remove_file(&tmp);
                })?;
            }
            None => std::fs::remove_file(&r.path)?,
        }
    }
    Ok(())
}

/// Writes `content` to a new temporary file beside `path` and flushes it to
/// disk; returns the temporary path. Creating it exclusively means no file
/// or link of that name is opened, whatever is there.
fn stage(path: &Path, content: &str) -> io::Result<PathBuf> {
    use std::io::Write as _;
    let with_path = |what: &str, e: io::Error| {
        io::Error::new(e.kind(), format!("cannot {what} {}: {e}", path.display()))
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| with_path("create the directory of", e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut attempt = 0u32;
    loop {
        let tmp = dir.join(format!(
            ".{name}.splice-codegen-{}-{attempt}.tmp",
            std::process::id()
        ));
        let mut file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
                continue;
            }
            Err(e) => return Err(with_path("write a temporary file for", e)),
        };
        let written = file
            .write_all(content.as_bytes())
            .and_then(|()| match &permissions {
                Some(p) => file.set_permissions(p.clone()),
                None => Ok(()),
            })
            .and_then(|()| file.sync_all());
        return match written {
            Ok(()) => Ok(tmp),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(with_path("write", e))
            }
        };
    }
}

/// Flushes a directory's entries (the renames) to disk, where the platform
/// allows opening a directory; best effort, like the renames' durability
/// on file systems that do not support it.
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
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
        let spec = crate::test_fixture();
        assert_eq!(artifacts(&spec), artifacts(&spec));
    }
}
