import type { TransactionSQL } from "bun";
import type { Postgres } from "@openassistant/core/db";
import type { RunStart } from "@openassistant/core/receipts";
import type { PgBoss } from "pg-boss";
import { INSTALL_AS_OWNER, PGBOSS_SCHEMA, pgBossMigrationPlans, pgBossSchema } from "./pgboss-schema.ts";

/**
 * Runs as jobs on a shared PostgreSQL (docs/scaling.md, "Runs across replicas"), with pg-boss:
 *
 * - A new run's job is sent **and claimed** (`fetch`, so it is `active`, held by this replica) in
 *   the transaction that commits the run's first journal entries (`onBegin`, called by the
 *   PostgreSQL run journal): it exists exactly when the run's journal does, and no other replica
 *   ever sees it waiting. Nothing of pg-boss runs on a call's path after that.
 * - The replica holds its jobs with a heartbeat: one `touch` of all its jobs every
 *   `TOUCH_EVERY_MS`. A replica that dies (kill -9) stops touching; pg-boss's supervisor (in any
 *   live replica) fails the job once its heartbeat is `HEARTBEAT_SECONDS` old, and with no retry
 *   left on the runs queue it goes to the dead-letter queue `ORPHANED_QUEUE`.
 * - Every replica fetches from `ORPHANED_QUEUE` (SKIP LOCKED: one replica claims each job) and
 *   resumes the run through the replay of durable runs (`takeOver`), holding that job with the same
 *   heartbeat; if it dies too, the job's retry makes it claimable again.
 * - A run that ends completes its job. A replica whose touch finds a claim gone (it stalled longer
 *   than the heartbeat, another replica may be resuming the run) aborts that run.
 */
export const RUNS_QUEUE = "openassistant-runs";
export const ORPHANED_QUEUE = "openassistant-runs-orphaned";
/** pg-boss's smallest heartbeat: a dead replica's runs are claimable this long after its last touch. */
const HEARTBEAT_SECONDS = 10;
const TOUCH_EVERY_MS = 2_000;
/** How often pg-boss's supervisor looks for lapsed heartbeats (its default is 60 s). */
const SUPERVISE_SECONDS = 2;
const ORPHAN_POLL_MS = 1_000;
/**
 * pg-boss's longest time a job may stay active (24 h): a run held longer is handed to another
 * gateway (this one then finds its claim gone and stops it). Approvals time out long before.
 */
const ACTIVE_LIMIT_SECONDS = 24 * 3600;
/** Taken over at most this many times (each take-over is one dead replica). */
const TAKEOVER_LIMIT = 20;

interface Held {
  readonly queue: string;
  readonly job: { readonly id: string; readonly retryCount: number };
}

export interface RunJobs {
  /** In the journal's transaction: sends each new run's job and claims it for this replica. */
  onBegin(tx: TransactionSQL, runs: readonly RunStart[]): Promise<void>;
  /** Aborted if this replica loses the run's claim (see above); `finished` forgets it. */
  watch(runId: string): AbortSignal;
  /** The run ended here: its job is completed (not awaited by the run; a failure is logged). */
  finished(runId: string): void;
  /**
   * Starts claiming dead gateways' runs, while `when` holds (always without it): `resume` resumes
   * one and resolves when it is done.
   */
  takeOver(resume: (runId: string, signal: AbortSignal) => Promise<void>, when?: () => boolean): void;
  close(): Promise<void>;
}

export interface RunJobsOptions {
  readonly log: (line: string) => void;
}

/**
 * Starts pg-boss on its own small Bun.SQL pool (`url`) and starts touching. pg-boss installs its
 * schema and the gateway creates the two queues when missing (a role that owns the database: dev
 * setups); finding them current, both only read, so a gateway role without DDL rights starts once
 * `openassistant db migrate` installed them as the owner (`installRunJobs`).
 */
export async function openRunJobs(url: string, connect: (url: string) => Postgres, options: RunJobsOptions) {
  const { PgBoss, fromBunSql } = await import("pg-boss");
  const sql = connect(url);
  const boss = new PgBoss({
    ...bossOptions(fromBunSql(sql)),
    superviseIntervalSeconds: SUPERVISE_SECONDS,
    monitorIntervalSeconds: SUPERVISE_SECONDS,
  });
  boss.on("error", (e: Error) => options.log(`run jobs (pg-boss): ${e.message}`));
  try {
    await boss.start();
    await ensureQueues(boss);
  } catch (e) {
    await boss.stop({ graceful: false }).catch(() => {});
    await sql.close();
    const message = (e as Error).message;
    const denied = /permission denied|must be owner/i.test(message);
    throw new Error(
      `could not start the run jobs (pg-boss) on storage.url: ${message}${denied ? `: ${INSTALL_AS_OWNER}` : ""}`,
    );
  }
  return runJobs(boss, sql, fromBunSql, options);
}

/**
 * As the database's owner (`openassistant db migrate`): installs pg-boss's schema or migrates it
 * (index builds inline), and creates the runs' queues. `from`/`to`: its version before and after.
 */
export async function installRunJobs(sql: Postgres): Promise<{ from: number; to: number }> {
  const { PgBoss, fromBunSql } = await import("pg-boss");
  const { database: from, known } = await pgBossSchema(sql);
  const db = fromBunSql(sql);
  if (from > 0 && from < known) await db.executeSql(await pgBossMigrationPlans(from));
  const boss = new PgBoss({ ...bossOptions(db), migrate: true, supervise: false, registerInstance: false });
  try {
    await boss.start();
    await ensureQueues(boss);
  } finally {
    await boss.stop({ graceful: false }).catch(() => {});
  }
  return { from, to: (await pgBossSchema(sql)).database };
}

