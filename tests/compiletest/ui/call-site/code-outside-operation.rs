// An error of an operation holds only a code the operation lists
// (`operations:` in the spec). NOT_FOUND is fetch's, not status': a
// handler of status that builds it does not compile, and the error names
// the operation, the code and the line of the spec to change.

splice_macros::taxonomy!("operations.yaml");

fn status() -> StatusError {
    ErrorEnvelope::not_found("item-1").into()
}

fn main() {
    let _ = status();
}
