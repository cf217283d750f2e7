# Must NOT type-check: codegen/tests/it/client_types.rs asserts exactly these
# errors. `family_of` may find no family, a prefix or suffix family has no
# range, its rule is one of the two, and its category and name are the spec's.
from error_envelope import FAMILIES, AnyErrorEnvelope, family_of


def wrong(env: AnyErrorEnvelope) -> object:
    family = family_of(env)
    if family.retryable:
        return "retry"
    if FAMILIES[0].category == "throttled":
        return "slow down"
    if FAMILIES[0].name == "throtling":
        return "slow down"
    if FAMILIES[0].rule == "range":
        return "range"
    return FAMILIES[0].low
