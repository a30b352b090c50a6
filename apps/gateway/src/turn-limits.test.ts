import { afterEach, describe, expect, test } from "bun:test";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import type { TurnSettings } from "./agent/settings.ts";
import { startHarness, TEST_MODEL, type Harness } from "../test/harness.ts";

// Turn limits end to end (real SDK → fake Anthropic, real sandbox, real SQLite). In their own file
// beside gateway.test.ts so each file stays under the 10 s budget.

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const exec = (id: string, code: string, extra = {}) => toolUseTurn({ id, name: "execute", input: { code } }, extra);
const turn = (t: Partial<TurnSettings>) => ({ turn: t as TurnSettings });
const LIST = "return await tools.reminders.list({});";
const _CREATE = 'return await tools.reminders.create({ text: "call mom", at: "9:00" });';

describe("turn limits", () => {
  test("maxRounds: the last round is sent with tool_choice none; a model that still calls a tool stops with max_rounds", async () => {
    h = await startHarness({ settings: turn({ maxRounds: 2 }) });
    h.api.script([exec("toolu_1", LIST), exec("toolu_2", LIST)]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "rounds", surface: "terminal", text: "list twice" });
    const [first, last, ...more] = h.api.messageRequests();
    expect(more).toHaveLength(0);
    expect(first!.body.tool_choice).toBeUndefined();
    expect(last!.body.tool_choice).toEqual({ type: "none" });
    expect(outcome.stopReason).toBe("max_rounds");
    expect(outcome.text).toContain("limit of model rounds");
    expect(outcome.usage.rounds).toBe(2);
    expect(h.calls).toEqual(["reminders.list"]); // the final round's tool_use is never run
    expect(
      (await h.gateway.sessions.turns((await h.gateway.sessions.getOrCreate("rounds", "terminal")).id)).at(-1)!
        .stopReason,
    ).toBe("max_rounds");
  });

  test("maxTurnTokens: usage summed over the rounds ends the turn with token_budget", async () => {
    h = await startHarness({ settings: turn({ maxTurnTokens: 1_000 }) });
    h.api.script([
      exec("toolu_1", LIST, { usage: { input_tokens: 700, output_tokens: 200, cache_read_input_tokens: 150 } }),
      textTurn("never requested"),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "tokens", surface: "terminal", text: "list" });
    expect(outcome.stopReason).toBe("token_budget");
    expect(outcome.text).toContain("token budget");
    expect(outcome.usage).toMatchObject({ inputTokens: 850, outputTokens: 200, rounds: 1 });
    expect(h.api.messageRequests()).toHaveLength(1);
    expect(h.api.remaining()).toBe(1);
    expect(h.calls).toEqual(["reminders.list"]);
  });
});

describe("per-session settings", () => {
  test("(await sessions.setSettings({ model })) reaches the next request", async () => {
    h = await startHarness();
    h.api.script([textTurn("a"), textTurn("b")]);
    await h.gateway.handleMessage({ sessionKey: "pick", surface: "terminal", text: "hi" });
    const session = await h.gateway.sessions.getOrCreate("pick", "terminal");
    await h.gateway.sessions.setSettings(session.id, { model: "claude-opus-5-5" });
    await h.gateway.handleMessage({ sessionKey: "pick", surface: "terminal", text: "hi again" });
    expect(h.api.messageRequests().map((r) => r.body.model)).toEqual([TEST_MODEL, "claude-opus-5-5"]);
  });
});
