import { expect, test } from "bun:test";
import { connectPostgres, schemaVersions } from "@openassistant/core/db";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import {
  describeSurfaceStoreContract,
  type SurfaceStoreBackend,
} from "../../../../test/contracts/discord-surface-store.ts";
import { createPgSurfaceStore } from "./surface-store.ts";

const pg = usePostgres();

describeSurfaceStoreContract("postgres", async () => {
  const url = await pg.freshDatabase();
  const open = (): SurfaceStoreBackend => {
    const sql = connectPostgres(url, { max: 2 });
    return {
      store: createPgSurfaceStore(sql),
      close: () => sql.close(),
      reopen: async () => {
        await sql.close();
        return open();
      },
    };
  };
  return open();
});

test("the tables are a versioned migration; a schema newer than the code fails every call with the reason", async () => {
  const url = await pg.freshDatabase();
  const sql = connectPostgres(url, { max: 2 });
  try {
    await createPgSurfaceStore(sql).sessionKey("dm:u1");
    expect((await schemaVersions(sql)).get("discord")).toBe(2);
    await sql`UPDATE schema_versions SET version = 5 WHERE store = 'discord'`;
    const newer = createPgSurfaceStore(sql);
    await expect(newer.sessionKey("dm:u1")).rejects.toThrow(/discord schema is at version 5/);
    await expect(newer.cards("c1")).rejects.toThrow(/discord schema is at version 5/);
  } finally {
    await sql.close();
  }
});

test("two gateways claiming the same messages at once: each message is won by exactly one", async () => {
  const url = await pg.freshDatabase();
  const a = connectPostgres(url, { max: 4 });
  const b = connectPostgres(url, { max: 4 });
  try {
    const [left, right] = [createPgSurfaceStore(a), createPgSurfaceStore(b)];
    await Promise.all([left.sessionKey("dm:warm"), right.sessionKey("dm:warm")]);
    const ids = Array.from({ length: 20 }, (_, i) => `msg-${i}`);
    const results = await Promise.all(ids.map((id) => Promise.all([left.claimMessage(id), right.claimMessage(id)])));
    for (const [x, y] of results) expect(x !== y).toBe(true);
  } finally {
    await a.close();
    await b.close();
  }
});
