// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/jsonrpc_data.yaml (JSON-RPC 2.0's `data`,
// which may hold any JSON value: `type: json`). Checked by
// codegen/tests/it/client_types.rs.
import {
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type InternalErrorEnvelope,
  type Param,
} from "./schema/error-envelope.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

// A `json` value is `unknown`: the reader narrows it to look inside.
function shape(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return `list(${v.length})`;
  if (typeof v === "object") return `object(${Object.keys(v).join(",")})`;
  return typeof v;
}

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) return `unlisted ${env.code}`;
  switch (env.code) {
    case -32602: {
      const data = "data" in env ? shape(env.data) : "absent";
      const params: Param[] = env.params ?? [];
      return `INVALID_PARAMS ${data} [${params.map((p) => `${p.name}=${shape(p.value)}`).join(",")}]`;
    }
    case -32603:
      assertType<Equals<typeof env, InternalErrorEnvelope>>();
      assertType<Equals<typeof env.data, unknown>>();
      return `INTERNAL_ERROR ${shape(env.data)}`;
  }
}

// `data` as a string, `null` sent, a list; members of any type; an unlisted code.
export const samples: AnyErrorEnvelope[] = [
  {
    code: -32602,
    message: "Invalid params",
    data: "limit must be positive",
    params: [
      { name: "limit", value: -1 },
      { name: "filter", value: { op: "eq" } },
      { name: "strict", value: true },
    ],
  },
  { code: -32602, message: "Invalid params", data: null },
  { code: -32603, message: "Internal error", data: [1, "two", null] },
  { code: -32099, message: "Server error" },
];

export function check(examples: unknown[]): string {
  const codes: readonly number[] = LISTED_CODES;
  const out = samples.map(describe);
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${codes.length} codes; ${out.join("; ")}`;
}
