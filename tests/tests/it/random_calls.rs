//! Random calls: whatever a caller sends, each tool answers a success or an
//! error of its own operation (issue #48, §4). The operation lists come from
//! `errors.yaml` through the codegen model (`Spec::operation_codes`), not a
//! copy.
//!
//! One real binary serves every case. A case writes a few small files into
//! an empty root, then makes one to four calls: a tool and its arguments
//! drawn from shapes a caller could send, valid or not (existing, missing,
//! relative, outside and traversing paths; a directory; matching,
//! non-matching, empty and repeated `old_string`s; duplicate entries; moves
//! onto existing files; creates under missing parents; undo of an id an
//! earlier call returned or of a made-up one; wrong types and unknown
//! members). Every answer is checked by the harness against the published
//! and strict schemas and the tool's `outputSchema` (`Server::call`), and
//! here against the operation's list: the envelope's own code is one the
//! operation sends as an envelope, each `violations[].code` one it lists.
//!
//! The seed is fixed; `SPLICE_RANDOM_CALLS=N` runs N cases instead of the
//! default (docs/testing.md, "Fuzzing").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{Map, Value, json};
use splice_codegen::spec::SentAs;
use splice_tests::harness::{Launch, Server, workspace_root};

/// Cases run by `cargo test`: a few seconds on the debug build.
const DEFAULT_CASES: u32 = 400;

/// File names a case may create and name; `sub/` may or may not exist,
/// and `loop.txt` may be a link to itself.
const NAMES: &[&str] = &["a.txt", "b.txt", "sub/c.txt", "sub/d.txt", "loop.txt"];

/// Strings of old and new text, and of file contents: repeats, prefixes
/// of one another, line breaks, empty; [`text`] adds one longer than the
/// server's `--max-file-size`.
const TEXTS: &[&str] = &[
    "foo",
    "bar",
    "foo foo",
    "foo\n",
    "\r\n",
    "",
    "bar\nbaz\n",
    "é",
];

/// How many texts [`text`] knows.
const N_TEXTS: usize = TEXTS.len() + 1;

/// The server's limits in this test: small, so that random calls reach
/// them (`FILE_TOO_LARGE`, `RESULT_TOO_LARGE`, `REQUEST_TOO_LARGE`).
const MAX_FILE_SIZE: usize = 256;
const MAX_REQUEST_SIZE: usize = 4096;

/// Text `i`: one of [`TEXTS`], or past them a text over the file size limit.
fn text(i: usize) -> String {
    TEXTS
        .get(i)
        .map_or_else(|| "foo ".repeat(MAX_FILE_SIZE / 3), |t| (*t).to_owned())
}

/// A path as a caller might write it; `Abs`/`Rel`/`Traverse` name an entry
/// of [`NAMES`].
#[derive(Debug, Clone)]
enum PathArg {
    Abs(usize),
    Rel(usize),
    Traverse(usize),
    Outside,
    Directory,
    Empty,
    NotAString,
}

#[derive(Debug, Clone)]
struct EditArg {
    old: usize,
    new: usize,
    replace_all: Option<bool>,
}

#[derive(Debug, Clone)]
struct EntryArg {
    path: PathArg,
    op: Option<&'static str>,
    edits: Option<Vec<EditArg>>,
    content: Option<usize>,
    move_to: Option<PathArg>,
    create_parents: Option<bool>,
    expected_sha256: Option<&'static str>,
}

/// One call, its arguments still symbolic: paths are resolved against the
/// case's root and transaction ids against the ids seen so far.
#[derive(Debug, Clone)]
enum CallArg {
    MultiEdit {
        path: PathArg,
        edits: Vec<EditArg>,
        flags: Flags,
        expected_sha256: Option<&'static str>,
    },
    MultiEditFiles {
        files: Vec<EntryArg>,
        flags: Flags,
    },
    Undo {
        id: IdArg,
        dry_run: Option<bool>,
    },
    ListTransactions {
        limit: Option<i64>,
    },
    /// Arguments of the wrong shape for `tool`: a member of the wrong type,
    /// a missing required one, an unknown one.
    Malformed {
        tool: usize,
        args: Value,
    },
}

#[derive(Debug, Clone)]
enum IdArg {
    Seen(usize),
    Made(String),
}

