// A spec that declares its own wire shape (google.rpc.Status:
// `{"error": {"code", "message", "status", "details"}}`) keeps the builder's
// compile-time check: INTERNAL requires `details`, so its constructor takes
// them and an envelope without them cannot be built.

splice_macros::taxonomy!("../../../../codegen/tests/fixtures/envelopes/google_rpc.yaml");

fn main() {
    let _ = ErrorEnvelope::internal().build();
}
