import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { textTurn, toolUseTurn, type ScriptedTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import {
  chatText,
  chatToolCall,
  type RecordedChatRequest,
  type ScriptedChatTurn,
} from "@openassistant/testkit/openai/fake-server.ts";
import type { GatewayEvent } from "./events/types.ts";
import { lastToolResult, startHarness, type Harness } from "../test/harness.ts";

// Gateways with a real checker and fake servers on a busy machine: the limit `bun run check` uses.
setDefaultTimeout(30_000);

/**
 * #35 conformance: the same turn scenarios through the whole gateway (real sandbox, real SQLite,
 * real approvals, real receipts) against each model API the gateway speaks, each emulated strictly:
 * the fake Claude API (real `@anthropic-ai/sdk`), the fake Chat Completions API with native tool
 * calls, and with the fenced-code protocol (real `openai` client). A request an API would reject
 * fails the scenario (the harness checks each fake's violations when it closes).
 */

/** What the model does next, independent of the API: run code, answer, or decide from the last result. */
type Step =
  | { readonly code: string }
  | { readonly text: string; readonly hold?: { readonly until: Promise<unknown>; readonly onHeld: () => void } }
  | ((lastResult: string) => Step);

interface Driver {
  readonly name: string;
  start(): Promise<Harness>;
  script(h: Harness, steps: Step[]): void;
  /** Every request the API received for the model, in order. */
  requests(h: Harness): number;
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}${++ids}`;

const anthropic: Driver = {
  name: "Claude API (fake Anthropic, @anthropic-ai/sdk)",
  start: () => startHarness(),
  script(h, steps) {
    const turn = (s: Step): ScriptedTurn =>
      typeof s === "function"
        ? (req) => turn(s(lastToolResult(req.body).content)) as never
        : "code" in s
          ? toolUseTurn({ id: nextId("toolu_"), name: "execute", input: { code: s.code } })
          : textTurn(s.text, s.hold ? { holdStream: { afterTextDeltas: 2, ...s.hold } } : {});
    h.api.script(steps.map(turn));
  },
  requests: (h) => h.api.messageRequests().length,
};

/** The last tool result as the Chat Completions request carries it (a tool message, or the user's message). */
const chatResult = (req: RecordedChatRequest): string => {
  const last = req.body.messages.at(-1) as { content: string };
  return last.content;
};

const chatDriver = (toolCalls: "native" | "code-block"): Driver => ({
  name: `Chat Completions (fake OpenAI-compatible, openai), ${toolCalls}`,
  start: () =>
    startHarness({
      chat: { as: "primary", toolCalls, models: [{ id: "qwen2.5-coder:7b", tools: toolCalls === "native" }] },
    }),
  script(h, steps) {
    const turn = (s: Step): ScriptedChatTurn =>
      typeof s === "function"
        ? (req) => turn(s(chatResult(req))) as never
        : "code" in s
          ? toolCalls === "native"
            ? chatToolCall({ id: nextId("call_"), name: "execute", input: { code: s.code } })
            : chatText(`Running this.\n\`\`\`ts\n${s.code}\n\`\`\``)
          : chatText(s.text, s.hold ? { holdStream: { afterChunks: 3, ...s.hold } } : {});
    h.chat!.script(steps.map(turn));
  },
  requests: (h) => h.chat!.completionRequests().length,
});

const DRIVERS: readonly Driver[] = [anthropic, chatDriver("native"), chatDriver("code-block")];

const CREATE = 'return await tools.reminders.create({ text: "call mom", at: "9:00" });';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function decideApprovals(
  harness: Harness,
  decision: { decision: "approved" } | { decision: "denied"; reason: string },
) {
  harness.gateway.events.subscribe((e) => {
    if (e.type === "approval.requested")
      void harness.gateway.approvals.decide(e.request.callId, { ...decision, by: "test:ann" });
  });
}

