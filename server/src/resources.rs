//! The published artifacts, served as MCP resources.
//!
//! The envelope JSON Schema and the error reference are generated from
//! `errors.yaml` and committed; they are compiled into the binary so a
//! client can always read the exact contract this server speaks
//! (`resources/list`, `resources/read`). The schema and its `$id` come from
//! the `taxonomy!` expansion, the same compilation of the spec as the
//! server's types (`generate --check` keeps the committed file equal to it).

/// The envelope schema (`schema/error-envelope.schema.json`).
pub use crate::taxonomy::ENVELOPE_SCHEMA;
/// URI of the envelope schema resource: its `$id`.
pub use crate::taxonomy::SCHEMA_ID as ENVELOPE_SCHEMA_URI;

/// `docs/errors.md` (through the symlink `server/errors.md`, which
/// `cargo package` ships as a file, like `server/errors.yaml`).
pub const ERROR_REFERENCE: &str = include_str!("../errors.md");

/// URI of the error reference resource.
pub const ERROR_REFERENCE_URI: &str = "docs://splice/errors.md";

/// One published resource.
pub struct Published {
    /// Its URI.
    pub uri: String,
    /// Short name.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// MIME type.
    pub mime_type: &'static str,
    /// Its text.
    pub text: &'static str,
}

/// Every published resource.
pub fn all() -> Vec<Published> {
    vec![
        Published {
            uri: ENVELOPE_SCHEMA_URI.to_string(),
            name: "error-envelope.schema.json",
            description: "JSON Schema (2020-12) of the error envelope every failed tool call returns",
            mime_type: "application/schema+json",
            text: ENVELOPE_SCHEMA,
        },
        Published {
            uri: ERROR_REFERENCE_URI.to_string(),
            name: "errors.md",
            description: "Reference of every error code: explanation, example, recovery hints",
            mime_type: "text/markdown",
            text: ERROR_REFERENCE,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema served is the one committed and published: both are
    /// compiled from the same `errors.yaml` by the same emitter.
    #[test]
    fn the_served_schema_is_the_published_file_and_names_its_id() {
        let published = include_str!("../../schema/error-envelope.schema.json");
        assert!(
            ENVELOPE_SCHEMA == published,
            "schema/error-envelope.schema.json is stale: run `cargo run -p splice-codegen -- generate`"
        );
        let schema: serde_json::Value = serde_json::from_str(ENVELOPE_SCHEMA).unwrap();
        assert_eq!(schema["$id"], ENVELOPE_SCHEMA_URI);
    }
}
