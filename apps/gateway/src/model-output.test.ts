import { afterEach, describe, expect, test } from "bun:test";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import type { TurnSettings } from "./agent/settings.ts";
import { eventually } from "../test/discord-e2e.ts";
import { lastToolResult, startHarness, type Harness } from "../test/harness.ts";
import { requestViolations } from "../test/request-rules.ts";

// Unusual model output and usage, end to end (real SDK → fake Anthropic, real sandbox, real
// SQLite). Every request the gateway sends is checked against the Messages API's structural rules
// (the fake accepts anything; the real API answers 400).

let h: Harness | undefined;
afterEach(async () => {
  if (h)
    for (const r of h.api.messageRequests())
      expect({ violations: requestViolations(r.body) }).toEqual({ violations: [] });
  await h?.close();
  h = undefined;
});

const LIST = "return await tools.reminders.list({});";
const CREATE = 'return await tools.reminders.create({ text: "call mom", at: "9:00" });';
const turn = (t: Partial<TurnSettings>) => ({ turn: t as TurnSettings });
const blocksOf = (body: { messages: Array<{ content: unknown }> }, i: number) =>
  body.messages.at(i)!.content as Array<Record<string, unknown>>;

describe("unusual model output", () => {
  test("several tool_use blocks in one round: valid ones run, an unknown tool and a non-object input get is_error results", async () => {
    h = await startHarness();
    h.api.script([
      {
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_a", name: "execute", input: { code: LIST } },
          { type: "tool_use", id: "toolu_b", name: "search_web", input: { q: "x" } },
          { type: "tool_use", id: "toolu_c", name: "execute", input: "return 1" },
          { type: "tool_use", id: "toolu_d", name: "execute", input: { code: "return 2;" } },
        ],
      },
      textTurn("One reminder: water plants."),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "multi", surface: "terminal", text: "reminders?" });
    expect(outcome.text).toBe("One reminder: water plants.");
    expect(outcome.runIds).toHaveLength(2);
    const results = blocksOf(h.api.messageRequests()[1]!.body, -1);
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ["toolu_a", false],
      ["toolu_b", true],
      ["toolu_c", true],
      ["toolu_d", false],
    ]);
    expect(String(results[1]!.content)).toContain('Unknown tool "search_web"');
    expect(String(results[2]!.content)).toContain("expected an object");
    expect(String(results[3]!.content)).toContain("Relevant tool activity this turn");
    expect(h.calls).toEqual(["reminders.list"]);
  });

  test("an empty content array ends the turn with a clear text and a well-formed history", async () => {
    h = await startHarness();
    h.api.script([{ content: [] }, textTurn("hello again")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "empty", surface: "terminal", text: "hi" });
    expect(outcome.stopReason).toBe("answered");
    expect(outcome.text).toContain("no text");
    await h.gateway.handleMessage({ sessionKey: "empty", surface: "terminal", text: "hi?" });
  });

  test("an empty text block before a tool_use is not sent back (the API rejects empty text blocks)", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn(
        { id: "toolu_1", name: "execute", input: { code: LIST } },
        {
          content: [
            { type: "text", text: "" },
            { type: "tool_use", id: "toolu_1", name: "execute", input: { code: LIST } },
          ],
        },
      ),
      textTurn("done"),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "emptytext", surface: "terminal", text: "list" });
    expect(outcome.text).toBe("done");
    expect(
      blocksOf(h.api.messageRequests()[1]!.body, -2)
        .map((b) => b.type)
        .filter((t) => t !== "thinking"),
    ).toEqual(["tool_use"]);
  });

  test("a whitespace-only answer still leaves a valid history for the next turn", async () => {
    h = await startHarness();
    h.api.script([textTurn("  \n "), textTurn("ok")]);
    const first = await h.gateway.handleMessage({ sessionKey: "ws", surface: "terminal", text: "hi" });
    expect(first.text).toContain("no text");
    await h.gateway.handleMessage({ sessionKey: "ws", surface: "terminal", text: "again" });
  });

  test("stop_reason max_tokens in the middle of a tool_use: the cut-off code is not run", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: CREATE } }, { stop_reason: "max_tokens" }),
      (req) =>
        textTurn(lastToolResult(req.body).content.includes("cut off") ? "My code was cut off; nothing ran." : "??"),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "cut", surface: "terminal", text: "remind me" });
    expect(h.calls).toEqual([]);
    expect(outcome.runIds).toEqual([]);
    expect(outcome.text).toBe("My code was cut off; nothing ran.");
    expect(lastToolResult(h.api.messageRequests()[1]!.body).is_error).toBe(true);
  });

  test("a model error in the middle of the stream ends the turn cleanly", async () => {
    h = await startHarness();
    h.api.script([{ error: { status: 400, type: "invalid_request_error", message: "stream broke", midStream: true } }]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "mid", surface: "terminal", text: "hi" });
    expect(outcome.stopReason).toBe("model_error");
    h.api.script([textTurn("back")]);
    expect((await h.gateway.handleMessage({ sessionKey: "mid", surface: "terminal", text: "hi" })).text).toBe("back");
  });

  test("100 KB of code in one tool_use is typechecked, run and stored", async () => {
    h = await startHarness();
    const code = `const big = "${"x".repeat(100_000)}";\nconst xs: number[] = [];\n${"xs.push(big.length);\n".repeat(200)}return xs.length + ":" + big.length;`;
    expect(code.length).toBeGreaterThan(100_000);
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code } }),
      (req) => textTurn(lastToolResult(req.body).content.includes("200:100000") ? "ok" : "??"),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "big", surface: "terminal", text: "count" });
    expect(outcome.text).toBe("ok");
    expect(outcome.runIds).toHaveLength(1);
  });

  test("a model that never stops calling tools stops at maxRounds", async () => {
    h = await startHarness({ settings: turn({ maxRounds: 3 }) });
    h.api.script(
      [0, 1, 2].map((i) => toolUseTurn({ id: `toolu_${i}`, name: "execute", input: { code: "return 1;" } })),
    );
    const outcome = await h.gateway.handleMessage({ sessionKey: "loop", surface: "terminal", text: "go" });
    expect(outcome.stopReason).toBe("max_rounds");
    h.api.script([textTurn("fine")]);
    await h.gateway.handleMessage({ sessionKey: "loop", surface: "terminal", text: "go" });
  });

  test("unicode and a very long user message round-trip", async () => {
    h = await startHarness();
    const text = `héllo 👋🏽 ${"日本語".repeat(20_000)} \u2028 end`;
    h.api.script([(req) => textTurn(req.body.messages.at(-1).content[0].text === text ? "same 👍" : "different")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "uni", surface: "terminal", text });
    expect(outcome.text).toBe("same 👍");
  });
});