for (const driver of DRIVERS)
  describe(`model conformance: ${driver.name}`, () => {
    test("a tool loop with an approval: the call runs once approved and the answer is grounded", async () => {
      h = await driver.start();
      decideApprovals(h, { decision: "approved" });
      driver.script(h, [
        { code: CREATE },
        (result) => ({ text: result.includes("rem_1") ? "I've scheduled the reminder for 9:00." : `?? ${result}` }),
      ]);
      const outcome = await h.gateway.handleMessage({ sessionKey: "approve", surface: "terminal", text: "remind me" });
      expect(outcome.text).toBe("I've scheduled the reminder for 9:00.");
      expect(outcome.stopReason).toBe("answered");
      expect(outcome.unverified).toBe(false);
      expect(outcome.summaryText).toMatch(/✅ reminders\.create succeeded \(approved by test:ann\)/);
      expect(h.calls).toEqual(["reminders.create:call mom"]);
      expect(driver.requests(h)).toBe(2);
    });

    test("a denial with a reason reaches the model, and the answer says so", async () => {
      h = await driver.start();
      decideApprovals(h, { decision: "denied", reason: "not on a Sunday" });
      driver.script(h, [
        { code: CREATE },
        (result) => ({
          text: result.includes("not on a Sunday") ? "The reminder was denied: not on a Sunday." : `?? ${result}`,
        }),
      ]);
      const outcome = await h.gateway.handleMessage({ sessionKey: "deny", surface: "terminal", text: "remind me" });
      expect(outcome.text).toBe("The reminder was denied: not on a Sunday.");
      expect(outcome.summaryText).toMatch(/⛔ reminders\.create denied by test:ann: "not on a Sunday"/);
      expect(outcome.unverified).toBe(false);
      expect(h.calls).toEqual([]);
    });

    test("a claim no receipt backs is marked unverified", async () => {
      h = await driver.start();
      driver.script(h, [{ code: "return await tools.reminders.list({});" }, { text: "I created the reminder." }]);
      const outcome = await h.gateway.handleMessage({ sessionKey: "ground", surface: "terminal", text: "remind me" });
      expect(outcome.unverified).toBe(true);
      expect(outcome.summaryText).toContain("✅ reminders.list succeeded");
    });

    test("a tool error comes back to the model and into the summary", async () => {
      h = await driver.start();
      driver.script(h, [
        {
          code: 'try { await tools.mail.send({ to: "bob@example.com", body: "hi" }); return "sent"; } catch (e) { return String(e); }',
        },
        (result) => ({
          text: result.includes("SMTP server refused")
            ? "I could not send the email: the server refused."
            : `?? ${result}`,
        }),
      ]);
      const outcome = await h.gateway.handleMessage({ sessionKey: "error", surface: "terminal", text: "mail bob" });
      expect(outcome.text).toBe("I could not send the email: the server refused.");
      expect(outcome.summaryText).toMatch(/❌ mail\.send failed: .*SMTP server refused the connection/);
      expect(h.calls).toEqual(["mail.send"]);
    });

    test("a long answer streams whole, and the next turn's request carries it back", async () => {
      h = await driver.start();
      const long = Array.from(
        { length: 400 },
        (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog.`,
      ).join("\n");
      driver.script(h, [{ text: long }, { text: "Short." }]);
      const streamed: string[] = [];
      const outcome = await h.gateway.handleMessage({
        sessionKey: "long",
        surface: "terminal",
        text: "tell me a lot",
        onEvent: (e: GatewayEvent) => e.type === "model.text" && streamed.push(e.text),
      });
      expect(outcome.text).toBe(long);
      expect(streamed.join("")).toBe(long);
      const next = await h.gateway.handleMessage({ sessionKey: "long", surface: "terminal", text: "and?" });
      expect(next.text).toBe("Short.");
      expect(JSON.stringify(lastRequestBody(h, driver))).toContain("Line 399");
    });

    test("a cancelled turn stops while the model streams, and the conversation goes on", async () => {
      h = await driver.start();
      const controller = new AbortController();
      let release!: () => void;
      const until = new Promise<void>((r) => (release = r));
      driver.script(h, [
        { text: "This answer is cut off by the user.", hold: { until, onHeld: () => controller.abort() } },
        { text: "Hello again." },
      ]);
      const outcome = await h.gateway.handleMessage({
        sessionKey: "cancel",
        surface: "terminal",
        text: "hi",
        signal: controller.signal,
      });
      release();
      expect(outcome.stopReason).toBe("aborted");
      const next = await h.gateway.handleMessage({ sessionKey: "cancel", surface: "terminal", text: "hi again" });
      expect(next.text).toBe("Hello again.");
    });
  });

function lastRequestBody(harness: Harness, driver: Driver): unknown {
  return driver === anthropic
    ? harness.api.messageRequests().at(-1)!.body
    : harness.chat!.completionRequests().at(-1)!.body;
}
