import { describe, expect, test } from "bun:test";
import type { ApprovalRequest } from "@openassistant/core/approvals/types.ts";
import { parseCustomId } from "./custom-ids.ts";
import { renderCard, truncate } from "./render-card.ts";

const req: ApprovalRequest = {
  callId: "call_abc",
  runId: "run_1",
  toolPath: "email.send",
  description: "Send an email",
  inputPreview: JSON.stringify({ to: "a@b.c", body: "x".repeat(3000) }),
  code: "await tools.email.send({ to: 'a@b.c' })\n```evil",
  requestedBy: "discord:111111111111111111",
  requestedAt: 1_700_000_000_000,
  expiresAt: 1_700_000_300_000,
};

describe("renderCard", () => {
  test("pending card shows tool, description, truncated input, code and who asked, with four deterministic buttons", () => {
    const card = renderCard(req, { kind: "pending" });
    const embed = card.embeds[0] as any;
    expect(embed.title).toBe("Approval needed: email.send");
    expect(embed.description).toBe("Send an email");
    const input = embed.fields.find((f: any) => f.name === "Input").value as string;
    expect(input.length).toBeLessThanOrEqual(1024);
    expect(input.startsWith("```json\n")).toBe(true);
    const code = embed.fields.find((f: any) => f.name === "Code").value as string;
    expect(code.startsWith("```ts\n")).toBe(true);
    expect(code.match(/```/g)!.length).toBe(2); // user's fence neutralized
    expect(embed.fields.find((f: any) => f.name === "Asked by").value).toBe("<@111111111111111111>");
    const ids = (card.components[0] as any).components.map((b: any) => b.custom_id);
    expect(ids).toEqual(["oa:approve:call_abc", "oa:always:call_abc", "oa:deny:call_abc", "oa:denyr:call_abc"]);
    for (const id of ids) expect(parseCustomId(id)).toMatchObject({ kind: "card", callId: "call_abc" });
  });

  test("decided cards say who decided what and lose their buttons", () => {
    const at = 1_700_000_100_000;
    const approved = renderCard(req, { kind: "decided", at, decision: { decision: "approved", by: "discord:222222222222222222", always: { scope: "session", ttlMs: 86_400_000 } } });
    expect(approved.components).toEqual([]);
    const d = (approved.embeds[0] as any).fields.find((f: any) => f.name === "Decision").value;
    expect(d).toContain("Approved by <@222222222222222222>");
    expect(d).toContain("always");
    expect(d).toContain("24 h");
    expect(d).toContain("<t:1700000100:f>");

    const denied = renderCard(req, { kind: "decided", at, decision: { decision: "denied", by: "discord:222222222222222222", reason: "wrong recipient" } });
    expect((denied.embeds[0] as any).fields.at(-1).value).toContain('Denied by <@222222222222222222>: "wrong recipient"');

    const expired = renderCard(req, { kind: "decided", at, decision: { decision: "denied", by: "timeout" } });
    expect((expired.embeds[0] as any).fields.at(-1).value).toContain("Expired");

    const closed = renderCard(req, { kind: "closed", at, reason: "the gateway restarted" });
    expect((closed.embeds[0] as any).fields.at(-1).value).toContain("Closed: the gateway restarted");
    expect(closed.components).toEqual([]);
  });
});

describe("parseCustomId", () => {
  test("accepts only our ids", () => {
    expect(parseCustomId("oa:denyr:c1")).toEqual({ kind: "card", action: "denyr", callId: "c1" });
    expect(parseCustomId("oa:denym:c1")).toEqual({ kind: "deny-modal", callId: "c1" });
    expect(parseCustomId("oa:nuke:c1")).toBeNull();
    expect(parseCustomId("other:approve:c1")).toBeNull();
    expect(parseCustomId("oa:approve:")).toBeNull();
  });
});

describe("renderCard against Discord's embed limits", () => {
  /** Discord's limits: title 256, description 4096, field value 1024, footer 2048, whole embed 6000. */
  function checkLimits(embed: any): void {
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(embed.fields.length).toBeLessThanOrEqual(25);
    for (const f of embed.fields) {
      expect(f.name.length).toBeLessThanOrEqual(256);
      expect(f.value.length).toBeLessThanOrEqual(1024);
      expect(f.value.length).toBeGreaterThan(0);
    }
    expect(embed.footer.text.length).toBeLessThanOrEqual(2048);
    const total = embed.title.length + embed.description.length + embed.footer.text.length + embed.fields.reduce((n: number, f: any) => n + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
  }

  test("inputs made of backticks, 6000-character inputs and huge names still fit, and the code block cannot be closed early", () => {
    const hostile: ApprovalRequest = {
      ...req,
      toolPath: "t".repeat(400),
      description: "d".repeat(5000),
      inputPreview: "`".repeat(6000),
      code: "```".repeat(2000),
      requestedBy: `terminal:${"x".repeat(2000)}`,
      runId: "r".repeat(3000),
    };
    for (const state of [
      { kind: "pending" } as const,
      { kind: "decided", at: 1, decision: { decision: "denied", by: `cli:${"y".repeat(3000)}`, reason: "r".repeat(4000) } } as const,
      { kind: "closed", at: 1, reason: "z".repeat(3000) } as const,
    ]) {
      const embed = renderCard(hostile, state).embeds[0] as any;
      checkLimits(embed);
      for (const name of ["Input", "Code"]) {
        const value = embed.fields.find((f: any) => f.name === name).value as string;
        expect(value.match(/```/g)).toHaveLength(2); // only our own fences
        expect(value.endsWith("\n```")).toBe(true);
      }
    }
  });

  test("truncation never splits an emoji into a lone surrogate", () => {
    const embed = renderCard({ ...req, description: "😀".repeat(700) }, { kind: "pending" }).embeds[0] as any;
    expect(embed.description.length).toBeLessThanOrEqual(600);
    expect(embed.description).toMatch(/^(😀)+…$/);
    expect(truncate("ab😀c", 4)).toBe("ab…");
  });
});