describe("a corrupt stored history", () => {
  test("a tool_use without its tool_result, orphan results, empty and unparsable rows: the next request is still valid", async () => {
    h = await startHarness();
    h.api.script([textTurn("first")]);
    await h.gateway.handleMessage({ sessionKey: "corrupt", surface: "terminal", text: "hi" });
    const session = await h.gateway.sessions.getOrCreate("corrupt", "terminal");
    const insert = h.gateway.db!.query(
      "INSERT INTO messages (session_id, seq, role, content, turn_id, run_ids, at) VALUES (?, ?, ?, ?, NULL, '[]', 0)",
    );
    const rows: Array<[string, string]> = [
      ["user", JSON.stringify([{ type: "text", text: "list them" }])],
      // The process died after the assistant's tool_use was stored, before its result.
      [
        "assistant",
        JSON.stringify([
          { type: "text", text: "Looking." },
          { type: "tool_use", id: "toolu_lost", name: "execute", input: { code: "return 1" } },
        ]),
      ],
      ["user", JSON.stringify([{ type: "tool_result", tool_use_id: "toolu_other", content: "orphan" }])],
      ["assistant", JSON.stringify([])],
      ["assistant", "{not json"],
      ["user", JSON.stringify([{ type: "text", text: "   " }])],
      ["assistant", JSON.stringify([{ type: "tool_use", id: "toolu_end", name: "execute", input: "return 2" }])],
    ];
    rows.forEach(([role, content], i) => insert.run(session.id, 100 + i, role, content));
    h.api.script([textTurn("still here")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "corrupt", surface: "terminal", text: "hello?" });
    expect(outcome.text).toBe("still here");
    const sent = h.api.messageRequests().at(-1)!.body.messages as Array<{
      role: string;
      content: Array<Record<string, unknown>>;
    }>;
    const lost = sent.flatMap((m) => m.content).find((b) => b.tool_use_id === "toolu_lost")!;
    expect(lost).toMatchObject({ type: "tool_result", is_error: true });
    expect(sent.at(-1)!.content.at(-1)).toMatchObject({ type: "text", text: "hello?" });
    // The stored rows are left as they were.
    expect((await h.gateway.sessions.history(session.id)).length).toBe(2 + rows.length - 1 + 2);
  });
});

