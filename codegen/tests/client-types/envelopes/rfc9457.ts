// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/rfc9457.yaml (RFC 9457 problem details,
// flat, told apart by the `type` URI). Checked by codegen/tests/it/client_types.rs.
import {
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type ErrorCode,
  type OutOfCreditEnvelope,
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
    return `unlisted ${env.type}`;
  }
  switch (env.type) {
    case "https://example.com/probs/out-of-credit": {
      assertType<Equals<typeof env, OutOfCreditEnvelope>>();
      assertType<Equals<typeof env.status, 403>>();
      assertType<Equals<typeof env.title, "You do not have enough credit.">>();
      const balance: number = env.balance;
      return `out of credit: ${balance} (${(env.accounts ?? []).length} accounts)`;
    }
    case "https://example.com/probs/service-down":
      assertType<Equals<typeof env.status, 503>>();
      return `down: ${env.detail ?? env.title}`;
  }
}

// RFC 9457 §3's example.
export const outOfCredit: AnyErrorEnvelope = {
  type: "https://example.com/probs/out-of-credit",
  title: "You do not have enough credit.",
  status: 403,
  detail: "Your current balance is 30, but that costs 50.",
  instance: "/account/12345/msgs/abc",
  balance: 30,
  accounts: ["/account/12345", "/account/67890"],
};
export const later: AnyErrorEnvelope = {
  type: "https://example.com/probs/later",
  status: 429,
};

export function check(examples: unknown[]): string {
  const codes: readonly ErrorCode[] = LISTED_CODES;
  const out = [describe(outOfCredit), describe(later)];
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${codes.length} codes; ${out.join("; ")}`;
}
