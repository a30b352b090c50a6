/**
 * The approval path of one tool call, driven directly (no sandbox): who may let a required call
 * run, what is recorded, and that every way an approval can go wrong ends as a denial.
 */
import { describe, expect, test } from "bun:test";
import { defineTool, z, type ToolDefinition } from "@openassistant/sdk";
import { createApprovalBroker } from "../approvals/broker.ts";
import { openSqliteApprovals } from "../approvals/sqlite/open.ts";
import { createApprovalRuleStore } from "../approvals/sqlite/rules.ts";
import type { ApprovalRequest, RequestApproval } from "../approvals/types.ts";
import { openDatabase } from "../db/open.ts";
import type { PolicyRule } from "../policy/types.ts";
import { createRedactor } from "../receipts/redact.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { jsonInputOf, jsonSchemaTool } from "../sources/json-schema-tool.ts";
import { createToolInvoker, type InvokerContext } from "./tool-invoker.ts";

const SECRET = "sk-ant-api03-invoker-test-secret-0000";

function setup(
  opts: { requestApproval?: RequestApproval; policy?: PolicyRule[]; signal?: AbortSignal; code?: string } = {},
) {
  const db = openDatabase(":memory:");
  const receipts = createSqliteReceiptStore(db);
  const ran: string[] = [];
  const asked: ApprovalRequest[] = [];
  const waits: boolean[] = [];
  const tools = new Map<string, ToolDefinition>([
    [
      "notes.add",
      defineTool({
        description: "Add a note",
        approval: "required",
        args: z.object({ text: z.string() }),
        run: async ({ text }) => (ran.push(`add:${text}`), { text }),
      }),
    ],
    [
      "notes.list",
      defineTool({
        description: "List notes",
        approval: "auto",
        args: z.object({}),
        run: async () => (ran.push("list"), ["a"]),
      }),
    ],
  ]);
  const ctx: InvokerContext = {
    runId: "run_inv",
    sessionId: "sess_1",
    requestedBy: "ann",
    code: opts.code ?? "await tools.notes.add({ text: 'x' })",
    tools,
    receipts,
    requestApproval: (req, signal) => {
      asked.push(req);
      return (opts.requestApproval ?? (async () => ({ decision: "approved", by: "alice" })))(req, signal);
    },
    policy: opts.policy ?? [],
    redact: createRedactor([]),
    approvalTimeoutMs: 60_000,
    toolTimeoutMs: 10_000,
    previewChars: 500,
    signal: opts.signal ?? new AbortController().signal,
    onApprovalWait: (w) => waits.push(w),
    running: new Map(),
  };
  const invoker = createToolInvoker(ctx);
  const trail = () => receipts.byRun("run_inv").map((r) => [r.phase, r.decidedBy ?? "-"].join(":"));
  return { ctx, invoker, receipts, ran, asked, waits, trail, db };
}

describe("tool invoker: approval channel failures end as denials", () => {
  for (const [what, channel] of [
    [
      "throws synchronously (e.g. the database is gone)",
      (() => {
        throw new Error(`card could not be posted: Missing Access (${SECRET})`);
      }) as RequestApproval,
    ],
    [
      "rejects (e.g. posting the card failed)",
      (async () => {
        throw new Error(`card could not be posted: Missing Access (${SECRET})`);
      }) as RequestApproval,
    ],
    [
      "rejects with a non-Error",
      (async () => {
        throw { status: 500 };
      }) as RequestApproval,
    ],
  ] as const) {
    test(`an approval channel that ${what} denies the call with a reason; the tool never runs`, async () => {
      const s = setup({ requestApproval: channel });
      const result = await s.invoker.invoke("notes.add", JSON.stringify({ text: "milk" }));
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.name).toBe("ToolDeniedError");
        expect(result.error.code).toBe("DENIED");
        expect(result.error.message).toContain("approval could not be obtained");
      }
      expect(s.ran).toEqual([]);
      expect(s.trail()).toEqual(["requested:-", "denied:system"]);
      const denied = s.receipts.byRun("run_inv")[1]!;
      expect(denied.decision).toBe("denied");
      expect(denied.reason).toStartWith("approval could not be obtained: ");
      expect(denied.reason).not.toContain(SECRET);
      expect(s.invoker.outcomes).toEqual([expect.objectContaining({ status: "denied", decidedBy: "system" })]);
      // The turn clock is paused while waiting and resumed after, even when the channel broke.
      expect(s.waits).toEqual([true, false]);
    });
  }

  test("a real broker that cannot persist the request (a broker error) denies the call", async () => {
    const s = setup();
    const brokerDb = openDatabase(":memory:");
    const broker = createApprovalBroker({ ...openSqliteApprovals(brokerDb), defaultTimeoutMs: 60_000 });
    brokerDb.exec("DROP TABLE approvals");
    const invoker = createToolInvoker({ ...s.ctx, requestApproval: broker.requestApproval });
    const result = await invoker.invoke("notes.add", JSON.stringify({ text: "milk" }));
    expect(result.ok).toBe(false);
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "denied:system"]);
  });
});

