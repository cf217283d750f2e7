# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors. A response has its `errors`, `data` is an `object` until narrowed,
# and a code of a later release has no `CodeInfo`.
from error_envelope import ErrorResponse, codes_of

no_errors: ErrorResponse = {"data": None}  # `errors` is required


def hero(response: ErrorResponse) -> object:
    return response["data"]["hero"]  # narrow `data` first


def name(response: ErrorResponse) -> str:
    return codes_of(response)[0].name  # None for a later code
