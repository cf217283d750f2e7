// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): a range family has no prefix text, its category is one of the
// taxonomy's, and `familyOf` may find none.
import { familyOf, FAMILIES, type AnyErrorEnvelope } from "./schema/error-envelope.js";

export function wrong(env: AnyErrorEnvelope): unknown {
  if (FAMILIES[0].text === "-320") return "prefix";
  const family = familyOf(env);
  if (family?.category === "throttling") return "slow down";
  return family.high;
}
