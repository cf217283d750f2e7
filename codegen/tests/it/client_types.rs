//! The generated client types, checked by the real type checkers.
//!
//! - Python: `mypy --strict` on `codegen/tests/client-types/consumer.py` (which
//!   narrows an `ErrorEnvelope` on `error_code` and uses `CODES`) together
//!   with `schema/error_envelope.py`; then the consumer runs with `python3`
//!   and checks every example envelope of `docs/errors.md` against `CODES`.
//! - Python, another taxonomy: the module generated from a variant of the
//!   demo fixture (keyword-named keys, a forward reference) passes
//!   `mypy --strict` with a consumer that narrows it, and imports.
//! - TypeScript's `isListed` (a type predicate) narrows both branches: listed
//!   to `ErrorEnvelope`, unlisted to `UnlistedCodeEnvelope`. Python's
//!   `is_listed` (a `TypeGuard`) narrows the true branch to `ErrorEnvelope`;
//!   the false branch keeps `AnyErrorEnvelope` and reads the members every
//!   envelope has.
//! - TypeScript: `tsc --strict --noEmit` on `codegen/tests/client-types/consumer.ts`,
//!   which imports the generated module `schema/error-envelope.js` (types
//!   from its `.d.ts`); then, for splice and examples/http-fetch, the client
//!   is compiled into a scratch ES-module project and run with node over the
//!   taxonomy's example envelopes, so `isListed` runs for real.
//!
//! Each checker also gets a deliberately wrong client (`wrong.py`,
//! `wrong.ts`: reading fields the narrowed code does not carry) and must
//! reject it with exactly the expected errors, so a checker that sees no
//! types (a broken import, an `Any`) cannot make these tests pass.
//!
//! mypy comes from `tests/interop-py/.venv` (pinned with hashes in
//! `tests/interop-py/requirements.txt`), tsc from `tests/interop/node_modules`
//! (pinned in `tests/interop/package-lock.json`); `.ci/run` installs both,
//! and a test that finds one missing installs it the same way first (so the
//! README's test command works on a fresh machine). When it still cannot
//! run, the test fails under `CI=true` and is skipped, with the reason
//! printed, otherwise.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use splice_codegen::emit_python;

use crate::support::{in_ci, root};

/// Serializes installs: the tests of this file run in parallel.
static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `Some(path)` if the tool exists, or once `setup` (the project's own
/// pinned install, as `.ci/run` does it) has made it exist; otherwise
/// panics in CI, or prints why the test is skipped and returns `None`.
fn require(path: PathBuf, what: &str, install: &str, setup: fn(&Path) -> bool) -> Option<PathBuf> {
    let _one_at_a_time = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    if path.exists() || (setup(&root()) && path.exists()) {
        return Some(path);
    }
    skip_or_fail(&format!(
        "{what} ({} is missing; {install})",
        path.display()
    ));
    None
}

/// Whether `program --version` runs.
fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The pinned Python tools (mypy and the SDK of the interop test) in
/// `tests/interop-py/.venv`, hashes required.
fn install_venv(root: &Path) -> bool {
    let dir = root.join("tests/interop-py");
    if !have("python3") {
        return false;
    }
    if !dir.join(".venv/bin/pip").exists() {
        let ok = Command::new("python3")
            .args(["-m", "venv", ".venv"])
            .current_dir(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return false;
        }
    }
    Command::new(dir.join(".venv/bin/pip"))
        .args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "--require-hashes",
            "-r",
            "requirements.txt",
        ])
        .current_dir(&dir)
        .status()
        .is_ok_and(|s| s.success())
}

/// The pinned npm packages (typescript and the SDK of the interop test).
fn install_npm(root: &Path) -> bool {
    have("npm")
        && Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(root.join("tests/interop"))
            .status()
            .is_ok_and(|s| s.success())
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

/// `mypy --strict` on `files` (relative to `dir`), importing from `path`.
fn mypy_in(mypy: &Path, cache: &Path, dir: &Path, path: &Path, files: &[&str]) -> (Output, String) {
    run(Command::new(mypy)
        .args(["--strict", "--python-version", "3.11", "--no-color-output"])
        .arg("--cache-dir")
        .arg(cache)
        .args(files)
        .env("MYPYPATH", path)
        .current_dir(dir))
}

/// `mypy --strict` on workspace files, importing from `schema/`.
fn mypy(mypy: &Path, cache: &Path, files: &[&str]) -> (Output, String) {
    let root = root();
    mypy_in(mypy, cache, &root, &root.join("schema"), files)
}

fn require_mypy() -> Option<PathBuf> {
    require(
        root().join("tests/interop-py/.venv/bin/mypy"),
        "mypy",
        "python3 -m venv tests/interop-py/.venv && tests/interop-py/.venv/bin/pip install \
         --require-hashes -r tests/interop-py/requirements.txt",
        install_venv,
    )
}

#[test]
fn python_client_types_check_and_agree_with_the_examples() {
    let root = root();
    let Some(mypy_bin) = require_mypy() else {
        return;
    };
    let cache = tempfile::tempdir().expect("temp dir");

    let (out, text) = mypy(
        &mypy_bin,
        cache.path(),
        &[
            "codegen/tests/client-types/consumer.py",
            "schema/error_envelope.py",
        ],
    );
    assert!(
        out.status.success(),
        "mypy --strict rejects the consumer or the generated module:\n{text}"
    );

    let (out, text) = mypy(
        &mypy_bin,
        cache.path(),
        &["codegen/tests/client-types/wrong.py"],
    );
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
        .arg("codegen/tests/client-types/consumer.py")
        .arg(&root)
        .env("PYTHONPATH", root.join("schema"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&root));
    assert!(out.status.success(), "consumer.py failed:\n{text}");
    let spec = splice_codegen::load_path(&root.join("errors.yaml"))
        .unwrap_or_else(|d| panic!("{}", d.render()));
    let codes = spec.enveloped_codes().count();
    let expected = format!("checked {codes} example envelopes against {codes} enveloped codes");
    assert!(
        text.contains(&expected),
        "expected `{expected}` from consumer.py:\n{text}"
    );
}

/// The emitter hard-codes nothing of splice: the module of another taxonomy
/// (the demo fixture, plus a field and a member named like Python keywords,
/// which need the functional `TypedDict` syntax, and an object type that
/// refers to one declared after it) type-checks, narrows, and imports.
#[test]
fn python_types_of_another_taxonomy_check() {
    let Some(mypy_bin) = require_mypy() else {
        return;
    };
    let demo = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo.yaml"),
    )
    .expect("read demo.yaml");
    let spec_text =
        demo.replace(
            "optional: [os_error, rollback]",
            "optional: [os_error, rollback, from]",
        )
        .replace(
            "types:\n",
            "types:\n  Holder:\n    doc: Declared before what it holds.\n    members:\n      \
             limits: { type: \"Limit[]\", doc: Limits. }\n      \
             class: { type: string, optional: true, doc: A keyword-named member. }\n",
        ) + "  from:\n    type: string\n    in: top_level\n    doc: A keyword-named field.\n  \
           holder: { type: Holder, in: context, doc: Uses Holder. }\n";
    let spec_text = spec_text.replace(
        "required: [file_path, limit]",
        "required: [file_path, limit, holder]",
    );
    let spec = splice_codegen::load_str(&spec_text, "demo-variant.yaml")
        .unwrap_or_else(|d| panic!("the demo variant does not load:\n{}", d.render()));
    let module = emit_python::emit(&spec);
    assert!(module.contains("DiskFullEnvelope = typing.TypedDict("));
    assert!(module.contains("Holder = typing.TypedDict("));
    assert!(module.contains("        \"limits\": list[\"Limit\"],\n"));

    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("demo_envelope.py"), &module).expect("write module");
    std::fs::write(dir.path().join("demo_consumer.py"), DEMO_CONSUMER).expect("write consumer");
    let cache = dir.path().join(".mypy_cache");
    let (out, text) = mypy_in(
        &mypy_bin,
        &cache,
        dir.path(),
        dir.path(),
        &["demo_consumer.py", "demo_envelope.py"],
    );
    assert!(
        out.status.success(),
        "mypy --strict rejects the demo module:\n{text}\n{module}"
    );

    let python = mypy_bin.with_file_name("python3");
    let (out, text) = run(Command::new(&python)
        .arg("demo_consumer.py")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(dir.path()));
    assert!(out.status.success(), "demo_consumer.py failed:\n{text}");
    assert!(
        text.contains("ok DISK_FULL 4000 from=/x limits=1"),
        "{text}"
    );
}

