// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/stripe_pairs.yaml (codes unique only
// within their category: `expired` is a card error's code and an invalid
// request's, and `card_declined` an alias of the latter). Checked by
// codegen/tests/it/client_types.rs.
import {
  CODES,
  codeInfo,
  isListed,
  type AnyErrorEnvelope,
  type CardDeclinedEnvelope,
  type ExpiredCardEnvelope,
  type ExpiredKeyEnvelope,
  type InvalidRequestEnvelope,
  type ParameterMissingEnvelope,
} from "./schema/error-envelope.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) {
    return `unlisted ${env.error.type}/${env.error.code}`;
  }
  const info = codeInfo(env);
  const err = env.error;
  if (err.type === "card_error") {
    // The category narrows the code to the card errors' names.
    assertType<Equals<typeof err, CardDeclinedEnvelope["error"] | ExpiredCardEnvelope["error"]>>();
    const code: "card_declined" | "expired" | "expired_card" = err.code;
    return `${info.category}/${info.name} sent ${code}: ${info.title}`;
  }
  if (err.type === "invalid_request_error") {
    assertType<
      Equals<
        typeof err,
        InvalidRequestEnvelope["error"] | ParameterMissingEnvelope["error"] | ExpiredKeyEnvelope["error"]
      >
    >();
  }
  return `${info.category}/${info.name} sent ${err.code ?? "absent"}: ${info.title}`;
}

// The same name in two categories, an alias that is another category's
// name, and listed names in categories that do not list them.
export const samples: AnyErrorEnvelope[] = [
  { error: { type: "card_error", code: "expired", message: "Your card has expired." } },
  { error: { type: "invalid_request_error", code: "expired", message: "The key has expired." } },
  { error: { type: "invalid_request_error", code: "card_declined" } },
  { error: { type: "card_error", code: "card_declined" } },
  { error: { type: "api_error", code: "expired" } },
  { error: { type: "card_error", code: "parameter_missing" } },
];

export function check(examples: unknown[]): string {
  const out = samples.map(describe);
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  const categories = Object.keys(CODES).length;
  return `${categories} categories, card_error/expired: ${CODES["card_error"]?.["expired"]?.title}; ${out.join("; ")}`;
}
