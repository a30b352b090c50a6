import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createSessionStore } from "./store.ts";

const HOLD_WRITE = join(import.meta.dir, "..", "..", "..", "test", "hold-sqlite-write.child.ts");

describe("session store (SQLite file)", () => {
  test("an append while another connection holds the write lock waits for it, never fails on a stale read", async () => {
    const path = join(makeTempDir(), "oa.sqlite");
    const db = openDatabase(path);
    try {
      const store = createSessionStore(db);
      const s = await store.getOrCreate("busy", "terminal");
      const say = (text: string) => [{ role: "user" as const, content: [{ type: "text" as const, text }] }];
      await store.appendMessages(s.id, null, say("first"));
      const writer = Bun.spawn(["bun", HOLD_WRITE, path, "300"], { stdout: "pipe", stderr: "inherit" });
      const reader = writer.stdout.getReader();
      let out = "";
      while (!out.includes("locked")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the writer ended before it took the lock: ${out}`);
        out += new TextDecoder().decode(value);
      }
      // The writer commits while this append waits: a transaction that read first (DEFERRED) would
      // then hold a stale snapshot and fail with SQLITE_BUSY_SNAPSHOT, which no busy timeout retries.
      await store.appendMessages(s.id, null, say("second"));
      expect((await store.history(s.id)).map((m) => m.seq)).toEqual([1, 2]);
      expect(await writer.exited).toBe(0);
      expect((await store.turnEvents({ type: "other-writer" })).length).toBe(1);
    } finally {
      db.close();
    }
  });

  test("sessions by external key, ordered messages, turns and settings survive reopening", async () => {
    const path = join(makeTempDir(), "oa.sqlite");
    let db = openDatabase(path);
    let store = createSessionStore(db);
    const s = await store.getOrCreate("discord:dm:1", "discord");
    expect((await store.getOrCreate("discord:dm:1", "discord")).id).toBe(s.id);
    await store.startTurn({ id: "turn_1", sessionId: s.id, userId: "1" });
    await store.appendMessages(s.id, "turn_1", [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "hello" }], runIds: ["run_a"] },
    ]);
    await store.finishTurn("turn_1", { stopReason: "answered", unverified: false, runIds: ["run_a"] });
    await store.updateSettings(s.id, { model: "claude-x" });
    await store.recordTurnEvent("turn_1", "profile.rotated", { from: "a", to: "b" });
    db.close();

    db = openDatabase(path);
    store = createSessionStore(db);
    const again = await store.getOrCreate("discord:dm:1", "discord");
    expect(again).toMatchObject({ id: s.id, surface: "discord", settings: { model: "claude-x" } });
    const history = await store.history(s.id);
    expect(history.map((m) => [m.seq, m.role, m.turnId])).toEqual([
      [1, "user", "turn_1"],
      [2, "assistant", "turn_1"],
    ]);
    expect(history[1]!.runIds).toEqual(["run_a"]);
    expect(await store.turns(s.id)).toEqual([
      expect.objectContaining({ id: "turn_1", stopReason: "answered", unverified: false, runIds: ["run_a"] }),
    ]);
    expect(await store.turnEvents({ type: "profile.rotated" })).toEqual([
      expect.objectContaining({ turnId: "turn_1", data: { from: "a", to: "b" } }),
    ]);
    expect((await store.getOrCreate("terminal", "terminal")).id).not.toBe(s.id);
    db.close();
  });

  test("setSettings merges overrides, clears a key set to null, and refuses an unknown session", async () => {
    const db = openDatabase(join(makeTempDir(), "oa.sqlite"));
    const store = createSessionStore(db);
    const s = await store.getOrCreate("terminal", "terminal");
    expect(await store.setSettings(s.id, { model: "claude-a" })).toEqual({ model: "claude-a" });
    expect(await store.setSettings(s.id, { profile: "anthropic:work" })).toEqual({
      model: "claude-a",
      profile: "anthropic:work",
    });
    expect(await store.setSettings(s.id, { model: null })).toEqual({ profile: "anthropic:work" });
    expect((await store.get(s.id))!.settings).toEqual({ profile: "anthropic:work" });
    await expect(store.setSettings("ses_nope", { model: "x" })).rejects.toThrow(/Unknown session "ses_nope"/);
    db.close();
  });

  test("a turn keeps its request, model and answer for the console, cut to their caps; an older database gains the columns", async () => {
    const path = join(makeTempDir(), "oa.sqlite");
    let db = openDatabase(path);
    // A database from before the console showed turns.
    db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, surface TEXT NOT NULL, external_key TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, settings TEXT NOT NULL DEFAULT '{}');
      CREATE TABLE turns (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES sessions(id), user_id TEXT,
      started_at INTEGER NOT NULL, finished_at INTEGER, stop_reason TEXT, unverified INTEGER,
      run_ids TEXT NOT NULL DEFAULT '[]', usage TEXT);
      INSERT INTO sessions VALUES ('ses_old', 'terminal', 'terminal', 1, 1, '{}');
      INSERT INTO turns (id, session_id, started_at) VALUES ('turn_old', 'ses_old', 1);`);
    let store = createSessionStore(db);
    expect(await store.turns("ses_old")).toEqual([
      expect.objectContaining({ id: "turn_old", request: null, model: null, answer: null }),
    ]);
    const s = await store.getOrCreate("discord:dm:1", "discord");
    await store.startTurn({
      id: "turn_1",
      sessionId: s.id,
      userId: "discord:1",
      request: "x".repeat(5000),
      model: "claude-x",
    });
    expect((await store.turns(s.id))[0]).toMatchObject({ answer: null, unverified: null });
    await store.finishTurn("turn_1", { stopReason: "answered", unverified: true, runIds: [], answer: "done 👍" });
    expect((await store.turns(s.id))[0]!.model).toBe("claude-x"); // no model reported: the one asked stays
    await store.finishTurn("turn_1", {
      stopReason: "answered",
      unverified: true,
      runIds: [],
      answer: "done 👍",
      model: "claude-x-20261101",
    });
    db.close();
    db = openDatabase(path);
    store = createSessionStore(db);
    const [turn] = await store.turns(s.id);
    expect(turn).toMatchObject({
      userId: "discord:1",
      model: "claude-x-20261101",
      answer: "done 👍",
      unverified: true,
    });
    expect(turn!.request!.length).toBeLessThanOrEqual(4000);
    expect(turn!.request).toMatch(/^x+… 1,0\d\d more characters$/);
    db.close();
  });
});
