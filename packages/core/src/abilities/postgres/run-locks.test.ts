import { expect, test } from "bun:test";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { connectPostgres } from "../../db/postgres/connect.ts";
import { openPgAbilityRunClaims } from "./run-locks.ts";

/** #32: which gateway drives an ability run (docs/abilities.md, "On several gateways"). */
const pg = usePostgres();

/** The connections holding ability run locks, and how many locks each holds. */
async function holders(url: string): Promise<number[]> {
  const sql = connectPostgres(url, { max: 1 });
  try {
    const rows: Array<{ n: number }> = await sql`SELECT count(*)::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND classid = ${0x6162} GROUP BY pid ORDER BY n DESC`;
    return rows.map((r) => r.n);
  } finally {
    await sql.end();
  }
}

test("one gateway holds a run at a time, on one connection for all its runs; released runs pass to another", async () => {
  const url = await pg.freshDatabase();
  const a = openPgAbilityRunClaims(url);
  const b = openPgAbilityRunClaims(url);
  try {
    const ids = Array.from({ length: 200 }, (_, i) => `ability_run_${i}`);
    for (const id of ids) expect(await a.take(id)).toBe(true);
    expect(await a.take(ids[0]!)).toBe(true); // held here already: not locked twice
    for (const id of ids.slice(0, 20)) expect(await b.take(id)).toBe(false);
    expect(await holders(url)).toEqual([200]); // 200 runs, one connection
    await a.release(ids[0]!);
    expect(await b.take(ids[0]!)).toBe(true);
    expect(await a.take(ids[0]!)).toBe(false);
    expect(await holders(url)).toEqual([199, 1]);
  } finally {
    await a.close();
    await b.close();
  }
  expect(await holders(url)).toEqual([]);
}, 30_000);

test("a holder's connection ended: its runs are free at once; it takes them again on a new connection, and is told those another took", async () => {
  const url = await pg.freshDatabase();
  let lostRuns!: (ids: string[]) => void;
  const lost = new Promise<string[]>((resolve) => (lostRuns = resolve));
  const a = openPgAbilityRunClaims(url, { onLost: (ids) => lostRuns(ids) });
  const b = openPgAbilityRunClaims(url);
  try {
    expect(await a.take("r1")).toBe(true);
    expect(await a.take("r2")).toBe(true);
    const sql = connectPostgres(url, { max: 1 });
    let gotOne: boolean;
    try {
      // A's backend ended from outside, and B tries before A's reconnection retakes: B gets what it tries.
      // With a timeout it returns once the backend is gone (its locks dropped), not when signalled (PostgreSQL 14+).
      await sql`SELECT pg_terminate_backend(pid, 10000) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = ${0x6162}`;
      gotOne = await b.take("r1");
    } finally {
      await sql.end();
    }
    if (gotOne) {
      // A learns it lost r1 (another gateway holds it now); r2 it took again on its new connection.
      expect(await lost).toEqual(["r1"]);
      expect(await b.take("r2")).toBe(false);
    } else {
      // A's reconnection took r1 again before B tried (so it lost nothing to B).
      expect(await b.take("r1")).toBe(false);
    }
  } finally {
    await a.close();
    await b.close();
  }
}, 30_000);
