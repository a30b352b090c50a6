import type { TransactionSQL } from "bun";
import type { Postgres } from "../../db/postgres/connect.ts";
import { foldJournalLines, journalLine, type JournalLine } from "../replay/journal-lines.ts";
import type { RunJournal, RunStart } from "../replay/port.ts";

/**
 * The run journal's table: one row per entry, the same JSON lines the file backend appends (text,
 * not jsonb: an escaped U+0000 stays as written). `seq` orders a run's entries.
 */
export const RUN_JOURNAL_MIGRATIONS: readonly string[] = [
  `CREATE TABLE run_journal_lines (
     seq BIGSERIAL PRIMARY KEY,
     run_id TEXT NOT NULL,
     line TEXT NOT NULL
   );
   CREATE INDEX run_journal_lines_by_run ON run_journal_lines (run_id, seq);`,
];

export interface PostgresRunJournalOptions {
  /**
   * Runs inside the transaction that commits the first `begin` of new runs (never for a resume):
   * the gateway enqueues each run as a job there, so the job exists exactly when its journal does.
   * A throw rolls the whole batch back (the commit point fails, its tool does not run).
   */
  readonly onBegin?: (tx: TransactionSQL, runs: readonly RunStart[]) => Promise<void>;
}

export interface PostgresRunJournal extends RunJournal {
  /** Commits what is queued; later batches are refused. */
  close(): Promise<void>;
}

interface Queued {
  readonly rows: Array<{ run_id: string; line: string }>;
  readonly begins: RunStart[];
  readonly done: ReturnType<typeof Promise.withResolvers<void>>;
}

/**
 * The run journal on PostgreSQL (`storage.url`), readable by every gateway on the database: the
 * one a replica taking over a dead replica's run replays. Batches are group-committed: while one
 * INSERT is in flight the next batches queue, and go together in the next one, in the order they
 * were made (a run's answer never lands before its call). A write outside a batch is a batch of its
 * own. `read` waits for what this process queued before it.
 */
export function openPostgresRunJournal(sql: Postgres, options: PostgresRunJournalOptions = {}): PostgresRunJournal {
  let open: Queued | undefined;
  let queue: Queued[] = [];
  let committing: Promise<void> | undefined;
  let closed = false;

  const newBatch = (): Queued => ({ rows: [], begins: [], done: Promise.withResolvers<void>() });
  const enqueue = (batch: Queued) => {
    if (closed) throw new Error("the run journal is closed (the gateway is stopping)");
    if (batch.rows.length === 0) return Promise.resolve();
    queue.push(batch);
    committing ??= drain();
    return batch.done.promise;
  };
  const write = (runId: string, line: JournalLine, start?: RunStart) => {
    const batch = open ?? newBatch();
    batch.rows.push({ run_id: runId, line: journalLine(line) });
    if (start) batch.begins.push(start);
    // Outside a batch: committed on its own; a failure shows in the next `read` or commit point.
    if (!open) enqueue(batch).catch(() => {});
  };

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      const rows = group.flatMap((b) => b.rows);
      const begins = group.flatMap((b) => b.begins);
      try {
        if (begins.length > 0 && options.onBegin) {
          const onBegin = options.onBegin;
          await sql.begin(async (tx) => {
            await tx`INSERT INTO run_journal_lines ${tx(rows, "run_id", "line")}`;
            await onBegin(tx, begins);
          });
        } else await sql`INSERT INTO run_journal_lines ${sql(rows, "run_id", "line")}`;
        for (const b of group) b.done.resolve();
      } catch (e) {
        for (const b of group) b.done.reject(e);
      }
    }
    committing = undefined;
  }

  return {
    batch: (work) => {
      if (open) return work();
      open = newBatch();
      const batch = open;
      try {
        work();
      } finally {
        open = undefined;
      }
      return enqueue(batch);
    },
    begin: (r) => write(r.runId, r.context ? ["begin", r.seed, r.context] : ["begin", r.seed], r),
    call: (c) => write(c.runId, ["call", c.position, c.callId, c.toolPath, c.inputHash]),
    answer: (runId, position, result, at) => write(runId, ["answer", position, result, at]),
    clock: (runId, from, runs) => write(runId, ["clock", from, runs]),
    resumed: (runId) => write(runId, ["resumed"]),
    read: async (runId) => {
      await committing?.catch(() => {});
      const rows: Array<{ line: string }> =
        await sql`SELECT line FROM run_journal_lines WHERE run_id = ${runId} ORDER BY seq`;
      return foldJournalLines(
        runId,
        rows.map((r) => r.line),
      );
    },
    close: async () => {
      closed = true;
      await committing;
    },
  };
}
