import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, type FakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";
import { openPostgresStores } from "../postgres/open-stores.ts";

const pg = usePostgres();
// The endpoint check contacts the endpoint in effect: the fake Anthropic here, never the real one.
let api: FakeAnthropic;
beforeAll(async () => {
  api = await startFakeAnthropic();
});
afterAll(() => api.close());

function project(): string {
  const dir = makeTempDir("oa-doctor-pg-");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(join(dir, "package.json"), "{}");
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify({ storage: { url: "${DATABASE_URL}" } }));
  return dir;
}

const doctor = (cwd: string, url: string) =>
  cli(["doctor"], { cwd, env: { DATABASE_URL: url, OPENASSISTANT_ANTHROPIC_BASE_URL: api.url } });

test("doctor with storage.url checks the connection, the schema, the append-only triggers and the receipts", async () => {
  const url = await pg.freshDatabase();
  const cwd = project();
  // Before any gateway started: nothing to verify, and the reader creates no table.
  const empty = await cli(["receipts", "verify"], { cwd, env: { DATABASE_URL: url } });
  expect(empty.code).toBe(1);
  expect(empty.stderr).toContain("yet: start the gateway");
  expect((await doctor(cwd, url)).stdout).toContain("✓ receipts: no database yet");
  // A gateway's stores opened once (key in the config dir the CLI uses), with one receipt.
  const stores = await openPostgresStores(url, { keyDir: join(cwd, "config") });
  stores.receipts.stage({
    runId: "run_1",
    callId: "call_1",
    toolPath: "notes.add",
    phase: "requested",
    approval: "auto",
    policy: "auto",
  });
  await stores.close();
  const where = `${new URL(url).hostname}:${new URL(url).port}${new URL(url).pathname}`;

  const ok = await doctor(cwd, url);
  expect(ok.stdout).toContain(`✓ database: PostgreSQL ${where} answers (storage.url)`);
  // The Discord surface's tables come with its first start (or `db migrate`).
  expect(ok.stdout).toContain(
    "⚠ schema: discord at version 0 of 2; abilities at version 0 of 1; pgboss at version 0 of 46: run `openassistant db migrate`",
  );
  const migrated = await cli(["db", "migrate"], { cwd, env: { DATABASE_URL: url } });
  expect(migrated.code).toBe(0);
  const current = await doctor(cwd, url);
  expect(current.stdout).toContain(
    "✓ schema: receipts 2, approvals 1, sessions 1, console 1, schedules 1, runs 1, discord 2, abilities 1, pgboss 46",
  );
  expect(ok.stdout).toContain("✓ append-only: receipts and receipt_meta refuse UPDATE, DELETE and TRUNCATE");
  expect(ok.stdout).toContain("✓ receipts: 1 receipt(s) verify");
  expect(ok.stdout).not.toContain("openassistant.sqlite");
  // The test kit connects as the superuser, which could disable the triggers.
  expect(ok.stdout).toContain("⚠ grants: the role postgres is a superuser: it can disable the append-only triggers");

  const server = await pg.server();
  const db = new URL(url).pathname.slice(1);
  // A role that may only read and append (docs/scaling.md): no grants warning, the receipts verify.
  server.psql(`CREATE ROLE doctor_gw LOGIN; GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO doctor_gw;`, db);
  const limitedUrl = url.replace("postgres://postgres@", "postgres://doctor_gw@");
  const limited = await doctor(cwd, limitedUrl);
  expect(limited.stdout).toContain("✓ grants: the role doctor_gw neither owns the receipts table nor is a superuser");
  expect(limited.stdout).toContain("✓ receipts: 1 receipt(s) verify");
  // Without the grants on pg-boss's schema its gateway could not start the run jobs: doctor says what to do.
  expect(limited.stdout).toContain(`✗ schema: ${where}: this role may not read pg-boss's schema "pgboss"`);
  expect(limited.stdout).toContain("run `openassistant db migrate` once as the database's owner");
  server.psql("ALTER TABLE receipts DISABLE TRIGGER receipts_append_only", db);
  server.psql("UPDATE schema_versions SET version = 9 WHERE store = 'sessions'", db);
  const bad = await doctor(cwd, url);
  expect(bad.code).toBe(1);
  expect(bad.stdout).toContain("✗ append-only: the trigger(s) receipts_append_only on");
  expect(bad.stdout).toContain(
    "✗ schema: sessions is at version 9, this openassistant knows up to 1: a newer openassistant migrated",
  );
  expect(bad.stdout).toContain("Upgrade openassistant here");
}, 30_000);

test("doctor with a dead storage.url fails naming the key and the server, never the password", async () => {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port;
  s.stop(true);
  const url = `postgres://gateway:Sup3rSecretPw@127.0.0.1:${port}/oa`;
  const r = await doctor(project(), url);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain(`✗ database: cannot reach the PostgreSQL database at 127.0.0.1:${port}/oa (storage.url)`);
  expect(r.stdout + r.stderr).not.toContain("Sup3rSecretPw");
  expect(r.stdout).not.toContain("✓ receipts");
}, 30_000);
