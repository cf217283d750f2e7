//! The Rust types `build.rs` expands from generated specs read each
//! payload as the generator meant it: `AnyErrorEnvelope` says whether its
//! code is listed, `ErrorCode::from` gives the code's wire name (an alias
//! reads as the code), and the `ErrorEnvelope` written back is the payload
//! (with an alias spelled as the code's wire name), and an unlisted code of
//! a family has that family's `ErrorFamily`. `build.rs` says which
//! seeds; tests/artifacts.rs holds the other artifacts to the same answers.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A payload as `build.rs` writes it.
pub struct Payload {
    label: &'static str,
    value: &'static str,
    /// The wire name of the listed code it is; `None`: unlisted.
    code: Option<&'static str>,
    back: &'static str,
    /// The family of an unlisted code: name, category, retryable, cause.
    family: Option<Family>,
    /// Neither `AnyErrorEnvelope` nor `ErrorEnvelope` accepts it.
    refused: bool,
}

/// What `ErrorFamily` says of an unlisted code's family: its name, its
/// category, `retryable` and cause.
type Family = (&'static str, &'static str, bool, &'static str);

fn check<E, A>(
    payloads: &[Payload],
    code_of: fn(&E) -> &'static str,
    listed: fn(&A) -> Option<&E>,
    family: fn(&A) -> Option<Family>,
    failures: &mut Vec<String>,
) where
    E: DeserializeOwned + Serialize,
    A: DeserializeOwned,
{
    for p in payloads {
        if p.refused {
            if serde_json::from_str::<A>(p.value).is_ok()
                || serde_json::from_str::<E>(p.value).is_ok()
            {
                failures.push(format!(
                    "{}: the Rust types accept it\n  payload: {}",
                    p.label, p.value
                ));
            }
            continue;
        }
        let any: A = match serde_json::from_str(p.value) {
            Ok(any) => any,
            Err(e) => {
                failures.push(format!(
                    "{}: AnyErrorEnvelope refuses it: {e}\n  payload: {}",
                    p.label, p.value
                ));
                continue;
            }
        };
        if family(&any) != p.family {
            failures.push(format!(
                "{}: ErrorFamily says {:?}, not {:?}\n  payload: {}",
                p.label,
                family(&any),
                p.family,
                p.value
            ));
        }
        match (listed(&any), p.code) {
            (Some(env), Some(code)) => {
                if code_of(env) != code {
                    failures.push(format!("{}: read as {}, not {code}", p.label, code_of(env)));
                }
                let back: Value = serde_json::to_value(env).expect("an envelope serializes");
                let want: Value = serde_json::from_str(p.back).expect("JSON");
                if back != want {
                    failures.push(format!("{}: written back as {back}\n  not {want}", p.label));
                }
                if let Err(e) = serde_json::from_str::<E>(p.value) {
                    failures.push(format!("{}: ErrorEnvelope refuses it: {e}", p.label));
                }
            }
            (None, None) => {
                if serde_json::from_str::<E>(p.value).is_ok() {
                    failures.push(format!(
                        "{}: ErrorEnvelope accepts an unlisted code",
                        p.label
                    ));
                }
            }
            (Some(env), None) => {
                failures.push(format!("{}: read as listed {}", p.label, code_of(env)))
            }
            (None, Some(code)) => {
                failures.push(format!("{}: read as unlisted, not {code}", p.label))
            }
        }
    }
}

/// A response around a list of payloads, as `build.rs` writes it.
pub struct Response {
    label: &'static str,
    value: &'static str,
    /// The wire name of each entry's listed code, in order; `None`:
    /// unlisted.
    codes: &'static [Option<&'static str>],
    back: &'static str,
    /// `ErrorResponse` refuses it.
    refused: bool,
}

/// `ErrorResponse` reads each response's entries as the same codes in the
/// same order, writes it back unchanged, and refuses the refused ones.
fn check_responses<R>(
    responses: &[Response],
    codes: fn(&R) -> Vec<Option<&'static str>>,
    failures: &mut Vec<String>,
) where
    R: DeserializeOwned + Serialize,
{
    for r in responses {
        match (serde_json::from_str::<R>(r.value), r.refused) {
            (Ok(_), true) => failures.push(format!(
                "{}: ErrorResponse accepts it\n  response: {}",
                r.label, r.value
            )),
            (Err(_), true) => {}
            (Err(e), false) => failures.push(format!(
                "{}: ErrorResponse refuses it: {e}\n  response: {}",
                r.label, r.value
            )),
            (Ok(response), false) => {
                if codes(&response) != r.codes {
                    failures.push(format!(
                        "{}: read as {:?}, not {:?}",
                        r.label,
                        codes(&response),
                        r.codes
                    ));
                }
                let back: Value = serde_json::to_value(&response).expect("a response serializes");
                let want: Value = serde_json::from_str(r.back).expect("JSON");
                if back != want {
                    failures.push(format!("{}: written back as {back}\n  not {want}", r.label));
                }
            }
        }
    }
}

/// One spec's check: its disagreements.
type Check = fn(&mut Vec<String>);

include!(concat!(env!("OUT_DIR"), "/agree.rs"));

#[test]
fn the_rust_types_read_every_payload_as_the_generator_meant() {
    assert!(!MODULES.is_empty(), "build.rs expands at least one spec");
    let mut failures = Vec::new();
    for (seed, yaml, check) in MODULES {
        let mut own = Vec::new();
        check(&mut own);
        for f in own {
            failures.push(format!("seed {seed}: {f}\n{yaml}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
