//! Fuzzes tool-argument decoding (`splice_server::args`) and the
//! VALIDATION_FAILED envelope built from its violations.
//!
//! The first byte chooses the mode and the limits:
//! - bit 0 clear: the rest is parsed as JSON (inputs that do not parse are
//!   skipped), and handed to both decoders; this reaches every type error
//!   and unknown field;
//! - bit 0 set: the rest drives a generator of near-valid arguments (right
//!   keys with the odd typo, wrong type, null, bad path, bad hash, empty or
//!   duplicate `old_string`), which gets past the shape checks far more
//!   often than random JSON;
//! - bit 1 set: tight limits (3 edits, 2 files, 64-byte paths), so the
//!   limit checks are reached with small inputs.
//!
//! Checked on every input: no panic; the same call gives the same result
//! twice; an accepted call satisfies every documented rule (and the serde
//! structs that publish the schema accept it too), a refused one has at
//! least one violation, each with a validation code and a message, and its
//! envelope serializes and reads back unchanged.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value, json};
use splice_server::args::{self, EditRequest, MultiEditFilesParams, MultiEditParams};
use splice_server::config::Limits;
use splice_server::envelopes;
use splice_server::taxonomy::operation::MultiEditFiles;
use splice_server::taxonomy::{ErrorCode, ErrorEnvelope, Violation};

/// Runs one input; panics on any broken rule.
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let limits = if mode & 2 != 0 {
        Limits {
            max_edits: 3,
            max_files: 2,
            max_path_bytes: 64,
            max_name_bytes: 16,
            ..Limits::default()
        }
    } else {
        Limits::default()
    };
    let values = if mode & 1 == 0 {
        match serde_json::from_slice::<Value>(rest) {
            Ok(v) => vec![v],
            Err(_) => return,
        }
    } else {
        let mut u = Unstructured::new(rest);
        let (Ok(single), Ok(multi)) = (multi_edit(&mut u), multi_edit_files(&mut u)) else {
            return;
        };
        vec![single, multi]
    };
    for value in &values {
        let single = args::decode_multi_edit(value, &limits);
        assert_eq!(single, args::decode_multi_edit(value, &limits));
        check(value, &single, &limits, true);
        let multi = args::decode_multi_edit_files(value, &limits);
        assert_eq!(multi, args::decode_multi_edit_files(value, &limits));
        check(value, &multi, &limits, false);
        // `undo` and `list_transactions`: no panic, deterministic, and what
        // is accepted the published schema types accept (an id that is
        // accepted is one the store would parse, so never a path).
        let undo = args::decode_undo(value);
        assert_eq!(undo, args::decode_undo(value));
        match &undo {
            Ok(req) => {
                assert!(serde_json::from_value::<args::UndoParams>(value.clone()).is_ok());
                let id = req.transaction_id.as_str();
                assert!(!id.contains('/') && !id.contains('.'), "{id:?}");
            }
            Err(violations) => assert!(!violations.is_empty()),
        }
        match args::decode_list_transactions(value) {
            Ok(limit) => {
                assert!((1..=args::MAX_LIST_LIMIT).contains(&limit));
                assert!(
                    serde_json::from_value::<args::ListTransactionsParams>(value.clone()).is_ok()
                );
            }
            Err(violations) => assert!(!violations.is_empty()),
        }
    }
}

