import { afterEach, describe, expect, test } from "bun:test";
import {
  fakeAnthropicErrors,
  textTurn,
  toolUseTurn,
  type ScriptedError,
} from "@openassistant/testkit/anthropic/fake-server.ts";
import type { TurnSettings } from "./agent/settings.ts";
import { startHarness, type Harness } from "../test/harness.ts";

// The documented Claude API contract, end to end (real SDK → strict fake Anthropic → real sandbox and
// SQLite), for models with different thinking behaviour:
// - claude-sonnet-5-5: adaptive thinking by default, display "omitted", forced tool use / disabled thinking rejected;
// - claude-opus-5-5: adaptive thinking always on (no between_tools, no disabled);
// - claude-haiku-5-5: adaptive by default, "disabled" accepted, prefill rejected;
// - claude-sonnet-5 (earlier): adaptive by default, "disabled" accepted, forced tool use allowed without thinking;
// - claude-haiku-4-5 (earlier): no thinking unless asked (budget thinking), no effort parameter.
// The harness fails a test whose requests the real API would reject (docs/anthropic-contract.md).

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LIST = "return await tools.reminders.list({});";
const exec = (id: string, extra = {}) => toolUseTurn({ id, name: "execute", input: { code: LIST } }, extra);
const turn = (t: Partial<TurnSettings>) => ({ turn: t as TurnSettings });
const quick = (e: ScriptedError): ScriptedError => ({ error: { ...e.error, headers: { "retry-after-ms": "30" } } });
type Block = { type: string; thinking?: string; signature?: string };
const blocks = (m: { content: unknown }) => m.content as Block[];

/** End-to-end turns with several requests (and a restart) on a busy 2-core VM: a generous limit, not a timing check. */
const E2E_TIMEOUT = 30_000;

const MODELS = [
  "claude-sonnet-5-5",
  "claude-opus-5-5",
  "claude-haiku-5-5",
  "claude-sonnet-5",
  "claude-haiku-4-5",
] as const;

