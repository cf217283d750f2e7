// The benchmark driver: splice against the official MCP filesystem server
// (`@modelcontextprotocol/server-filesystem`, tool `edit_file`) and against
// the floor (bench/floor: the least work a durable edit must do).
//
// Both MCP servers are driven by the same official TypeScript SDK Client
// over StdioClientTransport, from this one process, so the client-side cost
// (JSON-RPC framing, output-schema validation, event loop) is the same code
// for both. Within a workload the servers are alternated operation by
// operation, and the order is shuffled every round (seeded), so drift of the
// machine (page cache, CPU frequency, other load) and whatever one side
// leaves for the next spread evenly over all sides.
//
// Usage: node driver.mjs --splice BIN --floor BIN [--smoke] [--only small-edit|large|crowded|model-context|cold-start] [--report-dir DIR]
//   --smoke        tiny sizes and counts; asserts every workload still works;
//                  writes the report into the (deleted) temp dir, not docs/.
//   --only small-edit
//                  only the small-edit comparison (all eight sides, full count),
//                  printed to stderr with its target; writes no report. For
//                  iterating on the most common call in a minute or two.
//   --only large   only the two large calls (2 MB / 200 edits, 5 MB replace-all),
//                  splice, --baseline and the floor, printed; a few minutes.
//   --only model-context
//                  only what each server's tools/list puts in the model's
//                  context (bytes and tokens), printed; a few seconds.
//   --only cold-start
//                  only the cold start (spawn to tools/list reply, to
//                  listTools() resolving, the SDK's compile of the output
//                  schemas, the sizes), printed, with --baseline as a third
//                  side; no floor needed.
//   --report-dir   where benchmarks.md and benchmarks.svg go (default: ../docs,
//                  or the temp dir with --smoke).
// bench/run wraps this with the builds and `npm ci`.
import { spawn, execFileSync } from "node:child_process";
import {
  mkdtempSync, writeFileSync, readFileSync, rmSync, existsSync, mkdirSync, readdirSync,
} from "node:fs";
import { tmpdir, cpus } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { countTokens } from "gpt-tokenizer";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const here = dirname(fileURLToPath(import.meta.url));

// The SDK's schema compiler warns once per connection about every schema
// keyword it does not know (splice's `"format": "uint64"`); say each once.
const warned = new Set();
const warn = console.warn.bind(console);
console.warn = (...args) => {
  const key = args.join(" ");
  if (!warned.has(key)) {
    warned.add(key);
    warn("[sdk]", ...args);
  }
};
const repo = resolve(here, "..");

// ---------------------------------------------------------------- options

function parseArgs(argv) {
  const opts = { smoke: false, only: null, splice: null, baseline: null, floor: null, reportDir: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--smoke") opts.smoke = true;
    else if (a === "--splice") opts.splice = resolve(value());
    else if (a === "--floor") opts.floor = resolve(value());
    else if (a === "--baseline") opts.baseline = resolve(value());
    else if (a === "--report-dir") opts.reportDir = resolve(value());
    else if (a === "--only") {
      opts.only = value();
      if (!["small-edit", "large", "crowded", "model-context", "cold-start", "failure-payloads"].includes(opts.only)) {
        throw new Error(`--only: unknown workload ${opts.only} (known: small-edit, large, crowded, model-context, cold-start, failure-payloads)`);
      }
    }
    else throw new Error(`unknown argument ${a}`);
  }
  // A smoke run writes its report into the temp dir unless told otherwise.
  if (!opts.smoke) opts.reportDir ??= join(repo, "docs");
  for (const [flag, path] of [["--splice", opts.splice], ["--floor", opts.floor]]) {
    if (!path) throw new Error(`${flag} BIN is required`);
    if (!existsSync(path)) throw new Error(`${flag}: no such file ${path}`);
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));

// Every size and count of the run. The full plan is what the issue asks for;
// the smoke plan only proves that each workload still runs and checks out.
const KB = 1024;
const MB = 1024 * 1024;
const plan = opts.smoke
  ? {
      coldStarts: 2,
      smallEdits: 20,
      bigFile: { size: 64 * KB, edits: 20, rounds: 2 },
      replaceAll: { size: 64 * KB, occurrences: 1000, rounds: 2 },
      sweep: [{ size: 1 * KB, rounds: 4 }, { size: 16 * KB, rounds: 4 }],
      crowded: { files: 500, rounds: 4 },
      warmup: 2,
    }
  : {
      coldStarts: 20,
      smallEdits: 1000,
      bigFile: { size: 2 * MB, edits: 200, rounds: 20 },
      replaceAll: { size: 5 * MB, occurrences: 100_000, rounds: 20 },
      sweep: [
        { size: 1 * KB, rounds: 60 },
        { size: 16 * KB, rounds: 60 },
        { size: 256 * KB, rounds: 40 },
        { size: 1 * MB, rounds: 30 },
        { size: 4 * MB, rounds: 20 },
        { size: 16 * MB, rounds: 16 },
      ],
      crowded: { files: 10_000, rounds: 200 },
      warmup: 20,
    };

// splice must accept the 16 MiB files of the sweep.
const SPLICE_MAX_FILE_SIZE = 64 * MB;
const CALL_TIMEOUT_MS = 10 * 60 * 1000;

const work = mkdtempSync(join(tmpdir(), "splice-bench-"));
// Not a measured side: a floor process used only for its untimed `syncfs`.
let flusher;
const log = (...a) => console.error("[bench]", ...a);

// ---------------------------------------------------------------- statistics

function quantile(samples, q) {
  assert.ok(samples.length > 0, "no samples");
  const s = [...samples].sort((a, b) => a - b);
  // Nearest rank: the smallest sample with at least q of the samples at or below it.
  const rank = Math.max(1, Math.ceil(q * s.length));
  return s[rank - 1];
}
const median = (s) => quantile(s, 0.5);

async function timed(fn) {
  const t0 = performance.now();
  const r = await fn();
  return [performance.now() - t0, r];
}

/**
 * `xs` in the order of round `round`: a shuffle seeded by the round, so
 * every side gets every position and follows every other side. A rotation
 * (the order before) gives every position too, but keeps each side behind
 * the same neighbour in every round, and two copies of one splice binary
 * then differ at the p50 of the small edit by more than the effects
 * measured (the one behind the floor served over MCP is the slower).
 */
function shuffled(xs, round) {
  // mulberry32: a small seeded generator, so runs are reproducible.
  let a = (round + 0x9e3779b9) >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** User + system CPU time of a process so far, in ms (10 ms resolution). */
function cpuMs(pid) {
  const { user, sys } = cpuSplitMs(pid);
  return user + sys;
}

/** User and system CPU time of a process so far, in ms. */
function cpuSplitMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name; utime and stime are 14 and 15.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: (Number(f[11]) * 1000) / CLOCK_TICKS, sys: (Number(f[12]) * 1000) / CLOCK_TICKS };
}
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

function readProcStatus(pid, field) {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = text.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

// ---------------------------------------------------------------- the sides

/** Last bytes of a child's stderr, quoted when it misbehaves. */
function tailOf(stream) {
  const state = { text: "" };
  stream?.on("data", (chunk) => {
    state.text = (state.text + chunk.toString()).slice(-4000);
  });
  return state;
}

/** An MCP server reached through the SDK client. */
class McpSide {
  constructor(name, command, args) {
    this.name = name;
    this.command = command;
    this.args = args;
  }

  /** Runs the server under strace, counting its fsync-family calls into `file`. */
  traceFsyncs(file) {
    this.args = ["-f", "-qq", "-e", "trace=fsync,fdatasync,sync_file_range,syncfs", "-o", file, this.command, ...this.args];
    this.command = "strace";
    return this;
  }

  /**
   * Spawns, connects (initialize) and lists the tools. Records when the
   * tools/list reply reached the transport (`listReplyMs`, from the spawn)
   * and its size, apart from when the SDK's `listTools()` resolved (which
   * adds the client's compilation of every tool's output schema).
   */
  async start() {
    const t0 = performance.now();
    this.transport = new StdioClientTransport({
      command: this.command,
      args: this.args,
      stderr: "pipe",
    });
    this.stderr = tailOf(this.transport.stderr);
    this.client = new Client({ name: "splice-bench", version: "1.0.0" });
    await this.client.connect(this.transport);
    const deliver = this.transport.onmessage;
    this.transport.onmessage = (msg, extra) => {
      if (this.listReplyMs === undefined && Array.isArray(msg?.result?.tools)) {
        this.listReplyMs = performance.now() - t0;
        this.listBytes = Buffer.byteLength(JSON.stringify(msg));
      }
      deliver(msg, extra);
    };
    this.tools = (await this.client.listTools()).tools;
    this.pid = this.transport.pid;
  }

  async call(name, args) {
    try {
      return await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: CALL_TIMEOUT_MS,
      });
    } catch (err) {
      throw new Error(`${this.name}: ${name} threw ${err.message}\nserver stderr: ${this.stderr.text}`);
    }
  }

  async close() {
    await this.client?.close();
  }
}

class Splice extends McpSide {
  /**
   * splice as a user gets it: recording for undo on (its default; the undo
   * store is `undo` inside the journal directory, on the bench file system).
   * `record: false` turns recording off (`--undo-max-transactions 0`), to
   * show what recording costs side by side.
   */
  constructor(bin, { backup = false, record = true, name = null } = {}) {
    const kind = backup ? "backup" : record ? "record" : "off";
    super(name ?? (backup ? "splice (backup on)" : record ? "splice" : "splice (recording off)"), bin, [
      "--root", work,
      // Each side its own journal directory, hence its own undo store (a
      // store shared by the sides would make one side's recording and
      // pruning land in another's calls).
      "--journal-dir", join(work, `.splice-journal-${kind}${name ? "-" + name.replace(/\W+/g, "-") : ""}`),
      "--max-file-size", String(SPLICE_MAX_FILE_SIZE),
      ...(record ? [] : ["--undo-max-transactions", "0"]),
    ]);
    this.backup = backup;
  }

