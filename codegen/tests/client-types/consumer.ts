// A TypeScript client of the generated module schema/error-envelope.js (with
// its declarations error-envelope.d.ts), type-checked with `tsc --strict` by
// codegen/tests/it/client_types.rs, then compiled and run with node against the
// example envelopes of docs/errors.md (run-consumer.mjs, listed.ts), so `isListed` is
// exercised at run time, not only declared.
//
// The README's pattern: `isListed` removes the unlisted variant (a code of a
// later release), then `switch (env.error_code)` narrows each case to its
// code's own interface.
import {
  isListed,
  type AnyErrorEnvelope,
  type ErrorCode,
  type ErrorEnvelope,
  type MatchNotFoundEnvelope,
  type UnlistedCodeEnvelope,
} from "../../../schema/error-envelope.js";
import { checkListed } from "./listed.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) {
    assertType<Equals<typeof env, UnlistedCodeEnvelope>>();
    // A later code: handle it by the members every envelope has.
    return `unlisted ${env.error_code} (${env.category}): ${env.message}`;
  }
  assertType<Equals<typeof env, ErrorEnvelope>>();
  switch (env.error_code) {
    case "MATCH_NOT_FOUND": {
      assertType<Equals<typeof env, MatchNotFoundEnvelope>>();
      assertType<Equals<typeof env.code, 2000>>();
      assertType<Equals<typeof env.retryable, true>>();
      const snippet: string = env.context.snippet;
      const edit: number = env.edit_index;
      return `edit ${edit} of ${env.file_path} not found near: ${snippet.length} chars`;
    }
    case "VALIDATION_FAILED":
      return env.violations.map((v) => `${v.path}: ${v.code}`).join("; ");
    case "DISK_FULL":
      assertType<Equals<typeof env.cause, "environment">>();
      return env.file_path;
    default: {
      // Every listed envelope has these, whatever its code.
      const code: ErrorCode = env.error_code;
      return `${code} (${env.code}): ${env.message}`;
    }
  }
}

/** Run by run-consumer.mjs on the example envelopes of docs/errors.md. */
export function check(envelopes: AnyErrorEnvelope[]): string {
  return checkListed(envelopes, describe);
}
