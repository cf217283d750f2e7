"""Must NOT type-check: reads fields a code does not carry after narrowing.
codegen/tests/it/client_types.rs asserts that `mypy --strict` rejects exactly
these two accesses, so the consumer check cannot pass vacuously."""

from error_envelope import ErrorEnvelope


def top_level(env: ErrorEnvelope) -> object:
    if env["error_code"] == "MATCH_NOT_FOUND":
        return env["violations"]  # only VALIDATION_FAILED carries violations
    return None


def in_context(env: ErrorEnvelope) -> object:
    if env["error_code"] == "MATCH_NOT_FOUND":
        return env["context"]["limit"]  # MATCH_NOT_FOUND's context has no limit
    return None
