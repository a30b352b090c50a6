/**
 * Plugin hooks on tool calls (issue #29), driven through the invoker (no sandbox): what each
 * answer of `tool.before` / `tool.after` does to the call, that they fail closed / open, their
 * order, and that every change they make is a receipt that verifies with the chain.
 */
import { describe, expect, test } from "bun:test";
import { defineTool, type PluginHooks, type ToolDefinition, z } from "@openassistant/sdk";
import { createApprovalRuleStore } from "../approvals/sqlite/rules.ts";
import type { ApprovalRequest } from "../approvals/types.ts";
import { openDatabase } from "../db/open.ts";
import { createHookSet } from "../hooks/set.ts";
import { createRedactor } from "../receipts/redact.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { formatSummaryForModel, summarizeRun } from "../receipts/summary.ts";
import { createToolInvoker, type InvokerContext } from "./tool-invoker.ts";

function setup(plugins: readonly { pluginId: string; hooks: PluginHooks }[], opts: { timeoutMs?: number } = {}) {
  const db = openDatabase(":memory:");
  const receipts = createSqliteReceiptStore(db);
  const ran: unknown[] = [];
  const asked: ApprovalRequest[] = [];
  const logged: string[] = [];
  const tools = new Map<string, ToolDefinition>([
    [
      "pay.send",
      defineTool({
        description: "Send money",
        approval: "auto",
        args: z.object({ amount: z.number().max(1000), to: z.string() }),
        run: async (input) => (ran.push(input), { sent: input.amount }),
      }),
    ],
  ]);
  const hooks = createHookSet(plugins, { log: (line) => logged.push(line), timeoutMs: opts.timeoutMs });
  const ctx: InvokerContext = {
    runId: "run_hooks",
    sessionId: "sess_h",
    requestedBy: "ann",
    roles: ["operator"],
    code: "await tools.pay.send({ amount: 5, to: 'bob' })",
    tools,
    receipts,
    requestApproval: async (req) => (asked.push(req), { decision: "approved", by: "alice" }),
    policy: [],
    redact: createRedactor([]),
    approvalTimeoutMs: 60_000,
    toolTimeoutMs: 10_000,
    previewChars: 500,
    signal: new AbortController().signal,
    running: new Map(),
    hooks,
  };
  const invoker = createToolInvoker(ctx);
  const call = (input: object) => invoker.invoke("pay.send", JSON.stringify(input));
  const trail = () => receipts.byRun("run_hooks").map((r) => `${r.phase}:${r.decidedBy ?? "-"}`);
  return { ctx, invoker, call, receipts, ran, asked, logged, trail, db };
}

const errorOf = (r: { ok: boolean; error?: { message: string; name: string } }) => r.error;

