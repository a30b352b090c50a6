import { expect, test } from "bun:test";
import { join } from "node:path";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openPostgresStores } from "./open-stores.ts";

const pg = usePostgres();

test("every store opens on one database, migrated to a recorded version; the reader joins the conversations", async () => {
  const url = await pg.freshDatabase();
  const keyDir = join(makeTempDir("oa-pg-stores-"), "config");
  const stores = await openPostgresStores(url, { keyDir });
  try {
    expect([...stores.versions].sort()).toEqual([
      ["approvals", 1],
      ["console", 1],
      ["receipts", 2],
      ["runs", 1],
      ["schedules", 1],
      ["sessions", 1],
    ]);
    const session = await stores.sessions.getOrCreate("discord:dm:42", "discord");
    await stores.sessions.startTurn({ id: "turn_1", sessionId: session.id, userId: "42", request: "add milk" });
    stores.receipts.stage({
      runId: "run_1",
      callId: "call_1",
      toolPath: "notes.write",
      phase: "succeeded",
      approval: "auto",
      policy: "auto",
      sessionId: session.id,
    });
    await stores.sessions.finishTurn("turn_1", { stopReason: "end_turn", unverified: false, runIds: ["run_1"] });
    const [run] = await stores.receipts.runs();
    expect(run).toMatchObject({ runId: "run_1", conversation: "discord:dm:42", status: "succeeded" });
    expect(run!.turn).toMatchObject({ turnId: "turn_1", userId: "42", request: "add milk", unverified: false });
    expect(await stores.receipts.conversations()).toEqual([
      { id: session.id, key: "discord:dm:42", surface: "discord" },
    ]);
  } finally {
    await stores.close();
  }
  // A second start finds everything migrated and the same data.
  const again = await openPostgresStores(url, { keyDir });
  try {
    expect((await again.receipts.byRun("run_1")).map((r) => r.phase)).toEqual(["succeeded"]);
    expect(await again.receipts.verify()).toMatchObject({ ok: true, keyed: 1 });
  } finally {
    await again.close();
  }
});

test("a server that cannot be reached is named by host, port and database, never the password", async () => {
  const server = await pg.server();
  const url = `postgres://gateway:s3cr3t-pw@127.0.0.1:${server.port}/no_such_db`;
  const error = await openPostgresStores(url).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error?.message).toContain(
    `cannot reach the PostgreSQL database at 127.0.0.1:${server.port}/no_such_db (storage.url)`,
  );
  expect(error?.message).not.toContain("s3cr3t-pw");
});

test("a database whose sessions schema is newer than this code is refused before anything opens", async () => {
  const url = await pg.freshDatabase();
  await (await openPostgresStores(url)).close();
  (await pg.server()).psql("UPDATE schema_versions SET version = 2 WHERE store = 'sessions'", url.split("/").pop());
  await expect(openPostgresStores(url)).rejects.toThrow(
    /sessions schema is at version 2, but this openassistant knows versions up to 1: .*Upgrade openassistant/,
  );
});
