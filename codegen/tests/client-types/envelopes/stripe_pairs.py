"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/stripe_pairs.yaml (codes unique only within
their category: `expired` is a card error's code and an invalid request's,
and `card_declined` an alias of the latter); checked and run by
codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    CODES,
    AnyErrorEnvelope,
    CardDeclinedEnvelopeError,
    ErrorEnvelope,
    ExpiredCardEnvelopeError,
    code_info,
    is_listed,
)


def describe(env: ErrorEnvelope) -> str:
    info = code_info(env)
    assert info is not None
    err = env["error"]
    if err["type"] == "card_error":
        # The category narrows the code to the card errors' names.
        typing.assert_type(err, CardDeclinedEnvelopeError | ExpiredCardEnvelopeError)
        code: typing.Literal["card_declined", "expired", "expired_card"] = err["code"]
        return f"{info.category}/{info.name} sent {code}: {info.title}"
    return f"{info.category}/{info.name} sent {err.get('code') or 'absent'}: {info.title}"


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        return f"unlisted {env['error']['type']}/{env['error']['code']}"
    return describe(env)


# The same name in two categories, an alias that is another category's
# name, and listed names in categories that do not list them.
samples: list[AnyErrorEnvelope] = [
    {"error": {"type": "card_error", "code": "expired", "message": "Your card has expired."}},
    {"error": {"type": "invalid_request_error", "code": "expired", "message": "The key has expired."}},
    {"error": {"type": "invalid_request_error", "code": "card_declined"}},
    {"error": {"type": "card_error", "code": "card_declined"}},
    {"error": {"type": "api_error", "code": "expired"}},
    {"error": {"type": "card_error", "code": "parameter_missing"}},
]
out = [handle(s) for s in samples]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(handle(example))
print(
    "ok",
    len({category for category, _ in CODES}),
    "categories, card_error/expired:",
    CODES[("card_error", "expired")].title + ";",
    "; ".join(out),
)
