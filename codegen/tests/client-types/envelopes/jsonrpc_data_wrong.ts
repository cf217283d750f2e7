// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): a `json` value is `unknown` until narrowed, and a member of type
// `json` is still required.
import type { ErrorEnvelope, Param } from "./schema/error-envelope.js";

export function wrong(env: ErrorEnvelope): unknown {
  if (env.code === -32603) {
    return env.data.reason; // narrow `data` first
  }
  return undefined;
}
export const param: Param = { name: "limit" }; // `value` is required
