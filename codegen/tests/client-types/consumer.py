"""A Python client of schema/error_envelope.py, type-checked with `mypy --strict`
and then run by codegen/tests/it/client_types.rs.

Type level: narrowing an `ErrorEnvelope` on `error_code` gives the code's own
TypedDict, with literal `code`/`category`/`retryable`/`cause` and its required
fields. Run time: every example envelope of docs/errors.md has a known
error_code whose `CODES` entry (`code_info(env)`) agrees with it.

Usage: python3 consumer.py <workspace root> (with schema/ on PYTHONPATH).
"""

import json
import sys
import typing
from pathlib import Path

from error_envelope import (
    CODES,
    VIOLATION_KINDS,
    AnyErrorEnvelope,
    ErrorCode,
    ErrorEnvelope,
    MatchNotFoundEnvelope,
    code_info,
    is_listed,
)

EXAMPLE_MARKER = "<!-- example-envelope -->"


def describe(env: ErrorEnvelope) -> str:
    """What a client does with an envelope: narrow it, then read its fields."""
    if env["error_code"] == "MATCH_NOT_FOUND":
        typing.assert_type(env, MatchNotFoundEnvelope)
        typing.assert_type(env["code"], typing.Literal[2000])
        typing.assert_type(env["retryable"], typing.Literal[True])
        snippet: str = env["context"]["snippet"]
        edit: int = env["edit_index"]
        return f"edit {edit} of {env['file_path']} not found near:\n{snippet}"
    if env["error_code"] == "VALIDATION_FAILED":
        return "; ".join(f"{v['path']}: {v['code']}" for v in env["violations"])
    if env["error_code"] == "DISK_FULL":
        typing.assert_type(env["cause"], typing.Literal["environment"])
        return env["file_path"]
    # Every envelope has these, whatever its code.
    return f"{env['error_code']} ({env['code']}): {env['message']}"


def handle(env: AnyErrorEnvelope) -> str:
    """Any server of the same major version: a later one may send a code this
    module does not list."""
    if not is_listed(env):
        # `is_listed` is a TypeGuard: the false branch keeps the whole union,
        # and reads what every envelope has.
        typing.assert_type(env, AnyErrorEnvelope)
        return f"{env['error_code']} ({env['category']}): {env['message']}"
    typing.assert_type(env, ErrorEnvelope)
    return describe(env)


LATER: AnyErrorEnvelope = {
    "success": False,
    "error_code": "A_LATER_CODE",
    "code": 2999,
    "category": "a_later_category",
    "message": "m",
    "retryable": False,
    "cause": "server",
    "recovery_hints": ["h"],
}


def examples(markdown: str) -> list[ErrorEnvelope]:
    """The JSON blocks that follow an example-envelope marker."""
    lines = markdown.splitlines()
    found: list[ErrorEnvelope] = []
    for i, line in enumerate(lines):
        if line.strip() != EXAMPLE_MARKER:
            continue
        if lines[i + 1].strip() != "```json":
            raise SystemExit(f"line {i + 2}: expected a ```json block after the marker")
        end = lines.index("```", i + 2)
        env: ErrorEnvelope = json.loads("\n".join(lines[i + 2 : end]))
        found.append(env)
    return found


def check(env: ErrorEnvelope) -> None:
    name: str = env["error_code"]
    info = code_info(env)
    if info is None or info is not CODES.get(name):
        raise SystemExit(f"unknown error_code {name!r}")
    assert ErrorCode(name) == info.name
    got = (env["code"], env["category"], env["retryable"], env["cause"])
    want = (info.number, info.category, info.retryable, info.cause)
    if got != want:
        raise SystemExit(f"{name}: envelope says {got}, CODES says {want}")
    context: dict[str, object] = dict(env.get("context", {}))
    # The general hints, and each conditional one whose field has one of its values.
    top: dict[str, object] = dict(env)
    sent = [
        hint
        for hint, cond in zip(info.recovery_hints, info.hint_conditions, strict=True)
        if cond is None or context.get(cond[0], top.get(cond[0])) in cond[1]
    ]
    if len(env["recovery_hints"]) != len(sent):
        raise SystemExit(f"{name}: {len(env['recovery_hints'])} hints, CODES says {len(sent)} apply")
    for field in info.required_fields:
        if field not in env and field not in context:
            raise SystemExit(f"{name}: required field {field!r} is missing")
    describe(env)


def main() -> None:
    root = Path(sys.argv[1])
    envelopes = examples((root / "docs/errors.md").read_text(encoding="utf-8"))
    for env in envelopes:
        check(env)
        if not is_listed(env):
            raise SystemExit(f"{env['error_code']}: not listed")
    if handle(LATER) != "A_LATER_CODE (a_later_category): m" or is_listed(LATER) or code_info(LATER):
        raise SystemExit("an unlisted code is not handled as one")
    # A violation kind has no envelope of its own, so no example.
    missing = set(CODES) - VIOLATION_KINDS - {env["error_code"] for env in envelopes}
    if missing:
        raise SystemExit(f"codes without an example envelope: {sorted(missing)}")
    enveloped = len(set(CODES) - VIOLATION_KINDS)
    print(f"checked {len(envelopes)} example envelopes against {enveloped} enveloped codes")


if __name__ == "__main__":
    main()
