//! `diff` proven over generated spec pairs (issue #53): a spec of the
//! generator and its next release with one change ([`evolve`]: a code
//! added, removed, renamed, renumbered, moved, given a wire name or an
//! alias; an enum value added; a field a code carries added or dropped; a
//! per-code constant changed; a required member added to an object type),
//! and what `diff` says of the pair checked
//! against the released schema:
//!
//! - no breaking change: the old release's schema accepts every envelope
//!   of the new release (each code's documentation example, and the
//!   generator's own payloads of the new spec);
//! - a breaking change that says the released schema refuses or clients
//!   reject something: some envelope of the new release is refused by the
//!   old release's schema or its strict schema (the witness).
//!
//! `SPLICE_AGREE_SEED` (first seed, default 0) and `SPLICE_AGREE_SPECS`
//! (default 48) choose the pairs, as they choose the specs of the other
//! tests of this crate; `scripts/agree` runs more.

use serde_json::Value;
use splice_agree::generator::evolve;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
        })
        .unwrap_or(default)
}

#[test]
fn compatible_verdicts_hold_against_the_released_schema() {
    let first = env_u64("SPLICE_AGREE_SEED", 0);
    let count = env_u64("SPLICE_AGREE_SPECS", 48);
    let mut failures = Vec::new();
    let (mut compatible, mut breaking, mut witnessed) = (0, 0, 0);
    let mut unmatched_examples = 0;
    for seed in first..first + count {
        let e = evolve(seed);
        let load = |text: &str, which: &str| {
            splice_codegen::load_str(text, "errors.yaml").map_err(|d| {
                format!(
                    "seed {seed} ({}): check refuses the {which} spec:\n{}\n{text}",
                    e.change,
                    d.render()
                )
            })
        };
        let (old, new) = match (load(&e.old, "old"), load(&e.new, "new")) {
            (Ok(old), Ok(new)) => (old, new),
            (Err(f), _) | (_, Err(f)) => {
                failures.push(f);
                continue;
            }
        };
        let report = splice_codegen::diff::diff(&old, &new);
        let schema = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit(&old))
            .expect("the released schema compiles");
        // A documentation example its own release's schema refuses (a
        // field with a `pattern` and no `example:` gets a placeholder that
        // does not match) witnesses nothing about `diff`.
        let own = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit(&new))
            .expect("the new schema compiles");
        let envelopes: Vec<Value> = new
            .emitted_codes()
            .filter_map(|c| splice_codegen::emit_markdown::example_envelope(&new, c))
            .filter(|env| {
                let valid = own.is_valid(env);
                unmatched_examples += usize::from(!valid);
                valid
            })
            .chain(e.new_payloads.iter().cloned())
            .collect();
        let refused: Vec<(&Value, Vec<String>)> = envelopes
            .iter()
            .map(|env| {
                (
                    env,
                    schema.iter_errors(env).map(|e| e.to_string()).collect(),
                )
            })
            .filter(|(_, errors): &(&Value, Vec<String>)| !errors.is_empty())
            .collect();
        if !report.has_breaking() {
            compatible += 1;
            if let Some((env, errors)) = refused.first() {
                failures.push(format!(
                    "seed {seed} ({}): diff finds nothing breaking, but the released schema \
                     refuses an envelope of the new release: {errors:?}\n{env:#}\n{}\
                     the released spec:\n{}\nthe new one:\n{}",
                    e.change,
                    report.render("errors.yaml"),
                    e.old,
                    e.new
                ));
            }
            continue;
        }
        breaking += 1;
        let claims = report.changes.iter().any(|c| {
            c.compat == splice_codegen::diff::Compat::Breaking
                && (c.message.contains("refuses") || c.message.contains("reject"))
        });
        if claims {
            witnessed += 1;
            // Clients validate with the open schema or the strict one
            // (which refuses members and values it does not list).
            let strict =
                jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(&old))
                    .expect("the released strict schema compiles");
            if refused.is_empty() && envelopes.iter().all(|env| strict.is_valid(env)) {
                failures.push(format!(
                    "seed {seed} ({}): diff says the released schema refuses the new release, \
                     but it and the strict one accept each of its {} envelopes:\n{}\n{}",
                    e.change,
                    envelopes.len(),
                    report.render("errors.yaml"),
                    e.new
                ));
            }
        }
    }
    eprintln!(
        "{count} pairs from seed {first}: {compatible} compatible, {breaking} breaking \
         ({witnessed} saying the released schema refuses the new release); {unmatched_examples} \
         documentation examples left out as their own schema refuses them"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if count >= 48 {
        assert!(
            compatible >= 8 && breaking >= 8,
            "the changes drawn cover too little: {compatible} compatible, {breaking} breaking"
        );
    }
}