#[derive(Debug, Clone, Copy)]
struct Flags {
    dry_run: Option<bool>,
    backup: Option<bool>,
    include_content: Option<bool>,
}

#[derive(Debug, Clone)]
struct Case {
    /// (name, text) of each file; text [`N_TEXTS`] is bytes that are not
    /// UTF-8.
    files: Vec<(usize, usize)>,
    subdir: bool,
    loop_link: bool,
    calls: Vec<CallArg>,
}

const TOOLS: &[&str] = &[
    "multi_edit",
    "multi_edit_files",
    "undo",
    "list_transactions",
];

fn path_arg() -> impl Strategy<Value = PathArg> {
    let n = NAMES.len();
    prop_oneof![
        6 => (0..n).prop_map(PathArg::Abs),
        1 => (0..n).prop_map(PathArg::Rel),
        1 => (0..n).prop_map(PathArg::Traverse),
        1 => Just(PathArg::Outside),
        1 => Just(PathArg::Directory),
        1 => Just(PathArg::Empty),
        1 => Just(PathArg::NotAString),
    ]
}

fn edit_arg() -> impl Strategy<Value = EditArg> {
    (0..N_TEXTS, 0..N_TEXTS, prop::option::of(any::<bool>())).prop_map(|(old, new, replace_all)| {
        EditArg {
            old,
            new,
            replace_all,
        }
    })
}

fn flags() -> impl Strategy<Value = Flags> {
    (
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(dry_run, backup, include_content)| Flags {
            dry_run,
            backup,
            include_content,
        })
}

/// A malformed SHA-256 or one that names no content of [`TEXTS`].
fn sha() -> impl Strategy<Value = Option<&'static str>> {
    prop::option::of(prop::sample::select(vec![
        "not-a-sha",
        "0000000000000000000000000000000000000000000000000000000000000000",
    ]))
}

fn entry_arg() -> impl Strategy<Value = EntryArg> {
    (
        path_arg(),
        prop::option::of(prop::sample::select(vec![
            "edit", "create", "delete", "move", "rename",
        ])),
        prop::option::of(prop::collection::vec(edit_arg(), 0..3)),
        prop::option::of(0..N_TEXTS),
        prop::option::of(path_arg()),
        prop::option::of(any::<bool>()),
        sha(),
    )
        .prop_map(
            |(path, op, edits, content, move_to, create_parents, expected_sha256)| EntryArg {
                path,
                op,
                edits,
                content,
                move_to,
                create_parents,
                expected_sha256,
            },
        )
}

fn malformed() -> impl Strategy<Value = CallArg> {
    let bad_value = prop_oneof![
        Just(json!(null)),
        Just(json!(7)),
        Just(json!("x")),
        Just(json!([1])),
        Just(json!({"old_string": 1})),
        Just(json!([{"old_string": "foo"}])),
        Just(json!(-1)),
        Just(json!(true)),
        Just(json!("x".repeat(MAX_REQUEST_SIZE))),
    ];
    let member = prop::sample::select(vec![
        "file_path",
        "edits",
        "files",
        "transaction_id",
        "limit",
        "dry_run",
        "backup",
        "expected_sha256",
        "not_a_member",
    ]);
    (
        0..TOOLS.len(),
        prop::collection::btree_map(member, bad_value, 0..3),
    )
        .prop_map(|(tool, members)| CallArg::Malformed {
            tool,
            args: Value::Object(
                members
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
            ),
        })
}

fn call_arg() -> impl Strategy<Value = CallArg> {
    prop_oneof![
        4 => (path_arg(), prop::collection::vec(edit_arg(), 0..4), flags(), sha()).prop_map(
            |(path, edits, flags, expected_sha256)| CallArg::MultiEdit {
                path,
                edits,
                flags,
                expected_sha256,
            }
        ),
        4 => (prop::collection::vec(entry_arg(), 0..4), flags())
            .prop_map(|(files, flags)| CallArg::MultiEditFiles { files, flags }),
        2 => (
            prop_oneof![
                3 => (0..4usize).prop_map(IdArg::Seen),
                1 => "[a-z0-9-]{0,12}".prop_map(IdArg::Made),
            ],
            prop::option::of(any::<bool>()),
        )
            .prop_map(|(id, dry_run)| CallArg::Undo { id, dry_run }),
        1 => prop::option::of(-2i64..5).prop_map(|limit| CallArg::ListTransactions { limit }),
        2 => malformed(),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((0..NAMES.len() - 1, 0..=N_TEXTS), 0..4),
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::collection::vec(call_arg(), 1..5),
    )
        .prop_map(|(files, subdir, loop_link, calls)| Case {
            files,
            subdir,
            loop_link,
            calls,
        })
}

