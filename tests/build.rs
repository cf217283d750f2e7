//! Generates `$OUT_DIR/samples.rs` for `tests/it/taxonomy.rs`: one call of
//! every constructor of the real `errors.yaml`, once with only its required
//! arguments and once with every optional builder method too.
//!
//! Generated rather than written by hand so that a code added to the spec is
//! constructed, serialized and validated against the published schema by the
//! next `cargo test`, without anyone remembering to add a sample.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use splice_codegen::case::Case;
use splice_codegen::context::{FieldType, MemberDef};
use splice_codegen::spec::{Code, ParamType, Spec};

fn main() {
    let spec_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../errors.yaml");
    println!("cargo::rerun-if-changed={}", spec_path.display());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let source = match splice_codegen::load_path(&spec_path) {
        Ok(spec) => samples(&spec),
        Err(diagnostics) => {
            // `taxonomy!` in the test reports the problems with locations.
            println!(
                "cargo::warning=errors.yaml does not load ({} problem(s)); no samples generated",
                diagnostics.items.len()
            );
            "/// Empty: errors.yaml does not load.\npub fn samples() -> ::std::vec::Vec<Sample> { ::std::vec::Vec::new() }\n".to_owned()
        }
    };
    let path = out.join("samples.rs");
    if let Err(e) = std::fs::write(&path, source) {
        panic!("cannot write {}: {e}", path.display());
    }
}

fn samples(spec: &Spec) -> String {
    // A code to use wherever a member holds an `ErrorCode`; prefer one that
    // is not deprecated so the samples compile warning-free.
    let any_code = spec
        .emitted_codes()
        .find(|c| !c.is_deprecated())
        .or_else(|| spec.emitted_codes().next())
        .map(|c| upper_camel(&c.name.value))
        .unwrap_or_default();
    let mut out = String::from(
        "/// Every emitted code built with its required arguments (`minimal`) and\n\
         /// with every optional field set too (`full`).\n\
         #[allow(deprecated)]\n\
         pub fn samples() -> ::std::vec::Vec<Sample> {\n    ::std::vec![\n",
    );
    for code in spec.emitted_codes() {
        let call = constructor_call(spec, code, &any_code);
        let mut full = call.clone();
        for field in spec.optional_fields(code) {
            let value = sample_value(spec, field.ty(), field.name(), &any_code);
            write!(full, ".{}({value})", field.name()).unwrap();
        }
        writeln!(
            out,
            "        Sample {{ code: ErrorCode::{}, minimal: {call}.build(), full: {full}.build() }},",
            upper_camel(&code.name.value)
        )
        .unwrap();
    }
    out.push_str("    ]\n}\n");
    out
}

fn constructor_call(spec: &Spec, code: &Code, any_code: &str) -> String {
    let mut args = Vec::new();
    for field in spec.required_fields(code) {
        args.push(sample_value(spec, field.ty(), field.name(), any_code));
    }
    for param in &code.params {
        args.push(match param.ty.value {
            ParamType::String => format!("{:?}", format!("sample {}", param.name.value)),
            ParamType::Integer => "7".to_owned(),
        });
    }
    format!(
        "ErrorEnvelope::{}({})",
        code.name.value.to_ascii_lowercase(),
        args.join(", ")
    )
}

/// A Rust expression of type `ty`, filling every member of structs.
fn sample_value(spec: &Spec, ty: &FieldType, name: &str, any_code: &str) -> String {
    match ty {
        FieldType::String => format!("{:?}", format!("sample {name}")),
        FieldType::Integer | FieldType::Int32 | FieldType::Int64 => "3".to_owned(),
        FieldType::Float => "1.5".to_owned(),
        FieldType::Map(_) => "::std::collections::BTreeMap::new()".to_owned(),
        FieldType::Boolean => "true".to_owned(),
        FieldType::Json => "::serde_json::json!({\"sample\": [1, null]})".to_owned(),
        FieldType::Enum(ty) => {
            let first = spec
                .type_def(ty)
                .and_then(|d| d.values()?.first())
                .unwrap_or_else(|| panic!("the spec names unknown enum {ty}"));
            format!("{ty}::{}", upper_camel(&first.value))
        }
        FieldType::ErrorCode => format!("ErrorCode::{any_code}"),
        FieldType::Struct(ty) => struct_literal(spec, ty, any_code),
        FieldType::ArrayOf(item) => {
            // Items are stored values, so strings are `String`.
            let value = match **item {
                FieldType::String => format!(
                    "::std::string::String::from({:?})",
                    format!("sample {name}")
                ),
                _ => sample_value(spec, item, name, any_code),
            };
            format!("::std::vec![{value}]")
        }
    }
}

fn struct_literal(spec: &Spec, ty: &str, any_code: &str) -> String {
    let def = spec
        .type_def(ty)
        .unwrap_or_else(|| panic!("the spec names unknown type {ty}"));
    let mut members: Vec<String> = def
        .members()
        .iter()
        .map(|m: &MemberDef| {
            let name = &m.name.value;
            let value = match m.ty.value {
                // Struct members are `String`, not `impl Into<String>`.
                FieldType::String => format!(
                    "::std::string::String::from({:?})",
                    format!("sample {name}")
                ),
                _ => sample_value(spec, &m.ty.value, name, any_code),
            };
            if m.required {
                format!("{name}: {value}")
            } else {
                format!("{name}: ::core::option::Option::Some({value})")
            }
        })
        .collect();
    if def.open {
        members.push(format!(
            "{}: ::serde_json::Map::new()",
            splice_codegen::context::OTHER_MEMBERS
        ));
    }
    format!("{ty} {{ {} }}", members.join(", "))
}

/// `MATCH_NOT_FOUND` -> `MatchNotFound`, the Rust emitter's own conversion.
fn upper_camel(name: &str) -> String {
    Case::UpperCamel.convert(name)
}
