/**
 * What runs across replicas cost (#31), on a throwaway local PostgreSQL with fsync on and
 * synchronous_commit=on (a commit waits for the WAL flush), in one run:
 * - a run's first journal commit (begin + first call): the PostgreSQL journal alone, against the
 *   same commit with the run's pg-boss job sent and claimed in its transaction (the cost of a job
 *   per run), plus completing the job when the run ends; one run at a time and 50 at once;
 * - a later commit point (a call's entry and the previous answer): the PostgreSQL journal against
 *   the file journal the gateway uses without storage.url;
 * - what starting the jobs adds to a gateway's start (pg-boss's schema installed, or checked).
 * Wall-clock times on a shared machine: compare within one run. Run: bun bench/run-jobs.bench.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openSharedRuns } from "../apps/gateway/src/runs/jobs/postgres-runs.ts";
import { connectPostgres } from "../packages/core/src/db/postgres/connect.ts";
import { migrate } from "../packages/core/src/db/postgres/migrate.ts";
import { openPostgresRunJournal, RUN_JOURNAL_MIGRATIONS } from "../packages/core/src/receipts/postgres/run-journal.ts";
import { openFileRunJournal } from "../packages/core/src/receipts/replay/file-journal.ts";
import type { RunJournal } from "../packages/core/src/receipts/replay/port.ts";
import { startPostgres } from "../packages/testkit/src/postgres.ts";
import { fmtMs, printTable } from "./lib.ts";

const RUNS = 200;
const AT_ONCE = 50;
const dir = mkdtempSync(join(tmpdir(), "oa-bench-jobs-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

const server = await startPostgres({ settings: { fsync: "on", synchronous_commit: "on" } });
const url = await server.freshDatabase();
const sql = connectPostgres(url, { max: 10 });
await migrate(sql, "runs", RUN_JOURNAL_MIGRATIONS);
// A gateway's start on a shared database: pg-boss installs its schema on the first, checks it after.
let t0 = performance.now();
const first = await openSharedRuns(url, sql, () => {});
const firstStartMs = performance.now() - t0;
await first.close();
t0 = performance.now();
const shared = await openSharedRuns(url, sql, () => {});
const laterStartMs = performance.now() - t0;
const plain = openPostgresRunJournal(sql);
const file = openFileRunJournal(join(dir, "runs"));

let seq = 0;
const firstCommit = (journal: RunJournal) => {
  const runId = `run_${++seq}`;
  const done = journal.batch(() => {
    journal.begin({ runId, seed: [1, 2, 3, 4], context: { code: "return await tools.notes.write({})" } });
    journal.call({ runId, position: 0, callId: `${runId}_c0`, toolPath: "notes.write", inputHash: "h" });
  });
  return { runId, done: Promise.resolve(done) };
};
const laterCommit = (journal: RunJournal, runId: string, position: number) =>
  Promise.resolve(
    journal.batch(() => {
      journal.answer(runId, position - 1, { ok: true, json: '{"saved":true}' }, Date.now());
      journal.call({ runId, position, callId: `${runId}_c${position}`, toolPath: "notes.write", inputHash: "h" });
    }),
  );

async function perRun(name: string, work: () => Promise<void>, atOnce: number): Promise<Record<string, string>> {
  const t0 = performance.now();
  for (let done = 0; done < RUNS; done += atOnce) await Promise.all(Array.from({ length: atOnce }, work));
  const ms = (performance.now() - t0) / RUNS;
  return { commit: name, "runs at once": String(atOnce), "per run (wall / runs)": fmtMs(ms) };
}

const rows: Array<Record<string, string>> = [];
for (const atOnce of [1, AT_ONCE]) {
  rows.push(await perRun("first commit, journal only", async () => void (await firstCommit(plain).done), atOnce));
  rows.push(
    await perRun(
      "first commit + the run's job sent and claimed in it",
      async () => void (await firstCommit(shared.journal).done),
      atOnce,
    ),
  );
  rows.push(
    await perRun(
      "the same + the job completed at the run's end",
      async () => {
        const { runId, done } = firstCommit(shared.journal);
        await done;
        shared.jobs.finished(runId);
      },
      atOnce,
    ),
  );
}
const { runId } = firstCommit(file);
let position = 0;
rows.push(await perRun("later commit point, file journal", () => laterCommit(file, runId, ++position), 1));
const pgRun = firstCommit(plain);
await pgRun.done;
let pgPosition = 0;
rows.push(
  await perRun("later commit point, PostgreSQL journal", () => laterCommit(plain, pgRun.runId, ++pgPosition), 1),
);

rows.push({
  commit: "a gateway's start: pg-boss's schema installed (first gateway)",
  "runs at once": "-",
  "per run (wall / runs)": fmtMs(firstStartMs),
});
rows.push({
  commit: "a gateway's start: pg-boss on an installed schema",
  "runs at once": "-",
  "per run (wall / runs)": fmtMs(laterStartMs),
});
printTable(
  `Runs across replicas: journal commits and the run's job (${RUNS} runs; load ${loadavg()[0]!.toFixed(1)}, ${new Date().toISOString()})`,
  rows,
);
await shared.close();
await plain.close();
await sql.close();
await server.stop();
process.exit(0);