/// Where a case's paths point: the root the server may edit, and a
/// directory beside it that it may not.
struct Places<'a> {
    root: &'a Path,
    outside: &'a Path,
}

impl Places<'_> {
    fn path(&self, p: &PathArg) -> Value {
        let s = |p: &Path| json!(p.to_string_lossy());
        match p {
            PathArg::Abs(i) => s(&self.root.join(NAMES[*i])),
            PathArg::Rel(i) => json!(NAMES[*i]),
            PathArg::Traverse(i) => s(&self.root.join("sub/..").join(NAMES[*i])),
            PathArg::Outside => s(&self.outside.join("x.txt")),
            PathArg::Directory => s(self.root),
            PathArg::Empty => json!(""),
            PathArg::NotAString => json!(3),
        }
    }
}

fn edits(edits: &[EditArg]) -> Value {
    Value::Array(
        edits
            .iter()
            .map(|e| {
                let mut m = Map::new();
                m.insert("old_string".into(), json!(text(e.old)));
                m.insert("new_string".into(), json!(text(e.new)));
                if let Some(r) = e.replace_all {
                    m.insert("replace_all".into(), json!(r));
                }
                Value::Object(m)
            })
            .collect(),
    )
}

fn put_flags(m: &mut Map<String, Value>, f: Flags) {
    for (name, v) in [
        ("dry_run", f.dry_run),
        ("backup", f.backup),
        ("include_content", f.include_content),
    ] {
        if let Some(v) = v {
            m.insert(name.into(), json!(v));
        }
    }
}

/// The tool and its JSON arguments.
fn resolve(call: &CallArg, at: &Places<'_>, seen: &[String]) -> (&'static str, Value) {
    let mut m = Map::new();
    let tool = match call {
        CallArg::MultiEdit {
            path,
            edits: e,
            flags,
            expected_sha256,
        } => {
            m.insert("file_path".into(), at.path(path));
            m.insert("edits".into(), edits(e));
            put_flags(&mut m, *flags);
            if let Some(sha) = expected_sha256 {
                m.insert("expected_sha256".into(), json!(sha));
            }
            "multi_edit"
        }
        CallArg::MultiEditFiles { files, flags } => {
            let entries = files
                .iter()
                .map(|f| {
                    let mut e = Map::new();
                    e.insert("file_path".into(), at.path(&f.path));
                    if let Some(op) = f.op {
                        e.insert("op".into(), json!(op));
                    }
                    if let Some(x) = &f.edits {
                        e.insert("edits".into(), edits(x));
                    }
                    if let Some(c) = f.content {
                        e.insert("content".into(), json!(text(c)));
                    }
                    if let Some(to) = &f.move_to {
                        e.insert("move_to".into(), at.path(to));
                    }
                    if let Some(p) = f.create_parents {
                        e.insert("create_parents".into(), json!(p));
                    }
                    if let Some(sha) = f.expected_sha256 {
                        e.insert("expected_sha256".into(), json!(sha));
                    }
                    Value::Object(e)
                })
                .collect();
            m.insert("files".into(), Value::Array(entries));
            put_flags(&mut m, *flags);
            "multi_edit_files"
        }
        CallArg::Undo { id, dry_run } => {
            let id = match id {
                IdArg::Seen(i) if !seen.is_empty() => seen[seen.len() - 1 - i % seen.len()].clone(),
                IdArg::Seen(_) => "never-issued".to_owned(),
                IdArg::Made(s) => s.clone(),
            };
            m.insert("transaction_id".into(), json!(id));
            if let Some(d) = dry_run {
                m.insert("dry_run".into(), json!(d));
            }
            "undo"
        }
        CallArg::ListTransactions { limit } => {
            if let Some(l) = limit {
                m.insert("limit".into(), json!(l));
            }
            "list_transactions"
        }
        CallArg::Malformed { tool, args } => return (TOOLS[*tool], args.clone()),
    };
    (tool, Value::Object(m))
}

