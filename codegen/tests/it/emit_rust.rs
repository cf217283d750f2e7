//! Snapshot of the Rust emitter on a small hand-built spec.
//!
//! The snapshot is the generated API as a reviewer reads it: a change to the
//! emitter shows up here as a diff of the code every server build compiles.
//! That the output compiles and behaves is tested in `tests/` (trybuild and
//! `taxonomy.rs`).

use splice_codegen::emit_rust;
use splice_codegen::spec::{
    Category, Cause, Code, Lifecycle, Loc, Param, ParamType, Spanned, Spec, Taxonomy,
};

fn s<T>(value: T) -> Spanned<T> {
    Spanned::new(value, Loc::default())
}

fn version(v: &str) -> Spanned<semver::Version> {
    s(semver::Version::parse(v).unwrap())
}

fn code(name: &str, number: i64, category: &str, retryable: bool, cause: Cause) -> Code {
    Code {
        name: s(name.to_owned()),
        number: Some(s(number)),
        category: s(category.to_owned()),
        retryable_override: None,
        cause_override: None,
        retryable,
        cause,
        title: s(format!("title of {name}")),
        explanation: s(format!("Explanation of {name}.\n\n```\nnot rust\n```\n")),
        message: s("something failed".to_owned()),
        params: Vec::new(),
        recovery_hints: vec![s("Try again".to_owned())],
        hint_conditions: vec![None],
        required_context: Vec::new(),
        optional_context: Vec::new(),
        since: version("1.0.0"),
        lifecycle: Lifecycle::Active,
        sent_as: None,
        examples: Vec::new(),
        wire: None,
        aliases: Vec::new(),
        constants: Vec::new(),
        retry_classes: Vec::new(),
        attributes: Vec::new(),
    }
}

fn small_spec() -> Spec {
    // splice's declared fields and types, as written in its errors.yaml.
    let declarations = splice_codegen::load_path(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../errors.yaml"),
    )
    .unwrap_or_else(|d| panic!("errors.yaml does not load:\n{}", d.render()));
    let mut match_not_found = code("MATCH_NOT_FOUND", 2000, "domain", true, Cause::Input);
    match_not_found.message =
        s("edit {edit_index}: old_string was not found in {file_path} ({{literal}})".to_owned());
    match_not_found.params = vec![Param {
        name: s("needle_preview".to_owned()),
        ty: s(ParamType::String),
        description: s("The first characters of old_string.".to_owned()),
    }];
    match_not_found.recovery_hints = vec![
        s("Re-read {file_path} before retrying".to_owned()),
        s("Check that `{needle_preview}` matches the file byte for byte".to_owned()),
    ];
    // Deliberately out of canonical order: the constructor must follow the
    // order of the `fields:` declarations, not the code's list.
    let f = |name: &str| s(name.to_owned());
    match_not_found.required_context = vec![
        f("snippet"),
        f("file_path"),
        f("edit_status"),
        f("edit_index"),
    ];
    match_not_found.optional_context = vec![f("backup_path"), f("match_count")];

    let mut too_many = code("TOO_MANY_EDITS", 1001, "validation", false, Cause::Input);
    too_many.message = s("{count} edits exceed the limit".to_owned());
    too_many.params = vec![Param {
        name: s("count".to_owned()),
        ty: s(ParamType::Integer),
        description: s("How many edits were sent.".to_owned()),
    }];
    too_many.optional_context = vec![f("limit")];

    let mut old = code("OLD_MATCH_FAILURE", 2001, "domain", true, Cause::Input);
    old.lifecycle = Lifecycle::Deprecated {
        since: version("1.1.0"),
        replaced_by: s("MATCH_NOT_FOUND".to_owned()),
        note: Some(s("split into finer codes".to_owned())),
    };

    let mut gone = code("GONE", 2002, "domain", true, Cause::Input);
    gone.lifecycle = Lifecycle::Removed {
        since: version("1.2.0"),
        reason: s("merged into MATCH_NOT_FOUND".to_owned()),
    };

    Spec {
        taxonomy: Taxonomy {
            name: s("small".to_owned()),
            version: version("1.2.0"),
            base_uri: s("schema://small".to_owned()),
            description: None,
            numbered: None,
            range_block: None,
            unraised_codes: None,
            hints: None,
            code_names: None,
        },
        envelope: splice_codegen::envelope::Envelope::splice_default(),
        reserved: Vec::new(),
        retry: Default::default(),
        attributes: Vec::new(),
        groups: Vec::new(),
        operations: Vec::new(),
        families: Vec::new(),
        categories: vec![
            Category {
                key: s("validation".to_owned()),
                ranges: vec![s((1000, 1999))],
                description: s("The arguments are malformed.".to_owned()),
                retryable: s(false),
                cause: s(Cause::Input),
                retry_classes: Vec::new(),
            },
            Category {
                key: s("domain".to_owned()),
                ranges: vec![s((2000, 2999))],
                description: s("The edit does not apply to the file.".to_owned()),
                retryable: s(true),
                cause: s(Cause::Input),
                retry_classes: Vec::new(),
            },
        ],
        codes: vec![match_not_found, too_many, old, gone],
        fields: declarations.fields,
        types: declarations.types,
    }
}

