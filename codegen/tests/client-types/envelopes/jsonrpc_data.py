"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/jsonrpc_data.yaml; checked and run by
codegen/tests/it/client_types.rs. A `json` value is an `object`: the
reader narrows it to look inside."""

import json
import sys
import typing

from error_envelope import (
    AnyErrorEnvelope,
    ErrorEnvelope,
    InvalidParamsEnvelope,
    is_listed,
)


def shape(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, list):
        return f"list({len(v)})"
    if isinstance(v, dict):
        return f"object({','.join(str(k) for k in v)})"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    return "string" if isinstance(v, str) else "other"


def describe(env: ErrorEnvelope) -> str:
    if env["code"] == -32602:
        typing.assert_type(env, InvalidParamsEnvelope)
        data = shape(env["data"]) if "data" in env else "absent"
        params = ",".join(f"{p['name']}={shape(p['value'])}" for p in env.get("params", []))
        return f"INVALID_PARAMS {data} [{params}]"
    typing.assert_type(env["data"], object)
    return f"INTERNAL_ERROR {shape(env['data'])}"


def handle(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        return f"unlisted {env['code']}"
    return describe(env)


# `data` as a string, `null` sent, a list; members of any type; an unlisted code.
samples: list[AnyErrorEnvelope] = [
    {
        "code": -32602,
        "message": "Invalid params",
        "data": "limit must be positive",
        "params": [
            {"name": "limit", "value": -1},
            {"name": "filter", "value": {"op": "eq"}},
            {"name": "strict", "value": True},
        ],
    },
    {"code": -32602, "message": "Invalid params", "data": None},
    {"code": -32603, "message": "Internal error", "data": [1, "two", None]},
    {"code": -32099, "message": "Server error"},
]
out = [handle(s) for s in samples]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(handle(example))
print("ok", "; ".join(out))
