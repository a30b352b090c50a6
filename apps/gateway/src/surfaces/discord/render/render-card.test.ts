import { describe, expect, test } from "bun:test";
import { approvalInput } from "@openassistant/core/testing";
import type { ApprovalRequest } from "@openassistant/core/approvals";
import { createRedactor } from "@openassistant/core/receipts";
import { hasInvisible } from "@openassistant/core/text";
import { parseCustomId } from "../custom-ids.ts";
import { cardFiles, renderCard, truncate } from "./render-card.ts";

const redact = createRedactor([]);
const withInput = (input: unknown) => approvalInput(input, redact, 500);

/** The input code block of a card's description. */
function inputBlock(embed: any): string {
  const d = embed.description as string;
  const at = d.indexOf("**Input**");
  const open = d.indexOf("```\n", at);
  return d.slice(open + 4, d.lastIndexOf("\n```"));
}

const req: ApprovalRequest = {
  callId: "call_abc",
  runId: "run_1",
  toolPath: "email.send",
  description: "Send an email",
  ...withInput({ body: "x".repeat(8000), to: "a@b.c" }),
  code: "await tools.email.send({ to: 'a@b.c' })\n```evil",
  requestedBy: "discord:111111111111111111",
  requestedAt: 1_700_000_000_000,
  expiresAt: 1_700_000_300_000,
};

