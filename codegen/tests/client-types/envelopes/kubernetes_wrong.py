# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors. The empty reason is a literal of its own, the constants are
# pinned, and an unnumbered taxonomy has no numbers.
from error_envelope import CODES, ErrorEnvelope, UnknownEnvelope

unknown: UnknownEnvelope = {
    "kind": "Status",
    "apiVersion": "v1",
    "status": "Failure",
    "message": "no reason",
    "reason": "Unknown",
    "code": 500,
}


def wrong(env: ErrorEnvelope) -> object:
    if env["status"] == "Success":
        return None
    return CODES[env["reason"]].number
