// The published envelope schemas through tools client authors use, run by
// codegen/tests/it/client_types.rs (node, with tests/interop/node_modules):
//
// 1. Ajv (the validator of the official TypeScript SDK) in strict mode, its
//    2020-12 class: the schema compiles with no error and no warning, and
//    every example envelope of the docs validates.
// 2. json-schema-to-typescript, a client code generator: the TypeScript it
//    generates is written to OUT_DIR/generated.ts, for tsc to check with
//    codegen/tests/client-types/generated-consumer.ts (one type per code, not one
//    flattened type with every member optional).
//
// Usage: node schema-tools.mjs OUT_DIR SCHEMA[:DOCS] ...
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(new URL("../../../tests/interop/package.json", import.meta.url));
const Ajv2020 = require("ajv/dist/2020").default;
const { compile } = require("json-schema-to-typescript");

const [outDir, ...inputs] = process.argv.slice(2);
const MARKER = "<!-- example-envelope -->";

function examples(markdown) {
  const lines = markdown.split("\n");
  const found = [];
  lines.forEach((line, i) => {
    if (line.trim() !== MARKER) return;
    const end = lines.indexOf("```", i + 2);
    found.push(JSON.parse(lines.slice(i + 2, end).join("\n")));
  });
  return found;
}

let first = true;
for (const input of inputs) {
  const [schemaPath, docsPath] = input.split(":");
  const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
  const warnings = [];
  const logger = { log() {}, warn: (...m) => warnings.push(m.join(" ")), error: (...m) => warnings.push(m.join(" ")) };
  const ajv = new Ajv2020({ strict: true, allErrors: true, logger });
  const validate = ajv.compile(schema);
  if (warnings.length > 0) {
    console.error(`${schemaPath}: Ajv strict warned:\n${warnings.join("\n")}`);
    process.exit(1);
  }
  let checked = 0;
  if (docsPath) {
    for (const env of examples(readFileSync(docsPath, "utf8"))) {
      if (!validate(env)) {
        console.error(`${schemaPath}: example ${env.error_code} invalid: ${ajv.errorsText(validate.errors)}`);
        process.exit(1);
      }
      checked += 1;
    }
    if (checked === 0) {
      console.error(`${docsPath}: no example envelopes`);
      process.exit(1);
    }
  }
  console.log(`ajv strict: ${schemaPath} compiles; ${checked} examples valid`);
  if (first) {
    const ts = await compile(schema, schema.title, { bannerComment: "", additionalProperties: false });
    writeFileSync(join(outDir, "generated.ts"), ts);
    console.log(`json-schema-to-typescript: ${ts.split("\n").length} lines`);
    first = false;
  }
}
