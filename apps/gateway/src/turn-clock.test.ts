import { afterEach, describe, expect, test } from "bun:test";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import type { TurnSettings } from "./agent/settings.ts";
import { startHarness, type Harness } from "../test/harness.ts";

// The turn clock end to end (real SDK → fake Anthropic, real sandbox, real SQLite). In their own file
// beside gateway.test.ts so each file stays under the 10 s budget.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const exec = (id: string, code: string, extra = {}) => toolUseTurn({ id, name: "execute", input: { code } }, extra);
const turn = (t: Partial<TurnSettings>) => ({ turn: t as TurnSettings });
const CREATE = 'return await tools.reminders.create({ text: "call mom", at: "9:00" });';

describe("the turn clock (model.turnTimeoutSeconds) and approvals", () => {
  test("the turn clock stands still while an approval waits: a 1 s turn survives an approval answered after 1.5 s", async () => {
    h = await startHarness({ settings: turn({ turnTimeoutSeconds: 1 }) });
    h.api.script([exec("toolu_1", CREATE), textTurn("I've scheduled the reminder for 9:00.")]);
    const gateway = h.gateway;
    gateway.events.subscribe((e) => {
      if (e.type === "approval.requested")
        setTimeout(
          () => void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "test:ann" }),
          1_500,
        );
    });
    const started = performance.now();
    const outcome = await gateway.handleMessage({ sessionKey: "clock", surface: "terminal", text: "remind me" });
    expect(performance.now() - started).toBeGreaterThan(1_400);
    expect(outcome.stopReason).toBe("answered");
    expect(outcome.text).toBe("I've scheduled the reminder for 9:00.");
    expect(outcome.unverified).toBe(false);
    expect(outcome.summaryText).toMatch(/✅ reminders\.create succeeded \(approved by test:ann\)/);
    expect(h.calls).toEqual(["reminders.create:call mom"]);
  });

  test("time outside approvals still counts: a model slower than the turn limit stops the turn with timeout", async () => {
    h = await startHarness({ settings: turn({ turnTimeoutSeconds: 1 }) });
    h.api.script([textTurn("too late", { delayMs: 2_000 })]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "slow", surface: "terminal", text: "hi" });
    // Stopped by the turn limit, not by the model's (later) answer.
    expect(outcome.stopReason).toBe("timeout");
    expect(outcome.text).toContain("ran out of time");
  });

  test("the clock resumes after the approval: time before and after it adds up to a timeout", async () => {
    h = await startHarness({ settings: turn({ turnTimeoutSeconds: 1 }) });
    h.api.script([exec("toolu_1", CREATE, { delayMs: 600 }), textTurn("done", { delayMs: 1_000 })]);
    const gateway = h.gateway;
    gateway.events.subscribe((e) => {
      if (e.type === "approval.requested")
        setTimeout(
          () => void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "test:ann" }),
          300,
        );
    });
    const outcome = await gateway.handleMessage({ sessionKey: "resume", surface: "terminal", text: "remind me" });
    expect(outcome.stopReason).toBe("timeout");
    expect(h.calls).toEqual(["reminders.create:call mom"]);
  });
});