/// Narrows a demo-variant envelope and reads its keyword-named keys.
const DEMO_CONSUMER: &str = r#"import typing

from demo_envelope import (
    CODES,
    AnyErrorEnvelope,
    DiskFullEnvelope,
    ErrorEnvelope,
    Holder,
    is_listed,
)


def describe(env: ErrorEnvelope) -> str:
    if env["error_code"] == "DISK_FULL":
        typing.assert_type(env, DiskFullEnvelope)
        typing.assert_type(env["code"], typing.Literal[4000])
        holder: Holder = env["context"]["holder"]
        return f"{env['error_code']} {env['code']} from={env.get('from')} limits={len(holder['limits'])}"
    return env["message"]


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        return "unlisted " + env["error_code"]
    typing.assert_type(env, ErrorEnvelope)
    return describe(env)


env: ErrorEnvelope = {
    "success": False,
    "error_code": "DISK_FULL",
    "code": 4000,
    "category": "external",
    "message": "no space left for /x",
    "retryable": False,
    "cause": "environment",
    "recovery_hints": ["Free some space"],
    "file_path": "/x",
    "from": "/x",
    "context": {
        "limit": {"name": "disk", "max": 1},
        "holder": {"limits": [{"name": "disk", "max": 1}], "class": "k"},
    },
}
assert CODES["DISK_FULL"].number == env["code"]
assert "GONE" not in CODES
later: AnyErrorEnvelope = {
    "success": False,
    "error_code": "LATER",
    "code": 4999,
    "category": "later",
    "message": "m",
    "retryable": False,
    "cause": "server",
    "recovery_hints": [],
}
assert handle(later) == "unlisted LATER"
print("ok", handle(env))
"#;

/// tsc from the pinned npm packages, once node runs; `None` (after failing
/// in CI, or printing why the test is skipped) otherwise.
fn require_tsc() -> Option<PathBuf> {
    let tsc = require(
        root().join("tests/interop/node_modules/typescript/bin/tsc"),
        "tsc",
        "run `npm ci` in tests/interop",
        install_npm,
    )?;
    if !have("node") {
        skip_or_fail("node (runs tsc)");
        return None;
    }
    Some(tsc)
}

/// `tsc --strict --noEmit` on `files`, from `dir`.
fn tsc(tsc: &Path, dir: &Path, files: &[&str]) -> (Output, String) {
    tsc_with(tsc, dir, files, "--noEmit")
}

/// `tsc --strict` on `files`, from `dir`, with one more flag.
fn tsc_with(tsc: &Path, dir: &Path, files: &[&str], flag: &str) -> (Output, String) {
    run(Command::new("node")
        .arg(tsc)
        .args([
            "--strict",
            flag,
            "--pretty",
            "false",
            "--target",
            "es2022",
            "--module",
            "esnext",
            "--moduleResolution",
            "bundler",
        ])
        .args(files)
        .current_dir(dir))
}

/// The published schema as client authors' tools see it: Ajv (the
/// TypeScript SDK's validator) in strict mode compiles it without a warning
/// and accepts every example envelope of the docs, for splice and for the
/// second taxonomy; json-schema-to-typescript generates one type per code
/// from it, which `tsc --strict` checks with a consumer that narrows it
/// (`codegen/tests/client-types/schema-tools.mjs`, `generated-consumer.ts`).
#[test]
fn the_schema_compiles_in_ajv_strict_and_generates_one_type_per_code() {
    let root = root();
    let Some(tsc_bin) = require_tsc() else {
        return;
    };
    let out_dir = tempfile::tempdir().expect("temp dir");
    let (out, text) = run(Command::new("node")
        .arg(root.join("codegen/tests/client-types/schema-tools.mjs"))
        .arg(out_dir.path())
        .arg("schema/error-envelope.schema.json:docs/errors.md")
        .arg("examples/http-fetch/schema/error-envelope.schema.json:examples/http-fetch/docs/errors.md")
        .current_dir(&root));
    assert!(out.status.success(), "schema-tools.mjs failed:\n{text}");
    let codes = splice_codegen::load_path(&root.join("errors.yaml"))
        .unwrap_or_else(|d| panic!("{}", d.render()))
        .enveloped_codes()
        .count();
    assert!(
        text.contains(&format!(
            "ajv strict: schema/error-envelope.schema.json compiles; {codes} examples valid"
        )),
        "{text}"
    );
    assert!(text.contains("ajv strict: examples/http-fetch/"), "{text}");

    std::fs::copy(
        root.join("codegen/tests/client-types/generated-consumer.ts"),
        out_dir.path().join("consumer.ts"),
    )
    .expect("copy the consumer");
    let (out, text) = tsc(&tsc_bin, out_dir.path(), &["consumer.ts"]);
    assert!(
        out.status.success(),
        "tsc --strict rejects the consumer of json-schema-to-typescript's types:\n{text}"
    );
}

