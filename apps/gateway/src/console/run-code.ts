/**
 * The code the model wrote for each run, kept for the console's run page (from the gateway's
 * redacted `run.started` event). A table of its own: receipts stay append-only and unchanged.
 * On SQLite (`sqlite/run-code.ts`) and PostgreSQL (`postgres/run-code.ts`).
 */
export interface RunCodeStore {
  /** Keeps a run's code (the first one recorded for a run stays). */
  record(runId: string, turnId: string, code: string): void;
  /** A run's code; on a shared database also a run another gateway recorded. */
  codeOf(runId: string): Promise<string | undefined>;
}
