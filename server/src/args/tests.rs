//! The decoder against the rules: every problem reported at once with its
//! path and code, the limits, the defaults; and the params structs against
//! the decoder.

use serde_json::{Value, json};

use super::*;
use crate::config::Limits;
use crate::taxonomy::{ErrorCode, Violation};

fn limits() -> Limits {
    Limits::default()
}

fn codes(v: &[Violation]) -> Vec<(String, ErrorCode)> {
    v.iter().map(|v| (v.path.clone(), v.code)).collect()
}

#[test]
fn valid_call_decodes_with_defaults() {
    let r = decode_multi_edit(
        &json!({"file_path": "/a/b.txt", "edits": [{"old_string": "x", "new_string": "y"}]}),
        &limits(),
    )
    .unwrap();
    assert!(r.backup && !r.dry_run && !r.include_content);
    assert_eq!(r.files[0].edits[0].old_string, "x");
    assert!(!r.files[0].edits[0].replace_all);
}

#[test]
fn every_problem_is_reported_with_its_path() {
    let v = decode_multi_edit(
        &json!({
            "file_path": "rel/path",
            "dry_run": "yes",
            "edit": [],
            "edits": [
                {"old_string": "", "new_string": "a"},
                {"old_string": 3, "new_string": "b"},
                {"new_string": "c"},
                {"old_string": "d", "new_string": "e", "replace_al": true},
            ],
        }),
        &limits(),
    )
    .unwrap_err();
    let got = codes(&v);
    for want in [
        ("edit", ErrorCode::InvalidArgument),
        ("dry_run", ErrorCode::InvalidArgument),
        ("file_path", ErrorCode::RelativePath),
        ("edits[0].old_string", ErrorCode::EmptyOldString),
        ("edits[1].old_string", ErrorCode::InvalidArgument),
        ("edits[2].old_string", ErrorCode::InvalidArgument),
        ("edits[3].replace_al", ErrorCode::InvalidArgument),
    ] {
        assert!(
            got.contains(&(want.0.to_string(), want.1)),
            "missing {want:?} in {got:?}"
        );
    }
    let unknown = v.iter().find(|v| v.path == "edits[3].replace_al").unwrap();
    assert!(
        unknown.message.contains("did you mean `replace_all`"),
        "{}",
        unknown.message
    );
}

#[test]
fn traversal_empty_edits_duplicates_and_hash() {
    let v = decode_multi_edit(
        &json!({"file_path": "/a/../etc/passwd", "edits": [], "expected_sha256": "xyz"}),
        &limits(),
    )
    .unwrap_err();
    let got = codes(&v);
    assert!(got.contains(&("file_path".into(), ErrorCode::PathTraversal)));
    assert!(got.contains(&("edits".into(), ErrorCode::EmptyEdits)));
    assert!(got.contains(&("expected_sha256".into(), ErrorCode::InvalidSha256)));

    let v = decode_multi_edit(
        &json!({"file_path": "/a", "edits": [
            {"old_string": "x", "new_string": "1"},
            {"old_string": "x", "new_string": "2"}]}),
        &limits(),
    )
    .unwrap_err();
    assert_eq!(
        codes(&v),
        vec![("edits[1].old_string".into(), ErrorCode::DuplicateOldString)]
    );
}