describe("tool.before", () => {
  test("a denial settles the call as denied by plugin:<id>; the tool never runs; the receipt verifies", async () => {
    const s = setup([{ pluginId: "guard", hooks: { tool: { before: () => ({ deny: "no payments on Sundays" }) } } }]);
    const r = await s.call({ amount: 5, to: "bob" });
    expect(r.ok).toBe(false);
    expect(errorOf(r)?.name).toBe("ToolDeniedError");
    expect(errorOf(r)?.message).toBe("pay.send was denied by plugin guard: no payments on Sundays");
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "denied:plugin:guard"]);
    expect((await s.receipts.verify()).ok).toBe(true);
    const summary = formatSummaryForModel(summarizeRun(await s.receipts.byRun("run_hooks")));
    expect(summary).toContain('⛔ pay.send denied by plugin:guard: "no payments on Sundays"');
  });

  const broken: [string, PluginHooks["tool"], RegExp][] = [
    [
      "throws",
      {
        before: () => {
          throw new Error("ledger unreachable");
        },
      },
      /tool\.before hook of plugin "guard" threw: ledger unreachable; the call is denied \(hooks fail closed\)/,
    ],
    ["answers junk", { before: () => ({ allow: true }) as never }, /plugin "guard" answered an object with keys allow/],
    ["answers a string", { before: () => "ok" as never }, /plugin "guard" answered a string/],
    [
      "does not answer in time",
      { before: () => new Promise<undefined>(() => {}) },
      /plugin "guard" did not answer within 20 ms; the call is denied/,
    ],
    [
      "rejects",
      { before: async () => Promise.reject(new TypeError("bad state")) },
      /plugin "guard" threw: TypeError: bad state/,
    ],
  ];
  for (const [what, tool, message] of broken)
    test(`a hook that ${what} denies the call, naming the plugin (fails closed)`, async () => {
      const s = setup([{ pluginId: "guard", hooks: { tool } }], { timeoutMs: 20 });
      const r = await s.call({ amount: 5, to: "bob" });
      expect(r.ok).toBe(false);
      expect(errorOf(r)?.message).toMatch(message);
      expect(s.ran).toEqual([]);
      expect(s.trail()).toEqual(["requested:-", "denied:plugin:guard"]);
    });

  test("a hook that times out sees its signal aborted", async () => {
    let signal: AbortSignal | undefined;
    const s = setup(
      [
        {
          pluginId: "slow",
          hooks: {
            tool: {
              before: (_call, ctx) => {
                signal = ctx.signal;
                return new Promise<undefined>(() => {});
              },
            },
          },
        },
      ],
      { timeoutMs: 10 },
    );
    await s.call({ amount: 5, to: "bob" });
    expect(signal?.aborted).toBe(true);
  });

  test("hooks run by priority (higher first), then in load order; a denial stops the rest", async () => {
    const order: string[] = [];
    const seen = (id: string): PluginHooks["tool"] => ({ before: () => void order.push(id) });
    const s = setup([
      { pluginId: "a", hooks: { tool: seen("a") } },
      { pluginId: "b", hooks: { priority: 10, tool: seen("b") } },
      { pluginId: "c", hooks: { tool: seen("c") } },
      { pluginId: "d", hooks: { priority: -1, tool: { before: () => (order.push("d"), { deny: "stop" }) } } },
      { pluginId: "e", hooks: { priority: -2, tool: seen("e") } },
    ]);
    const r = await s.call({ amount: 5, to: "bob" });
    expect(order).toEqual(["b", "a", "c", "d"]);
    expect(errorOf(r)?.message).toContain("denied by plugin d: stop");
  });

  test("a hook sees the call, who asked (user and roles), the session and the run", async () => {
    const seen: unknown[] = [];
    const s = setup([
      {
        pluginId: "spy",
        hooks: {
          tool: {
            before: (call, ctx) =>
              void seen.push({
                path: call.path,
                input: call.input,
                approval: call.approval,
                who: ctx.requestedBy,
                session: ctx.sessionId,
                run: ctx.runId,
                plugin: ctx.pluginId,
              }),
          },
        },
      },
    ]);
    await s.call({ amount: 5, to: "bob" });
    expect(seen).toEqual([
      {
        path: "pay.send",
        input: { amount: 5, to: "bob" },
        approval: "auto",
        who: { userId: "ann", roles: ["operator"] },
        session: "sess_h",
        run: "run_hooks",
        plugin: "spy",
      },
    ]);
  });

  test("requiring approval puts an auto call before a person, with the plugin's reason on the card; no standing rule answers it", async () => {
    const s = setup([
      {
        pluginId: "spend",
        hooks: { tool: { before: () => ({ requireApproval: { title: "Large payment", summary: "5 > limit 1" } }) } },
      },
    ]);
    const rules = createApprovalRuleStore(s.db);
    await rules.add({ toolPath: "pay.send", scope: "global", createdBy: "alice" });
    const r = await createToolInvoker({ ...s.ctx, standing: rules }).invoke("pay.send", '{"amount":5,"to":"bob"}');
    expect(r.ok).toBe(true);
    expect(s.asked.map((a) => a.summary)).toEqual(["required by plugin spend: Large payment — 5 > limit 1"]);
    expect(s.trail()).toEqual([
      "requested:-",
      "requested:plugin:spend",
      "approved:alice",
      "started:alice",
      "succeeded:alice",
    ]);
    const all = await s.receipts.byRun("run_hooks");
    expect(all[1]!.policy).toBe("required");
    expect(all[1]!.reason).toBe("approval required by plugin spend: Large payment — 5 > limit 1");
    expect((await s.receipts.verify()).ok).toBe(true);
    const summary = formatSummaryForModel(summarizeRun(all));
    expect(summary).toContain("✅ pay.send succeeded (approved by alice)");
    expect(summary).toContain("approval required by plugin spend: Large payment — 5 > limit 1");
  });

  test("a replaced input is validated again: a valid one is what the tool gets, recorded as plugin:<id>", async () => {
    const s = setup([
      { pluginId: "cap", hooks: { tool: { before: (call) => ({ input: { ...call.input, amount: 1 } }) } } },
      { pluginId: "spy", hooks: { priority: -1, tool: { before: (call) => void s.ran.push(["seen", call.input]) } } },
    ]);
    const r = await s.call({ amount: 500, to: "bob" });
    expect(r.ok).toBe(true);
    expect(s.ran).toEqual([["seen", { amount: 1, to: "bob" }], { amount: 1, to: "bob" }]);
    const all = await s.receipts.byRun("run_hooks");
    expect(all.map((x) => `${x.phase}:${x.decidedBy ?? "-"}`)).toEqual([
      "requested:-",
      "requested:plugin:cap",
      "started:-",
      "succeeded:-",
    ]);
    expect(all[1]!.reason).toBe("input replaced by plugin cap");
    expect(all[1]!.inputPreview).toContain('"amount":1');
    expect(all[2]!.inputPreview).toContain('"amount":1');
    expect((await s.receipts.verify()).ok).toBe(true);
    expect(formatSummaryForModel(summarizeRun(all))).toContain("input replaced by plugin cap");
  });

  test("a replaced input that fails the tool's schema denies the call", async () => {
    const s = setup([{ pluginId: "cap", hooks: { tool: { before: () => ({ input: { amount: 5000, to: "bob" } }) } } }]);
    const r = await s.call({ amount: 5, to: "bob" });
    expect(r.ok).toBe(false);
    expect(errorOf(r)?.message).toMatch(/plugin "cap" replaced the input with one that fails pay\.send's schema/);
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "denied:plugin:cap"]);
  });

  test("the model's code cannot call a hook: a hook's name is an unknown tool, and no hook runs for it", async () => {
    let ran = 0;
    const s = setup([{ pluginId: "guard", hooks: { tool: { before: () => void ran++ } } }]);
    for (const path of ["guard", "guard.tool.before", "tool.before", "hooks.guard"]) {
      const r = await s.invoker.invoke(path, "{}");
      expect(errorOf(r)?.message).toBe(`unknown tool "${path}"`);
    }
    expect(ran).toBe(0);
  });

  test("with no hooks registered the call goes on unchanged", async () => {
    const s = setup([]);
    expect((await s.call({ amount: 5, to: "bob" })).ok).toBe(true);
    expect(s.trail()).toEqual(["requested:-", "started:-", "succeeded:-"]);
  });
});

