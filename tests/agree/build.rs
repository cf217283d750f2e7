//! Expands the specs of fixed seeds into Rust (`$OUT_DIR/agree.rs`): one
//! module per spec `check` accepts, holding what `emit_rust::emit` writes for
//! it and its payloads, for `tests/rust.rs` to read through the generated
//! types. `SPLICE_AGREE_RUST_SEED` (default 0) and `SPLICE_AGREE_RUST_SPECS`
//! (default 6) choose the specs, and the first later seed with range
//! families, the first with codes unique within their category
//! (`code_names: per_category`), and, unless one of those has them, the
//! first with a non-scalar value of a `one_of`, the first with a message
//! outside its member's `pattern`, and the first sending a removed code's
//! name and a reserved number join them; each adds a few seconds of
//! compile time.

use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "src/generator.rs"]
#[allow(dead_code)]
mod generator;

fn env_u64(name: &str, default: u64) -> u64 {
    println!("cargo::rerun-if-env-changed={name}");
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    println!("cargo::rerun-if-changed=src/generator.rs");
    let first = env_u64("SPLICE_AGREE_RUST_SEED", 0);
    let count = env_u64("SPLICE_AGREE_RUST_SPECS", 6);
    let mut out = String::new();
    let mut modules = Vec::new();
    // The seeds, and the first later one whose spec has range families, so
    // the Rust reader of a family by number is always compiled and run.
    let ranged = (first + count..first + count + 200)
        .find(|s| !generator::sample(*s).family_ranges.is_empty());
    // Likewise the first spec whose codes are unique only within their
    // category, so the Rust reader of a (category, name) pair is too.
    let pairs = (first..first + count + 200)
        .find(|s| {
            generator::sample(*s)
                .yaml
                .contains("\n  code_names: per_category\n")
        })
        .filter(|s| *s >= first + count && Some(*s) != ranged);
    let mut seeds: Vec<u64> = (first..first + count).chain(ranged).chain(pairs).collect();
    // And, unless one of those has it, the first later spec whose payloads
    // hold a value of a `one_of` that is a list or an object, and the first
    // with a message outside its member's `pattern`, which the Rust types
    // read though the schema refuses it, and the first with a removed
    // code's name, and with a reserved number, sent (which they refuse).
    let wanted: [fn(&generator::Sample) -> bool; 4] = [
        |s| s.one_of_non_scalars > 0,
        |s| s.payloads.iter().any(|p| p.schema_refuses),
        |s| {
            s.payloads
                .iter()
                .any(|p| p.label == "the removed code's name")
        },
        |s| s.payloads.iter().any(|p| p.label == "a reserved number"),
    ];
    for want in wanted {
        if seeds.iter().any(|s| want(&generator::sample(*s))) {
            continue;
        }
        if let Some(s) = (first + count..first + count + 200).find(|s| want(&generator::sample(*s)))
        {
            seeds.push(s);
        }
    }
    for seed in seeds {
        let sample = generator::sample(seed);
        // A spec `check` refuses is reported by tests/artifacts.rs.
        let Ok(spec) = splice_codegen::load_str(&sample.yaml, "errors.yaml") else {
            continue;
        };
        let name = format!("s{seed}");
        let _ = writeln!(
            out,
            "#[allow(unused, deprecated, clippy::all, clippy::pedantic)]\npub mod {name} {{\n{}\n",
            splice_codegen::emit_rust::emit(&spec)
        );
        out.push_str("    pub const PAYLOADS: &[super::Payload] = &[\n");
        for p in &sample.payloads {
            let _ = writeln!(
                out,
                "        super::Payload {{ label: {:?}, value: {:?}, code: {:?}, back: {:?}, family: {:?}, refused: {:?} }},",
                p.label,
                p.value.to_string(),
                p.code.as_ref().map(|c| c.1.as_str()),
                p.back.to_string(),
                p.family.as_ref().map(|f| (
                    f.name.as_str(),
                    f.category.as_str(),
                    f.retryable,
                    f.cause.as_str()
                )),
                p.refused,
            );
        }
        out.push_str("    ];\n");
        // `ErrorResponse` exists when the spec has a list of errors.
        let responses = if sample.list.is_some() {
            out.push_str("    pub const RESPONSES: &[super::Response] = &[\n");
            for r in &sample.responses {
                let _ = writeln!(
                    out,
                    "        super::Response {{ label: {:?}, value: {:?}, codes: &{:?}, back: {:?}, refused: {:?} }},",
                    r.label,
                    r.value.to_string(),
                    r.codes,
                    r.back.to_string(),
                    r.refused,
                );
            }
            out.push_str("    ];\n");
            "        super::check_responses::<ErrorResponse>(\n            \
             RESPONSES,\n            \
             |r| r.errors().iter().map(|e| e.listed().map(|l| ErrorCode::from(l).as_str())).collect(),\n            \
             failures,\n        );\n"
        } else {
            ""
        };
        // `ErrorFamily` exists when the spec has families.
        let family = if spec.families.is_empty() {
            "|_| None"
        } else {
            "|a| a.family().map(|f| (f.as_str(), f.category().as_str(), f.retryable(), f.cause().as_str()))"
        };
        let _ = write!(
            out,
            "    pub fn check(failures: &mut ::std::vec::Vec<::std::string::String>) {{\n        \
             super::check::<ErrorEnvelope, AnyErrorEnvelope>(\n            \
             PAYLOADS,\n            \
             |e| ErrorCode::from(e).as_str(),\n            \
             |a| match a {{ AnyErrorEnvelope::Listed(e) => Some(e), AnyErrorEnvelope::Unlisted(_) => None }},\n            \
             {family},\n            \
             failures,\n        );\n{responses}    }}\n}}\n",
        );
        modules.push((seed, name, sample.yaml));
    }
    out.push_str("/// Every spec's module: its seed, its spec, its check.\npub const MODULES: &[(u64, &str, Check)] = &[\n");
    for (seed, name, yaml) in &modules {
        let _ = writeln!(out, "    ({seed}, {yaml:?}, {name}::check),");
    }
    out.push_str("];\n");
    let path =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("agree.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
