//! `splice-codegen`: check the taxonomy, compare it with the last release,
//! keep the generated artifacts fresh, and print the generated Rust.
//!
//! Exit status: 0 when everything is fine, 1 when the spec has problems, a
//! comparison finds an unacceptable change, or generated files are stale;
//! 2 for usage errors (from clap).

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use splice_codegen::spec::Spec;
use splice_codegen::{Diagnostics, diff, load_path};

/// The splice error-taxonomy compiler.
#[derive(Debug, Parser)]
#[command(name = "splice-codegen", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load and check a spec; print every problem with its line and column.
    Check {
        /// The spec file [default: errors.yaml of the enclosing workspace].
        spec: Option<PathBuf>,
        /// One `FILE:LINE:COL: message` line per problem (for editors and
        /// grep) instead of the annotated report.
        #[arg(long)]
        short: bool,
        /// Also check that the artifacts generated into DIR are fresh.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Compare two versions of the spec: breaking and compatible changes.
    ///
    /// Fails on a breaking change unless NEW bumps the major version, and
    /// when the content changed without a version bump. Without arguments,
    /// compares the last release (schema/baseline/errors.yaml) with
    /// errors.yaml of the enclosing workspace, as CI does.
    Diff {
        /// The released spec [default: schema/baseline/errors.yaml].
        #[arg(requires = "new")]
        old: Option<PathBuf>,
        /// The candidate spec [default: errors.yaml].
        new: Option<PathBuf>,
    },
    /// Rewrite the generated artifacts (schema/, docs/errors.md) from
    /// errors.yaml of the enclosing workspace, or from SPEC into --out.
    Generate {
        /// Write nothing; exit 1 with a diff if any artifact is stale.
        #[arg(long)]
        check: bool,
        /// The spec file [default: errors.yaml of the enclosing workspace].
        #[arg(value_name = "SPEC")]
        spec: Option<PathBuf>,
        /// The spec file, as earlier releases spelled it (same as SPEC).
        #[arg(
            long = "spec",
            value_name = "FILE",
            hide = true,
            conflicts_with = "spec"
        )]
        spec_flag: Option<PathBuf>,
        /// Where the artifacts go (schema/ and docs/ under it) [default: the
        /// spec's directory].
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write a minimal, valid starter errors.yaml into DIR (default: the
    /// current directory) and print the next commands.
    Init {
        /// The directory [default: .].
        dir: Option<PathBuf>,
        /// The wire shape to start from: splice (splice's own envelope),
        /// rfc9457 (problem details), google-rpc (google.rpc.Status as
        /// Google's JSON APIs send it), jsonrpc (a JSON-RPC 2.0 error
        /// response) or named (codes told apart by name only, without
        /// numbers or hints: OAuth 2.0 token errors).
        #[arg(long, value_name = "SHAPE", default_value = "splice")]
        shape: splice_codegen::init::Shape,
    },
    /// Print the Rust code that `taxonomy!` expands to, formatted.
    Rust {
        /// The spec file [default: errors.yaml of the enclosing workspace].
        spec: Option<PathBuf>,
    },
    /// Run the language server of errors.yaml (LSP 3.17 over stdio):
    /// diagnostics, hover, completion, definitions, references, symbols,
    /// rename and quick fixes, for any spec the editor opens.
    Lsp,
    /// Print the published JSON Schema of the envelope (any declared
    /// `envelope:` shape).
    Schema {
        /// The spec file [default: errors.yaml of the enclosing workspace].
        spec: Option<PathBuf>,
    },
}

