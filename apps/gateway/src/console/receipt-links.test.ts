import { describe, expect, test } from "bun:test";
import type { ActivitySummary } from "@openassistant/core/receipts";
import { renderActivity } from "../surfaces/discord/render/render-summary.ts";
import { formatReceiptLinks } from "../surfaces/terminal/format.ts";

const summary: ActivitySummary = {
  runIds: ["run_1"],
  omittedReads: 0,
  items: [
    {
      toolId: "notes.read",
      callId: "call_1",
      runId: "run_1",
      status: "succeeded",
      lastPhase: "succeeded",
      approval: { mode: "auto", decision: "auto" },
      when: 1,
      receiptRef: "r_000003",
    },
  ],
};
const link = (runId: string, callId: string) => `https://console.example/console/runs/${runId}?t=x#call-${callId}`;

describe("receipt links in summaries", () => {
  test("Discord: each call's receipt id links to its console page; without the console the line is unchanged", () => {
    expect(renderActivity(summary, false, link)).toBe(
      "✅ `notes.read` · [`r_000003`](https://console.example/console/runs/run_1?t=x#call-call_1)",
    );
    expect(renderActivity(summary, false)).toBe("✅ `notes.read` · `r_000003`");
  });

  test("terminal: one link per call, control characters in tool ids escaped", () => {
    const text = formatReceiptLinks({ items: [{ ...summary.items[0]!, toolId: "notes.\u001b[2Jread" }] }, link);
    expect(text).toContain("https://console.example/console/runs/run_1?t=x#call-call_1");
    expect(text).not.toContain("\u001b");
  });
});
