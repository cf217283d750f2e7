//! The repair corpus: can a caller fix a failed edit from the
//! error alone?
//!
//! `tests/repair/cases.txt` holds realistic mistaken edits (stale
//! identifiers and literals, one stale line among several, indentation,
//! tabs vs spaces, trailing whitespace, CRLF, line numbers copied from a
//! numbered view, typographic quotes, an edit that an earlier edit of the
//! same call already changed, a span of a mixed-line-ending file, Unicode
//! look-alikes: NFD vs NFC, no-break and zero-width spaces) against the files of `tests/repair/files/`,
//! each with the edit that was meant. Every case runs through the real
//! binary: the mistaken call, then, if it failed, one retry built by
//! [`repair`], a deterministic stand-in for the model that sees only the
//! tool result (never the file) and may only copy file text from the
//! excerpts it was shown, as it reads them ([`perceived`]: characters that
//! render alike read alike), or spelled out with escapes in
//! `context.lookalike_match`. A case is solved when the file ends up exactly as
//! meant; a call that wrote anything else is a *wrong write*, worse than an
//! error, and there must be none.
//!
//! The scores per group are printed; the test fails below [`MIN_SOLVED`]
//! (the score this engine reached) or on any wrong write. With
//! `SPLICE_REPAIR_REPORT_ONLY=1` it only prints, which is how the score of
//! another build is measured (`SPLICE_BIN=/path/to/old/splice`, with
//! `SPLICE_OTHER_BUILD=1` when its answers follow an older schema).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde_json::{Value, json};
use similar::{Algorithm, DiffOp, capture_diff_slices};
use splice_tests::harness::Server;
use unicode_normalization::UnicodeNormalization;

/// Cases solved by this engine (of 60); CI fails below it.
const MIN_SOLVED: usize = 60;

#[derive(Debug, Clone)]
pub(crate) struct EditSpec {
    pub(crate) old: String,
    pub(crate) new: String,
    pub(crate) all: bool,
}

struct Case {
    name: String,
    group: String,
    file: String,
    /// The 1-based line from which on lines end with CRLF (1: all of them).
    crlf_from: Option<usize>,
    edits: Vec<EditSpec>,
    wants: Vec<EditSpec>,
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let mut blocks: Vec<(String, Vec<&str>)> = Vec::new();
    let mut header: Option<Vec<String>> = None;
    let flush = |header: &Option<Vec<String>>,
                 blocks: &mut Vec<(String, Vec<&str>)>,
                 cases: &mut Vec<Case>| {
        let Some(h) = header else { return };
        let body = |lines: &[&str]| {
            let mut lines = lines.to_vec();
            while lines.last() == Some(&"") {
                lines.pop();
            }
            lines.join("\n").replace('⇥', "\t").replace('␠', " ")
        };
        let (mut edits, mut wants) = (Vec::new(), Vec::new());
        let mut i = 0;
        while i < blocks.len() {
            let (kind, lines) = &blocks[i];
            let (new_kind, new_lines) = &blocks[i + 1];
            assert!(new_kind == "new" || new_kind == "want_new", "{h:?}");
            let spec = EditSpec {
                old: body(lines),
                new: body(new_lines),
                all: kind.ends_with('*'),
            };
            if kind.starts_with("want") {
                wants.push(spec);
            } else {
                edits.push(spec);
            }
            i += 2;
        }
        cases.push(Case {
            name: h[0].clone(),
            group: h[1].clone(),
            file: h[2].clone(),
            crlf_from: match h.get(3).map(String::as_str) {
                Some("crlf") => Some(1),
                Some(f) => Some(
                    f.strip_prefix("crlf-from:")
                        .and_then(|n| n.parse().ok())
                        .unwrap_or_else(|| panic!("{h:?}: unknown flag {f}")),
                ),
                None => None,
            },
            edits,
            wants,
        });
        blocks.clear();
    };
    for line in text.split('\n') {
        if let Some(h) = line.strip_prefix("== ") {
            flush(&header, &mut blocks, &mut cases);
            header = Some(h.split('|').map(|p| p.trim().to_string()).collect());
        } else if let Some(kind) = line.strip_prefix("-- ") {
            blocks.push((kind.to_string(), Vec::new()));
        } else if let Some((_, lines)) = blocks.last_mut() {
            lines.push(line);
        }
    }
    flush(&header, &mut blocks, &mut cases);
    cases
}

// ------------------------------------------------------------------ repair