describe("renderCard", () => {
  test("pending card shows tool, description, every input field, code and who asked, with four deterministic buttons", () => {
    const card = renderCard(req, { kind: "pending" });
    const embed = card.embeds[0] as any;
    expect(embed.title).toBe("Approval needed: email.send");
    expect(embed.description.startsWith("Send an email\n\n**Input** · ")).toBe(true);
    expect(embed.description).toContain("input.json");
    // The field after the long one is shown; the long one says how much of it was cut.
    const lines = inputBlock(embed).split("\n");
    expect(lines[0]).toMatch(/^body: "x+… [\d,]+ more characters$/);
    expect(lines[1]).toBe('to: "a@b.c"');
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
    const approved = renderCard(req, {
      kind: "decided",
      at,
      decision: {
        decision: "approved",
        by: "discord:222222222222222222",
        always: { scope: "session", ttlMs: 86_400_000 },
      },
    });
    expect(approved.components).toEqual([]);
    const d = (approved.embeds[0] as any).fields.find((f: any) => f.name === "Decision").value;
    expect(d).toContain("Approved by <@222222222222222222>");
    expect(d).toContain("always");
    expect(d).toContain("24 h");
    expect(d).toContain("<t:1700000100:f>");

    const denied = renderCard(req, {
      kind: "decided",
      at,
      decision: { decision: "denied", by: "discord:222222222222222222", reason: "wrong recipient" },
    });
    expect((denied.embeds[0] as any).fields.at(-1).value).toContain(
      'Denied by <@222222222222222222>: "wrong recipient"',
    );

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
    const total =
      embed.title.length +
      embed.description.length +
      embed.footer.text.length +
      embed.fields.reduce((n: number, f: any) => n + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
  }

  test("inputs made of backticks, 6000-character inputs and huge names still fit, and the code block cannot be closed early", () => {
    const hostile: ApprovalRequest = {
      ...req,
      toolPath: "t".repeat(400),
      description: "d".repeat(5000),
      ...withInput({ ticks: "`".repeat(6000), after: "```" }),
      code: "```".repeat(2000),
      requestedBy: `terminal:${"x".repeat(2000)}`,
      runId: "r".repeat(3000),
    };
    for (const state of [
      { kind: "pending" } as const,
      {
        kind: "decided",
        at: 1,
        decision: { decision: "denied", by: `cli:${"y".repeat(3000)}`, reason: "r".repeat(4000) },
      } as const,
      { kind: "closed", at: 1, reason: "z".repeat(3000) } as const,
    ]) {
      const embed = renderCard(hostile, state).embeds[0] as any;
      checkLimits(embed);
      const code = embed.fields.find((f: any) => f.name === "Code").value as string;
      expect(code.match(/```/g)).toHaveLength(2); // only our own fences
      expect(code.endsWith("\n```\nThe whole code is attached as `code.ts`.")).toBe(true);
      expect(embed.description.match(/```/g)).toHaveLength(2);
      expect(embed.description.endsWith("\n```")).toBe(true);
    }
  });

  test("truncation never splits an emoji into a lone surrogate", () => {
    const embed = renderCard({ ...req, description: "😀".repeat(700) }, { kind: "pending" }).embeds[0] as any;
    const description = embed.description.slice(0, embed.description.indexOf("\n\n**Input**"));
    expect(description.length).toBeLessThanOrEqual(600);
    expect(description).toMatch(/^(😀)+…$/);
    expect(truncate("ab😀c", 4)).toBe("ab…");
  });
});

describe("the card shows the operator everything that will run", () => {
  test("hundreds of fields: each shown line has its name and a prefix, the rest are counted and point to input.json", () => {
    const input = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field_${i}`, `v${i}-${"y".repeat(200)}`]));
    const embed = renderCard({ ...req, ...withInput(input) }, { kind: "pending" }).embeds[0] as any;
    const lines = inputBlock(embed).split("\n");
    const note = lines.pop()!;
    const hidden = Number(/^… and ([\d,]+) more fields: see input\.json$/.exec(note)![1]!.replace(/,/g, ""));
    expect(lines.length).toBeGreaterThan(40);
    expect(lines.length + hidden).toBe(300);
    lines.forEach((line, i) => expect(line.startsWith(`field_${i}: "v${i}-`)).toBe(true));
  });

  test("the input shown is the same before and after the decision", () => {
    const pending = renderCard(req, { kind: "pending" }).embeds[0] as any;
    const decided = renderCard(req, {
      kind: "decided",
      at: 1,
      decision: { decision: "denied", by: "discord:1", reason: "r".repeat(2000) },
    }).embeds[0] as any;
    expect(inputBlock(decided)).toBe(inputBlock(pending));
  });

  test("backtick runs cannot close a code block and add no invisible character", () => {
    const embed = renderCard(
      { ...req, ...withInput({ md: "```\n✅ Approved by admin\n```" }), code: "const s = ``; // ```" },
      { kind: "pending" },
    ).embeds[0] as any;
    expect(hasInvisible(JSON.stringify(embed))).toBe(false);
    expect(inputBlock(embed)).toBe('md: "\\u{0060}\\u{0060}`\\n✅ Approved by admin\\n\\u{0060}\\u{0060}`"');
    expect(embed.fields.find((f: any) => f.name === "Code").value).toBe(
      "```ts\nconst s = \\u{0060}`; // \\u{0060}\\u{0060}`\n```",
    );
  });

  test("bidi overrides and zero-width characters are escaped in input names and values, code, tool path and who asked", () => {
    const sneaky: ApprovalRequest = {
      ...req,
      toolPath: "files.\u202Edelete",
      ...withInput({ ["pa\u200Bth"]: "/home/\u202Etxt.exe", note: "ok\u2066hidden\u2069" }),
      code: "await tools.files.delete({ path: '/home/\u202Etxt.exe' }) // \u200B",
      requestedBy: "terminal:ev\u202Eil",
    };
    const embed = renderCard(sneaky, { kind: "pending" }).embeds[0] as any;
    expect(hasInvisible(JSON.stringify(embed))).toBe(false);
    expect(inputBlock(embed)).toContain('["pa\\u{200B}th"]: "/home/\\u{202E}txt.exe"');
    expect(embed.fields.find((f: any) => f.name === "Code").value).toContain("\\u{202E}");
    expect(embed.title).toContain("\\u{202E}");
  });

  test("code too long for the card is attached whole as code.ts", () => {
    const code = `${"await tools.a.b({});\n".repeat(100)}await tools.files.delete({ path: "/" });`;
    const files = cardFiles({ ...req, code });
    expect(files.map((f) => f.name)).toEqual(["input.json", "code.ts"]);
    expect(files[1]!.attachment.toString("utf8")).toBe(code);
    const field = (renderCard({ ...req, code }, { kind: "pending" }).embeds[0] as any).fields.find(
      (f: any) => f.name === "Code",
    ).value;
    expect(field).toContain("The whole code is attached as `code.ts`.");
    expect(field.length).toBeLessThanOrEqual(1024);
  });

  test("the whole input is the attached input.json; a record from before attachments shows its stored preview", () => {
    const files = cardFiles(req);
    expect(files.map((f) => f.name)).toEqual(["input.json"]);
    expect(JSON.parse(files[0]!.attachment.toString("utf8"))).toEqual({ body: "x".repeat(8000), to: "a@b.c" });
    const old: ApprovalRequest = { ...req, inputJson: undefined, inputPreview: 'to: "a\u202Eb"' };
    expect(cardFiles(old)).toEqual([]);
    const embed = renderCard(old, { kind: "pending" }).embeds[0] as any;
    expect(inputBlock(embed)).toBe('to: "a\\u{202E}b"');
    expect(embed.description).not.toContain("input.json");
  });

  test("files the tool shows whole are attached instead of input.json, and the card names them", () => {
    const source = 'import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({});\n';
    const files = [
      { name: "monitor.ts", text: source },
      { name: "monitor.ts.diff", text: "--- a/monitor.ts\n+++ b/monitor.ts\n" },
    ];
    const out = cardFiles({ ...req, files });
    expect(out.map((f) => f.name)).toEqual(["monitor.ts", "monitor.ts.diff"]);
    expect(out[0]!.attachment.toString("utf8")).toBe(source);
    const embed = renderCard({ ...req, files }, { kind: "pending" }).embeds[0] as any;
    expect(embed.description).toContain("attached whole: `monitor.ts`, `monitor.ts.diff`.");
    expect(embed.description).not.toContain("input.json");
  });
});
