// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): what the google.rpc envelope does not carry, or a code does not.
import type { ErrorEnvelope, NotFoundEnvelope } from "./schema/error-envelope.js";

export function wrong(env: ErrorEnvelope): unknown {
  if (env.error.status === "NOT_FOUND") {
    const details: object[] = env.error.details; // optional for NOT_FOUND
    return [details, env.error.retryable]; // not on this wire
  }
  return undefined;
}

export const otherNumber: NotFoundEnvelope = {
  error: { code: 500, message: "m", status: "NOT_FOUND" }, // NOT_FOUND is 404
};
