"""A client of the artifacts of codegen/tests/fixtures/constructs.yaml.

Names on the wire that are not identifiers are keys of functional
TypedDicts, a code's wire name narrows the union, enum values keep their
wire spelling. Run after mypy: prints what it read of an example envelope.
"""

import json
import sys
import typing

from error_envelope import (
    CODES,
    AnyErrorEnvelope,
    ErrorCode,
    Reason,
    ThrottledEnvelope,
    is_listed,
)


def describe(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        return "unlisted " + env["error_code"]
    if env["error_code"] == "ThrottlingException" or env["error_code"] == "Throttling":
        typing.assert_type(env, ThrottledEnvelope)
        problem: typing.Literal["https://example.com/problems/throttled"] = env["type"]
        status: typing.Literal["RESOURCE_EXHAUSTED"] = env["status"]
        detail = env["error-details"][0]
        reason: Reason = detail["reason"]
        count: int = detail["count"]
        total: int | None = detail["total"]
        ratio: float | None = detail.get("ratio")
        metadata: dict[str, str] = detail["metadata"]
        quotas: dict[str, int] = env["context"].get("quotas", {})
        delay = "-"
        for d in env["context"].get("details", []):
            if d["@type"] == "type.googleapis.com/google.rpc.RetryInfo":
                delay = d["retryDelay"]
            else:
                delay += d["reason"]
        return (
            f"{problem} {status} {env['context']['retryDelay']} {detail['@type']} {reason} {detail.get('type', '-')}"
            f" {count} {total} {ratio} {metadata['service']} {quotas['requests']} {delay}"
        )
    return env["message"]


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            env = json.load(f)
        assert env["error_code"] in CODES
        print(describe(env))
        if env["error_code"] == "ThrottlingException":
            env["error_code"] = "Throttling"
            assert ErrorCode(env["error_code"]) is ErrorCode.THROTTLED
            assert CODES["Throttling"].number == 1
            print("alias", describe(env))
