import type { Database } from "bun:sqlite";
import type { RunCodeStore } from "../run-code.ts";

/** The console's run code (run-code.ts) in the gateway's SQLite file. */
export function createRunCodeStore(db: Database): RunCodeStore {
  db.exec(`CREATE TABLE IF NOT EXISTS console_run_code (
    run_id TEXT PRIMARY KEY,
    turn_id TEXT,
    code TEXT NOT NULL,
    at INTEGER NOT NULL
  )`);
  const insert = db.prepare("INSERT OR IGNORE INTO console_run_code (run_id, turn_id, code, at) VALUES (?, ?, ?, ?)");
  const select = db.prepare("SELECT code FROM console_run_code WHERE run_id = ?");
  return {
    record(runId, turnId, code) {
      insert.run(runId, turnId, code, Date.now());
    },
    async codeOf(runId) {
      return (select.get(runId) as { code: string } | null)?.code;
    },
  };
}
