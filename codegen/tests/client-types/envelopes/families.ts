// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/families.yaml (botocore's `{"Error":
// {"Code", "Message"}}` with a prefix and a suffix family): a code this
// release does not list is classified by its family, and a listed code is
// never a family's. Checked and run by codegen/tests/it/client_types.rs.
import {
  codeInfo,
  familyOf,
  isListed,
  FAMILIES,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type ErrorCode,
  type FamilyInfo,
  type UnlistedCodeEnvelope,
} from "./schema/error-envelope.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

/** What a retry loop decides from the family's category. */
function action(family: FamilyInfo): string {
  switch (family.category) {
    case "throttling":
      return family.retryable ? "back off" : "give up";
    case "not_found":
      return family.cause === "input" ? "fix the request" : "report";
  }
}

/** Which rule matched, as the family declares it. */
function rule(family: FamilyInfo): string {
  switch (family.rule) {
    case "prefix":
      return `${family.text}*`;
    case "suffix":
      return `*${family.text}`;
  }
}

export function describe(env: AnyErrorEnvelope): string {
  const family = familyOf(env);
  if (!isListed(env)) {
    assertType<Equals<typeof env, UnlistedCodeEnvelope>>();
    if (family === undefined) return `unlisted ${env.Error.Code} of no family`;
    assertType<Equals<typeof family, FamilyInfo>>();
    const category: "throttling" | "not_found" = family.category;
    const cause: "input" | "environment" | "server" = family.cause;
    const retryable: boolean = family.retryable;
    return `${env.Error.Code} ${family.name} ${rule(family)} ${category} ${cause} retryable=${retryable}: ${action(family)}`;
  }
  // A listed code is its own, even when its name matches a family.
  const info = codeInfo(env);
  return `${env.Error.Code} listed ${info.category} family=${family?.name ?? "none"}`;
}

// Errors as services send them; only the last is a listed code.
export const samples: AnyErrorEnvelope[] = [
  { Error: { Code: "TableNotFoundException", Message: "no such table" } },
  { Error: { Code: "ThrottlingOnSundayException", Message: "slow down" } },
  // Both rules match: the first family in precedence order wins.
  { Error: { Code: "ThrottlingNotFoundException", Message: "both" } },
  { Error: { Code: "ThrottledOnSunday", Message: "no rule matches" } },
  { Error: { Code: "ThrottlingException", Message: "Rate exceeded" } },
];

export function check(examples: unknown[]): string {
  const codes: readonly ErrorCode[] = LISTED_CODES;
  const families = FAMILIES.map((f) => f.name).join(",");
  const out = samples.map(describe);
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${codes.length} codes, families ${families}; ${out.join("; ")}`;
}
