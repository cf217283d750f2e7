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
/// The decoder and the published input schemas must accept the same fields.
#[test]
fn decoder_fields_match_the_schemas() {
    fn props(schema: &serde_json::Map<String, Value>, pointer: &str) -> Vec<String> {
        let root = Value::Object(schema.clone());
        let mut v: Vec<String> = root
            .pointer(&format!("{pointer}/properties"))
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("no properties at {pointer}"))
            .keys()
            .cloned()
            .collect();
        v.sort();
        v
    }
    fn sorted(f: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = f.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    }
    let edit = sorted(&["old_string", "new_string", "replace_all"]);
    let me = crate::tool_schemas::input::<MultiEditParams>();
    assert_eq!(props(&me, ""), sorted(decode::MULTI_EDIT_FIELDS));
    assert_eq!(props(&me, "/properties/edits/items"), edit);
    let mf = crate::tool_schemas::input::<MultiEditFilesParams>();
    assert_eq!(props(&mf, ""), sorted(decode::MULTI_EDIT_FILES_FIELDS));
    assert_eq!(
        props(&mf, "/properties/files/items"),
        sorted(decode::FILE_FIELDS)
    );
    assert_eq!(
        props(&mf, "/properties/files/items/properties/edits/items"),
        edit
    );
}
