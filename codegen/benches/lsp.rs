//! How fast the language server answers on a large spec (issue 50):
//! diagnostics within 100 ms of a change to a 1,000-code spec, hover and
//! completion within 20 ms.
//!
//! The spec is splice's own `errors.yaml` without its operations, its 45
//! codes followed by 1,000 synthetic ones over its six categories (title,
//! message with placeholders, three hints, params, required and optional
//! context, a multi-line explanation), about 25 times the real one; `check`
//! accepts it, so what is timed is the check of a valid spec. Each benchmark
//! drives `lsp::server::Server` as the main loop does, without the pipes:
//!
//! - `diagnostics after a change`: `didChange` (one character typed in a
//!   title), the check the server asks for (`Job::run`: the compiler's
//!   `load_str` and the index of names), and `analyzed`, which publishes.
//! - `hover`, `completion (category value)`, `completion (keys of a
//!   code)`, `references (a field)`: one request each, answered from the
//!   analysis of the current version.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use splice_codegen::lsp::server::Server;
use splice_codegen::lsp::transport::{self, Frame};

const URI: &str = "file:///bench/errors.yaml";

/// splice's categories, fields, types and codes, then `n` synthetic codes
/// (numbered from 500 in each category, clear of splice's own). The code
/// groups and operations of errors.yaml are left out: with them, every
/// synthetic code would be a code no operation raises.
fn spec(n: usize) -> String {
    let real = include_str!("../../errors.yaml");
    let codes = real.find("\ncodes:\n").expect("a codes section") + 1;
    let end = ["\ncode_groups:\n", "\noperations:\n"]
        .iter()
        .filter_map(|section| real.find(section).map(|at| at + 1))
        .chain([codes])
        .min()
        .expect("a codes section");
    let mut s = String::from(&real[..end]);
    s.push_str(&real[codes..]);
    if !s.ends_with('\n') {
        s.push('\n');
    }
    let categories = [
        ("validation", 1000),
        ("domain", 2000),
        ("session", 3000),
        ("external", 4000),
        ("configuration", 5000),
        ("internal", 9000),
    ];
    for i in 0..n {
        let (cat, base) = categories[i % categories.len()];
        let number = base + 500 + i / categories.len();
        let _ = write!(
            s,
            "  SYNTHETIC_CODE_{i}:\n    number: {number}\n    category: {cat}\n    since: 1.0.0\n    \
             title: the synthetic failure number {i}\n    \
             message: \"edit {{edit_index}} of {{file_path}} failed: {{detail}}\"\n    \
             params:\n      detail: {{ type: string, description: What failed. }}\n    \
             recovery_hints:\n      - Re-read {{file_path}} before retrying\n      \
             - \"Check edit {{edit_index}}\"\n      - Retry the call once the cause is fixed\n    \
             context:\n      required: [file_path, edit_index]\n      optional: [file_index]\n    \
             explanation: |\n      The synthetic failure {i} happened.\n\n      \
             How to fix: do something else.\n"
        );
    }
    s
}

fn send(server: &mut Server, message: Value) {
    match transport::parse(message.to_string().as_bytes()) {
        Frame::Message(m) => server.handle(m),
        Frame::Malformed(why) => panic!("{why}"),
    }
}

fn settle(server: &mut Server) -> usize {
    for job in server.take_jobs() {
        let analysis = job.run();
        server.analyzed(&job.uri, analysis);
    }
    server.take_output().len()
}

/// The (line, UTF-16 column) of `needle`'s `nth` occurrence, plus `delta`.
fn position(text: &str, needle: &str, delta: usize) -> Value {
    let at = text.find(needle).expect("needle") + delta;
    let line = text[..at].matches('\n').count();
    let col: usize = text[text[..at].rfind('\n').map_or(0, |i| i + 1)..at]
        .chars()
        .map(char::len_utf16)
        .sum();
    json!({"line": line, "character": col})
}

fn bench(c: &mut Criterion) {
    let text = spec(1_000);
    // What is measured is the check of a valid spec: one that `check`
    // refuses would time the rendering of its errors instead.
    if let Err(refused) = splice_codegen::load_str(&text, "errors.yaml") {
        panic!("the synthetic spec is refused:\n{}", refused.render());
    }
    let mut server = Server::new();
    send(
        &mut server,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}}),
    );
    send(
        &mut server,
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": URI, "languageId": "yaml", "version": 1, "text": text}}}),
    );
    settle(&mut server);

    let mut group = c.benchmark_group("lsp (1,000 codes)");
    let title = position(&text, "title: the synthetic failure number 500\n", 7);
    let mut version = 1;
    group.bench_function("diagnostics after a change", |b| {
        b.iter(|| {
            version += 1;
            send(
                &mut server,
                json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": URI, "version": version},
                    "contentChanges": [{"range": {"start": title, "end": title}, "text": "x"}]}}),
            );
            black_box(settle(&mut server))
        })
    });
    // The text now has the typed characters; positions after them on the
    // same line are unaffected, and the requests below are elsewhere.
    let request = |id: i64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let doc = json!({"uri": URI});
    let at_code = position(&text, "  SYNTHETIC_CODE_900:", 4);
    group.bench_function("hover", |b| {
        b.iter(|| {
            send(
                &mut server,
                request(
                    1,
                    "textDocument/hover",
                    json!({"textDocument": doc, "position": at_code}),
                ),
            );
            black_box(server.take_output())
        })
    });
    let at_category = position(&text, "    category: internal\n", 15);
    group.bench_function("completion (category value)", |b| {
        b.iter(|| {
            send(
                &mut server,
                request(
                    2,
                    "textDocument/completion",
                    json!({"textDocument": doc, "position": at_category}),
                ),
            );
            black_box(server.take_output())
        })
    });
    let at_key = position(
        &text,
        "    since: 1.0.0\n    title: the synthetic failure number 950\n",
        4,
    );
    group.bench_function("completion (keys of a code)", |b| {
        b.iter(|| {
            send(
                &mut server,
                request(
                    3,
                    "textDocument/completion",
                    json!({"textDocument": doc, "position": at_key}),
                ),
            );
            black_box(server.take_output())
        })
    });
    let at_field = position(&text, "required: [file_path", 11);
    group.bench_function("references (a field)", |b| {
        b.iter(|| {
            send(
                &mut server,
                request(
                    4,
                    "textDocument/references",
                    json!({"textDocument": doc, "position": at_field, "context": {"includeDeclaration": true}}),
                ),
            );
            black_box(server.take_output())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