#[test]
fn typescript_client_types_check() {
    let root = root();
    let Some(tsc_bin) = require_tsc() else {
        return;
    };
    let check = |file: &str| tsc(&tsc_bin, &root, &[file]);

    let (out, text) = check("codegen/tests/client-types/consumer.ts");
    assert!(
        out.status.success(),
        "tsc --strict rejects the consumer or the generated declarations:\n{text}"
    );

    let (out, text) = check("codegen/tests/client-types/wrong.ts");
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

/// The generated TypeScript module at run time, for splice and for the
/// second taxonomy: its `.js` and `.d.ts` are copied into a scratch project
/// (`"type": "module"`) laid out like the workspace, the client is compiled
/// with `tsc --strict` (splice: `consumer.ts`, the README's `isListed` +
/// `switch` pattern; http-fetch: the taxonomy-independent `listed.ts`), and
/// node runs it over every example envelope of the taxonomy's docs: each is
/// listed, a code of a later release and non-envelopes are not, and every
/// listed code has an example.
#[test]
fn the_typescript_module_narrows_and_runs_with_node() {
    let root = root();
    let Some(tsc_bin) = require_tsc() else {
        return;
    };
    let spec = |path: &str| {
        splice_codegen::load_path(&root.join(path)).unwrap_or_else(|d| panic!("{}", d.render()))
    };
    for (schema_dir, docs, client, spec_path) in [
        ("schema", "docs/errors.md", "consumer.ts", "errors.yaml"),
        (
            "examples/http-fetch/schema",
            "examples/http-fetch/docs/errors.md",
            "listed.ts",
            "examples/http-fetch/errors.yaml",
        ),
    ] {
        let project = tempfile::tempdir().expect("temp dir");
        let p = project.path();
        std::fs::create_dir_all(p.join("schema")).expect("mkdir schema");
        std::fs::create_dir_all(p.join("codegen/tests/client-types")).expect("mkdir tests");
        for file in ["error-envelope.js", "error-envelope.d.ts"] {
            std::fs::copy(
                root.join(schema_dir).join(file),
                p.join("schema").join(file),
            )
            .unwrap_or_else(|e| panic!("copy {schema_dir}/{file}: {e}"));
        }
        for file in ["consumer.ts", "listed.ts"] {
            std::fs::copy(
                root.join("codegen/tests/client-types").join(file),
                p.join("codegen/tests/client-types").join(file),
            )
            .expect("copy the client");
        }
        std::fs::write(p.join("package.json"), "{\"type\": \"module\"}\n").expect("package.json");
        let client_path = format!("codegen/tests/client-types/{client}");
        let (out, text) = tsc_with(&tsc_bin, p, &[&client_path], "--declaration");
        assert!(
            out.status.success(),
            "tsc --strict rejects {client} against {schema_dir}/error-envelope.d.ts:\n{text}"
        );
        let compiled = p.join(client_path.replace(".ts", ".js"));
        let (out, text) = run(Command::new("node")
            .arg(root.join("codegen/tests/client-types/run-consumer.mjs"))
            .arg(&compiled)
            .arg(root.join(docs)));
        assert!(out.status.success(), "{client} failed at run time:\n{text}");
        let codes = spec(spec_path).enveloped_codes().count();
        let expected = format!(
            "isListed: {codes} example envelopes listed, 1 later code unlisted, {codes} listed codes"
        );
        assert!(
            text.contains(&expected),
            "expected `{expected}` from {client}:\n{text}"
        );
    }
}

/// The artifacts of `codegen/tests/fixtures/constructs.yaml` (the constructs
/// of issue #24 §2 and §3: names on the wire, ...) with splice's envelope:
/// every example envelope validates against its schema and its strict
/// schema, and clients that read the constructs (`client-types/constructs.ts`,
/// `constructs.py`) pass `tsc --strict` and `mypy --strict`; the Python one
/// then reads each example envelope.
#[test]
fn the_constructs_fixture_reaches_every_client_artifact() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let spec = splice_codegen::load_path(&fixture.join("constructs.yaml"))
        .unwrap_or_else(|d| panic!("constructs.yaml does not load:\n{}", d.render()));
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in splice_codegen::generate::artifacts(&spec) {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let examples = crate::support::write_valid_examples(&spec, dir.path(), "constructs");
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/client-types");

    if let Some(tsc_bin) = require_tsc() {
        std::fs::copy(
            client.join("constructs.ts"),
            dir.path().join("constructs.ts"),
        )
        .unwrap();
        let (out, text) = tsc(&tsc_bin, dir.path(), &["constructs.ts"]);
        assert!(
            out.status.success(),
            "tsc --strict rejects constructs.ts or its declarations:\n{text}\n{}",
            std::fs::read_to_string(dir.path().join("schema/error-envelope.d.ts")).unwrap()
        );
    }
    if let Some(mypy_bin) = require_mypy() {
        std::fs::copy(
            client.join("constructs.py"),
            dir.path().join("constructs.py"),
        )
        .unwrap();
        let schema_dir = dir.path().join("schema");
        let cache = dir.path().join(".mypy_cache");
        let (out, text) = mypy_in(
            &mypy_bin,
            &cache,
            dir.path(),
            &schema_dir,
            &["constructs.py", "schema/error_envelope.py"],
        );
        assert!(
            out.status.success(),
            "mypy --strict rejects constructs.py or its module:\n{text}\n{}",
            std::fs::read_to_string(schema_dir.join("error_envelope.py")).unwrap()
        );
        let python = mypy_bin.with_file_name("python3");
        let (out, text) = run(Command::new(&python)
            .arg("constructs.py")
            .args(&examples)
            .env("PYTHONPATH", &schema_dir)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(dir.path()));
        assert!(out.status.success(), "constructs.py failed:\n{text}");
        assert!(
            text.contains(
                "alias https://example.com/problems/throttled RESOURCE_EXHAUSTED 2s type.googleapis.com/google.rpc.ErrorInfo RATE_LIMITED k -3 None 0.5 pubsub.googleapis.com -1 2sRATE_LIMIT_EXCEEDED"
            ),
            "{text}"
        );
    }
}

/// One spec under `tests/fixtures/envelopes/` that declares its own
/// `envelope:`, with its clients under `client-types/envelopes/`, and what
/// the checkers must say about them.
struct Declared {
    name: &'static str,
    /// Each error `tsc --strict` reports on `<name>_wrong.ts`, all of them.
    ts_wrong: &'static [&'static str],
    /// The same for `mypy --strict` on `<name>_wrong.py`.
    py_wrong: &'static [&'static str],
    /// What `check` (TypeScript, under node) returns for the payloads
    /// written in the client and then the example envelopes of the docs.
    ts_ran: &'static str,
    /// What the Python client prints for the same.
    py_ran: &'static str,
}

