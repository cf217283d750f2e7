// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/google_rpc.yaml (google.rpc.Status as
// Google's JSON APIs send it: {"error": {"code", "message", "status",
// "details"}}). codegen/tests/it/client_types.rs type-checks it with
// `tsc --strict`, compiles it and runs `check` with node over the example
// envelopes of the generated docs.
import {
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type ErrorCode,
  type ErrorInfo,
  type InternalEnvelope,
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
    assertType<Equals<typeof env.error.status, string>>();
    return `unlisted ${env.error.status} ${env.error.code}`;
  }
  // The discriminant is nested: `env.error.status` narrows `env.error`.
  switch (env.error.status) {
    case "INTERNAL": {
      assertType<Equals<typeof env.error.code, 500>>();
      assertType<Equals<typeof env.error, InternalEnvelope["error"]>>();
      const details: ErrorInfo[] = env.error.details; // required for INTERNAL
      return `INTERNAL ${details.map((d) => `${d.domain}/${d.reason}`).join(",")}`;
    }
    case "NOT_FOUND": {
      assertType<Equals<typeof env.error.code, 404>>();
      const details: ErrorInfo[] | undefined = env.error.details; // optional
      return `NOT_FOUND ${details?.length ?? 0} ${env.error.message}`;
    }
    default: {
      const never: never = env.error;
      return never;
    }
  }
}

// Payloads as Google's JSON APIs send them (AIP-193).
export const notFound: AnyErrorEnvelope = {
  error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" },
};
export const internal: InternalEnvelope = {
  error: {
    code: 500,
    message: "Internal error encountered.",
    status: "INTERNAL",
    details: [{ reason: "BACKEND_DOWN", domain: "example.com" }],
  },
};
export const later: AnyErrorEnvelope = {
  error: { code: 504, message: "Deadline expired.", status: "DEADLINE_EXCEEDED" },
};

export function check(examples: unknown[]): string {
  const codes: readonly ErrorCode[] = LISTED_CODES;
  const out = [describe(notFound), describe(internal), describe(later)];
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  if (isListed({ error: "x" } as unknown as AnyErrorEnvelope)) throw new Error("listed a string");
  return `${codes.length} codes; ${out.join("; ")}`;
}
