// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): a fallback's code may be absent, a card error has no fallback, and
// a type's fallback is its own code.
import { codeInfo, type ApiErrorEnvelope, type CardDeclinedEnvelope, type ErrorEnvelope } from "./schema/error-envelope.js";

export function wrong(env: ErrorEnvelope): string {
  const err = env.error;
  if (err.type === "api_error") {
    const code: string = err.code;
    return code;
  }
  return codeInfo(env).name === "card_error" ? "card" : "other";
}
export const declined: CardDeclinedEnvelope = { error: { type: "card_error", message: "Your card was declined." } };
export const crossed: ApiErrorEnvelope = { error: { type: "api_error", code: "invalid_request_error" } };
