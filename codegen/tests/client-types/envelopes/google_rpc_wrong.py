# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors.
from error_envelope import ErrorEnvelope


def wrong(env: ErrorEnvelope) -> object:
    err = env["error"]
    if err["status"] == "NOT_FOUND":
        return err["retryable"]  # not on this wire
    return env["status"]  # nested in `error`, not at the top
