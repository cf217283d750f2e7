// Interop: the official MCP TypeScript SDK client drives the real splice
// binary over stdio. The SDK validates every structuredContent (success and
// error) against the tool's outputSchema, and rejects a tool list whose
// outputSchema lacks a top-level "type": "object"; both are exercised here.
//
// Run by tests/tests/it/interop.rs (cargo test), which sets SPLICE_BIN.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

// Whatever the SDK warns about (e.g. an unknown JSON Schema "format" in a
// tool schema) is a defect of ours: collect it and assert there is none.
const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.join(" "));
  warn(...args);
};

const bin = process.env.SPLICE_BIN;
if (!bin) throw new Error("SPLICE_BIN must point at the splice binary");

let root;
let client;

before(async () => {
  root = mkdtempSync(join(tmpdir(), "splice-interop-"));
  const transport = new StdioClientTransport({
    command: bin,
    args: ["--root", root, "--journal-dir", join(root, ".journal")],
    stderr: "inherit",
  });
  client = new Client({ name: "splice-interop", version: "1.0.0" });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

function file(name, text) {
  const p = join(root, name);
  writeFileSync(p, text);
  return p;
}

test("tools/list: four tools, object output schemas, annotations", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["list_transactions", "multi_edit", "multi_edit_files", "undo"]);
  for (const t of tools) {
    assert.equal(t.outputSchema.type, "object");
    const readOnly = t.name === "list_transactions";
    assert.equal(t.annotations.readOnlyHint, readOnly);
    assert.equal(t.annotations.destructiveHint, !readOnly);
    assert.equal(t.annotations.idempotentHint, readOnly);
    assert.ok(t.inputSchema.properties, "input schema has properties");
  }
  assert.deepEqual(warnings, [], "the SDK warned while compiling our schemas");
});

// A client that validates with the published schema and the tools' output
// schemas keeps them in one validator, and a client that generates types
// feeds each output schema to its generator alone: every outputSchema is
// one self-contained document (issue #27: the envelope inside it used to
// carry the published schema's $id and $defs of its own).
test("tools/list: output schemas are self-contained for validators and generators", async () => {
  const Ajv2020 = require("ajv/dist/2020").default;
  const { compile } = require("json-schema-to-typescript");
  const published = JSON.parse(readFileSync(new URL("../../schema/error-envelope.schema.json", import.meta.url), "utf8"));
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addSchema(published);
  const { tools } = await client.listTools();
  for (const t of tools) {
    assert.doesNotThrow(() => ajv.compile(t.outputSchema), `${t.name}: one Ajv 2020 strict instance with the published schema`);
    const ts = await compile(t.outputSchema, `${t.name}_output`, { bannerComment: "" });
    assert.match(ts, /VALIDATION_FAILED/, `${t.name}: the generated types name the error codes`);
    // One type per code the tool's operation lists, or per group of codes
    // with the same context (issue #27), each pinning its error_code(s),
    // and the context a code requires is required in its type: narrowing
    // on error_code reaches the code's context.
    const variants = t.outputSchema.anyOf[1].oneOf;
    assert.ok(variants.length > 1, `${t.name}: per-code variants`);
    for (const v of variants) {
      const name = v.properties.error_code;
      const codes = name.enum ?? [name.const];
      const body = ts.match(new RegExp(`export interface ${v.title} \\{([^}]*)\\}`))?.[1];
      assert.ok(body, `${t.name}: no type ${v.title} for ${codes}:\n${ts}`);
      const union = codes.map((c) => `"${c}"`).join("\\s*\\|\\s*");
      if (name.enum) {
        // A shared variant's codes are a named union type of their own.
        assert.match(body, new RegExp(`error_code\\??: ${name.title};`), `${t.name}: ${v.title}`);
        assert.match(ts, new RegExp(`export type ${name.title} =\\s*\\|?\\s*${union};`), `${t.name}: ${name.title}`);
      } else {
        assert.match(body, new RegExp(`error_code\\??: ${union};`), `${t.name}: ${v.title}`);
      }
      if (v.required?.includes("context")) {
        const context = v.properties.context.$ref.split("/").pop();
        assert.match(body, new RegExp(`\\bcontext: ${context};`), `${t.name}: ${v.title} requires its context`);
      }
    }
  }
});

test("multi_edit success: structured + text copies agree, file written", async () => {
  const p = file("ok.txt", "alpha\r\nbeta\r\ngamma\r\n");
  const r = await client.callTool({
    name: "multi_edit",
    arguments: { file_path: p, edits: [{ old_string: "alpha\nbeta", new_string: "ALPHA\nBETA" }] },
  });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.equal(r.structuredContent.success, true);
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
  assert.equal(readFileSync(p, "utf8"), "ALPHA\r\nBETA\r\ngamma\r\n");
  assert.ok(existsSync(p + ".bak"));
});

