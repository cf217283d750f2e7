"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/kubernetes.yaml; checked and run by
codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    CODES,
    AnyErrorEnvelope,
    ErrorEnvelope,
    ExpiredEnvelope,
    GoneEnvelope,
    UnknownEnvelope,
    is_listed,
)


def describe(env: ErrorEnvelope) -> str:
    info = CODES[env["reason"]]
    rest = f"{env['code']} {info.category} hints={len(info.recovery_hints)}"
    if env["reason"] == "":
        typing.assert_type(env, UnknownEnvelope)
        return f"UNKNOWN {rest} retryable={str(info.retryable).lower()}"
    if env["reason"] == "NotFound":
        return f"NOT_FOUND {rest}: {env['message']}"
    if env["reason"] == "Gone":
        typing.assert_type(env, GoneEnvelope)
        return f"GONE {rest}"
    typing.assert_type(env, ExpiredEnvelope)
    return f"EXPIRED {rest}"


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        return "unlisted " + env["reason"]
    return describe(env)


# Statuses as the API server sends them.
samples: list[AnyErrorEnvelope] = [
    {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": "etcdserver: request timed out",
        "reason": "",
        "code": 500,
    },
    {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": 'pods "web-0" not found',
        "reason": "NotFound",
        "code": 404,
    },
    {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": "too old resource version: 1 (2)",
        "reason": "Expired",
        "code": 410,
    },
    {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "conflict", "reason": "Conflict"},
]
out = [handle(s) for s in samples]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(handle(example))
print("ok", "; ".join(out))
