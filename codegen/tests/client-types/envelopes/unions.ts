// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/unions.yaml (FastAPI's `detail`: a string,
// or a list of validation errors whose `loc` steps are strings or numbers;
// notes that are strings, objects or null; an unnumbered taxonomy). Checked
// by codegen/tests/it/client_types.rs.
import {
  codeInfo,
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type Detail,
  type Entry,
  type ErrorCode,
  type Location,
  type NotFoundEnvelope,
  type UnlistedCodeEnvelope,
  type ValidationError,
} from "./schema/error-envelope.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

function where(loc: Location[]): string {
  return loc.map((step) => (typeof step === "number" ? `[${step}]` : `.${step}`)).join("");
}

function detail(d: Detail): string {
  if (typeof d === "string") return d;
  assertType<Equals<typeof d, ValidationError[]>>();
  return d.map((e) => `${where(e.loc)}: ${e.msg} (${e.type})`).join(", ");
}

function note(n: Entry): string {
  if (n === null) return "-";
  if (typeof n === "string") return n;
  return `${n.text} <${n.href}>`;
}

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) {
    assertType<Equals<typeof env, UnlistedCodeEnvelope>>();
    return `unlisted ${env.code}`;
  }
  switch (env.code) {
    case "NOT_FOUND":
      assertType<Equals<typeof env, NotFoundEnvelope>>();
      return `${env.code} ${detail(env.detail)} [${(env.notes ?? []).map(note).join(" | ")}]`;
    case "VALIDATION_FAILED":
      return `${env.code} ${detail(env.detail)} ${codeInfo(env).retryable}`;
  }
}

// FastAPI's two shapes of `detail`, and a note of each kind.
export const notFound: AnyErrorEnvelope = {
  code: "NOT_FOUND",
  detail: "Not Found",
  notes: ["see the docs", { text: "API", href: "https://example.com/api" }, null],
};
export const invalid: AnyErrorEnvelope = {
  code: "VALIDATION_FAILED",
  detail: [{ loc: ["body", 0, "name"], msg: "Field required", type: "missing" }],
};
export const later: AnyErrorEnvelope = { code: "TEAPOT" };

export function check(examples: unknown[]): string {
  const codes: readonly ErrorCode[] = LISTED_CODES;
  const out = [describe(notFound), describe(invalid), describe(later)];
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${codes.length} codes; ${out.join("; ")}`;
}