test("MATCH_NOT_FOUND: isError envelope validated by the SDK, file untouched", async () => {
  const p = file("nf.txt", "one\ntwo\nthree\n");
  const r = await client.callTool({
    name: "multi_edit",
    arguments: {
      file_path: p,
      edits: [
        { old_string: "one", new_string: "1" },
        { old_string: "fourteen", new_string: "14" },
        { old_string: "three", new_string: "3" },
      ],
    },
  });
  assert.equal(r.isError, true);
  const e = r.structuredContent;
  assert.equal(e.error_code, "MATCH_NOT_FOUND");
  assert.equal(e.retryable, true);
  assert.equal(e.cause, "input");
  assert.equal(e.edit_index, 1);
  assert.ok(e.context.snippet.includes("two"));
  assert.deepEqual(e.edit_status.map((s) => [s.edit_index, s.status]), [[1, "failed"], [2, "would_apply"]]);
  assert.equal(readFileSync(p, "utf8"), "one\ntwo\nthree\n");
  assert.ok(!existsSync(p + ".bak"), "no backup on a failed call");
});

test("AMBIGUOUS_MATCH lists locations", async () => {
  const p = file("amb.txt", "x = 1\nx = 1\n");
  const r = await client.callTool({
    name: "multi_edit",
    arguments: { file_path: p, edits: [{ old_string: "x = 1", new_string: "x = 2" }] },
  });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.error_code, "AMBIGUOUS_MATCH");
  assert.equal(r.structuredContent.context.match_count, 2);
  assert.deepEqual(r.structuredContent.context.match_locations.map((l) => l.line), [1, 2]);
});

test("VALIDATION_FAILED lists every violation with its own code", async () => {
  const r = await client.callTool({
    name: "multi_edit",
    arguments: { file_path: "relative.txt", edits: [{ old_string: "", new_string: "x" }] },
  });
  assert.equal(r.isError, true);
  const e = r.structuredContent;
  assert.equal(e.error_code, "VALIDATION_FAILED");
  const got = e.violations.map((v) => `${v.path}:${v.code}`).sort();
  assert.deepEqual(got, ["edits[0].old_string:EMPTY_OLD_STRING", "file_path:RELATIVE_PATH"]);
});

test("multi_edit_files: all or nothing", async () => {
  const a = file("a.txt", "a1\n");
  const b = file("b.txt", "b1\n");
  const ok = await client.callTool({
    name: "multi_edit_files",
    arguments: {
      files: [
        { file_path: a, edits: [{ old_string: "a1", new_string: "a2" }] },
        { file_path: b, edits: [{ old_string: "b1", new_string: "b2" }] },
      ],
      backup: false,
    },
  });
  assert.ok(!ok.isError, JSON.stringify(ok));
  assert.equal(ok.structuredContent.file_results.length, 2);
  assert.equal(readFileSync(a, "utf8"), "a2\n");
  const bad = await client.callTool({
    name: "multi_edit_files",
    arguments: {
      files: [
        { file_path: a, edits: [{ old_string: "a2", new_string: "a3" }] },
        { file_path: b, edits: [{ old_string: "nope", new_string: "b3" }] },
      ],
    },
  });
  assert.equal(bad.isError, true);
  assert.equal(bad.structuredContent.error_code, "MATCH_NOT_FOUND");
  assert.equal(bad.structuredContent.file_index, 1);
  assert.deepEqual(
    bad.structuredContent.file_statuses.map((s) => s.status),
    ["would_succeed", "failed"],
  );
  assert.equal(readFileSync(a, "utf8"), "a2\n");
});