const DECLARED: &[Declared] = &[
    Declared {
        name: "google_rpc",
        ts_wrong: &[
            "google_rpc_wrong.ts(7,11): error TS2322: Type 'ErrorInfo[] | undefined' is not assignable to type 'object[]'.",
            "google_rpc_wrong.ts(8,32): error TS2339: Property 'retryable' does not exist on type '{ code: 404; message: string; status: \"NOT_FOUND\"; details?: ErrorInfo[] | undefined; }'.",
            "google_rpc_wrong.ts(14,12): error TS2322: Type '500' is not assignable to type '404'.",
        ],
        py_wrong: &[
            "google_rpc_wrong.py:9: error: TypedDict \"NotFoundEnvelopeError\" has no key \"retryable\"",
            "google_rpc_wrong.py:10: error: TypedDict \"NotFoundEnvelope\" has no key \"status\"",
            "google_rpc_wrong.py:10: error: TypedDict \"InternalEnvelope\" has no key \"status\"",
        ],
        ts_ran: "2 codes; NOT_FOUND 0 Requested entity was not found.; INTERNAL example.com/BACKEND_DOWN; \
                 unlisted DEADLINE_EXCEEDED 504; NOT_FOUND 0 not found; INTERNAL example domain/example reason",
        py_ran: "ok INTERNAL example.com/BACKEND_DOWN; unlisted DEADLINE_EXCEEDED; NOT_FOUND 0 not found; \
                 INTERNAL example domain/example reason",
    },
    Declared {
        name: "jsonrpc",
        ts_wrong: &[
            "jsonrpc_wrong.ts(7,28): error TS2339: Property 'method' does not exist on type '{ position?: number | undefined; }'.",
            "jsonrpc_wrong.ts(9,9): error TS2322: Type '\"2.0\"' is not assignable to type '\"1.0\"'.",
        ],
        py_wrong: &[
            "jsonrpc_wrong.py:9: error: TypedDict \"ParseErrorContext\" has no key \"method\"",
            "jsonrpc_wrong.py:10: error: TypedDict \"MethodNotFoundEnvelopeError\" has no key \"status\"",
            "jsonrpc_wrong.py:10: error: TypedDict \"InternalErrorEnvelopeError\" has no key \"status\"",
        ],
        ts_ran: "3 codes; METHOD_NOT_FOUND tools/cal; PARSE_ERROR at ?; unlisted -32800; PARSE_ERROR at ?; \
                 METHOD_NOT_FOUND example method; INTERNAL_ERROR Internal error",
        py_ran: "ok METHOD_NOT_FOUND tools/cal; unlisted -32800; PARSE_ERROR at None; \
                 METHOD_NOT_FOUND example method; INTERNAL_ERROR Internal error",
    },
    Declared {
        name: "rfc9457",
        ts_wrong: &[
            "rfc9457_wrong.ts(7,16): error TS2339: Property 'balance' does not exist on type 'ServiceDownEnvelope'.",
            "rfc9457_wrong.ts(9,14): error TS2339: Property 'category' does not exist on type 'OutOfCreditEnvelope'.",
        ],
        py_wrong: &[
            "rfc9457_wrong.py:8: error: TypedDict \"ServiceDownEnvelope\" has no key \"balance\"",
            "rfc9457_wrong.py:9: error: TypedDict \"OutOfCreditEnvelope\" has no key \"category\"",
        ],
        ts_ran: "2 codes; out of credit: 30 (2 accounts); unlisted https://example.com/probs/later; \
                 out of credit: 30 (2 accounts); down: the service is down",
        py_ran: "ok out of credit: 30 (2 accounts); unlisted https://example.com/probs/later; \
                 out of credit: 30 (2 accounts); down: the service is down",
    },
    Declared {
        name: "odata",
        ts_wrong: &[
            "odata_wrong.ts(7,22): error TS2339: Property 'target' does not exist on type '{ code: \"ServiceUnavailable\"; message: string; innererror?: InnerError | undefined; }'.",
            "odata_wrong.ts(12,37): error TS2322: Type 'number' is not assignable to type 'string'.",
            "odata_wrong.ts(14,3): error TS2322: Type 'unknown' is not assignable to type 'string'.",
        ],
        py_wrong: &[
            "odata_wrong.py:9: error: TypedDict \"ServiceUnavailableEnvelopeError\" has no key \"target\"",
            "odata_wrong.py:11: error: \"object\" has no attribute \"upper\"",
        ],
        ts_ran: "2 codes; BadArgument password PasswordError>PasswordDoesNotMeetPolicy(minLength,maxLength,\
                 characterTypes,minDistinctCharacterTypes)>PasswordReuseNotAllowed min=6; unlisted TooManyRequests; \
                 BadArgument password PasswordError>PasswordDoesNotMeetPolicy(minLength) min=6; ServiceUnavailable",
        py_ran: "ok BadArgument password PasswordError>PasswordDoesNotMeetPolicy(minLength,maxLength,\
                 characterTypes,minDistinctCharacterTypes)>PasswordReuseNotAllowed min=6; unlisted TooManyRequests; \
                 BadArgument password PasswordError>PasswordDoesNotMeetPolicy(minLength) min=6; ServiceUnavailable",
    },
    Declared {
        name: "kubernetes",
        ts_wrong: &[
            "kubernetes_wrong.ts(11,3): error TS2322: Type '\"Unknown\"' is not assignable to type '\"\"'.",
            "kubernetes_wrong.ts(15,7): error TS2367: This comparison appears to be unintentional because the types '\"Failure\"' and '\"Success\"' have no overlap.",
            "kubernetes_wrong.ts(16,24): error TS2339: Property 'number' does not exist on type 'CodeInfo'.",
        ],
        py_wrong: &[
            "kubernetes_wrong.py:11: error: Incompatible types (expression has type \"Literal['Unknown']\", TypedDict item \"reason\" has type \"Literal['']\")",
            "kubernetes_wrong.py:17: error: Non-overlapping equality check (left operand type: \"Literal['Failure']\", right operand type: \"Literal['Success']\")",
            "kubernetes_wrong.py:19: error: \"CodeInfo\" has no attribute \"number\"",
        ],
        ts_ran: "4 codes; UNKNOWN 500 server hints=0 retryable=true; \
                 NOT_FOUND 404 client hints=0: pods \"web-0\" not found; EXPIRED 410 client hints=0; \
                 unlisted Conflict; UNKNOWN 1 server hints=0 retryable=true; \
                 NOT_FOUND 1 client hints=0: example text; GONE 1 client hints=0; EXPIRED 1 client hints=0",
        py_ran: "ok UNKNOWN 500 server hints=0 retryable=true; \
                 NOT_FOUND 404 client hints=0: pods \"web-0\" not found; EXPIRED 410 client hints=0; \
                 unlisted Conflict; UNKNOWN 1 server hints=0 retryable=true; \
                 NOT_FOUND 1 client hints=0: example text; GONE 1 client hints=0; EXPIRED 1 client hints=0",
    },
    Declared {
        name: "jsonrpc_data",
        ts_wrong: &[
            "jsonrpc_data_wrong.ts(8,12): error TS18046: 'env.data' is of type 'unknown'.",
            "jsonrpc_data_wrong.ts(12,14): error TS2741: Property 'value' is missing in type '{ name: string; }' but required in type 'Param'.",
        ],
        py_wrong: &[
            "jsonrpc_data_wrong.py:9: error: Value of type \"object\" is not indexable",
            "jsonrpc_data_wrong.py:13: error: Missing key \"value\" for TypedDict \"Param\"",
        ],
        ts_ran: "2 codes; INVALID_PARAMS string [limit=number,filter=object(op),strict=boolean]; \
                 INVALID_PARAMS null []; INTERNAL_ERROR list(3); unlisted -32099; \
                 INVALID_PARAMS object(expected,got) []; INTERNAL_ERROR object(any)",
        py_ran: "ok INVALID_PARAMS string [limit=number,filter=object(op),strict=boolean]; \
                 INVALID_PARAMS null []; INTERNAL_ERROR list(3); unlisted -32099; \
                 INVALID_PARAMS object(expected,got) []; INTERNAL_ERROR object(any)",
    },
    Declared {
        name: "graphql_response",
        ts_wrong: &[
            "graphql_response_wrong.ts(6,39): error TS2322: Type '[]' is not assignable to type '[AnyErrorEnvelope, ...AnyErrorEnvelope[]]'.",
            "graphql_response_wrong.ts(8,10): error TS18046: 'response.data' is of type 'unknown'.",
            "graphql_response_wrong.ts(11,10): error TS2532: Object is possibly 'undefined'.",
        ],
        py_wrong: &[
            "graphql_response_wrong.py:6: error: Missing key \"errors\" for TypedDict \"ErrorResponse\"",
            "graphql_response_wrong.py:10: error: Value of type \"object\" is not indexable",
            "graphql_response_wrong.py:14: error: Item \"None\" of \"CodeInfo | None\" has no attribute \"name\"",
        ],
        ts_ran: "5 codes; [INTERNAL_SERVER_ERROR,BAD_USER_INPUT,unlisted] (no code) boom data=null; \
                 [GRAPHQL_PARSE_FAILED] GRAPHQL_PARSE_FAILED Syntax Error data=absent; \
                 [INTERNAL_SERVER_ERROR] (no code) no user data={\"hero\":null}; GRAPHQL_PARSE_FAILED; \
                 GRAPHQL_VALIDATION_FAILED; BAD_USER_INPUT; UNAUTHENTICATED; INTERNAL_SERVER_ERROR",
        py_ran: "ok [INTERNAL_SERVER_ERROR,BAD_USER_INPUT,unlisted] boom data=null; \
                 [GRAPHQL_PARSE_FAILED] Syntax Error data=absent; \
                 [INTERNAL_SERVER_ERROR] no user data={\"hero\": null}; GRAPHQL_PARSE_FAILED; \
                 GRAPHQL_VALIDATION_FAILED; BAD_USER_INPUT; UNAUTHENTICATED; INTERNAL_SERVER_ERROR",
    },
    Declared {
        name: "families",
        ts_wrong: &[
            "families_wrong.ts(9,7): error TS2367: This comparison appears to be unintentional because the types '\"not_found\" | \"throttling\" | undefined' and '\"throttled\"' have no overlap.",
            "families_wrong.ts(10,7): error TS2367: This comparison appears to be unintentional because the types '\"not_found\" | \"throttling\" | undefined' and '\"throtling\"' have no overlap.",
            "families_wrong.ts(11,7): error TS18048: 'family' is possibly 'undefined'.",
            "families_wrong.ts(12,22): error TS2339: Property 'low' does not exist on type 'FamilyInfo'.",
        ],
        py_wrong: &[
            "families_wrong.py:9: error: Item \"None\" of \"FamilyInfo | None\" has no attribute \"retryable\"",
            "families_wrong.py:11: error: Non-overlapping equality check (left operand type: \"Literal['throttling', 'not_found']\", right operand type: \"Literal['throttled']\")",
            "families_wrong.py:13: error: Non-overlapping equality check (left operand type: \"Literal['throttling', 'not_found']\", right operand type: \"Literal['throtling']\")",
            "families_wrong.py:15: error: Non-overlapping equality check (left operand type: \"Literal['prefix', 'suffix']\", right operand type: \"Literal['range']\")",
            "families_wrong.py:17: error: \"FamilyInfo\" has no attribute \"low\"",
        ],
        ts_ran: "3 codes, families throttling,not_found; \
                 TableNotFoundException not_found *NotFoundException not_found input retryable=false: fix the request; \
                 ThrottlingOnSundayException throttling Throttling* throttling environment retryable=true: back off; \
                 ThrottlingNotFoundException throttling Throttling* throttling environment retryable=true: back off; \
                 unlisted ThrottledOnSunday of no family; ThrottlingException listed throttling family=none; \
                 ThrottlingException listed throttling family=none; RequestLimitExceeded listed throttling family=none; \
                 ResourceNotFoundException listed not_found family=none",
        py_ran: "ok 3 codes, families throttling,not_found; \
                 TableNotFoundException not_found *NotFoundException not_found input retryable=false: fix the request; \
                 ThrottlingOnSundayException throttling Throttling* throttling environment retryable=true: back off; \
                 ThrottlingNotFoundException throttling Throttling* throttling environment retryable=true: back off; \
                 unlisted ThrottledOnSunday of no family; ThrottlingException listed throttling family=none; \
                 ThrottlingException listed throttling family=none; RequestLimitExceeded listed throttling family=none; \
                 ResourceNotFoundException listed not_found family=none",
    },
    Declared {
        name: "families_range",
        ts_wrong: &[
            "families_range_wrong.ts(7,19): error TS2339: Property 'text' does not exist on type 'FamilyInfo'.",
            "families_range_wrong.ts(9,7): error TS2367: This comparison appears to be unintentional because the types '\"protocol\" | \"server\" | undefined' and '\"throttling\"' have no overlap.",
            "families_range_wrong.ts(10,10): error TS18048: 'family' is possibly 'undefined'.",
        ],
        py_wrong: &[
            "families_range_wrong.py:8: error: \"FamilyInfo\" has no attribute \"text\"",
            "families_range_wrong.py:10: error: Non-overlapping equality check (left operand type: \"Literal['range']\", right operand type: \"Literal['prefix']\")",
            "families_range_wrong.py:12: error: Item \"None\" of \"FamilyInfo | None\" has no attribute \"high\"",
        ],
        ts_ran: "2 codes, families server_error,reserved; \
                 -32050 server_error range [-32099, -32000] server server retryable=true: retry later; \
                 -32000 server_error range [-32099, -32000] server server retryable=true: retry later; \
                 -32099 server_error range [-32099, -32000] server server retryable=true: retry later; \
                 -32100 reserved range [-32768, -32000] protocol input retryable=false: fix the request; \
                 unlisted -1 of no family; -32603 listed protocol family=none; \
                 -32700 listed protocol family=none; -32603 listed protocol family=none",
        py_ran: "ok 2 codes, families server_error,reserved; \
                 -32050 server_error range [-32099, -32000] server server retryable=true: retry later; \
                 -32000 server_error range [-32099, -32000] server server retryable=true: retry later; \
                 -32099 server_error range [-32099, -32000] server server retryable=true: retry later; \
                 -32100 reserved range [-32768, -32000] protocol input retryable=false: fix the request; \
                 unlisted -1 of no family; -32603 listed protocol family=none; \
                 -32700 listed protocol family=none; -32603 listed protocol family=none",
    },
    Declared {
        name: "stripe_pairs",
        ts_wrong: &[
            "stripe_pairs_wrong.ts(6,53): error TS2322: Type '\"invalid_request_error\"' is not assignable to type '\"card_error\"'.",
            "stripe_pairs_wrong.ts(7,82): error TS2322: Type '\"parameter_missing\"' is not assignable to type '\"card_declined\" | \"expired\"'.",
            "stripe_pairs_wrong.ts(10,11): error TS2322: Type '\"card_declined\" | \"expired\" | \"expired_card\"' is not assignable to type '\"expired\"'.",
            "stripe_pairs_wrong.ts(13,3): error TS2322: Type 'CodeInfo' is not assignable to type 'string'.",
        ],
        py_wrong: &[
            "stripe_pairs_wrong.py:6: error: Incompatible types (expression has type \"Literal['invalid_request_error']\", TypedDict item \"type\" has type \"Literal['card_error']\")",
            "stripe_pairs_wrong.py:7: error: Incompatible types (expression has type \"Literal['parameter_missing']\", TypedDict item \"code\" has type \"Literal['expired', 'card_declined']\")",
            "stripe_pairs_wrong.py:12: error: Invalid index type \"str\" for \"dict[tuple[str, str], CodeInfo]\"; expected type \"tuple[str, str]\"",
        ],
        ts_ran: "4 categories, card_error/expired: the card has expired; \
                 card_error/expired sent expired: the card has expired; \
                 invalid_request_error/expired sent expired: the idempotency key has expired; \
                 invalid_request_error/expired sent card_declined: the idempotency key has expired; \
                 card_error/card_declined sent card_declined: the card was declined; \
                 unlisted api_error/expired; \
                 unlisted card_error/parameter_missing; \
                 api_error/api_error sent api_error: the servers failed; \
                 idempotency_error/idempotency_error sent idempotency_error: an idempotency key was reused; \
                 invalid_request_error/invalid_request_error sent invalid_request_error: the request is invalid; \
                 invalid_request_error/parameter_missing sent parameter_missing: a required parameter is missing; \
                 card_error/card_declined sent card_declined: the card was declined; \
                 card_error/expired sent expired: the card has expired; \
                 invalid_request_error/expired sent expired: the idempotency key has expired",
        py_ran: "ok 4 categories, card_error/expired: the card has expired; \
                 card_error/expired sent expired: the card has expired; \
                 invalid_request_error/expired sent expired: the idempotency key has expired; \
                 invalid_request_error/expired sent card_declined: the idempotency key has expired; \
                 card_error/card_declined sent card_declined: the card was declined; \
                 unlisted api_error/expired; \
                 unlisted card_error/parameter_missing; \
                 api_error/api_error sent api_error: the servers failed; \
                 idempotency_error/idempotency_error sent idempotency_error: an idempotency key was reused; \
                 invalid_request_error/invalid_request_error sent invalid_request_error: the request is invalid; \
                 invalid_request_error/parameter_missing sent parameter_missing: a required parameter is missing; \
                 card_error/card_declined sent card_declined: the card was declined; \
                 card_error/expired sent expired: the card has expired; \
                 invalid_request_error/expired sent expired: the idempotency key has expired",
    },
    Declared {
        name: "stripe",
        ts_wrong: &[
            "stripe_wrong.ts(9,11): error TS2322: Type 'string | undefined' is not assignable to type 'string'.",
            "stripe_wrong.ts(12,10): error TS2367: This comparison appears to be unintentional because the types 'ErrorCode' and '\"card_error\"' have no overlap.",
            "stripe_wrong.ts(14,49): error TS2741: Property 'code' is missing in type '{ type: \"card_error\"; message: string; }' but required in type",
            "stripe_wrong.ts(15,72): error TS2322: Type '\"invalid_request_error\"' is not assignable to type '\"api_error\"'.",
        ],
        py_wrong: &[
            "stripe_wrong.py:10: error: Incompatible types in assignment (expression has type \"Literal['api_error'] | None\", variable has type \"str\")",
            "stripe_wrong.py:13: error: Non-overlapping equality check (left operand type: \"Literal['api_error', 'idempotency_error', 'invalid_request_error', 'parameter_missing', 'card_declined', 'expired_card']\", right operand type: \"Literal['card_error']\")",
            "stripe_wrong.py:16: error: Missing key \"code\" for TypedDict \"CardDeclinedEnvelopeError\"",
            "stripe_wrong.py:17: error: Incompatible types (expression has type \"Literal['invalid_request_error']\", TypedDict item \"code\" has type \"Literal['api_error']\")",
        ],
        ts_ran: "6 codes; api_error api_error server retryable=true code=absent: retry later; \
                 idempotency_error idempotency_error input retryable=false code=absent: use a new key; \
                 invalid_request_error invalid_request_error input retryable=false code=absent param=-: fix the request; \
                 parameter_missing invalid_request_error input retryable=false code=parameter_missing param=amount: fix the request; \
                 card_declined card_error input retryable=false code=card_declined: ask for another card; \
                 unlisted invalid_request_error/resource_missing; not listed, codeInfo none; \
                 api_error api_error server retryable=true code=api_error: retry later; \
                 idempotency_error idempotency_error input retryable=false code=idempotency_error: use a new key; \
                 invalid_request_error invalid_request_error input retryable=false code=invalid_request_error param=-: fix the request; \
                 parameter_missing invalid_request_error input retryable=false code=parameter_missing param=-: fix the request; \
                 card_declined card_error input retryable=false code=card_declined: ask for another card; \
                 expired_card card_error input retryable=false code=expired_card: ask for another card",
        py_ran: "ok 6 codes; api_error api_error server retryable=true code=absent: retry later; \
                 idempotency_error idempotency_error input retryable=false code=absent: use a new key; \
                 invalid_request_error invalid_request_error input retryable=false code=absent param=-: fix the request; \
                 parameter_missing invalid_request_error input retryable=false code=parameter_missing param=amount: fix the request; \
                 card_declined card_error input retryable=false code=card_declined: ask for another card; \
                 unlisted invalid_request_error/resource_missing; not listed, codeInfo none; \
                 api_error api_error server retryable=true code=api_error: retry later; \
                 idempotency_error idempotency_error input retryable=false code=idempotency_error: use a new key; \
                 invalid_request_error invalid_request_error input retryable=false code=invalid_request_error param=-: fix the request; \
                 parameter_missing invalid_request_error input retryable=false code=parameter_missing param=-: fix the request; \
                 card_declined card_error input retryable=false code=card_declined: ask for another card; \
                 expired_card card_error input retryable=false code=expired_card: ask for another card",
    },
    Declared {
        name: "unions",
        ts_wrong: &[
            "unions_wrong.ts(7,16): error TS2339: Property 'notes' does not exist on type 'ValidationFailedEnvelope'.",
            "unions_wrong.ts(9,24): error TS2339: Property 'number' does not exist on type 'CodeInfo'.",
            "unions_wrong.ts(12,15): error TS2339: Property 'msg' does not exist on type 'string | ValidationError'.",
            "unions_wrong.ts(14,14): error TS2322: Type 'number' is not assignable to type 'Detail'.",
        ],
        py_wrong: &[
            "unions_wrong.py:8: error: TypedDict \"ValidationFailedEnvelope\" has no key \"notes\"",
            "unions_wrong.py:9: error: \"CodeInfo\" has no attribute \"number\"",
            "unions_wrong.py:12: error: Incompatible types in assignment (expression has type \"int\", variable has type \"str | list[ValidationError]\")",
        ],
        ts_ran: "2 codes; NOT_FOUND Not Found [see the docs | API <https://example.com/api> | -]; \
                 VALIDATION_FAILED .body[0].name: Field required (missing) false; unlisted TEAPOT; \
                 NOT_FOUND Not Found [see the docs | API <https://example.com/api>]; \
                 VALIDATION_FAILED .body[0].name: Field required (missing) false",
        py_ran: "ok NOT_FOUND Not Found [see the docs | API <https://example.com/api> | -]; \
                 VALIDATION_FAILED .body[0].name: Field required (missing) false; unlisted TEAPOT; \
                 NOT_FOUND Not Found [see the docs | API <https://example.com/api>]; \
                 VALIDATION_FAILED .body[0].name: Field required (missing) false",
    },
];