  /**
   * What splice answers a small edit: its `multi_edit` output schema and the
   * structured result of one real small edit on a file of its own (untimed),
   * for the floor to answer with (`FloorMcp`'s `answerOf`).
   */
  async answerSample() {
    const path = join(work, `answer-sample-${process.pid}.txt`);
    writeFileSync(path, smallSource().text);
    const r = await this.edit(path, smallEdits(true));
    rmSync(path, { force: true });
    const tool = this.tools.find((t) => t.name === "multi_edit");
    assert.ok(tool?.outputSchema, "splice's multi_edit declares an outputSchema");
    return { outputSchema: tool.outputSchema, structuredContent: r.structuredContent };
  }

  /** Runs `multi_edit`; returns the raw result. */
  raw(path, edits) {
    return this.call("multi_edit", {
      file_path: path,
      edits: edits.map((e) => ({
        old_string: e.old,
        new_string: e.new,
        ...(e.all ? { replace_all: true } : {}),
      })),
      backup: this.backup,
    });
  }

  async edit(path, edits) {
    const r = await this.raw(path, edits);
    if (r.isError || r.structuredContent?.success !== true) {
      throw new Error(`${this.name} edit failed: ${r.content?.[0]?.text}`);
    }
    return r;
  }
}

class Filesystem extends McpSide {
  constructor() {
    const entry = join(here, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    // `node dist/index.js` directly (what `npx` ends up running), so the
    // measured process is the node server itself and not an npx wrapper.
    super("filesystem", process.execPath, [entry, work]);
  }

  raw(path, edits) {
    assert.ok(!edits.some((e) => e.all), "the filesystem server has no replace-all");
    return this.call("edit_file", {
      path,
      edits: edits.map((e) => ({ oldText: e.old, newText: e.new })),
      dryRun: false,
    });
  }

  async edit(path, edits) {
    const r = await this.raw(path, edits);
    if (r.isError) throw new Error(`filesystem edit failed: ${r.content?.[0]?.text}`);
    return r;
  }
}

/**
 * The floor as an MCP server (`splice-bench-floor --mcp`), reached through
 * the same SDK client as splice: the floor's edit plus the least a server
 * must do to speak MCP (no output schema, a one-line text result). Beside
 * the plain floor it says how much of a server's small edit is the protocol
 * and the client rather than the server's own work.
 *
 * With `answerOf` (a started `Splice`), "floor (MCP, splice's answer)": the
 * same floor answering every edit with splice's answer to a small edit (its
 * structured result and the JSON text copy) under splice's output schema
 * (`--answer`), so the client does for it what it does for splice while the
 * server does only the floor's work. Against the plain MCP floor it is the
 * client's cost of splice's answer; against splice, splice's own work.
 */
class FloorMcp extends McpSide {
  constructor(bin, { answerOf = null } = {}) {
    super(answerOf ? "floor (MCP, splice's answer)" : "floor (MCP)", bin, ["--mcp"]);
    this.answerOf = answerOf;
  }

  async start() {
    if (this.answerOf) {
      const file = join(work, `floor-answer-${process.pid}.json`);
      writeFileSync(file, JSON.stringify(await this.answerOf.answerSample()));
      this.args = ["--mcp", "--answer", file];
    }
    await super.start();
  }

  async edit(path, edits) {
    const r = await this.call("edit", { path, edits, fsync: true });
    if (r.isError) throw new Error(`${this.name} edit failed: ${r.content?.[0]?.text}`);
    if (this.answerOf && r.structuredContent?.success !== true) {
      throw new Error(`${this.name}: no structured result`);
    }
    return r;
  }
}

/** The floor: a line-protocol child, one request in flight at a time. */
class Floor {
  constructor(bin, { fsync = true } = {}) {
    this.bin = bin;
    this.fsync = fsync;
    this.name = fsync ? "floor" : "floor (no fsync)";
  }

  /** Runs the floor under strace, counting its fsync-family calls into `file`. */
  traceFsyncs(file) {
    this.strace = file;
    return this;
  }

  async start() {
    this.child = this.strace
      ? spawn("strace", ["-f", "-qq", "-e", "trace=fsync,fdatasync,sync_file_range,syncfs", "-o", this.strace, this.bin], { stdio: ["pipe", "pipe", "pipe"] })
      : spawn(this.bin, [], { stdio: ["pipe", "pipe", "pipe"] });
    this.stderr = tailOf(this.child.stderr);
    this.pid = this.child.pid;
    this.waiting = [];
    this.exited = false;
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const next = this.waiting.shift();
      if (next) next.resolve(JSON.parse(line));
    });
    this.child.on("exit", (code) => {
      this.exited = true;
      for (const w of this.waiting.splice(0)) {
        w.reject(new Error(`floor exited with ${code}: ${this.stderr.text}`));
      }
    });
    await new Promise((ok, fail) => {
      this.child.once("spawn", ok);
      this.child.once("error", fail);
    });
  }

  async edit(path, edits) {
    if (this.exited) throw new Error(`floor is gone: ${this.stderr.text}`);
    const line = JSON.stringify({ path, edits, fsync: this.fsync });
    const reply = new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.child.stdin.write(line + "\n");
    const r = await reply;
    if (!r.ok) throw new Error(`${this.name} edit failed: ${r.error}`);
    return r;
  }

  /** syncfs(2) on the file system of `dir` (the driver's untimed flush). */
  async syncfs(dir) {
    const reply = new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.child.stdin.write(JSON.stringify({ syncfs: dir }) + "\n");
    const r = await reply;
    if (!r.ok) throw new Error(`syncfs failed: ${r.error}`);
  }

  async close() {
    this.child.stdin.end();
    await new Promise((ok) => (this.exited ? ok() : this.child.once("exit", ok)));
  }
}

// ---------------------------------------------------------------- files

const FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod";

/**
 * `size` bytes of ASCII text in 64-byte lines with `markers` unique tokens
 * `<mark-N>`, the last one `tail` bytes from the end (or spread evenly).
 */
function markedText(size, markers, { nearEnd = false } = {}) {
  const lineLen = 64;
  const lines = Math.max(1, Math.floor(size / lineLen));
  const body = [];
  for (let i = 0; i < lines; i++) {
    const head = `${String(i).padStart(8, "0")} `;
    body.push((head + FILLER.repeat(2)).slice(0, lineLen - 1) + "\n");
  }
  const at = (k) =>
    nearEnd ? Math.max(0, lines - 2 - k) : Math.floor(((k + 0.5) * lines) / markers);
  for (let k = 0; k < markers; k++) {
    const i = at(k);
    const tag = `<mark-${k}>`;
    const line = body[i];
    body[i] = line.slice(0, 9) + tag + line.slice(9 + tag.length);
  }
  let text = body.join("");
  if (text.length < size) text += "#".repeat(size - text.length - 1) + "\n";
  return text.slice(0, size);
}

/** Edits flipping each marker's case, forward or back (lengths unchanged). */
function markerEdits(markers, forward) {
  const edits = [];
  for (let k = 0; k < markers; k++) {
    const lo = `<mark-${k}>`;
    const hi = `<MARK-${k}>`;
    edits.push(forward ? { old: lo, new: hi } : { old: hi, new: lo });
  }
  return edits;
}

/** A ~10 KB Rust-looking source file; three of its lines are edit targets. */
function smallSource() {
  const parts = [];
  let n = 0;
  while (parts.join("").length < 10 * KB - 160) {
    const id = String(n).padStart(3, "0");
    const extra = n === 20 || n === 60 ? '    tracing::trace!("checkpoint");\n' : "";
    parts.push(
      `fn step_${id}(input: &mut State) -> Result<(), Error> {\n` +
        `    let value_${id} = compute(${n});\n` +
        extra +
        `    input.push(value_${id});\n` +
        `    Ok(())\n}\n\n`,
    );
    n++;
  }
  return { text: parts.join(""), functions: n };
}

function smallEdits(forward) {
  return [10, 40, 70].map((n) => {
    const id = String(n).padStart(3, "0");
    const a = `    let value_${id} = compute(${n});`;
    const b = `    let value_${id} = compute(${n}).max(1);`;
    return forward ? { old: a, new: b } : { old: b, new: a };
  });
}

function applyLocally(text, edits) {
  for (const e of edits) {
    if (e.all) {
      text = text.split(e.old).join(e.new);
    } else {
      const at = text.indexOf(e.old);
      assert.ok(at >= 0 && text.indexOf(e.old, at + 1) < 0, `fixture edit not unique: ${e.old}`);
      text = text.slice(0, at) + e.new + text.slice(at + e.old.length);
    }
  }
  return text;
}

// ---------------------------------------------------------------- workloads

/**
 * Runs `rounds` forward/backward pairs alternately on every side, each side
 * on its own copy of `text`; returns per-side latencies (ms) and checks that
 * every file is back to `text` (or at the forward state after an odd count).
 * The files live in `dir` (default: the bench directory).
 */
async function alternate(sides, label, text, forwardEdits, backwardEdits, ops, warmup, dir = work) {
  const files = new Map();
  const forwardText = applyLocally(text, forwardEdits);
  sides.forEach((side, i) => {
    const p = join(dir, `${label}-${i}.txt`);
    writeFileSync(p, text);
    files.set(side, p);
  });
  const times = new Map(sides.map((s) => [s, []]));
  const cpu0 = new Map(sides.map((s) => [s, cpuSplitMs(s.pid)]));
  for (let op = 0; op < warmup + ops; op++) {
    const edits = op % 2 === 0 ? forwardEdits : backwardEdits;
    for (const side of shuffled(sides, op)) {
      // Untimed: flush every earlier write first, so that no side's fsync
      // pays for another side's writeback (see bench/floor's `syncfs`).
      await flusher.syncfs(work);
      const [ms] = await timed(() => side.edit(files.get(side), edits));
      if (op >= warmup) times.get(side).push(ms);
    }
  }
  for (const side of sides) {
    const now = cpuSplitMs(side.pid);
    const before = cpu0.get(side);
    times.get(side).cpuPerOp = (now.user + now.sys - before.user - before.sys) / (warmup + ops);
    times.get(side).sysPerOp = (now.sys - before.sys) / (warmup + ops);
  }
  const expected = (warmup + ops) % 2 === 0 ? text : forwardText;
  for (const side of sides) {
    const got = readFileSync(files.get(side), "utf8");
    assert.ok(got === expected, `${label}: ${side.name} left the file in an unexpected state`);
    rmSync(files.get(side));
  }
  return times;
}

