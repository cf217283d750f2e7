//! Every artifact of a generated spec reads every payload as the generator
//! meant it (see the crate docs): the emitters generate, the JSON Schema
//! accepts each payload as exactly its code's variant (or the unlisted one)
//! and refuses the corrupted copy, and the generated JavaScript and Python,
//! run under `node` and `python3`, say whether each is listed and give it
//! the same code.
//!
//! One `node` and one `python3` process read every spec's module, so the
//! run costs two process starts whatever the number of specs.
//! `SPLICE_AGREE_SEED` (first seed, default 0) and `SPLICE_AGREE_SPECS`
//! (default 40) choose the specs; `scripts/agree` runs more.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use splice_agree::generator::{Sample, sample};
use splice_codegen::{emit_markdown, emit_python, emit_rust, emit_schema, emit_ts};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
        })
        .unwrap_or(default)
}

/// `CI=true` (or `1`), as in `splice_tests::harness::in_ci`.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The `$defs` name of the schema variant of the code `id`.
fn variant_of(id: &str) -> String {
    let mut out = String::new();
    for word in id.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    out.push_str("Envelope");
    out
}

/// The `$defs` name of the schema variant of the family `name`.
fn family_variant_of(name: &str) -> String {
    variant_of(name).trim_end_matches("Envelope").to_owned() + "FamilyEnvelope"
}

/// One spec whose artifacts generated, with its JavaScript and Python.
struct Built {
    sample: Sample,
    js: String,
    py: String,
}

/// Every emitter on the spec of `sample`; the JSON Schema's verdict on
/// every payload.
fn build(sample: Sample, failures: &mut Vec<String>) -> Option<Built> {
    let seed = sample.seed;
    let spec = match splice_codegen::load_str(&sample.yaml, "errors.yaml") {
        Ok(spec) => spec,
        Err(d) => {
            failures.push(format!(
                "seed {seed}: check refuses the generated spec:\n{}\n{}",
                d.render(),
                sample.yaml
            ));
            return None;
        }
    };
    let emitted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let schema = emit_schema::emit(&spec);
        let _ = emit_schema::emit_strict(&spec);
        let _ = emit_schema::emit_output_shape(&spec);
        let _ = emit_ts::emit(&spec);
        let _ = emit_markdown::emit(&spec);
        let rust = syn::parse2::<syn::File>(emit_rust::emit(&spec)).map(|_| ());
        (
            schema,
            emit_ts::emit_js(&spec),
            emit_python::emit(&spec),
            rust,
        )
    }));
    let (schema, js, py) = match emitted {
        Ok((schema, js, py, Ok(()))) => (schema, js, py),
        Ok((.., Err(e))) => {
            failures.push(format!(
                "seed {seed}: the Rust does not parse: {e}\n{}",
                sample.yaml
            ));
            return None;
        }
        Err(_) => {
            failures.push(format!("seed {seed}: an emitter panics\n{}", sample.yaml));
            return None;
        }
    };
    schema_verdicts(&sample, &schema, failures);
    Some(Built { sample, js, py })
}

