import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { connectPostgres, type Postgres } from "../../db/postgres/connect.ts";
import type { ReceiptDraft } from "../types.ts";
import { CHAIN_LOCK } from "./chain.ts";
import { openPostgresReceipts } from "./ports.ts";

const pg = usePostgres();

const draft = (over: Partial<ReceiptDraft> = {}): ReceiptDraft => ({
  runId: "run_1",
  callId: "call_1",
  toolPath: "notes.write",
  phase: "requested",
  approval: "auto",
  policy: "auto",
  ...over,
});

async function opened(url?: string, keyDir = join(makeTempDir("oa-pg-key-"), "config")) {
  const dbUrl = url ?? (await pg.freshDatabase());
  const sql = connectPostgres(dbUrl, { max: 2 });
  const ports = await openPostgresReceipts(sql, { keyDir });
  const name = dbUrl.split("/").pop()!;
  return {
    sql,
    ports,
    url: dbUrl,
    keyDir,
    name,
    close: async () => {
      await ports.close();
      await sql.close();
    },
  };
}

const count = async (sql: Postgres) => Number((await sql`SELECT count(*)::int AS n FROM receipts`)[0].n);

describe("postgres receipts keep their promises", () => {
  test("the database refuses UPDATE, DELETE, TRUNCATE and upserts of receipts, for the gateway's connection", async () => {
    const db = await opened();
    try {
      await db.ports.append(draft());
      await expect(db.sql`UPDATE receipts SET error = 'x'`).rejects.toThrow(
        /receipts is append-only: UPDATE is not allowed/,
      );
      await expect(db.sql`DELETE FROM receipts`).rejects.toThrow(/receipts is append-only: DELETE is not allowed/);
      await expect(db.sql`TRUNCATE receipts`).rejects.toThrow(/receipts is append-only: TRUNCATE is not allowed/);
      await expect(
        db.sql`INSERT INTO receipts (seq, run_id, call_id, tool_path, phase, approval, policy, at, hash)
          VALUES (1, 'r', 'c', 't', 'failed', 'auto', 'auto', 0, 'h') ON CONFLICT (seq) DO UPDATE SET phase = 'failed'`,
      ).rejects.toThrow(/append-only: UPDATE/);
      await expect(db.sql`UPDATE receipt_meta SET value = 'k_other' WHERE name = 'key_id'`).rejects.toThrow(
        /receipt_meta is append-only/,
      );
      expect((await db.ports.byRun("run_1")).map((r) => r.phase)).toEqual(["requested"]);
      expect(await db.ports.verify()).toMatchObject({ ok: true, keyed: 1 });
    } finally {
      await db.close();
    }
  });

  test("a gateway role that does not own the tables appends and reads, and can neither edit receipts nor drop the trigger", async () => {
    const owner = await opened();
    await owner.ports.append(draft());
    await owner.close();
    const server = await pg.server();
    server.psql(
      `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gateway') THEN CREATE ROLE gateway LOGIN; END IF; END $$;
       GRANT SELECT, INSERT ON receipts, receipt_meta TO gateway; GRANT SELECT ON schema_versions TO gateway;`,
      owner.name,
    );
    const asGateway = await opened(owner.url.replace("postgres://postgres@", "postgres://gateway@"), owner.keyDir);
    try {
      asGateway.ports.stage(draft({ phase: "started" }));
      await asGateway.ports.durable();
      expect(await asGateway.ports.verify()).toMatchObject({ ok: true, keyed: 2 });
      await expect(asGateway.sql`UPDATE receipts SET error = 'x'`).rejects.toThrow(
        /permission denied for table receipts/,
      );
      await expect(asGateway.sql`ALTER TABLE receipts DISABLE TRIGGER receipts_append_only`).rejects.toThrow(
        /must be owner of table receipts/,
      );
    } finally {
      await asGateway.close();
    }
  });

  test("an edit made around the trigger (a superuser drops it) is named by verify and verifyRun", async () => {
    const db = await opened();
    try {
      db.ports.stage(draft());
      db.ports.stage(draft({ phase: "started" }));
      db.ports.stage(draft({ phase: "succeeded", outputPreview: '{"ok":true}' }));
      await db.ports.durable();
      const server = await pg.server();
      server.psql(
        "ALTER TABLE receipts DISABLE TRIGGER receipts_append_only; UPDATE receipts SET output_preview = '{\"ok\":false}' WHERE seq = 3",
        db.name,
      );
      expect(await db.ports.verify()).toEqual({
        ok: false,
        brokenAt: "r_000003",
        reason: "r_000003: its content does not match its keyed MAC (the row was edited or forged)",
      });
      expect(await db.ports.verifyRun("run_1")).toMatchObject({ ok: false, brokenAt: "r_000003" });
      server.psql("DELETE FROM receipts WHERE seq = 1", db.name);
      expect(await db.ports.verify()).toMatchObject({ ok: false, brokenAt: "r_000002" });
    } finally {
      await db.close();
    }
  });

  test("the newest receipts deleted around the trigger are named against the head kept beside the key, also after a restart", async () => {
    const db = await opened();
    db.ports.stage(draft());
    db.ports.stage(draft({ phase: "started" }));
    db.ports.stage(draft({ phase: "succeeded" }));
    await db.ports.durable();
    expect(await db.ports.verify()).toEqual({ ok: true, legacy: 0, keyed: 3, head: "checked" });
    await db.close();
    (await pg.server()).psql(
      "ALTER TABLE receipts DISABLE TRIGGER receipts_append_only; DELETE FROM receipts WHERE seq = 3",
      db.name,
    );
    const again = await opened(db.url, db.keyDir);
    try {
      const result = await again.ports.verify();
      expect(result).toMatchObject({ ok: false, brokenAt: "r_000003" });
      expect(result.ok === false && result.reason).toContain("the chain ends at r_000002, but the head (");
      expect(result.ok === false && result.reason).toContain("receipts at the end were removed");
      expect(await again.ports.verifyRun("run_1")).toMatchObject({ ok: false, brokenAt: "r_000003" });
    } finally {
      await again.close();
    }
  });

  test("durable() resolves only after COMMIT: a commit the database refuses rejects it, and the receipts wait for the next one", async () => {
    const db = await opened();
    const server = await pg.server();
    const observer = connectPostgres(db.url, { max: 1 });
    try {
      server.psql(
        `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$;
         CREATE TRIGGER refuse BEFORE INSERT ON receipts FOR EACH ROW EXECUTE FUNCTION refuse();`,
        db.name,
      );
      db.ports.stage(draft());
      db.ports.stage(draft({ phase: "started" }));
      await expect(db.ports.durable()).rejects.toThrow(/disk on fire/);
      expect(await count(observer)).toBe(0);
      server.psql("DROP TRIGGER refuse ON receipts", db.name);
      db.ports.stage(draft({ phase: "succeeded" }));
      await db.ports.durable();
      // Seen committed from another connection the moment durable() resolved.
      expect(await count(observer)).toBe(3);
      expect((await db.ports.byRun("run_1")).map((r) => r.phase)).toEqual(["requested", "started", "succeeded"]);
      expect(await db.ports.verify()).toMatchObject({ ok: true, keyed: 3 });
    } finally {
      await observer.close();
      await db.close();
    }
  });

  test("a refused commit gives its connection back clean: on a pool of one, the next commit goes through", async () => {
    const url = await pg.freshDatabase();
    const sql = connectPostgres(url, { max: 1 });
    const ports = await openPostgresReceipts(sql, { keyDir: join(makeTempDir("oa-pg-key-"), "config") });
    const server = await pg.server();
    const name = url.split("/").pop()!;
    try {
      server.psql(
        `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$;
         CREATE TRIGGER refuse BEFORE INSERT ON receipts FOR EACH ROW EXECUTE FUNCTION refuse();`,
        name,
      );
      ports.stage(draft());
      await expect(ports.durable()).rejects.toThrow(/disk on fire/);
      server.psql("DROP TRIGGER refuse ON receipts", name);
      ports.stage(draft({ phase: "started" }));
      await ports.durable();
      expect(await count(sql)).toBe(2);
      expect(await ports.verify()).toMatchObject({ ok: true, keyed: 2 });
    } finally {
      await ports.close();
      await sql.close();
    }
  });

  test("a read waits for what was staged before it, not for receipts staged after it", async () => {
    const db = await opened();
    const server = await pg.server();
    const blocker = connectPostgres(db.url, { max: 1 });
    const observer = connectPostgres(db.url, { max: 1 });
    try {
      // Receipts of run_2 are refused: a read of run_1 that waited for them too would fail.
      server.psql(
        `CREATE FUNCTION refuse_run_2() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN IF NEW.run_id = 'run_2' THEN RAISE EXCEPTION 'run_2 refused'; END IF; RETURN NEW; END $$;
         CREATE TRIGGER refuse_run_2 BEFORE INSERT ON receipts FOR EACH ROW EXECUTE FUNCTION refuse_run_2();`,
        db.name,
      );
      const locked = await blocker.reserve();
      await locked`SELECT pg_advisory_lock(${CHAIN_LOCK})`;
      db.ports.stage(draft());
      // run_1's commit waits for the chain lock, in flight.
      const waiting = async () =>
        Number(
          (await observer`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)[0].n,
        );
      while ((await waiting()) === 0) await Bun.sleep(10);
      const read = db.ports.byRun("run_1");
      db.ports.stage(draft({ runId: "run_2", callId: "call_2" }));
      await locked`SELECT pg_advisory_unlock(${CHAIN_LOCK})`;
      locked.release();
      expect((await read).map((r) => r.runId)).toEqual(["run_1"]);
      await expect(db.ports.durable()).rejects.toThrow(/run_2 refused/);
      server.psql("DROP TRIGGER refuse_run_2 ON receipts", db.name);
      await db.ports.durable();
      expect(await count(observer)).toBe(2);
    } finally {
      await blocker.close();
      await observer.close();
      await db.close();
    }
  });

  test("two gateways on one database write one chain that verifies", async () => {
    const a = await opened();
    const b = await opened(a.url, a.keyDir);
    try {
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 20; i++) {
        a.ports.stage(draft({ runId: `run_a${i}`, callId: `a${i}` }));
        b.ports.stage(draft({ runId: `run_b${i}`, callId: `b${i}` }));
        writes.push(a.ports.durable(), b.ports.durable());
      }
      await Promise.all(writes);
      const all = await a.ports.query({ limit: 100 });
      expect(all.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await b.ports.verify()).toMatchObject({ ok: true, keyed: 40 });
    } finally {
      await b.close();
      await a.close();
    }
  });

  test("a gateway with another key is refused, naming the key to copy", async () => {
    const a = await opened();
    await a.ports.append(draft());
    await a.close();
    await expect(opened(a.url)).rejects.toThrow(
      /signed with key k_[0-9a-f]+, but .*receipts\.key holds key k_[0-9a-f]+: copy the key file/,
    );
  });

  test("U+0000, which PostgreSQL text cannot hold, is stored as U+2400 and the chain verifies", async () => {
    const db = await opened();
    try {
      const r = await db.ports.append(draft({ phase: "failed", error: "bad\u0000byte" }));
      expect(r.error).toBe("bad\u2400byte");
      expect((await db.ports.byRun("run_1"))[0]!.error).toBe("bad\u2400byte");
      expect(await db.ports.verify()).toMatchObject({ ok: true, keyed: 1 });
    } finally {
      await db.close();
    }
  });

  test("a database whose receipts schema is newer than this code is refused with what to do", async () => {
    const db = await opened();
    await db.close();
    (await pg.server()).psql("UPDATE schema_versions SET version = 99 WHERE store = 'receipts'", db.name);
    await expect(opened(db.url)).rejects.toThrow(
      "the PostgreSQL database's receipts schema is at version 99, but this openassistant knows versions up to 2: a newer openassistant migrated it. Upgrade openassistant on this machine to the version the other gateways run (or point storage.url at another database)",
    );
  });
});