/**
 * The latency-against-size sweep: one edit near the end of each file. The
 * sizes are interleaved as well as the sides (each size's operations are
 * spread evenly over the whole sweep), so that a slow spell of the disk
 * lands on every size rather than on whichever ran at that moment.
 */
async function sweep(sides) {
  const warmup = 2;
  const jobs = plan.sweep.map(({ size, rounds }) => {
    const text = markedText(size, 1, { nearEnd: true });
    const files = new Map(
      sides.map((side, i) => {
        const p = join(work, `sweep-${size}-${i}.txt`);
        writeFileSync(p, text);
        return [side, p];
      }),
    );
    const times = new Map(sides.map((side) => [side, []]));
    return { size, total: rounds + warmup, text, files, times, done: 0 };
  });
  const slots = Math.max(...jobs.map((j) => j.total));
  for (let slot = 0; slot < slots; slot++) {
    for (const job of jobs) {
      // Bresenham-style spreading of job.total operations over `slots`.
      if (Math.floor(((slot + 1) * job.total) / slots) === Math.floor((slot * job.total) / slots)) continue;
      const op = job.done++;
      const edits = markerEdits(1, op % 2 === 0);
      for (const side of shuffled(sides, slot * 7919 + op)) {
        await flusher.syncfs(work);
        const [ms] = await timed(() => side.edit(job.files.get(side), edits));
        if (op >= warmup) job.times.get(side).push(ms);
      }
    }
  }
  return jobs.map((job) => {
    assert.equal(job.done, job.total, "sweep scheduling lost operations");
    const expected = job.done % 2 === 0 ? job.text : applyLocally(job.text, markerEdits(1, true));
    for (const side of sides) {
      assert.ok(readFileSync(job.files.get(side), "utf8") === expected, `sweep ${job.size}: ${side.name} left the file in an unexpected state`);
      rmSync(job.files.get(side));
    }
    return { size: job.size, sides: summarize(job.times) };
  });
}

function summarize(times) {
  const out = {};
  for (const [side, s] of times) {
    out[side.name] = { n: s.length, p50: median(s), p99: quantile(s, 0.99), min: Math.min(...s), cpu: s.cpuPerOp, sys: s.sysPerOp };
  }
  return out;
}

/**
 * What a client puts into the model's context from a `tools/list`: each
 * tool's name, description and input schema (the output schemas are for
 * the client's validator, not the model), as the JSON a client sends to a
 * model API. Counted in bytes and in tokens of a public tokenizer
 * (`gpt-tokenizer`, o200k_base; the tokenizer of current Claude models is
 * not published as a package, so the counts are a proxy, the same for both
 * servers).
 */
function modelContext(tools) {
  const measure = (text) => ({ bytes: Buffer.byteLength(text), tokens: countTokens(text) });
  const perTool = tools.map((t) => ({
    name: t.name,
    ...measure(JSON.stringify({ name: t.name, description: t.description ?? "", input_schema: t.inputSchema })),
  }));
  return {
    tools: perTool,
    total: measure(JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description ?? "", input_schema: t.inputSchema })))),
  };
}

/**
 * Starts of each side, alternated in a shuffled order: splice, the
 * filesystem server and, given `baselineBin`, another splice build
 * (`splice (baseline)`).
 */
async function coldStart(spliceBin, baselineBin = null) {
  const makers = [
    () => new Splice(spliceBin),
    () => new Filesystem(),
    ...(baselineBin ? [() => new Splice(baselineBin, { name: "splice (baseline)" })] : []),
  ];
  const names = ["splice", "filesystem", ...(baselineBin ? ["splice (baseline)"] : [])];
  const perSide = () => Object.fromEntries(names.map((n) => [n, []]));
  const times = perSide();
  const resolved = perSide();
  const idle = perSide();
  const compile = perSide();
  const listBytes = {};
  const toolCount = {};
  const outputSchemaBytes = {};
  const context = {};
  for (let i = 0; i < plan.coldStarts; i++) {
    for (const make of shuffled(makers, i)) {
      const side = make();
      const [ms] = await timed(() => side.start());
      assert.ok(side.tools.length > 0, `${side.name}: empty tools/list`);
      assert.ok(side.listReplyMs > 0, `${side.name}: tools/list reply not seen`);
      times[side.name].push(side.listReplyMs);
      resolved[side.name].push(ms);
      listBytes[side.name] = side.listBytes;
      toolCount[side.name] = side.tools.length;
      outputSchemaBytes[side.name] = side.tools.reduce(
        (n, tool) => n + (tool.outputSchema ? Buffer.byteLength(JSON.stringify(tool.outputSchema)) : 0),
        0,
      );
      idle[side.name].push(readProcStatus(side.pid, "VmRSS"));
      compile[side.name].push(compileOutputSchemas(side.tools));
      context[side.name] ??= modelContext(side.tools);
      await side.close();
    }
  }
  return { names, times, resolved, idle, compile, listBytes, toolCount, outputSchemaBytes, context };
}

/**
 * What the SDK's `listTools()` spends compiling the output schemas, apart:
 * a fresh `AjvJsonSchemaValidator` (the SDK's default: Ajv, allErrors, the
 * formats) and `getValidator` on a copy of each tool's outputSchema, as
 * `Client.cacheToolMetadata` does. In this process Ajv is warm (JIT), as
 * from the second start on.
 */
function compileOutputSchemas(tools) {
  const schemas = structuredClone(tools.map((t) => t.outputSchema).filter(Boolean));
  const t0 = performance.now();
  const validator = new AjvJsonSchemaValidator();
  for (const s of schemas) validator.getValidator(s);
  return performance.now() - t0;
}

/**
 * fsync-family calls per small edit of each side, counted with strace (null
 * when strace is missing): what "durable" means for each of them, measured
 * rather than read from their source.
 */