/// Issue #24 §1: the TypeScript and Python artifacts follow an envelope the
/// spec declares (google.rpc.Status nested in `error`, a flat RFC 9457
/// problem, a JSON-RPC error told apart by its number alone), and the
/// Microsoft REST API guidelines' error, whose open `innererror` takes the
/// guidelines' own example as a literal in both languages; Kubernetes'
/// Status (an empty `reason`, two reasons of one HTTP status, no numbers,
/// no recovery hints);
/// JSON-RPC's
/// `data`, which may hold any JSON value (`json`); and FastAPI's `detail`
/// (unions by JSON type, in a taxonomy without numbers); and code families
/// (botocore's prefix and suffix families, JSON-RPC's reserved ranges),
/// which a client reads through `familyOf` / `family_of` for a code it does
/// not list; and Stripe's fallback per category (`absent_means` by `type`),
/// where the readers give an error without `code` its type's code, narrowing
/// on `type` leaves `code` optional only in the types that have a fallback,
/// and a card error without `code` is no listed code. For each
/// fixture: `generate` writes every artifact; each example envelope of its
/// docs validates against its schema and strict schema; a client that
/// narrows on the (nested) discriminant, reads nested and per-code fields
/// and types real-looking payloads passes `tsc --strict` and
/// `mypy --strict`, and runs (node, python) over the examples; a wrong
/// client fails with exactly the expected errors.
#[test]
fn declared_envelopes_reach_typescript_and_python() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/envelopes");
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/client-types/envelopes");
    let tsc_bin = require_tsc();
    let mypy_bin = require_mypy();
    // One mypy cache for the three modules (same name, other content):
    // typeshed is analysed once.
    let mypy_cache = tempfile::tempdir().expect("temp dir");
    for case in DECLARED {
        let name = case.name;
        let spec_path = fixtures.join(format!("{name}.yaml"));
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let outcome = splice_codegen::generate::run_at(&spec_path, d, false).expect("generate");
        assert!(outcome.is_success(), "{name}: {}", outcome.render());
        let spec = splice_codegen::load_path(&spec_path)
            .unwrap_or_else(|e| panic!("{name} does not load:\n{}", e.render()));
        let examples = crate::support::write_valid_examples(&spec, d, name);
        for ext in ["ts", "py"] {
            for file in [format!("{name}.{ext}"), format!("{name}_wrong.{ext}")] {
                std::fs::copy(clients.join(&file), d.join(&file)).expect("copy a client");
            }
        }

        if let Some(tsc_bin) = &tsc_bin {
            let client = format!("{name}.ts");
            std::fs::write(d.join("package.json"), "{\"type\": \"module\"}\n").unwrap();
            let (out, text) = tsc_with(tsc_bin, d, &[&client], "--declaration");
            assert!(
                out.status.success(),
                "tsc --strict rejects {client}:\n{text}\n{}",
                std::fs::read_to_string(d.join("schema/error-envelope.d.ts")).unwrap()
            );
            let (out, text) = run(Command::new("node")
                .args([
                    "--input-type=module",
                    "-e",
                    "import { readFileSync } from 'node:fs';\n\
                     const { check } = await import(process.argv[1]);\n\
                     console.log(check(process.argv.slice(2).map((p) => \
                     JSON.parse(readFileSync(p, 'utf8')))));",
                ])
                .arg(d.join(format!("{name}.js")))
                .args(&examples));
            assert!(out.status.success(), "{client} failed under node:\n{text}");
            assert_eq!(text.trim(), collapse(case.ts_ran), "{client} under node");

            let wrong = format!("{name}_wrong.ts");
            let (out, text) = tsc(tsc_bin, d, &[&wrong]);
            assert!(!out.status.success(), "tsc accepted {wrong}:\n{text}");
            for expected in case.ts_wrong {
                assert!(
                    text.contains(expected),
                    "tsc rejected {wrong}, but not with `{expected}`:\n{text}"
                );
            }
            assert_eq!(
                text.matches("error TS").count(),
                case.ts_wrong.len(),
                "tsc reported other errors in {wrong}:\n{text}"
            );
        }

        if let Some(mypy_bin) = &mypy_bin {
            let schema_dir = d.join("schema");
            let cache = mypy_cache.path();
            let client = format!("{name}.py");
            let (out, text) = mypy_in(
                mypy_bin,
                cache,
                d,
                &schema_dir,
                &[&client, "schema/error_envelope.py"],
            );
            assert!(
                out.status.success(),
                "mypy --strict rejects {client} or its module:\n{text}\n{}",
                std::fs::read_to_string(schema_dir.join("error_envelope.py")).unwrap()
            );
            let python = mypy_bin.with_file_name("python3");
            let (out, text) = run(Command::new(&python)
                .arg(&client)
                .args(&examples)
                .env("PYTHONPATH", &schema_dir)
                .env("PYTHONDONTWRITEBYTECODE", "1")
                .current_dir(d));
            assert!(out.status.success(), "{client} failed:\n{text}");
            assert_eq!(text.trim(), collapse(case.py_ran), "{client} under python");

            let wrong = format!("{name}_wrong.py");
            let (out, text) = mypy_in(mypy_bin, cache, d, &schema_dir, &[&wrong]);
            assert!(!out.status.success(), "mypy accepted {wrong}:\n{text}");
            for expected in case.py_wrong {
                assert!(
                    text.contains(expected),
                    "mypy rejected {wrong}, but not with `{expected}`:\n{text}"
                );
            }
            assert!(
                text.contains(&format!("Found {} errors in 1 file", case.py_wrong.len())),
                "mypy reported other errors in {wrong}:\n{text}"
            );
        }
    }
}

