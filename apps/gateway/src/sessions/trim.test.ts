import { describe, expect, test } from "bun:test";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { trimHistory } from "./trim.ts";

const user = (text: string): MessageParam => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): MessageParam => ({ role: "assistant", content: [{ type: "text", text }] });
const toolUse = (id: string): MessageParam => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "execute", input: { code: "x".repeat(400) } }],
});
const toolResult = (id: string): MessageParam => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "y".repeat(400) }],
});

describe("trimHistory", () => {
  test("keeps everything within budget", () => {
    const h = [user("a"), assistant("b"), user("c")];
    expect(trimHistory(h, { maxTokens: 10_000, maxMessages: 100 })).toEqual({ messages: h, omitted: 0 });
  });

  test("never starts on a tool_result (tool_use/tool_result pairs stay together) and adds a note", () => {
    const h = [
      user("first"),
      toolUse("t1"),
      toolResult("t1"),
      assistant("done"),
      user("second"),
      toolUse("t2"),
      toolResult("t2"),
      assistant("ok"),
      user("now"),
    ];
    // Budget fits roughly the last 4 messages; the cut at toolResult("t2") must move forward.
    const out = trimHistory(h, { maxTokens: 160, maxMessages: 100 });
    expect(out.messages[0]!.role).toBe("user");
    const firstBlocks = out.messages[0]!.content as Array<{ type: string; text?: string }>;
    expect(firstBlocks[0]!.text).toContain("Earlier conversation omitted");
    expect(firstBlocks.some((b) => b.type === "tool_result")).toBe(false);
    for (let i = 0; i < out.messages.length; i++) {
      const blocks = out.messages[i]!.content as Array<{ type: string; tool_use_id?: string; id?: string }>;
      for (const b of blocks.filter((b) => b.type === "tool_result")) {
        const prev = out.messages[i - 1]!.content as Array<{ type: string; id?: string }>;
        expect(prev.some((p) => p.type === "tool_use" && p.id === b.tool_use_id)).toBe(true);
      }
    }
    expect(out.omitted).toBe(h.length - out.messages.length);
  });

  test("the newest message is always kept; maxMessages bounds the count", () => {
    const h = [user("a"), assistant("b"), user("c"), assistant("d"), user("x".repeat(10_000))];
    const out = trimHistory(h, { maxTokens: 10, maxMessages: 100 });
    expect(out.messages).toHaveLength(1);
    expect(out.omitted).toBe(4);
    expect(trimHistory(h, { maxTokens: 100_000, maxMessages: 3 }).messages).toHaveLength(3);
  });
});