async function fsyncsPerEdit(spliceBin, floorBin) {
  try {
    execFileSync("strace", ["-V"], { stdio: "ignore" });
  } catch {
    return null;
  }
  const makers = {
    splice: () => new Splice(spliceBin),
    "splice (backup on)": () => new Splice(spliceBin, { backup: true }),
    filesystem: () => new Filesystem(),
    floor: () => new Floor(floorBin),
  };
  const edits = 4;
  const src = smallSource().text;
  const count = async (make, n) => {
    const file = join(work, "fsync-trace.txt");
    const p = join(work, "fsync-count.txt");
    writeFileSync(p, src);
    const side = make().traceFsyncs(file);
    await side.start();
    for (let i = 0; i < n; i++) await side.edit(p, smallEdits(i % 2 === 0));
    await side.close();
    // strace writes its last lines as the traced process exits.
    await new Promise((ok) => setTimeout(ok, 200));
    const calls = readFileSync(file, "utf8").split("\n").filter((l) => /\b(fsync|fdatasync|sync_file_range|syncfs)\(/.test(l) && !/<unfinished/.test(l)).length;
    rmSync(file);
    rmSync(p);
    rmSync(p + ".bak", { force: true });
    return calls;
  };
  const out = {};
  for (const [name, make] of Object.entries(makers)) {
    const idle = await count(make, 0);
    out[name] = (await count(make, edits) - idle) / edits;
  }
  return out;
}

/** The rows of the payload table of docs/benchmarks.md. */
function payloadRows(failures) {
  return Object.entries(failures).map(([label, row]) => {
    const sp = row.splice;
    const fs = row.filesystem;
    let behaviour;
    if (fs.isError) behaviour = "error text";
    else if (fs.fileChanged) {
      behaviour = `**no error**: edited the first of ${fs.occurrences} matches (line ${fs.editedLine}) and replied with a diff`;
    } else behaviour = "no error, file unchanged";
    return `| ${label} | ${sp.structuredBytes} B | ${sp.structuredBytes - sp.withoutHints} B | ${sp.textBytes} B | ${sp.resultBytes} B | ${fs.textBytes} B | ${fs.resultBytes} B | ${behaviour} |`;
  });
}

/**
 * `--only failure-payloads`: the failed-edit payloads alone (seconds), with
 * `--baseline BIN` beside another splice build, printed as ratios; outside
 * a smoke run, the payload table of docs/benchmarks.md is rewritten in place
 * (the rest of the report is left as the last full run wrote it).
 */
async function failurePayloadsOnly() {
  const splice = new Splice(opts.splice);
  const fsServer = new Filesystem();
  const baseline = opts.baseline ? new Splice(opts.baseline, { name: "splice (baseline)" }) : null;
  const sides = [splice, fsServer, ...(baseline ? [baseline] : [])];
  try {
    for (const side of sides) await side.start();
    const failures = await failurePayloads(splice, fsServer);
    const before = baseline ? await failurePayloads(baseline, fsServer) : null;
    for (const [label, row] of Object.entries(failures)) {
      const sp = row.splice;
      let line = `${label.padEnd(28)} structuredContent ${sp.structuredBytes} B (recovery_hints ${sp.structuredBytes - sp.withoutHints} B), result ${sp.resultBytes} B`;
      if (before) {
        const b = before[label][baseline.name];
        line += `; baseline ${b.structuredBytes} B (recovery_hints ${b.structuredBytes - b.withoutHints} B): ${ratio(sp.structuredBytes, b.structuredBytes)}`;
      }
      log(line);
    }
    if (!opts.smoke && opts.reportDir) {
      const file = join(opts.reportDir, "benchmarks.md");
      const lines = readFileSync(file, "utf8").split("\n");
      const head = lines.findIndex((l) => l.startsWith("| Case | splice `structuredContent`"));
      assert.ok(head >= 0, `no payload table in ${file}`);
      let end = head + 2;
      while (end < lines.length && lines[end].startsWith("|")) end++;
      lines.splice(head + 2, end - head - 2, ...payloadRows(failures));
      writeFileSync(file, lines.join("\n"));
      log(`rewrote the payload table of ${file}`);
    }
  } finally {
    for (const side of sides) await side.close().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

/** Failed-edit payloads: what an agent reads back when its edit is wrong. */
async function failurePayloads(splice, fsServer) {
  const { text } = smallSource();
  const cases = {
    MATCH_NOT_FOUND: [{ old: "    let value_017 = compute(71);", new: "    let value_017 = compute(17);" }],
    "AMBIGUOUS_MATCH (2 matches)": [{ old: '    tracing::trace!("checkpoint");', new: '    tracing::debug!("checkpoint");' }],
    "AMBIGUOUS_MATCH (many)": [{ old: "    Ok(())", new: "    Ok(()) // done" }],
  };
  const out = {};
  for (const [label, edits] of Object.entries(cases)) {
    const row = {};
    for (const side of [splice, fsServer]) {
      const p = join(work, `failure-${side === splice ? "s" : "f"}.txt`);
      writeFileSync(p, text);
      const r = await side.raw(p, edits);
      const after = readFileSync(p, "utf8");
      const text0 = r.content?.[0]?.text ?? "";
      const entry = {
        isError: r.isError === true,
        textBytes: Buffer.byteLength(text0),
        structuredBytes: r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : 0,
        // The same envelope without its fixed, per-code advice strings.
        withoutHints: r.structuredContent
          ? Buffer.byteLength(JSON.stringify({ ...r.structuredContent, recovery_hints: undefined }))
          : 0,
        resultBytes: Buffer.byteLength(JSON.stringify(r)),
        fileChanged: after !== text,
      };
      if (side === splice) {
        assert.ok(entry.isError, `splice accepted the failing edit ${label}`);
        assert.equal(r.structuredContent.error_code, label.split(" ")[0]);
        assert.ok(!entry.fileChanged, "splice changed the file on a failed edit");
        entry.code = r.structuredContent.error_code;
        if (label.startsWith("AMBIGUOUS")) entry.matchCount = r.structuredContent.context?.match_count;
      } else if (entry.fileChanged) {
        // Which line did the filesystem server pick?
        const a = text.split("\n");
        const b = after.split("\n");
        entry.editedLine = a.findIndex((line, i) => line !== b[i]) + 1;
        entry.occurrences = text.split(edits[0].old).length - 1;
        entry.firstOccurrenceLine = text.slice(0, text.indexOf(edits[0].old)).split("\n").length;
      }
      row[side.name] = entry;
      rmSync(p, { force: true });
    }
    out[label] = row;
  }
  // The filesystem server's own behaviour is part of the report, so check it.
  assert.equal(out.MATCH_NOT_FOUND.filesystem.isError, true);
  return out;
}

// ---------------------------------------------------------------- machine

function sh(cmd, args, fallback = "unknown") {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return fallback;
  }
}

function machine() {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = cpuinfo.match(/^model name\s*:\s*(.*)$/m)?.[1] ?? cpus()[0]?.model ?? "unknown";
  const fs = sh("stat", ["-f", "-c", "%T", work]);
  const dev = sh("df", ["--output=source", work]).split("\n")[1] ?? "unknown";
  const mountFs = sh("findmnt", ["-n", "-o", "FSTYPE", "--target", work], fs);
  const dirty = sh("git", ["-C", repo, "status", "--porcelain", "--", "server", "Cargo.lock"]) !== "";
  const pkg = (p) => JSON.parse(readFileSync(join(here, "node_modules", p, "package.json"), "utf8")).version;
  return {
    nproc: sh("nproc", []),
    cpu: model,
    kernel: sh("uname", ["-r"]),
    memTotal: readProcStatusLike("/proc/meminfo", "MemTotal"),
    fs: mountFs,
    device: dev,
    workDir: dirname(work),
    node: process.version,
    splice: sh("git", ["-C", repo, "rev-parse", "--short=12", "HEAD"]) + (dirty ? " (+ uncommitted server changes)" : ""),
    rustc: sh("rustc", ["--version"]),
    serverFilesystem: pkg("@modelcontextprotocol/server-filesystem"),
    sdk: pkg("@modelcontextprotocol/sdk"),
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    loadStart: loadavg(),
  };
}

/** The 1-minute load average: other work on the machine skews every number. */
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];

function readProcStatusLike(path, field) {
  const m = readFileSync(path, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  return m ? Number(m[1]) * 1024 : 0;
}

// ---------------------------------------------------------------- report

const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const mib = (b) => (b / MB).toFixed(1) + " MiB";
const ratio = (a, b) => (a && b ? (a / b >= 10 ? (a / b).toFixed(0) : (a / b).toFixed(2)) + "x" : "n/a");
const sizeLabel = (b) => (b >= MB ? `${b / MB} MB` : `${b / KB} KB`);

const SERIES = [
  { name: "splice", color: "#1b6ac9", dash: "" },
  { name: "filesystem", color: "#d1462f", dash: "" },
  { name: "floor", color: "#2d8a3e", dash: "" },
  { name: "floor (no fsync)", color: "#2d8a3e", dash: "5 4" },
];

/** A log-log line chart of median latency against file size, as SVG text. */
function chart(sweep) {
  const W = 760, H = 460, L = 70, R = 180, T = 40, B = 56;
  const sizes = sweep.map((r) => r.size);
  const values = sweep.flatMap((r) => Object.values(r.sides).map((s) => s.p50));
  const lg = Math.log10;
  const x0 = lg(Math.min(...sizes)), x1 = lg(Math.max(...sizes));
  const y0 = Math.floor(lg(Math.min(...values))), y1 = Math.ceil(lg(Math.max(...values)));
  const px = (s) => L + ((lg(s) - x0) / Math.max(x1 - x0, 1e-9)) * (W - L - R);
  const py = (v) => T + (1 - (lg(v) - y0) / Math.max(y1 - y0, 1e-9)) * (H - T - B);
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${L}" y="22" font-size="15" font-weight="bold">Median latency of one edit near the end of the file (log-log)</text>`);
  for (let d = y0; d <= y1; d++) {
    const y = py(10 ** d);
    out.push(`<line x1="${L}" y1="${y}" x2="${W - R}" y2="${y}" stroke="#dddddd"/>`);
    const v = 10 ** d;
    out.push(`<text x="${L - 6}" y="${y + 4}" text-anchor="end">${v >= 1 ? v : v.toPrecision(1)} ms</text>`);
  }
  for (const s of sizes) {
    const x = px(s);
    out.push(`<line x1="${x}" y1="${T}" x2="${x}" y2="${H - B}" stroke="#eeeeee"/>`);
    out.push(`<text x="${x}" y="${H - B + 18}" text-anchor="middle">${sizeLabel(s)}</text>`);
  }
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 14}" text-anchor="middle">file size</text>`);
  out.push(`<rect x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}" fill="none" stroke="#888888"/>`);
  let ly = T + 10;
  for (const series of SERIES) {
    const pts = sweep.filter((r) => r.sides[series.name]).map((r) => [px(r.size), py(r.sides[series.name].p50)]);
    if (pts.length === 0) continue;
    const dash = series.dash ? ` stroke-dasharray="${series.dash}"` : "";
    out.push(`<polyline fill="none" stroke="${series.color}" stroke-width="2"${dash} points="${pts.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ")}"/>`);
    for (const [x, y] of pts) out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${series.color}"/>`);
    out.push(`<line x1="${W - R + 14}" y1="${ly}" x2="${W - R + 44}" y2="${ly}" stroke="${series.color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${W - R + 50}" y="${ly + 4}">${series.name}</text>`);
    ly += 20;
  }
  out.push("</svg>");
  return out.join("\n") + "\n";
}

function report(r) {
  const m = r.machine;
  const small = r.smallEdit;
  const s = small.splice.p50, f = small.filesystem.p50, fl = small.floor.p50;
  const lines = [];
  const p = (...x) => lines.push(...x);
  p(
    "# Benchmarks",
    "",
    "<!-- Generated by `bash bench/run` (bench/driver.mjs). Do not edit by hand: rerun the harness. -->",
    "",
    "splice against the official MCP filesystem server (`@modelcontextprotocol/server-filesystem`,",
    "tool `edit_file`) and against the *floor* (`bench/floor`), a minimal Rust program that does only",
    "what a durable edit must do: read the file, search each `old` string with `memchr::memmem`",
    "(twice, to prove uniqueness), splice the buffer, write a temp file, `fsync` it, `rename` it over",
    "the target, `fsync` the directory. The floor runs as one long-lived process reading one request",
    "per line on stdin, so its numbers exclude process start, like the servers' over one connection.",
    "For the small edit the floor is also run as an MCP server (`splice-bench-floor --mcp`: the same",
    "edit behind `initialize`, `tools/list` and `tools/call`, a one-line text result and no output",
    "schema) through the same client as the servers, which shows what the protocol and the client",
    "cost before a server does any work of its own.",
    "",
    "Both servers are driven by the same official TypeScript SDK client (`Client` +",
    "`StdioClientTransport`) from one Node process; inside each workload the sides alternate",
    "operation by operation in an order shuffled every round (seeded, so a run can be repeated),",
    "so that each side follows every other. Times are wall-clock from the",
    "client's call to its reply (for the servers this includes the SDK's JSON-RPC framing and its",
    "output-schema validation of `structuredContent`, which both servers declare). Before every",
    "timed operation the driver runs `syncfs(2)` on the bench file system, untimed, so that a side",
    "which fsyncs never pays for the writeback of another side's earlier unsynced writes (on ext4",
    "a journal commit can carry them). splice runs",
    "with `backup: false` to match the filesystem server, which keeps no backup; one row shows",
    "splice with its default `.bak` backup. The `splice` column is splice as a user gets it, with",
    "recording for undo on (the undo store, not fsynced, on the same file system); the rows marked",
    "\"recording off\" run a second splice with `--undo-max-transactions 0` in the same alternation.",
    "",
    "## Machine and versions",
    "",
    "| | |",
    "|---|---|",
    `| CPU | ${m.cpu}, ${m.nproc} cores (nproc) |`,
    `| Memory | ${mib(m.memTotal)} |`,
    `| Kernel | ${m.kernel} |`,
    `| Bench files | a fresh temp dir under \`${m.workDir}\`, ${m.fs} on ${m.device} |`,
    `| Node | ${m.node} |`,
    `| splice | git ${m.splice}, release build, \`--max-file-size ${SPLICE_MAX_FILE_SIZE}\` |`,
    `| Rust | ${m.rustc} |`,
    `| filesystem server | @modelcontextprotocol/server-filesystem ${m.serverFilesystem} (run as \`node dist/index.js DIR\`) |`,
    `| client | @modelcontextprotocol/sdk ${m.sdk} |`,
    `| Run | ${m.date}; 1-minute load average ${m.loadStart} at the start, ${m.loadEnd} at the end (${m.nproc} cores) |`,
    "",
    "## Durability: who fsyncs",
    "",
    fsyncLine(r.fsyncs),
    "",
    "- **splice** (`server/src/commit/single.rs`) writing one file fsyncs the staged temp file (and the",
    "  `.bak` temp, with a backup), renames it over the target and fsyncs the directory: the floor's",
    "  protocol, so every successful reply means the edit is on disk and a crash leaves the file",
    "  entirely old or entirely new. Only a commit of several files (`multi_edit_files`) adds a",
    "  journal, with its own fsyncs, so that a crash rolls the whole set back or forward.",
    "- **filesystem server** (`applyFileEdits` in its `dist/lib.js`) writes a temp file with",
    "  `fs.writeFile`, renames it and restores the mode bits. It never calls `fsync`: its reply",
    "  only means the edit is in the page cache, and a crash can lose it.",
    "- **floor**: `fsync` of the temp file and of the directory; it is also measured without",
    "  either (the filesystem server's durability).",
    "",
    "## Results",
    "",
    "Medians unless marked; `splice / x` below 1 means splice is faster.",
    "",
    "| Workload | splice | filesystem | floor (fsync) | floor (no fsync) | splice / filesystem | splice / floor |",
    "|---|---|---|---|---|---|---|",
    ...coldStartRows(r.cold),
    `| Small edit, 10 KB file, 3 edits, p50 (N=${small.splice.n}) | ${ms(s)} ms | ${ms(f)} ms | ${ms(fl)} ms | ${ms(small["floor (no fsync)"].p50)} ms | ${ratio(s, f)} | ${ratio(s, fl)} |`,
    `| Small edit, p99 | ${ms(small.splice.p99)} ms | ${ms(small.filesystem.p99)} ms | ${ms(small.floor.p99)} ms | ${ms(small["floor (no fsync)"].p99)} ms | ${ratio(small.splice.p99, small.filesystem.p99)} | ${ratio(small.splice.p99, small.floor.p99)} |`,
    `| Small edit with recording for undo off (\`--undo-max-transactions 0\`), p50 / p99; in the last column, recording on / off | ${ms(small["splice (recording off)"].p50)} / ${ms(small["splice (recording off)"].p99)} ms | | | | ${ratio(small["splice (recording off)"].p50, f)} | ${ratio(small["splice (recording off)"].p50, fl)} (on / off ${ratio(s, small["splice (recording off)"].p50)}) |`,
    `| Small edit: the floor as an MCP server through the same SDK client (\`splice-bench-floor --mcp\`: the floor's work, a one-line text result, no output schema), p50; in the last column, splice / this | | | ${ms(small["floor (MCP)"].p50)} ms | | | ${ratio(s, small["floor (MCP)"].p50)} |`,
    `| Small edit: the same, answering with splice's answer (\`--mcp --answer\`: splice's structured result of a small edit and its JSON text copy, under splice's \`multi_edit\` output schema; still only the floor's work), p50; in the last column, splice / this | | | ${ms(small[ANSWER_FLOOR].p50)} ms | | | ${ratio(s, small[ANSWER_FLOOR].p50)} |`,
    `| Small edit with \`.bak\` backup (splice default), p50 / p99 | ${ms(small["splice (backup on)"].p50)} / ${ms(small["splice (backup on)"].p99)} ms | | | | | ${ratio(small["splice (backup on)"].p50, fl)} |`,
    `| Small edit in a directory of ${plan.crowded.files.toLocaleString("en-US")} other files, p50 (N=${r.crowded.splice.n}) | ${ms(r.crowded.splice.p50)} ms | ${ms(r.crowded.filesystem.p50)} ms | ${ms(r.crowded.floor.p50)} ms | | ${ratio(r.crowded.splice.p50, r.crowded.filesystem.p50)} | ${ratio(r.crowded.splice.p50, r.crowded.floor.p50)} |`,
    `| ${sizeLabel(plan.bigFile.size)} file, ${plan.bigFile.edits} distinct edits in one call (N=${r.bigFile.splice.n}) | ${ms(r.bigFile.splice.p50)} ms | ${ms(r.bigFile.filesystem.p50)} ms | ${ms(r.bigFile.floor.p50)} ms | ${ms(r.bigFile["floor (no fsync)"].p50)} ms | ${ratio(r.bigFile.splice.p50, r.bigFile.filesystem.p50)} | ${ratio(r.bigFile.splice.p50, r.bigFile.floor.p50)} |`,
    `| ${sizeLabel(plan.bigFile.size)} / ${plan.bigFile.edits} edits with recording off; in the last column, recording on / off | ${ms(r.bigFile["splice (recording off)"].p50)} ms | | | | ${ratio(r.bigFile["splice (recording off)"].p50, r.bigFile.filesystem.p50)} | ${ratio(r.bigFile["splice (recording off)"].p50, r.bigFile.floor.p50)} (on / off ${ratio(r.bigFile.splice.p50, r.bigFile["splice (recording off)"].p50)}) |`,
    `| ${sizeLabel(plan.replaceAll.size)} file, ${plan.replaceAll.occurrences.toLocaleString("en-US")} occurrences, \`replace_all\` (N=${r.replaceAll.splice.n}) | ${ms(r.replaceAll.splice.p50)} ms | no replace-all | ${ms(r.replaceAll.floor.p50)} ms | ${ms(r.replaceAll["floor (no fsync)"].p50)} ms | | ${ratio(r.replaceAll.splice.p50, r.replaceAll.floor.p50)} |`,
    `| ${sizeLabel(plan.replaceAll.size)} replace-all with recording off; in the last column, recording on / off | ${ms(r.replaceAll["splice (recording off)"].p50)} ms | | | | | ${ratio(r.replaceAll["splice (recording off)"].p50, r.replaceAll.floor.p50)} (on / off ${ratio(r.replaceAll.splice.p50, r.replaceAll["splice (recording off)"].p50)}) |`,
    `| Server CPU time per operation (user + system; the rest of the latency is waiting, mostly for fsync): small edit | ${ms(small.splice.cpu)} ms | ${ms(small.filesystem.cpu)} ms | ${ms(small.floor.cpu)} ms | ${ms(small["floor (no fsync)"].cpu)} ms | ${ratio(small.splice.cpu, small.filesystem.cpu)} | ${ratio(small.splice.cpu, small.floor.cpu)} |`,
    `| Server CPU time per operation: ${sizeLabel(plan.bigFile.size)} / ${plan.bigFile.edits} edits | ${ms(r.bigFile.splice.cpu)} ms | ${ms(r.bigFile.filesystem.cpu)} ms | ${ms(r.bigFile.floor.cpu)} ms | ${ms(r.bigFile["floor (no fsync)"].cpu)} ms | ${ratio(r.bigFile.splice.cpu, r.bigFile.filesystem.cpu)} | ${ratio(r.bigFile.splice.cpu, r.bigFile.floor.cpu)} |`,
    `| Server CPU time per operation: ${sizeLabel(plan.replaceAll.size)} replace-all | ${ms(r.replaceAll.splice.cpu)} ms | | ${ms(r.replaceAll.floor.cpu)} ms | ${ms(r.replaceAll["floor (no fsync)"].cpu)} ms | | ${ratio(r.replaceAll.splice.cpu, r.replaceAll.floor.cpu)} |`,
    `| Idle RSS after connect + \`tools/list\` (median of ${r.cold.n} starts) | ${mib(r.rss.idle.splice)} | ${mib(r.rss.idle.filesystem)} | | | ${ratio(r.rss.idle.splice, r.rss.idle.filesystem)} | |`,
    `| Peak RSS (VmHWM) after all workloads, ${sizeLabel(plan.sweep.at(-1).size)} files included | ${mib(r.rss.peak.splice)} | ${mib(r.rss.peak.filesystem)} | ${mib(r.rss.peak.floor)} | | ${ratio(r.rss.peak.splice, r.rss.peak.filesystem)} | ${ratio(r.rss.peak.splice, r.rss.peak.floor)} |`,
    "",
    `Where splice's small-edit time goes: ${ms(small.splice.cpu)} ms of server CPU per call, ${ms(small.splice.sys)} ms of it in the kernel; ` +
      `the rest of its ${ms(s)} ms median is waiting${r.fsyncs ? `, mostly on its ${r.fsyncs.splice} fsync calls per edit (the floor makes ${r.fsyncs.floor})` : ""}. ` +
      protocolShare(small),
    "",
    ...coldStartText(r.cold),
    "",
    "The filesystem server is measured on the same file sizes and the same edits; its replies",
    "also carry a unified diff of the change, which it computes on every call (splice computes",
    "no diff unless `dry_run` is set).",
    "",
    "## What the model reads",
    "",
    "What a client puts into the model's context from `tools/list`: each tool's name, description",
    "and input schema, as JSON (output schemas go to the client's validator, not to the model).",
    "Tokens of `gpt-tokenizer` (o200k_base), a public tokenizer from npm; the tokenizer of current",
    "Claude models is not published as a package, so the counts are a proxy, the same for both servers.",
    "",
    "| | bytes | tokens |",
    "|---|---|---|",
    `| splice, all ${r.cold.toolCount.splice} tools | ${r.cold.context.splice.total.bytes} | ${r.cold.context.splice.total.tokens} |`,
    ...r.cold.context.splice.tools.map((t) => `| splice \`${t.name}\` | ${t.bytes} | ${t.tokens} |`),
    ...r.cold.context.filesystem.tools.filter((t) => t.name === "edit_file").map((t) => `| filesystem server \`edit_file\` | ${t.bytes} | ${t.tokens} |`),
    `| filesystem server, all ${r.cold.toolCount.filesystem} tools | ${r.cold.context.filesystem.total.bytes} | ${r.cold.context.filesystem.total.tokens} |`,
    "",
    "## Failed edits: payload bytes",
    "",
    "What an agent reads back when its edit is wrong, on the 10 KB file. splice returns its error",
    "envelope twice, as `structuredContent` and as the same JSON in `content[0].text` (the MCP",
    "spec recommends the text copy); a client or model reads one of them. *Result* is the whole",
    "serialized `CallToolResult`.",
    "",
    "| Case | splice `structuredContent` | of which `recovery_hints` | splice text | splice result | filesystem text | filesystem result | filesystem behaviour |",
    "|---|---|---|---|---|---|---|---|",
  );
  for (const row of payloadRows(r.failures)) p(row);
  p(
    "",
    "splice's envelope carries what the agent needs to retry without rereading the file: the",
    "failing edit's index, `edit_status` for it and every skipped edit, a snippet around the",
    "best place (not found) or up to 5 match locations with line numbers and the total count",
    "(ambiguous). The filesystem server's not-found text only echoes `oldText`; on ambiguity it",
    "returns no error at all.",
    "",
    "## Latency against file size",
    "",
    "One edit near the end of the file (so every side must scan the whole file), forward and",
    "back, alternating sides; the sizes are interleaved too (each size's runs are spread over the",
    "whole sweep), so a slow spell of the disk does not land on one size. Median per size:",
    "",
    "![latency against file size, log-log](benchmarks.svg)",
    "",
    "| File size | runs | splice | filesystem | floor (fsync) | floor (no fsync) | splice / filesystem | splice / floor |",
    "|---|---|---|---|---|---|---|---|",
  );
  for (const row of r.sweep) {
    const x = row.sides;
    p(`| ${sizeLabel(row.size)} | ${x.splice.n} | ${ms(x.splice.p50)} ms | ${ms(x.filesystem.p50)} ms | ${ms(x.floor.p50)} ms | ${ms(x["floor (no fsync)"].p50)} ms | ${ratio(x.splice.p50, x.filesystem.p50)} | ${ratio(x.splice.p50, x.floor.p50)} |`);
  }
  p("", "## Targets (issue 7)", "", ...r.targets.map((t) => `- ${t.met ? "met" : "**missed**"}: ${t.text}`), "");
  p(
    "## Reproduce",
    "",
    "```sh",
    "bash bench/run            # full run (about 10-20 minutes here); rewrites this file and benchmarks.svg",
    "bash bench/run --smoke    # tiny sizes, asserts every workload works, writes nothing under docs/",
    "```",
    "",
  );
  return lines.join("\n");
}

function fsyncLine(f) {
  if (!f) return "fsync calls per edit were not counted (strace is not installed).";
  const n = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  return (
    `fsync-family calls per small edit, counted with strace: splice ${n(f.splice)} ` +
    `(${n(f["splice (backup on)"])} with its \`.bak\` backup), filesystem server ${n(f.filesystem)}, ` +
    `floor ${n(f.floor)}.`
  );
}

/** "12.3x lower" or, when it is not lower at all, "6.1x higher". */
function lowerBy(ours, theirs) {
  return ours <= theirs ? `${(theirs / ours).toFixed(1)}x lower` : `${(ours / theirs).toFixed(1)}x higher`;
}

/**
 * Marginal cost of one more MB between consecutive sweep sizes from 1 MB up
 * (below that, fixed per-call costs such as fsync hide the size term).
 */
function marginalMsPerMB(sweep, side) {
  const rows = sweep.filter((row) => row.size >= MB);
  const out = [];
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1], b = rows[i];
    out.push({
      from: a.size,
      to: b.size,
      msPerMB: (b.sides[side].p50 - a.sides[side].p50) / ((b.size - a.size) / MB),
    });
  }
  return out;
}

