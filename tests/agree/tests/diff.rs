//! `diff` proven over generated spec pairs (issue #53): a spec of the
//! generator and its next release with one change ([`evolve`]: a code
//! added, removed, renamed, renumbered, moved, given a wire name or an
//! alias; an enum value added; a field a code carries added or dropped; a
//! per-code constant changed; a required member added to an object type;
//! a code added with a negative number, spelled outside
//! `SCREAMING_SNAKE_CASE`, or spelled like a code the release had; a
//! variant added to a tagged union), and
//! what `diff` says of the pair checked against the released schema:
//!
//! - no breaking change: the old release's schema accepts every envelope
//!   of the new release (each code's documentation example, and the
//!   generator's own payloads of the new spec);
//! - a breaking change that says what refuses the new release: some
//!   envelope of the new release is the witness, refused by what the
//!   change names: the released (open) schema, its strict schema, or
//!   either one for "clients reject";
//! - every documentation example is valid under its own release's schema.
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
    let mut examples_checked = 0;
    let mut witnessed_by_kind = std::collections::BTreeMap::<String, usize>::new();
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
        // Every documentation example is valid under its own release's
        // schema (a string with a `pattern` gets an example matching it).
        let own = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit(&new))
            .expect("the new schema compiles");
        let examples: Vec<Value> = new
            .emitted_codes()
            .filter_map(|c| splice_codegen::emit_markdown::example_envelope(&new, c))
            .collect();
        for env in &examples {
            let errors: Vec<String> = own.iter_errors(env).map(|e| e.to_string()).collect();
            if !errors.is_empty() {
                failures.push(format!(
                    "seed {seed} ({}): a documentation example is refused by its own schema: \
                     {errors:?}\n{env:#}\n{}",
                    e.change, e.new
                ));
            }
        }
        examples_checked += examples.len();
        let envelopes: Vec<Value> = examples
            .into_iter()
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
        // What each breaking change says refuses the new release: the
        // released (open) schema, its strict schema, or clients in general
        // (either schema).
        let mut claims_open = false;
        let mut claims_strict = false;
        let mut claims_either = false;
        for c in &report.changes {
            if c.compat != splice_codegen::diff::Compat::Breaking {
                continue;
            }
            if c.message.contains("strict schema refuses") {
                claims_strict = true;
            } else if c.message.contains("released schema refuses") {
                claims_open = true;
            } else if c.message.contains("reject") {
                claims_either = true;
            }
        }
        if !(claims_open || claims_strict || claims_either) {
            continue;
        }
        witnessed += 1;
        *witnessed_by_kind.entry(kind(&e.change)).or_default() += 1;
        let strict = jsonschema::draft202012::new(&splice_codegen::emit_schema::emit_strict(&old))
            .expect("the released strict schema compiles");
        let strict_refuses = envelopes.iter().any(|env| !strict.is_valid(env));
        let open_refuses = !refused.is_empty();
        let unmet = [
            (claims_open && !open_refuses, "the released schema refuses"),
            (
                claims_strict && !strict_refuses,
                "the released strict schema refuses",
            ),
            (
                claims_either && !open_refuses && !strict_refuses,
                "clients of the released schema reject",
            ),
        ];
        for (unmet, claim) in unmet {
            if unmet {
                failures.push(format!(
                    "seed {seed} ({}): diff says {claim} the new release, but that schema \
                     accepts each of its {} envelopes:\n{}\n{}",
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
         ({witnessed} saying a released schema refuses the new release, by change: \
         {witnessed_by_kind:?}); {examples_checked} documentation examples valid under their own schema"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if count >= 48 {
        assert!(
            compatible >= 8 && breaking >= 8,
            "the changes drawn cover too little: {compatible} compatible, {breaking} breaking"
        );
        assert!(
            witnessed_by_kind.len() >= 2,
            "the witnessed claims come from too few kinds of change: {witnessed_by_kind:?}"
        );
    }
}

/// The kind of a change [`evolve`] describes: its text without the names
/// and numbers it draws (`code X added with the negative number -5` ->
/// `code added with the negative number`).
fn kind(change: &str) -> String {
    change
        .split_whitespace()
        .filter(|w| {
            !w.chars()
                .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase() || c == ':')
        })
        .collect::<Vec<_>>()
        .join(" ")
}
