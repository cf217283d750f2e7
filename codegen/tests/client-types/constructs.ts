// A client of the artifacts of codegen/tests/fixtures/constructs.yaml:
// names on the wire that are not identifiers are quoted members, a code's
// wire name narrows the union, enum values keep their wire spelling.
import { type AnyErrorEnvelope, isListed } from "./schema/error-envelope.js";

export function describe(env: AnyErrorEnvelope): string {
  if (!isListed(env)) return "unlisted " + env.error_code;
  switch (env.error_code) {
    case "ThrottlingException":
    case "Throttling":
    case "ThrottledException":
    case "RequestLimitExceeded": {
      const problem: "https://example.com/problems/throttled" = env.type;
      const status: "RESOURCE_EXHAUSTED" = env.status;
      const detail = env["error-details"][0];
      const reason: "API_DISABLED" | "RATE_LIMITED" | "other" = detail.reason;
      const kind: string | undefined = detail.type;
      const count: number = detail.count;
      const total: number | null = detail.total;
      const ratio: number | null | undefined = detail.ratio;
      const service: string | undefined = detail.metadata["service"];
      const quotas: Record<string, number> | undefined = env.context.quotas;
      let delay = "-";
      for (const d of env.context.details ?? []) {
        if (d["@type"] === "type.googleapis.com/google.rpc.RetryInfo") delay = d.retryDelay;
        else delay += d.reason;
      }
      return `${problem} ${status} ${env.context.retryDelay} ${detail["@type"]} ${reason} ${kind ?? "-"} ${count} ${total ?? "null"} ${ratio ?? "-"} ${service} ${quotas?.["requests"]} ${delay}`;
    }
    case "UNAVAILABLE": {
      const status: "UNAVAILABLE" = env.status;
      return `${env.message} ${status}`;
    }
    default: {
      const never: never = env;
      return never;
    }
  }
}
