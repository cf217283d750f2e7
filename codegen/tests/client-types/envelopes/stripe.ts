// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/stripe.yaml (Stripe's error: `type` is the
// category and `code` the code; an error without `code` is named by its type,
// `absent_means` per category, and a card error always has a code). Checked
// by codegen/tests/it/client_types.rs.
import {
  codeInfo,
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type ApiErrorEnvelope,
  type CardDeclinedEnvelope,
  type ErrorCode,
  type ExpiredCardEnvelope,
  type InvalidRequestEnvelope,
  type ParameterMissingEnvelope,
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
    return `unlisted ${env.error.type}/${env.error.code}`;
  }
  // The code the readers give: `code` when it is there, else its type's.
  const info = codeInfo(env);
  const err = env.error;
  let sent: string;
  switch (err.type) {
    case "api_error": {
      assertType<Equals<typeof err, ApiErrorEnvelope["error"]>>();
      const code: "api_error" | undefined = err.code;
      sent = code ?? "absent";
      break;
    }
    case "card_error": {
      assertType<Equals<typeof err, CardDeclinedEnvelope["error"] | ExpiredCardEnvelope["error"]>>();
      // A card error always has its code.
      const code: "card_declined" | "expired_card" = err.code;
      sent = code;
      break;
    }
    case "invalid_request_error": {
      assertType<
        Equals<typeof err, InvalidRequestEnvelope["error"] | ParameterMissingEnvelope["error"]>
      >();
      sent = `${err.code ?? "absent"} param=${err.param ?? "-"}`;
      break;
    }
    case "idempotency_error":
      sent = err.code ?? "absent";
      break;
  }
  const head = `${info.name} ${info.category} ${info.cause} retryable=${info.retryable} code=${sent}`;
  switch (info.name) {
    case "api_error":
      return `${head}: retry later`;
    case "idempotency_error":
      return `${head}: use a new key`;
    case "invalid_request_error":
    case "parameter_missing":
      return `${head}: fix the request`;
    case "card_declined":
    case "expired_card":
      return `${head}: ask for another card`;
  }
}

// Errors as Stripe's API sends them.
export const samples: AnyErrorEnvelope[] = [
  { error: { type: "api_error", message: "Something went wrong on Stripe's end." } },
  { error: { type: "idempotency_error", message: "Keys for idempotent requests can only be used once." } },
  { error: { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****1234" } },
  {
    error: { type: "invalid_request_error", code: "parameter_missing", param: "amount", message: "Missing required param: amount." },
  },
  {
    error: { type: "card_error", code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." },
  },
  { error: { type: "invalid_request_error", code: "resource_missing", message: "No such customer: 'cus_nope'" } },
];

/** A card error without `code` (its type has no fallback): no reader finds a code. */
export function codeless(text: string): string {
  const env = JSON.parse(text) as AnyErrorEnvelope;
  return `${isListed(env) ? "listed" : "not listed"}, codeInfo ${codeInfo(env)?.name ?? "none"}`;
}

export function check(examples: unknown[]): string {
  const codes: readonly ErrorCode[] = LISTED_CODES;
  const out = samples.map(describe);
  out.push(codeless('{"error": {"type": "card_error", "message": "Your card was declined."}}'));
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${codes.length} codes; ${out.join("; ")}`;
}
