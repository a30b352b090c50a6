/**
 * Bun's built-in SQL client against `pg`, on a throwaway PostgreSQL (testkit), for the receipt
 * log's write: one transaction per batch of receipt-shaped rows (the group commit). Same server,
 * same run, alternating drivers per round so load on the machine hits both alike.
 * Run: bun bench/postgres-driver.bench.ts
 */
import { SQL } from "bun";
import pg from "pg";
import { startPostgres } from "../packages/testkit/src/postgres.ts";
import { printTable } from "./lib.ts";

const TABLE = `CREATE TABLE r (seq BIGINT PRIMARY KEY, run_id TEXT NOT NULL, call_id TEXT NOT NULL, session_id TEXT,
  tool_path TEXT NOT NULL, phase TEXT NOT NULL, approval TEXT NOT NULL, policy TEXT NOT NULL, input_preview TEXT,
  output_preview TEXT, at BIGINT NOT NULL, prev_hash TEXT, hash TEXT NOT NULL)`;
const COLS = [
  "seq",
  "run_id",
  "call_id",
  "session_id",
  "tool_path",
  "phase",
  "approval",
  "policy",
  "input_preview",
  "output_preview",
  "at",
  "prev_hash",
  "hash",
] as const;

let seq = 0;
const row = () => {
  seq++;
  return {
    seq,
    run_id: `run_${seq >> 3}`,
    call_id: `call_${seq >> 1}`,
    session_id: "ses_1",
    tool_path: "calendar.create",
    phase: "succeeded",
    approval: "auto",
    policy: "auto",
    input_preview: '{"title":"standup","at":"2026-11-26T09:00:00Z"}',
    output_preview: '{"id":"evt_123","ok":true}',
    at: Date.now(),
    prev_hash: "a".repeat(64),
    hash: "b".repeat(64),
  };
};

async function bunSql(url: string, batch: number, total: number): Promise<number> {
  const sql = new SQL(url, { max: 1 });
  const t0 = performance.now();
  for (let i = 0; i < total; i += batch) {
    const rows = Array.from({ length: batch }, row);
    await sql.begin(async (tx) => {
      await tx`INSERT INTO r ${tx(rows, ...COLS)}`;
    });
  }
  const ms = performance.now() - t0;
  await sql.close();
  return (total / ms) * 1000;
}

async function nodePg(url: string, batch: number, total: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const t0 = performance.now();
  for (let i = 0; i < total; i += batch) {
    const rows = Array.from({ length: batch }, row);
    const values: unknown[] = [];
    const tuples = rows.map((r, j) => {
      for (const c of COLS) values.push((r as Record<string, unknown>)[c]);
      return `(${COLS.map((_, k) => `$${j * COLS.length + k + 1}`).join(",")})`;
    });
    await client.query("BEGIN");
    await client.query(`INSERT INTO r (${COLS.join(",")}) VALUES ${tuples.join(",")}`, values);
    await client.query("COMMIT");
  }
  const ms = performance.now() - t0;
  await client.end();
  return (total / ms) * 1000;
}

// Durable commits as in production (fsync on, synchronous_commit on).
const server = await startPostgres({ settings: { fsync: "on", full_page_writes: "on" } });
try {
  const url = await server.freshDatabase();
  server.psql(TABLE, url.split("/").pop());
  const rows: Array<Record<string, string | number>> = [];
  for (const batch of [1, 20]) {
    const total = batch === 1 ? 1000 : 10_000;
    const b: number[] = [];
    const p: number[] = [];
    for (let round = 0; round < 3; round++) {
      b.push(await bunSql(url, batch, total));
      p.push(await nodePg(url, batch, total));
    }
    const med = (xs: number[]) => xs.sort((x, y) => x - y)[1]!;
    rows.push({
      "rows per transaction": batch,
      "Bun.SQL rows/s": Math.round(med(b)),
      "pg rows/s": Math.round(med(p)),
      "Bun.SQL / pg": (med(b) / med(p)).toFixed(2),
    });
  }
  printTable("PostgreSQL drivers: receipt-shaped inserts, one transaction per batch (median of 3)", rows);
} finally {
  await server.stop();
}
