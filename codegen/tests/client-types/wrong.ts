// Must NOT type-check: reads fields a code does not carry after narrowing.
// codegen/tests/it/client_types.rs asserts that `tsc --strict` rejects exactly
// these two accesses, so the consumer check cannot pass vacuously.
import type { ErrorEnvelope } from "../../../schema/error-envelope.js";

export function topLevel(e: ErrorEnvelope): unknown {
  if (e.error_code === "MATCH_NOT_FOUND") {
    return e.violations; // only VALIDATION_FAILED carries violations
  }
  return undefined;
}

export function inContext(e: ErrorEnvelope): unknown {
  if (e.error_code === "MATCH_NOT_FOUND") {
    return e.context.limit; // MATCH_NOT_FOUND's context has no limit
  }
  return undefined;
}
