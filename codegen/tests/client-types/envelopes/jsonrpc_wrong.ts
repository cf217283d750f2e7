// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors).
import type { ErrorEnvelope } from "./schema/error-envelope.js";

export function wrong(env: ErrorEnvelope): unknown {
  if (env.error.code === -32700) {
    return env.error.data?.method; // PARSE_ERROR's data has no method
  }
  const version: "1.0" = env.jsonrpc; // always "2.0"
  return version;
}