/// Tokens that concatenate back to `s`: words (letters, digits, `_`, and
/// dots between digits, so `2.14.3` is one token), runs of blanks, and
/// every other character alone.
fn tokenize(s: &str) -> Vec<&str> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let mut j = i + 1;
        if word(c) {
            while j < chars.len() {
                let d = chars[j].1;
                let dotted = d == '.'
                    && chars[j - 1].1.is_ascii_digit()
                    && chars.get(j + 1).is_some_and(|n| n.1.is_ascii_digit());
                if word(d) || dotted {
                    j += 1;
                } else {
                    break;
                }
            }
        } else if c == ' ' || c == '\t' {
            while j < chars.len() && (chars[j].1 == ' ' || chars[j].1 == '\t') {
                j += 1;
            }
        }
        let end = chars.get(j).map_or(s.len(), |c| c.0);
        out.push(&s[start..end]);
        i = j;
    }
    out
}

/// What a model reading the excerpt treats as the same token.
fn normal(t: &str) -> &str {
    match t {
        "“" | "”" | "„" => "\"",
        "‘" | "’" => "'",
        _ => t,
    }
}

fn is_blank(t: &str) -> bool {
    t.chars().all(|c| c == ' ' || c == '\t')
}

/// 2·LCS / (|a| + |b|) over the non-blank tokens, compared normalised.
fn similarity(a: &str, b: &str) -> f64 {
    let norm = |s: &str| -> Vec<String> {
        tokenize(s)
            .into_iter()
            .filter(|t| !is_blank(t) && *t != "\n")
            .map(|t| normal(t).to_string())
            .collect()
    };
    let (a, b) = (norm(a), norm(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let common: usize = capture_diff_slices(Algorithm::Myers, &a, &b)
        .iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

/// A change of `base[start..end]` into `with`.
#[derive(Debug, Clone, PartialEq)]
struct Hunk {
    start: usize,
    end: usize,
    with: Vec<String>,
}

fn hunks(base: &[&str], other: &[&str]) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, base, other) {
        let (start, end, with) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index, old_index + old_len, Vec::new()),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (
                old_index,
                old_index,
                other[new_index..new_index + new_len].to_vec(),
            ),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index,
                old_index + old_len,
                other[new_index..new_index + new_len].to_vec(),
            ),
        };
        let with: Vec<String> = with.iter().map(|t| t.to_string()).collect();
        match out.last_mut() {
            Some(last) if last.end == start => {
                last.end = end;
                last.with.extend(with);
            }
            _ => out.push(Hunk { start, end, with }),
        }
    }
    out
}

/// Three-way merge of the model's change (`base` → `theirs`) onto the text
/// the file really has (`base` → `ours`), as a model would port its edit:
/// consistent renames and quote changes seen in the file apply to the text
/// the model adds; where both change the same tokens the model's intent
/// wins; any other overlap gives up.
fn merge3(base: &str, ours: &str, theirs: &str) -> Option<String> {
    let (b, o, t) = (tokenize(base), tokenize(ours), tokenize(theirs));
    let ours_h = hunks(&b, &o);
    let theirs_h = hunks(&b, &t);
    // Single-token substitutions the file applies everywhere.
    let mut renames: HashMap<&str, String> = HashMap::new();
    let mut kept: Vec<bool> = vec![true; b.len()];
    for h in &ours_h {
        kept[h.start..h.end].iter_mut().for_each(|k| *k = false);
    }
    for h in &ours_h {
        if h.end == h.start + 1 && h.with.len() == 1 {
            let from = b[h.start];
            let word = from.chars().all(|c| c.is_alphanumeric() || c == '_');
            let quote = normal(from) != from;
            let survives = b.iter().zip(&kept).any(|(tok, k)| *k && *tok == from);
            if (word || quote) && !survives {
                match renames.get(from) {
                    Some(to) if *to != h.with[0] => return None,
                    _ => {
                        renames.insert(from, h.with[0].clone());
                    }
                }
            }
        }
    }
    let mut all: Vec<(Hunk, bool)> = ours_h.into_iter().map(|h| (h, true)).collect();
    for mut h in theirs_h {
        for tok in &mut h.with {
            if let Some(to) = renames.get(tok.as_str()) {
                *tok = to.clone();
            }
        }
        // Same tokens changed by both: the model's intent wins.
        if let Some(i) = all
            .iter()
            .position(|(o, ours)| *ours && o.start == h.start && o.end == h.end && h.end > h.start)
        {
            all[i] = (h, false);
            continue;
        }
        all.push((h, false));
    }
    all.sort_by_key(|(h, ours)| (h.start, h.end, !*ours));
    for i in 0..all.len() {
        for j in i + 1..all.len() {
            let (x, y) = (&all[i].0, &all[j].0);
            if all[i].1 == all[j].1 {
                continue;
            }
            let overlap = (x.start < y.end && y.start < x.end)
                || (x.start == x.end && y.start == y.end && x.start == y.start && x.with != y.with)
                || (x.start == x.end && y.start < x.start && x.start < y.end)
                || (y.start == y.end && x.start < y.start && y.start < x.end);
            if overlap {
                return None;
            }
        }
    }
    all.dedup_by(|a, b| a.0 == b.0);
    let mut out = String::new();
    let mut at = 0;
    for (h, _) in &all {
        out.extend(b[at..h.start].iter().copied());
        out.extend(h.with.iter().map(String::as_str));
        at = h.end;
    }
    out.extend(b[at..].iter().copied());
    Some(out)
}