describe("tool invoker: the approval path", () => {
  test("an approved call records who approved on every later receipt and runs once", async () => {
    const s = setup();
    const result = await s.invoker.invoke("notes.add", JSON.stringify({ text: "milk" }));
    expect(result).toEqual({ ok: true, json: JSON.stringify({ text: "milk" }) });
    expect(s.ran).toEqual(["add:milk"]);
    expect(s.trail()).toEqual(["requested:-", "approved:alice", "started:alice", "succeeded:alice"]);
    expect(
      s.receipts
        .byRun("run_inv")
        .slice(1)
        .map((r) => r.decision),
    ).toEqual(["approved", "approved", "approved"]);
    expect(s.waits).toEqual([true, false]);
  });

  test("the request shows the operator the tool, its input, redacted code, and expires after the configured timeout", async () => {
    const s = setup({ code: `await tools.notes.add({ text: "${SECRET}" })` });
    const before = Date.now();
    await s.invoker.invoke("notes.add", JSON.stringify({ text: "milk" }));
    const req = s.asked[0]!;
    expect(req).toMatchObject({
      toolPath: "notes.add",
      runId: "run_inv",
      sessionId: "sess_1",
      requestedBy: "ann",
      description: "Add a note",
      inputPreview: 'text: "milk"',
    });
    expect(req.code).toBe('await tools.notes.add({ text: "[redacted]" })');
    expect(req.expiresAt - req.requestedAt).toBe(60_000);
    expect(req.requestedAt).toBeGreaterThanOrEqual(before);
  });

  test("an operator's denial keeps its reason and the tool never runs", async () => {
    const s = setup({ requestApproval: async () => ({ decision: "denied", by: "bob", reason: "not today" }) });
    const result = await s.invoker.invoke("notes.add", JSON.stringify({ text: "milk" }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toBe("notes.add was denied by bob: not today");
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "denied:bob"]);
    expect(s.receipts.byRun("run_inv")[1]!.reason).toBe("not today");
  });

  test("an auto tool runs without asking; an operator rule can require approval for it", async () => {
    const auto = setup();
    await auto.invoker.invoke("notes.list", "{}");
    expect(auto.asked).toEqual([]);
    expect(auto.trail()).toEqual(["requested:-", "started:-", "succeeded:-"]);
    const forced = setup({ policy: [{ match: "notes.list", mode: "required" }] });
    await forced.invoker.invoke("notes.list", "{}");
    expect(forced.asked.map((r) => r.toolPath)).toEqual(["notes.list"]);
    expect(forced.trail()).toEqual(["requested:-", "approved:alice", "started:alice", "succeeded:alice"]);
  });

  test("an operator deny rule refuses auto and required tools without asking anyone", async () => {
    const s = setup({ policy: [{ match: "notes.*", mode: "deny", reason: "read-only today" }] });
    for (const path of ["notes.list", "notes.add"]) {
      const result = await s.invoker.invoke(path, path === "notes.add" ? '{"text":"x"}' : "{}");
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toBe(`${path} was denied: read-only today`);
    }
    expect(s.asked).toEqual([]);
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "denied:policy", "requested:-", "denied:policy"]);
  });

  test("a standing rule approves only in its own session", async () => {
    const s = setup({ requestApproval: async () => ({ decision: "denied", by: "bob", reason: "asked" }) });
    const rules = createApprovalRuleStore(s.db);
    const rule = await rules.add({ toolPath: "notes.add", scope: "session", sessionId: "sess_1", createdBy: "alice" });
    const mine = await createToolInvoker({ ...s.ctx, standing: rules }).invoke("notes.add", '{"text":"a"}');
    expect(mine.ok).toBe(true);
    expect(s.asked).toEqual([]);
    const other = await createToolInvoker({ ...s.ctx, sessionId: "sess_2", standing: rules }).invoke(
      "notes.add",
      '{"text":"b"}',
    );
    expect(other.ok).toBe(false);
    expect(s.asked.map((r) => r.sessionId)).toEqual(["sess_2"]);
    expect(
      s.receipts
        .byRun("run_inv")
        .filter((r) => r.phase === "approved")
        .map((r) => r.decidedBy),
    ).toEqual([`rule:${rule.id}`]);
    expect(s.ran).toEqual(["add:a"]);
  });

  test("a tool that must always ask asks a person even with a standing rule or an operator 'auto' rule for it", async () => {
    const s = setup({
      requestApproval: async () => ({ decision: "denied", by: "bob", reason: "not this one" }),
      policy: [{ match: "notes.*", mode: "auto" }],
    });
    const rules = createApprovalRuleStore(s.db);
    await rules.add({ toolPath: "notes.add", scope: "global", createdBy: "alice" });
    const strict = createToolInvoker({ ...s.ctx, standing: rules, alwaysAsk: (path) => path === "notes.add" });
    const result = await strict.invoke("notes.add", '{"text":"a"}');
    expect(result.ok).toBe(false);
    expect(s.asked.map((r) => r.toolPath)).toEqual(["notes.add"]);
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "denied:bob"]);
  });

  test("a run cancelled before the call asks nobody and denies it", async () => {
    const controller = new AbortController();
    controller.abort();
    const s = setup({ signal: controller.signal });
    const result = await s.invoker.invoke("notes.add", '{"text":"x"}');
    expect(result.ok).toBe(false);
    expect(s.asked).toEqual([]);
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "denied:system"]);
  });

  test("a run cancelled while the approval was pending does not run the approved tool", async () => {
    const controller = new AbortController();
    const s = setup({
      signal: controller.signal,
      requestApproval: async () => {
        controller.abort();
        return { decision: "approved", by: "alice" };
      },
    });
    const result = await s.invoker.invoke("notes.add", '{"text":"x"}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("CANCELLED");
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "approved:alice", "failed:alice"]);
  });

  test("invalid input and unknown tools fail before anyone is asked", async () => {
    const s = setup();
    const bad = await s.invoker.invoke("notes.add", JSON.stringify({ text: 5 }));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.name).toBe("ToolInputError");
    const unknown = await s.invoker.invoke("notes.nope", "{}");
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.code).toBe("UNKNOWN_TOOL");
    expect(s.asked).toEqual([]);
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "failed:-", "requested:-", "failed:-"]);
  });

  test("secrets in the input are redacted in the requested receipt and the card's preview", async () => {
    const s = setup();
    await s.invoker.invoke("notes.add", JSON.stringify({ text: SECRET }));
    const [requested] = s.receipts.byRun("run_inv");
    expect(requested!.inputPreview).toBe('{"text":"[redacted]"}');
    expect(s.asked[0]!.inputPreview).toBe('text: "[redacted]"');
  });

  test("a tool's previewFiles reach the request whole, redacted; a file with a path for a name is left out", async () => {
    const s = setup();
    const shown = (files: () => Array<{ name: string; text: string }>) =>
      defineTool({
        description: "Write a file",
        approval: "required",
        args: z.object({ text: z.string() }),
        previewFiles: files,
        run: async () => "ok",
      });
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "files.write",
      shown(() => [
        { name: "out.ts", text: `const key = "${SECRET}";\n${"x".repeat(5_000)}` },
        { name: "../escape.ts", text: "x" },
        { name: "out.ts.diff", text: "+ line" },
      ]),
    );
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "files.broken",
      shown(() => {
        throw new Error("previewFiles broke");
      }),
    );
    await s.invoker.invoke("files.write", JSON.stringify({ text: "a" }));
    await s.invoker.invoke("files.broken", JSON.stringify({ text: "b" }));
    expect(s.asked[0]!.files).toEqual([
      { name: "out.ts", text: `const key = "[redacted]";\n${"x".repeat(5_000)}` },
      { name: "out.ts.diff", text: "+ line" },
    ]);
    // A broken previewFiles costs the card its files, not the call.
    expect(s.asked[1]!.files).toBeUndefined();
    expect(s.trail().filter((t) => t.startsWith("succeeded"))).toEqual(["succeeded:alice", "succeeded:alice"]);
  });
});

