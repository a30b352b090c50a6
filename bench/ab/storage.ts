/**
 * A/B of the receipt path behind the storage ports (#28): another checkout (argv[2], the tree
 * before) against this one, interleaved rounds in one process so the machine's load hits both
 * alike. Rows: the receipts of a tool call (stage requested + started, await durable, stage the
 * outcome deferred; file DB, keyed chain, journal as the gateway runs it), the runner's crossing
 * (1000 sequential calls of an auto tool, receipts kept), and the reads the console, CLI and
 * grounding make (byRun of a 3,000-receipt run, a tool-glob query): the store's own call before,
 * the reader port after. Then, this tree only: what a Promise-returning `stage` would cost per
 * receipt against the synchronous one. Not part of `bun run bench`.
 * Usage: bun bench/ab/storage.ts <other checkout> [rounds = 7]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const other = process.argv[2];
if (!other) throw new Error("usage: bun bench/ab/storage.ts <other checkout> [rounds]");
const ROUNDS = Number(process.argv[3] ?? 7);
const trees: Record<string, string> = { before: other, after: join(import.meta.dir, "..", "..") };
const dirs: string[] = [];
process.on("exit", () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The sync store (both trees) and, in a tree with ports, the ports over it. */
async function importStore(R: string) {
  const file = (await Bun.file(`${R}/packages/core/src/receipts/sqlite/store.ts`).exists())
    ? `${R}/packages/core/src/receipts/sqlite/store.ts`
    : `${R}/packages/core/src/receipts/sqlite-store.ts`;
  const { createSqliteReceiptStore } = await import(file);
  const portsFile = `${R}/packages/core/src/receipts/sqlite/ports.ts`;
  const ports = (await Bun.file(portsFile).exists()) ? (await import(portsFile)).sqliteReceiptPorts : undefined;
  const { openDatabase } = await import(`${R}/packages/core/src/db/open.ts`);
  return { createSqliteReceiptStore, ports, openDatabase };
}

interface Side {
  /** What the call path sees: the store before, the log port after. */
  readonly log: { stage(d: unknown, o?: { defer?: boolean }): void; durable(): Promise<void> };
  /** What readers call: the store's sync reads before, the reader port after. */
  byRun(runId: string): Promise<unknown[]>;
  query(q: object): Promise<unknown[]>;
  runner: { runPromise(code: string): Promise<{ ok: boolean; error?: unknown }>; close(): Promise<void> };
  pool: { close(): Promise<void> };
}

const sides: Record<string, Side> = {};
for (const [name, R] of Object.entries(trees)) {
  const { createSqliteReceiptStore, ports, openDatabase } = await importStore(R);
  const { createCodeModeRunner } = await import(`${R}/packages/core/src/codemode/runner.ts`);
  const { createSandboxPool } = await import(`${R}/packages/core/src/sandbox/pool.ts`);
  const { defineTool, z } = await import(`${R}/packages/sdk/src/index.ts`);
  const dir = mkdtempSync(join(tmpdir(), `oa-ab-storage-${name}-`));
  dirs.push(dir);
  const db = openDatabase(`${dir}/oa.sqlite`);
  const store = createSqliteReceiptStore(db, { keyDir: `${dir}/config`, journal: true });
  const port = ports ? ports(store, db) : undefined;
  const tree = {
    calendar: {
      get: defineTool({
        description: "Gets an event",
        approval: "auto",
        args: z.object({}).passthrough(),
        run: async (input: unknown) => ({ id: 7, title: "Standup", input }),
      }),
    },
  };
  const pool = createSandboxPool({ minIdle: 1, limits: { maxToolCalls: 2000 } });
  await pool.warmUp();
  const log = port ?? store;
  const runner = createCodeModeRunner({
    tools: tree,
    receipts: log,
    requestApproval: async () => ({ decision: "denied", by: "b" }),
    sandbox: pool,
    limits: { maxToolCalls: 2000 },
  });
  sides[name] = {
    log,
    byRun: port ? (id) => port.byRun(id) : async (id) => store.byRun(id),
    query: port ? (q) => port.query(q) : async (q) => store.query(q),
    runner,
    pool,
  };
}

const draft = (runId: string, callId: string, phase: string) => ({
  runId,
  callId,
  toolPath: "calendar.get",
  phase,
  approval: "auto",
  policy: "auto",
  inputPreview: '{"id":1}',
});

/** µs of wall time per call: requested + started, durable, outcome deferred (as the invoker does). */
async function callReceipts(side: Side, runId: string, calls: number): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < calls; i++) {
    side.log.stage(draft(runId, `c${i}`, "requested"));
    side.log.stage(draft(runId, `c${i}`, "started"));
    await side.log.durable();
    side.log.stage(draft(runId, `c${i}`, "succeeded"), { defer: true });
  }
  await side.log.durable();
  return ((performance.now() - t) * 1000) / calls;
}

