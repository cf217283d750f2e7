// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/families_range.yaml (JSON-RPC 2.0's error
// object, its reserved code ranges as families): an unlisted number is
// classified by the first range that holds it, and a listed number is never
// a family's. Checked and run by codegen/tests/it/client_types.rs.
import {
  codeInfo,
  familyOf,
  isListed,
  FAMILIES,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type FamilyInfo,
  type UnlistedCodeEnvelope,
} from "./schema/error-envelope.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

/** What a client does with a code of the family. */
function action(family: FamilyInfo): string {
  switch (family.category) {
    case "server":
      return family.retryable ? "retry later" : "give up";
    case "protocol":
      return family.cause === "input" ? "fix the request" : "report";
  }
}

export function describe(env: AnyErrorEnvelope): string {
  const family = familyOf(env);
  if (!isListed(env)) {
    assertType<Equals<typeof env, UnlistedCodeEnvelope>>();
    if (family === undefined) return `unlisted ${env.error.code} of no family`;
    const rule: "range" = family.rule;
    const [low, high]: [number, number] = [family.low, family.high];
    const category: "server" | "protocol" = family.category;
    return `${env.error.code} ${family.name} ${rule} [${low}, ${high}] ${category} ${family.cause} retryable=${family.retryable}: ${action(family)}`;
  }
  // A listed number is its own, even inside a family's range.
  const info = codeInfo(env);
  return `${env.error.code} listed ${info.category} family=${family?.name ?? "none"}`;
}

// Errors as servers send them; only the last is a listed code.
export const samples: AnyErrorEnvelope[] = [
  { jsonrpc: "2.0", error: { code: -32050, message: "Server busy" } },
  // Both ends of the narrower range, and just outside it: the wider range.
  { jsonrpc: "2.0", error: { code: -32000, message: "Server error" } },
  { jsonrpc: "2.0", error: { code: -32099, message: "Server error" } },
  { jsonrpc: "2.0", error: { code: -32100, message: "Reserved" } },
  { jsonrpc: "2.0", error: { code: -1, message: "Application error" } },
  { jsonrpc: "2.0", error: { code: -32603, message: "Internal error" } },
];

export function check(examples: unknown[]): string {
  const codes: readonly number[] = LISTED_CODES;
  const families = FAMILIES.map((f) => f.name).join(",");
  const out = samples.map(describe);
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${codes.length} codes, families ${families}; ${out.join("; ")}`;
}
