import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createSessionStore } from "./store.ts";

describe("session store (SQLite file)", () => {
  test("sessions by external key, ordered messages, turns and settings survive reopening", () => {
    const path = join(makeTempDir(), "oa.sqlite");
    let db = openDatabase(path);
    let store = createSessionStore(db);
    const s = store.getOrCreate("discord:dm:1", "discord");
    expect(store.getOrCreate("discord:dm:1", "discord").id).toBe(s.id);
    store.startTurn({ id: "turn_1", sessionId: s.id, userId: "1" });
    store.appendMessages(s.id, "turn_1", [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "hello" }], runIds: ["run_a"] },
    ]);
    store.finishTurn("turn_1", { stopReason: "answered", unverified: false, runIds: ["run_a"] });
    store.updateSettings(s.id, { model: "claude-x" });
    store.recordTurnEvent("turn_1", "profile.rotated", { from: "a", to: "b" });
    db.close();

    db = openDatabase(path);
    store = createSessionStore(db);
    const again = store.getOrCreate("discord:dm:1", "discord");
    expect(again).toMatchObject({ id: s.id, surface: "discord", settings: { model: "claude-x" } });
    const history = store.history(s.id);
    expect(history.map((m) => [m.seq, m.role, m.turnId])).toEqual([
      [1, "user", "turn_1"],
      [2, "assistant", "turn_1"],
    ]);
    expect(history[1]!.runIds).toEqual(["run_a"]);
    expect(store.turns(s.id)).toEqual([
      expect.objectContaining({ id: "turn_1", stopReason: "answered", unverified: false, runIds: ["run_a"] }),
    ]);
    expect(store.turnEvents({ type: "profile.rotated" })).toEqual([
      expect.objectContaining({ turnId: "turn_1", data: { from: "a", to: "b" } }),
    ]);
    expect(store.getOrCreate("terminal", "terminal").id).not.toBe(s.id);
    db.close();
  });

  test("setSettings merges overrides, clears a key set to null, and refuses an unknown session", () => {
    const db = openDatabase(join(makeTempDir(), "oa.sqlite"));
    const store = createSessionStore(db);
    const s = store.getOrCreate("terminal", "terminal");
    expect(store.setSettings(s.id, { model: "claude-a" })).toEqual({ model: "claude-a" });
    expect(store.setSettings(s.id, { profile: "anthropic:work" })).toEqual({
      model: "claude-a",
      profile: "anthropic:work",
    });
    expect(store.setSettings(s.id, { model: null })).toEqual({ profile: "anthropic:work" });
    expect(store.get(s.id)!.settings).toEqual({ profile: "anthropic:work" });
    expect(() => store.setSettings("ses_nope", { model: "x" })).toThrow(/Unknown session "ses_nope"/);
    db.close();
  });
});