/// Each payload is exactly its variant, and its corrupted copy none; with
/// a list of errors, the payloads are entries (the variants are the list's
/// items) and each response is accepted, or refused, whole.
fn schema_verdicts(sample: &Sample, schema: &Value, failures: &mut Vec<String>) {
    let document = jsonschema::validator_for(schema).expect("the schema compiles");
    // The schema of one entry: the root's `oneOf`, or the list's items'.
    let entry = match &sample.list {
        None => schema.clone(),
        Some(list) => {
            let mut entry = schema.clone();
            let root = entry.as_object_mut().expect("an object");
            for key in ["properties", "required", "additionalProperties"] {
                root.remove(key);
            }
            root.insert(
                "oneOf".into(),
                schema["properties"][list]["items"]["oneOf"].clone(),
            );
            entry
        }
    };
    for r in &sample.responses {
        if document.is_valid(&r.value) == r.refused {
            let errors: Vec<String> = document
                .iter_errors(&r.value)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            failures.push(format!(
                "seed {}: {}: the schema {} it: {}\n  response: {}\n{}",
                sample.seed,
                r.label,
                if r.refused { "accepts" } else { "refuses" },
                errors.join("; "),
                r.value,
                sample.yaml
            ));
        }
    }
    let schema = &entry;
    let whole = jsonschema::validator_for(schema).expect("the schema compiles");
    let variants: Vec<(String, jsonschema::Validator)> = schema["oneOf"]
        .as_array()
        .expect("a oneOf of variants")
        .iter()
        .map(|r| {
            let r = r["$ref"].as_str().expect("a $ref");
            let mut one = schema.clone();
            one["oneOf"] = json!([{ "$ref": r }]);
            let name = r.trim_start_matches("#/$defs/").to_owned();
            (
                name,
                jsonschema::validator_for(&one).expect("the schema compiles"),
            )
        })
        .collect();
    for p in &sample.payloads {
        // A pattern only the schema checks: no variant takes the payload,
        // which the run times and the Rust types still read (see
        // `Payload::schema_refuses`).
        if p.refused || p.schema_refuses {
            let accepting: Vec<&str> = variants
                .iter()
                .filter(|(_, v)| v.is_valid(&p.value))
                .map(|(n, _)| n.as_str())
                .collect();
            if !accepting.is_empty() || whole.is_valid(&p.value) {
                failures.push(format!(
                    "seed {}: {}: accepted by {accepting:?}, which no variant should\n  payload: {}\n{}",
                    sample.seed, p.label, p.value, sample.yaml
                ));
            }
            continue;
        }
        let expected = match (&p.code, &p.family) {
            (Some((id, _)), _) => variant_of(id),
            (None, Some(f)) => family_variant_of(&f.name),
            (None, None) => "UnlistedCodeEnvelope".to_owned(),
        };
        let accepting: Vec<&str> = variants
            .iter()
            .filter(|(_, v)| v.is_valid(&p.value))
            .map(|(n, _)| n.as_str())
            .collect();
        if accepting != [expected.as_str()] || !whole.is_valid(&p.value) {
            // Why its own variant refuses it.
            let mut own = schema.clone();
            own.as_object_mut().expect("an object").remove("oneOf");
            own["$ref"] = json!(format!("#/$defs/{expected}"));
            let own = jsonschema::validator_for(&own).expect("the schema compiles");
            let errors: Vec<String> = own
                .iter_errors(&p.value)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            failures.push(format!(
                "seed {}: {}: the schema's variants accepting it are {accepting:?}, not [{expected}]: {}\n  payload: {}\n{}",
                sample.seed,
                p.label,
                errors.join("; "),
                p.value,
                sample.yaml
            ));
        }
        if let Some(corrupt) = &p.corrupt {
            let accepting: Vec<&str> = variants
                .iter()
                .filter(|(_, v)| v.is_valid(corrupt))
                .map(|(n, _)| n.as_str())
                .collect();
            if !accepting.is_empty() {
                failures.push(format!(
                    "seed {}: {}: the corrupted copy is accepted by {accepting:?}\n  corrupt: {corrupt}\n  payload: {}\n{}",
                    sample.seed, p.label, p.value, sample.yaml
                ));
            }
        }
    }
}

/// What a run time must say of each payload of `built`, in order:
/// `{"listed": bool, "code": wire name or null, "family": [name, category,
/// retryable, cause] or null}`.
/// Then, per spec with a list of errors, `{"codes": [wire name or null]}`
/// of each response it accepts (`codesOf`/`codes_of`).
fn expected(built: &[Built]) -> Vec<Value> {
    built
        .iter()
        .flat_map(|b| {
            let payloads = b.sample.payloads.iter().map(|p| {
                json!({
                    "listed": p.code.is_some(),
                    "code": p.code.as_ref().map(|c| &c.1),
                    "family": p.family.as_ref().map(|f| json!([f.name, f.category, f.retryable, f.cause])),
                })
            });
            let responses = accepted_responses(b).map(|r| json!({"codes": r.codes}));
            payloads.chain(responses)
        })
        .collect()
}

/// The responses of `b` every artifact accepts.
fn accepted_responses(
    b: &Built,
) -> impl Iterator<Item = &splice_agree::generator::ResponsePayload> {
    b.sample.responses.iter().filter(|r| !r.refused)
}

/// Runs `program` on `script` with `cases.json` of `dir`, and compares
/// its answers with the generator's.
fn run_time(program: &str, script: &Path, dir: &Path, built: &[Built], failures: &mut Vec<String>) {
    let out = match Command::new(program)
        .arg(script)
        .arg(dir.join("cases.json"))
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            let reason = format!("`{program}` does not run ({e}); .ci/run installs it");
            assert!(!in_ci(), "{reason}");
            eprintln!("skipped: {reason}");
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{program} {} fails:\n{stdout}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<Value> = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{program} answers no JSON list ({e}):\n{stdout}"));
    let want = expected(built);
    assert_eq!(got.len(), want.len(), "{program} answers every payload");
    let payloads = built.iter().flat_map(|b| {
        b.sample
            .payloads
            .iter()
            .map(move |p| (b, &p.label, &p.value))
            .chain(accepted_responses(b).map(move |r| (b, &r.label, &r.value)))
    });
    for ((got, want), (b, label, value)) in got.iter().zip(&want).zip(payloads) {
        if got != want {
            failures.push(format!(
                "seed {}: {label}: {program} reads {got}, not {want}\n  payload: {value}\n{}",
                b.sample.seed, b.sample.yaml
            ));
        }
    }
}