fn check(
    value: &Value,
    result: &std::result::Result<EditRequest, Vec<Violation>>,
    limits: &Limits,
    single: bool,
) {
    match result {
        Ok(req) => {
            // What the decoder accepts, the published schema types accept.
            if single {
                assert!(serde_json::from_value::<MultiEditParams>(value.clone()).is_ok());
                assert_eq!(req.files.len(), 1);
            } else {
                assert!(serde_json::from_value::<MultiEditFilesParams>(value.clone()).is_ok());
                assert!(!req.files.is_empty() && req.files.len() <= limits.max_files);
            }
            let map = value.as_object().expect("accepted arguments are an object");
            let flag =
                |key: &str, default: bool| map.get(key).and_then(Value::as_bool).unwrap_or(default);
            assert_eq!(req.dry_run, flag("dry_run", false));
            assert_eq!(req.backup, flag("backup", true));
            assert_eq!(req.include_content, flag("include_content", false));
            for (i, f) in req.files.iter().enumerate() {
                let p = &f.file_path;
                assert!(p.starts_with('/') && !p.contains('\0'), "{p:?}");
                assert!(p.len() <= limits.max_path_bytes);
                assert!(
                    p.split('/')
                        .all(|c| c != ".." && c.len() <= limits.max_name_bytes)
                );
                assert!(req.files[..i].iter().all(|g| g.file_path != *p));
                if let Some(h) = &f.expected_sha256 {
                    assert!(
                        h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                    );
                }
                assert!(!f.edits.is_empty() && f.edits.len() <= limits.max_edits);
                for (j, e) in f.edits.iter().enumerate() {
                    assert!(!e.old_string.is_empty());
                    assert!(f.edits[..j].iter().all(|d| d.old_string != e.old_string));
                }
            }
        }
        Err(violations) => {
            assert!(!violations.is_empty());
            for v in violations {
                assert!(!v.message.is_empty());
                assert!(
                    matches!(
                        v.code,
                        ErrorCode::InvalidArgument
                            | ErrorCode::EmptyEdits
                            | ErrorCode::TooManyEdits
                            | ErrorCode::EmptyOldString
                            | ErrorCode::DuplicateOldString
                            | ErrorCode::InvalidPath
                            | ErrorCode::RelativePath
                            | ErrorCode::PathTraversal
                            | ErrorCode::InvalidSha256
                            | ErrorCode::EmptyFiles
                            | ErrorCode::TooManyFiles
                            | ErrorCode::DuplicateFilePath
                    ),
                    "{v:?}"
                );
            }
            let envelope =
                envelopes::validation_failed::<MultiEditFiles>(violations.clone()).into_envelope();
            let json = serde_json::to_string(&envelope).expect("the envelope serializes");
            let back: ErrorEnvelope = serde_json::from_str(&json).expect("the envelope reads back");
            assert_eq!(back, envelope);
        }
    }
}

// ---------------------------------------------------------------------------
// Near-valid argument generator.

/// Sets `key` in `map` to a valid value most of the time, else leaves it out,
/// makes it null, or puts an arbitrary value of any type there.
fn field(
    u: &mut Unstructured<'_>,
    map: &mut Map<String, Value>,
    key: &str,
    valid: impl FnOnce(&mut Unstructured<'_>) -> Result<Value>,
) -> Result<()> {
    match u.int_in_range(0..=9u8)? {
        0 => {}
        1 => {
            map.insert(key.into(), Value::Null);
        }
        2 => {
            map.insert(key.into(), any_json(u, 2)?);
        }
        _ => {
            map.insert(key.into(), valid(u)?);
        }
    }
    Ok(())
}

/// Occasionally adds a misspelt or unknown key.
fn stray_key(u: &mut Unstructured<'_>, map: &mut Map<String, Value>) -> Result<()> {
    if u.ratio(1, 8)? {
        let key = match u.int_in_range(0..=4u8)? {
            0 => "old_strng".to_string(),
            1 => "replaceAll".to_string(),
            2 => "file_paths".to_string(),
            3 => "dryrun".to_string(),
            _ => u.arbitrary::<String>()?,
        };
        map.insert(key, any_json(u, 1)?);
    }
    Ok(())
}

fn any_json(u: &mut Unstructured<'_>, depth: u8) -> Result<Value> {
    let top = if depth == 0 { 4 } else { 6 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.arbitrary::<i64>()?),
        3 => json!(u.arbitrary::<f64>()?),
        4 => Value::String(u.arbitrary()?),
        5 => {
            let n = u.int_in_range(0..=3usize)?;
            Value::Array(
                (0..n)
                    .map(|_| any_json(u, depth - 1))
                    .collect::<Result<_>>()?,
            )
        }
        _ => {
            let mut m = Map::new();
            for _ in 0..u.int_in_range(0..=3usize)? {
                m.insert(u.arbitrary()?, any_json(u, depth - 1)?);
            }
            Value::Object(m)
        }
    })
}

