// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): the empty reason is a literal of its own, the constants are
// pinned, and an unnumbered taxonomy has no numbers.
import { codeInfo, type ErrorEnvelope, type UnknownEnvelope } from "./schema/error-envelope.js";

export const unknown: UnknownEnvelope = {
  kind: "Status",
  apiVersion: "v1",
  status: "Failure",
  message: "no reason",
  reason: "Unknown",
  code: 500,
};
export function wrong(env: ErrorEnvelope): unknown {
  if (env.status === "Success") return undefined;
  return codeInfo(env).number;
}
