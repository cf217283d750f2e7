"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/jsonrpc.yaml; checked and run by
codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    CODES,
    AnyErrorEnvelope,
    ErrorEnvelope,
    MethodNotFoundEnvelopeError,
    is_listed,
)


def describe(env: ErrorEnvelope) -> str:
    typing.assert_type(env["jsonrpc"], typing.Literal["2.0"])
    err = env["error"]
    if err["code"] == -32601:
        typing.assert_type(err, MethodNotFoundEnvelopeError)
        return "METHOD_NOT_FOUND " + err["data"]["method"]
    if err["code"] == -32700:
        return f"PARSE_ERROR at {err.get('data', {}).get('position')}"
    return "INTERNAL_ERROR " + err["message"]


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        return f"unlisted {env['error']['code']}"
    return describe(env)


# What a JSON-RPC 2.0 server sends (without the response's `id`).
method_not_found: ErrorEnvelope = {
    "jsonrpc": "2.0",
    "error": {"code": -32601, "message": "Method not found", "data": {"method": "tools/cal"}},
}
later: AnyErrorEnvelope = {
    "jsonrpc": "2.0",
    "error": {"code": -32800, "message": "Request cancelled"},
}
out = [handle(method_not_found), handle(later)]
by_number = {info.number: info for info in CODES.values()}
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    assert example["error"]["code"] in by_number
    out.append(handle(example))
print("ok", "; ".join(out))