function targets(r) {
  const small = r.smallEdit;
  const t = [];
  const x = (a, b) => (a / b).toFixed(1);
  t.push({
    met: small.filesystem.p50 / small.splice.p50 >= 10,
    text:
      `small edit p50 at least 10x lower than the filesystem server: ${lowerBy(small.splice.p50, small.filesystem.p50)} ` +
      `(${ms(small.splice.p50)} vs ${ms(small.filesystem.p50)} ms). splice fsyncs and the filesystem server does not: ` +
      `even the floor with fsync (${ms(small.floor.p50)} ms) is ${lowerBy(small.floor.p50, small.filesystem.p50)} than the filesystem server here`,
  });
  t.push({
    met: small.splice.p50 / small.floor.p50 <= 2,
    text: `small edit p50 within 2x of the floor with the same durability (fsync): ${x(small.splice.p50, small.floor.p50)}x (${ms(small.splice.p50)} vs ${ms(small.floor.p50)} ms)`,
  });
  t.push(smallEditTarget(small));
  t.push({
    met: r.crowded.splice.p50 / r.crowded.floor.p50 <= (small.splice.p50 / small.floor.p50) * 1.2,
    text:
      `a small edit among ${plan.crowded.files.toLocaleString("en-US")} other files costs what it costs alone (against the floor, within 1.2x): ` +
      `${x(r.crowded.splice.p50, r.crowded.floor.p50)}x the floor there (${ms(r.crowded.splice.p50)} vs ${ms(r.crowded.floor.p50)} ms), ` +
      `${x(small.splice.p50, small.floor.p50)}x alone`,
  });
  t.push({
    met: r.cold.filesystem / r.cold.splice >= 10,
    text:
      `cold start at least 10x faster: ${x(r.cold.filesystem, r.cold.splice)}x to the tools/list reply (${ms(r.cold.splice)} vs ${ms(r.cold.filesystem)} ms); ` +
      `${lowerBy(r.cold.resolved.splice, r.cold.resolved.filesystem)} until the SDK's listTools() resolves (${ms(r.cold.resolved.splice)} vs ${ms(r.cold.resolved.filesystem)} ms)`,
  });
  t.push({
    met: r.rss.idle.filesystem / r.rss.idle.splice >= 5,
    text: `idle RSS at least 5x smaller: ${x(r.rss.idle.filesystem, r.rss.idle.splice)}x (${mib(r.rss.idle.splice)} vs ${mib(r.rss.idle.filesystem)})`,
  });
  t.push({
    met: r.bigFile.splice.p50 < 50,
    text: `${sizeLabel(plan.bigFile.size)} / ${plan.bigFile.edits} edits under 50 ms: ${ms(r.bigFile.splice.p50)} ms (floor with fsync ${ms(r.bigFile.floor.p50)} ms; splice CPU ${ms(r.bigFile.splice.cpu)} ms per call)`,
  });
  t.push({
    met: r.replaceAll.splice.p50 < 50,
    text: `${sizeLabel(plan.replaceAll.size)} replace-all under 50 ms: ${ms(r.replaceAll.splice.p50)} ms (floor with fsync ${ms(r.replaceAll.floor.p50)} ms; splice CPU ${ms(r.replaceAll.splice.cpu)} ms per call)`,
  });
  // Linear: the marginal cost of a megabyte must not grow with the size
  // (within 2x, which timing noise on a loaded 2-core machine can reach).
  const steps = marginalMsPerMB(r.sweep, "splice");
  if (steps.length >= 2) {
    const first = steps[0].msPerMB, last = steps.at(-1).msPerMB;
    const floorSteps = marginalMsPerMB(r.sweep, "floor");
    t.push({
      met: first > 0 && last / first <= 2,
      text:
        "linear scaling (marginal ms per extra MB of file between sweep sizes; constant = linear): splice " +
        steps.map((st) => `${sizeLabel(st.from)}→${sizeLabel(st.to)} ${st.msPerMB.toFixed(2)}`).join(", ") +
        "; floor " +
        floorSteps.map((st) => `${st.msPerMB.toFixed(2)}`).join(", "),
    });
  }
  return t;
}

