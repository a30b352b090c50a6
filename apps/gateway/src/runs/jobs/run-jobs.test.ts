import { afterEach, expect, test } from "bun:test";
import { connectPostgres, migrate, type Postgres } from "@openassistant/core/db";
import { RUN_JOURNAL_MIGRATIONS } from "@openassistant/core/receipts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { eventually } from "../../../test/discord-e2e.ts";
import { openSharedRuns, type SharedRuns } from "./postgres-runs.ts";
import { pgBossSchema } from "./pgboss-schema.ts";
import { installRunJobs, ORPHANED_QUEUE, RUNS_QUEUE } from "./run-jobs.ts";

/**
 * The runs' jobs on a real PostgreSQL, each "gateway" a `SharedRuns` of its own on the same
 * database. A gateway's death is its jobs left active with nobody touching them; the heartbeat is
 * then dated back (instead of waiting pg-boss's 10 s), which its supervisor sees as a lapse. The
 * kill -9 of real processes is in `postgres/replicas.e2e.test.ts`.
 */
const pg = usePostgres();
const open: Array<{ runs: SharedRuns; sql: Postgres }> = [];
afterEach(async () => {
  for (const g of open.splice(0)) {
    await g.runs.close().catch(() => {});
    await g.sql.close();
  }
});

async function gateway(url: string, log: string[] = []) {
  const sql = connectPostgres(url, { max: 3 });
  await migrate(sql, "runs", RUN_JOURNAL_MIGRATIONS);
  const runs = await openSharedRuns(url, sql, (l) => log.push(l));
  const g = { runs, sql };
  open.push(g);
  return g;
}

const jobsOf = (sql: Postgres, runId: string): Promise<Array<{ name: string; state: string }>> =>
  sql`SELECT name, state FROM pgboss.job WHERE data->>'runId' = ${runId} ORDER BY created_on`;

/** The run's first journal batch (what the runner commits before its first card or effect). */
function begin(g: { runs: SharedRuns }, runId: string) {
  const { journal } = g.runs;
  return journal.batch(() => {
    journal.begin({ runId, seed: [1, 2, 3, 4], context: { code: "return 1", sessionId: "s" } });
    journal.call({ runId, position: 0, callId: `${runId}_c0`, toolPath: "notes.write", inputHash: "h" });
  });
}

/** Dates a job's heartbeat back past pg-boss's heartbeat, as if its holder had stopped touching it 10 s ago. */
const lapse = (sql: Postgres, runId: string) =>
  sql`UPDATE pgboss.job SET heartbeat_on = now() - interval '1 minute' WHERE data->>'runId' = ${runId} AND state = 'active'`;

test("a run's job is sent and claimed in its first journal transaction; finished, it is completed", async () => {
  const url = await pg.freshDatabase();
  const a = await gateway(url);
  await begin(a, "run_done");
  // Never seen waiting: active (held by A) from its first commit.
  expect(await jobsOf(a.sql, "run_done")).toEqual([{ name: RUNS_QUEUE, state: "active" }]);
  // A resume's journal writes no begin: no second job.
  await a.runs.journal.batch(() => a.runs.journal.resumed("run_done"));
  expect(await jobsOf(a.sql, "run_done")).toHaveLength(1);
  a.runs.jobs.finished("run_done");
  await eventually(
    async () => (await jobsOf(a.sql, "run_done"))[0]?.state === "completed",
    "the finished run's job to be completed",
  );
});

test("a dead gateway's run is claimed by exactly one of two live gateways and resumed there; the job completes", async () => {
  const url = await pg.freshDatabase();
  const dead = await gateway(url);
  await begin(dead, "run_orphan");
  await dead.runs.close(); // it stops touching its jobs, which stay active: a kill, as the database sees it
  open.splice(open.indexOf(dead), 1);
  await dead.sql.close();

  const claims: string[] = [];
  const [b, c] = [await gateway(url), await gateway(url)];
  const resumed = Promise.withResolvers<void>();
  for (const [name, g] of [
    ["b", b],
    ["c", c],
  ] as const)
    g.runs.jobs.takeOver(async (runId) => {
      claims.push(`${name}:${runId}`);
      resumed.resolve();
    });
  await lapse(b.sql, "run_orphan");
  await resumed.promise;
  await eventually(
    async () => (await jobsOf(b.sql, "run_orphan")).some((j) => j.name === ORPHANED_QUEUE && j.state === "completed"),
    "the taken-over run's job to be completed",
  );
  expect(claims).toHaveLength(1);
  expect(claims[0]).toEndWith(":run_orphan");
  expect((await jobsOf(b.sql, "run_orphan")).map((j) => `${j.name} ${j.state}`)).toEqual([
    `${RUNS_QUEUE} failed`,
    `${ORPHANED_QUEUE} completed`,
  ]);
}, 30_000);

