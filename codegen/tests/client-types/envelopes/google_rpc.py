"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/google_rpc.yaml; `mypy --strict` checks it
and codegen/tests/it/client_types.rs runs it over the example envelopes of the
generated docs (JSON files given as arguments)."""

import json
import sys
import typing

from error_envelope import (
    CODES,
    AnyErrorEnvelope,
    ErrorEnvelope,
    ErrorInfo,
    InternalEnvelopeError,
    NotFoundEnvelopeError,
    is_listed,
)


def describe(env: ErrorEnvelope) -> str:
    # The discriminant is nested: narrow the object that holds it.
    err = env["error"]
    if err["status"] == "INTERNAL":
        typing.assert_type(err, InternalEnvelopeError)
        typing.assert_type(err["code"], typing.Literal[500])
        details: list[ErrorInfo] = err["details"]
        return "INTERNAL " + ",".join(d["domain"] + "/" + d["reason"] for d in details)
    typing.assert_type(err, NotFoundEnvelopeError)
    return f"NOT_FOUND {len(err.get('details', []))} {err['message']}"


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        return "unlisted " + env["error"]["status"]
    typing.assert_type(env, ErrorEnvelope)
    return describe(env)


# As Google's JSON APIs send them (AIP-193).
internal: ErrorEnvelope = {
    "error": {
        "code": 500,
        "message": "Internal error encountered.",
        "status": "INTERNAL",
        "details": [{"reason": "BACKEND_DOWN", "domain": "example.com"}],
    }
}
later: AnyErrorEnvelope = {
    "error": {"code": 504, "message": "Deadline expired.", "status": "DEADLINE_EXCEEDED"}
}
out = [handle(internal), handle(later)]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    assert CODES[example["error"]["status"]].number == example["error"]["code"]
    out.append(handle(example))
print("ok", "; ".join(out))
