//! The owners' real payloads, typed by the generated TypeScript and Python.
//!
//! For each taxonomy, every payload of `<taxonomy>/payloads/` is written as
//! a literal of the generated `ErrorEnvelope` type (the union of the listed
//! codes' envelopes, each with its own constants and context), in TypeScript
//! (`tsc --strict`) and in Python (`mypy --strict`), and then run: node and
//! python call the generated `isListed` / `is_listed` on each one, which
//! must say it is a code the taxonomy lists, and the generated `codeInfo` /
//! `code_info` must give each one the `CodeInfo` the spec says its code has
//! (number, category, `retryable`, cause, retry classes, attributes), also
//! where the envelope does not carry them. One payload per taxonomy is
//! also changed the way a wrong server would send it (a constant of another
//! code, a member of the wrong type, a required member missing) and both
//! type checkers must refuse it, so a module whose types accepted anything
//! would fail here. And one payload per taxonomy is given a code of a later
//! release: `isListed` / `is_listed` must say so, and `codeInfo` /
//! `code_info` give nothing for it.
//!
//! A GraphQL payload is a response: it is written as a literal of the
//! generated `ErrorResponse`, and `codesOf` / `codes_of` read each of its
//! errors, in order, in place of `isListed` and `codeInfo`.
//!
//! A payload member the envelope does not declare is passed through a
//! spread in TypeScript, where excess members are allowed the way a
//! `JSON.parse`d value carries them, and left out of the Python literal,
//! since a `TypedDict` literal may not have undeclared keys; the run-time
//! `is_listed` still sees the whole payload. (botocore's `ResponseMetadata`,
//! the transport metadata beside `Error`, is declared, as a field `in:
//! envelope`, so its payloads are typed whole.)
//!
//! tsc comes from `tests/interop/node_modules` (pinned by its
//! package-lock), mypy from `tests/interop-py/.venv` (hashes pinned); both
//! are installed by `.ci/run`. Missing tools fail under `CI=true` and skip,
//! with the reason, otherwise.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use splice_codegen::case::Case;
use splice_codegen::layout::{Form, Layout};
use splice_codegen::spec::Spec;

mod common;

use common::{TAXONOMIES, dir, entries, expected_code_info, in_ci, payloads, spec};

fn root() -> PathBuf {
    dir().join("../..")
}

/// `Some(path)` if the tool exists; otherwise panics in CI, or prints why
/// the test is skipped.
fn tool(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let reason = format!(
        "{what} is missing ({}); .ci/run installs it (npm ci in tests/interop, the venv of tests/interop-py)",
        path.display()
    );
    if in_ci() {
        panic!("{reason}");
    }
    eprintln!("skipped: {reason}");
    None
}

