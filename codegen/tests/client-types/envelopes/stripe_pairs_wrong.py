# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors. A code's envelope pins its category and its name, and `CODES` is
# keyed by (category, name).
from error_envelope import CODES, ErrorEnvelope, ExpiredCardEnvelope, ExpiredKeyEnvelope

card: ExpiredCardEnvelope = {"error": {"type": "invalid_request_error", "code": "expired"}}
key: ExpiredKeyEnvelope = {"error": {"type": "invalid_request_error", "code": "parameter_missing"}}


def wrong(env: ErrorEnvelope) -> str:
    if env["error"]["type"] == "card_error":
        code: str = CODES["expired"].title
        return code
    return ""
