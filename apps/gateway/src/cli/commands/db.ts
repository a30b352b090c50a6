import { defineCommand } from "citty";
import { checkPostgres, connectPostgres } from "@openassistant/core/db";
import { loadGatewaySettings } from "../../config-adapter.ts";
import { migrateAll, schemaStatus } from "../../postgres/migrations.ts";
import { CliError, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

const args = {
  action: {
    type: "positional",
    description:
      "status: each store's schema version in the database against this openassistant's; migrate: apply what is missing",
    required: true,
    valueHint: "status|migrate",
  },
  project: PROJECT_ARG,
} as const;

/** `openassistant db status|migrate`: the PostgreSQL schema of `storage.url` (docs/scaling.md). */
export const dbCommand = defineCommand({
  meta: {
    name: "db",
    description:
      "The PostgreSQL database of storage.url: `db status` shows each store's schema version, `db migrate` applies the missing ones",
  },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      if (a.action !== "status" && a.action !== "migrate")
        throw new CliError(`Unknown action "${a.action}": use "openassistant db status" or "openassistant db migrate"`);
      const { config, settings } = await loadGatewaySettings(resolveProject(a.project), process.env, {
        tools: false,
        unsetVars: "error",
      });
      const url = config.config.storage.url;
      if (!url)
        throw new CliError(
          `storage.url is not set: the stores are in the SQLite file ${settings.databasePath}, which needs no migration. Set storage.url (e.g. "\${DATABASE_URL}") to use PostgreSQL.`,
        );
      const sql = connectPostgres(url, { max: 1 });
      try {
        await checkPostgres(sql, url);
        if (a.action === "migrate")
          for (const r of await migrateAll(sql))
            console.log(
              r.from === r.to ? `${r.store}: at version ${r.to}` : `${r.store}: migrated ${r.from} → ${r.to}`,
            );
        const status = await schemaStatus(sql);
        for (const s of status)
          console.log(`${s.store}  database ${s.database}  openassistant ${s.known}  ${stateText(s.state)}`);
        if (status.some((s) => s.state === "ahead"))
          throw new CliError(
            "A newer openassistant migrated this database: upgrade openassistant here to the version the other gateways run.",
          );
        if (status.some((s) => s.state === "behind") && a.action === "status") process.exitCode = 2;
      } finally {
        await sql.close();
      }
    }),
});

function stateText(state: "current" | "behind" | "ahead"): string {
  return state === "current"
    ? "current"
    : state === "behind"
      ? "behind: run `openassistant db migrate` (or start a gateway)"
      : "ahead: this openassistant is older than the one that migrated it";
}
