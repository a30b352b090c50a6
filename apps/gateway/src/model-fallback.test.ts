import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { fakeAnthropicErrors, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { chatText, chatToolCall, fakeChatErrors } from "@openassistant/testkit/openai/fake-server.ts";
import type { GatewayEvent } from "./events/types.ts";
import { startHarness, TEST_MODEL, type Harness } from "../test/harness.ts";

// Gateways with a real checker and fake servers on a busy machine: the limit `bun run check` uses.
setDefaultTimeout(30_000);

// #35: the fallback chain end to end: Claude (fake Anthropic, real SDK) and an OpenAI-compatible
// endpoint (fake Chat Completions, real openai client), one configured after the other.
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CHAT_MODEL = "llama3.1:8b";
/** A retry-after longer than the client waits: the rate limit is not waited out, the call fails at once. */
const LONG_LIMIT = 600;

describe("model fallbacks", () => {
  test("Claude rate limited: the configured fallback takes the turn; the turn, its events and the summary say which model answered", async () => {
    h = await startHarness({ chat: { as: "fallback" } });
    h.api.script([fakeAnthropicErrors.rateLimited(LONG_LIMIT)]);
    h.chat!.script([
      chatToolCall({ id: "call_1", name: "execute", input: { code: "return await tools.reminders.list({});" } }),
      chatText("One reminder: water plants."),
    ]);
    const events: GatewayEvent[] = [];
    const outcome = await h.gateway.handleMessage({
      sessionKey: "fb",
      surface: "terminal",
      text: "what reminders?",
      onEvent: (e) => events.push(e),
    });
    expect(outcome.text).toBe("One reminder: water plants.");
    expect(outcome.answeredBy).toBe(CHAT_MODEL);
    // The tool loop's second request stayed with the fallback (Claude is cooling down).
    expect(h.api.messageRequests()).toHaveLength(1);
    expect(h.chat!.completionRequests()).toHaveLength(2);
    const fallback = events.find((e) => e.type === "model.fallback");
    expect(fallback).toMatchObject({
      from: `anthropic:${TEST_MODEL}`,
      to: `openai-compatible:${CHAT_MODEL}`,
      reason: "rate_limited",
    });
    expect(outcome.summaryText).toContain(
      `↪ answered by ${CHAT_MODEL} (fallback: anthropic:${TEST_MODEL} rate limited)`,
    );
    expect(outcome.summaryText).toContain("✅ reminders.list succeeded");
    const recorded = await h.gateway.sessions.turnEvents({ turnId: outcome.turnId, type: "model.fallback" });
    expect(recorded).toHaveLength(1);
    const session = await h.gateway.sessions.getOrCreate("fb", "terminal");
    const [turn] = await h.gateway.sessions.turns(session.id);
    expect(turn!.model).toBe(CHAT_MODEL);
    // #35: the run's receipts name the model that wrote its code (the fallback), and still verify.
    const receipts = await h.gateway.receipts.byRun(outcome.runIds[0]!);
    expect(receipts.map((r) => [r.phase, r.model])).toEqual([
      ["requested", `openai-compatible:${CHAT_MODEL}`],
      ["started", `openai-compatible:${CHAT_MODEL}`],
      ["succeeded", `openai-compatible:${CHAT_MODEL}`],
    ]);
    expect(await h.gateway.receipts.verifyRun(outcome.runIds[0]!)).toEqual({ ok: true });
    expect(await h.gateway.receipts.verify()).toMatchObject({ ok: true, keyed: 3 });
  });

  test("the next turn, while the failed model cools down, goes to the fallback at once and says why", async () => {
    h = await startHarness({ chat: { as: "fallback" } });
    h.api.script([fakeAnthropicErrors.rateLimited(LONG_LIMIT)]);
    h.chat!.script([chatText("first"), chatText("second")]);
    await h.gateway.handleMessage({ sessionKey: "cool", surface: "terminal", text: "hi" });
    const events: GatewayEvent[] = [];
    const outcome = await h.gateway.handleMessage({
      sessionKey: "cool",
      surface: "terminal",
      text: "again",
      onEvent: (e) => events.push(e),
    });
    expect(outcome.text).toBe("second");
    expect(h.api.messageRequests()).toHaveLength(1);
    expect(events.filter((e) => e.type === "model.fallback")).toMatchObject([{ reason: "cooling_down" }]);
    expect(outcome.summaryText).toContain(
      `↪ answered by ${CHAT_MODEL} (fallback: anthropic:${TEST_MODEL} cooling down)`,
    );
  });

  test("a failure that is not an outage (billing) ends the call: no fallback", async () => {
    h = await startHarness({ chat: { as: "fallback" } });
    h.api.script([fakeAnthropicErrors.billing()]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "nofb", surface: "terminal", text: "hi" });
    expect(outcome.stopReason).toBe("model_error");
    expect(outcome.text).toContain("billing");
    expect(h.chat!.completionRequests()).toHaveLength(0);
  });

  test("an OpenAI-compatible primary down: Claude takes the turn with a request valid for Claude", async () => {
    h = await startHarness({ chat: { as: "primary", fallbacks: [{ provider: "anthropic", name: TEST_MODEL }] } });
    // Overloaded, and again on the client's one retry.
    h.chat!.script([fakeChatErrors.overloaded(), fakeChatErrors.overloaded()]);
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.reminders.list({});" } }),
      textTurn("It is 1."),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "down", surface: "terminal", text: "one?" });
    expect(outcome.text).toBe("It is 1.");
    expect(outcome.answeredBy).toBe(TEST_MODEL);
    expect(outcome.summaryText).toContain(`fallback: openai-compatible:${CHAT_MODEL} overloaded`);
    expect(h.api.messageRequests().map((r) => r.body.model)).toEqual([TEST_MODEL, TEST_MODEL]);
    expect(h.chat!.completionRequests()).toHaveLength(2);
    // #35: Claude wrote the run's code: its receipts say so.
    const receipts = await h.gateway.receipts.byRun(outcome.runIds[0]!);
    expect(receipts.length).toBeGreaterThan(0);
    expect(new Set(receipts.map((r) => r.model))).toEqual(new Set([`anthropic:${TEST_MODEL}`]));
  });

  test("Claude to another Claude model: an internal error moves the turn, with the request made valid for that model", async () => {
    const fallback = TEST_MODEL === "claude-haiku-4-5" ? "claude-sonnet-5" : "claude-haiku-4-5";
    h = await startHarness({
      settings: {
        models: { primary: { provider: "anthropic" }, fallbacks: [{ provider: "anthropic", name: fallback }] },
        turn: { effort: "high" } as never,
      },
    });
    // An internal error, and again on the client's one retry; then the fallback answers.
    h.api.script([fakeAnthropicErrors.apiError(500), fakeAnthropicErrors.apiError(500), textTurn("from the fallback")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "c2c", surface: "terminal", text: "hi" });
    expect(outcome.text).toBe("from the fallback");
    expect(outcome.answeredBy).toBe(fallback);
    const last = h.api.messageRequests().at(-1)!.body;
    expect(last.model).toBe(fallback);
    // The first model's settings are not carried over (the fake rejects what the model does not accept).
    expect(last.output_config).toBeUndefined();
  });

  test("every configured model down: the last one's error is the turn's", async () => {
    h = await startHarness({ chat: { as: "fallback" } });
    h.api.script([fakeAnthropicErrors.rateLimited(LONG_LIMIT)]);
    h.chat!.script([fakeChatErrors.overloaded(), fakeChatErrors.overloaded()]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "alldown", surface: "terminal", text: "hi" });
    expect(outcome.stopReason).toBe("model_error");
    expect(outcome.text).toContain("overloaded");
  });
});
