// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/jsonrpc.yaml (a JSON-RPC 2.0 error
// response: {"jsonrpc": "2.0", "error": {"code", "message", "data"}}, told
// apart by the number alone). Checked by codegen/tests/it/client_types.rs.
import {
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type MethodNotFoundEnvelope,
  type UnlistedCodeEnvelope,
} from "./schema/error-envelope.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

export function describe(env: AnyErrorEnvelope): string {
  assertType<Equals<typeof env.jsonrpc, "2.0">>();
  if (!isListed(env)) {
    assertType<Equals<typeof env, UnlistedCodeEnvelope>>();
    return `unlisted ${env.error.code}`;
  }
  switch (env.error.code) {
    case -32601: {
      assertType<Equals<typeof env.error, MethodNotFoundEnvelope["error"]>>();
      const method: string = env.error.data.method; // required
      return `METHOD_NOT_FOUND ${method}`;
    }
    case -32700:
      return `PARSE_ERROR at ${env.error.data?.position ?? "?"}`;
    case -32603:
      return `INTERNAL_ERROR ${env.error.message}`;
    default: {
      const never: never = env.error;
      return never;
    }
  }
}

// What a JSON-RPC 2.0 server sends (without the response's `id`).
export const methodNotFound: AnyErrorEnvelope = {
  jsonrpc: "2.0",
  error: { code: -32601, message: "Method not found", data: { method: "tools/cal" } },
};
export const parseError: AnyErrorEnvelope = {
  jsonrpc: "2.0",
  error: { code: -32700, message: "Parse error" },
};
export const later: AnyErrorEnvelope = {
  jsonrpc: "2.0",
  error: { code: -32800, message: "Request cancelled", data: { reason: "user" } },
};

export function check(examples: unknown[]): string {
  const numbers: readonly number[] = LISTED_CODES;
  const out = [describe(methodNotFound), describe(parseError), describe(later)];
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${numbers.length} codes; ${out.join("; ")}`;
}