test("multi_edit_files: create, delete and move in one transaction (issue #14)", async () => {
  const keep = file("keep.txt", "k1\n");
  const gone = file("gone.txt", "bye\n");
  const src = file("src.txt", "s1\n");
  const created = join(root, "made", "new.txt");
  const moved = join(root, "moved", "src.txt");
  const ok = await client.callTool({
    name: "multi_edit_files",
    arguments: {
      files: [
        { file_path: keep, edits: [{ old_string: "k1", new_string: "k2" }] },
        { file_path: created, op: "create", content: "new\n", create_parents: true },
        { file_path: gone, op: "delete" },
        { file_path: src, op: "move", move_to: moved, create_parents: true, edits: [{ old_string: "s1", new_string: "s2" }] },
      ],
      backup: false,
    },
  });
  assert.ok(!ok.isError, JSON.stringify(ok));
  const r = ok.structuredContent.file_results;
  assert.deepEqual(r.map((f) => f.op), [undefined, "create", "delete", "move"]);
  assert.equal(r[3].moved_to, moved);
  assert.equal(readFileSync(created, "utf8"), "new\n");
  assert.equal(readFileSync(moved, "utf8"), "s2\n");
  assert.ok(!existsSync(gone) && !existsSync(src));
  // Each new failure is a valid envelope the SDK accepts.
  const exists = await client.callTool({
    name: "multi_edit_files",
    arguments: { files: [{ file_path: created, op: "create", content: "x" }] },
  });
  assert.equal(exists.structuredContent.error_code, "FILE_ALREADY_EXISTS");
  const parent = await client.callTool({
    name: "multi_edit_files",
    arguments: { files: [{ file_path: join(root, "no", "dir.txt"), op: "create", content: "x" }] },
  });
  assert.equal(parent.structuredContent.error_code, "PARENT_DIRECTORY_MISSING");
  const conflict = await client.callTool({
    name: "multi_edit_files",
    arguments: {
      files: [
        { file_path: moved, op: "move", move_to: keep },
        { file_path: keep, op: "delete" },
      ],
    },
  });
  assert.equal(conflict.structuredContent.error_code, "VALIDATION_FAILED");
  assert.deepEqual(conflict.structuredContent.violations.map((v) => v.code), ["PATH_CONFLICT"]);
  const itself = await client.callTool({
    name: "multi_edit_files",
    arguments: { files: [{ file_path: moved, op: "move", move_to: moved }] },
  });
  assert.deepEqual(itself.structuredContent.violations.map((v) => v.code), ["MOVE_ONTO_ITSELF"]);
  assert.equal(readFileSync(keep, "utf8"), "k2\n");
});

test("undo and redo (issue #14): ids, listing, UNDO_CONFLICT and TRANSACTION_NOT_FOUND validated by the SDK", async () => {
  const a = file("undo-a.txt", "a1\n");
  const gone = file("undo-gone.txt", "bye\n");
  const made = join(root, "undo-made.txt");
  const ok = await client.callTool({
    name: "multi_edit_files",
    arguments: {
      files: [
        { file_path: a, edits: [{ old_string: "a1", new_string: "a2" }] },
        { file_path: gone, op: "delete" },
        { file_path: made, op: "create", content: "made\n" },
      ],
      backup: false,
    },
  });
  assert.ok(!ok.isError, JSON.stringify(ok));
  const id = ok.structuredContent.transaction_id;
  assert.match(id, /^[0-9a-f]{12}-[0-9a-f]{8}-[0-9a-f]{8}$/);
  const list = await client.callTool({ name: "list_transactions", arguments: { limit: 1 } });
  assert.ok(!list.isError, JSON.stringify(list));
  assert.equal(list.structuredContent.transactions[0].transaction_id, id);
  const undo = await client.callTool({ name: "undo", arguments: { transaction_id: id } });
  assert.ok(!undo.isError, JSON.stringify(undo));
  assert.equal(readFileSync(a, "utf8"), "a1\n");
  assert.equal(readFileSync(gone, "utf8"), "bye\n");
  assert.ok(!existsSync(made));
  const redo = await client.callTool({ name: "undo", arguments: { transaction_id: undo.structuredContent.transaction_id } });
  assert.ok(!redo.isError, JSON.stringify(redo));
  assert.equal(readFileSync(a, "utf8"), "a2\n");
  assert.ok(!existsSync(gone) && existsSync(made));
  // A file the redo wrote changes outside: undoing the redo is refused, naming it.
  writeFileSync(a, "outside\n");
  const conflict = await client.callTool({ name: "undo", arguments: { transaction_id: redo.structuredContent.transaction_id } });
  assert.equal(conflict.isError, true);
  assert.equal(conflict.structuredContent.error_code, "UNDO_CONFLICT");
  assert.deepEqual(conflict.structuredContent.context.changed_files.map((f) => f.file_path), [realpathSync(a)]);
  assert.equal(readFileSync(a, "utf8"), "outside\n");
  const missing = await client.callTool({ name: "undo", arguments: { transaction_id: "000000000000-00000000-00000000" } });
  assert.equal(missing.structuredContent.error_code, "TRANSACTION_NOT_FOUND");
});

