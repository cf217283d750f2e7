//! What both test files of this crate read: the taxonomies, their specs and
//! their payloads, and whether the run is CI's.

// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use splice_codegen::spec::Spec;

pub const TAXONOMIES: [&str; 4] = ["google-rpc", "problem-details", "jsonrpc-mcp", "botocore"];

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