// ---------------------------------------------------------------- main

/** `--only model-context`: what each server puts in the model's context, printed. */
async function modelContextOnly() {
  for (const side of [new Splice(opts.splice), new Filesystem()]) {
    await side.start();
    const c = modelContext(side.tools);
    await side.close();
    log(`${side.name}: ${side.tools.length} tools, ${c.total.bytes} B, ${c.total.tokens} tokens`);
    for (const t of c.tools) {
      if (side.name === "splice" || t.name === "edit_file") log(`  ${t.name.padEnd(20)} ${t.bytes} B, ${t.tokens} tokens`);
    }
  }
  rmSync(work, { recursive: true, force: true });
}

/**
 * The cold-start rows of the results table, from `coldSummary`'s numbers.
 */
function coldStartRows(c) {
  return [
    `| Cold start: spawn to the first \`tools/list\` reply (N=${c.n}) | ${ms(c.splice)} ms | ${ms(c.filesystem)} ms | | | ${ratio(c.splice, c.filesystem)} | |`,
    `| Cold start: spawn to the SDK's \`listTools()\` resolving (adds the client's compilation of the output schemas) | ${ms(c.resolved.splice)} ms | ${ms(c.resolved.filesystem)} ms | | | ${ratio(c.resolved.splice, c.resolved.filesystem)} | |`,
    `| The SDK's compile of the output schemas alone (a fresh \`AjvJsonSchemaValidator\`, \`getValidator\` per tool, Ajv warm) | ${ms(c.compile.splice)} ms | ${ms(c.compile.filesystem)} ms | | | ${ratio(c.compile.splice, c.compile.filesystem)} | |`,
    `| \`tools/list\` reply size (splice: ${c.toolCount.splice} tools, filesystem: ${c.toolCount.filesystem} tools; in parentheses, the part that is output schemas) | ${c.listBytes.splice} B (${c.outputSchemaBytes.splice} B) | ${c.listBytes.filesystem} B (${c.outputSchemaBytes.filesystem} B) | | | ${ratio(c.listBytes.splice, c.listBytes.filesystem)} | |`,
  ];
}

