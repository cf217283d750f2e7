// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): a family's category is one of the taxonomy's, and its name one of
// the spec's families, `familyOf` may find none, and a prefix or suffix family
// has no range.
import { familyOf, FAMILIES, type AnyErrorEnvelope } from "./schema/error-envelope.js";

export function wrong(env: AnyErrorEnvelope): unknown {
  const family = familyOf(env);
  if (family?.category === "throttled") return "slow down";
  if (family?.name === "throtling") return "slow down";
  if (family.retryable) return "retry";
  return FAMILIES[0].low;
}
