import type { Database } from "bun:sqlite";

/**
 * The code the model wrote for each run, kept for the console's run page (from the gateway's
 * redacted `run.started` event). A separate table: receipts stay append-only and unchanged.
 */
export function createRunCodeStore(db: Database) {
  db.exec(`CREATE TABLE IF NOT EXISTS console_run_code (
    run_id TEXT PRIMARY KEY,
    turn_id TEXT,
    code TEXT NOT NULL,
    at INTEGER NOT NULL
  )`);
  const insert = db.prepare("INSERT OR IGNORE INTO console_run_code (run_id, turn_id, code, at) VALUES (?, ?, ?, ?)");
  const select = db.prepare("SELECT code FROM console_run_code WHERE run_id = ?");
  return {
    record(runId: string, turnId: string, code: string): void {
      insert.run(runId, turnId, code, Date.now());
    },
    codeOf(runId: string): string | undefined {
      return (select.get(runId) as { code: string } | null)?.code;
    },
  };
}
export type RunCodeStore = ReturnType<typeof createRunCodeStore>;
