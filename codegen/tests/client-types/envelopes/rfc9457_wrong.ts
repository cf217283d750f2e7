// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors).
import type { ErrorEnvelope } from "./schema/error-envelope.js";

export function wrong(env: ErrorEnvelope): unknown {
  if (env.type === "https://example.com/probs/service-down") {
    return env.balance; // only OUT_OF_CREDIT carries balance
  }
  return env.category; // not on this wire
}
