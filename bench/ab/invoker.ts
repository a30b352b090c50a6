/**
 * A/B of the tool invoker's own CPU per call: another checkout (argv[2]; a copy of the tree before
 * a change, with its node_modules) against this one, in one process, rounds interleaved so the
 * machine's load hits both alike. Not part of `bun run bench`.
 * - "invoker alone": `createToolInvoker(...).invoke` awaited 20,000 times (no sandbox), receipts that
 *   do nothing: the pipeline's own work (policy, validation, previews, the run, the outcome).
 * - "standing rule": a required tool approved by a standing rule (the approval step's fast path).
 * - "runner, 1000 crossings": the code-mode runner on the sandbox pool, as `tool-calls.bench.ts`.
 * - "+ file journal" / "+ SQLite journal": the same runner journaling its runs (#30), each call's
 *   input reading `Date.now()` and `Math.random()`; a tree without the journal runs the plain runner
 *   with the same snippet (so new / base is what recording calls and nondeterminism costs).
 * Usage: bun bench/ab/invoker.ts <other checkout> [rounds = 12]
 */
import { join } from "node:path";
import { quantiles } from "../lib.ts";

const other = process.argv[2];
if (!other) throw new Error("usage: bun bench/ab/invoker.ts <other checkout> [rounds]");
const ROUNDS = Number(process.argv[3] ?? 12);
/** Crossings per runner sample, and calls per invoker-alone sample (cheap, so more of them per sample). */
const CALLS = 1000;
const DIRECT_CALLS = 20_000;
const trees: Record<string, string> = { base: other, new: join(import.meta.dir, "..", "..") };
const noReceipts = { stage() {}, durable: () => Promise.resolve() };
const code = `let n = 0; for (let i = 0; i < ${CALLS}; i++) n += (await tools.calendar.get({ id: i })).id; return n;`;
const limits = { maxToolCalls: CALLS * 2 };

type System = () => Promise<void>;
const systems: Record<string, Record<string, System>> = {};
const closers: Array<() => Promise<void>> = [];
for (const [name, R] of Object.entries(trees)) {
  const { createToolInvoker } = await import(`${R}/packages/core/src/codemode/tool-invoker.ts`);
  const { createCodeModeRunner } = await import(`${R}/packages/core/src/codemode/runner.ts`);
  const { createSandboxPool } = await import(`${R}/packages/core/src/sandbox/pool.ts`);
  const { createRedactor } = await import(`${R}/packages/core/src/receipts/redact.ts`);
  const { defineTool, z } = await import(`${R}/packages/sdk/src/index.ts`);
  const get = defineTool({
    description: "Gets an event",
    approval: "auto",
    args: z.looseObject({}),
    run: async (input: unknown) => ({ id: 7, path: "calendar.get", title: "Standup", input }),
  });
  const add = defineTool({
    description: "Adds an event",
    approval: "required",
    args: z.looseObject({}),
    run: async (input: unknown) => ({ id: 8, input }),
  });
  const tools = new Map([
    ["calendar.get", get],
    ["calendar.add", add],
  ]);
  const invoker = () =>
    createToolInvoker({
      runId: "run_ab",
      sessionId: "sess_ab",
      code: "",
      tools,
      receipts: noReceipts,
      requestApproval: async () => ({ decision: "denied", by: "bench" }),
      policy: [],
      standing: { match: () => ({ id: "r1" }) },
      redact: createRedactor([]),
      approvalTimeoutMs: 60_000,
      toolTimeoutMs: 120_000,
      previewChars: 500,
      signal: new AbortController().signal,
      running: new Map(),
    });
  const loop = (path: string) => async () => {
    const { invoke } = invoker();
    for (let i = 0; i < DIRECT_CALLS; i++) {
      const r = await invoke(path, `{"id":${i}}`);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
    }
  };
  const pool = createSandboxPool({ limits });
  const runner = createCodeModeRunner({
    tools: { calendar: { get } },
    receipts: noReceipts,
    requestApproval: async () => ({ decision: "denied", by: "bench" }),
    sandbox: pool,
    limits,
  });
  closers.push(
    () => runner.close(),
    () => pool.close(),
  );
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), `oa-ab-journal-${name}-`));
  const fileJournal = await import(`${R}/packages/core/src/receipts/replay/file-journal.ts`).catch(() => undefined);
  const sqliteJournal = await import(`${R}/packages/core/src/receipts/sqlite/run-journal.ts`).catch(() => undefined);
  const { openDatabase } = await import(`${R}/packages/core/src/db/open.ts`);
  const journaled = (journal: unknown) =>
    journal
      ? createCodeModeRunner({
          tools: { calendar: { get } },
          receipts: noReceipts,
          journal,
          requestApproval: async () => ({ decision: "denied", by: "bench" }),
          sandbox: pool,
          limits,
        })
      : runner;
  const withFile = journaled(fileJournal?.openFileRunJournal(join(dir, "runs")));
  const withSqlite = journaled(sqliteJournal?.openSqliteRunJournal(openDatabase(join(dir, "oa.sqlite"))));
  const clocked = `let n = 0; for (let i = 0; i < ${CALLS}; i++) n += (await tools.calendar.get({ id: i, t: Date.now(), r: Math.random() })).id; return n;`;
  const crossings = (r: typeof runner) => async () => {
    const result = await r.runPromise(clocked);
    if (!result.ok) throw new Error(result.error?.message);
  };
  systems[name] = {
    "invoker alone": loop("calendar.get"),
    "standing rule": loop("calendar.add"),
    "runner, 1000 crossings": async () => {
      const r = await runner.runPromise(code);
      if (!r.ok) throw new Error(r.error?.message);
    },
    "runner + file journal": crossings(withFile),
    "runner + SQLite journal": crossings(withSqlite),
  };
}

const cpu = new Map<string, number[]>();
for (let round = -2; round < ROUNDS; round++)
  for (const kind of Object.keys(systems.base!))
    for (const name of round % 2 ? ["new", "base"] : ["base", "new"]) {
      const c0 = process.cpuUsage();
      await systems[name]![kind]!();
      const c = process.cpuUsage(c0);
      if (round < 0) continue; // warm-up
      const key = `${kind}|${name}`;
      if (!cpu.has(key)) cpu.set(key, []);
      cpu.get(key)!.push((c.user + c.system) / (kind.startsWith("runner") ? CALLS : DIRECT_CALLS));
    }
for (const close of closers) await close();

console.log(`\n## Tool invoker A/B: parent CPU µs per call (${ROUNDS} rounds; medians)`);
console.log("| system | base | new | new / base |");
console.log("| --- | --- | --- | --- |");
for (const kind of Object.keys(systems.base!)) {
  const base = quantiles(cpu.get(`${kind}|base`)!).median;
  const now = quantiles(cpu.get(`${kind}|new`)!).median;
  console.log(`| ${kind} | ${base.toFixed(2)} | ${now.toFixed(2)} | ${(now / base).toFixed(3)} |`);
}
