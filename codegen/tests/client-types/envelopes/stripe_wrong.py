# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors. A fallback's code may be absent, a card error has no fallback, and
# a type's fallback is its own code.
from error_envelope import ApiErrorEnvelope, CardDeclinedEnvelope, ErrorEnvelope, code_info


def wrong(env: ErrorEnvelope) -> str:
    err = env["error"]
    if err["type"] == "api_error":
        code: str = err.get("code")
        return code
    info = code_info(env)
    return "card" if info is not None and info.name == "card_error" else "other"


declined: CardDeclinedEnvelope = {"error": {"type": "card_error", "message": "Your card was declined."}}
crossed: ApiErrorEnvelope = {"error": {"type": "api_error", "code": "invalid_request_error"}}
