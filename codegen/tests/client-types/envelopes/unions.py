"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/unions.yaml; checked and run by
codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    CODES,
    AnyErrorEnvelope,
    Detail,
    Entry,
    ErrorEnvelope,
    Location,
    NotFoundEnvelope,
    ValidationError,
    is_listed,
)


def where(loc: list[Location]) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in loc)


def detail(d: Detail) -> str:
    if isinstance(d, str):
        return d
    typing.assert_type(d, list[ValidationError])
    return ", ".join(f"{where(e['loc'])}: {e['msg']} ({e['type']})" for e in d)


def note(n: Entry) -> str:
    if n is None:
        return "-"
    if isinstance(n, str):
        return n
    return f"{n['text']} <{n['href']}>"


def describe(env: ErrorEnvelope) -> str:
    if env["code"] == "NOT_FOUND":
        typing.assert_type(env, NotFoundEnvelope)
        notes = " | ".join(note(n) for n in env.get("notes", []))
        return f"NOT_FOUND {detail(env['detail'])} [{notes}]"
    retryable = str(CODES[env["code"]].retryable).lower()
    return f"VALIDATION_FAILED {detail(env['detail'])} {retryable}"


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        return "unlisted " + env["code"]
    return describe(env)


# FastAPI's two shapes of `detail`, and a note of each kind.
not_found: ErrorEnvelope = {
    "code": "NOT_FOUND",
    "detail": "Not Found",
    "notes": ["see the docs", {"text": "API", "href": "https://example.com/api"}, None],
}
invalid: ErrorEnvelope = {
    "code": "VALIDATION_FAILED",
    "detail": [{"loc": ["body", 0, "name"], "msg": "Field required", "type": "missing"}],
}
later: AnyErrorEnvelope = {"code": "TEAPOT"}
out = [handle(not_found), handle(invalid), handle(later)]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(handle(example))
print("ok", "; ".join(out))
