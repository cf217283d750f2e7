"""A client of the Python module generated from
codegen/tests/fixtures/envelopes/graphql_response.yaml (GraphQL's response:
`errors`, a list of envelopes, beside `data`); checked and run by
codegen/tests/it/client_types.rs."""

import json
import sys
import typing

from error_envelope import (
    AnyErrorEnvelope,
    ErrorResponse,
    codes_of,
    is_listed,
)


def describe(env: AnyErrorEnvelope) -> str:
    if not is_listed(env):
        return f"unlisted {env.get('extensions', {}).get('code')}"
    if "extensions" in env and env["extensions"].get("code") == "BAD_USER_INPUT":
        return "BAD_USER_INPUT"
    return env["message"]


def line(response: ErrorResponse) -> str:
    typing.assert_type(response["errors"], list[AnyErrorEnvelope])
    names = ",".join("unlisted" if i is None else i.name for i in codes_of(response))
    data = json.dumps(response["data"]) if "data" in response else "absent"
    return f"[{names}] {describe(response['errors'][0])} data={data}"


# Several errors (without a code, with one, a later one) and `data` null,
# absent, an object.
samples: list[ErrorResponse] = [
    {
        "errors": [
            {"message": "boom", "locations": [{"line": 1, "column": 3}], "path": ["hero", 0, "name"]},
            {"message": "bad input", "extensions": {"code": "BAD_USER_INPUT", "argumentName": "id"}},
            {"message": "later", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}},
        ],
        "data": None,
    },
    {"errors": [{"message": "Syntax Error", "extensions": {"code": "GRAPHQL_PARSE_FAILED"}}]},
    {"errors": [{"message": "no user"}], "data": {"hero": None}},
]
out = [line(s) for s in samples]
for path in sys.argv[1:]:
    with open(path) as f:
        example: AnyErrorEnvelope = json.load(f)
    assert is_listed(example), path
    out.append(",".join("unlisted" if i is None else i.name for i in codes_of({"errors": [example]})))
print("ok", "; ".join(out))