/**
 * Medians of `coldStart`'s samples, splice and the filesystem server (and
 * the baseline, when it ran), as the report uses them.
 */
function coldSummary(cold) {
  const side = (o) => Object.fromEntries(cold.names.map((n) => [n, median(o[n])]));
  const times = side(cold.times);
  return {
    n: plan.coldStarts,
    ...times,
    resolved: side(cold.resolved),
    compile: side(cold.compile),
    listBytes: cold.listBytes,
    toolCount: cold.toolCount,
    outputSchemaBytes: cold.outputSchemaBytes,
    context: cold.context,
  };
}

/**
 * "Where splice's cold start goes", from the cold-start numbers: the part of
 * listTools() that is splice answering, and the part that is the SDK
 * compiling the output schemas.
 */
function coldStartText(c) {
  const base = "splice (baseline)";
  const rest = c.resolved.splice - c.splice - c.compile.splice;
  const lines = [
    `Where splice's cold start goes: ${ms(c.splice)} ms from spawn to the \`tools/list\` reply (process start, ` +
      `initialize, the reply); then the SDK compiles every tool's \`outputSchema\` before \`listTools()\` resolves, ` +
      `${ms(c.compile.splice)} ms measured apart (${c.outputSchemaBytes.splice} B of output schemas; the filesystem ` +
      `server's ${c.outputSchemaBytes.filesystem} B take ${ms(c.compile.filesystem)} ms); the other ` +
      `${ms(Math.max(rest, 0))} ms of \`listTools()\` are the client's own work on the reply (reading it, checking it ` +
      `against the protocol's types, a fresh validator).` +
      (c.compile[base] !== undefined
        ? ` Beside \`--baseline\` in the same run (${c.outputSchemaBytes[base]} B of output schemas): its compile ` +
          `takes ${ms(c.compile[base])} ms (splice / baseline ${ratio(c.compile.splice, c.compile[base])}), spawn to ` +
          `\`listTools()\` ${ms(c.resolved[base])} ms (${ratio(c.resolved.splice, c.resolved[base])}).`
        : "") +
      (c.apart
        ? ` (The cold-start rows and this paragraph come from \`bench/run --only cold-start\`, run apart from the ` +
          `rest of the report; load average ${c.apart.loadStart} at its start, ${c.apart.loadEnd} at its end.)`
        : ""),
    "The SDK compiles each tool's output schema on its own, eagerly, with Ajv's `allErrors`: Ajv generates",
    "JavaScript for each keyword that can fail (about 250 bytes each), inlines every `$defs` entry that has no `$ref`",
    "of its own at each use, and spells an `enum` out as one comparison per value, so the cost follows the number",
    "of keywords compiled, per tool. Each tool's envelope lists only its operation's codes; the members every code",
    "shares are typed once, outside the per-code alternatives; codes whose contexts have one schema share one thin",
    "variant (`OsErrorEnvelope`: the codes that carry only `os_error`; `LimitEnvelope`; `NoContextEnvelope`), so",
    "a tool compiles one variant per distinct context rather than one per code, and the member holding the code",
    "is typed by those variants alone. What remains is mostly the members and contexts with nested objects",
    "(`edit_status`, `MatchNotFoundContext`) and each tool's success type. A compiled schema is only reused across",
    "tools through a `$id`, which would mean either an embedded `$id` the generators do not resolve or one",
    "document for all four tools, which loses each tool's own success type.",
  ];
  return lines;
}

/**
 * `--only cold-start`: the cold start alone, printed, with `--baseline` as a
 * third side; then splice's ratios to the filesystem server and to the
 * baseline.
 */
async function coldStartOnly() {
  const loadStart = loadavg();
  const cold = await coldStart(opts.splice, opts.baseline);
  const loadEnd = loadavg();
  for (const name of cold.names) {
    log(
      `${name.padEnd(17)} N=${plan.coldStarts}  spawn to tools/list reply ${ms(median(cold.times[name]))} ms  ` +
        `to listTools() resolving ${ms(median(cold.resolved[name]))} ms  ` +
        `SDK compile of the output schemas ${ms(median(cold.compile[name]))} ms  ` +
        `tools/list ${cold.listBytes[name]} B (output schemas ${cold.outputSchemaBytes[name]} B)`,
    );
  }
  const against = (other) =>
    `to listTools() resolving ${ratio(median(cold.resolved.splice), median(cold.resolved[other]))}, ` +
    `SDK compile ${ratio(median(cold.compile.splice), median(cold.compile[other]))}, ` +
    `output schemas ${(cold.outputSchemaBytes.splice / cold.outputSchemaBytes[other]).toFixed(2)}x the bytes`;
  log(`splice against the filesystem server: ${against("filesystem")}`);
  if (opts.baseline) log(`splice against the baseline: ${against("splice (baseline)")}`);
  if (!opts.smoke && opts.reportDir) {
    // The cold-start rows and paragraph of docs/benchmarks.md, rewritten in
    // place (the rest of the report is left as the last full run wrote it).
    const c = { ...coldSummary(cold), apart: { loadStart, loadEnd } };
    const file = join(opts.reportDir, "benchmarks.md");
    const lines = readFileSync(file, "utf8").split("\n");
    const first = lines.findIndex((l) => l.startsWith("| Cold start: spawn to the first"));
    assert.ok(first >= 0, `no cold-start rows in ${file}`);
    const rows = coldStartRows(c);
    lines.splice(first, rows.length, ...rows);
    const para = lines.findIndex((l) => l.startsWith("Where splice's cold start goes"));
    assert.ok(para >= 0, `no cold-start paragraph in ${file}`);
    let end = para;
    while (end < lines.length && lines[end] !== "") end++;
    lines.splice(para, end - para, ...coldStartText(c));
    writeFileSync(file, lines.join("\n"));
    log(`rewrote the cold start of ${file}`);
  }
  rmSync(work, { recursive: true, force: true });
}

/**
 * `--only crowded`: the small edit alone and in a directory of other files,
 * splice against the filesystem server and the floor (and `--baseline BIN`,
 * another splice build, when given), printed.
 */