async function failAsTheSupervisorWould(sql: Postgres, runId: string) {
  const { PgBoss, fromBunSql } = await import("pg-boss");
  const boss = new PgBoss({ db: fromBunSql(sql), schema: "pgboss", supervise: false, migrate: false, schedule: false });
  await boss.start();
  try {
    const [job] = await sql`SELECT id FROM pgboss.job WHERE data->>'runId' = ${runId} AND state = 'active'`;
    await boss.fail(RUNS_QUEUE, job.id, { value: { message: "job heartbeat timeout" } });
  } finally {
    await boss.stop({ graceful: false });
  }
}

test("a gateway whose claim lapsed (it stalled) stops the run: its watch is aborted, and another gateway takes it", async () => {
  const url = await pg.freshDatabase();
  const log: string[] = [];
  const stalled = await gateway(url, log);
  const lost = stalled.runs.jobs.watch("run_stalled");
  await begin(stalled, "run_stalled");
  const other = await gateway(url);
  const taken = Promise.withResolvers<string>();
  other.runs.jobs.takeOver(async (runId) => taken.resolve(runId));
  // What pg-boss's supervisor does to a job whose heartbeat lapsed while its gateway stalled (a
  // stalled gateway's own touches would undo a dated-back heartbeat here): it fails it, and the
  // runs queue hands it to the dead-letter queue.
  await failAsTheSupervisorWould(stalled.sql, "run_stalled");
  expect(await taken.promise).toBe("run_stalled");
  await new Promise<void>((resolve) => lost.addEventListener("abort", () => resolve(), { once: true }));
  expect(String(lost.reason)).toContain("lost its claim on run run_stalled");
  expect(log.join("\n")).toContain("run run_stalled: its job's heartbeat lapsed");
}, 30_000);

test("a role that may not install pg-boss's schema is told to run `db migrate` as the owner; after it, the role runs the jobs", async () => {
  const url = await pg.freshDatabase();
  const owner = connectPostgres(url, { max: 1 });
  open.push({ runs: { close: async () => {} } as SharedRuns, sql: owner });
  await migrate(owner, "runs", RUN_JOURNAL_MIGRATIONS);
  const server = await pg.server();
  const database = new URL(url).pathname.slice(1);
  server.psql(
    "CREATE ROLE jobs_gw LOGIN; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO jobs_gw; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO jobs_gw;",
    database,
  );
  const asRole = url.replace("postgres://postgres@", "postgres://jobs_gw@");
  const roleSql = connectPostgres(asRole, { max: 2 });
  open.push({ runs: { close: async () => {} } as SharedRuns, sql: roleSql });
  const refused = await openSharedRuns(asRole, roleSql, () => {}).then(
    () => "started",
    (e: Error) => e.message,
  );
  expect(refused).toContain("could not start the run jobs (pg-boss) on storage.url: permission denied for database");
  expect(refused).toContain("run `openassistant db migrate` once as the database's owner");

  // The owner installs pg-boss's schema and the queues (what `db migrate` does); a second time, nothing.
  const { known } = await pgBossSchema(owner);
  expect(await installRunJobs(owner)).toEqual({ from: 0, to: known });
  expect(await installRunJobs(owner)).toEqual({ from: known, to: known });
  expect((await owner`SELECT name FROM pgboss.queue ORDER BY name`).map((q: { name: string }) => q.name)).toEqual([
    RUNS_QUEUE,
    ORPHANED_QUEUE,
  ]);
  server.psql(
    "GRANT USAGE ON SCHEMA pgboss TO jobs_gw; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO jobs_gw;",
    database,
  );
  const runs = await openSharedRuns(asRole, roleSql, () => {});
  open.push({ runs, sql: roleSql });
  await begin({ runs }, "run_granted");
  expect(await jobsOf(owner, "run_granted")).toEqual([{ name: RUNS_QUEUE, state: "active" }]);
}, 30_000);
