# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors. A `json` value is an `object` until narrowed, and a member of type
# `json` is still required.
from error_envelope import ErrorEnvelope, Param


def wrong(env: ErrorEnvelope) -> object:
    if env["code"] == -32603:
        return env["data"]["reason"]  # narrow `data` first
    return None


param: Param = {"name": "limit"}  # `value` is required
