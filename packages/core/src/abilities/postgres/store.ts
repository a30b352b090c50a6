import type { Postgres } from "../../db/postgres/connect.ts";
import { migrate } from "../../db/postgres/migrate.ts";
import type { AbilityRun, AbilityRunStore } from "../run.ts";

/** The ability runs' table on PostgreSQL (the columns of sqlite/store.ts), as versioned migrations. */
export const ABILITY_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE ability_runs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    session_id TEXT,
    status TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX ability_runs_status ON ability_runs (status, started_at);
  CREATE INDEX ability_runs_session ON ability_runs (session_id, started_at);
  `,
];

/**
 * Ability runs on the gateways' shared PostgreSQL database. Opened synchronously (the gateway's
 * `openSurfaceStore`): the migration runs on the first call, and every call waits for it.
 */
export function createPgAbilityRunStore(sql: Postgres): AbilityRunStore {
  let migrated: Promise<unknown> | undefined;
  const ready = () => (migrated ??= migrate(sql, "abilities", ABILITY_MIGRATIONS));
  const parse = (rows: Array<{ record: string }>) => rows.map((r) => JSON.parse(r.record) as AbilityRun);
  return {
    async save(run) {
      await ready();
      await sql`INSERT INTO ability_runs (id, name, session_id, status, started_at, updated_at, record)
        VALUES (${run.id}, ${run.ability.name}, ${run.sessionId ?? null}, ${run.status}, ${run.startedAt}, ${run.updatedAt}, ${JSON.stringify(run)})
        ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at, record = excluded.record`;
    },
    async get(id) {
      await ready();
      return parse(await sql`SELECT record FROM ability_runs WHERE id = ${id}`)[0];
    },
    async list(filter = {}) {
      await ready();
      const limit = filter.limit ?? 100;
      const rows: Array<{ record: string }> = await sql`SELECT record FROM ability_runs
        WHERE (${filter.status ?? null}::text IS NULL OR status = ${filter.status ?? null})
          AND (${filter.sessionId ?? null}::text IS NULL OR session_id = ${filter.sessionId ?? null})
        ORDER BY started_at DESC, id DESC LIMIT ${limit}`;
      return parse(rows);
    },
  };
}
