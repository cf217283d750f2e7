// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): an open type still types the members it lists.
import type { ErrorEnvelope, InnerError } from "./schema/error-envelope.js";

export function wrong(env: ErrorEnvelope): unknown {
  if (env.error.code === "ServiceUnavailable") {
    return env.error.target; // BAD_ARGUMENT's only
  }
  return undefined;
}

export const listed: InnerError = { code: 7 }; // `code` is a string
export function unlisted(inner: InnerError): string {
  return inner.minLength; // unknown until narrowed
}
