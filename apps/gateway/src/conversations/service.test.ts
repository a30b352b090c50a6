import { afterEach, describe, expect, test } from "bun:test";
import { openDatabase } from "@openassistant/core/db";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import type { GatewayEvent } from "../events/types.ts";
import { createSessionStore } from "../sessions/sqlite/store.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SECRET = "conversation-secret-7Qz9xW2m";

describe("conversations", () => {
  test("a turn's events are redacted before the event bus and the message's listener see them", async () => {
    h = await startHarness({ settings: { secrets: [SECRET] } });
    // The model's code and its answer carry the secret whole (one text delta), as a model may repeat one.
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: `return "${SECRET}".length;` } }),
      textTurn(`The value is ${SECRET}.`, { chunkSize: 1000 }),
    ]);
    const onBus: GatewayEvent[] = [];
    const unsubscribe = h.gateway.events.subscribe((e) => onBus.push(e));
    const onMessage: GatewayEvent[] = [];
    const outcome = await h.gateway.handleMessage({
      sessionKey: "redact",
      surface: "terminal",
      text: "what is it?",
      onEvent: (e) => onMessage.push(e),
    });
    unsubscribe();
    expect(outcome.runIds).toHaveLength(1);
    for (const [where, events] of Object.entries({ onBus, onMessage })) {
      const text = JSON.stringify(events);
      expect({ where, runStarted: events.some((e) => e.type === "run.started") }).toEqual({ where, runStarted: true });
      expect({ where, leaked: text.includes(SECRET) }).toEqual({ where, leaked: false });
      expect({ where, redacted: text.includes("[redacted]") }).toEqual({ where, redacted: true });
    }
  });

  test("a turn cancelled by shutdown has recorded its outcome before the stores close", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn({
        id: "toolu_1",
        name: "execute",
        input: { code: 'return await tools.reminders.create({ text: "call mom", at: "9:00" });' },
      }),
    ]);
    const gateway = h.gateway;
    const requested = new Promise<void>((resolve) =>
      gateway.events.subscribe((e) => e.type === "approval.requested" && resolve()),
    );
    const turn = gateway.handleMessage({ sessionKey: "sd", surface: "terminal", text: "remind me" });
    await requested;
    const session = await gateway.sessions.getOrCreate("sd", "terminal");
    await gateway.shutdown();
    expect((await turn).stopReason).toBe("aborted");

    const db = openDatabase(gateway.settings.databasePath);
    try {
      const turns = await createSessionStore(db).turns(session.id);
      expect(turns.map((t) => t.stopReason)).toEqual(["aborted"]);
      expect((await createSessionStore(db).history(session.id)).length).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });
});