/// Empties `dir` and writes the case's files.
fn lay_out(dir: &Path, case: &Case) {
    for entry in std::fs::read_dir(dir).expect("read root") {
        let p = entry.expect("entry").path();
        if p.is_dir() && !p.is_symlink() {
            std::fs::remove_dir_all(&p).expect("clear root");
        } else {
            std::fs::remove_file(&p).expect("clear root");
        }
    }
    if case.subdir {
        std::fs::create_dir(dir.join("sub")).expect("mkdir sub");
    }
    if case.loop_link {
        std::os::unix::fs::symlink("loop.txt", dir.join("loop.txt")).expect("symlink");
    }
    for &(name, t) in &case.files {
        let p = dir.join(NAMES[name]);
        if p.parent().is_some_and(Path::exists) {
            let bytes = if t == N_TEXTS {
                b"foo \xff\xfe".to_vec()
            } else {
                text(t).into_bytes()
            };
            std::fs::write(&p, bytes).expect("write file");
        }
    }
}

/// Per tool: the codes its operation sends as an envelope's own code, and
/// every code it lists (what `violations[].code` may hold).
fn lists() -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let spec = splice_codegen::load_path(&workspace_root().join("errors.yaml"))
        .unwrap_or_else(|d| panic!("{}", d.render()));
    spec.operations
        .iter()
        .map(|op| {
            let codes = spec.operation_codes(op);
            let enveloped = codes
                .iter()
                .filter(|c| c.sent_as() != SentAs::Violation)
                .map(|c| c.wire().to_owned())
                .collect();
            let all = codes
                .iter()
                .flat_map(|c| c.wire_names())
                .map(str::to_owned)
                .collect();
            (op.wire().to_owned(), (enveloped, all))
        })
        .collect()
}

/// The (tool, code) pairs a run of the default number of cases produces
/// (the seed is fixed, so it produces them every time; a longer run
/// produces more). `taxonomy::every_code_a_tool_lists_is_produced_through_that_tool`
/// counts them as produced through that tool, and the test below fails
/// when its run misses one.
pub(crate) const PRODUCES: &[(&str, &str)] = &[
    ("multi_edit", "DUPLICATE_OLD_STRING"),
    ("multi_edit", "EMPTY_EDITS"),
    ("multi_edit", "EMPTY_OLD_STRING"),
    ("multi_edit", "FILE_NOT_FOUND"),
    ("multi_edit", "FILE_TOO_LARGE"),
    ("multi_edit", "INVALID_ARGUMENT"),
    ("multi_edit", "INVALID_ENCODING"),
    ("multi_edit", "INVALID_PATH"),
    ("multi_edit", "INVALID_SHA256"),
    ("multi_edit", "MATCH_NOT_FOUND"),
    ("multi_edit", "NOT_A_REGULAR_FILE"),
    ("multi_edit", "PATH_OUTSIDE_ROOTS"),
    ("multi_edit", "PATH_TRAVERSAL"),
    ("multi_edit", "RELATIVE_PATH"),
    ("multi_edit", "REQUEST_TOO_LARGE"),
    ("multi_edit", "STALE_FILE"),
    ("multi_edit", "SYMLINK_LOOP"),
    ("multi_edit", "VALIDATION_FAILED"),
    ("multi_edit_files", "DUPLICATE_FILE_PATH"),
    ("multi_edit_files", "DUPLICATE_OLD_STRING"),
    ("multi_edit_files", "EMPTY_EDITS"),
    ("multi_edit_files", "EMPTY_FILES"),
    ("multi_edit_files", "EMPTY_OLD_STRING"),
    ("multi_edit_files", "INVALID_ARGUMENT"),
    ("multi_edit_files", "INVALID_PATH"),
    ("multi_edit_files", "INVALID_SHA256"),
    ("multi_edit_files", "NOT_A_REGULAR_FILE"),
    ("multi_edit_files", "PATH_CONFLICT"),
    ("multi_edit_files", "PATH_TRAVERSAL"),
    ("multi_edit_files", "RELATIVE_PATH"),
    ("multi_edit_files", "REQUEST_TOO_LARGE"),
    ("multi_edit_files", "VALIDATION_FAILED"),
    ("undo", "INVALID_ARGUMENT"),
    ("undo", "REQUEST_TOO_LARGE"),
    ("undo", "VALIDATION_FAILED"),
    ("list_transactions", "INVALID_ARGUMENT"),
    ("list_transactions", "REQUEST_TOO_LARGE"),
    ("list_transactions", "VALIDATION_FAILED"),
];

