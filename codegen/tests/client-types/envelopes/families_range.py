"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/families_range.yaml (JSON-RPC 2.0's
reserved code ranges as families): an unlisted number is classified by the
first range that holds it, and a listed number is never a family's. Checked
and run by codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    CODES,
    FAMILIES,
    AnyErrorEnvelope,
    FamilyInfo,
    code_info,
    family_of,
    is_listed,
)


def action(family: FamilyInfo) -> str:
    """What a client does with a code of the family."""
    if family.category == "server":
        return "retry later" if family.retryable else "give up"
    return "fix the request" if family.cause == "input" else "report"


def handle(env: AnyErrorEnvelope) -> str:
    family = family_of(env)
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        if family is None:
            return f"unlisted {env['error']['code']} of no family"
        typing.assert_type(family.rule, typing.Literal["range"])
        low: int = family.low
        high: int = family.high
        return (
            f"{env['error']['code']} {family.name} {family.rule} [{low}, {high}] {family.category} "
            f"{family.cause} retryable={str(family.retryable).lower()}: {action(family)}"
        )
    # A listed number is its own, even inside a family's range.
    info = code_info(env)
    assert info is not None
    return f"{env['error']['code']} listed {info.category} family={family.name if family else 'none'}"


# Errors as servers send them; only the last is a listed code.
samples: list[AnyErrorEnvelope] = [
    {"jsonrpc": "2.0", "error": {"code": -32050, "message": "Server busy"}},
    # Both ends of the narrower range, and just outside it: the wider range.
    {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Server error"}},
    {"jsonrpc": "2.0", "error": {"code": -32099, "message": "Server error"}},
    {"jsonrpc": "2.0", "error": {"code": -32100, "message": "Reserved"}},
    {"jsonrpc": "2.0", "error": {"code": -1, "message": "Application error"}},
    {"jsonrpc": "2.0", "error": {"code": -32603, "message": "Internal error"}},
]
out = [handle(s) for s in samples]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(handle(example))
families = ",".join(f.name for f in FAMILIES)
print(f"ok {len(CODES)} codes, families {families};", "; ".join(out))
