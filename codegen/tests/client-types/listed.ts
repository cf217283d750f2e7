// The run-time half of the generated TypeScript module, for any taxonomy
// (codegen/tests/client_types.rs compiles this with `tsc --strict` next to
// splice's and examples/http-fetch's error-envelope.js and runs it with
// node): `isListed` accepts every example envelope of the taxonomy's docs,
// rejects a code of a later release, and `LISTED_CODES` has an example for
// each code.
import {
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type UnlistedCodeEnvelope,
} from "../../../schema/error-envelope.js";

export const later: UnlistedCodeEnvelope = {
  success: false,
  error_code: "A_LATER_CODE",
  code: 2999,
  category: "a_later_category",
  message: "m",
  retryable: false,
  cause: "server",
  recovery_hints: ["h"],
};

export function checkListed(
  envelopes: AnyErrorEnvelope[],
  describe: (env: AnyErrorEnvelope) => string = (env) =>
    isListed(env) ? env.error_code : `unlisted ${env.error_code}`,
): string {
  const seen = new Set<string>();
  for (const env of envelopes) {
    if (!isListed(env)) {
      throw new Error(`${env.error_code}: not listed`);
    }
    seen.add(env.error_code);
    describe(env);
  }
  if (isListed(later) || !describe(later).startsWith("unlisted A_LATER_CODE")) {
    throw new Error("a later code is taken for a listed one");
  }
  const notEnvelopes = [null, {}, "MATCH_NOT_FOUND"] as unknown as AnyErrorEnvelope[];
  if (notEnvelopes.some((x) => isListed(x))) {
    throw new Error("isListed accepts what is not an envelope");
  }
  const missing = LISTED_CODES.filter((c) => !seen.has(c));
  if (missing.length > 0) {
    throw new Error(`codes without an example envelope: ${missing.join(", ")}`);
  }
  return `isListed: ${envelopes.length} example envelopes listed, 1 later code unlisted, ${LISTED_CODES.length} listed codes`;
}

/** Run by run-consumer.mjs on the example envelopes of a taxonomy's errors.md. */
export function check(envelopes: AnyErrorEnvelope[]): string {
  return checkListed(envelopes);
}
