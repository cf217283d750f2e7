// A TypeScript client of schema/error-envelope.d.ts, type-checked with
// `tsc --strict --noEmit` by codegen/tests/client_types.rs: narrowing an
// ErrorEnvelope on error_code gives the code's own interface.
import type {
  AnyErrorEnvelope,
  ErrorCode,
  ErrorEnvelope,
  MatchNotFoundEnvelope,
  UnlistedCodeEnvelope,
} from "../../../schema/error-envelope";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

export function describe(e: ErrorEnvelope): string {
  switch (e.error_code) {
    case "MATCH_NOT_FOUND": {
      assertType<Equals<typeof e, MatchNotFoundEnvelope>>();
      assertType<Equals<typeof e.code, 2000>>();
      assertType<Equals<typeof e.retryable, true>>();
      const snippet: string = e.context.snippet;
      const edit: number = e.edit_index;
      return `edit ${edit} of ${e.file_path} not found near:\n${snippet}`;
    }
    case "VALIDATION_FAILED":
      return e.violations.map((v) => `${v.path}: ${v.code}`).join("; ");
    case "DISK_FULL":
      assertType<Equals<typeof e.cause, "environment">>();
      return e.file_path;
    default:
      // Every envelope has these, whatever its code.
      return `${e.error_code} (${e.code}): ${e.message}`;
  }
}

// A server of a later release of the same major version may send a code
// this release does not list: handle it by the members every envelope has.
export function handle(e: AnyErrorEnvelope, listed: ReadonlySet<string>): string {
  if (listed.has(e.error_code)) {
    return describe(e as ErrorEnvelope);
  }
  const retry: boolean = e.retryable;
  return `${e.error_code} (${e.category}): ${e.message}${retry ? " (retry)" : ""}`;
}

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
export const known: ErrorCode = "MATCH_NOT_FOUND";
