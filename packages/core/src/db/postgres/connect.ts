import { SQL } from "bun";

/** The handle Postgres stores are opened on (Bun's built-in client, a pool); only store folders use it. */
export type Postgres = SQL;

/**
 * Connects to `url` (`postgres://user:password@host:port/database`). Bun's built-in client was
 * measured against `pg` (bench/postgres-driver.bench.ts, docs/scaling.md): 1.1–1.2x the inserts/s
 * and no dependency. The pool connects lazily; `checkPostgres` makes the first round trip.
 */
export function connectPostgres(url: string, options: { readonly max?: number } = {}): Postgres {
  return new SQL(url, { max: options.max ?? 10, idleTimeout: 30, connectionTimeout: 10 });
}

/** One round trip, with an error naming the server (never the password) and what to check. */
export async function checkPostgres(sql: Postgres, url: string): Promise<void> {
  try {
    await sql`SELECT 1`;
  } catch (e) {
    throw new Error(
      `cannot reach the PostgreSQL database at ${describeUrl(url)} (storage.url): ${(e as Error).message}. Check that the server runs, the address and the credentials`,
    );
  }
}

/** `host:port/database`: what a message may show of a connection URL (no user, no password). */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname}`;
  } catch {
    return "(an unparsable URL)";
  }
}
