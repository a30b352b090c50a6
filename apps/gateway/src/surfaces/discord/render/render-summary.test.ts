import { describe, expect, test } from "bun:test";
import type { ActivitySummary } from "@openassistant/core/receipts";
import { answerMessages } from "../chat/conversations.ts";
import { renderActivity, UNVERIFIED_MARK } from "./render-summary.ts";

const summary: ActivitySummary = {
  runIds: ["run_1"],
  omittedReads: 2,
  items: [
    {
      toolId: "notes.read",
      callId: "c1",
      runId: "run_1",
      status: "succeeded",
      lastPhase: "succeeded",
      approval: { mode: "auto", decision: "auto" },
      when: 1,
      receiptRef: "r_1",
    },
    {
      toolId: "notes.write",
      callId: "c2",
      runId: "run_1",
      status: "succeeded",
      lastPhase: "succeeded",
      approval: { mode: "required", decision: "approved", by: "discord:111111111111111111" },
      when: 2,
      receiptRef: "r_2",
    },
    {
      toolId: "notes.remove",
      callId: "c3",
      runId: "run_1",
      status: "denied",
      lastPhase: "denied",
      approval: { mode: "required", decision: "denied", by: "discord:111111111111111111" },
      reason: "keep it",
      when: 3,
      receiptRef: "r_3",
    },
    {
      toolId: "mail.send",
      callId: "c4",
      runId: "run_1",
      status: "failed",
      lastPhase: "failed",
      approval: { mode: "auto" },
      error: "SMTP refused",
      when: 4,
      receiptRef: "r_4",
    },
    {
      toolId: "x.y",
      callId: "c5",
      runId: "run_1",
      status: "pending",
      lastPhase: "requested",
      approval: { mode: "required" },
      when: 5,
      receiptRef: "r_5",
    },
  ],
};

describe("renderActivity", () => {
  test("one compact line per call with its icon and receipt id, then the unverified mark", () => {
    const text = renderActivity(summary, true);
    expect(text.split("\n")).toEqual([
      "✅ `notes.read` · `r_1`",
      "✅ `notes.write` (approved by <@111111111111111111>) · `r_2`",
      '⛔ `notes.remove` denied by <@111111111111111111>: "keep it" · `r_3`',
      "❌ `mail.send` failed: SMTP refused · `r_4`",
      "⏳ `x.y` waiting for approval · `r_5`",
      "_+2 successful reads not shown_",
      UNVERIFIED_MARK,
    ]);
  });
  test("nothing to show gives an empty string", () => {
    expect(renderActivity({ runIds: [], items: [], omittedReads: 0 }, false)).toBe("");
  });
});

describe("answerMessages", () => {
  test("model text goes in content, the activity in an embed on the last part (split across messages when long)", () => {
    expect(answerMessages("Hi", "✅ a")).toEqual([
      { content: "Hi", embeds: [{ title: "Activity", description: "✅ a", color: 0x80848e }] },
    ]);
    expect(answerMessages("Hi", "✅ a", true)[0]!.embeds![0]!.color).toBe(0xf0b232);
    const long = "x".repeat(1997);
    expect(answerMessages(long, "✅ a")).toEqual([
      { content: long, embeds: [{ title: "Activity", description: "✅ a", color: 0x80848e }] },
    ]);
    const activity = Array.from({ length: 100 }, (_, i) => `✅ \`tool.${i}\` · \`r_${"0".repeat(60)}${i}\``).join("\n");
    const parts = answerMessages("Hi", activity);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[0]!.content).toBe("Hi");
    for (const p of parts) {
      expect(p.embeds).toHaveLength(1);
      expect(p.embeds![0]!.description.length).toBeLessThanOrEqual(4096);
    }
    expect(parts.map((p) => p.embeds![0]!.description).join("\n")).toBe(activity);
    expect(parts.map((p) => p.embeds![0]!.title)).toEqual(["Activity", ...parts.slice(1).map(() => undefined)]);
  });

  test("links in the answer are sent in Discord's no-preview form", () => {
    expect(answerMessages("Done: https://example.com/x", "")).toEqual([{ content: "Done: <https://example.com/x>" }]);
  });

  test("an empty or whitespace-only answer becomes a visible placeholder (Discord rejects empty messages)", () => {
    expect(answerMessages("", "")).toEqual([{ content: "(no answer)" }]);
    expect(answerMessages("  \n\t ", "")).toEqual([{ content: "(no answer)" }]);
    expect(answerMessages(" ".repeat(5000), "✅ a")).toEqual([
      { content: "(no answer)", embeds: [{ title: "Activity", description: "✅ a", color: 0x80848e }] },
    ]);
  });
});