test("100-file worst case: the answer stays under the bound, the connection survives", async () => {
  // Every line of 100 files rewritten, dry run with contents: unbounded,
  // the diffs and contents alone would be ~30 MB counting both copies, and the SDK
  // drops a connection whose message exceeds 10 MiB.
  const text = Array.from({ length: 1000 }, (_, i) => `value_${i} = compute(alpha, beta, gamma)  # note\n`).join("");
  mkdirSync(join(root, "big"), { recursive: true });
  const files = Array.from({ length: 100 }, (_, i) => {
    const p = file(join("big", `f${i}.py`), text);
    return { file_path: p, edits: [{ old_string: "compute", new_string: "COMPUTE", replace_all: true }] };
  });
  const r = await client.callTool({
    name: "multi_edit_files",
    arguments: { files, dry_run: true, include_content: true },
  });
  assert.ok(!r.isError, JSON.stringify(r).slice(0, 2000));
  const s = r.structuredContent;
  assert.deepEqual(JSON.parse(r.content[0].text), s);
  const wire = Buffer.byteLength(JSON.stringify(s)) + Buffer.byteLength(JSON.stringify(r.content[0].text));
  assert.ok(wire < 4 * 1024 * 1024, `answer is ${wire} bytes`);
  assert.equal(s.file_results.length, 100);
  assert.ok(s.message.includes("answer limited to 4 MiB"), s.message);
  assert.ok(s.file_results[0].diff_preview.startsWith("--- a/"));
  const last = s.file_results[99];
  assert.deepEqual(last.omitted, ["final_content", "diff_preview"]);
  assert.equal(last.diff_preview, undefined);
  assert.equal(last.replacements, 1000);
  assert.equal(readFileSync(files[0].file_path, "utf8"), text);
  // Still connected.
  const { tools } = await client.listTools();
  assert.equal(tools.length, 4);
});

test("unknown tool is a protocol error, not a tool result", async () => {
  await assert.rejects(
    client.callTool({ name: "no_such_tool", arguments: {} }),
    (err) => err.code === -32602,
  );
});

test("resources: the envelope schema and the error reference", async () => {
  const { resources } = await client.listResources();
  const schema = resources.find((r) => r.mimeType === "application/schema+json");
  const docs = resources.find((r) => r.mimeType === "text/markdown");
  assert.ok(schema && docs);
  const read = await client.readResource({ uri: schema.uri });
  const parsed = JSON.parse(read.contents[0].text);
  assert.equal(parsed.$id, schema.uri);
  const md = await client.readResource({ uri: docs.uri });
  assert.ok(md.contents[0].text.includes("MATCH_NOT_FOUND"));
});

test("client roots narrow the server's roots, and list_changed is honoured", async () => {
  const sub = join(root, "sub");
  mkdirSync(sub, { recursive: true });
  const inside = join(sub, "in.txt");
  writeFileSync(inside, "in\n");
  const outside = file("out-of-client-root.txt", "out\n");
  let offered = [{ uri: pathToFileURL(sub).href, name: "sub" }];
  const narrowed = new Client(
    { name: "splice-interop-roots", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true } } },
  );
  narrowed.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: offered }));
  await narrowed.connect(
    new StdioClientTransport({
      command: bin,
      args: ["--root", root, "--journal-dir", join(root, ".journal")],
      stderr: "inherit",
    }),
  );
  try {
    const edit = (p, from, to) =>
      narrowed.callTool({
        name: "multi_edit",
        arguments: { file_path: p, edits: [{ old_string: from, new_string: to }], backup: false },
      });
    const ok = await edit(inside, "in", "IN");
    assert.ok(!ok.isError, JSON.stringify(ok));
    assert.equal(readFileSync(inside, "utf8"), "IN\n");
    // Inside --root but outside the client's root: refused, untouched.
    const refused = await edit(outside, "out", "OUT");
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.error_code, "PATH_OUTSIDE_ROOTS");
    assert.equal(readFileSync(outside, "utf8"), "out\n");
    // The client widens its roots to the whole directory: allowed now, but
    // a client root can never reach beyond --root.
    offered = [{ uri: pathToFileURL(root).href }, { uri: "file:///" }];
    await narrowed.sendRootsListChanged();
    // The notification and the next call are handled concurrently (as the
    // spec allows); a call that still sees the old roots is refused without
    // side effects, so retry briefly.
    let now;
    for (let i = 0; i < 50; i++) {
      now = await edit(outside, "out", "OUT");
      if (!now.isError) break;
      assert.equal(now.structuredContent.error_code, "PATH_OUTSIDE_ROOTS");
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(!now.isError, JSON.stringify(now));
    assert.equal(readFileSync(outside, "utf8"), "OUT\n");
    const beyond = await edit("/etc/hostname", "x", "y");
    assert.equal(beyond.isError, true);
    assert.equal(beyond.structuredContent.error_code, "PATH_OUTSIDE_ROOTS");
  } finally {
    await narrowed.close();
  }
});