const THOUSAND = `let n = 0; for (let i = 0; i < 1000; i++) n += (await tools.calendar.get({ id: i })).id; return n;`;
const EMPTY = "return 1;";
async function crossing(side: Side): Promise<number> {
  const run = async (code: string) => {
    const t = performance.now();
    const r = await side.runner.runPromise(code);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return performance.now() - t;
  };
  const e = await run(EMPTY);
  const th = await run(THOUSAND);
  return ((th - e) * 1000) / 1000;
}

async function timedRead(fn: () => Promise<unknown[]>, times: number): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < times; i++) await fn();
  return ((performance.now() - t) * 1000) / times;
}

// The big run the reads read: 1,000 calls, 3,000 receipts, in each tree.
for (const side of Object.values(sides)) await callReceipts(side, "run_big", 1000);

const res: Record<string, number[]> = {};
const push = (k: string, v: number) => (res[k] ??= []).push(v);
for (let round = 0; round < ROUNDS + 1; round++) {
  const order = round % 2 ? ["after", "before"] : ["before", "after"];
  for (const name of order) {
    const side = sides[name]!;
    const rows = {
      "receipts of a call (3, durable before the effect)": await callReceipts(side, `run_${round}`, 2000),
      "runner crossing, receipts kept": await crossing(side),
      "byRun, 3,000-receipt run": await timedRead(() => side.byRun("run_big"), 5),
      "query tool glob calendar.*, limit 200": await timedRead(() => side.query({ tool: "calendar.*" }), 20),
    };
    await Bun.sleep(50);
    if (round > 0) for (const [k, v] of Object.entries(rows)) push(`${k}|${name}`, v);
  }
}
for (const { runner, pool } of Object.values(sides)) {
  await runner.close();
  await pool.close();
}

const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const fmt = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
const rowNames = [...new Set(Object.keys(res).map((k) => k.split("|")[0]!))];
console.log(`\n## Storage ports A/B (${ROUNDS} rounds, medians, interleaved)`);
console.log("| row | before | after | after / before |");
console.log("| --- | --- | --- | --- |");
for (const r of rowNames) {
  const b = med(res[`${r}|before`]!);
  const a = med(res[`${r}|after`]!);
  console.log(`| ${r} | ${fmt(b)} | ${fmt(a)} | ${(a / b).toFixed(2)}× |`);
}

// A Promise-returning stage (what an `async stage` in the port would be) against the synchronous one.
const { createSqliteReceiptStore, openDatabase } = await importStore(trees.after!);
const dir = mkdtempSync(join(tmpdir(), "oa-ab-stage-"));
dirs.push(dir);
const store = createSqliteReceiptStore(openDatabase(`${dir}/oa.sqlite`), { keyDir: `${dir}/config`, journal: true });
const asyncStage = async (d: unknown, o?: { defer?: boolean }) => store.stage(d, o);
/** CPU and wall per call of two staged receipts and a durable(), the stage awaited or not. */
const stageCost = async (stage: (d: unknown, o?: { defer?: boolean }) => unknown, n: number) => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await stage(draft("run_stage", `s${i}`, "requested"));
    await stage(draft("run_stage", `s${i}`, "started"));
    await store.durable();
  }
  const wall = ((performance.now() - t0) * 1000) / n;
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / n, wall };
};
const cost: Record<string, { cpu: number[]; wall: number[] }> = {
  sync: { cpu: [], wall: [] },
  promise: { cpu: [], wall: [] },
};
for (let r = 0; r < 15; r++) {
  for (const [k, fn] of r % 2
    ? ([
        ["promise", asyncStage],
        ["sync", (d: unknown, o?: { defer?: boolean }) => store.stage(d, o)],
      ] as const)
    : ([
        ["sync", (d: unknown, o?: { defer?: boolean }) => store.stage(d, o)],
        ["promise", asyncStage],
      ] as const)) {
    const c = await stageCost(fn, 2000);
    cost[k]!.cpu.push(c.cpu);
    cost[k]!.wall.push(c.wall);
  }
}
console.log(
  "\n## stage(): synchronous vs Promise-returning, awaited (per call: 2 receipts + durable(); median of 15 × 2000)",
);
console.log("| stage | CPU µs/call | wall µs/call |");
console.log("| --- | --- | --- |");
console.log(`| synchronous (the port) | ${med(cost.sync!.cpu).toFixed(2)} | ${med(cost.sync!.wall).toFixed(2)} |`);
console.log(
  `| Promise-returning, awaited | ${med(cost.promise!.cpu).toFixed(2)} | ${med(cost.promise!.wall).toFixed(2)} |`,
);
store.close();
