# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors.
from error_envelope import ErrorEnvelope


def wrong(env: ErrorEnvelope) -> object:
    err = env["error"]
    if err["code"] == -32700:
        return err["data"]["method"]  # PARSE_ERROR's data has no method
    return err["status"]  # no code name on this wire