describe("tool invoker: the tool's context", () => {
  test("run gets the call id, the session and a signal that aborts when the call times out", async () => {
    const s = setup();
    const seen: Array<{ callId: string; sessionId?: string; aborted: boolean }> = [];
    let abortedBy: unknown;
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "slow.wait",
      defineTool({
        description: "Waits until told to stop",
        approval: "auto",
        args: z.object({}),
        run: (_input, call) =>
          new Promise((_resolve, reject) => {
            seen.push({ callId: call.callId, sessionId: call.sessionId, aborted: call.signal.aborted });
            call.signal.addEventListener("abort", () => {
              abortedBy = call.signal.reason;
              reject(new Error("stopped"));
            });
          }),
      }),
    );
    const invoker = createToolInvoker({ ...s.ctx, toolTimeoutMs: 50 });
    const r = await invoker.invoke("slow.wait", "{}");
    expect(r.ok).toBe(false);
    expect(seen).toEqual([{ callId: expect.stringMatching(/^call/), sessionId: "sess_1", aborted: false }]);
    // The timeout aborted the tool's own signal, so a tool that honours it really stops.
    expect(String((abortedBy as Error).message)).toContain("slow.wait did not finish within");
    const failed = s.receipts.byRun("run_inv").find((x) => x.phase === "failed");
    expect(failed?.callId).toBe(seen[0]!.callId);
  });

  test("a result or a rejection arriving after the timeout is dropped: the call stays failed with the timeout", async () => {
    const s = setup();
    const late: Array<() => void> = [];
    for (const [path, settle] of [
      ["slow.resolves", (resolve: (v: unknown) => void) => resolve({ late: true })],
      ["slow.rejects", (_: unknown, reject: (e: unknown) => void) => reject(new Error("late failure"))],
    ] as const)
      (s.ctx.tools as Map<string, ToolDefinition>).set(
        path,
        defineTool({
          description: "Settles after its timeout, ignoring its signal",
          approval: "auto",
          args: z.object({}),
          run: () => new Promise((resolve, reject) => late.push(() => settle(resolve, reject))),
        }),
      );
    const invoker = createToolInvoker({ ...s.ctx, toolTimeoutMs: 20 });
    const results = [await invoker.invoke("slow.resolves", "{}"), await invoker.invoke("slow.rejects", "{}")];
    for (const settle of late) settle();
    await Bun.sleep(5);
    expect(results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["TOOL_FAILED", "TOOL_FAILED"]);
    expect(results.map((r) => (r.ok ? "" : r.error.message))).toEqual([
      "slow.resolves failed: slow.resolves did not finish within 0 s",
      "slow.rejects failed: slow.rejects did not finish within 0 s",
    ]);
    const outcomes = s.receipts.byRun("run_inv").filter((r) => r.phase === "succeeded" || r.phase === "failed");
    expect(outcomes.map((r) => `${r.toolPath}:${r.phase}`)).toEqual(["slow.resolves:failed", "slow.rejects:failed"]);
    expect(invoker.outcomes.map((o) => o.status)).toEqual(["failed", "failed"]);
  });

  test("an infinite timeout arms no timer; the tool's result is recorded", async () => {
    const s = setup();
    const invoker = createToolInvoker({ ...s.ctx, toolTimeoutMs: Number.POSITIVE_INFINITY });
    const r = await invoker.invoke("notes.list", "{}");
    expect(r).toEqual({ ok: true, json: '["a"]' });
  });

  test("a tool that reads its signal only after the timeout sees it aborted with the timeout; a copy of ctx keeps it", async () => {
    const s = setup();
    const seen: Array<{ aborted: boolean; reason: string; copied: boolean }> = [];
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "slow.late",
      defineTool({
        description: "Looks at its signal late",
        approval: "auto",
        args: z.object({}),
        run: (_input, call) =>
          new Promise((resolve) =>
            setTimeout(() => {
              const copy = { ...call };
              seen.push({
                aborted: call.signal.aborted,
                reason: String((call.signal.reason as Error).message),
                copied: copy.signal === call.signal,
              });
              resolve("late");
            }, 40),
          ),
      }),
    );
    await createToolInvoker({ ...s.ctx, toolTimeoutMs: 10 }).invoke("slow.late", "{}");
    await Bun.sleep(60);
    expect(seen).toEqual([{ aborted: true, reason: "slow.late did not finish within 0 s", copied: true }]);
  });

  test("cancelling the run aborts a running tool's signal", async () => {
    const run = new AbortController();
    const s = setup({ signal: run.signal });
    let aborted = false;
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "slow.cancel",
      defineTool({
        description: "Waits for cancellation",
        approval: "auto",
        args: z.object({}),
        run: (_input, call) =>
          new Promise((resolve) => {
            call.signal.addEventListener("abort", () => {
              aborted = true;
              resolve("stopped");
            });
            setTimeout(() => run.abort(), 10);
          }),
      }),
    );
    await s.invoker.invoke("slow.cancel", "{}");
    expect(aborted).toBe(true);
  });
});

