# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors.
from error_envelope import CODES, Detail, ErrorEnvelope


def wrong(env: ErrorEnvelope) -> object:
    if env["code"] == "VALIDATION_FAILED":
        return env["notes"]  # NOT_FOUND's only
    return CODES[env["code"]].number  # an unnumbered taxonomy has no numbers


status: Detail = 404  # a string or a list
