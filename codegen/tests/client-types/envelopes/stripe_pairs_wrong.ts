// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): a code's envelope pins its category and its name, and `CODES` is
// keyed by category first.
import { CODES, type ExpiredCardEnvelope, type ExpiredKeyEnvelope, type ErrorEnvelope } from "./schema/error-envelope.js";

export const card: ExpiredCardEnvelope = { error: { type: "invalid_request_error", code: "expired" } };
export const key: ExpiredKeyEnvelope = { error: { type: "invalid_request_error", code: "parameter_missing" } };
export function wrong(env: ErrorEnvelope): string {
  if (env.error.type === "card_error") {
    const code: "expired" = env.error.code;
    return code;
  }
  return CODES.expired.title;
}
