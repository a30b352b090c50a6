import type { Database } from "bun:sqlite";
import type { ClockRun, HostCallResult } from "../../sandbox/types.ts";
import type { JournalEntry, JournalRun, RunJournal } from "../replay/port.ts";

/**
 * The run journal in the gateway's SQLite database: `run_journal` (one row per run) and
 * `run_journal_calls` (one per call). Each write is its own autocommitted statement: on disk when
 * it returns, before the receipts' commit point that precedes a tool's effect.
 */
export function openSqliteRunJournal(db: Database): RunJournal {
  db.exec(`
    CREATE TABLE IF NOT EXISTS run_journal (
      run_id TEXT PRIMARY KEY,
      seed TEXT NOT NULL,
      resumes INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS run_journal_clock (
      run_id TEXT NOT NULL,
      idx INTEGER NOT NULL,
      value REAL NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (run_id, idx)
    );
    CREATE TABLE IF NOT EXISTS run_journal_calls (
      run_id TEXT NOT NULL,
      position INTEGER NOT NULL,
      call_id TEXT NOT NULL,
      tool_path TEXT NOT NULL,
      input_hash TEXT NOT NULL,
      result TEXT,
      answered_at INTEGER,
      PRIMARY KEY (run_id, position)
    );
  `);
  const begin = db.prepare("INSERT OR IGNORE INTO run_journal (run_id, seed) VALUES (?, ?)");
  // `idx`: the index of the run's first read among all the snippet's reads.
  const clockRead = db.prepare(
    "INSERT OR IGNORE INTO run_journal_clock (run_id, idx, value, count) VALUES (?, ?, ?, ?)",
  );
  const clockReads = db.prepare("SELECT value, count FROM run_journal_clock WHERE run_id = ? ORDER BY idx");
  // A resumed run reports its replayed values again: they are at indexes already kept.
  const clock = (runId: string, from: number, runs: readonly ClockRun[]) => {
    let idx = from;
    for (const [value, count] of runs) {
      clockRead.run(runId, idx, value, count);
      idx += count;
    }
  };
  // A call re-executed on resume takes over its position's entry, which has no answer yet.
  const call = db.prepare(
    `INSERT INTO run_journal_calls (run_id, position, call_id, tool_path, input_hash) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (run_id, position) DO UPDATE SET call_id = excluded.call_id WHERE result IS NULL`,
  );
  // Only a call without an answer gets one: a recorded answer is never rewritten.
  const answer = db.prepare(
    "UPDATE run_journal_calls SET result = ?, answered_at = ? WHERE run_id = ? AND position = ? AND result IS NULL",
  );
  const resumed = db.prepare("UPDATE run_journal SET resumes = resumes + 1 WHERE run_id = ?");
  const run = db.prepare("SELECT seed, resumes FROM run_journal WHERE run_id = ?");
  const calls = db.prepare(
    "SELECT position, call_id, tool_path, input_hash, result, answered_at FROM run_journal_calls WHERE run_id = ? ORDER BY position",
  );
  const batch = db.transaction((work: () => void) => work());
  return {
    batch: (work) => batch(work),
    begin: (r) => void begin.run(r.runId, JSON.stringify(r.seed)),
    clock: (runId, from, values) => clock(runId, from, values),
    call: (c) => void call.run(c.runId, c.position, c.callId, c.toolPath, c.inputHash),
    answer: (runId, position, result, at) => void answer.run(JSON.stringify(result), at, runId, position),
    resumed: (runId) => void resumed.run(runId),
    read: async (runId) => {
      const row = run.get(runId) as { seed: string; resumes: number } | null;
      if (!row) return undefined;
      const rows = calls.all(runId) as CallRow[];
      return {
        runId,
        seed: JSON.parse(row.seed) as number[],
        clock: (clockReads.all(runId) as Array<{ value: number; count: number }>).map(
          (r) => [r.value, r.count] as const,
        ),
        resumes: row.resumes,
        calls: rows.map(entry(runId)),
      } satisfies JournalRun;
    },
  };
}

interface CallRow {
  position: number;
  call_id: string;
  tool_path: string;
  input_hash: string;
  result: string | null;
  answered_at: number | null;
}

const entry =
  (runId: string) =>
  (r: CallRow): JournalEntry => ({
    runId,
    position: r.position,
    callId: r.call_id,
    toolPath: r.tool_path,
    inputHash: r.input_hash,
    ...(r.result !== null ? { result: JSON.parse(r.result) as HostCallResult } : {}),
    ...(r.answered_at !== null ? { answeredAt: r.answered_at } : {}),
  });
