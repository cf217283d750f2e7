"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/odata.yaml; `mypy --strict` checks it and
codegen/tests/it/client_types.rs runs it over the example envelopes of the
generated docs (JSON files given as arguments).

`InnerError` is open: the module types it as a mapping, so the guidelines'
example, with members the type does not list, is a valid literal."""

import collections.abc
import json
import sys
import typing

from error_envelope import (
    CODES,
    AnyErrorEnvelope,
    BadArgumentEnvelope,
    BadArgumentEnvelopeError,
    ErrorEnvelope,
    InnerError,
    is_listed,
)


def chain(inner: InnerError | None) -> str:
    out = []
    while inner is not None:
        others = [k for k in inner if k not in ("code", "innererror")]
        out.append(f"{inner.get('code', '-')}" + (f"({','.join(others)})" if others else ""))
        nested = inner.get("innererror")
        inner = nested if isinstance(nested, collections.abc.Mapping) else None
    return ">".join(out)


def describe(env: ErrorEnvelope) -> str:
    err = env["error"]
    if err["code"] == "BadArgument":
        typing.assert_type(err, BadArgumentEnvelopeError)
        outer = err.get("innererror")
        nested = outer.get("innererror") if outer is not None else None
        policy = nested if isinstance(nested, collections.abc.Mapping) else {}
        minimum = policy.get("minLength", "-")
        return f"{err['code']} {err.get('target', '-')} {chain(outer)} min={minimum}"
    return f"{err['code']} {chain(err.get('innererror'))}"


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        return "unlisted " + env["error"]["code"]
    return describe(env)


# The guidelines' own example, as written there.
guidelines: BadArgumentEnvelope = {
    "error": {
        "code": "BadArgument",
        "message": "Previous passwords may not be reused",
        "target": "password",
        "innererror": {
            "code": "PasswordError",
            "innererror": {
                "code": "PasswordDoesNotMeetPolicy",
                "minLength": "6",
                "maxLength": "64",
                "characterTypes": ["lowerCase", "upperCase", "number", "symbol"],
                "minDistinctCharacterTypes": "2",
                "innererror": {"code": "PasswordReuseNotAllowed"},
            },
        },
    }
}
later: AnyErrorEnvelope = {"error": {"code": "TooManyRequests", "message": "slow down"}}
out = [handle(guidelines), handle(later)]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    assert example["error"]["code"] in CODES
    out.append(handle(example))
print("ok", "; ".join(out))
