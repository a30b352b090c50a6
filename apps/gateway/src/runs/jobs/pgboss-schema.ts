import type { Postgres } from "@openassistant/core/db";

/** The PostgreSQL schema pg-boss keeps its tables in (the runs' jobs, `run-jobs.ts`). */
export const PGBOSS_SCHEMA = "pgboss";

/** What to do when the gateway's role may not install pg-boss's schema or create the runs' queues. */
export const INSTALL_AS_OWNER = `run \`openassistant db migrate\` once as the database's owner (it installs pg-boss's schema "${PGBOSS_SCHEMA}" and creates the runs' queues), then grant the gateway's role what docs/scaling.md lists ("Three replicas, end to end")`;

/** pg-boss's schema in the database (`database`: its version, 0 when not installed) and the version this pg-boss installs. */
export async function pgBossSchema(sql: Postgres): Promise<{ database: number; known: number }> {
  const known = (await import("pg-boss/package.json", { with: { type: "json" } })).default.pgboss.schema;
  // pg_namespace and pg_class are readable by every role, whatever its grants on the schema.
  const [present]: Array<{ installed: boolean }> = await sql`
    SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${PGBOSS_SCHEMA} AND c.relname = 'version') AS installed`;
  if (!present?.installed) return { database: 0, known };
  try {
    const [row]: Array<{ version: string }> = await sql.unsafe(`SELECT version FROM ${PGBOSS_SCHEMA}.version`);
    return { database: row ? Number(row.version) : 0, known };
  } catch (e) {
    if ((e as { errno?: string }).errno !== "42501") throw e;
    throw new Error(
      `this role may not read pg-boss's schema "${PGBOSS_SCHEMA}" (${(e as Error).message}): ${INSTALL_AS_OWNER}`,
    );
  }
}

/** The statements that bring pg-boss's schema from `version` to the one it knows, its index builds inline (no background worker needed). */
export async function pgBossMigrationPlans(version: number): Promise<string> {
  const { getMigrationPlans } = await import("pg-boss");
  return getMigrationPlans(PGBOSS_SCHEMA, version);
}