describe("tool invoker: cancelling a run with calls in flight", () => {
  test("every running call's signal is aborted, each with its own path; a finished call's is not", async () => {
    const run = new AbortController();
    const s = setup({ signal: run.signal });
    const reasons = new Map<string, string>();
    const signals: AbortSignal[] = [];
    for (const name of ["one", "two"])
      (s.ctx.tools as Map<string, ToolDefinition>).set(
        `slow.${name}`,
        defineTool({
          description: "Waits for cancellation",
          approval: "auto",
          args: z.object({}),
          run: (_input, call) =>
            new Promise((resolve) => {
              call.signal.addEventListener("abort", () => {
                reasons.set(name, String((call.signal.reason as Error).message));
                resolve("stopped");
              });
            }),
        }),
      );
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "quick.done",
      defineTool({
        description: "Returns at once",
        approval: "auto",
        args: z.object({}),
        run: async (_input, call) => (signals.push(call.signal), "done"),
      }),
    );
    await s.invoker.invoke("quick.done", "{}");
    const calls = Promise.all([s.invoker.invoke("slow.one", "{}"), s.invoker.invoke("slow.two", "{}")]);
    await Bun.sleep(10);
    run.abort();
    await calls;
    expect(Object.fromEntries(reasons)).toEqual({
      one: "the run was cancelled; slow.one should stop",
      two: "the run was cancelled; slow.two should stop",
    });
    expect(signals[0]!.aborted).toBe(false);
  });
});

