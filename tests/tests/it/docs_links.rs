//! Every relative link in the repository's Markdown resolves inside the
//! repository: the file or directory exists, does not climb out of the
//! checkout, and a `#fragment` names a heading (GitHub's slug) or an
//! `<a id>` / `<a name>` of the target file.
//!
//! A reader follows these links on GitHub or in a checkout; a link to a
//! moved section or to a path that only exists on a maintainer's machine is
//! a dead end. Links inside code (fenced blocks, `inline code`) are text,
//! not links, and are skipped; absolute URLs are not fetched.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .canonicalize()
        .expect("the checkout exists")
}

/// Directories that hold no documentation of ours: build output, installed
/// clients, and the repair corpus's sample files (inputs, not docs).
const SKIP_DIRS: &[&str] = &[
    "target",
    "node_modules",
    ".venv",
    ".git",
    "tests/repair/files",
];

fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable directory") {
            let entry = entry.expect("directory entry");
            let path = entry.path();
            let rel = path.strip_prefix(root).expect("under root");
            let ty = entry.file_type().expect("file type");
            if ty.is_dir() {
                let name = entry.file_name();
                let rel_s = rel.to_string_lossy();
                if SKIP_DIRS
                    .iter()
                    .any(|s| *s == rel_s || name.to_string_lossy() == *s)
                {
                    continue;
                }
                stack.push(path);
            } else if ty.is_file() && path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The text of a Markdown file with fenced code blocks and inline code spans
/// blanked out (newlines kept, so line numbers stay right).
fn without_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(f) = &fence {
            if trimmed.starts_with(f.as_str()) {
                fence = None;
            }
            out.push_str(if line.ends_with('\n') { "\n" } else { "" });
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let marker: String = trimmed
                .chars()
                .take_while(|c| *c == '`' || *c == '~')
                .collect();
            fence = Some(marker);
            out.push_str(if line.ends_with('\n') { "\n" } else { "" });
            continue;
        }
        // Blank inline code spans: a run of N backticks up to the next run of
        // exactly N backticks.
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '`' {
                let mut n = 0;
                while i + n < chars.len() && chars[i + n] == '`' {
                    n += 1;
                }
                let mut j = i + n;
                let mut close = None;
                while j < chars.len() {
                    if chars[j] == '`' {
                        let mut m = 0;
                        while j + m < chars.len() && chars[j + m] == '`' {
                            m += 1;
                        }
                        if m == n {
                            close = Some(j + m);
                            break;
                        }
                        j += m;
                    } else {
                        j += 1;
                    }
                }
                match close {
                    Some(end) => {
                        out.extend(std::iter::repeat_n('x', end - i));
                        i = end;
                    }
                    None => {
                        out.extend(&chars[i..i + n]);
                        i += n;
                    }
                }
            } else {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-`
/// and `_` dropped, spaces to `-`; repeats get `-1`, `-2`, ...
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every anchor a reader can land on in a Markdown file.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(rest) = t.strip_prefix('#') {
            let heading = rest.trim_start_matches('#');
            if heading.starts_with(' ') {
                let base = slug(heading);
                let n = seen.entry(base.clone()).or_insert(0);
                out.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
        }
        for attr in ["id=\"", "name=\""] {
            let mut s = line;
            while let Some(at) = s.find(attr) {
                let after = &s[at + attr.len()..];
                if let Some(end) = after.find('"') {
                    out.insert(after[..end].to_string());
                }
                s = after;
            }
        }
    }
    out
}

/// `(line, target)` of every inline link `[text](target)` and reference
/// definition `[label]: target` outside code.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut s = line;
        while let Some(at) = s.find("](") {
            let after = &s[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((n + 1, target.trim_matches(['<', '>']).to_string()));
            s = &after[end..];
        }
        let t = line.trim_start();
        if t.starts_with('[')
            && let Some(close) = t.find("]:")
        {
            let target = t[close + 2..].split_whitespace().next().unwrap_or("");
            out.push((n + 1, target.to_string()));
        }
    }
    out
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// `path` with `.` and `..` folded away, or `None` when `..` climbs above
/// the filesystem root of the path.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

fn broken_links(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut anchor_cache: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for file in markdown_files(root) {
        let text = std::fs::read_to_string(&file).expect("Markdown is UTF-8");
        let rel_file = file.strip_prefix(root).unwrap().display().to_string();
        for (line, target) in links(&without_code(&text)) {
            if target.is_empty() || is_external(&target) {
                continue;
            }
            let (path_part, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let resolved = if path_part.is_empty() {
                file.clone()
            } else if path_part.starts_with('/') {
                problems.push(format!(
                    "{rel_file}:{line}: `{target}` is an absolute path; link relative to the file"
                ));
                continue;
            } else {
                match normalize(&file.parent().unwrap().join(path_part)) {
                    Some(p) => p,
                    None => {
                        problems.push(format!("{rel_file}:{line}: `{target}` climbs above /"));
                        continue;
                    }
                }
            };
            if !resolved.starts_with(root) {
                problems.push(format!(
                    "{rel_file}:{line}: `{target}` points outside the repository"
                ));
                continue;
            }
            if !resolved.exists() {
                problems.push(format!("{rel_file}:{line}: `{target}` does not exist"));
                continue;
            }
            let Some(fragment) = fragment else { continue };
            if resolved.extension().is_none_or(|e| e != "md") || fragment.is_empty() {
                continue;
            }
            let known = anchor_cache.entry(resolved.clone()).or_insert_with(|| {
                anchors(&std::fs::read_to_string(&resolved).expect("Markdown is UTF-8"))
            });
            if !known.contains(fragment) {
                problems.push(format!(
                    "{rel_file}:{line}: `{target}`: no heading or anchor `#{fragment}` in {}",
                    resolved.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    problems
}

#[test]
fn every_relative_link_in_the_markdown_resolves_inside_the_repository() {
    let root = repo_root();
    let problems = broken_links(&root);
    assert!(
        problems.is_empty(),
        "{} broken relative link(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_link_check_finds_what_it_must() {
    // The checker itself, on a throwaway tree: each kind of broken link is
    // reported, and the good ones are not.
    let dir = tempfile_dir();
    let root = dir.as_path();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(
        root.join("README.md"),
        "# Top\n\n## Guarantees and `their` limits\n\n\
         [ok](docs/a.md#second-part) [ok](#guarantees-and-their-limits) [ok](docs)\n\
         [gone](docs/missing.md) [bad anchor](docs/a.md#nope) [out](../elsewhere.md)\n\
         `[code](not/checked.md)`\n\n```\n[fenced](not/checked.md)\n```\n\
         [web](https://example.com/x.md)\n[ref]: docs/also-missing.md\n",
    )
    .unwrap();
    std::fs::write(
        root.join("docs/a.md"),
        "# A\n\n## Second part\n\n<a id=\"CODE\"></a>\n[up](../README.md#top) [id](#CODE)\n",
    )
    .unwrap();
    let mut problems = broken_links(root);
    problems.sort();
    let rendered = problems.join("\n");
    assert_eq!(problems.len(), 4, "{rendered}");
    for needle in [
        "docs/missing.md` does not exist",
        "no heading or anchor `#nope`",
        "../elsewhere.md` points outside",
        "docs/also-missing.md` does not exist",
    ] {
        assert!(
            rendered.contains(needle),
            "missing {needle:?} in:\n{rendered}"
        );
    }
    std::fs::remove_dir_all(root).unwrap();
}

/// A fresh directory under the system temp dir (canonical, so it compares
/// with the checker's paths).
fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "splice-docs-links-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}
