// A client of the TypeScript that json-schema-to-typescript (a code
// generator, not ours) generates from schema/error-envelope.schema.json,
// type-checked with `tsc --strict` by codegen/tests/it/client_types.rs: the
// generator keeps one type per code with its required members required and
// its number and retryability literal, instead of flattening every code
// into one type whose members are all optional.
import type {
  ErrorCode,
  MatchNotFoundEnvelope,
  SpliceErrorEnvelope,
  UnlistedCodeEnvelope,
} from "./generated";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

type Of<C extends ErrorCode> = Extract<SpliceErrorEnvelope, { error_code: C }>;
assertType<Equals<Of<"MATCH_NOT_FOUND">, MatchNotFoundEnvelope>>();
assertType<Equals<Of<"MATCH_NOT_FOUND">["code"], 2000>>();
assertType<Equals<Of<"DISK_FULL">["cause"], "environment">>();

function is<C extends ErrorCode>(e: SpliceErrorEnvelope, code: C): e is Of<C> {
  return e.error_code === code;
}

export function describe(e: SpliceErrorEnvelope): string {
  if (is(e, "MATCH_NOT_FOUND")) {
    const snippet: string = e.context.snippet;
    const edit: number = e.edit_index;
    // @ts-expect-error MATCH_NOT_FOUND carries no violations
    e.violations;
    return `edit ${edit} of ${e.file_path} not found near:\n${snippet}`;
  }
  if (is(e, "VALIDATION_FAILED")) {
    return e.violations.map((v) => `${v.path}: ${v.code}`).join("; ");
  }
  // A code of a later release: the members every envelope has.
  const later: SpliceErrorEnvelope = {
    success: false,
    error_code: "A_LATER_CODE",
    code: 2999,
    category: "a_later_category",
    message: "m",
    retryable: false,
    cause: "server",
    recovery_hints: ["h"],
  } satisfies UnlistedCodeEnvelope;
  return `${e.error_code} (${e.code}): ${e.message} ${later.retryable}`;
}
