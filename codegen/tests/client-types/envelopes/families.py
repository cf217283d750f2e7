"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/families.yaml (a prefix and a suffix
family): a code this release does not list is classified by its family,
and a listed code is never a family's. Checked and run by
codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    CODES,
    FAMILIES,
    AnyErrorEnvelope,
    FamilyInfo,
    family_of,
    is_listed,
)


def action(family: FamilyInfo) -> str:
    """What a retry loop decides from the family's category."""
    if family.category == "throttling":
        return "back off" if family.retryable else "give up"
    return "fix the request" if family.cause == "input" else "report"


def rule(family: FamilyInfo) -> str:
    """Which rule matched, as the family declares it."""
    if family.rule == "prefix":
        return f"{family.text}*"
    typing.assert_type(family.rule, typing.Literal["suffix"])
    return f"*{family.text}"


def handle(env: AnyErrorEnvelope) -> str:
    family = family_of(env)
    if not is_listed(env):
        typing.assert_type(env, AnyErrorEnvelope)
        if family is None:
            return f"unlisted {env['Error']['Code']} of no family"
        typing.assert_type(family, FamilyInfo)
        retryable: bool = family.retryable
        return (
            f"{env['Error']['Code']} {family.name} {rule(family)} {family.category} "
            f"{family.cause} retryable={str(retryable).lower()}: {action(family)}"
        )
    # A listed code is its own, even when its name matches a family.
    info = CODES[env["Error"]["Code"]]
    return f"{env['Error']['Code']} listed {info.category} family={family.name if family else 'none'}"


# Errors as services send them; only the last is a listed code.
samples: list[AnyErrorEnvelope] = [
    {"Error": {"Code": "TableNotFoundException", "Message": "no such table"}},
    {"Error": {"Code": "ThrottlingOnSundayException", "Message": "slow down"}},
    # Both rules match: the first family in precedence order wins.
    {"Error": {"Code": "ThrottlingNotFoundException", "Message": "both"}},
    {"Error": {"Code": "ThrottledOnSunday", "Message": "no rule matches"}},
    {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}},
]
out = [handle(s) for s in samples]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(handle(example))
families = ",".join(f.name for f in FAMILIES)
print(f"ok {len(CODES)} codes, families {families};", "; ".join(out))
