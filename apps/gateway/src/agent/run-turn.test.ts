import { describe, expect, test } from "bun:test";
import type { ContentBlock, Message, StopReason } from "@anthropic-ai/sdk/resources/messages/messages";
import { DEFAULT_TURN_SETTINGS } from "./settings.ts";
import { finishTurn, handleToolUses, readResponse, startTurn, type TurnDeps } from "./run-turn.ts";
import { startTurnClock } from "./turn-clock.ts";

// The turn's steps on their own (no model, no sandbox): what each documented stop reason leads to,
// and what is stored. End-to-end behaviour against the strict fake is in ../anthropic-contract.test.ts.

const unused = (what: string) => () => {
  throw new Error(`${what} is not used by this step`);
};
const deps: TurnDeps = {
  model: { streamMessage: unused("the model") },
  runner: { runPromise: unused("the runner"), prepare: unused("the runner") },
  receipts: { byRuns: async () => [] },
  typechecker: { check: unused("the typechecker") },
  tools: () => ({ tree: {}, declarations: "" }),
  settings: { ...DEFAULT_TURN_SETTINGS, model: "claude-sonnet-5-5" },
};

async function state() {
  const clock = startTurnClock(60_000, () => {});
  clock.stop();
  return startTurn({ id: "ses_1", history: [] }, "hello", deps, {
    turnId: "turn_1",
    signal: new AbortController().signal,
    clock,
    emit: () => {},
    stopReasonFor: () => "aborted",
  });
}

const thinking = { type: "thinking", thinking: "", signature: "sig-1" } as ContentBlock;
const message = (stop: StopReason, content: ContentBlock[]): Message =>
  ({
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-5-5",
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: {},
  }) as unknown as Message;
const text = (t: string) => ({ type: "text", text: t, citations: null }) as ContentBlock;
const use = { type: "tool_use", id: "toolu_1", name: "execute", input: { code: "return 1" } } as ContentBlock;

describe("readResponse: every stop reason on purpose", () => {
  test("end_turn / stop_sequence answer; the thinking block is stored with the answer", async () => {
    for (const stop of ["end_turn", "stop_sequence"] as const) {
      const s = await state();
      expect(await readResponse(s, message(stop, [thinking, text("Hi!")]), false)).toEqual({
        kind: "finish",
        stopReason: "answered",
        text: "Hi!",
      });
      expect(s.added.at(-1)).toEqual({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "", signature: "sig-1" },
          { type: "text", text: "Hi!" },
        ],
      });
    }
  });

  test("tool_use, and pause_turn with a tool call, go to the tools step", async () => {
    expect((await readResponse(await state(), message("tool_use", [thinking, use]), false)).kind).toBe("tools");
    expect((await readResponse(await state(), message("pause_turn", [use]), false)).kind).toBe("tools");
  });

  test("pause_turn without tools: the paused turn is kept and the model asked to continue", async () => {
    const s = await state();
    expect(await readResponse(s, message("pause_turn", [text("Part one")]), false)).toEqual({ kind: "request" });
    expect(s.added.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  test("refusal: the partial text is not stored", async () => {
    const s = await state();
    expect(await readResponse(s, message("refusal", [text("Here is how")]), false)).toMatchObject({
      kind: "finish",
      stopReason: "refused",
      text: expect.stringContaining("declined"),
    });
    expect(JSON.stringify(s.added)).not.toContain("Here is how");
  });

  test("max_tokens and model_context_window_exceeded without tools (nothing left to compact): the text with a note", async () => {
    const cut = await readResponse(await state(), message("max_tokens", [text("Long")]), false);
    expect(cut).toMatchObject({
      kind: "finish",
      stopReason: "answered",
      text: expect.stringContaining("response token limit"),
    });
    // Cut off by a full window: compacted and asked again, nothing of the cut-off reply kept.
    const s = await state();
    expect(await readResponse(s, message("model_context_window_exceeded", [text("Long")]), false)).toEqual({
      kind: "request",
    });
    expect(s.compactions).toBe(1);
    expect(JSON.stringify(s.added)).not.toContain("Long");
    // Once nothing more may be compacted, the cut-off text stands, with a note.
    s.compactions = 3;
    const full = await readResponse(s, message("model_context_window_exceeded", [text("Long")]), false);
    expect(full).toMatchObject({
      kind: "finish",
      stopReason: "context_full",
      text: expect.stringContaining("context window"),
    });
  });
});

describe("handleToolUses", () => {
  test("a cut-off tool call (context window, nothing left to compact) is never run: an error result, then the turn ends", async () => {
    const s = await state();
    s.compactions = 3;
    const step = await handleToolUses(s, message("model_context_window_exceeded", [thinking, use]), false);
    expect(step).toEqual({ kind: "finish", stopReason: "context_full" });
    // The assistant turn is kept whole (thinking included); its tool_use has an is_error result.
    expect(s.added[1]!.content.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    expect(s.added[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1", is_error: true });
    const outcome = await finishTurn(s, step as never, []);
    expect(outcome.messages.at(-1)!.role).toBe("assistant");
    expect(outcome.text).toContain("context window");
  });

  test("on the final round tool calls are dropped and the turn stops with max_rounds", async () => {
    const s = await state();
    const step = await handleToolUses(s, message("tool_use", [thinking, text("Let me check"), use]), true);
    expect(step).toMatchObject({ kind: "finish", stopReason: "max_rounds", text: "Let me check" });
    expect(s.added.at(-1)!.content.map((b) => b.type)).toEqual(["thinking", "text"]);
  });
});