/// Writes each spec's module (`s<seed>.js`, `s<seed>.py`) and the cases.
fn write_modules(dir: &Path, built: &[Built]) {
    std::fs::write(dir.join("package.json"), "{\"type\": \"module\"}\n").unwrap();
    let mut cases = Vec::new();
    for b in built {
        let name = format!("s{}", b.sample.seed);
        let js = dir.join(format!("{name}.js"));
        let py = dir.join(format!("{name}.py"));
        std::fs::write(&js, &b.js).unwrap();
        std::fs::write(&py, &b.py).unwrap();
        cases.push(json!({
            "name": name,
            "js": js,
            "py": py,
            "payloads": b.sample.payloads.iter().map(|p| &p.value).collect::<Vec<_>>(),
            "responses": accepted_responses(b).map(|r| &r.value).collect::<Vec<_>>(),
        }));
    }
    std::fs::write(dir.join("cases.json"), Value::Array(cases).to_string()).unwrap();
}

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

#[test]
fn every_artifact_reads_every_payload_as_the_generator_meant() {
    let first = env_u64("SPLICE_AGREE_SEED", 0);
    let count = env_u64("SPLICE_AGREE_SPECS", 40);
    let mut failures = Vec::new();
    let built: Vec<Built> = (first..first + count)
        .filter_map(|seed| build(sample(seed), &mut failures))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    write_modules(dir.path(), &built);
    run_time(
        "node",
        &here().join("run.mjs"),
        dir.path(),
        &built,
        &mut failures,
    );
    run_time(
        "python3",
        &here().join("run.py"),
        dir.path(),
        &built,
        &mut failures,
    );
    // The fixed seeds reach every construct the generator has, the
    // GraphQL case (the code in an optional object, `absent_means`)
    // included: a generator that drifted away from one would prove nothing
    // of it.
    let constructs = [
        ("splice's own envelope", "\ncategories:", "envelope:"),
        (
            "an optional object on the code path",
            "    optional: true\n    doc: The object holding the code.",
            "",
        ),
        ("absent_means", "absent_means: ", "absent_means: {"),
        ("absent_means per category", "absent_means: {", ""),
        (
            "a code told by number only",
            "carries: number",
            "carries: code_name",
        ),
        ("a taxonomy without numbers", "  numbered: false\n", ""),
        ("a constant member", "carries: constant", ""),
        ("a field in: envelope", "in: envelope", ""),
        ("a field in: context", "in: context", ""),
        ("per-code constants", "    constants:", ""),
        ("an alias", "aliases:", ""),
        ("a code wire name", "    wire: \"urn:", ""),
        ("an empty code wire name", "    wire: \"\"\n", ""),
        ("an empty alias", "    aliases: [\"\"]", ""),
        ("an enum", "    enum:", ""),
        ("a recursive type", "doc: The same nested.", ""),
        ("a one_of with null", "\"null\"]", ""),
        ("a map", "map<string,", ""),
        ("a list", "[]\"", ""),
        ("a nullable member", "nullable: true", ""),
        ("a pattern", "\"string\", pattern: \"^[a-z]+$\"", ""),
        ("a format on a field", ", format: ", ""),
        ("a deprecated code", "    deprecated: { since: ", ""),
        ("a removed code", "    removed: { since: ", ""),
        ("a reserved number", "\nreserved:\n", ""),
        (
            "a pattern on the code name's member",
            "carries: code_name, pattern: ",
            "",
        ),
        (
            "a pattern on the category's member",
            "carries: category, pattern: ",
            "",
        ),
        (
            "a pattern on the message's member",
            "carries: message, pattern: ",
            "",
        ),
        (
            "a pattern on a string constant",
            "\", pattern: \"^[0-9]+\\\\.[0-9]+$\"",
            "",
        ),
        ("an open type", "    open: true\n", ""),
        ("optional hints", "  hints: optional\n", ""),
        (
            "codes unique within their category",
            "  code_names: per_category\n",
            "",
        ),
        ("a category's default context", "input\n    context:", ""),
        (
            "a category's default hints",
            "input\n    recovery_hints:",
            "",
        ),
        (
            "a code opting out of its category's hints",
            "    recovery_hints: []\n",
            "",
        ),
        (
            "a code opting out of its category's context",
            "    context: {}\n",
            "",
        ),
        ("a json field or member", "type: \"json\"", ""),
        ("a prefix family", "\n    prefix: ", ""),
        ("a suffix family", "\n    suffix: ", ""),
        ("two families", "\n  fam_b:\n", ""),
        ("a list of errors", "    list: true\n", ""),
        ("a typed response member", "  data: { type: json", ""),
        (
            "a constant beside the list",
            "  \"response_version\": { carries: constant",
            "",
        ),
    ];
    let mut missing = Vec::new();
    for (what, has, lacks) in constructs {
        let reached = built.iter().filter(|b| {
            b.sample.yaml.contains(has) && (lacks.is_empty() || !b.sample.yaml.contains(lacks))
        });
        if reached.count() == 0 {
            missing.push(what);
        }
    }
    // A listed name in a category that does not list it (unlisted).
    if !built.iter().any(|b| {
        b.sample
            .payloads
            .iter()
            .any(|p| p.label.starts_with("the listed name "))
    }) {
        missing.push("a listed name in a category that does not list it");
    }
    // An envelope without its code name of a category without a fallback.
    if !built
        .iter()
        .any(|b| b.sample.payloads.iter().any(|p| p.refused))
    {
        missing.push("an envelope without a code name whose category has no fallback");
    }
    let other = format!("\"{}\":", splice_agree::generator::OTHER_MEMBER);
    if !built.iter().any(|b| {
        b.sample
            .payloads
            .iter()
            .any(|p| p.value.to_string().contains(&other))
    }) {
        missing.push("a value with a member its open type does not list");
    }
    // A removed code's name, and a removed or reserved number, sent.
    for label in ["the removed code's name", "a reserved number"] {
        if !built.iter().any(|b| {
            b.sample
                .payloads
                .iter()
                .any(|p| p.label == label && p.refused)
        }) {
            missing.push(label);
        }
    }
    // A message outside its member's pattern (refused by the schema alone),
    // and a later code outside the pattern of its name's or category's
    // member.
    if !built
        .iter()
        .any(|b| b.sample.payloads.iter().any(|p| p.schema_refuses))
    {
        missing.push("a message outside its member's pattern");
    }
    if !built.iter().any(|b| {
        b.sample.yaml.contains("carries: code_name, pattern: ")
            && b.sample
                .payloads
                .iter()
                .any(|p| p.label == "a code of a later release" && p.corrupt.is_some())
    }) {
        missing.push("a later code's name outside its member's pattern");
    }
    // A `one_of` holding a list and one holding an object type, and values
    // of them that are not scalars.
    let one_of_with = |non_scalar: fn(&str) -> bool| {
        built.iter().any(|b| {
            b.sample
                .yaml
                .lines()
                .filter_map(|l| l.strip_prefix("    one_of: ["))
                .any(|items| items.trim_end_matches(']').split(", ").any(non_scalar))
        })
    };
    if !one_of_with(|t| t.ends_with("[]\"")) {
        missing.push("a one_of holding a list");
    }
    if !one_of_with(|t| t.starts_with('"') && t != "\"null\"" && !t.ends_with("[]\"")) {
        missing.push("a one_of holding an object type");
    }
    if !built.iter().any(|b| b.sample.one_of_non_scalars > 0) {
        missing.push("a value of a one_of that is a list or an object");
    }
    // A listed code inside a family's pattern (it wins), and an unlisted
    // code of no family beside families.
    let in_family = |b: &&Built| {
        b.sample
            .payloads
            .iter()
            .any(|p| p.code.is_some() && b.sample.families_matching(&p.code.as_ref().unwrap().1))
    };
    if !built.iter().any(|b| in_family(&b)) {
        missing.push("a listed code inside a family's pattern");
    }
    if !built.iter().any(|b| {
        b.sample
            .payloads
            .iter()
            .any(|p| p.label.contains("of range family") && p.family.is_some())
    }) {
        missing.push("a later code of a range family");
    }
    if !built.iter().any(|b| {
        b.sample.yaml.contains("\nfamilies:")
            && b.sample
                .payloads
                .iter()
                .any(|p| p.code.is_none() && p.family.is_none())
    }) {
        missing.push("an unlisted code of no family beside families");
    }
    if count >= 40 {
        assert!(
            missing.is_empty(),
            "no spec of seeds {first}..{} has {missing:?}",
            first + count
        );
    }
    // A response mixing listed and unlisted entries, and one refused for
    // an empty list.
    if !built.iter().any(|b| {
        accepted_responses(b)
            .any(|r| r.codes.iter().any(Option::is_some) && r.codes.iter().any(Option::is_none))
    }) {
        missing.push("a response of listed and unlisted errors");
    }
    if !built.iter().any(|b| {
        b.sample
            .responses
            .iter()
            .any(|r| r.refused && r.label == "an empty list")
    }) {
        missing.push("a response with an empty list");
    }
    let payloads: usize = built.iter().map(|b| b.sample.payloads.len()).sum();
    eprintln!(
        "{} specs from seed {first}: {} generated, {payloads} payloads",
        count,
        built.len()
    );
    assert!(
        failures.is_empty(),
        "{} disagreement(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
