import type { Postgres } from "./connect.ts";

/**
 * Versioned schema migrations, one list per store ("receipts", "approvals", "sessions"): migration
 * i (1-based) is `migrations[i - 1]`; the missing ones are applied in one transaction together
 * with the version they reach, so a crash leaves either the old or the new version. Gateways starting at once on one
 * database take turns on an advisory lock. A database already at a version newer than this code
 * knows is refused: an older gateway must not write into a schema it does not understand.
 */
export interface MigrationResult {
  readonly store: string;
  readonly from: number;
  readonly to: number;
}

/** The advisory lock all migrations take (an arbitrary constant: "oa-migrate"). */
const MIGRATION_LOCK = 0x6f616d67;

export async function migrate(sql: Postgres, store: string, migrations: readonly string[]): Promise<MigrationResult> {
  const known = migrations.length;
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    // Checked first: a gateway role that may not create tables (the owner migrated) starts all the same.
    const [present] = await tx`SELECT to_regclass('schema_versions') IS NOT NULL AS yes`;
    if (!present.yes)
      await tx`CREATE TABLE schema_versions (store TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`;
    const [row] = await tx`SELECT version FROM schema_versions WHERE store = ${store}`;
    const from = row ? Number(row.version) : 0;
    if (from > known)
      throw new Error(
        `the PostgreSQL database's ${store} schema is at version ${from}, but this openassistant knows versions up to ${known}: a newer openassistant migrated it. Upgrade openassistant on this machine to the version the other gateways run (or point storage.url at another database)`,
      );
    for (let v = from + 1; v <= known; v++) {
      await tx.unsafe(migrations[v - 1]!);
      await tx`INSERT INTO schema_versions (store, version) VALUES (${store}, ${v})
        ON CONFLICT (store) DO UPDATE SET version = EXCLUDED.version, applied_at = now()`;
    }
    return { store, from, to: Math.max(from, known) };
  });
}

/** The schema version of each store recorded in the database (empty before the first migration). */
export async function schemaVersions(sql: Postgres): Promise<Map<string, number>> {
  const [exists] = await sql`SELECT to_regclass('schema_versions') IS NOT NULL AS present`;
  if (!exists?.present) return new Map();
  const rows = await sql`SELECT store, version FROM schema_versions`;
  return new Map(rows.map((r: { store: string; version: number }) => [r.store, Number(r.version)]));
}