/// Short strings from a tiny alphabet, so duplicates and empty ones are common.
fn text(u: &mut Unstructured<'_>) -> Result<String> {
    if u.ratio(1, 4)? {
        return u.arbitrary();
    }
    let n = u.int_in_range(0..=3usize)?;
    (0..n)
        .map(|_| Ok(*u.choose(&["a", "b", "\n", "é"])?))
        .collect::<Result<Vec<_>>>()
        .map(|v| v.concat())
}

fn path(u: &mut Unstructured<'_>) -> Result<Value> {
    let p = match u.int_in_range(0..=9u8)? {
        0 => String::new(),
        1 => "relative/file.rs".into(),
        2 => "/srv/../etc/passwd".into(),
        3 => "/srv/a\0b".into(),
        4 => format!("/srv/{}", "n".repeat(u.int_in_range(10..=300usize)?)),
        5 => "/".repeat(u.int_in_range(1..=80usize)?),
        6 => u.arbitrary()?,
        _ => format!("/srv/{}.rs", u.choose(&["a", "b", "c"])?),
    };
    Ok(Value::String(p))
}

fn sha(u: &mut Unstructured<'_>) -> Result<Value> {
    let h = "0123456789abcdefABCDEF0123456789abcdef0123456789abcdef0123456789";
    Ok(Value::String(match u.int_in_range(0..=4u8)? {
        0 => h[..u.int_in_range(0..=64usize)?].to_string(),
        1 => h.replace('A', "g"),
        2 => u.arbitrary()?,
        3 => h.to_lowercase(),
        _ => h.to_string(),
    }))
}

fn edit(u: &mut Unstructured<'_>) -> Result<Value> {
    if u.ratio(1, 16)? {
        return any_json(u, 1);
    }
    let mut m = Map::new();
    field(u, &mut m, "old_string", |u| text(u).map(Value::String))?;
    field(u, &mut m, "new_string", |u| text(u).map(Value::String))?;
    if u.arbitrary()? {
        field(u, &mut m, "replace_all", |u| {
            Ok(Value::Bool(u.arbitrary()?))
        })?;
    }
    stray_key(u, &mut m)?;
    Ok(Value::Object(m))
}

fn edits(u: &mut Unstructured<'_>) -> Result<Value> {
    let n = u.int_in_range(0..=5usize)?;
    Ok(Value::Array(
        (0..n).map(|_| edit(u)).collect::<Result<_>>()?,
    ))
}

fn flags(u: &mut Unstructured<'_>, m: &mut Map<String, Value>) -> Result<()> {
    for key in ["dry_run", "backup", "include_content"] {
        if u.arbitrary()? {
            field(u, m, key, |u| Ok(Value::Bool(u.arbitrary()?)))?;
        }
    }
    Ok(())
}

fn file(u: &mut Unstructured<'_>, m: &mut Map<String, Value>) -> Result<()> {
    field(u, m, "file_path", path)?;
    field(u, m, "edits", edits)?;
    if u.arbitrary()? {
        field(u, m, "expected_sha256", sha)?;
    }
    Ok(())
}

fn multi_edit(u: &mut Unstructured<'_>) -> Result<Value> {
    let mut m = Map::new();
    file(u, &mut m)?;
    flags(u, &mut m)?;
    stray_key(u, &mut m)?;
    Ok(Value::Object(m))
}

fn multi_edit_files(u: &mut Unstructured<'_>) -> Result<Value> {
    let mut m = Map::new();
    field(u, &mut m, "files", |u| {
        let n = u.int_in_range(0..=4usize)?;
        let files = (0..n)
            .map(|_| {
                if u.ratio(1, 16)? {
                    return any_json(u, 1);
                }
                let mut f = Map::new();
                file(u, &mut f)?;
                stray_key(u, &mut f)?;
                Ok(Value::Object(f))
            })
            .collect::<Result<_>>()?;
        Ok(Value::Array(files))
    })?;
    flags(u, &mut m)?;
    stray_key(u, &mut m)?;
    Ok(Value::Object(m))
}