#[test]
fn small_spec_snapshot() {
    insta::assert_snapshot!(emit_rust::emit_pretty(&small_spec()));
}

#[test]
fn removed_codes_have_no_variant_and_deprecated_ones_are_marked() {
    let out = emit_rust::emit_pretty(&small_spec());
    assert!(!out.contains("Gone"), "removed code leaked into the output");
    assert!(out.contains(
        "#[deprecated(\n        note = \"since taxonomy 1.1.0; use MATCH_NOT_FOUND (`ErrorCode::MatchNotFound`) instead (split into finer codes)\""
    ), "{out}");
}

#[test]
fn constructor_arguments_follow_canonical_order_then_params() {
    let out = emit_rust::emit_pretty(&small_spec());
    let start = out.find("pub fn match_not_found(").expect("constructor");
    let signature = &out[start..start + out[start..].find(')').unwrap()];
    let order: Vec<usize> = [
        "file_path",
        "edit_index",
        "edit_status",
        "snippet",
        "needle_preview",
    ]
    .iter()
    .map(|name| signature.find(&format!("{name}:")).expect(name))
    .collect();
    assert!(order.is_sorted(), "{signature}");
}

#[test]
fn output_is_one_parseable_file() {
    let tokens = emit_rust::emit(&small_spec());
    syn::parse2::<syn::File>(tokens).expect("emitted tokens parse as items");
}

/// A spec under `tests/fixtures/envelopes/`.
fn envelope_fixture(name: &str) -> Spec {
    splice_codegen::load_path(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/envelopes")
            .join(name),
    )
    .unwrap_or_else(|d| panic!("{name} does not load:\n{}", d.render()))
}

/// The types of a declared envelope (google.rpc.Status): its nested
/// object as a struct, the wire struct it deserializes through and the
/// check of required context. That they compile and round-trip real
/// payloads is tested in `tests/tests/it/envelopes.rs`.
#[test]
fn declared_envelope_snapshot() {
    let spec = envelope_fixture("google_rpc.yaml");
    insta::assert_snapshot!(emit_rust::emit_pretty(&spec));
}

/// A code whose wire name is the empty string (Kubernetes' `"reason":
/// ""`): its variant is named from the identifier, `Unknown`, renamed to
/// `""` for serde, and `""` in `as_str` and `FromStr`. That it reads and
/// writes payloads is tested in `tests/agree`.
#[test]
fn empty_wire_name_snapshot() {
    let spec = envelope_fixture("kubernetes.yaml");
    insta::assert_snapshot!(emit_rust::emit_pretty(&spec));
}

/// Code families: `ErrorFamily`, whose `of` tests the listed names first,
/// then each family's rule in file order, and `family()` on the unlisted
/// and any envelope. That it reads payloads as the schema, TypeScript and
/// Python do is tested in `tests/agree`.
#[test]
fn families_snapshot() {
    let spec = envelope_fixture("families.yaml");
    let rust = emit_rust::emit_pretty(&spec);
    let at = rust
        .find("/// A family of codes this release does not list")
        .expect("ErrorFamily");
    let end = at
        + rust[at..]
            .find("/// The operations")
            .expect("the operations module");
    insta::assert_snapshot!(&rust[at..end]);
}

