/**
 * Receipts/s on PostgreSQL against SQLite, in the same run: the receipt log as the tool invoker
 * writes it (requested + started staged, `durable()` before the tool runs, the outcome deferred to
 * the next commit), one run alone and 50 runs at once. SQLite as the gateway opens it (WAL,
 * synchronous=NORMAL, the journal and its fold worker); PostgreSQL on a throwaway local server
 * (testkit) with fsync on, once with synchronous_commit=on (a commit waits for the WAL flush) and
 * once off (like SQLite's NORMAL: a process crash loses nothing, an OS crash may lose the last
 * commits). Wall-clock rates: the machine is shared, so compare ratios within one run.
 * Run: bun bench/postgres.bench.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connectPostgres } from "../packages/core/src/db/postgres/connect.ts";
import { openDatabase } from "../packages/core/src/db/open.ts";
import type { ReceiptLog } from "../packages/core/src/receipts/port.ts";
import { openPostgresReceipts } from "../packages/core/src/receipts/postgres/ports.ts";
import { openSqliteReceipts } from "../packages/core/src/receipts/sqlite/ports.ts";
import type { ReceiptDraft, ReceiptPhase } from "../packages/core/src/receipts/types.ts";
import { startPostgres } from "../packages/testkit/src/postgres.ts";
import { printTable } from "./lib.ts";

const dir = mkdtempSync(join(tmpdir(), "oa-bench-pg-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
const keyDir = join(dir, "config");

const draft = (run: number, call: number, phase: ReceiptPhase): ReceiptDraft => ({
  runId: `run_${run}`,
  callId: `call_${run}_${call}`,
  sessionId: "ses_1",
  toolPath: "weather.get",
  approval: "auto",
  policy: "auto",
  phase,
  inputPreview: '{"location":"Berlin","units":"metric"}',
  ...(phase === "succeeded" ? { outputPreview: '{"tempC":21,"sky":"clear"}', durationMs: 12 } : {}),
});

/** One run's calls, as the invoker stages them. */
async function runCalls(log: ReceiptLog, run: number, calls: number): Promise<void> {
  for (let c = 0; c < calls; c++) {
    log.stage(draft(run, c, "requested"));
    log.stage(draft(run, c, "started"));
    await log.durable();
    log.stage(draft(run, c, "succeeded"), { defer: true });
  }
  await log.durable();
}

async function rate(log: ReceiptLog, runs: number, calls: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: runs }, (_, r) => runCalls(log, r + runs * 1000, calls)));
  return (runs * calls * 3) / ((performance.now() - t0) / 1000);
}

type Backend = { name: string; open: () => Promise<{ log: ReceiptLog; close: () => Promise<void> }> };

let files = 0;
const sqlite: Backend = {
  name: "SQLite (WAL, journal + fold worker)",
  open: async () => {
    const db = openDatabase(join(dir, `r${files++}.sqlite`));
    const log = openSqliteReceipts(db, { keyDir, journal: true });
    return { log, close: async () => (await log.close(), db.close()) };
  },
};

const server = await startPostgres({ settings: { fsync: "on", full_page_writes: "on" } });
const postgres = (syncCommit: "on" | "off"): Backend => ({
  name: `PostgreSQL 15 (synchronous_commit=${syncCommit})`,
  open: async () => {
    const url = await server.freshDatabase();
    server.psql(`ALTER DATABASE ${url.split("/").pop()} SET synchronous_commit = ${syncCommit}`);
    const sql = connectPostgres(url, { max: 4 });
    const log = await openPostgresReceipts(sql, { keyDir });
    return { log, close: async () => (await log.close(), await sql.close()) };
  },
});

try {
  const load = loadavg()[0]!.toFixed(1);
  const rows: Array<Record<string, string | number>> = [];
  const backends = [sqlite, postgres("on"), postgres("off")];
  const results = new Map<string, { one: number[]; many: number[] }>();
  for (let round = 0; round < 3; round++) {
    for (const b of backends) {
      const { log, close } = await b.open();
      await rate(log, 1, 20); // warm-up
      const r = results.get(b.name) ?? { one: [], many: [] };
      r.one.push(await rate(log, 1, 200));
      r.many.push(await rate(log, 50, 20));
      results.set(b.name, r);
      await close();
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = results.get(sqlite.name)!;
  for (const [name, r] of results)
    rows.push({
      backend: name,
      "1 run, receipts/s": Math.round(med(r.one)),
      "vs SQLite": (med(r.one) / med(base.one)).toFixed(2),
      "50 runs at once, receipts/s": Math.round(med(r.many)),
      "vs SQLite ": (med(r.many) / med(base.many)).toFixed(2),
    });
  printTable(`Receipt log: PostgreSQL against SQLite (median of 3 rounds; load average ${load} at start)`, rows);
} finally {
  await server.stop();
}
