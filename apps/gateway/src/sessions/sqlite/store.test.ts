import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createSessionStore } from "./store.ts";

describe("session store (SQLite file)", () => {
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
});