describe("unusual usage", () => {
  test("two messages to one session at the same time run in order; the history stays consistent", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: LIST } }, { delayMs: 100 }),
      textTurn("first"),
      (req) => textTurn(`second after ${req.body.messages.length}`),
    ]);
    const [a, b] = await Promise.all([
      h.gateway.handleMessage({ sessionKey: "race", surface: "terminal", text: "one" }),
      h.gateway.handleMessage({ sessionKey: "race", surface: "terminal", text: "two" }),
    ]);
    expect(a.text).toBe("first");
    expect(b.text).toBe("second after 5");
    const history = await h.gateway.sessions.history((await h.gateway.sessions.getOrCreate("race", "terminal")).id);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
  });

  test("a message while the gateway shuts down is refused with the shutting-down error", async () => {
    h = await startHarness();
    // The model answers only after 1.5 s: the shutdown below always finds the first turn at the model.
    h.api.script([textTurn("slow", { delayMs: 1500 })]);
    const running = h.gateway.handleMessage({ sessionKey: "sd", surface: "terminal", text: "one" });
    // Handled at once: the queued turn is refused while the test still awaits the others (an unhandled
    // rejection in between fails the test).
    const queued = h.gateway.handleMessage({ sessionKey: "sd", surface: "terminal", text: "two" }).then(
      () => "answered",
      (e: Error) => e.message,
    );
    // Waits for the first turn to reach the model (not a guessed delay: a busy machine may take longer).
    const api = h.api;
    await eventually(() => api.messageRequests().length > 0, "the first turn's model request");
    const stopping = h.gateway.shutdown();
    await expect(h.gateway.handleMessage({ sessionKey: "sd", surface: "terminal", text: "three" })).rejects.toThrow(
      /shutting down/,
    );
    expect((await running).stopReason).toBe("aborted");
    expect(await queued).toMatch(/shutting down/);
    await stopping;
  });

  test("an empty or whitespace-only message does not poison the session", async () => {
    h = await startHarness();
    h.api.script([textTurn("first"), textTurn("second"), textTurn("third")]);
    const texts: string[] = [];
    for (const text of ["  \n\t ", "", "hello"])
      texts.push((await h.gateway.handleMessage({ sessionKey: "blank", surface: "discord", text })).text);
    expect(texts).toEqual(["first", "second", "third"]);
    // Blank messages reach the model as a visible placeholder (the API rejects empty text blocks).
    const userTexts = (i: number) =>
      (h!.api.messageRequests()[i]!.body.messages as Array<{ role: string; content: Array<{ text?: string }> }>)
        .filter((m) => m.role === "user")
        .map((m) => m.content.map((b) => b.text).join(""));
    expect(userTexts(2)).toEqual(["(The user sent an empty message.)", "(The user sent an empty message.)", "hello"]);
    const history = await h.gateway.sessions.history((await h.gateway.sessions.getOrCreate("blank", "discord")).id);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
  });
});
