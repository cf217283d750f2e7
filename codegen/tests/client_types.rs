//! The generated client types, checked by the real type checkers.
//!
//! - Python: `mypy --strict` on `tests/client-types/consumer.py` (which
//!   narrows an `ErrorEnvelope` on `error_code` and uses `CODES`) together
//!   with `schema/error_envelope.py`; then the consumer runs with `python3`
//!   and checks every example envelope of `docs/errors.md` against `CODES`.
//! - TypeScript: `tsc --strict --noEmit` on `tests/client-types/consumer.ts`,
//!   which imports `schema/error-envelope.d.ts`.
//!
//! Each checker also gets a deliberately wrong client (`wrong.py`,
//! `wrong.ts`: reading fields the narrowed code does not carry) and must
//! reject it with exactly the expected errors, so a checker that sees no
//! types (a broken import, an `Any`) cannot make these tests pass.
//!
//! mypy comes from `tests/interop-py/.venv` (pinned with hashes in
//! `tests/interop-py/requirements.txt`), tsc from `tests/interop/node_modules`
//! (pinned in `tests/interop/package-lock.json`); `.ci/run` installs both.
//! When one is missing the test fails under `CI=true` and is skipped, with
//! the reason printed, otherwise.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen/ has a parent")
        .to_path_buf()
}

/// `CI=true` (or `1`), as in `splice_tests::harness::in_ci`.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// `Some(path)` if the tool exists; otherwise panics in CI, or prints why
/// the test is skipped and returns `None`.
fn require(path: PathBuf, what: &str, install: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    skip_or_fail(&format!(
        "{what} ({} is missing; {install})",
        path.display()
    ));
    None
}

/// A needed tool is missing: panics under `CI=true`, prints why the test is
/// skipped otherwise (the caller then returns).
fn skip_or_fail(reason: &str) {
    if in_ci() {
        panic!("this test needs {reason}, and CI=true: failing instead of skipping");
    }
    eprintln!("SKIPPED: needs {reason}");
}

fn run(cmd: &mut Command) -> (Output, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

fn mypy(mypy: &Path, cache: &Path, files: &[&str]) -> (Output, String) {
    let root = root();
    run(Command::new(mypy)
        .args(["--strict", "--python-version", "3.11", "--no-color-output"])
        .arg("--cache-dir")
        .arg(cache)
        .args(files)
        .env("MYPYPATH", root.join("schema"))
        .current_dir(&root))
}

#[test]
fn python_client_types_check_and_agree_with_the_examples() {
    let root = root();
    let Some(mypy_bin) = require(
        root.join("tests/interop-py/.venv/bin/mypy"),
        "mypy",
        "python3 -m venv tests/interop-py/.venv && tests/interop-py/.venv/bin/pip install \
         --require-hashes -r tests/interop-py/requirements.txt",
    ) else {
        return;
    };
    let cache = tempfile::tempdir().expect("temp dir");

    let (out, text) = mypy(
        &mypy_bin,
        cache.path(),
        &["tests/client-types/consumer.py", "schema/error_envelope.py"],
    );
    assert!(
        out.status.success(),
        "mypy --strict rejects the consumer or the generated module:\n{text}"
    );

    let (out, text) = mypy(&mypy_bin, cache.path(), &["tests/client-types/wrong.py"]);
    assert!(!out.status.success(), "mypy accepted wrong.py:\n{text}");
    for expected in [
        "wrong.py:10: error: TypedDict \"MatchNotFoundEnvelope\" has no key \"violations\"",
        "wrong.py:16: error: TypedDict \"MatchNotFoundContext\" has no key \"limit\"",
        "Found 2 errors in 1 file",
    ] {
        assert!(
            text.contains(expected),
            "mypy rejected wrong.py, but not with `{expected}`:\n{text}"
        );
    }

    // The consumer at run time, with the venv's interpreter (Python 3.11 or
    // later, as the module requires).
    let python = mypy_bin.with_file_name("python3");
    let (out, text) = run(Command::new(&python)
        .arg("tests/client-types/consumer.py")
        .arg(&root)
        .env("PYTHONPATH", root.join("schema"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&root));
    assert!(out.status.success(), "consumer.py failed:\n{text}");
    let spec = splice_codegen::load_path(&root.join("errors.yaml"))
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let codes = spec.emitted_codes().count();
    let expected = format!("checked {codes} example envelopes against {codes} codes");
    assert!(
        text.contains(&expected),
        "expected `{expected}` from consumer.py:\n{text}"
    );
}

#[test]
fn typescript_client_types_check() {
    let root = root();
    let Some(tsc) = require(
        root.join("tests/interop/node_modules/typescript/bin/tsc"),
        "tsc",
        "run `npm ci` in tests/interop",
    ) else {
        return;
    };
    let have_node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_node {
        skip_or_fail("node (runs tsc)");
        return;
    }
    let check = |file: &str| {
        run(Command::new("node")
            .arg(&tsc)
            .args([
                "--strict",
                "--noEmit",
                "--pretty",
                "false",
                "--target",
                "es2022",
                "--module",
                "esnext",
                "--moduleResolution",
                "bundler",
            ])
            .arg(file)
            .current_dir(&root))
    };

    let (out, text) = check("tests/client-types/consumer.ts");
    assert!(
        out.status.success(),
        "tsc --strict rejects the consumer or the generated declarations:\n{text}"
    );

    let (out, text) = check("tests/client-types/wrong.ts");
    assert!(!out.status.success(), "tsc accepted wrong.ts:\n{text}");
    for expected in [
        "wrong.ts(8,14): error TS2339: Property 'violations' does not exist on type 'MatchNotFoundEnvelope'.",
        "wrong.ts(15,22): error TS2339: Property 'limit' does not exist on type",
    ] {
        assert!(
            text.contains(expected),
            "tsc rejected wrong.ts, but not with `{expected}`:\n{text}"
        );
    }
    assert_eq!(
        text.matches("error TS").count(),
        2,
        "tsc reported other errors in wrong.ts:\n{text}"
    );
}