describe("tool.after", () => {
  test("a replaced result is what the model sees; the outcome receipt keeps the tool's own result", async () => {
    const s = setup([
      { pluginId: "mask", hooks: { tool: { after: () => ({ result: { sent: "hidden" } }) } } },
      { pluginId: "obs", hooks: { priority: -1, tool: { after: (_c, outcome) => void s.ran.push(outcome) } } },
    ]);
    const r = await s.call({ amount: 5, to: "bob" });
    expect(r).toEqual({ ok: true, json: '{"sent":"hidden"}' });
    expect(s.ran.at(-1)).toEqual({ status: "succeeded", result: { sent: "hidden" } });
    const all = await s.receipts.byRun("run_hooks");
    expect(all.map((x) => `${x.phase}:${x.decidedBy ?? "-"}`)).toEqual([
      "requested:-",
      "started:-",
      "started:plugin:mask",
      "succeeded:-",
    ]);
    expect(all[2]!.reason).toBe("result replaced by plugin mask");
    expect(all[2]!.outputPreview).toBe('{"sent":"hidden"}');
    expect(all[3]!.outputPreview).toBe('{"sent":5}');
    expect((await s.receipts.verify()).ok).toBe(true);
    expect(formatSummaryForModel(summarizeRun(all))).toContain("result replaced by plugin mask");
  });

  test("a hook that throws is logged and skipped (observers fail open)", async () => {
    const s = setup([
      {
        pluginId: "flaky",
        hooks: {
          tool: {
            after: () => {
              throw new Error("webhook down");
            },
          },
        },
      },
    ]);
    const r = await s.call({ amount: 5, to: "bob" });
    expect(r).toEqual({ ok: true, json: '{"sent":5}' });
    expect(s.logged).toEqual([
      "[flaky] tool.after hook for pay.send threw: webhook down (ignored: observer hooks fail open)",
    ]);
  });

  test("a denied call is observed by tool.after, which cannot replace its result", async () => {
    const seen = Promise.withResolvers<unknown>();
    const s = setup([
      {
        pluginId: "guard",
        hooks: {
          tool: {
            before: () => ({ deny: "closed" }),
            after: (_call, outcome) => (seen.resolve(outcome), { result: "sneaky" }),
          },
        },
      },
    ]);
    const r = await s.call({ amount: 5, to: "bob" });
    expect(r.ok).toBe(false);
    expect(await seen.promise).toEqual({ status: "denied", reason: "closed", by: "plugin:guard" });
  });

  test("a failed call is observed by tool.after with its error", async () => {
    const seen = Promise.withResolvers<unknown>();
    const s = setup([{ pluginId: "obs", hooks: { tool: { after: (_call, outcome) => void seen.resolve(outcome) } } }]);
    const r = await s.call({ amount: 5000, to: "bob" });
    expect(errorOf(r)?.name).toBe("ToolInputError");
    expect(await seen.promise).toMatchObject({
      status: "failed",
      error: expect.stringContaining("invalid input for pay.send"),
    });
  });

  test("a plugin's long reason is bounded and its secrets redacted, on the receipt and for the model", async () => {
    const secret = "sk-ant-api03-hook-reason-secret-0000000000";
    const s = setup([
      { pluginId: "guard", hooks: { tool: { before: () => ({ deny: `${secret} ${"x".repeat(20_000)}` }) } } },
    ]);
    const r = await s.call({ amount: 5, to: "bob" });
    expect(errorOf(r)!.message.length).toBeLessThan(4_200);
    expect(errorOf(r)!.message).not.toContain(secret);
    const denial = (await s.receipts.byRun("run_hooks")).at(-1)!;
    expect(denial.reason!.length).toBeLessThanOrEqual(4_000);
    expect(denial.reason).not.toContain(secret);
  });
});
