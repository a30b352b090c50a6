/**
 * The two example hook plugins of docs/hooks.md (examples/hooks/), loaded as a project loads
 * them and driven through the call pipeline: the spending guard (clock injected through a file the
 * test writes) and the audit forwarder (posting to a webhook on 127.0.0.1).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ToolDefinition } from "@openassistant/sdk";
import type { ApprovalRequest } from "../approvals/types.ts";
import { createToolInvoker } from "../codemode/tool-invoker.ts";
import { openDatabase } from "../db/open.ts";
import { createHookSet } from "../hooks/set.ts";
import { createRedactor } from "../receipts/redact.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { tempProject } from "../../test/plugin-fixtures.ts";
import { loadTools } from "./index.ts";

const EXAMPLES = resolve(import.meta.dir, "../../../../examples/hooks");
const AUDIT_TOKEN = "audit-token-0123456789abcdef";

const posts: Array<{ body: Record<string, unknown>; authorization: string | null }> = [];
let posted: () => void = () => {};
const webhook = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (req) => {
    posts.push({
      body: (await req.json()) as Record<string, unknown>,
      authorization: req.headers.get("authorization"),
    });
    posted();
    return new Response("ok");
  },
});
afterAll(() => webhook.stop(true));

async function project() {
  const p = tempProject({
    // The spending guard with its clock read from now.txt, which each test writes.
    ".openassistant/tools/guard.ts": `
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { spendingGuard } from ${JSON.stringify(join(EXAMPLES, "spending-guard/index.ts"))};
export default spendingGuard(() => new Date(readFileSync(join(import.meta.dir, "now.txt"), "utf8")));
`,
    ".openassistant/tools/pay.ts": `
import { defineTool, z } from "@openassistant/sdk";
export const send = defineTool({
  description: "Send money", approval: "auto", args: z.object({ amount: z.number(), to: z.string() }),
  run: async ({ amount, to }) => ({ sent: amount, to }),
});
`,
    ".openassistant/config.json": JSON.stringify({
      plugins: [join(EXAMPLES, "audit-forwarder")],
      config: {
        guard: { limit: 100, officeHours: { timeZone: "Europe/Oslo", from: 9, to: 17 }, critical: true },
        audit_forwarder: { url: `http://127.0.0.1:${webhook.port}/audit`, token: AUDIT_TOKEN },
      },
    }),
  });
  const r = await loadTools({ ...p.opts, autoInstall: false, declarations: false });
  expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
  const receipts = createSqliteReceiptStore(openDatabase(":memory:"));
  const asked: ApprovalRequest[] = [];
  const invoker = createToolInvoker({
    runId: "run_ex",
    sessionId: "sess_ex",
    requestedBy: "ann",
    code: "",
    tools: indexToolTree(r.tree) as Map<string, ToolDefinition>,
    receipts,
    requestApproval: async (req) => (asked.push(req), { decision: "approved", by: "alice" }),
    policy: [],
    redact: createRedactor([]),
    approvalTimeoutMs: 60_000,
    toolTimeoutMs: 10_000,
    previewChars: 500,
    signal: new AbortController().signal,
    running: new Map(),
    hooks: createHookSet(r.hooks),
  });
  const at = (iso: string) => writeFileSync(join(p.ws, "tools", "now.txt"), iso);
  return { r, invoker, asked, receipts, at };
}

/** Waits until the webhook has `n` posts (a denied call's audit post does not hold the call). */
async function postsReach(n: number) {
  while (posts.length < n) await new Promise<void>((resolve) => (posted = resolve));
}

describe("example hook plugins (docs/hooks.md)", () => {
  test("both load from examples/hooks and register their hooks", async () => {
    const { r } = await project();
    expect(r.entries.find((e) => e.id === "guard")?.hooks).toEqual({ priority: 100, events: ["tool.before"] });
    expect(r.entries.find((e) => e.id === "audit_forwarder")?.hooks).toEqual({ priority: 0, events: ["tool.after"] });
  });

  test("in office hours a small amount goes through; the audit forwarder posts it with its token", async () => {
    const s = await project();
    s.at("2026-01-05T10:00:00Z"); // Monday 11:00 in Oslo
    posts.length = 0;
    const out = await s.invoker.invoke("pay.send", '{"amount":50,"to":"bob"}');
    expect(out).toEqual({ ok: true, json: '{"sent":50,"to":"bob"}' });
    expect(s.asked).toEqual([]);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.authorization).toBe(`Bearer ${AUDIT_TOKEN}`);
    expect(posts[0]!.body).toMatchObject({
      tool: "pay.send",
      status: "succeeded",
      runId: "run_ex",
      sessionId: "sess_ex",
      requestedBy: "ann",
    });
    // Neither the input nor the result leaves.
    expect(JSON.stringify(posts[0]!.body)).not.toContain("bob");
  });

  test("above the limit a person must approve, the card says which plugin asked and why", async () => {
    const s = await project();
    s.at("2026-01-07T12:30:00Z"); // Wednesday 13:30 in Oslo
    const out = await s.invoker.invoke("pay.send", '{"amount":500,"to":"bob"}');
    expect(out.ok).toBe(true);
    expect(s.asked.map((a) => a.summary)).toEqual([
      "required by plugin guard: Spending 500 is over the limit — pay.send spends 500, above the configured limit of 100.",
    ]);
  });

  test("outside office hours spending is denied by the plugin, and the denial is audited", async () => {
    const s = await project();
    s.at("2026-01-10T10:00:00Z"); // Saturday
    posts.length = 0;
    const out = await s.invoker.invoke("pay.send", '{"amount":5,"to":"bob"}');
    expect(out.ok).toBe(false);
    expect(!out.ok && out.error.message).toBe(
      "pay.send was denied by plugin guard: spending is allowed only Mon, Tue, Wed, Thu, Fri 9:00–17:00 (Europe/Oslo); it is Sat 11:00",
    );
    s.at("2026-01-05T17:30:00Z"); // Monday 18:30 in Oslo: after hours
    const late = await s.invoker.invoke("pay.send", '{"amount":5,"to":"bob"}');
    expect(!late.ok && late.error.message).toContain("it is Mon 18:30");
    await postsReach(2);
    expect(posts.map((p) => [p.body.status, p.body.deniedBy])).toEqual([
      ["denied", "plugin:guard"],
      ["denied", "plugin:guard"],
    ]);
  });
});
