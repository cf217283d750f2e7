//! What both test files of this crate read: the taxonomies, their specs and
//! their payloads, and whether the run is CI's.

// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use splice_codegen::envelope::AbsentMeans;
use splice_codegen::spec::Spec;

pub const TAXONOMIES: [&str; 10] = [
    "google-rpc",
    "problem-details",
    "jsonrpc-mcp",
    "botocore",
    "dynamodb",
    "kubernetes",
    "oauth",
    "odata",
    "stripe",
    "graphql",
];

/// `examples/real-taxonomies/`.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// `CI=true` (or `1`): a missing tool fails the test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The taxonomy's spec, loaded and checked.
pub fn spec(taxonomy: &str) -> Spec {
    splice_codegen::load_path(&dir().join(taxonomy).join("errors.yaml"))
        .unwrap_or_else(|d| panic!("{}", d.render()))
}

/// One file of `<taxonomy>/payloads/`.
pub struct Payload {
    pub path: PathBuf,
    pub value: Value,
}

impl Payload {
    /// `not-found-resource-info.json`.
    pub fn file_name(&self) -> &str {
        self.path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    }

    /// `not-found-resource-info`.
    pub fn stem(&self) -> &str {
        self.path
            .file_stem()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    }
}

/// Every payload of `taxonomy`, sorted by file name.
pub fn payloads(taxonomy: &str) -> Vec<Payload> {
    let mut out: Vec<Payload> = std::fs::read_dir(dir().join(taxonomy).join("payloads"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            Payload { path, value }
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The envelopes of a payload: the entries of its list of errors when the
/// spec declares one (`list: true`, GraphQL's `errors`), else the payload.
pub fn entries<'v>(spec: &Spec, payload: &'v Value) -> Vec<&'v Value> {
    match &spec.envelope.response {
        None => vec![payload],
        Some(response) => payload
            .get(&response.list().name.value)
            .and_then(Value::as_array)
            .map(|list| list.iter().collect())
            .unwrap_or_default(),
    }
}

/// The code a payload names, read at the member the spec's envelope says
/// carries the code's name (else its number), matched against the spec's
/// listed codes by wire name, alias or number; without it (or an object
/// on its way), the `absent_means` code (of the envelope's category, when
/// `absent_means` names one per category).
pub fn listed_code<'s>(spec: &'s Spec, payload: &Value) -> Option<&'s str> {
    let env = &spec.envelope;
    let (path, by_name) = match env.path_of("code_name") {
        Some(p) => (p, true),
        None => (env.path_of("number").expect("a code on the wire"), false),
    };
    // Without its code name, or an object on its way (GraphQL's
    // `extensions`), an envelope is the `absent_means` code.
    let Some(at) = value_at(payload, &path) else {
        return match env.absent_means()? {
            AbsentMeans::One(code) => Some(code.value.as_str()),
            AbsentMeans::ByCategory { entries, .. } => {
                let category = value_at(payload, &env.path_of("category")?)?.as_str()?;
                entries
                    .iter()
                    .find(|(key, _)| key.value == category)
                    .map(|(_, code)| code.value.as_str())
            }
        };
    };
    spec.emitted_codes()
        .find(|c| {
            if by_name {
                c.wire_names().any(|w| Some(w) == at.as_str())
            } else {
                c.number().is_some() && c.number() == at.as_i64()
            }
        })
        .map(|c| c.name.value.as_str())
}

/// What the generated `CodeInfo` of the code `payload` names must hold,
/// from the spec, in TypeScript's camelCase keys (Python's are the same in
/// snake_case): its wire name, number, category, `retryable`, cause, and its
/// retry classes and attributes when the spec declares any.
pub fn expected_code_info(spec: &Spec, payload: &Value) -> Value {
    let Some(code) = listed_code(spec, payload).and_then(|name| spec.code(name)) else {
        return Value::Null;
    };
    let mut info = serde_json::json!({
        "name": code.wire(),
        "category": code.category.value,
        "retryable": code.retryable,
        "cause": code.cause.as_str(),
    });
    if let Some(n) = code.number() {
        info["number"] = n.into();
    }
    if !spec.retry.classes.is_empty() {
        info["retryClasses"] = code.retry_classes.iter().map(|c| c.value.clone()).collect();
    }
    if !spec.attributes.is_empty() {
        info["attributes"] = code
            .attributes
            .iter()
            .map(|a| (a.name.value.clone(), a.value.value.clone()))
            .collect::<serde_json::Map<_, _>>()
            .into();
    }
    info
}

/// The member of `payload` at `path`.
fn value_at<'v>(payload: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter().try_fold(payload, |at, step| at.get(step))
}