for (const model of MODELS) {
  describe(`contract on ${model}`, () => {
    test(
      "a 5-round tool loop, a second message, a restart and a /model switch: no request is rejected",
      async () => {
        h = await startHarness({ settings: turn({ model }) });
        h.api.script([
          exec("toolu_1"),
          exec("toolu_2"),
          exec("toolu_3"),
          exec("toolu_4"),
          exec("toolu_5"),
          textTurn("Five looks: water plants."),
        ]);
        const first = await h.gateway.handleMessage({
          sessionKey: "loop",
          surface: "terminal",
          text: "check five times",
        });
        expect(first.stopReason).toBe("answered");
        expect(first.text).toBe("Five looks: water plants.");
        expect(h.calls).toEqual(Array(5).fill("reminders.list"));
        const requests = h.api.messageRequests();
        expect(requests).toHaveLength(6);
        // Within the loop, every assistant turn goes back with exactly the thinking blocks it came with.
        const thinks = model !== "claude-haiku-4-5";
        const last = requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
        const assistants = last.filter((m) => m.role === "assistant");
        expect(assistants).toHaveLength(5);
        for (const a of assistants) expect(blocks(a)[0]!.type).toBe(thinks ? "thinking" : "tool_use");

        h.api.script([exec("toolu_6"), textTurn("Still one reminder.")]);
        const second = await h.gateway.handleMessage({ sessionKey: "loop", surface: "terminal", text: "and now?" });
        expect(second.text).toBe("Still one reminder.");

        await h.restart();
        h.api.script([exec("toolu_7"), textTurn("After the restart: one reminder.")]);
        const third = await h.gateway.handleMessage({
          sessionKey: "loop",
          surface: "terminal",
          text: "after restart?",
        });
        expect(third.text).toBe("After the restart: one reminder.");

        // Thinking blocks are stored with the session, byte for byte.
        const session = await h.gateway.sessions.getOrCreate("loop", "terminal");
        const stored = (await h.gateway.sessions.history(session.id))
          .flatMap((m) => m.content as Block[])
          .filter((b) => b.type === "thinking");
        expect(stored.length > 0).toBe(thinks);
        for (const b of stored) expect(typeof b.signature).toBe("string");

        const other = model === "claude-sonnet-5-5" ? "claude-sonnet-5" : "claude-sonnet-5-5";
        await h.gateway.sessions.setSettings(session.id, { model: other });
        h.api.script([exec("toolu_8"), textTurn("Switched models, one reminder.")]);
        const fourth = await h.gateway.handleMessage({
          sessionKey: "loop",
          surface: "terminal",
          text: "on the other model?",
        });
        expect(fourth.text).toBe("Switched models, one reminder.");
        expect(h.api.messageRequests().at(-1)!.body.model).toBe(other);
        expect(h.api.violations).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "429 then ok, 529 once and an overload mid-stream: the turn answers; receipts show each call ran once",
      async () => {
        h = await startHarness({ settings: turn({ model }) });
        const statuses: string[] = [];
        h.api.script([
          quick(fakeAnthropicErrors.rateLimited(1)),
          exec("toolu_1"),
          quick(fakeAnthropicErrors.overloaded()),
          quick(fakeAnthropicErrors.overloaded({ midStream: true })),
          textTurn("One reminder."),
        ]);
        const outcome = await h.gateway.handleMessage({
          sessionKey: "retry",
          surface: "terminal",
          text: "reminders?",
          onEvent: (e) => {
            if (e.type === "model.retrying") statuses.push(e.reason);
          },
        });
        expect(outcome.text).toBe("One reminder.");
        expect(statuses).toEqual(["rate limited", "Anthropic is overloaded", "Anthropic is overloaded"]);
        expect(h.calls).toEqual(["reminders.list"]);
        expect(outcome.runIds).toHaveLength(1);
        const receipts = await h.gateway.receipts.byRun(outcome.runIds[0]!);
        expect(receipts.filter((r) => r.phase === "succeeded")).toHaveLength(1);
      },
      E2E_TIMEOUT,
    );

    test(
      "model_context_window_exceeded cuts off a tool call: it never runs; compacted, the model answers, the user is told",
      async () => {
        h = await startHarness({ settings: turn({ model }) });
        h.api.script([exec("toolu_1", { stop_reason: "model_context_window_exceeded" }), textTurn("Answered.")]);
        const outcome = await h.gateway.handleMessage({ sessionKey: "ctx", surface: "terminal", text: "big" });
        expect(outcome.stopReason).toBe("answered");
        expect(outcome.text).toStartWith("Answered.");
        expect(outcome.text).toContain("context window");
        expect(h.calls).toEqual([]);
        expect(outcome.runIds).toEqual([]);
        expect(JSON.stringify(h.api.messageRequests()[1]!.body.messages)).not.toContain("toolu_1");
        // The stored exchange is well-formed for the next message.
        h.api.script([textTurn("fresh start")]);
        expect((await h.gateway.handleMessage({ sessionKey: "ctx", surface: "terminal", text: "again" })).text).toBe(
          "fresh start",
        );
      },
      E2E_TIMEOUT,
    );

    test(
      "refusal: no partial answer is stored as if complete, the user is told",
      async () => {
        h = await startHarness({ settings: turn({ model }) });
        h.api.script([textTurn("Here is how to", { stop_reason: "refusal" })]);
        const outcome = await h.gateway.handleMessage({ sessionKey: "ref", surface: "terminal", text: "something" });
        expect(outcome.stopReason).toBe("refused");
        expect(outcome.text).toContain("declined");
        const session = await h.gateway.sessions.getOrCreate("ref", "terminal");
        const stored = JSON.stringify(await h.gateway.sessions.history(session.id));
        expect(stored).not.toContain("Here is how to");
      },
      E2E_TIMEOUT,
    );

    test(
      "pause_turn is continued; stop_sequence and max_tokens end with the text",
      async () => {
        h = await startHarness({ settings: turn({ model }) });
        h.api.script([
          textTurn("Part one.", { stop_reason: "pause_turn" }),
          textTurn("Done.", { stop_reason: "stop_sequence" }),
        ]);
        const outcome = await h.gateway.handleMessage({ sessionKey: "pause", surface: "terminal", text: "long job" });
        expect(outcome.text).toBe("Done.");
        expect(outcome.usage.rounds).toBe(2);
        h.api.script([textTurn("Cut", { stop_reason: "max_tokens" })]);
        const cut = await h.gateway.handleMessage({ sessionKey: "pause", surface: "terminal", text: "more" });
        expect(cut.text).toContain("cut off at the response token limit");
      },
      E2E_TIMEOUT,
    );
  });
}

describe("requests carry only what the model accepts", () => {
  test(
    "config thinking / effort reach a model that supports them; a /model switch to one that does not drops them",
    async () => {
      h = await startHarness({
        settings: turn({ model: "claude-sonnet-5-5", thinking: "between_tools", effort: "medium" }),
      });
      h.api.script([exec("toolu_1", { thinking: "Checking the reminders." }), textTurn("one")]);
      const progress: string[] = [];
      await h.gateway.handleMessage({
        sessionKey: "caps",
        surface: "terminal",
        text: "x",
        onEvent: (e) => {
          if (e.type === "model.thinking") progress.push(e.text);
        },
      });
      const first = h.api.messageRequests()[0]!.body;
      expect(first.thinking).toEqual({ type: "between_tools" });
      expect(first.output_config).toEqual({ effort: "medium" });
      // between_tools returns the progress notes as thinking text: shown as status.
      expect(progress).toEqual(["Checking the reminders."]);
      const session = await h.gateway.sessions.getOrCreate("caps", "terminal");
      await h.gateway.sessions.setSettings(session.id, { model: "claude-haiku-4-5" });
      h.api.script([textTurn("haiku")]);
      await h.gateway.handleMessage({ sessionKey: "caps", surface: "terminal", text: "y" });
      const last = h.api.messageRequests().at(-1)!.body;
      expect(last.thinking).toBeUndefined();
      expect(last.output_config).toBeUndefined();
    },
    E2E_TIMEOUT,
  );

  test(
    "thinkingDisplay summarized: the model's thinking comes back as text and is shown as progress",
    async () => {
      h = await startHarness({ settings: turn({ model: "claude-sonnet-5-5", thinkingDisplay: "summarized" }) });
      h.api.script([
        exec("toolu_1", { thinking: "Listing reminders first." }),
        textTurn("one", { thinking: "Now answering." }),
      ]);
      const progress: string[] = [];
      const outcome = await h.gateway.handleMessage({
        sessionKey: "display",
        surface: "terminal",
        text: "x",
        onEvent: (e) => {
          if (e.type === "model.thinking") progress.push(e.text);
        },
      });
      expect(progress).toEqual(["Listing reminders first.", "Now answering."]);
      // Thinking is never part of the answer.
      expect(outcome.text).toBe("one");
    },
    E2E_TIMEOUT,
  );

  test(
    "the last allowed round asks for text with tool_choice none, never a forced tool choice",
    async () => {
      h = await startHarness({ settings: turn({ model: "claude-sonnet-5-5", maxRounds: 2 }) });
      h.api.script([exec("toolu_1"), textTurn("final")]);
      await h.gateway.handleMessage({ sessionKey: "final", surface: "terminal", text: "x" });
      expect(h.api.messageRequests().map((r) => r.body.tool_choice)).toEqual([undefined, { type: "none" }]);
    },
    E2E_TIMEOUT,
  );
});

describe("context window by real token counts", () => {
  test(
    "a round that would not fit the window (last usage + this turn's tool results) is not sent as it is: compacted, then answered",
    async () => {
      h = await startHarness({ settings: turn({ model: "claude-haiku-4-5" }) });
      // The first response reports a prompt of 199,500 tokens: with max_tokens 1024 the next round cannot fit 200K.
      h.api.script([
        exec("toolu_1", { usage: { input_tokens: 199_500, output_tokens: 20 } }),
        textTurn("One reminder."),
      ]);
      const outcome = await h.gateway.handleMessage({ sessionKey: "full", surface: "terminal", text: "x" });
      expect(outcome.stopReason).toBe("answered");
      expect(outcome.text).toStartWith("One reminder.");
      expect(outcome.text).toContain("compacted");
      expect(outcome.compacted).toMatchObject({ times: 1 });
      expect(h.calls).toEqual(["reminders.list"]);
      // The loop went on as text (what ran, from receipts), not as the tool_use the full window held.
      const second = JSON.stringify(h.api.messageRequests()[1]!.body.messages);
      expect(second).not.toContain("toolu_1");
      expect(second).toMatch(/✅ reminders\.list succeeded/);
    },
    E2E_TIMEOUT,
  );
});

describe("prompt caching", () => {
  test(
    "a 5-round tool loop reads the conversation from the cache: at most 4 breakpoints, hit rate recorded",
    async () => {
      h = await startHarness({ settings: turn({ model: "claude-sonnet-5-5" }) });
      h.api.script([
        exec("toolu_1"),
        exec("toolu_2"),
        exec("toolu_3"),
        exec("toolu_4"),
        exec("toolu_5"),
        textTurn("done"),
      ]);
      await h.gateway.handleMessage({ sessionKey: "cache", surface: "terminal", text: "five rounds" });
      const usage = h.api.served.map((s) => s.usage);
      const read = usage.reduce((n, u) => n + u.cache_read_input_tokens, 0);
      const total = usage.reduce(
        (n, u) => n + u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
        0,
      );
      const rate = read / total;
      console.log(
        `cache hit rate of a 5-round tool loop (6 requests, claude-sonnet-5-5, fake): ${(rate * 100).toFixed(1)}% (${read} of ${total} input tokens read from cache)`,
      );
      // Every round after the first reads at least the system prompt and the conversation so far.
      for (const u of usage.slice(1)) expect(u.cache_read_input_tokens).toBeGreaterThan(0);
      expect(rate).toBeGreaterThan(0.5);
    },
    E2E_TIMEOUT,
  );
});
