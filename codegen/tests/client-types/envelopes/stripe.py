"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/stripe.yaml (Stripe's error: `type` is the
category and `code` the code; an error without `code` is named by its type,
`absent_means` per category, and a card error always has a code); checked and
run by codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    CODES,
    AnyErrorEnvelope,
    ApiErrorEnvelopeError,
    CardDeclinedEnvelopeError,
    ErrorEnvelope,
    ExpiredCardEnvelopeError,
    InvalidRequestEnvelopeError,
    ParameterMissingEnvelopeError,
    code_info,
    is_listed,
)


def sent(env: ErrorEnvelope) -> str:
    """The code as sent, narrowed by the type."""
    err = env["error"]
    if err["type"] == "api_error":
        typing.assert_type(err, ApiErrorEnvelopeError)
        api: typing.Literal["api_error"] | None = err.get("code")
        return api or "absent"
    if err["type"] == "card_error":
        typing.assert_type(err, CardDeclinedEnvelopeError | ExpiredCardEnvelopeError)
        # A card error always has its code.
        card: typing.Literal["card_declined", "expired_card"] = err["code"]
        return card
    if err["type"] == "invalid_request_error":
        typing.assert_type(err, InvalidRequestEnvelopeError | ParameterMissingEnvelopeError)
        return f"{err.get('code') or 'absent'} param={err.get('param') or '-'}"
    return err.get("code") or "absent"


def describe(env: ErrorEnvelope) -> str:
    # The code the readers give: `code` when it is there, else its type's.
    info = code_info(env)
    assert info is not None
    head = (
        f"{info.name} {info.category} {info.cause} "
        f"retryable={str(info.retryable).lower()} code={sent(env)}"
    )
    if info.name == "api_error":
        return f"{head}: retry later"
    if info.name == "idempotency_error":
        return f"{head}: use a new key"
    if info.name == "invalid_request_error" or info.name == "parameter_missing":
        return f"{head}: fix the request"
    typing.assert_type(info.name, typing.Literal["card_declined", "expired_card"])
    return f"{head}: ask for another card"


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        return f"unlisted {env['error']['type']}/{env['error']['code']}"
    return describe(env)


def codeless(text: str) -> str:
    """A card error without `code` (its type has no fallback): no reader finds a code."""
    env: AnyErrorEnvelope = json.loads(text)
    info = code_info(env)
    listed = "listed" if is_listed(env) else "not listed"
    return f"{listed}, codeInfo {info.name if info else 'none'}"


# Errors as Stripe's API sends them.
samples: list[AnyErrorEnvelope] = [
    {"error": {"type": "api_error", "message": "Something went wrong on Stripe's end."}},
    {"error": {"type": "idempotency_error", "message": "Keys for idempotent requests can only be used once."}},
    {"error": {"type": "invalid_request_error", "message": "Invalid API Key provided: sk_test_****1234"}},
    {
        "error": {
            "type": "invalid_request_error",
            "code": "parameter_missing",
            "param": "amount",
            "message": "Missing required param: amount.",
        }
    },
    {
        "error": {
            "type": "card_error",
            "code": "card_declined",
            "decline_code": "insufficient_funds",
            "message": "Your card has insufficient funds.",
        }
    },
    {"error": {"type": "invalid_request_error", "code": "resource_missing", "message": "No such customer: 'cus_nope'"}},
]
out = [handle(s) for s in samples]
out.append(codeless('{"error": {"type": "card_error", "message": "Your card was declined."}}'))
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(handle(example))
print("ok", len(CODES), "codes;", "; ".join(out))
