// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/kubernetes.yaml (metav1.Status: told apart
// by `reason`, which is empty when the server gives none; two reasons of one
// HTTP status; no numbers and no recovery hints). Checked by codegen/tests/it/client_types.rs.
import {
  codeInfo,
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type ErrorCode,
  type ExpiredEnvelope,
  type GoneEnvelope,
  type UnknownEnvelope,
  type UnlistedCodeEnvelope,
} from "./schema/error-envelope.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) {
    assertType<Equals<typeof env, UnlistedCodeEnvelope>>();
    return `unlisted ${env.reason}`;
  }
  const info = codeInfo(env);
  const rest = `${env.code} ${info.category} hints=${info.recoveryHints.length}`;
  switch (env.reason) {
    case "":
      assertType<Equals<typeof env, UnknownEnvelope>>();
      return `UNKNOWN ${rest} retryable=${info.retryable}`;
    case "NotFound":
      return `NOT_FOUND ${rest}: ${env.message}`;
    case "Gone":
      assertType<Equals<typeof env, GoneEnvelope>>();
      return `GONE ${rest}`;
    case "Expired":
      assertType<Equals<typeof env, ExpiredEnvelope>>();
      return `EXPIRED ${rest}`;
  }
}

// Statuses as the API server sends them.
export const samples: AnyErrorEnvelope[] = [
  {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: "etcdserver: request timed out",
    reason: "",
    code: 500,
  },
  {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: 'pods "web-0" not found',
    reason: "NotFound",
    code: 404,
  },
  {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: "too old resource version: 1 (2)",
    reason: "Expired",
    code: 410,
  },
  { kind: "Status", apiVersion: "v1", status: "Failure", message: "conflict", reason: "Conflict" },
];

export function check(examples: unknown[]): string {
  const codes: readonly ErrorCode[] = LISTED_CODES;
  const out = samples.map(describe);
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${codes.length} codes; ${out.join("; ")}`;
}
