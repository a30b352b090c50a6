import { describe, expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { Receipt } from "@openassistant/core/receipts";
import { fitHistory, type HistoryMessage } from "./compact.ts";

const user = (text: string): HistoryMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): HistoryMessage => ({ role: "assistant", content: [{ type: "text", text }] });
const toolUse = (id: string): HistoryMessage => ({
  role: "assistant",
  content: [
    { type: "thinking", thinking: "", signature: "sig" },
    { type: "tool_use", id, name: "execute", input: { code: "x".repeat(400) } },
  ],
});
const toolResult = (id: string, runId: string): HistoryMessage => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "y".repeat(400) }],
  runIds: [runId],
});
const ask: MessageParam = { role: "user", content: [{ type: "text", text: "and now?" }] };

/** A succeeded call's receipts, as the store returns them for its run. */
const receiptsOf = async (ids: readonly string[]): Promise<Receipt[]> =>
  ids.flatMap((runId, i) =>
    (["requested", "started", "succeeded"] as const).map(
      (phase, k) =>
        ({
          seq: i * 10 + k + 1,
          ref: `r_${String(i * 10 + k + 1).padStart(6, "0")}`,
          runId,
          callId: `call_${runId}`,
          toolPath: "reminders.list",
          phase,
          policy: "auto",
          approval: "auto",
          at: 1,
        }) as unknown as Receipt,
    ),
  );

describe("fitHistory", () => {
  const history = [
    user("first"),
    toolUse("t1"),
    toolResult("t1", "run_1"),
    assistant("done"),
    user("second"),
    assistant("ok"),
  ];

  test("within budget: everything kept, thinking of finished turns left out, no run ids sent", async () => {
    const fitted = await fitHistory(history, ask, { maxTokens: 100_000, maxMessages: 100, receiptsOf });
    expect(fitted.omitted).toBe(0);
    expect(fitted.messages).toHaveLength(7);
    const sent = JSON.stringify(fitted.messages);
    expect(sent).not.toContain("thinking");
    expect(sent).not.toContain("runIds");
  });

  test("over budget: the oldest turn goes whole, and its runs' activity from the receipts stays in a note", async () => {
    const fitted = await fitHistory(history, ask, { maxTokens: 60, maxMessages: 100, receiptsOf });
    expect(fitted.omitted).toBe(4);
    expect(fitted.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const note = (fitted.messages[0]!.content as Array<{ type: string; text: string }>)[0]!.text;
    expect(note).toContain("Earlier conversation compacted: 4 older message(s)");
    expect(note).toContain("reminders.list succeeded");
    expect(JSON.stringify(fitted.messages)).not.toContain("tool_use");
  });

  test("a damaged stored history (null content, stray blocks) still fits into a valid request", async () => {
    const damaged = [
      { role: "user", content: null },
      { role: "assistant", content: [null, 5, { type: "text", text: "kept" }] },
      { role: "user", content: { not: "blocks" } },
    ] as unknown as HistoryMessage[];
    const fitted = await fitHistory(damaged, ask, { maxTokens: 100_000, maxMessages: 100, receiptsOf });
    expect(fitted.messages.at(-1)).toEqual(ask);
    expect(JSON.stringify(fitted.messages)).toContain("kept");
  });
});