fn run(cmd: &mut Command) -> (Output, String) {
    let out = cmd.output().expect("the command runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

/// The top-level members a payload may have for the generated types: the
/// envelope's own, and the fields that live at the top (`in: top_level`
/// in a flat envelope, `in: envelope`).
fn declared_top(spec: &Spec) -> Vec<String> {
    let mut names: Vec<String> = spec
        .envelope
        .members
        .iter()
        .map(|m| m.name.value.clone())
        .collect();
    let layout = Layout::of(spec);
    names.extend(
        layout
            .envelope(Form::Any)
            .fields()
            .map(|f| f.field.wire().to_owned()),
    );
    names
}

/// Splits a payload into its declared members and the rest.
fn split(
    spec: &Spec,
    payload: &Value,
) -> (
    serde_json::Map<String, Value>,
    serde_json::Map<String, Value>,
) {
    let declared = declared_top(spec);
    let (mut inside, mut rest) = (serde_json::Map::new(), serde_json::Map::new());
    for (k, v) in payload.as_object().expect("an object") {
        if declared.contains(k) {
            inside.insert(k.clone(), v.clone());
        } else {
            rest.insert(k.clone(), v.clone());
        }
    }
    (inside, rest)
}

/// A JSON value as a Python literal.
fn py(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => Value::String(s.clone()).to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(py).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), py(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn ts_literal(spec: &Spec, payload: &Value) -> String {
    let (inside, rest) = split(spec, payload);
    let inside = serde_json::to_string_pretty(&Value::Object(inside)).unwrap();
    if rest.is_empty() {
        inside
    } else {
        let rest = serde_json::to_string(&Value::Object(rest)).unwrap();
        format!("{{ ...{rest}, ...{inside} }}")
    }
}

/// A change that makes a real payload wrong.
type Edit = Box<dyn Fn(&mut Value)>;

/// One payload of each taxonomy changed the way a wrong server would send
/// it: the payload's name, what makes it wrong, and the change.
fn wrong(taxonomy: &str) -> (&'static str, &'static str, Edit) {
    match taxonomy {
        "google-rpc" => (
            "not-found-resource-info",
            "NOT_FOUND with the HTTP status of INTERNAL",
            Box::new(|v| v["error"]["code"] = 500.into()),
        ),
        "problem-details" => (
            "out-of-credit-extensions",
            "an int64 extension member sent as text",
            Box::new(|v| v["balance"] = "30".into()),
        ),
        "jsonrpc-mcp" => (
            "unsupported-protocol-version",
            "the versions the server supports as one string",
            Box::new(|v| v["error"]["data"]["supported"] = "2026-07-28".into()),
        ),
        "botocore" => (
            "dynamodb-throttling",
            "an error without its Message",
            Box::new(|v| {
                v["Error"].as_object_mut().unwrap().remove("Message");
            }),
        ),
        "dynamodb" => (
            "transact-write-cancelled",
            "a cancellation reason whose Code is a number",
            Box::new(|v| v["CancellationReasons"][0]["Code"] = 7.into()),
        ),
        "kubernetes" => (
            "too-many-requests",
            "the seconds to wait before retrying as text",
            Box::new(|v| v["details"]["retryAfterSeconds"] = "1".into()),
        ),
        "oauth" => (
            "invalid-grant",
            "an error_uri that is not a string",
            Box::new(|v| v["error_uri"] = 7.into()),
        ),
        "odata" => (
            "details",
            "an entry of details whose target is a number",
            Box::new(|v| v["error"]["details"][0]["target"] = 3.into()),
        ),
        "stripe" => (
            "parameter-missing",
            "a param that is not a string",
            Box::new(|v| v["error"]["param"] = 1.into()),
        ),
        "graphql" => (
            "two-errors",
            "a second error whose message is a number",
            Box::new(|v| v["errors"][1]["message"] = 9.into()),
        ),
        other => panic!("{other}"),
    }
}

/// The taxonomy's wrong payload (see [`wrong`]) and what is wrong with it.
fn wrong_payload(taxonomy: &str, payloads: &[common::Payload]) -> (Value, &'static str) {
    let (name, what, edit) = wrong(taxonomy);
    let mut bad = payloads
        .iter()
        .find(|p| p.stem() == name)
        .unwrap_or_else(|| panic!("{taxonomy}/{name}"))
        .value
        .clone();
    edit(&mut bad);
    (bad, what)
}

/// A payload of `taxonomy` with a code no release of the spec lists, as a
/// server of a later release would send it (the same edits as the Rust
/// `AnyErrorEnvelope` test of the workspace): a new gRPC status, problem
/// type URI, JSON-RPC number, AWS error code, Kubernetes reason, OAuth
/// error, service-defined OData code, Stripe code and GraphQL code (in one
/// error of a response).
fn later(taxonomy: &str) -> Value {
    let (name, edit): (&str, Edit) = match taxonomy {
        "google-rpc" => (
            "resource-exhausted-quota",
            Box::new(|v| v["error"]["status"] = "SOMETHING_NEW".into()),
        ),
        "problem-details" => (
            "out-of-credit",
            Box::new(|v| v["type"] = "https://example.com/probs/new-kind".into()),
        ),
        "jsonrpc-mcp" => (
            "method-not-found",
            Box::new(|v| v["error"]["code"] = (-31999).into()),
        ),
        "botocore" => (
            "s3-slow-down",
            Box::new(|v| v["Error"]["Code"] = "BrandNewException".into()),
        ),
        "dynamodb" => (
            "describe-table-not-found",
            Box::new(|v| v["Error"]["Code"] = "BrandNewException".into()),
        ),
        // The reason apimachinery v0.32.0 adds (Kubernetes 1.32).
        "kubernetes" => (
            "unknown-empty-reason",
            Box::new(|v| v["reason"] = "StorageReadError".into()),
        ),
        // RFC 9449's (DPoP) token error, which postdates the four RFCs.
        "oauth" => (
            "invalid-request",
            Box::new(|v| v["error"] = "invalid_dpop_proof".into()),
        ),
        // A code of another service: the guidelines define no list.
        "odata" => (
            "resource-not-found",
            Box::new(|v| v["error"]["code"] = "QuotaExceeded".into()),
        ),
        // A code stripe 12.0.0 adds.
        "stripe" => (
            "parameter-missing",
            Box::new(|v| v["error"]["code"] = "setup_intent_mobile_wallet_unsupported".into()),
        ),
        // A code of Apollo's subgraph errors, which @apollo/server does not define.
        "graphql" => (
            "forbidden",
            Box::new(|v| v["errors"][0]["extensions"]["code"] = "DOWNSTREAM_SERVICE_ERROR".into()),
        ),
        other => panic!("{other}"),
    };
    let mut payload = payloads(taxonomy)
        .into_iter()
        .find(|p| p.stem() == name)
        .unwrap_or_else(|| panic!("{taxonomy}/{name}"))
        .value;
    edit(&mut payload);
    payload
}

/// Writes the scratch project of `taxonomy`: its generated modules under
/// `schema/`, the typed payloads, a wrong one, and `later.json` ([`later`]).
fn project(taxonomy: &str, d: &Path) -> usize {
    let spec = spec(taxonomy);
    let schema = d.join("schema");
    std::fs::create_dir_all(&schema).unwrap();
    for file in [
        "error-envelope.d.ts",
        "error-envelope.js",
        "error_envelope.py",
    ] {
        std::fs::copy(
            dir().join(taxonomy).join("schema").join(file),
            schema.join(file),
        )
        .unwrap();
    }
    std::fs::write(d.join("package.json"), "{\"type\": \"module\"}\n").unwrap();
    std::fs::write(d.join("later.json"), later(taxonomy).to_string()).unwrap();
    let payloads = payloads(taxonomy);
    if spec.envelope.response.is_some() {
        return response_project(taxonomy, d, &spec, &payloads);
    }

    let mut ts = String::from(
        "import { codeInfo, isListed, type AnyErrorEnvelope, type CodeInfo, type ErrorEnvelope, type UnlistedCodeEnvelope } from \"./schema/error-envelope.js\";\n\n",
    );
    let mut py_src = String::from(
        "import dataclasses\nimport json\nimport sys\n\nfrom error_envelope import AnyErrorEnvelope, ErrorEnvelope, UnlistedCodeEnvelope, code_info, is_listed\n\n",
    );
    let mut names = Vec::new();
    for (i, p) in payloads.iter().enumerate() {
        let (name, payload) = (p.stem(), &p.value);
        let _ = writeln!(
            ts,
            "// {name}.json\nconst env{i}: ErrorEnvelope = {};\n",
            ts_literal(&spec, payload)
        );
        let (inside, _) = split(&spec, payload);
        let _ = writeln!(
            py_src,
            "# {name}.json\nenv{i}: ErrorEnvelope = {}\n",
            py(&Value::Object(inside))
        );
        names.push(format!("env{i}"));
    }
    // A later code's envelope keeps the format's frame (the fields `in:
    // envelope`: JSON-RPC's `id`, botocore's `ResponseMetadata`), typed; a
    // literal with a key the type lacks fails both checkers.
    if matches!(taxonomy, "jsonrpc-mcp" | "botocore") {
        let later = later(taxonomy);
        let _ = writeln!(
            ts,
            "// later.json\nexport const later: UnlistedCodeEnvelope = {};\n",
            ts_literal(&spec, &later)
        );
        let (inside, _) = split(&spec, &later);
        let _ = writeln!(
            py_src,
            "# later.json\nlater: UnlistedCodeEnvelope = {}\n",
            py(&Value::Object(inside))
        );
    }
    let _ = writeln!(
        ts,
        "export const typed: ErrorEnvelope[] = [{}];\n\n\
         /** Whether the generated isListed takes each payload (as parsed) for a listed code. */\n\
         export function check(parsed: AnyErrorEnvelope[]): string {{\n  \
         return parsed.map((e) => (isListed(e) ? \"listed\" : \"unlisted\")).join(\" \");\n}}\n\n\
         /** A listed envelope always has its CodeInfo (no `undefined` under --strict). */\n\
         export const infos: CodeInfo[] = typed.map((e) => codeInfo(e));\n\n\
         /** The generated codeInfo of each payload (as parsed), as JSON. */\n\
         export function info(parsed: AnyErrorEnvelope[]): string {{\n  \
         return JSON.stringify(parsed.map((e) => codeInfo(e) ?? null));\n}}",
        names.join(", ")
    );
    let _ = writeln!(
        py_src,
        "typed: list[ErrorEnvelope] = [{}]\n\n\n\
         def verdict(e: AnyErrorEnvelope) -> str:\n    \
         if not is_listed(e):\n        \
         return \"unlisted\"\n    \
         listed_env: ErrorEnvelope = e\n    \
         return \"listed\" if code_info(listed_env) is not None else \"listed without CodeInfo\"\n\n\n\
         def listed(parsed: list[AnyErrorEnvelope]) -> list[ErrorEnvelope]:\n    \
         return [e for e in parsed if is_listed(e)]\n\n\n\
         def main() -> None:\n    \
         parsed: list[AnyErrorEnvelope] = [json.load(open(p)) for p in sys.argv[1:]]\n    \
         verdicts = [verdict(e) for e in parsed]\n    \
         if len(listed(parsed)) != verdicts.count(\"listed\"):\n        \
         raise SystemExit(\"is_listed narrows a different set than it answers\")\n    \
         print(\" \".join(verdicts))\n    \
         infos = [code_info(e) for e in parsed]\n    \
         print(json.dumps([None if i is None else dataclasses.asdict(i) for i in infos]))\n\n\n\
         if __name__ == \"__main__\":\n    main()",
        names.join(", ")
    );
    std::fs::write(d.join("payloads.ts"), ts).unwrap();
    std::fs::write(d.join("payloads.py"), py_src).unwrap();

    let (bad, what) = wrong_payload(taxonomy, &payloads);
    std::fs::write(
        d.join("wrong.ts"),
        format!(
            "import type {{ ErrorEnvelope }} from \"./schema/error-envelope.js\";\n\n\
             // {what}\nexport const env: ErrorEnvelope = {};\n",
            ts_literal(&spec, &bad)
        ),
    )
    .unwrap();
    let (inside, _) = split(&spec, &bad);
    std::fs::write(
        d.join("wrong.py"),
        format!(
            "from error_envelope import ErrorEnvelope\n\n# {what}\nenv: ErrorEnvelope = {}\n",
            py(&Value::Object(inside))
        ),
    )
    .unwrap();
    payloads.len()
}

/// [`project`] for a taxonomy whose errors come in a response's list
/// (GraphQL): the payloads are typed as `ErrorResponse`, `check` and `info`
/// read every error of every response in order (`codesOf`, `codes_of`), and
/// the wrong payload is a response. Returns the number of errors.
fn response_project(taxonomy: &str, d: &Path, spec: &Spec, payloads: &[common::Payload]) -> usize {
    let mut ts = String::from(
        "import { codesOf, type CodeInfo, type ErrorResponse } from \"./schema/error-envelope.js\";\n\n",
    );
    let mut py_src = String::from(
        "import dataclasses\nimport json\nimport sys\n\nfrom error_envelope import ErrorResponse, codes_of\n\n",
    );
    let mut names = Vec::new();
    for (i, p) in payloads.iter().enumerate() {
        let _ = writeln!(
            ts,
            "// {}.json\nconst response{i}: ErrorResponse = {};\n",
            p.stem(),
            serde_json::to_string_pretty(&p.value).unwrap()
        );
        let _ = writeln!(
            py_src,
            "# {}.json\nresponse{i}: ErrorResponse = {}\n",
            p.stem(),
            py(&p.value)
        );
        names.push(format!("response{i}"));
    }
    let _ = writeln!(
        ts,
        "export const typed: ErrorResponse[] = [{}];\n\n\
         /** Whether the generated codesOf reads each error of each response (as parsed) as a listed code. */\n\
         export function check(parsed: ErrorResponse[]): string {{\n  \
         return parsed.flatMap((r) => codesOf(r)).map((i) => (i === undefined ? \"unlisted\" : \"listed\")).join(\" \");\n}}\n\n\
         /** The CodeInfo of every error, in order. */\n\
         export const infos: (CodeInfo | undefined)[] = typed.flatMap((r) => codesOf(r));\n\n\
         /** The generated codesOf of each response (as parsed), flattened, as JSON. */\n\
         export function info(parsed: ErrorResponse[]): string {{\n  \
         return JSON.stringify(parsed.flatMap((r) => codesOf(r)).map((i) => i ?? null));\n}}",
        names.join(", ")
    );
    let _ = writeln!(
        py_src,
        "typed: list[ErrorResponse] = [{}]\n\n\n\
         def main() -> None:\n    \
         parsed: list[ErrorResponse] = [json.load(open(p)) for p in sys.argv[1:]]\n    \
         infos = [i for r in parsed for i in codes_of(r)]\n    \
         print(\" \".join(\"unlisted\" if i is None else \"listed\" for i in infos))\n    \
         print(json.dumps([None if i is None else dataclasses.asdict(i) for i in infos]))\n\n\n\
         if __name__ == \"__main__\":\n    main()",
        names.join(", ")
    );
    std::fs::write(d.join("payloads.ts"), ts).unwrap();
    std::fs::write(d.join("payloads.py"), py_src).unwrap();
    let (bad, what) = wrong_payload(taxonomy, payloads);
    std::fs::write(
        d.join("wrong.ts"),
        format!(
            "import type {{ ErrorResponse }} from \"./schema/error-envelope.js\";\n\n\
             // {what}\nexport const response: ErrorResponse = {};\n",
            serde_json::to_string_pretty(&bad).unwrap()
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("wrong.py"),
        format!(
            "from error_envelope import ErrorResponse\n\n# {what}\nresponse: ErrorResponse = {}\n",
            py(&bad)
        ),
    )
    .unwrap();
    payloads.iter().map(|p| entries(spec, &p.value).len()).sum()
}

fn payload_paths(taxonomy: &str) -> Vec<PathBuf> {
    payloads(taxonomy).into_iter().map(|p| p.path).collect()
}

/// `infos` (the JSON array a client printed, one `CodeInfo` per payload of
/// `taxonomy`, in order) holds what the spec says of each payload's code;
/// `key` spells a key of [`expected_code_info`] as the client does.
fn agrees_with_spec(taxonomy: &str, infos: &str, key: impl Fn(&str) -> String, what: &str) {
    let spec = spec(taxonomy);
    let infos: Vec<Value> = serde_json::from_str(infos)
        .unwrap_or_else(|e| panic!("{taxonomy}: {what} printed no JSON array ({e}): {infos}"));
    let payloads = payloads(taxonomy);
    // One `CodeInfo` per envelope: each error of a GraphQL response.
    let envelopes: Vec<(&common::Payload, &Value)> = payloads
        .iter()
        .flat_map(|p| entries(&spec, &p.value).into_iter().map(move |e| (p, e)))
        .collect();
    assert_eq!(infos.len(), envelopes.len(), "{taxonomy}: {what}");
    for ((p, env), info) in envelopes.into_iter().zip(&infos) {
        let want = expected_code_info(&spec, env);
        let Value::Object(want) = want else {
            panic!("{taxonomy}/{}: no listed code", p.file_name());
        };
        for (k, v) in &want {
            assert_eq!(
                info.get(key(k)),
                Some(v),
                "{taxonomy}/{}: {what}(...).{} is not what the spec says: {info}",
                p.file_name(),
                key(k)
            );
        }
    }
}

/// `infos` (a JSON array as text) without its last element, and that
/// element.
fn without_last(infos: &str) -> (String, Value) {
    let mut all: Vec<Value> =
        serde_json::from_str(infos).unwrap_or_else(|e| panic!("not a JSON array ({e}): {infos}"));
    let last = all.pop().expect("one CodeInfo per payload");
    (Value::Array(all).to_string(), last)
}

#[test]
fn typescript_types_every_real_payload() {
    let Some(tsc) = tool(
        root().join("tests/interop/node_modules/typescript/bin/tsc"),
        "tsc",
    ) else {
        return;
    };
    let tsc_args = [
        "--strict",
        "--pretty",
        "false",
        "--target",
        "es2022",
        "--module",
        "esnext",
        "--moduleResolution",
        "bundler",
    ];
    for t in TAXONOMIES {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let n = project(t, d);
        let (out, text) = run(Command::new("node")
            .arg(&tsc)
            .args(tsc_args)
            .arg("payloads.ts")
            .current_dir(d));
        assert!(
            out.status.success(),
            "{t}: tsc --strict refuses a real payload typed as ErrorEnvelope:\n{text}\n{}",
            std::fs::read_to_string(d.join("payloads.ts")).unwrap()
        );
        let (out, text) = run(Command::new("node")
            .args([
                "--input-type=module",
                "-e",
                "import { readFileSync } from 'node:fs';\n\
                 const { check, info } = await import(process.argv[1]);\n\
                 const parsed = process.argv.slice(2).map((p) => JSON.parse(readFileSync(p, 'utf8')));\n\
                 console.log(check(parsed));\n\
                 console.log(info(parsed));",
            ])
            .arg(d.join("payloads.js"))
            .args(payload_paths(t))
            .arg(d.join("later.json")));
        assert!(out.status.success(), "{t}: node:\n{text}");
        let (listed, infos) = text.trim().split_once('\n').unwrap_or((text.trim(), ""));
        // Every real payload is listed; a later code is not, and has no CodeInfo.
        assert_eq!(
            listed,
            format!("{} unlisted", vec!["listed"; n].join(" ")),
            "{t}: isListed"
        );
        let (infos, last) = without_last(infos);
        assert_eq!(last, Value::Null, "{t}: codeInfo of a later code");
        agrees_with_spec(t, &infos, |k| k.to_string(), "codeInfo");

        let (out, text) = run(Command::new("node")
            .arg(&tsc)
            .args(tsc_args)
            .arg("--noEmit")
            .arg("wrong.ts")
            .current_dir(d));
        assert!(
            !out.status.success(),
            "{t}: tsc accepted {}:\n{text}",
            wrong(t).1
        );
        assert!(text.contains("error TS"), "{t}: {text}");
    }
}

#[test]
fn python_types_every_real_payload() {
    let Some(mypy) = tool(root().join("tests/interop-py/.venv/bin/mypy"), "mypy") else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    for t in TAXONOMIES {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let n = project(t, d);
        let mypy_run = |file: &str| {
            run(Command::new(&mypy)
                .args([
                    "--strict",
                    "--python-version",
                    "3.11",
                    "--no-color-output",
                    "--cache-dir",
                ])
                .arg(cache.path())
                .arg(file)
                .env("MYPYPATH", d.join("schema"))
                .current_dir(d))
        };
        let (out, text) = mypy_run("payloads.py");
        assert!(
            out.status.success(),
            "{t}: mypy --strict refuses a real payload typed as ErrorEnvelope:\n{text}\n{}",
            std::fs::read_to_string(d.join("payloads.py")).unwrap()
        );
        let (out, text) = run(Command::new(mypy.with_file_name("python3"))
            .arg("payloads.py")
            .args(payload_paths(t))
            .arg(d.join("later.json"))
            .env("PYTHONPATH", d.join("schema"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(d));
        assert!(out.status.success(), "{t}: python:\n{text}");
        let (listed, infos) = text.trim().split_once('\n').unwrap_or((text.trim(), ""));
        assert_eq!(
            listed,
            format!("{} unlisted", vec!["listed"; n].join(" ")),
            "{t}: is_listed"
        );
        let (infos, last) = without_last(infos);
        assert_eq!(last, Value::Null, "{t}: code_info of a later code");
        agrees_with_spec(t, &infos, |k| Case::LowerSnake.convert(k), "code_info");

        let (out, text) = mypy_run("wrong.py");
        assert!(
            !out.status.success(),
            "{t}: mypy accepted {}:\n{text}",
            wrong(t).1
        );
        assert!(text.contains("error:"), "{t}: {text}");
    }
}
