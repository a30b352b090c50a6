/**
 * A/B of the code-mode runner: another checkout (argv[2], e.g. `git worktree add /tmp/base <commit>`
 * + `bun install` there) against this one, each with its own pool and receipts file, interleaved
 * rounds in one process so the machine's load hits both alike. Not part of `bun run bench`.
 * Usage: bun bench/ab/runner.ts <other checkout> [rounds = 16]
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const other = process.argv[2];
if (!other) throw new Error("usage: bun bench/ab/runner.ts <other checkout> [rounds]");
const trees: Record<string, string> = { base: other, new: join(import.meta.dir, "..", "..") };
// This tree again, with the run journal (#30) in SQLite instead of a file per run.
trees["new sqlite"] = trees.new!;
const SNIP = {
  six: `const a = await tools.calendar.list({ day: "mon" }); const b = await tools.calendar.get({ id: 1 }); const c = await tools.mail.search({ q: "x" });
const [d, e, f] = await Promise.all([tools.mail.get({ id: 1 }), tools.mail.get({ id: 2 }), tools.calendar.get({ id: 3 })]); return [a, b, c, d, e, f].length;`,
  thousand: `let n = 0; for (let i = 0; i < 1000; i++) n += (await tools.calendar.get({ id: i })).id; return n;`,
  // Each call after a clock read and a random draw (recorded by the run journal where there is one).
  clocked: `let n = 0; for (let i = 0; i < 1000; i++) n += (await tools.calendar.get({ id: i, t: Date.now(), r: Math.random() })).id; return n;`,
  fifty: `let n = 0; for (let i = 0; i < 50; i++) n += (await tools.calendar.get({ id: i, t: Date.now() })).id; return n;`,
  empty: `return 1;`,
};
const runners: Record<string, any> = {};
for (const [name, R] of Object.entries(trees)) {
  const { createCodeModeRunner } = await import(`${R}/packages/core/src/codemode/runner.ts`);
  const { openDatabase } = await import(`${R}/packages/core/src/db/open.ts`);
  const { createSqliteReceiptStore } = await import(`${R}/packages/core/src/receipts/sqlite/store.ts`);
  const { createSandboxPool } = await import(`${R}/packages/core/src/sandbox/pool.ts`);
  const { defineTool, z } = await import(`${R}/packages/sdk/src/index.ts`);
  const dir = mkdtempSync(join(tmpdir(), `oa-ab-runner-${name}-`));
  const anyInput = z.object({}).passthrough();
  const result = (path: string) => async (input: unknown) => ({ id: 7, path, title: "Standup", input });
  const t = (p: string) => defineTool({ description: p, approval: "auto", args: anyInput, run: result(p) });
  const tree = {
    calendar: { list: t("calendar.list"), get: t("calendar.get") },
    mail: { search: t("mail.search"), get: t("mail.get") },
  };
  const pool = createSandboxPool({ minIdle: 1, limits: { maxToolCalls: 2000 } });
  await pool.warmUp();
  const db = openDatabase(`${dir}/oa.sqlite`);
  // The run journal (#30) where the checkout has one: the cost of recording calls and nondeterminism.
  const sqliteJournal = await import(`${R}/packages/core/src/receipts/sqlite/run-journal.ts`).catch(() => undefined);
  const fileJournal = await import(`${R}/packages/core/src/receipts/replay/file-journal.ts`).catch(() => undefined);
  const journal =
    name === "new sqlite" ? sqliteJournal?.openSqliteRunJournal(db) : fileJournal?.openFileRunJournal(`${dir}/runs`);
  const store = createSqliteReceiptStore(db, { keyDir: `${dir}/config`, journal: true });
  const runner = createCodeModeRunner({
    tools: tree,
    ...(journal ? { journal } : {}),
    // As each version's gateway opens it (a checkout without the journal ignores the option).
    receipts: store,
    requestApproval: async () => ({ decision: "denied", by: "b" }),
    sandbox: pool,
    limits: { maxToolCalls: 2000 },
  });
  runners[name] = { runner, pool, journal, store, R };
}
const go = async (name: string, s: keyof typeof SNIP) => {
  const t = performance.now();
  const r = await runners[name].runner.runPromise(SNIP[s]);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return performance.now() - t;
};
const res: Record<string, number[]> = {};
const push = (k: string, v: number) => (res[k] ??= []).push(v);
for (let round = 0; round < Number(process.argv[3] ?? 16); round++) {
  for (const name of Object.keys(trees)) {
    for (let i = 0; i < 10; i++) {
      await Bun.sleep(50);
      const v = await go(name, "six");
      if (round > 0) push(`${name} six spaced`, v);
    }
    for (let i = 0; i < 10; i++) {
      const v = await go(name, "six");
      if (round > 0) push(`${name} six back-to-back`, v);
    }
    await Bun.sleep(50);
    const e = await go(name, "empty");
    await Bun.sleep(50);
    const th = await go(name, "thousand");
    if (round > 0) push(`${name} crossing`, (th - e) / 1000);
    await Bun.sleep(50);
    const cl = await go(name, "clocked");
    if (round > 0) push(`${name} crossing clocked`, (cl - e) / 1000);
  }
}
const med = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)]!;
};
const q = (a: number[], p: number) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length * p)]!;
};
for (const k of Object.keys(res).sort()) {
  const f = k.includes("crossing") ? 1000 : 1;
  console.log(
    k.padEnd(28),
    "p25",
    (q(res[k]!, 0.25) * f).toFixed(2),
    "median",
    (med(res[k]!) * f).toFixed(2),
    "p75",
    (q(res[k]!, 0.75) * f).toFixed(2),
    f === 1000 ? "µs" : "ms",
  );
}
// Resuming a 50-call run whose calls are all recorded: every call answered from the record.
const { runner: newRunner, journal, store, R: newTree } = runners.new;
const { readReplayLog } = await import(`${newTree}/packages/core/src/receipts/replay/replay-log.ts`);
const resumes: number[] = [];
for (let i = 0; i < 20; i++) {
  const first = await newRunner.runPromise(SNIP.fifty);
  const t = performance.now();
  const log = await readReplayLog({ byRun: async (id: string) => store.byRun(id) }, journal, first.runId);
  const again = await newRunner.runPromise(SNIP.fifty, { resume: log });
  if (!again.ok || again.valueJson !== first.valueJson) throw new Error(`resume differed: ${JSON.stringify(again)}`);
  if (i > 1) resumes.push(performance.now() - t);
}
console.log(
  "new resume of 50 calls".padEnd(28),
  "p25",
  q(resumes, 0.25).toFixed(2),
  "median",
  med(resumes).toFixed(2),
  "p75",
  q(resumes, 0.75).toFixed(2),
  "ms",
);
for (const { runner, pool } of Object.values(runners)) {
  await runner.close();
  await pool.close();
}