/// Letters of other scripts that render like Latin ones, as a reader takes
/// them (the corpus of `repair_corpus_large` plants these in its files).
pub(crate) const HOMOGLYPHS: &[(char, char)] = &[
    // Cyrillic
    ('\u{430}', 'a'),
    ('\u{435}', 'e'),
    ('\u{43E}', 'o'),
    ('\u{440}', 'p'),
    ('\u{441}', 'c'),
    ('\u{445}', 'x'),
    ('\u{456}', 'i'),
    ('\u{455}', 's'),
    ('\u{410}', 'A'),
    ('\u{415}', 'E'),
    ('\u{41E}', 'O'),
    ('\u{420}', 'P'),
    ('\u{421}', 'C'),
    ('\u{422}', 'T'),
    ('\u{41C}', 'M'),
    // Greek
    ('\u{3BF}', 'o'),
    ('\u{3B1}', 'a'),
    ('\u{3BD}', 'v'),
    ('\u{391}', 'A'),
    ('\u{392}', 'B'),
    ('\u{39F}', 'O'),
    ('\u{399}', 'I'),
    ('\u{39A}', 'K'),
    // Armenian
    ('\u{585}', 'o'),
    ('\u{57D}', 'u'),
    // Cherokee
    ('\u{13AA}', 'A'),
    ('\u{13DF}', 'C'),
    ('\u{13A1}', 'R'),
];

/// Text as a model reading it sees it, and so retypes it: characters that
/// render the same are read the same (compatibility forms folded, NFKC:
/// full-width letters and punctuation, ligatures; a no-break space as a
/// space; zero-width characters not at all; a Cyrillic or Greek letter as
/// the Latin one it looks like). Curly quotes and dashes are visible, so
/// they are read as they are.
pub(crate) fn perceived(s: &str) -> String {
    s.nfkc()
        .filter_map(|c| match c {
            '\u{00A0}' | '\u{202F}' | '\u{2000}'..='\u{200A}' => Some(' '),
            '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => None,
            c => Some(
                HOMOGLYPHS
                    .iter()
                    .find(|(h, _)| *h == c)
                    .map_or(c, |&(_, latin)| latin),
            ),
        })
        .collect()
}

/// Farthest a region shown may lie from where the model remembers its
/// `old_string` (in lines) for the model to take it as the one it meant.
const MAX_DRIFT: usize = 200;

/// The deterministic model: from the edits it sent and the tool result
/// alone, the edits of its one retry, or `None` when it would give up.
/// Every failed edit the answer diagnoses is repaired from its own
/// diagnosis (the envelope's `context` for the envelope's edit, its
/// `edit_status` entry for a later one); edits reported `would_apply` or
/// `skipped` are sent again as they were. `memory` is, per edit, the line
/// where the model saw its `old_string` when it read the file: with it, the
/// model chooses among regions shown by their place, and gives up rather
/// than edit a region far from where it looked.
pub(crate) fn repair(
    edits: &[EditSpec],
    result: &Value,
    memory: Option<&[usize]>,
) -> Option<Vec<EditSpec>> {
    let code = result["error_code"].as_str()?;
    if code != "MATCH_NOT_FOUND" && code != "AMBIGUOUS_MATCH" {
        return None;
    }
    let index = result["edit_index"].as_u64()? as usize;
    let mut diagnoses: Vec<(usize, &Value, &str)> = vec![(index, &result["context"], code)];
    for status in result["edit_status"].as_array().into_iter().flatten() {
        let i = status["edit_index"].as_u64()? as usize;
        if i != index && status["status"] == "failed" {
            diagnoses.push((i, status, status["error_code"].as_str()?));
        }
    }
    let mut retry = edits.to_vec();
    for (i, diagnosis, code) in diagnoses {
        if code != "MATCH_NOT_FOUND" {
            return None;
        }
        retry[i] = repair_one(&edits[i], diagnosis, memory.map(|m| m[i]))?;
    }
    Some(retry)
}

