// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors).
import { codeInfo, type Detail, type ErrorEnvelope } from "./schema/error-envelope.js";

export function wrong(env: ErrorEnvelope): unknown {
  if (env.code === "VALIDATION_FAILED") {
    return env.notes; // NOT_FOUND's only
  }
  return codeInfo(env).number; // an unnumbered taxonomy has no numbers
}
export function first(d: Detail): string {
  return d[0].msg; // a string has no `msg`: narrow first
}
export const status: Detail = 404; // a string or a list
