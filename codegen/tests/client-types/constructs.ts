// A client of the artifacts of codegen/tests/fixtures/constructs.yaml:
// names on the wire that are not identifiers are quoted members, a code's
// wire name narrows the union, enum values keep their wire spelling.
import { type AnyErrorEnvelope, isListed } from "./schema/error-envelope.js";

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) return "unlisted " + env.error_code;
  switch (env.error_code) {
    case "ThrottlingException": {
      const detail = env["error-details"][0];
      const reason: "API_DISABLED" | "RATE_LIMITED" | "other" = detail.reason;
      const kind: string | undefined = detail.type;
      return `${env.context.retryDelay} ${detail["@type"]} ${reason} ${kind ?? "-"}`;
    }
    case "UNAVAILABLE":
      return env.message;
    default: {
      const never: never = env;
      return never;
    }
  }
}