/// The retry of one not-found edit from its diagnosis (see [`repair`]).
fn repair_one(failed: &EditSpec, d: &Value, remembered: Option<usize>) -> Option<EditSpec> {
    // The file's exact text where old_string matches but for look-alike
    // characters, spelled with JSON escapes: copied as is.
    if let Some(literal) = d["lookalike_match"]["file_text"].as_str() {
        return retry_on(failed, serde_json::from_str(literal).ok()?);
    }
    // The regions shown: the snippet, and each candidate.
    let mut regions: Vec<(usize, &str)> = vec![(
        d["snippet_start_line"].as_u64().unwrap_or(1) as usize,
        d["snippet"].as_str()?,
    )];
    for c in d["candidates"].as_array().into_iter().flatten() {
        regions.push((c["start_line"].as_u64()? as usize, c["snippet"].as_str()?));
    }
    let want = failed.old.trim_end_matches('\n').split('\n').count();
    // The block of each region that looks most like old_string: (score,
    // its first line in the file, its text).
    let mut blocks: Vec<(f64, usize, String)> = Vec::new();
    for (first_line, snippet) in regions {
        let snippet = perceived(snippet);
        let lines: Vec<&str> = snippet.split('\n').collect();
        let mut best: Option<(f64, usize, usize)> = None;
        for len in [want, want + 1, want.saturating_sub(1)] {
            if len == 0 || len > lines.len() {
                continue;
            }
            for start in 0..=lines.len() - len {
                let block = lines[start..start + len].join("\n");
                let score = similarity(&failed.old, &block);
                if best.is_none_or(|(s, ..)| score > s) {
                    best = Some((score, start, len));
                }
            }
        }
        if let Some((score, start, len)) = best.filter(|b| b.0 >= 0.6) {
            blocks.push((
                score,
                first_line + start,
                lines[start..start + len].join("\n"),
            ));
        }
    }
    let chosen = match remembered {
        Some(line) => blocks
            .into_iter()
            .filter(|b| b.1.abs_diff(line) <= MAX_DRIFT)
            .min_by_key(|b| b.1.abs_diff(line))?,
        None => blocks.into_iter().max_by(|a, b| a.0.total_cmp(&b.0))?,
    };
    retry_on(failed, chosen.2)
}

/// The retry of `failed` aimed at `block`, text copied from the answer,
/// its change ported onto it by [`merge3`].
fn retry_on(failed: &EditSpec, block: String) -> Option<EditSpec> {
    let base = failed.old.trim_end_matches('\n');
    let merged = merge3(base, &block, failed.new.trim_end_matches('\n'))?;
    Some(EditSpec {
        old: block,
        new: merged,
        all: failed.all,
    })
}

// ------------------------------------------------------------------ runner

fn apply_wants(text: &str, wants: &[EditSpec], name: &str) -> String {
    let mut text = text.to_string();
    for w in wants {
        assert!(
            w.all || text.matches(&w.old).count() == 1,
            "{name}: the wanted edit {:?} must occur once",
            w.old
        );
        text = text.replace(&w.old, &w.new);
    }
    text
}

/// `text` with the line breaks of lines `from..` (1-based) written as CRLF.
fn crlf_from(text: &str, from: usize) -> String {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| match line.strip_suffix('\n') {
            Some(body) if i + 1 >= from => format!("{body}\r\n"),
            _ => line.to_string(),
        })
        .collect()
}

pub(crate) fn call_args(path: &Path, edits: &[EditSpec]) -> Value {
    let edits: Vec<Value> = edits
        .iter()
        .map(|e| json!({"old_string": e.old, "new_string": e.new, "replace_all": e.all}))
        .collect();
    json!({"file_path": path.to_str().unwrap(), "edits": edits, "backup": false})
}

#[derive(Default)]
struct Score {
    cases: usize,
    solved: usize,
    wrong: usize,
}

