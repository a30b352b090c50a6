import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";

const pg = usePostgres();

function project(config: unknown): string {
  const dir = makeTempDir("oa-cli-db-");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(join(dir, "package.json"), "{}");
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify(config));
  return dir;
}

test("db status shows each store behind, db migrate applies them, then status is current (real subprocesses)", async () => {
  const url = await pg.freshDatabase();
  const cwd = project({ storage: { url: "${DATABASE_URL}" } });
  const env = { DATABASE_URL: url };
  const before = await cli(["db", "status"], { cwd, env });
  expect(before.stdout).toContain("receipts  database 0  openassistant 2  behind: run `openassistant db migrate`");
  expect(before.stdout).toContain("pgboss  database 0  openassistant 46  behind: run `openassistant db migrate`");
  expect(before.code).toBe(2);
  const migrated = await cli(["db", "migrate"], { cwd, env });
  expect(migrated.stderr).toBe("");
  expect(migrated.code).toBe(0);
  expect(migrated.stdout).toContain("receipts: migrated 0 → 2");
  expect(migrated.stdout).toContain("sessions: migrated 0 → 1");
  expect(migrated.stdout).toContain("runs: migrated 0 → 1");
  // pg-boss's schema and the runs' queues, so that a gateway's role needs no DDL (docs/scaling.md).
  expect(migrated.stdout).toContain("pgboss: migrated 0 → 46");
  const after = await cli(["db", "status"], { cwd, env });
  expect(after.stdout.trim().split("\n")).toEqual([
    "receipts  database 2  openassistant 2  current",
    "approvals  database 1  openassistant 1  current",
    "sessions  database 1  openassistant 1  current",
    "console  database 1  openassistant 1  current",
    "schedules  database 1  openassistant 1  current",
    "runs  database 1  openassistant 1  current",
    "discord  database 2  openassistant 2  current",
    "abilities  database 1  openassistant 1  current",
    "pgboss  database 46  openassistant 46  current",
  ]);
  expect(after.code).toBe(0);
  (await pg.server()).psql("UPDATE schema_versions SET version = 3 WHERE store = 'approvals'", url.split("/").pop());
  const ahead = await cli(["db", "migrate"], { cwd, env });
  expect(ahead.code).toBe(1);
  expect(ahead.stderr).toContain("approvals schema is at version 3, but this openassistant knows versions up to 1");
}, 30_000);

test("db without storage.url says the stores are in SQLite; an unreachable server is named without its password", async () => {
  const sqlite = await cli(["db", "status"], { cwd: project({}) });
  expect(sqlite.code).toBe(1);
  expect(sqlite.stderr).toContain("storage.url is not set: the stores are in the SQLite file");
  const port = (await pg.server()).port;
  const cwd = project({ storage: { url: `postgres://gw:hunter2-pw@127.0.0.1:${port}/missing_db` } });
  const unreachable = await cli(["db", "status"], { cwd });
  expect(unreachable.code).toBe(1);
  expect(unreachable.stderr).toContain(`cannot reach the PostgreSQL database at 127.0.0.1:${port}/missing_db`);
  expect(unreachable.stderr).not.toContain("hunter2-pw");
}, 30_000);
