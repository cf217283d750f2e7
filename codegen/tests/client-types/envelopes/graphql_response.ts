// A client of the TypeScript module generated from
// codegen/tests/fixtures/envelopes/graphql_response.yaml (GraphQL's response:
// `errors`, a non-empty list of envelopes, beside `data`). Checked by
// codegen/tests/it/client_types.rs.
import {
  codesOf,
  isListed,
  LISTED_CODES,
  type AnyErrorEnvelope,
  type BadUserInputEnvelope,
  type ErrorResponse,
} from "./schema/error-envelope.js";

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;
function assertType<T extends true>(): T | void {}

assertType<Equals<ErrorResponse["data"], unknown>>();

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) return `unlisted ${env.extensions?.code}`;
  return `${env.extensions?.code ?? "(no code)"} ${env.message}`;
}

// An entry of a listed code is its envelope type.
const badInput: BadUserInputEnvelope = {
  message: "bad input",
  extensions: { code: "BAD_USER_INPUT", argumentName: "id" },
};

// The first error is always there: the list is a non-empty tuple.
function first(response: ErrorResponse): AnyErrorEnvelope {
  return response.errors[0];
}

// Several errors (without a code, with one, a later one) and `data` null,
// absent, an object.
export const samples: ErrorResponse[] = [
  {
    errors: [
      { message: "boom", locations: [{ line: 1, column: 3 }], path: ["hero", 0, "name"] },
      badInput,
      { message: "later", extensions: { code: "PERSISTED_QUERY_NOT_FOUND" } },
    ],
    data: null,
  },
  { errors: [{ message: "Syntax Error", extensions: { code: "GRAPHQL_PARSE_FAILED" } }] },
  { errors: [{ message: "no user" }], data: { hero: null } },
];

export function check(examples: unknown[]): string {
  const codes: readonly string[] = LISTED_CODES;
  const out = samples.map((r) => {
    const names = codesOf(r).map((info) => info?.name ?? "unlisted");
    const data = "data" in r ? JSON.stringify(r.data) : "absent";
    return `[${names.join(",")}] ${describe(first(r))} data=${data}`;
  });
  for (const e of examples) {
    const response = { errors: [e as AnyErrorEnvelope] } as ErrorResponse;
    out.push(codesOf(response).map((info) => info?.name ?? "unlisted").join(","));
  }
  return `${codes.length} codes; ${out.join("; ")}`;
}
