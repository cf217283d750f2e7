//! `splice-codegen init [DIR]`: a starter `errors.yaml` for a project that
//! adopts the compiler.
//!
//! A maintainer starting a taxonomy should begin from a spec that already
//! loads, checks and generates, and shows each part of the format once: the
//! taxonomy header, one category, one declared context field and one code
//! that carries it. The starter is a template text, not an emitted model,
//! so its comments survive; a test loads it with the same rules as any spec.

use std::io;
use std::path::{Path, PathBuf};

/// The starter spec.
pub const STARTER: &str = r#"# The error taxonomy of my-server: every error code it can return.
# Format: docs/spec-format.md of splice (taxonomy, categories, types,
# fields, codes). Check it with `splice-codegen check errors.yaml`.
taxonomy:
  name: my-server
  version: 0.1.0
  # The JSON Schema's $id is <base_uri>/error-envelope/v<major>.
  base_uri: schema://my-server
  # Optional: every category range must lie inside one block of this many
  # numbers (1000-1999, 2000-2999, ...). Drop it for interleaved numbers.
  range_block: 1000
  description: |
    Error codes returned by my-server. Every failed call returns one JSON error
    envelope whose `error_code` is one of these codes.

# A category owns a range of numbers and the defaults of its codes:
# `retryable` (can the caller fix its call and retry?) and `cause` (who is
# to blame: input, environment or server).
categories:
  input:
    range: [1000, 1999]
    description: The call's arguments are wrong; nothing was done.
    retryable: true
    cause: input

# Named object and enum types that fields use (none yet), e.g.
#   Limit:
#     doc: "A limit the call exceeded."
#     members:
#       max: { type: integer, doc: "The limit." }
types: {}

# The context fields codes may carry: a type (string, integer, boolean,
# error_code, a declared type, or an array of one: `Limit[]`), where it
# lives (`top_level` beside error_code, or inside `context`), a doc, and
# optionally an example: the value docs/errors.md shows in its envelopes (a
# code may override it with `example: { path: ... }`).
fields:
  path:
    type: string
    in: top_level
    doc: "The path the error is about, as the caller wrote it."
    example: /srv/data/report.txt

codes:
  NOT_FOUND:
    number: 1000
    category: input
    since: 0.1.0
    title: the path does not exist
    message: "{path} does not exist"
    recovery_hints:
      - "Check the path for typos, or list its directory to see what exists"
    context:
      required: [path]
    explanation: |
      The call named a path that does not exist, so nothing was done.

      How to fix: correct the path (list the directory first if unsure), then
      send the call again.
"#;

/// Writes [`STARTER`] to `dir/errors.yaml` (creating `dir`), refusing to
/// overwrite an existing file; returns the path written.
pub fn write(dir: &Path) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("errors.yaml");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                io::Error::new(
                    e.kind(),
                    format!("{} already exists; not overwritten", path.display()),
                )
            } else {
                io::Error::new(e.kind(), format!("cannot create {}: {e}", path.display()))
            }
        })?;
    io::Write::write_all(&mut file, STARTER.as_bytes())?;
    Ok(path)
}

/// What to run after [`write`], for a spec at `spec` whose artifacts go to
/// `dir`.
pub fn next_steps(spec: &Path, dir: &Path) -> String {
    let (spec, dir) = (spec.display(), dir.display());
    format!(
        "wrote {spec}\n\
         next:\n  \
         splice-codegen check {spec}\n  \
         splice-codegen generate {spec} --out {dir}   # schema/, docs/errors.md\n  \
         # in your crate (Cargo.toml: splice-macros, serde with derive, schemars 1):\n  \
         #   mod errors {{ splice_macros::taxonomy!(\"<path from this .rs file to errors.yaml>\"); }}\n  \
         #   let e = errors::ErrorEnvelope::not_found(\"/tmp/x\").build();\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_loads_without_a_problem() {
        let spec =
            crate::load_str(STARTER, "errors.yaml").unwrap_or_else(|d| panic!("{}", d.render()));
        assert_eq!(spec.codes.len(), 1);
        assert_eq!(spec.categories.len(), 1);
    }

    #[test]
    fn init_refuses_to_overwrite_and_its_spec_generates() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), STARTER);
        std::fs::write(&path, "edited").unwrap();
        let err = write(dir.path()).unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "edited");

        std::fs::write(&path, STARTER).unwrap();
        let out = dir.path().join("out");
        let outcome = crate::generate::run_at(&path, &out, false).unwrap();
        assert!(outcome.is_success(), "{}", outcome.render());
        let schema =
            std::fs::read_to_string(out.join("schema/error-envelope.schema.json")).unwrap();
        assert!(
            schema.contains("NOT_FOUND") && schema.contains("\"path\""),
            "{schema}"
        );
        let check = crate::generate::run_at(&path, &out, true).unwrap();
        assert!(check.is_success(), "{}", check.render());
    }
}
