import { describe, expect, test } from "bun:test";
import { isApproveText, parseApproveText, stripBotMention, threadNameFrom } from "./text-commands.ts";

describe("approve text fallback", () => {
  test("parses approve and deny with a reason", () => {
    expect(isApproveText("/approve c1 approve")).toBe(true);
    expect(isApproveText("please approve")).toBe(false);
    expect(parseApproveText("/approve c1 approve")).toEqual({ ok: true, callId: "c1", decision: "approved" });
    expect(parseApproveText("/approve c1 deny not today\nthanks")).toEqual({
      ok: true,
      callId: "c1",
      decision: "denied",
      reason: "not today\nthanks",
    });
  });
  test("explains bad input", () => {
    const r = parseApproveText("/approve c1 maybe");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain("approve or deny");
    expect(parseApproveText("/approve").ok).toBe(false);
  });
});

describe("thread names and mentions", () => {
  test("named from the first meaningful line", () => {
    expect(threadNameFrom("<@123> send the weekly report\nmore")).toBe("send the weekly report");
    expect(threadNameFrom("<@123>")).toBe("Conversation");
    expect(threadNameFrom("x".repeat(200)).length).toBe(100);
    // A family emoji (ZWJ sequence, 11 UTF-16 units) is never cut in half at Discord's 100-unit limit.
    const name = threadNameFrom("👨‍👩‍👧‍👦".repeat(20));
    expect(name.length).toBeLessThanOrEqual(100);
    expect(name.replace(/…$/, "").replaceAll("👨‍👩‍👧‍👦", "")).toBe("");
  });
  test("strips only the bot's mention", () => {
    expect(stripBotMention("<@42> hi <@!42> <@7>", "42")).toBe("hi  <@7>");
  });
});
