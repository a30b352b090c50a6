import { checkPostgres, connectPostgres, describeUrl, type Postgres } from "@openassistant/core/db";
import { schemaStatus } from "../../postgres/migrations.ts";
import type { StorageCheck } from "../backend.ts";

/** The triggers that keep receipts append-only (receipts/postgres/schema.ts), by table. */
const APPEND_ONLY_TRIGGERS = [
  "receipts_append_only",
  "receipts_no_truncate",
  "receipt_meta_append_only",
  "receipt_meta_no_truncate",
] as const;

/**
 * What `doctor` checks of `storage.url`: the connection, each store's schema version against this
 * code, and the append-only triggers on the receipts. A message shows the server as
 * `host:port/database` and never the URL's user or password.
 */
export async function postgresHealth(url: string): Promise<StorageCheck[]> {
  const where = describeUrl(url);
  const sql = connectPostgres(url, { max: 1 });
  try {
    try {
      await checkPostgres(sql, url);
    } catch (e) {
      return [{ name: "database", level: "fail", detail: `${withoutCredentials(errorText(e), url)}.` }];
    }
    const checks: StorageCheck[] = [
      { name: "database", level: "ok", detail: `PostgreSQL ${where} answers (storage.url)` },
    ];
    checks.push(await schemaCheck(sql, where));
    checks.push(await triggerCheck(sql, where));
    checks.push(await roleCheck(sql));
    return checks;
  } catch (e) {
    return [
      {
        name: "database",
        level: "fail",
        detail: `PostgreSQL ${where} (storage.url): ${withoutCredentials(errorText(e), url)}`,
      },
    ];
  } finally {
    await sql.close();
  }
}

async function schemaCheck(sql: Postgres, where: string): Promise<StorageCheck> {
  let status: Awaited<ReturnType<typeof schemaStatus>>;
  try {
    status = await schemaStatus(sql);
  } catch (e) {
    // e.g. a role without USAGE on pg-boss's schema: its message says what to grant.
    return { name: "schema", level: "fail", detail: `${where}: ${errorText(e)}` };
  }
  const ahead = status.filter((s) => s.state === "ahead");
  if (ahead.length)
    return {
      name: "schema",
      level: "fail",
      detail: `${ahead.map((s) => `${s.store} is at version ${s.database}, this openassistant knows up to ${s.known}`).join("; ")}: a newer openassistant migrated ${where}. Upgrade openassistant here to the version the other gateways run (or point storage.url at another database).`,
    };
  const behind = status.filter((s) => s.state === "behind");
  if (behind.length)
    return {
      name: "schema",
      level: "warn",
      detail: `${behind.map((s) => `${s.store} at version ${s.database} of ${s.known}`).join("; ")}: run \`openassistant db migrate\` (a gateway start migrates too)`,
    };
  return { name: "schema", level: "ok", detail: status.map((s) => `${s.store} ${s.database}`).join(", ") };
}

async function triggerCheck(sql: Postgres, where: string): Promise<StorageCheck> {
  const rows: Array<{ name: string; enabled: string }> = await sql`
    SELECT t.tgname AS name, t.tgenabled AS enabled FROM pg_trigger t
    WHERE t.tgrelid IN (to_regclass('receipts'), to_regclass('receipt_meta')) AND NOT t.tgisinternal`;
  if ((await sql`SELECT to_regclass('receipts') IS NOT NULL AS present`)[0]?.present !== true)
    return { name: "append-only", level: "ok", detail: "no receipts table yet (created by the first gateway start)" };
  const enabled = new Set(rows.filter((r) => r.enabled !== "D").map((r) => r.name));
  const missing = APPEND_ONLY_TRIGGERS.filter((t) => !enabled.has(t));
  return missing.length
    ? {
        name: "append-only",
        level: "fail",
        detail: `the trigger(s) ${missing.join(", ")} on ${where} are missing or disabled: receipts can be changed. Re-enable them as the tables' owner (ALTER TABLE receipts ENABLE TRIGGER ALL; ALTER TABLE receipt_meta ENABLE TRIGGER ALL) and run \`openassistant receipts verify\`; connect the gateway as a role that does not own the tables (docs/scaling.md).`,
      }
    : {
        name: "append-only",
        level: "ok",
        detail: "receipts and receipt_meta refuse UPDATE, DELETE and TRUNCATE (triggers)",
      };
}

/**
 * The triggers hold against every role, but a table's owner (or a superuser) can disable them:
 * the gateway should connect as a role that can only SELECT and INSERT receipts (docs/scaling.md).
 */
async function roleCheck(sql: Postgres): Promise<StorageCheck> {
  const [me]: Array<{ role: string; superuser: boolean; owner: string | null }> = await sql`
    SELECT current_user AS role, r.rolsuper AS superuser,
      (SELECT tableowner FROM pg_tables WHERE tablename = 'receipts' AND schemaname = current_schema()) AS owner
    FROM pg_roles r WHERE r.rolname = current_user`;
  if (!me) return { name: "grants", level: "warn", detail: "cannot read this connection's role" };
  const why = me.superuser ? "is a superuser" : me.owner === me.role ? "owns the receipts table" : undefined;
  return why
    ? {
        name: "grants",
        level: "warn",
        detail: `the role ${me.role} ${why}: it can disable the append-only triggers. Run the gateways as a role that does not own the tables (GRANT SELECT, INSERT ON receipts, receipt_meta TO gateway; docs/scaling.md "Receipts keep their promises")`,
      }
    : { name: "grants", level: "ok", detail: `the role ${me.role} neither owns the receipts table nor is a superuser` };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** `text` without the URL, its password or its user (an error from the driver could echo them). */
function withoutCredentials(text: string, url: string): string {
  let out = text.replaceAll(url, describeUrl(url));
  try {
    const u = new URL(url);
    for (const part of [u.password, decodeURIComponent(u.password)]) if (part) out = out.replaceAll(part, "***");
  } catch {
    // an unparsable URL was refused by the config schema already
  }
  return out;
}
