# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors. A range family has no prefix text, its rule is "range", and
# `family_of` may find none.
from error_envelope import FAMILIES, AnyErrorEnvelope, family_of


def wrong(env: AnyErrorEnvelope) -> object:
    if FAMILIES[0].text == "-320":
        return "prefix"
    if FAMILIES[0].rule == "prefix":
        return "prefix"
    return family_of(env).high