#[test]
fn every_answer_to_a_random_call_is_a_success_or_a_code_its_tool_lists() {
    let cases = std::env::var("SPLICE_RANDOM_CALLS")
        .ok()
        .map(|n| n.parse().expect("SPLICE_RANDOM_CALLS is a number of cases"))
        .unwrap_or(DEFAULT_CASES);
    let lists = lists();
    for tool in TOOLS {
        assert!(
            lists.contains_key(*tool),
            "{tool} is no operation of errors.yaml"
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let root = tempfile::tempdir().expect("root");
    let root_path = root.path().canonicalize().expect("canonical root");
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("x.txt"), "foo").expect("outside file");
    let server = rt.block_on(Server::start(Launch {
        roots: vec![root_path.clone()],
        args: vec![
            "--max-file-size".into(),
            MAX_FILE_SIZE.to_string(),
            "--max-request-size".into(),
            MAX_REQUEST_SIZE.to_string(),
        ],
        ..Launch::default()
    }));
    let places = Places {
        root: &root_path,
        outside: outside.path(),
    };
    let seen_ids = std::cell::RefCell::new(Vec::<String>::new());
    let produced = std::cell::RefCell::new(BTreeSet::<(String, String)>::new());
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            // A shrunk case reruns against the same live server: keep it short.
            max_shrink_iters: 200,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[48; 32]),
    );
    let result = runner.run(&case(), |case| {
        lay_out(&root_path, &case);
        for call in &case.calls {
            let (tool, args) = resolve(call, &places, &seen_ids.borrow());
            let out = rt.block_on(server.call(tool, args.clone()));
            let (enveloped, all) = &lists[tool];
            if !out.is_error {
                prop_assert_eq!(&out.structured["success"], &json!(true), "{}", tool);
                if let Some(id) = out.structured["transaction_id"].as_str() {
                    seen_ids.borrow_mut().push(id.to_owned());
                }
                continue;
            }
            let code = out.code().to_owned();
            prop_assert!(
                enveloped.contains(&code),
                "{} answered {}, which its operation does not send as an envelope\nargs: {}\n{:#}",
                tool,
                code,
                args,
                out.structured
            );
            for v in out.structured["violations"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let kind = v["code"].as_str().unwrap_or_default();
                prop_assert!(
                    all.contains(kind),
                    "{} reported a violation {}, which its operation does not list\nargs: {}",
                    tool,
                    kind,
                    args
                );
                produced
                    .borrow_mut()
                    .insert((tool.to_owned(), kind.to_owned()));
            }
            produced.borrow_mut().insert((tool.to_owned(), code));
        }
        Ok::<(), TestCaseError>(())
    });
    rt.block_on(server.stop());
    if let Err(e) = result {
        panic!("{e}");
    }
    let produced = produced.into_inner();
    let mut summary = String::new();
    for tool in TOOLS {
        let codes: Vec<&str> = produced
            .iter()
            .filter(|(t, _)| t == tool)
            .map(|(_, c)| c.as_str())
            .collect();
        summary.push_str(&format!("\n  {tool}: {}", codes.join(" ")));
    }
    eprintln!("random calls ({cases} cases) produced:{summary}");
    if cases >= DEFAULT_CASES {
        let missing: Vec<String> = PRODUCES
            .iter()
            .filter(|(t, c)| !produced.contains(&((*t).to_owned(), (*c).to_owned())))
            .map(|(t, c)| format!("{t} {c}"))
            .collect();
        assert!(
            missing.is_empty(),
            "PRODUCES lists pairs this run did not produce: {missing:?}{summary}"
        );
    }
    // The generator reaches past argument decoding on every tool.
    for tool in TOOLS {
        assert!(
            produced
                .iter()
                .any(|(t, c)| t == tool && c != "VALIDATION_FAILED"),
            "{tool}: no random call got past argument validation:{summary}"
        );
    }
}
