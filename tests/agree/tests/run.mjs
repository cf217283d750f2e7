// Reads every payload of cases.json (argv[2]) with the generated module of
// its spec: `isListed(env)`, `codeInfo(env)?.name` and `familyOf(env)`,
// then `codesOf(response)` of each of its responses. Prints one JSON list,
// `{"listed": ..., "code": ..., "family": ...}` per payload, `{"codes":
// [...]}` per response, or `{"error": ...}` when the module throws.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = [];
for (const c of cases) {
  const m = await import(pathToFileURL(c.js).href);
  for (const env of c.payloads) {
    try {
      const info = m.codeInfo(env);
      const fam = typeof m.familyOf === "function" ? m.familyOf(env) : undefined;
      out.push({
        listed: m.isListed(env),
        code: info === undefined ? null : info.name,
        family: fam === undefined ? null : [fam.name, fam.category, fam.retryable, fam.cause],
      });
    } catch (e) {
      out.push({ error: String(e) });
    }
  }
  for (const response of c.responses) {
    try {
      out.push({ codes: m.codesOf(response).map((info) => (info === undefined ? null : info.name)) });
    } catch (e) {
      out.push({ error: String(e) });
    }
  }
}
console.log(JSON.stringify(out));
