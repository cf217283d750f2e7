// The second taxonomy of the repository (examples/http-fetch, an HTTP fetch
// tool) gets the same guarantee as splice's: HTTP_ERROR requires `url` and
// `http_status`, so an envelope without the status cannot be built.

splice_macros::taxonomy!("../../../../examples/http-fetch/errors.yaml");

fn main() {
    let _ = ErrorEnvelope::http_error("https://example.com/gone").build();
}