describe("tool invoker: previews and the tool's log", () => {
  test("the started preview shows the validated input: the model's text when it is the same, else the parsed value", async () => {
    const s = setup();
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "notes.tag",
      defineTool({
        description: "Tags a note",
        approval: "auto",
        args: z.object({ text: z.string(), tag: z.string().default("misc") }),
        run: async ({ text, tag }) => `${text}#${tag}`,
      }),
    );
    await s.invoker.invoke("notes.tag", JSON.stringify({ text: `key ${SECRET}`, tag: "a" }));
    await s.invoker.invoke("notes.tag", JSON.stringify({ text: `key ${SECRET}` }));
    await s.invoker.invoke("notes.tag", `{ "text": "spaced", "tag": "b" }`);
    const previews = s.receipts
      .byRun("run_inv")
      .filter((r) => r.phase === "requested" || r.phase === "started")
      .map((r) => `${r.phase} ${r.inputPreview}`);
    expect(previews).toEqual([
      'requested {"text":"key [redacted]","tag":"a"}',
      'started {"text":"key [redacted]","tag":"a"}',
      'requested {"text":"key [redacted]"}',
      'started {"text":"key [redacted]","tag":"misc"}',
      'requested { "text": "spaced", "tag": "b" }',
      'started {"text":"spaced","tag":"b"}',
    ]);
  });

  test("a schema whose safeParseAsync is its own is validated by it, not by zod's function", async () => {
    const s = setup();
    const args = z.object({ n: z.number() });
    Object.defineProperty(args, "safeParseAsync", {
      value: async () => ({ success: true, data: { n: 42 } }),
    });
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "num.echo",
      defineTool({ description: "Echoes n", approval: "auto", args, run: async ({ n }) => n }),
    );
    expect(await s.invoker.invoke("num.echo", '{"n":1}')).toEqual({ ok: true, json: "42" });
    // zod's own method, called through zod's function: issues are reported as ever.
    const invalid = await s.invoker.invoke("notes.add", '{"text":1}');
    expect(invalid.ok ? "" : invalid.error.message).toBe(
      "invalid input for notes.add: text: Invalid input: expected string, received number",
    );
  });

  test("each tool's ctx.log prefixes its own path and redacts, call after call", async () => {
    const s = setup();
    const lines: string[] = [];
    const info = console.info;
    console.info = (line: string) => void lines.push(line);
    try {
      for (const name of ["a", "b"])
        (s.ctx.tools as Map<string, ToolDefinition>).set(
          `log.${name}`,
          defineTool({
            description: "Logs",
            approval: "auto",
            args: z.object({ n: z.number() }),
            run: async ({ n }, call) => call.log.info(`call ${n} with ${SECRET}`, { n }),
          }),
        );
      for (const [path, n] of [
        ["log.a", 1],
        ["log.b", 2],
        ["log.a", 3],
      ] as const)
        await s.invoker.invoke(path, JSON.stringify({ n }));
    } finally {
      console.info = info;
    }
    expect(lines).toEqual([
      '[tools.log.a] call 1 with [redacted] {"n":1}',
      '[tools.log.b] call 2 with [redacted] {"n":2}',
      '[tools.log.a] call 3 with [redacted] {"n":3}',
    ]);
  });
});

