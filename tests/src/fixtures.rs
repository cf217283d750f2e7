//! Small builders the end-to-end tests share: paths as tool arguments, one
//! edit, a canonical temporary root, a listing of a tree, and the mixed
//! transaction (edits, creations, deletions, moves) the kill tests
//! interrupt.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// A path as a tool argument.
pub fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// One `{old_string, new_string}` edit.
pub fn edit(old: &str, new: &str) -> Value {
    json!({"old_string": old, "new_string": new})
}

/// A temporary directory and its canonical path (what splice reports, so
/// `/tmp` behind a symlink compares equal). Keep the guard alive.
pub fn root() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().canonicalize().unwrap();
    (d, p)
}

/// Every name under `dir`, recursively, relative, sorted (directories end in `/`).
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(top: &Path, at: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(at).unwrap() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(top).unwrap().display().to_string();
            if e.file_type().unwrap().is_dir() {
                out.push(format!("{rel}/"));
                walk(top, &e.path(), out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The mixed transaction the SIGKILL tests interrupt: `n` edits, `n`
/// creations in a new directory `created/`, `n` deletions and `n` moves
/// into a new directory `moved/`, one `multi_edit_files` call. Files are
/// 4 KiB, so a commit takes long enough for kills to land in every phase.
pub struct MixedTree {
    pub n: usize,
}

impl MixedTree {
    fn content(name: &str) -> String {
        format!("{name}\n{}\n", "x".repeat(4096))
    }

    /// The files (name, content) before the transaction, sorted.
    pub fn before(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for i in 0..self.n {
            v.push((format!("e{i}.txt"), Self::content(&format!("edit {i} old"))));
            v.push((format!("d{i}.txt"), Self::content(&format!("delete {i}"))));
            v.push((format!("m{i}.txt"), Self::content(&format!("move {i}"))));
        }
        v.sort();
        v
    }

    /// The files (name, content) after the transaction, sorted.
    pub fn after(&self) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for i in 0..self.n {
            v.push((format!("e{i}.txt"), Self::content(&format!("edit {i} new"))));
            v.push((
                format!("created/c{i}.txt"),
                Self::content(&format!("create {i}")),
            ));
            v.push((
                format!("moved/m{i}.txt"),
                Self::content(&format!("move {i}")),
            ));
        }
        v.sort();
        v
    }

    /// The `multi_edit_files` arguments that turn `before` into `after` in `r`.
    pub fn forward(&self, r: &Path) -> Value {
        let mut files = Vec::new();
        for i in 0..self.n {
            files.push(json!({"file_path": s(&r.join(format!("e{i}.txt"))), "edits": [edit(&format!("edit {i} old"), &format!("edit {i} new"))]}));
            files.push(json!({"file_path": s(&r.join(format!("created/c{i}.txt"))), "op": "create", "content": Self::content(&format!("create {i}")), "create_parents": true}));
            files.push(json!({"file_path": s(&r.join(format!("d{i}.txt"))), "op": "delete"}));
            files.push(json!({"file_path": s(&r.join(format!("m{i}.txt"))), "op": "move", "move_to": s(&r.join(format!("moved/m{i}.txt"))), "create_parents": true}));
        }
        json!({"files": files, "backup": false})
    }

    /// Empty `r`, then write the `before` files into it.
    pub fn reset(&self, r: &Path) {
        for e in std::fs::read_dir(r).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                std::fs::remove_dir_all(&p).unwrap();
            } else {
                std::fs::remove_file(&p).unwrap();
            }
        }
        for (n, c) in self.before() {
            let p = r.join(n);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, c).unwrap();
        }
    }

    /// The files (name, content) now in `r`, sorted; directories left out.
    pub fn read(&self, r: &Path) -> Vec<(String, String)> {
        tree(r)
            .into_iter()
            .filter(|n| !n.ends_with('/'))
            .map(|n| {
                let c = std::fs::read_to_string(r.join(&n)).unwrap_or_default();
                (n, c)
            })
            .collect()
    }
}
