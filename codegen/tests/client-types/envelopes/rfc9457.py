"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/rfc9457.yaml; checked and run by
codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    AnyErrorEnvelope,
    ErrorEnvelope,
    OutOfCreditEnvelope,
    is_listed,
)


def describe(env: ErrorEnvelope) -> str:
    if env["type"] == "https://example.com/probs/out-of-credit":
        typing.assert_type(env, OutOfCreditEnvelope)
        typing.assert_type(env["status"], typing.Literal[403])
        typing.assert_type(env["title"], typing.Literal["You do not have enough credit."])
        return f"out of credit: {env['balance']} ({len(env.get('accounts', []))} accounts)"
    typing.assert_type(env["status"], typing.Literal[503])
    return "down: " + env.get("detail", env["title"])


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        return "unlisted " + env["type"]
    return describe(env)


# RFC 9457 §3's example.
out_of_credit: ErrorEnvelope = {
    "type": "https://example.com/probs/out-of-credit",
    "title": "You do not have enough credit.",
    "status": 403,
    "detail": "Your current balance is 30, but that costs 50.",
    "instance": "/account/12345/msgs/abc",
    "balance": 30,
    "accounts": ["/account/12345", "/account/67890"],
}
later: AnyErrorEnvelope = {"type": "https://example.com/probs/later", "status": 429}
out = [handle(out_of_credit), handle(later)]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(handle(example))
print("ok", "; ".join(out))
