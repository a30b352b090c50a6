import { join } from "node:path";
import { openFileRunJournal, type RunJournal } from "@openassistant/core/receipts";

/**
 * Where the gateway's run journal lives: one append-only file per run under the data dir, beside
 * the receipts (docs/durable-runs.md). The file backend, not the SQLite one: a batch is one `write`
 * (~5 µs against a SQLite commit's 50–85 µs, BENCHMARKS.md "Run journal"), and it needs nothing from
 * the storage backend, so SQLite and Postgres receipts share it.
 */
export function runJournalDir(dataDir: string): string {
  return join(dataDir, "runs");
}

export function openGatewayRunJournal(dataDir: string): RunJournal {
  return openFileRunJournal(runJournalDir(dataDir));
}
