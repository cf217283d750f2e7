# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors.
from error_envelope import ErrorEnvelope


def wrong(env: ErrorEnvelope) -> object:
    err = env["error"]
    if err["code"] == "ServiceUnavailable":
        return err["target"]  # BAD_ARGUMENT's only
    # An open type is a mapping of `object`s to mypy (no PEP 728 yet).
    return err["innererror"]["code"].upper()