/// `text` with each run of whitespace made one space (the expected outputs
/// above are wrapped).
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `value` as a Python literal (JSON's `true`, `false` and `null` are
/// Python's `True`, `False` and `None`; its strings and numbers are Python's).
fn python_literal(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "None".into(),
        serde_json::Value::Bool(true) => "True".into(),
        serde_json::Value::Bool(false) => "False".into(),
        serde_json::Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(python_literal)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        serde_json::Value::Object(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!(
                    "{}: {}",
                    serde_json::Value::from(k.as_str()),
                    python_literal(v)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        scalar => scalar.to_string(),
    }
}

/// Member names each target spells otherwise or reserves
/// (`tests/compiletest/ui/pass/hostile-names.yaml`: `1x`, `self`, `class`,
/// `None` and `__hidden` in an object of otherwise plain keys, `__proto__`,
/// `constructor`, `@meta`, `a-b`, context
/// fields `class`, `from`, `global`): the example envelope validates against
/// the schema, and written as a literal of the code's envelope type it passes
/// `tsc --strict` and `mypy --strict` (so each generated type has exactly
/// those keys, none missing and none more, with their wire spellings); the
/// Python `TypedDict`s hold the same keys at run time (a class body would
/// have mangled `__hidden`); the JavaScript `codeInfo` finds the code by
/// `class`. The Rust side is `ui/pass/hostile-names.rs`.
#[test]
fn hostile_member_names_keep_their_wire_names_in_typescript_and_python() {
    let spec_path = root().join("tests/compiletest/ui/pass/hostile-names.yaml");
    let spec = splice_codegen::load_path(&spec_path)
        .unwrap_or_else(|d| panic!("hostile-names.yaml does not load:\n{}", d.render()));
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    for (path, text) in splice_codegen::generate::artifacts(&spec) {
        let path = d.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let code = spec.emitted_codes().next().expect("one code");
    let example = splice_codegen::emit_markdown::example_envelope(&spec, code).unwrap();
    let schema = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(&spec))
        .expect("the schema compiles");
    let errors: Vec<String> = schema
        .iter_errors(&example)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{example:#}");
    for key in ["1x", "self", "inner", "@meta", "crate"] {
        assert!(example.get(key).is_some(), "no `{key}` in {example:#}");
    }

    if let Some(tsc_bin) = require_tsc() {
        std::fs::write(d.join("package.json"), "{\"type\": \"module\"}\n").unwrap();
        let client = format!(
            "import {{ type BadThingEnvelope, codeInfo }} from \"./schema/error-envelope.js\";\n\
             export const full: BadThingEnvelope = {example};\n\
             // An object literal's `__proto__` sets its prototype; a parsed one is a member.\n\
             const wire: BadThingEnvelope = JSON.parse({});\n\
             const meta: {{ constructor: 9007199254740991; __proto__: \"input\"; \"a-b\": string[] }} = wire[\"@meta\"];\n\
             const one: 1 = wire[\"1x\"];\n\
             const none: 1 = wire.inner.None;\n\
             const from: number = wire.crate.from;\n\
             export const read = [meta, one, none, from, codeInfo(wire)?.number];\n",
            serde_json::Value::from(example.to_string())
        );
        std::fs::write(d.join("client.ts"), client).unwrap();
        let (out, text) = tsc_with(&tsc_bin, d, &["client.ts"], "--declaration");
        assert!(
            out.status.success(),
            "tsc --strict rejects the example as a BadThingEnvelope:\n{text}\n{}",
            std::fs::read_to_string(d.join("schema/error-envelope.d.ts")).unwrap()
        );
        let (out, text) = run(Command::new("node")
            .args(["--input-type=module", "-e"])
            .arg(format!(
                "const m = await import({:?});\n\
                 console.log(JSON.stringify(m.read));",
                d.join("client.js").display().to_string()
            )));
        assert!(out.status.success(), "{text}");
        assert_eq!(
            text.trim(),
            "[{\"constructor\":9007199254740991,\"__proto__\":\"input\",\"a-b\":[\"Retry\"]},1,1,2,1]"
        );
    }

    if let Some(mypy_bin) = require_mypy() {
        let schema_dir = d.join("schema");
        let client = format!(
            "import sys\n\
             from error_envelope import BadThingEnvelope, BadThingEnvelopeInner, BadThingEnvelopeMeta\n\n\
             full: BadThingEnvelope = {}\n\
             for td, value in ((BadThingEnvelope, full), (BadThingEnvelopeInner, full[\"inner\"]), (BadThingEnvelopeMeta, full[\"@meta\"])):\n    \
                 if set(td.__annotations__) != set(value):\n        \
                     sys.exit(f\"{{td.__name__}}: {{sorted(td.__annotations__)}}\")\n\
             print(full[\"1x\"], full[\"inner\"][\"None\"], full[\"inner\"][\"__hidden\"], full[\"crate\"][\"from\"])\n",
            python_literal(&example)
        );
        std::fs::write(d.join("client.py"), client).unwrap();
        let cache = d.join(".mypy_cache");
        let (out, text) = mypy_in(
            &mypy_bin,
            &cache,
            d,
            &schema_dir,
            &["client.py", "schema/error_envelope.py"],
        );
        assert!(
            out.status.success(),
            "mypy --strict rejects the example as a BadThingEnvelope:\n{text}\n{}",
            std::fs::read_to_string(schema_dir.join("error_envelope.py")).unwrap()
        );
        let python = mypy_bin.with_file_name("python3");
        let (out, text) = run(Command::new(&python)
            .arg("client.py")
            .env("PYTHONPATH", &schema_dir)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(d));
        assert!(out.status.success(), "{text}");
        assert_eq!(text.trim(), "1 1 False 2");
    }
}