#[test]
fn multi_file_paths_and_duplicates() {
    let v = decode_multi_edit_files(
        &json!({"files": [
            {"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]},
            {"file_path": "/a", "edits": [{"old_string": "z", "new_string": "y"}]},
            {"file_path": "b", "edits": []},
        ]}),
        &limits(),
    )
    .unwrap_err();
    let got = codes(&v);
    assert!(got.contains(&("files[2].file_path".into(), ErrorCode::RelativePath)));
    assert!(got.contains(&("files[2].edits".into(), ErrorCode::EmptyEdits)));
    let v = decode_multi_edit_files(&json!({"files": []}), &limits()).unwrap_err();
    assert_eq!(codes(&v), vec![("files".into(), ErrorCode::EmptyFiles)]);
    let v = decode_multi_edit_files(
        &json!({"files": [
            {"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]},
            {"file_path": "/a", "edits": [{"old_string": "z", "new_string": "y"}]}]}),
        &limits(),
    )
    .unwrap_err();
    assert_eq!(
        codes(&v),
        vec![("files[1].file_path".into(), ErrorCode::DuplicateFilePath)]
    );
}

#[test]
fn limits_are_enforced() {
    let lim = Limits {
        max_edits: 2,
        max_files: 1,
        ..Limits::default()
    };
    let e = json!({"old_string": "x", "new_string": "y"});
    let e2 = json!({"old_string": "z", "new_string": "y"});
    let e3 = json!({"old_string": "w", "new_string": "y"});
    let v = decode_multi_edit(&json!({"file_path": "/a", "edits": [e, e2, e3]}), &lim).unwrap_err();
    assert_eq!(codes(&v), vec![("edits".into(), ErrorCode::TooManyEdits)]);
    let f = json!({"file_path": "/a", "edits": [{"old_string": "x", "new_string": "y"}]});
    let v = decode_multi_edit_files(&json!({"files": [f.clone(), f]}), &lim).unwrap_err();
    assert_eq!(codes(&v), vec![("files".into(), ErrorCode::TooManyFiles)]);
}

/// A path over `max_path_bytes`, or with a component over
/// `max_name_bytes`, is an `INVALID_PATH` violation carrying the breached
/// limit as data; a path at both limits passes.
#[test]
fn path_length_limits_are_data() {
    let lim = Limits {
        max_path_bytes: 12,
        max_name_bytes: 4,
        ..Limits::default()
    };
    let edits = json!([{"old_string": "x", "new_string": "y"}]);
    let limit_of = |file_path: &str| {
        let v =
            decode_multi_edit(&json!({"file_path": file_path, "edits": edits}), &lim).unwrap_err();
        assert_eq!(
            codes(&v),
            vec![("file_path".into(), ErrorCode::InvalidPath)],
            "{file_path}"
        );
        let l = v[0].limit.clone().expect("the limit is data");
        (l.name, l.max, l.actual)
    };
    assert_eq!(
        limit_of("/abcd/efgh/ij/k"),
        ("max_path_bytes".into(), 12, Some(15))
    );
    assert_eq!(limit_of("/abcde/f"), ("max_name_bytes".into(), 4, Some(5)));
    assert!(decode_multi_edit(&json!({"file_path": "/abcd/efgh/i", "edits": edits}), &lim).is_ok());
}

#[test]
fn non_object_arguments() {
    let v = decode_multi_edit(&json!([1, 2]), &limits()).unwrap_err();
    assert_eq!(codes(&v), vec![("".into(), ErrorCode::InvalidArgument)]);
}

/// Item 10 of issue 15: an EMPTY_OLD_STRING no longer hides a
/// DUPLICATE_OLD_STRING or a DUPLICATE_FILE_PATH in the same call.
#[test]
fn every_problem_at_once_across_edits_and_files() {
    let v = decode_multi_edit(
        &json!({"file_path": "/a", "edits": [
            {"old_string": "", "new_string": "1"},
            {"old_string": "x", "new_string": "2"},
            {"old_string": "x", "new_string": "3"},
            {"old_string": "x"}]}),
        &limits(),
    )
    .unwrap_err();
    let got = codes(&v);
    for want in [
        ("edits[0].old_string", ErrorCode::EmptyOldString),
        ("edits[2].old_string", ErrorCode::DuplicateOldString),
        ("edits[3].old_string", ErrorCode::DuplicateOldString),
        ("edits[3].new_string", ErrorCode::InvalidArgument),
    ] {
        assert!(
            got.contains(&(want.0.into(), want.1)),
            "{want:?} in {got:?}"
        );
    }
    let v = decode_multi_edit_files(
        &json!({"files": [
            {"file_path": "/a", "edits": [{"old_string": "", "new_string": "y"}]},
            {"file_path": "/a", "edits": [{"old_string": "z", "new_string": "y"}]},
            {"file_path": "/b", "edits": []},
            {"file_path": "/b", "edits": [{"old_string": "z", "new_string": "y"}]}]}),
        &limits(),
    )
    .unwrap_err();
    let got = codes(&v);
    for want in [
        ("files[0].edits[0].old_string", ErrorCode::EmptyOldString),
        ("files[1].file_path", ErrorCode::DuplicateFilePath),
        ("files[2].edits", ErrorCode::EmptyEdits),
        ("files[3].file_path", ErrorCode::DuplicateFilePath),
    ] {
        assert!(
            got.contains(&(want.0.into(), want.1)),
            "{want:?} in {got:?}"
        );
    }
}
/// The fields the decoder accepts are the params structs' own, in their
/// declared order (the order an "allowed:" message lists), and the same
/// members, in the same order, as each advertised input schema.
#[test]
fn the_accepted_fields_are_the_declared_ones_and_the_schemas() {
    fn props(schema: &serde_json::Map<String, Value>, pointer: &str) -> Vec<String> {
        let root = Value::Object(schema.clone());
        root.pointer(&format!("{pointer}/properties"))
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("no properties at {pointer}"))
            .keys()
            .cloned()
            .collect()
    }
    assert_eq!(
        fields::<MultiEditParams>(),
        [
            "file_path",
            "edits",
            "dry_run",
            "backup",
            "include_content",
            "expected_sha256"
        ]
    );
    assert_eq!(
        fields::<EditParams>(),
        ["old_string", "new_string", "replace_all"]
    );
    assert_eq!(
        fields::<MultiEditFilesParams>(),
        ["files", "dry_run", "backup", "include_content"]
    );
    assert_eq!(
        fields::<FileEditsParams>(),
        [
            "file_path",
            "op",
            "edits",
            "content",
            "move_to",
            "create_parents",
            "expected_sha256"
        ]
    );
    assert_eq!(fields::<UndoParams>(), ["transaction_id", "dry_run"]);
    assert_eq!(fields::<ListTransactionsParams>(), ["limit"]);
    assert!(fields::<String>().is_empty(), "not a struct");

    let me = crate::tool_schemas::input::<MultiEditParams>();
    let mf = crate::tool_schemas::input::<MultiEditFilesParams>();
    for (schema, pointer, declared) in [
        (&me, "", fields::<MultiEditParams>()),
        (&me, "/properties/edits/items", fields::<EditParams>()),
        (&mf, "", fields::<MultiEditFilesParams>()),
        (&mf, "/properties/files/items", fields::<FileEditsParams>()),
        (
            &mf,
            "/properties/files/items/properties/edits/items",
            fields::<EditParams>(),
        ),
        (
            &crate::tool_schemas::input::<UndoParams>(),
            "",
            fields::<UndoParams>(),
        ),
        (
            &crate::tool_schemas::input::<ListTransactionsParams>(),
            "",
            fields::<ListTransactionsParams>(),
        ),
    ] {
        assert_eq!(props(schema, pointer), declared, "at {pointer:?}");
    }
    let op = &mf["properties"]["files"]["items"]["properties"]["op"]["enum"];
    assert_eq!(op, &json!(OPS));
}

/// Every declared field is read by the decoder: given a value of no type
/// any argument has (an object), each is refused at its own path for what
/// it holds, not ignored and not as an unknown field. A field added to a
/// params struct and forgotten in the decoder fails here.
#[test]
fn the_decoder_reads_every_declared_field() {
    let edit = json!({"old_string": "x", "new_string": "y"});
    type Decode = fn(&Value) -> Result<(), Vec<Violation>>;
    let multi_edit: Decode = |v| decode_multi_edit(v, &limits()).map(drop);
    let multi_edit_files: Decode = |v| decode_multi_edit_files(v, &limits()).map(drop);
    let undo: Decode = |v| decode_undo(v).map(drop);
    let list: Decode = |v| decode_list_transactions(v).map(drop);
    // Each object kind: its fields, a valid call to put a field into, the
    // pointer of the object in that call, and the path prefix of its fields.
    let kinds: [(&[&str], Value, &str, &str, Decode); 6] = [
        (
            fields::<MultiEditParams>(),
            json!({"file_path": "/a", "edits": [edit]}),
            "",
            "",
            multi_edit,
        ),
        (
            fields::<EditParams>(),
            json!({"file_path": "/a", "edits": [edit]}),
            "/edits/0",
            "edits[0].",
            multi_edit,
        ),
        (
            fields::<MultiEditFilesParams>(),
            json!({"files": [{"file_path": "/a", "edits": [edit]}]}),
            "",
            "",
            multi_edit_files,
        ),
        (
            fields::<FileEditsParams>(),
            json!({"files": [{"file_path": "/a", "edits": [edit]}]}),
            "/files/0",
            "files[0].",
            multi_edit_files,
        ),
        (
            fields::<UndoParams>(),
            json!({"transaction_id": "019a2b3c4d5e-00001f2a-00000003"}),
            "",
            "",
            undo,
        ),
        (fields::<ListTransactionsParams>(), json!({}), "", "", list),
    ];
    for (declared, valid, pointer, prefix, decode) in kinds {
        assert!(decode(&valid).is_ok(), "{valid}");
        for field in declared {
            let mut call = valid.clone();
            call.pointer_mut(pointer)
                .and_then(Value::as_object_mut)
                .unwrap()
                .insert(field.to_string(), json!({"not": "an argument"}));
            let path = format!("{prefix}{field}");
            let Err(violations) = decode(&call) else {
                panic!("{path} was accepted and ignored: {call}");
            };
            let at: Vec<&Violation> = violations.iter().filter(|v| v.path == path).collect();
            assert!(!at.is_empty(), "{path} not read: {violations:?}");
            assert!(
                at.iter().all(|v| !v.message.starts_with("unknown field")),
                "{path}: {at:?}"
            );
        }
    }
}
