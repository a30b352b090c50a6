import { describe, expect, test } from "bun:test";
import { type SessionStore, TURN_TEXT_CAPS } from "../../src/sessions/store.ts";

/** One backend's session store, opened fresh; `reopen` closes it and opens the same data again. */
export interface SessionBackend {
  readonly sessions: SessionStore;
  reopen(): Promise<SessionBackend>;
  close(): Promise<void>;
}

export type MakeSessionBackend = () => Promise<SessionBackend>;

const text = (t: string) => [{ type: "text" as const, text: t }];

async function withBackend(make: MakeSessionBackend, body: (s: SessionStore) => Promise<void>) {
  const b = await make();
  try {
    await body(b.sessions);
  } finally {
    await b.close();
  }
}

/** What any conversation store must do (sessions/store.ts). */
export function describeSessionStoreContract(name: string, make: MakeSessionBackend): void {
  describe(`session store contract: ${name}`, () => {
    test("one session per key, found again by key and id; another key is another session", async () => {
      await withBackend(make, async (sessions) => {
        const s = await sessions.getOrCreate("discord:dm:1", "discord");
        expect(s).toMatchObject({ key: "discord:dm:1", surface: "discord", settings: {} });
        expect(typeof s.id).toBe("string");
        expect(await sessions.getOrCreate("discord:dm:1", "discord")).toEqual(s);
        expect(await sessions.get(s.id)).toEqual(s);
        expect(await sessions.get("ses_nope")).toBeUndefined();
        expect((await sessions.getOrCreate("terminal", "terminal")).id).not.toBe(s.id);
      });
    });

    test("of many first messages at once on one key, all get the same session", async () => {
      await withBackend(make, async (sessions) => {
        const all = await Promise.all(Array.from({ length: 8 }, () => sessions.getOrCreate("k", "terminal")));
        expect(new Set(all.map((s) => s.id)).size).toBe(1);
      });
    });

    test("appends at once to one session keep every message, each append's messages together and in order", async () => {
      await withBackend(make, async (sessions) => {
        const s = await sessions.getOrCreate("busy", "terminal");
        await Promise.all(
          Array.from({ length: 10 }, (_, a) =>
            sessions.appendMessages(s.id, null, [
              { role: "user", content: text(`${a}:1`) },
              { role: "assistant", content: text(`${a}:2`) },
              { role: "user", content: text(`${a}:3`) },
            ]),
          ),
        );
        const history = await sessions.history(s.id);
        expect(history.map((m) => m.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
        const texts = history.map((m) => (m.content as Array<{ text: string }>)[0]!.text);
        for (let i = 0; i < 30; i += 3) {
          const append = texts[i]!.split(":")[0];
          expect(texts.slice(i, i + 3)).toEqual([`${append}:1`, `${append}:2`, `${append}:3`]);
        }
      });
    });

    test("messages in order with their turn and run ids; an empty append stores nothing", async () => {
      await withBackend(make, async (sessions) => {
        const s = await sessions.getOrCreate("terminal", "terminal");
        await sessions.startTurn({ id: "turn_1", sessionId: s.id, userId: "u1" });
        await sessions.appendMessages(s.id, "turn_1", [
          { role: "user", content: text("hi") },
          { role: "assistant", content: text("hello"), runIds: ["run_a"] },
        ]);
        await sessions.appendMessages(s.id, "turn_1", []);
        await sessions.appendMessages(s.id, null, [{ role: "user", content: text("again") }]);
        const history = await sessions.history(s.id);
        expect(history.map((m) => [m.seq, m.role, m.turnId, m.runIds, m.content])).toEqual([
          [1, "user", "turn_1", [], text("hi")],
          [2, "assistant", "turn_1", ["run_a"], text("hello")],
          [3, "user", null, [], text("again")],
        ]);
        expect(history.every((m) => typeof m.at === "number")).toBe(true);
        expect(await sessions.history("ses_nope")).toEqual([]);
      });
    });

    test("the model's history leaves out the messages of refused turns; history keeps them", async () => {
      await withBackend(make, async (sessions) => {
        const s = await sessions.getOrCreate("terminal", "terminal");
        for (const [id, stop] of [
          ["turn_1", "answered"],
          ["turn_2", "refused"],
          ["turn_3", "answered"],
        ] as const) {
          await sessions.startTurn({ id, sessionId: s.id });
          await sessions.appendMessages(s.id, id, [{ role: "user", content: text(id) }]);
          await sessions.finishTurn(id, { stopReason: stop, unverified: false, runIds: [`run_${id}`] });
        }
        expect((await sessions.modelHistory(s.id)).map((m) => m.turnId)).toEqual(["turn_1", "turn_3"]);
        expect((await sessions.history(s.id)).map((m) => m.turnId)).toEqual(["turn_1", "turn_2", "turn_3"]);
      });
    });

    test("turns: started, then finished with stop reason, verification and runs; oldest first", async () => {
      await withBackend(make, async (sessions) => {
        const s = await sessions.getOrCreate("terminal", "terminal");
        await sessions.startTurn({ id: "turn_1", sessionId: s.id, userId: "u1" });
        expect(await sessions.turns(s.id)).toEqual([
          expect.objectContaining({ id: "turn_1", sessionId: s.id, userId: "u1", finishedAt: null, stopReason: null }),
        ]);
        await sessions.finishTurn("turn_1", { stopReason: "answered", unverified: true, runIds: ["run_a"] });
        await sessions.startTurn({ id: "turn_2", sessionId: s.id });
        const turns = await sessions.turns(s.id);
        expect(turns.map((t) => [t.id, t.stopReason, t.unverified, t.runIds, t.userId])).toEqual([
          ["turn_1", "answered", true, ["run_a"], "u1"],
          ["turn_2", null, null, [], null],
        ]);
        expect(typeof turns[0]!.finishedAt).toBe("number");
        // #30: the turns a kill left unfinished, across sessions.
        const other = await sessions.getOrCreate("discord:dm:1", "discord");
        await sessions.startTurn({ id: "turn_3", sessionId: other.id, request: "hi" });
        expect((await sessions.unfinishedTurns()).map((t) => [t.id, t.sessionId])).toEqual([
          ["turn_2", s.id],
          ["turn_3", other.id],
        ]);
      });
    });

    test("a turn keeps its request, the model asked, then the one that answered, and the answer, cut to their caps", async () => {
      await withBackend(make, async (sessions) => {
        const s = await sessions.getOrCreate("terminal", "terminal");
        await sessions.startTurn({ id: "turn_1", sessionId: s.id, request: "x".repeat(5000), model: "claude-x" });
        expect((await sessions.turns(s.id))[0]).toMatchObject({ model: "claude-x", answer: null });
        await sessions.finishTurn("turn_1", { stopReason: "answered", unverified: false, runIds: [], answer: "done" });
        expect((await sessions.turns(s.id))[0]).toMatchObject({ model: "claude-x", answer: "done" });
        await sessions.finishTurn("turn_1", {
          stopReason: "answered",
          unverified: false,
          runIds: [],
          answer: "y".repeat(9000),
          model: "claude-x-20261101",
        });
        await sessions.startTurn({ id: "turn_2", sessionId: s.id });
        const [first, second] = await sessions.turns(s.id);
        expect(first!.model).toBe("claude-x-20261101");
        expect(first!.request!.length).toBeLessThanOrEqual(TURN_TEXT_CAPS.request);
        expect(first!.request!.startsWith("xxx")).toBe(true);
        expect(first!.answer!.length).toBeLessThanOrEqual(TURN_TEXT_CAPS.answer);
        expect(second).toMatchObject({ request: null, model: null, answer: null });
      });
    });

    test("settings: replaced, merged, a key set to null cleared; an unknown session is refused by id", async () => {
      await withBackend(make, async (sessions) => {
        const s = await sessions.getOrCreate("terminal", "terminal");
        await sessions.updateSettings(s.id, { model: "claude-x", maxTokens: 10 });
        expect((await sessions.get(s.id))!.settings).toEqual({ model: "claude-x", maxTokens: 10 });
        expect(await sessions.setSettings(s.id, { profile: "p" })).toEqual({
          model: "claude-x",
          maxTokens: 10,
          profile: "p",
        });
        expect(await sessions.setSettings(s.id, { model: null, maxTokens: undefined })).toEqual({ profile: "p" });
        expect((await sessions.getOrCreate("terminal", "terminal")).settings).toEqual({ profile: "p" });
        await expect(sessions.setSettings("ses_nope", { model: "x" })).rejects.toThrow(/Unknown session "ses_nope"/);
      });
    });

    test("turn events: append-only, filtered by turn and type, in order", async () => {
      await withBackend(make, async (sessions) => {
        await sessions.recordTurnEvent("turn_1", "profile.rotated", { from: "a", to: "b" });
        await sessions.recordTurnEvent("turn_1", "error", { code: "model.api" });
        await sessions.recordTurnEvent(undefined, "error", { code: "x" });
        const all = await sessions.turnEvents();
        expect(all.map((e) => [e.turnId, e.type, e.data])).toEqual([
          ["turn_1", "profile.rotated", { from: "a", to: "b" }],
          ["turn_1", "error", { code: "model.api" }],
          [null, "error", { code: "x" }],
        ]);
        expect((await sessions.turnEvents({ type: "error" })).map((e) => e.turnId)).toEqual(["turn_1", null]);
        expect((await sessions.turnEvents({ turnId: "turn_1", type: "error" })).map((e) => e.data)).toEqual([
          { code: "model.api" },
        ]);
      });
    });

    test("everything survives a reopen", async () => {
      const first = await make();
      const s = await first.sessions.getOrCreate("discord:dm:1", "discord");
      await first.sessions.appendMessages(s.id, null, [{ role: "user", content: text("kept") }]);
      await first.sessions.setSettings(s.id, { model: "claude-y" });
      const again = await first.reopen();
      try {
        expect(await again.sessions.getOrCreate("discord:dm:1", "discord")).toEqual({
          ...s,
          settings: { model: "claude-y" },
        });
        expect((await again.sessions.history(s.id)).map((m) => m.content)).toEqual([text("kept")]);
      } finally {
        await again.close();
      }
    });
  });
}