describe("tool invoker: a tool from a JSON Schema (MCP, OpenAPI)", () => {
  test("its validator is built at its first call, which it checks like any other", async () => {
    const s = setup();
    const ran: unknown[] = [];
    const tool = jsonSchemaTool({
      description: "Get an issue",
      approval: "auto",
      inputSchema: {
        type: "object",
        properties: { owner: { type: "string" }, number: { type: "integer", minimum: 1 } },
        required: ["owner", "number"],
        additionalProperties: false,
      },
      run: async (input) => (ran.push(input), "ok"),
    });
    (s.ctx.tools as Map<string, ToolDefinition>).set("gh.issue", tool);
    expect(jsonInputOf(tool)?.built()).toBe(false);
    const bad = await s.invoker.invoke("gh.issue", JSON.stringify({ owner: "acme", number: 0 }));
    expect(jsonInputOf(tool)?.built()).toBe(true);
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.name).toBe("ToolInputError");
      expect(bad.error.message).toStartWith("invalid input for gh.issue: number:");
    }
    expect(await s.invoker.invoke("gh.issue", JSON.stringify({ owner: "acme", number: 2, extra: true }))).toEqual({
      ok: true,
      json: '"ok"',
    });
    expect(ran).toEqual([{ owner: "acme", number: 2 }]);
  });
});