#[tokio::test]
async fn repair_corpus() {
    let dir = splice_tests::harness::workspace_root().join("tests/repair");
    let cases = parse_cases(&std::fs::read_to_string(dir.join("cases.txt")).unwrap());
    let root = tempfile::tempdir().unwrap();
    let root_path = root.path().canonicalize().unwrap();
    let server = Server::in_root(&root_path).await;
    let mut groups: BTreeMap<String, Score> = BTreeMap::new();
    let mut failures = Vec::new();
    // What a model reads per failed call: the envelope's compact JSON, and
    // the part of it that is `recovery_hints` (docs/benchmarks.md).
    let (mut failed_calls, mut envelope_bytes, mut hint_bytes) = (0usize, 0usize, 0usize);
    for case in &cases {
        let original = std::fs::read_to_string(dir.join("files").join(&case.file)).unwrap();
        let expected = apply_wants(&original, &case.wants, &case.name);
        let (original, expected) = match case.crlf_from {
            Some(from) => (crlf_from(&original, from), crlf_from(&expected, from)),
            None => (original, expected),
        };
        let path = root_path.join(format!("{}-{}", case.name, case.file));
        std::fs::write(&path, &original).unwrap();
        let score = groups.entry(case.group.clone()).or_default();
        score.cases += 1;
        let mut edits = case.edits.clone();
        let mut outcome = "error";
        for attempt in 0..2 {
            let result = server.call("multi_edit", call_args(&path, &edits)).await;
            let now = std::fs::read_to_string(&path).unwrap();
            if !result.is_error {
                outcome = if now == expected {
                    "solved"
                } else {
                    "WRONG WRITE"
                };
                break;
            }
            assert_eq!(
                now, original,
                "{}: a failed call changed the file",
                case.name
            );
            failed_calls += 1;
            envelope_bytes += result.structured.to_string().len();
            hint_bytes += result.structured["recovery_hints"].to_string().len();
            if attempt == 1 {
                break;
            }
            match repair(&edits, &result.structured, None) {
                Some(retry) => edits = retry,
                None => break,
            }
        }
        match outcome {
            "solved" => score.solved += 1,
            "WRONG WRITE" => score.wrong += 1,
            _ => {}
        }
        if outcome != "solved" {
            failures.push(format!("{} ({}): {outcome}", case.name, case.group));
        }
    }
    server.stop().await;
    let (mut cases_n, mut solved, mut wrong) = (0, 0, 0);
    println!(
        "{:<20} {:>6} {:>7} {:>6}",
        "group", "cases", "solved", "wrong"
    );
    for (group, s) in &groups {
        println!("{group:<20} {:>6} {:>7} {:>6}", s.cases, s.solved, s.wrong);
        cases_n += s.cases;
        solved += s.solved;
        wrong += s.wrong;
    }
    println!("{:<20} {cases_n:>6} {solved:>7} {wrong:>6}", "total");
    for f in &failures {
        println!("  not solved: {f}");
    }
    if let (Some(envelope), Some(hints)) = (
        envelope_bytes.checked_div(failed_calls),
        hint_bytes.checked_div(failed_calls),
    ) {
        println!(
            "bytes per failed call ({failed_calls} calls): envelope {envelope} B, of which recovery_hints {hints} B"
        );
    }
    if std::env::var_os("SPLICE_REPAIR_REPORT_ONLY").is_some() {
        return;
    }
    assert!(cases_n >= 40, "the corpus needs at least 40 cases");
    assert_eq!(wrong, 0, "calls wrote the wrong content");
    assert!(
        solved >= MIN_SOLVED,
        "{solved} of {cases_n} cases solved, fewer than the {MIN_SOLVED} reached before"
    );
}

#[test]
fn merge_ports_the_change_onto_the_real_text() {
    assert_eq!(
        merge3(
            "let sum = a;\nuse(sum);",
            "    let total = a;\n    use(total);",
            "let sum = a + 1;\nuse(sum);\nlog(sum);"
        )
        .as_deref(),
        Some("    let total = a + 1;\n    use(total);\nlog(total);")
    );
    // Both sides change the same token: the intent wins.
    assert_eq!(
        merge3("x = 256", "x = 512", "x = 1024").as_deref(),
        Some("x = 1024")
    );
    assert_eq!(tokenize("v2.14.3-rc x"), ["v2.14.3", "-", "rc", " ", "x"]);
}
