// The run-time half of the generated TypeScript module, for any taxonomy
// (codegen/tests/it/client_types.rs compiles this with `tsc --strict` next to
// splice's and examples/http-fetch's error-envelope.js and runs it with
// node): `isListed` accepts every example envelope of the taxonomy's docs,
// rejects a code of a later release, and `LISTED_CODES` has an example for
// each code; `codeInfo` finds each example's `CodeInfo` in `CODES`, which
// agrees with what the envelope carries (number, category, retryable, cause,
// the hints that apply, the required fields).
import {
  codeInfo,
  CODES,
  isListed,
  LISTED_CODES,
  VIOLATION_KINDS,
  type AnyErrorEnvelope,
  type CodeInfo,
  type ErrorCode,
  type ErrorEnvelope,
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
    agrees(env, codeInfo(env));
    describe(env);
  }
  if (isListed(later) || !describe(later).startsWith("unlisted A_LATER_CODE")) {
    throw new Error("a later code is taken for a listed one");
  }
  if (codeInfo(later) !== undefined) {
    throw new Error("codeInfo finds a CodeInfo for a later code");
  }
  const notEnvelopes = [
    null,
    {},
    "MATCH_NOT_FOUND",
    { error_code: "toString" },
    { error_code: "__proto__" },
  ] as unknown as AnyErrorEnvelope[];
  if (notEnvelopes.some((x) => isListed(x) || codeInfo(x) !== undefined)) {
    throw new Error("isListed or codeInfo accepts what is not an envelope");
  }
  const missing = LISTED_CODES.filter((c) => !seen.has(c));
  if (missing.length > 0) {
    throw new Error(`codes without an example envelope: ${missing.join(", ")}`);
  }
  // CODES describes every code, violation kinds (which have no envelope
  // of their own) included.
  const keys = Object.keys(CODES).filter((c) => !VIOLATION_KINDS.includes(c as ErrorCode));
  if (keys.join() !== LISTED_CODES.join() || !Object.isFrozen(CODES)) {
    throw new Error(`CODES lists ${keys.join()}, LISTED_CODES ${LISTED_CODES.join()}`);
  }
  return `isListed: ${envelopes.length} example envelopes listed, 1 later code unlisted, ${LISTED_CODES.length} listed codes`;
}

/** What the envelope carries is what its `CodeInfo` says. */
function agrees(env: ErrorEnvelope, info: CodeInfo): void {
  const got = [env.error_code, env.code, env.category, env.retryable, env.cause];
  const want = [info.name, info.number, info.category, info.retryable, info.cause];
  if (got.join() !== want.join()) {
    throw new Error(`${env.error_code}: the envelope says ${got}, CODES says ${want}`);
  }
  // The general hints, and each conditional one whose field has one of its values.
  const top = env as unknown as Record<string, unknown>;
  const context = (top.context ?? {}) as Record<string, unknown>;
  const sent = info.hintConditions.filter(
    (cond) => cond === null || cond[1].includes(String(context[cond[0]] ?? top[cond[0]])),
  );
  if (env.recovery_hints.length !== sent.length) {
    throw new Error(`${env.error_code}: ${env.recovery_hints.length} hints, CODES says ${sent.length} apply`);
  }
  for (const field of info.requiredFields) {
    if (!(field in top) && !(field in context)) {
      throw new Error(`${env.error_code}: required field ${field} is missing`);
    }
  }
}

/** Run by run-consumer.mjs on the example envelopes of a taxonomy's errors.md. */
export function check(envelopes: AnyErrorEnvelope[]): string {
  return checkListed(envelopes);
}