function bossOptions(db: ReturnType<typeof import("pg-boss").fromBunSql>) {
  return { db, schema: PGBOSS_SCHEMA, schedule: false };
}

async function ensureQueues(boss: PgBoss): Promise<void> {
  const common = { heartbeatSeconds: HEARTBEAT_SECONDS, expireInSeconds: ACTIVE_LIMIT_SECONDS };
  // Dead-letter queue first: the runs queue names it.
  if (!(await boss.getQueue(ORPHANED_QUEUE)))
    await boss.createQueue(ORPHANED_QUEUE, { ...common, retryLimit: TAKEOVER_LIMIT }).catch(ignoreExists);
  if (!(await boss.getQueue(RUNS_QUEUE)))
    await boss.createQueue(RUNS_QUEUE, { ...common, retryLimit: 0, deadLetter: ORPHANED_QUEUE }).catch(ignoreExists);
}

/** Two replicas starting together may both create a queue: the second finds it made. */
function ignoreExists(e: unknown): void {
  if (!/already exists|duplicate key/i.test((e as Error).message)) throw e;
}

function runJobs(
  boss: PgBoss,
  sql: Postgres,
  fromBunSql: typeof import("pg-boss").fromBunSql,
  options: RunJobsOptions,
): RunJobs {
  const held = new Map<string, Held>();
  const watched = new Map<string, AbortController>();
  let closing = false;

  const watch = (runId: string) => {
    let c = watched.get(runId);
    if (!c) watched.set(runId, (c = new AbortController()));
    return c.signal;
  };
  const finished = (runId: string) => {
    watched.delete(runId);
    const h = held.get(runId);
    if (!h) return;
    held.delete(runId);
    boss
      .complete(h.queue, h.job)
      .catch((e: unknown) => options.log(`run ${runId}: could not complete its job: ${(e as Error).message}`));
  };

  const lose = (runId: string, why: string) => {
    held.delete(runId);
    options.log(`run ${runId}: ${why}; this gateway stops it (another gateway may resume it)`);
    watched.get(runId)?.abort(`the gateway lost its claim on run ${runId}`);
  };

  const touch = async () => {
    for (const queue of [RUNS_QUEUE, ORPHANED_QUEUE]) {
      const mine = [...held].filter(([, h]) => h.queue === queue);
      if (mine.length === 0) continue;
      const r = (await boss.touch(
        queue,
        mine.map(([, h]) => h.job),
      )) as { settled?: string[] };
      const kept = new Set(r.settled ?? []);
      for (const [runId, h] of mine)
        if (!kept.has(h.job.id) && held.get(runId) === h) lose(runId, "its job's heartbeat lapsed");
    }
  };
  let touching = false;
  const touchTimer = setInterval(() => {
    if (touching || closing) return;
    touching = true;
    touch()
      .catch((e: unknown) => options.log(`run jobs: could not refresh the runs' heartbeat: ${(e as Error).message}`))
      .finally(() => (touching = false));
  }, TOUCH_EVERY_MS);

  let pollTimer: ReturnType<typeof setInterval> | undefined;

  return {
    async onBegin(tx, runs) {
      const db = fromBunSql(tx);
      const ids: string[] = [];
      for (const r of runs) {
        const id = await boss.send(RUNS_QUEUE, { runId: r.runId }, { db });
        if (id) ids.push(id);
      }
      const claimed = await boss.fetch<{ runId: string }>(RUNS_QUEUE, { batchSize: runs.length, db });
      // Inside this transaction only its own jobs wait on the runs queue (every job there is claimed
      // in the transaction that sends it): anything else is refused, and the batch rolls back.
      const wanted = new Set(ids);
      if (claimed.length !== runs.length || claimed.some((j) => !wanted.has(j.id)))
        throw new Error("the runs' jobs could not be claimed in their own transaction (pg-boss)");
      for (const j of claimed)
        held.set(j.data.runId, { queue: RUNS_QUEUE, job: { id: j.id, retryCount: j.retryCount } });
    },
    watch,
    finished,
    takeOver(resume, when = () => true) {
      const poll = async () => {
        const jobs = await boss.fetch<{ runId: string }>(ORPHANED_QUEUE, { batchSize: 10 });
        for (const j of jobs) {
          const { runId } = j.data;
          held.set(runId, { queue: ORPHANED_QUEUE, job: { id: j.id, retryCount: j.retryCount } });
          // Not awaited: a resumed run may wait for a person; the next poll goes on meanwhile. A run
          // cut short by this gateway's stop keeps its job, which another gateway claims later.
          void resume(runId, watch(runId))
            .catch((e: unknown) => options.log(`taking over run ${runId} failed: ${(e as Error).message}`))
            .finally(() => {
              if (!closing) finished(runId);
            });
        }
      };
      let polling = false;
      pollTimer = setInterval(() => {
        if (polling || closing || !when()) return;
        polling = true;
        poll()
          .catch((e: unknown) => options.log(`run jobs: could not look for runs to take over: ${(e as Error).message}`))
          .finally(() => (polling = false));
      }, ORPHAN_POLL_MS);
    },
    async close() {
      closing = true;
      clearInterval(touchTimer);
      if (pollTimer) clearInterval(pollTimer);
      // Runs still held are left active: a graceful stop records their outcome, and a later
      // heartbeat lapse hands what is still pending to another gateway.
      await boss.stop({ graceful: false }).catch(() => {});
      await sql.close();
    },
  };
}
