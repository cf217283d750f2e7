// Runs the compiled consumer.ts against every example envelope of an
// errors.md (the JSON block after each `<!-- example-envelope -->` marker).
// Usage: node run-consumer.mjs <compiled consumer.js> <errors.md>
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [consumerJs, errorsMd] = process.argv.slice(2);
const { check } = await import(pathToFileURL(consumerJs).href);
const lines = readFileSync(errorsMd, "utf8").split("\n");
const envelopes = [];
lines.forEach((line, i) => {
  if (line.trim() !== "<!-- example-envelope -->") return;
  if (lines[i + 1].trim() !== "```json") throw new Error(`line ${i + 2}: no json block`);
  const end = lines.indexOf("```", i + 2);
  envelopes.push(JSON.parse(lines.slice(i + 2, end).join("\n")));
});
console.log(check(envelopes));