async function crowdedOnly() {
  flusher = new Floor(opts.floor);
  const all = [
    new Splice(opts.splice),
    ...(opts.baseline ? [new Splice(opts.baseline, { name: "splice (baseline)" })] : []),
    new Filesystem(), new Floor(opts.floor),
  ];
  try {
    for (const side of [...all, flusher]) await side.start();
    const crowd = plan.crowded;
    const crowdDir = join(work, "crowded");
    mkdirSync(crowdDir);
    for (let i = 0; i < crowd.files; i++) writeFileSync(join(crowdDir, `other-${i}.txt`), "");
    for (const [label, dir] of [["alone", work], [`among ${crowd.files} files`, crowdDir]]) {
      log(`small edit ${label} x${crowd.rounds}`);
      const r = summarize(
        await alternate(all, `crowded-${dir === work ? "alone" : "many"}`, smallSource().text, smallEdits(true), smallEdits(false), crowd.rounds, plan.warmup, dir),
      );
      for (const [name, v] of Object.entries(r)) {
        log(`  ${name.padEnd(20)} p50 ${ms(v.p50)} ms  p99 ${ms(v.p99)} ms  (${ratio(v.p50, r.floor.p50)} the floor)  server CPU ${ms(v.cpu)} ms/call`);
      }
    }
  } finally {
    for (const side of [...all, flusher]) await side.close().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

/** `--only small-edit`: the small-edit comparison alone, printed. */
async function smallEditOnly() {
  flusher = new Floor(opts.floor);
  const splice = new Splice(opts.splice);
  const all = [
    splice, new Splice(opts.splice, { record: false }), new Splice(opts.splice, { backup: true }),
    ...(opts.baseline ? [new Splice(opts.baseline, { name: "splice (baseline)" })] : []),
    new Filesystem(), new Floor(opts.floor), new Floor(opts.floor, { fsync: false }), new FloorMcp(opts.floor),
    new FloorMcp(opts.floor, { answerOf: splice }),
  ];
  try {
    for (const side of [...all, flusher]) await side.start();
    log(`small edit x${plan.smallEdits}`);
    const small = summarize(
      await alternate(all, "small", smallSource().text, smallEdits(true), smallEdits(false), plan.smallEdits, plan.warmup),
    );
    for (const [name, r] of Object.entries(small)) {
      log(`${name.padEnd(24)} p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  (${ratio(r.p50, small.floor.p50)} the floor)  server CPU ${ms(r.cpu)} ms/call`);
    }
    log(protocolShare(small));
    const t = smallEditTarget(small);
    log(`${t.met ? "met   " : "MISSED"} ${t.text}`);
  } finally {
    for (const side of [...all, flusher]) await side.close().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * `--only large`: the full run's two large calls (a 2 MB file with 200
 * distinct edits in one call, a 5 MB replace-all), splice against the
 * floor (and `--baseline BIN`, another splice build, when given), printed.
 */
async function largeOnly() {
  flusher = new Floor(opts.floor);
  const all = [
    new Splice(opts.splice),
    ...(opts.baseline ? [new Splice(opts.baseline, { name: "splice (baseline)" })] : []),
    new Floor(opts.floor),
  ];
  try {
    for (const side of [...all, flusher]) await side.start();
    const bf = plan.bigFile;
    const ra = plan.replaceAll;
    const runs = [
      [`${sizeLabel(bf.size)} / ${bf.edits} edits x${bf.rounds}`, () =>
        alternate(all, "big", markedText(bf.size, bf.edits), markerEdits(bf.edits, true), markerEdits(bf.edits, false), bf.rounds, 2)],
      [`${sizeLabel(ra.size)} replace_all of ${ra.occurrences} x${ra.rounds}`, () =>
        alternate(all, "replace-all", replaceAllText(ra.size, ra.occurrences),
          [{ old: "needle", new: "NEEDLE", all: true }], [{ old: "NEEDLE", new: "needle", all: true }], ra.rounds, 2)],
    ];
    for (const [label, run] of runs) {
      log(label);
      const r = summarize(await run());
      for (const [name, v] of Object.entries(r)) {
        log(`  ${name.padEnd(20)} p50 ${ms(v.p50)} ms  p99 ${ms(v.p99)} ms  (${ratio(v.p50, r.floor.p50)} the floor)  server CPU ${ms(v.cpu)} ms/call`);
      }
    }
  } finally {
    for (const side of [...all, flusher]) await side.close().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

async function main() {
  log(`work dir ${work}${opts.smoke ? " (smoke)" : ""}`);
  const result = { machine: machine() };

  if (opts.only === "small-edit") return smallEditOnly();
  if (opts.only === "large") return largeOnly();
  if (opts.only === "crowded") return crowdedOnly();
  if (opts.only === "model-context") return modelContextOnly();
  if (opts.only === "cold-start") return coldStartOnly();
  if (opts.only === "failure-payloads") return failurePayloadsOnly();
  log("cold start");
  const cold = await coldStart(opts.splice);
  result.cold = coldSummary(cold);

  log("fsyncs per edit (strace)");
  result.fsyncs = await fsyncsPerEdit(opts.splice, opts.floor);

  flusher = new Floor(opts.floor);
  const splice = new Splice(opts.splice);
  const spliceBak = new Splice(opts.splice, { backup: true });
  const spliceNoRecord = new Splice(opts.splice, { record: false });
  const fsServer = new Filesystem();
  const floor = new Floor(opts.floor);
  const floorNoSync = new Floor(opts.floor, { fsync: false });
  const floorMcp = new FloorMcp(opts.floor);
  const floorMcpAnswer = new FloorMcp(opts.floor, { answerOf: splice });
  const all = [splice, spliceNoRecord, spliceBak, fsServer, floor, floorNoSync, floorMcp, floorMcpAnswer];
  for (const side of all) await side.start();
  await flusher.start();
  result.rss = {
    idle: { splice: median(cold.idle.splice), filesystem: median(cold.idle.filesystem) },
  };
  try {
    log(`small edit x${plan.smallEdits}`);
    const src = smallSource().text;
    result.smallEdit = summarize(
      await alternate(all, "small", src, smallEdits(true), smallEdits(false), plan.smallEdits, plan.warmup),
    );
    assert.ok(existsSync(join(work, `small-${all.indexOf(spliceBak)}.txt.bak`)), "splice with backup on wrote no .bak");

    // The same small edit in a directory crowded with other files: what a
    // server does per call that grows with the directory (listing it, say)
    // shows here and nowhere else.
    const crowd = plan.crowded;
    log(`small edit in a directory of ${crowd.files} files x${crowd.rounds}`);
    const crowdDir = join(work, "crowded");
    mkdirSync(crowdDir);
    for (let i = 0; i < crowd.files; i++) writeFileSync(join(crowdDir, `other-${i}.txt`), "");
    result.crowded = summarize(
      await alternate([splice, fsServer, floor], "crowded", src, smallEdits(true), smallEdits(false), crowd.rounds, plan.warmup, crowdDir),
    );
    rmSync(crowdDir, { recursive: true, force: true });

    const core = [splice, fsServer, floor, floorNoSync];
    const bf = plan.bigFile;
    log(`${sizeLabel(bf.size)} / ${bf.edits} edits x${bf.rounds}`);
    result.bigFile = summarize(
      await alternate([...core, spliceNoRecord], "big", markedText(bf.size, bf.edits), markerEdits(bf.edits, true), markerEdits(bf.edits, false), bf.rounds, 2),
    );

    const ra = plan.replaceAll;
    log(`${sizeLabel(ra.size)} replace_all of ${ra.occurrences} x${ra.rounds}`);
    const raText = replaceAllText(ra.size, ra.occurrences);
    result.replaceAll = summarize(
      await alternate([splice, spliceNoRecord, floor, floorNoSync], "replace-all", raText,
        [{ old: "needle", new: "NEEDLE", all: true }], [{ old: "NEEDLE", new: "needle", all: true }], ra.rounds, 2),
    );

    log(`sweep ${plan.sweep.map((x) => `${sizeLabel(x.size)} x${x.rounds}`).join(", ")}, interleaved`);
    result.sweep = await sweep(core);

    log("failure payloads");
    result.failures = await failurePayloads(splice, fsServer);

    result.rss.peak = {
      splice: readProcStatus(splice.pid, "VmHWM"),
      filesystem: readProcStatus(fsServer.pid, "VmHWM"),
      floor: readProcStatus(floor.pid, "VmHWM"),
    };
  } finally {
    for (const side of [...all, flusher]) await side.close().catch(() => {});
  }

  result.machine.loadEnd = loadavg();
  result.targets = targets(result);
  const md = report(result);
  const svg = chart(result.sweep);
  const outDir = opts.reportDir ?? join(work, "report");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "benchmarks.md"), md);
  writeFileSync(join(outDir, "benchmarks.svg"), svg);
  writeFileSync(join(work, "results.json"), JSON.stringify(result, null, 2));
  assert.ok(svg.includes("<polyline") && md.includes("| Small edit"), "report generation produced no table or chart");
  for (const t of result.targets) log(`${t.met ? "met   " : "MISSED"} ${t.text}`);
  if (opts.smoke) {
    log("smoke run ok");
    rmSync(work, { recursive: true, force: true });
  } else {
    log(`wrote ${join(outDir, "benchmarks.md")} and benchmarks.svg; raw results in ${join(work, "results.json")}`);
    // Keep only the raw results; the bench files themselves can be large.
    for (const name of readdirSync(work)) if (name !== "results.json") rmSync(join(work, name), { recursive: true, force: true });
  }
}

/** The side that answers like splice with the floor's work (`FloorMcp`'s `answerOf`). */
const ANSWER_FLOOR = "floor (MCP, splice's answer)";

/**
 * How much of the small edit is MCP itself and the client's handling of
 * splice's answer: the floor's edit served over MCP through the same SDK
 * client, with a one-line answer and with splice's, against the plain floor
 * and against splice.
 */
function protocolShare(small) {
  const fl = small.floor.p50;
  const mcp = small["floor (MCP)"].p50;
  const answer = small[ANSWER_FLOOR].p50;
  const s = small.splice.p50;
  const us = (x) => (x * 1000).toFixed(0);
  return (
    `The same edit served by the floor as an MCP server through the same client takes ${ms(mcp)} ms ` +
    `(${ratio(mcp, fl)} the floor): ${us(mcp - fl)} µs of every call are the protocol and the SDK client ` +
    `(JSON-RPC framing, the client's parsing of a one-line result) before a server does anything of its own. ` +
    `Answering with splice's answer instead (its structured result and text copy, checked by the client against splice's output schema) ` +
    `it takes ${ms(answer)} ms: ${us(answer - mcp)} µs more, the client's handling of that answer. ` +
    `splice's own work on top of that is ${us(s - answer)} µs (${ratio(s, answer)} the floor answering like it).`
  );
}

/** Issue #25's goal for the default small edit (recording for undo on). */
function smallEditTarget(small) {
  const off = small["splice (recording off)"];
  return {
    met: small.splice.p50 / small.floor.p50 <= 1.3 && small.splice.p50 < small.filesystem.p50 && small.splice.p50 - off.p50 <= 0.1,
    text:
      `small edit with recording for undo on (the default): at most 1.3x the floor with fsync, faster than the filesystem server, ` +
      `and at most 0.1 ms over recording off: ${ratio(small.splice.p50, small.floor.p50)} the floor, ` +
      `${ratio(small.splice.p50, small.filesystem.p50)} the filesystem server, ${((small.splice.p50 - off.p50) * 1000).toFixed(0)} µs over recording off ` +
      `(${ms(small.splice.p50)} vs ${ms(small.floor.p50)}, ${ms(small.filesystem.p50)} and ${ms(off.p50)} ms); ` +
      `the floor itself, answering with splice's answer through the same client, is at ${ratio(small[ANSWER_FLOOR].p50, small.floor.p50)} the floor`,
  };
}

/** `size` bytes in which "needle" occurs exactly `occurrences` times. */
function replaceAllText(size, occurrences) {
  const lineLen = Math.floor(size / occurrences);
  assert.ok(lineLen >= 16, "too many occurrences for the size");
  const lines = [];
  for (let i = 0; i < occurrences; i++) {
    const head = `x${i} = needle(`;
    lines.push((head + "a".repeat(lineLen)).slice(0, lineLen - 2) + ")\n");
  }
  let text = lines.join("");
  text += "#".repeat(Math.max(0, size - text.length));
  assert.equal(text.split("needle").length - 1, occurrences);
  return text;
}

main().catch((err) => {
  console.error("[bench] failed:", err?.stack ?? err);
  process.exitCode = 1;
});