describe("tool invoker: a running call's progress", () => {
  test("ctx.progress reaches onProgress with the call's id and path, the message redacted and cut; reports after the call settled are dropped", async () => {
    const s = setup();
    const seen: unknown[] = [];
    let late: (() => void) | undefined;
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "jobs.run",
      defineTool({
        description: "A long job",
        approval: "auto",
        args: z.object({}),
        run: async (_input, call) => {
          call.progress?.({ progress: 1, total: 3, message: `step one with ${SECRET}` });
          call.progress?.({ progress: Number.NaN });
          call.progress?.({ progress: 2, message: `${"x".repeat(300)}\u202e` });
          late = () => call.progress?.({ progress: 3, total: 3 });
          return "done";
        },
      }),
    );
    const invoker = createToolInvoker({
      ...s.ctx,
      redact: createRedactor([SECRET]),
      onProgress: (p) => seen.push(p),
    });
    const r = await invoker.invoke("jobs.run", "{}");
    expect(r.ok).toBe(true);
    late?.();
    const callId = s.receipts.byRun("run_inv").find((x) => x.toolPath === "jobs.run")!.callId;
    expect(seen).toEqual([
      { callId, toolPath: "jobs.run", progress: 1, total: 3, message: "step one with [redacted]" },
      { callId, toolPath: "jobs.run", progress: 2, message: `${"x".repeat(199)}…` },
    ]);
  });

  test("without onProgress a tool sees no ctx.progress", async () => {
    const s = setup();
    let had: boolean | undefined;
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "jobs.quiet",
      defineTool({
        description: "A job",
        approval: "auto",
        args: z.object({}),
        run: async (_input, call) => ((had = call.progress !== undefined), "done"),
      }),
    );
    await s.invoker.invoke("jobs.quiet", "{}");
    expect(had).toBe(false);
  });
});

describe("tool invoker: the exits after the approval, each recorded once", () => {
  const codeOf = (r: { ok: boolean; error?: { code?: string } }) => (r.ok ? "ok" : r.error?.code);

  test("a value that is not JSON is a failed call (BAD_OUTPUT) with one outcome", async () => {
    const s = setup();
    (s.ctx.tools as Map<string, ToolDefinition>).set(
      "loop.make",
      defineTool({
        description: "Returns a cycle",
        approval: "auto",
        args: z.object({}),
        run: async () => {
          const a: Record<string, unknown> = {};
          a.self = a;
          return a;
        },
      }),
    );
    const r = await s.invoker.invoke("loop.make", "{}");
    expect(codeOf(r)).toBe("BAD_OUTPUT");
    expect(s.trail()).toEqual(["requested:-", "started:-", "failed:-"]);
    expect(s.receipts.byRun("run_inv").at(-1)!.error).toStartWith(
      "loop.make returned a value that is not JSON-serializable",
    );
    expect(s.invoker.outcomes.map((o) => [o.toolPath, o.status])).toEqual([["loop.make", "failed"]]);
  });

  test("receipts that cannot be committed before the run stop the call (RECEIPTS_UNAVAILABLE); they are kept for the next commit", async () => {
    const s = setup();
    s.db.exec("CREATE TRIGGER refuse BEFORE INSERT ON receipts BEGIN SELECT RAISE(ABORT, 'the disk says no'); END;");
    const r = await s.invoker.invoke("notes.list", "{}");
    expect(codeOf(r)).toBe("RECEIPTS_UNAVAILABLE");
    expect(s.ran).toEqual([]);
    expect(s.invoker.outcomes.map((o) => [o.status, o.error])).toEqual([
      [
        "failed",
        expect.stringMatching(/^the receipts could not be written \(.*the disk says no.*\); notes\.list was not run$/),
      ],
    ]);
    expect(s.ctx.running.size).toBe(0);
    s.db.exec("DROP TRIGGER refuse");
    await s.receipts.durable();
    expect(s.trail()).toEqual(["requested:-", "started:-", "failed:-"]);
  });

  test("a shutdown while the receipts are being committed settles the call; its tool never runs", async () => {
    const s = setup();
    const pending = s.invoker.invoke("notes.list", "{}");
    // The call registers as running right before it waits for the commit (the next event-loop turn).
    for (let i = 0; i < 1_000 && s.ctx.running.size === 0; i++) await Promise.resolve();
    expect(s.ctx.running.size).toBe(1);
    for (const [callId, abandon] of [...s.ctx.running]) {
      s.ctx.running.delete(callId);
      abandon("gateway shutting down");
    }
    const r = await pending;
    expect(codeOf(r)).toBe("ABANDONED");
    expect(s.ran).toEqual([]);
    expect(s.trail()).toEqual(["requested:-", "started:-", "failed:-"]);
    expect(s.receipts.byRun("run_inv").at(-1)!.error).toBe(
      "gateway shutting down: notes.list was still running, its outcome is unknown",
    );
    expect(s.invoker.outcomes.map((o) => o.status)).toEqual(["failed"]);
  });
});