/// An open type (`innererror`): no `deny_unknown_fields`, and a flattened
/// `other_members` map that keeps what the type does not list. That it
/// reads and writes back the guidelines' example is tested in
/// `tests/tests/it/envelopes.rs`.
#[test]
fn open_type_snapshot() {
    let spec = envelope_fixture("odata.yaml");
    let rust = emit_rust::emit_pretty(&spec);
    let open = rust
        .split("\n}\n")
        .find(|item| item.contains("pub struct InnerError {"))
        .expect("the struct InnerError");
    insta::assert_snapshot!(open);
}

#[test]
fn declared_envelopes_of_other_shapes_are_supported() {
    for name in [
        "google_rpc.yaml",
        "rfc9457_rs.yaml",
        "jsonrpc_rs.yaml",
        "graphql.yaml",
        "graphql_response.yaml",
    ] {
        let spec = envelope_fixture(name);
        syn::parse2::<syn::File>(emit_rust::emit(&spec)).expect(name);
    }
}

/// Every `splice-codegen init --shape` starter expands to Rust the emitter
/// stands behind (the real taxonomies of `examples/real-taxonomies` are
/// compiled and fed their owners' payloads in `tests/tests/it/envelopes.rs`).
#[test]
fn every_init_starter_has_rust_types() {
    for (shape, starter) in splice_codegen::init::Shape::ALL {
        let spec = splice_codegen::load_str(starter.starter(), "errors.yaml")
            .unwrap_or_else(|d| panic!("{shape}: {}", d.render()));
        syn::parse2::<syn::File>(emit_rust::emit(&spec)).expect(shape);
    }
}

/// An envelope some artifact could not follow is refused by `check`, with a
/// diagnostic at the member that causes it: every emitter generates what
/// `check` accepts.
#[test]
fn envelopes_an_artifact_cannot_follow_are_refused_by_check() {
    let base = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/envelopes/jsonrpc_rs.yaml"),
    )
    .unwrap();
    let envelope = "envelope:\n  code: { carries: number, doc: The JSON-RPC error code. }\n  \
                    message: { carries: message, doc: A short description of the error. }\n  \
                    data: { carries: context, doc: Additional information about the error. }\n";
    assert!(base.contains(envelope));
    let refusal = |replacement: &str| match splice_codegen::load_str(
        &base.replace(envelope, replacement),
        "t.yaml",
    ) {
        Ok(_) => String::from("accepted"),
        Err(d) => d
            .items
            .iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    assert_eq!(
        refusal(
            "envelope:\n  code: { carries: number, optional: true }\n  data: { carries: context }\n"
        ),
        "envelope member `code` carries `number` and is optional, with no `absent_means`"
    );
    assert_eq!(
        refusal(
            "envelope:\n  error:\n    optional: true\n    members:\n      code: { carries: number }\n      data: { carries: context }\n"
        ),
        "envelope member `error` holds the member carrying `number` and is optional, with no `absent_means`"
    );
    assert_eq!(
        refusal("envelope:\n  code: { carries: number }\n"),
        "field `uri` is declared `in: context` but no envelope member carries `context`\n\
         field `detail` is declared `in: context` but no envelope member carries `context`"
    );
    assert_eq!(
        refusal(
            "envelope:\n  code: { carries: number }\n  Message: { carries: message }\n  message: { carries: hints }\n  data: { carries: context }\n"
        ),
        "`message` and `Message` are both `message` in the Rust types"
    );
    // An optional object that does not hold the code is read by every
    // artifact, Rust included.
    assert_eq!(
        refusal(
            "envelope:\n  code: { carries: number }\n  meta:\n    optional: true\n    members:\n      message: { carries: message }\n  data: { carries: context }\n"
        ),
        "accepted"
    );
}
