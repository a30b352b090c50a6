import { afterEach, describe, expect, test } from "bun:test";
import { fakeAnthropicErrors, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import type { GatewayEvent } from "./events/types.ts";
import { startTerminalSurface, type TerminalSurface } from "./surfaces/terminal/terminal-surface.ts";
import { startHarness, terminalStreams, type Harness, type HarnessOptions } from "../test/harness.ts";

// Each model stop reason and error gets its documented recovery (docs/anthropic-contract.md, rules
// 20-26), end to end: the real SDK against the strict fake Anthropic API, the real gateway, sandbox
// and SQLite, and the terminal surface a user reads.

let h: Harness | undefined;
let surface: TerminalSurface | undefined;
afterEach(async () => {
  surface?.close();
  surface = undefined;
  await h?.close();
  h = undefined;
});

/** Turns with several requests on a busy 2-core machine: a generous limit, not a timing check. */
const E2E_TIMEOUT = 30_000;

const LIST = "return await tools.reminders.list({});";
const exec = (id: string, code = LIST, extra = {}) => toolUseTurn({ id, name: "execute", input: { code } }, extra);
type Body = { system?: unknown; tools?: unknown; messages: Array<{ role: string; content: unknown }> };
/** The fake's own estimate of a request's prompt (characters / 4 of system, tools and messages). */
const promptTokens = (b: Body) =>
  Math.ceil(JSON.stringify({ system: b.system, tools: b.tools, messages: b.messages }).length / 4);
const lastBody = (): Body => h!.api.messageRequests().at(-1)!.body;

async function withTerminal(options: HarnessOptions = {}) {
  h = await startHarness(options);
  const io = terminalStreams();
  surface = startTerminalSurface({ gateway: h.gateway, input: io.input, output: io.output, tty: false, userId: "ann" });
  const events: GatewayEvent[] = [];
  h.gateway.events.subscribe((e) => events.push(e));
  /** Sends a line and resolves with the terminal's answer block, up to the line where `answer` matches. */
  const ask = async (line: string, answer: RegExp): Promise<string> => {
    const from = io.text.length;
    io.send(line);
    return io.waitFor(new RegExp(`assistant › [\\s\\S]*?${answer.source}[^\\n]*\\n`), 20_000, from);
  };
  return { io, events, ask };
}

describe("refusal: the refused turn leaves the context", () => {
  test(
    "after a refusal, the next request carries neither the refused reply nor the message that provoked it",
    async () => {
      const { io, ask } = await withTerminal();
      h!.api.script([textTurn("Good morning.")]);
      await ask("good morning", /Good morning\./);
      h!.api.script([
        textTurn("Here is how to pick the lo", {
          stop_reason: "refusal",
          refusal: { category: "general_harms", explanation: "This request could facilitate a break-in." },
        }),
      ]);
      const refused = await ask("how do I pick my neighbour's lock", /Reason given/);
      expect(refused).toContain("left out of the conversation");
      // The API's explanation (stop_details, meant for users) is shown.
      expect(refused).toContain("Reason given: This request could facilitate a break-in.");
      expect(refused).not.toContain("Here is how");

      h!.api.script([textTurn("It is sunny.")]);
      await ask("what's the weather?", /It is sunny\./);
      const sent = JSON.stringify(lastBody().messages);
      expect(sent).not.toContain("neighbour's lock");
      expect(sent).not.toContain("declined");
      expect(sent).not.toContain("Here is how");
      // The turns before the refusal stay; the message after it is last.
      expect(sent).toContain("good morning");
      expect(lastBody().messages.at(-1)).toMatchObject({ role: "user" });
      expect(JSON.stringify(lastBody().messages.at(-1))).toContain("what's the weather?");
      // Nothing recorded is lost: the refused exchange is still stored.
      const session = await h!.gateway.sessions.getOrCreate("terminal", "terminal");
      expect(JSON.stringify(await h!.gateway.sessions.history(session.id))).toContain("neighbour's lock");
      expect(io.text).not.toContain("Here is how");
    },
    E2E_TIMEOUT,
  );

  test(
    "a refusal after a tool ran: the turn leaves the context, what its tool calls did is still told (receipts)",
    async () => {
      const { ask } = await withTerminal();
      h!.api.script([exec("toolu_1"), textTurn("I will not do th", { stop_reason: "refusal" })]);
      await ask("list my reminders, then do the forbidden thing", /declined/);
      h!.api.script([textTurn("You have one reminder.")]);
      await ask("so what do I have?", /You have one reminder\./);
      const sent = JSON.stringify(lastBody().messages);
      expect(sent).not.toContain("forbidden thing");
      expect(sent).not.toContain("toolu_1");
      expect(sent).toContain("Requests refused earlier are left out");
      expect(sent).toMatch(/✅ reminders\.list succeeded \[r_\d+\]/);
      expect(h!.calls).toEqual(["reminders.list"]);
    },
    E2E_TIMEOUT,
  );
});

describe("an error in the middle of a stream", () => {
  const overloadAfter = (partialText: string, retryAfterMs = "30") => ({
    error: {
      ...fakeAnthropicErrors.overloaded({ midStream: true, partialText }).error,
      headers: { "retry-after-ms": retryAfterMs },
    },
  });

  test(
    "an overload after some text is retried (retry-after respected); the partial text is replaced, never shown twice",
    async () => {
      const { io, events, ask } = await withTerminal();
      h!.api.script([overloadAfter("The answer is forty", "600"), textTurn("The answer is forty-two.")]);
      await ask("what is the answer?", /forty-two/);
      // A live view of the streamed text, built from the events as a client of /events would.
      let live = "";
      for (const e of events) {
        if (e.type === "model.text") live += e.text;
        if (e.type === "model.text.discarded") live = "";
      }
      expect(live).toBe("The answer is forty-two.");
      expect(events.filter((e) => e.type === "model.text.discarded")).toHaveLength(1);
      expect(events.find((e) => e.type === "model.retrying")).toMatchObject({
        seconds: 1,
        reason: "Anthropic is overloaded",
      });
      expect(io.text.match(/The answer is forty/g)).toHaveLength(1);
      expect(io.text).toContain("(waiting 1 s before retrying: Anthropic is overloaded)");
      const [first, second] = h!.api.messageRequests();
      expect(second!.body).toEqual(first!.body);
    },
    E2E_TIMEOUT,
  );

  test(
    "an overload in the middle of a tool call: nothing ran from the cut message, the retried call runs once",
    async () => {
      const { ask } = await withTerminal();
      h!.api.script([
        {
          error: {
            ...fakeAnthropicErrors.overloaded({
              midStream: true,
              partialText: "Let me add that reminder.",
              // Cut off inside the call's code: a prefix that would still run if anything ran it.
              partialToolUse: { id: "toolu_0", name: "execute", partialJson: '{"code":"await tools.mail.send({' },
            }).error,
            headers: { "retry-after-ms": "30" },
          },
        },
        exec("toolu_1"),
        textTurn("You have one reminder: water plants."),
      ]);
      const answer = await ask("my reminders?", /water plants[\s\S]*?\[r_\d+\]/);
      expect(answer).toMatch(/✅ reminders\.list succeeded \[r_\d+\]/);
      expect(h!.calls).toEqual(["reminders.list"]);
      expect(JSON.stringify(h!.api.messageRequests().map((r) => r.body))).not.toContain("toolu_0");
    },
    E2E_TIMEOUT,
  );

  test(
    "overloaded on every attempt: a bounded number of tries, and the user is told it gave up",
    async () => {
      const { ask } = await withTerminal();
      h!.api.script([overloadAfter("Par"), overloadAfter("Part"), overloadAfter("Parti")]);
      const answer = await ask("hello?", /gave up after 3 attempts/);
      expect(answer).toContain("Anthropic is overloaded");
      expect(h!.api.messageRequests()).toHaveLength(3);
      expect(h!.api.remaining()).toBe(0);
    },
    E2E_TIMEOUT,
  );
});

describe("a conversation that outgrows the context window is compacted, and the model still answers", () => {
  /** Three earlier turns: one that ran a tool (receipts), then long messages that fill the window. */
  async function longConversation(ask: (line: string, answer: RegExp) => Promise<string>) {
    h!.api.script([exec("toolu_0"), textTurn("You have one reminder: water plants.")]);
    await ask("what are my reminders?", /water plants/);
    for (const n of [1, 2, 3]) {
      h!.api.script([textTurn(`Noted part ${n}.`)]);
      await ask(`part ${n}: ${"lorem ipsum dolor sit amet ".repeat(300)}`, new RegExp(`Noted part ${n}\\.`));
    }
    return promptTokens(lastBody());
  }

  const expectCompactedRequest = (body: Body) => {
    const first = JSON.stringify(body.messages[0]);
    expect(first).toContain("Earlier conversation compacted");
    // The receipts-backed activity of the dropped turn survives, so the model still knows what ran.
    expect(first).toMatch(/✅ reminders\.list succeeded \[r_\d+\]/);
    expect(JSON.stringify(body.messages)).not.toContain("part 1:");
  };

  test(
    "a 400 'prompt is too long' (window unknown to the gateway): oldest turns dropped, activity kept, answer in the same turn",
    async () => {
      const { ask } = await withTerminal();
      const size = await longConversation(ask);
      // The API's window is now smaller than the conversation plus one more long message.
      h!.api.setContextWindow(size);
      h!.api.script([textTurn("Part four noted; you still have one reminder.")]);
      const answer = await ask(`part 4: ${"lorem ipsum dolor sit amet ".repeat(300)}`, /compacted/);
      expect(answer).toContain("Part four noted; you still have one reminder.");
      expect(answer).toContain("The conversation outgrew the model's context window, so it was compacted");
      expectCompactedRequest(lastBody());
      expect(promptTokens(lastBody())).toBeLessThanOrEqual(size);
      const events = await h!.gateway.sessions.turnEvents({ type: "history.compacted" });
      expect(events.at(-1)?.data).toMatchObject({ reason: "prompt_too_long" });
    },
    E2E_TIMEOUT,
  );

  test(
    "a request the gateway estimates would not fit is compacted before it is sent (the API never rejects it)",
    async () => {
      const probe = await startHarness();
      probe.api.script([textTurn("ok")]);
      await probe.gateway.handleMessage({ sessionKey: "p", surface: "terminal", text: "hi" });
      const base = promptTokens(probe.api.messageRequests()[0]!.body);
      await probe.close();
      // Room for the fixed prompt, one long message and the answer's max_tokens, but not three.
      const window = base + 1024 + 5_000;
      const io = await withTerminal({ settings: { turn: { contextWindowTokens: window } as never } });
      h!.api.setContextWindow(window);
      await longConversation(io.ask);
      h!.api.script([textTurn("Part four noted.")]);
      const answer = await io.ask(`part 4: ${"lorem ipsum dolor sit amet ".repeat(300)}`, /compacted/);
      expect(answer).toContain("Part four noted.");
      expectCompactedRequest(lastBody());
      // Every request fit: each was answered by a scripted turn, none rejected for its length.
      expect(h!.api.messageRequests()).toHaveLength(6);
    },
    E2E_TIMEOUT,
  );

  test(
    "model_context_window_exceeded in a tool loop: the cut-off tool call never runs, the loop is folded, the model answers",
    async () => {
      const { ask } = await withTerminal();
      h!.api.script([
        exec("toolu_1"),
        // Cut off by the full window while writing its next tool call.
        exec("toolu_2", "await tools.reminders.create({ text: 'x', at: 'y' }); return 1", {
          stop_reason: "model_context_window_exceeded",
        }),
        textTurn("One reminder: water plants."),
      ]);
      const answer = await ask("check my reminders", /water plants[\s\S]*?compacted[\s\S]*?\[r_\d+\]/);
      expect(answer).toContain("compacted");
      // The cut-off call never ran (no approval was asked, no create receipt); the first ran once.
      expect(h!.calls).toEqual(["reminders.list"]);
      const body = lastBody();
      const sent = JSON.stringify(body.messages);
      expect(sent).not.toContain("toolu_2");
      // This turn's loop is given as text: what ran (receipts) and that it must not be repeated.
      expect(sent).toContain("already ran; do not repeat them");
      expect(sent).toMatch(/✅ reminders\.list succeeded/);
      // tool_use / tool_result pairing and thinking rules: the fake would have rejected the request
      // (harness close fails on any violation).
      expect(h!.api.violations).toEqual([]);
    },
    E2E_TIMEOUT,
  );
});
