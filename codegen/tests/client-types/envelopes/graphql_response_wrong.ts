// Must NOT type-check (codegen/tests/it/client_types.rs asserts exactly these
// errors): a response holds at least one error, `data` is `unknown` until
// narrowed, and a code of a later release has no `CodeInfo`.
import { codesOf, type ErrorResponse } from "./schema/error-envelope.js";

export const empty: ErrorResponse = { errors: [] }; // at least one error
export function hero(response: ErrorResponse): unknown {
  return response.data.hero; // narrow `data` first
}
export function name(response: ErrorResponse): string {
  return codesOf(response)[0].name; // undefined for a later code
}