/// The last released taxonomy, relative to the workspace root.
const BASELINE_PATH: &str = "schema/baseline/errors.yaml";

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one command; `Ok(false)` means "reported problems, exit 1".
fn run(command: Command) -> Result<bool, String> {
    match command {
        Command::Check {
            spec,
            short,
            out: out_dir,
        } => {
            let path = spec_path(spec)?;
            let spec = match load_path(&path) {
                Ok(spec) => spec,
                Err(diagnostics) if short => {
                    eprintln!("{}", diagnostics.one_lines());
                    return Ok(false);
                }
                Err(diagnostics) => {
                    report(&diagnostics);
                    return Ok(false);
                }
            };
            let warnings = splice_codegen::lint(&spec);
            if !warnings.is_empty() {
                let source = std::fs::read_to_string(&path).unwrap_or_default();
                let warnings = Diagnostics::new(path.display().to_string(), source, warnings);
                if short {
                    eprintln!("{}", warnings.one_lines());
                } else {
                    report(&warnings);
                }
            }
            out(&format!("ok: {}: {}\n", path.display(), summary(&spec)));
            match out_dir {
                Some(dir) => generate(&path, &dir, true),
                None => Ok(true),
            }
        }
        Command::Diff { old, new } => {
            let (old, new, new_name) = match (old, new) {
                (Some(old), Some(new)) => {
                    let name = new.display().to_string();
                    (old, new, name)
                }
                _ => {
                    let root = workspace_root()?;
                    (
                        root.join(BASELINE_PATH),
                        root.join("errors.yaml"),
                        "errors.yaml".to_string(),
                    )
                }
            };
            let old_spec = match splice_codegen::load::load_baseline_path(&old) {
                Ok(spec) => Some(spec),
                Err(diagnostics) => {
                    report(&diagnostics);
                    None
                }
            };
            let (Some(old_spec), Some(new_spec)) = (old_spec, load(&new)) else {
                return Ok(false);
            };
            let report = diff::diff(&old_spec, &new_spec);
            out(&report.render(&new_name));
            Ok(report.is_acceptable())
        }
        Command::Generate {
            check,
            spec,
            spec_flag,
            out,
        } => {
            let spec = spec.or(spec_flag);
            if spec.is_none() && out.is_none() {
                let root = workspace_root()?;
                let outcome =
                    splice_codegen::generate::run(&root, check).map_err(|e| e.to_string())?;
                return Ok(render(&outcome));
            }
            let spec = spec_path(spec)?;
            let dir = match out {
                Some(dir) => dir,
                None => spec
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| PathBuf::from(".")),
            };
            generate(&spec, &dir, check)
        }
        Command::Init { dir, shape } => {
            let dir = dir.unwrap_or_else(|| PathBuf::from("."));
            let path = splice_codegen::init::write_shape(&dir, shape).map_err(|e| e.to_string())?;
            out(&splice_codegen::init::next_steps(&path, &dir, shape));
            Ok(true)
        }
        Command::Rust { spec } => {
            let path = spec_path(spec)?;
            let Some(spec) = load(&path) else {
                return Ok(false);
            };
            out(&splice_codegen::emit_rust::emit_pretty(&spec));
            Ok(true)
        }
        Command::Lsp => match splice_codegen::lsp::main() {
            Ok(0) => Ok(true),
            Ok(_) => Ok(false),
            Err(e) => Err(format!("the language server failed: {e}")),
        },
        Command::Schema { spec } => {
            let path = spec_path(spec)?;
            let Some(spec) = load(&path) else {
                return Ok(false);
            };
            out(&splice_codegen::emit_schema::emit_string(&spec));
            Ok(true)
        }
    }
}

/// Generates (or checks) the artifacts of `spec` under `dir`.
fn generate(spec: &Path, dir: &Path, check: bool) -> Result<bool, String> {
    let outcome = splice_codegen::generate::run_at(spec, dir, check).map_err(|e| e.to_string())?;
    Ok(render(&outcome))
}

/// Prints what generating did: to stdout on success, else to stderr.
fn render(outcome: &splice_codegen::generate::Outcome) -> bool {
    let text = outcome.render();
    if outcome.is_success() {
        out(&text);
    } else {
        eprint!("{text}");
    }
    outcome.is_success()
}

/// Loads a spec, printing its diagnostics to stderr on failure.
fn load(path: &Path) -> Option<Spec> {
    match load_path(path) {
        Ok(spec) => Some(spec),
        Err(diagnostics) => {
            report(&diagnostics);
            None
        }
    }
}

/// Writes to stdout; a closed pipe (`splice-codegen rust | head`) is not an
/// error worth a panic.
fn out(text: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

fn report(diagnostics: &Diagnostics) {
    if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        eprint!("{}", diagnostics.render_styled());
    } else {
        eprint!("{}", diagnostics.render());
    }
}

/// `taxonomy splice 1.0.0: 6 categories, 33 codes (1 deprecated, 2 removed)`.
fn summary(spec: &Spec) -> String {
    let deprecated = spec.codes.iter().filter(|c| c.is_deprecated()).count();
    let removed = spec.codes.iter().filter(|c| !c.is_emitted()).count();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut text = format!(
        "taxonomy {} {}: {}, {} ({deprecated} deprecated, {removed} removed)",
        spec.taxonomy.name.value,
        spec.taxonomy.version.value,
        plural(spec.categories.len(), "category", "categories"),
        plural(spec.codes.len(), "code", "codes")
    );
    if !spec.operations.is_empty() {
        text.push_str(&format!(
            ", {}",
            plural(spec.operations.len(), "operation", "operations")
        ));
    }
    text
}

/// The given spec path, or `errors.yaml` in the nearest ancestor of the
/// current directory that has one.
fn spec_path(given: Option<PathBuf>) -> Result<PathBuf, String> {
    match given {
        Some(p) => Ok(p),
        None => Ok(workspace_root()?.join("errors.yaml")),
    }
}

/// The nearest ancestor of the current directory containing `errors.yaml`.
fn workspace_root() -> Result<PathBuf, String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    cwd.ancestors()
        .find(|dir| dir.join("errors.yaml").is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            format!(
                "no errors.yaml in {} or any parent directory; pass the spec path explicitly",
                cwd.display()
            )
        })
}
