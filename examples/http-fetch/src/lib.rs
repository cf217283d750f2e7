//! The errors of an HTTP fetch tool, compiled from `../errors.yaml` by
//! `splice_macros::taxonomy!`: a taxonomy that shares nothing with splice's
//! (its own categories and numbering, fields such as `url`, `http_status`
//! and `retry_after_ms`, a support type and an enum), to show and test that
//! the compiler describes any server's errors from the spec alone.
//!
//! Its artifacts (`schema/`, `docs/errors.md`) are generated beside the spec
//! with `splice-codegen generate examples/http-fetch/errors.yaml
//! --out examples/http-fetch`; `tests/envelopes.rs` checks they are fresh
//! and that every envelope built here validates against its schema.

/// The generated types: `ErrorCode`, `ErrorEnvelope` with one constructor
/// per code, `Redirect`, `Scheme`, `ENVELOPE_SCHEMA`, ...
pub mod errors {
    splice_macros::taxonomy!("../errors.yaml");
}

use errors::{ErrorEnvelope, Redirect, Scheme};

/// What a fetch ended with, as a fetch tool would see it.
#[derive(Debug, Clone)]
pub enum Failure {
    /// The URL did not parse.
    BadUrl,
    /// A scheme other than http and https.
    Scheme,
    /// No connection.
    Unreachable,
    /// No complete answer in time.
    Timeout { after_ms: u64 },
    /// A 4xx or 5xx answer, after these redirects.
    Status {
        status: u16,
        retry_after_ms: Option<u64>,
        redirects: Vec<(String, u16)>,
    },
}

/// The envelope a fetch tool answers for `failure` of a fetch of `url`:
/// the typed constructors take each code's required fields, so a
/// `HTTP_ERROR` without its status does not compile.
pub fn envelope(url: &str, failure: Failure) -> ErrorEnvelope {
    match failure {
        Failure::BadUrl => ErrorEnvelope::invalid_url(url).build(),
        Failure::Scheme => {
            ErrorEnvelope::unsupported_scheme(url, vec![Scheme::Http, Scheme::Https]).build()
        }
        Failure::Unreachable => ErrorEnvelope::host_unreachable(url).build(),
        Failure::Timeout { after_ms } => ErrorEnvelope::timed_out(url, after_ms).build(),
        Failure::Status {
            status: 429,
            retry_after_ms,
            ..
        } => ErrorEnvelope::rate_limited(url)
            .maybe_retry_after_ms(retry_after_ms)
            .build(),
        Failure::Status {
            status, redirects, ..
        } => {
            let redirects: Vec<Redirect> = redirects
                .into_iter()
                .map(|(url, status)| Redirect {
                    url,
                    status: u64::from(status),
                })
                .collect();
            let builder = ErrorEnvelope::http_error(url, u64::from(status));
            if redirects.is_empty() {
                builder.build()
            } else {
                builder.redirects(redirects).build()
            }
        }
    }
}
