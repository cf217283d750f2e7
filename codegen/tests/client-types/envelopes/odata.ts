// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/odata.yaml (the Microsoft REST API
// guidelines' error: {"error": {"code", "message", "target", "details",
// "innererror"}}, `innererror` open). codegen/tests/it/client_types.rs
// type-checks it with `tsc --strict`, compiles it and runs `check` with node
// over the example envelopes of the generated docs.
import {
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type BadArgumentEnvelope,
  type ErrorCode,
  type InnerError,
} from "./schema/error-envelope.js";

/** The codes of an `innererror` chain, and its members the type does not list. */
function chain(inner: InnerError | undefined): string {
  const out: string[] = [];
  for (let i = inner; i !== undefined; i = i.innererror) {
    const listed = new Set(["code", "innererror"]);
    const others = Object.keys(i).filter((k) => !listed.has(k));
    out.push(`${i.code ?? "-"}${others.length ? `(${others.join(",")})` : ""}`);
  }
  return out.join(">");
}

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) {
    return `unlisted ${env.error.code}`;
  }
  switch (env.error.code) {
    case "BadArgument": {
      const inner = env.error.innererror?.innererror;
      // A member the type does not list is `unknown`: narrow it to use it.
      const min = typeof inner?.minLength === "string" ? inner.minLength : "-";
      return `${env.error.code} ${env.error.target ?? "-"} ${chain(env.error.innererror)} min=${min}`;
    }
    case "ServiceUnavailable":
      return `${env.error.code} ${chain(env.error.innererror)}`;
    default: {
      const never: never = env.error;
      return never;
    }
  }
}

// The guidelines' own example, as written there: `innererror` holds
// members its type does not list, at every depth.
export const guidelines: BadArgumentEnvelope = {
  error: {
    code: "BadArgument",
    message: "Previous passwords may not be reused",
    target: "password",
    innererror: {
      code: "PasswordError",
      innererror: {
        code: "PasswordDoesNotMeetPolicy",
        minLength: "6",
        maxLength: "64",
        characterTypes: ["lowerCase", "upperCase", "number", "symbol"],
        minDistinctCharacterTypes: "2",
        innererror: { code: "PasswordReuseNotAllowed" },
      },
    },
  },
};
export const later: AnyErrorEnvelope = {
  error: { code: "TooManyRequests", message: "slow down" },
};

export function check(examples: unknown[]): string {
  const codes: readonly ErrorCode[] = LISTED_CODES;
  const out = [describe(guidelines), describe(later)];
  for (const e of examples) {
    if (!isListed(e as AnyErrorEnvelope)) throw new Error(`not listed: ${JSON.stringify(e)}`);
    out.push(describe(e as AnyErrorEnvelope));
  }
  return `${codes.length} codes; ${out.join("; ")}`;
}
