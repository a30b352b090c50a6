import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { defineTool, z } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createApprovalBroker } from "../approvals/broker.ts";
import { openSqliteApprovals } from "../approvals/sqlite/open.ts";
import { createApprovalRuleStore } from "../approvals/sqlite/rules.ts";
import type { ApprovalDecision, ApprovalRequest } from "../approvals/types.ts";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { createCodeModeRunner } from "./runner.ts";

const events: string[] = [];
/** How many `notes.slow` calls are running at once (and the most seen). */
const slowInFlight = { now: 0, max: 0 };
const tools = {
  notes: {
    list: defineTool({
      description: "List notes",
      approval: "auto",
      args: z.object({ limit: z.number().int().positive().default(10) }),
      run: async ({ limit }) => Array.from({ length: Math.min(limit, 3) }, (_, i) => `note ${i}`),
    }),
    add: defineTool({
      description: "Add a note",
      approval: "required",
      args: z.object({ text: z.string().min(1) }),
      run: async ({ text }) => {
        events.push(`add:${text}`);
        return { id: events.length, text };
      },
      previewInput: ({ text }) => `add note "${text}"`,
    }),
    boom: defineTool({
      description: "Always fails",
      approval: "auto",
      args: z.object({}),
      run: async () => {
        throw new Error("disk full (token sk-ant-api03-SECRETSECRETSECRET)");
      },
    }),
    slow: defineTool({
      description: "Waits",
      approval: "auto",
      args: z.object({ ms: z.number() }),
      run: async ({ ms }) => {
        slowInFlight.max = Math.max(slowInFlight.max, ++slowInFlight.now);
        await Bun.sleep(ms);
        slowInFlight.now--;
        return ms;
      },
    }),
  },
};

const dir = makeTempDir();
const db = openDatabase(join(dir, "oa.sqlite"));
const receipts = createSqliteReceiptStore(db);
const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
const rules = createApprovalRuleStore(db);
const sandbox = createSandboxPool({ minIdle: 2 });
let answer: (req: ApprovalRequest) => ApprovalDecision | undefined = () => ({ decision: "approved", by: "alice" });
broker.subscribe((e) => {
  if (e.type !== "requested") return;
  const d = answer(e.request);
  if (d) queueMicrotask(() => void broker.decide(e.request.callId, d));
});
const runner = createCodeModeRunner({
  tools,
  receipts,
  requestApproval: broker.requestApproval,
  standing: rules,
  sandbox,
  redact: (t) => t.replaceAll(/sk-ant-[\w-]+/g, "[redacted]"),
  policy: [{ match: "notes.boom", mode: "auto" }],
});

beforeAll(() => sandbox.warmUp());
afterAll(async () => {
  await runner.close();
  await sandbox.close();
  db.close();
});

const phases = (runId: string) => receipts.byRun(runId).map((r) => `${r.toolPath}:${r.phase}`);

describe("code-mode runner", () => {
  test("auto tool runs without approval and leaves requested → started → succeeded", async () => {
    const result = await runner.runPromise(`const n = await tools.notes.list({}); return n.length;`);
    expect(result.ok).toBe(true);
    expect(result.valueJson).toBe("3");
    expect(phases(result.runId)).toEqual(["notes.list:requested", "notes.list:started", "notes.list:succeeded"]);
    expect(receipts.verifyRun(result.runId)).toEqual({ ok: true });
  });

  test("when a run returns, every receipt of it is committed (another connection sees them all)", async () => {
    const raw = new Database(join(dir, "oa.sqlite"), { readonly: true });
    const result = await runner.runPromise(
      `const a = await tools.notes.list({}); const b = await tools.notes.list({ limit: 1 }); return a.length + b.length;`,
    );
    expect(result.valueJson).toBe("4");
    // Read before anything else runs: no timer or later commit has had a chance to carry them.
    const rows = raw.query("SELECT phase FROM receipts WHERE run_id = ? ORDER BY seq").all(result.runId) as Array<{
      phase: string;
    }>;
    raw.close();
    expect(rows.map((r) => r.phase)).toEqual([
      "requested",
      "started",
      "succeeded",
      "requested",
      "started",
      "succeeded",
    ]);
  });

  test("required tool waits for approval, then runs; the receipt names the approver", async () => {
    answer = () => ({ decision: "approved", by: "alice" });
    const result = await runner.runPromise(`return await tools.notes.add({ text: "milk" });`);
    expect(result.ok).toBe(true);
    expect(JSON.parse(result.valueJson!)).toMatchObject({ text: "milk" });
    expect(phases(result.runId)).toEqual([
      "notes.add:requested",
      "notes.add:approved",
      "notes.add:started",
      "notes.add:succeeded",
    ]);
    const approved = receipts.byRun(result.runId).find((r) => r.phase === "approved")!;
    expect(approved.decidedBy).toBe("alice");
    expect(receipts.byRun(result.runId).find((r) => r.phase === "started")!.inputPreview).toBe(`add note "milk"`);
  });

  test("a denial is a typed error the code can catch, with the reason; the tool never runs", async () => {
    answer = () => ({ decision: "denied", by: "bob", reason: "not today" });
    const before = events.length;
    const result = await runner.runPromise(`
      try { await tools.notes.add({ text: "x" }); return "ran"; }
      catch (e) { return { denied: e instanceof ToolDeniedError, message: e.message }; }`);
    expect(result.ok).toBe(true);
    const value = JSON.parse(result.valueJson!);
    expect(value.denied).toBe(true);
    expect(value.message).toContain("not today");
    expect(events.length).toBe(before);
    expect(phases(result.runId)).toEqual(["notes.add:requested", "notes.add:denied"]);
    expect(result.calls[0]).toMatchObject({ status: "denied", decidedBy: "bob", reason: "not today" });
  });

  test("no decision before the timeout is a denial", async () => {
    answer = () => undefined;
    const timed = createCodeModeRunner({
      tools,
      receipts,
      requestApproval: broker.requestApproval,
      sandbox,
      approvalTimeoutMs: 150,
    });
    const result = await timed.runPromise(
      `try { await tools.notes.add({ text: "late" }); } catch (e) { return e.name; }`,
    );
    expect(result.valueJson).toBe(JSON.stringify("ToolDeniedError"));
    const denied = receipts.byRun(result.runId).find((r) => r.phase === "denied")!;
    expect(denied.decidedBy).toBe("timeout");
    await timed.close();
  });

  test("20 approvals in a for loop and 20 in Promise.all", async () => {
    answer = () => ({ decision: "approved", by: "alice" });
    const seq = await runner.runPromise(
      `const out = []; for (let i = 0; i < 20; i++) out.push((await tools.notes.add({ text: "s" + i })).text); return out;`,
    );
    expect(JSON.parse(seq.valueJson!)).toHaveLength(20);
    const par = await runner.runPromise(
      `return (await Promise.all(Array.from({ length: 20 }, (_, i) => tools.notes.add({ text: "p" + i })))).length;`,
    );
    expect(par.valueJson).toBe("20");
    for (const r of [seq, par]) {
      const rs = receipts.byRun(r.runId);
      expect(rs.filter((x) => x.phase === "approved")).toHaveLength(20);
      expect(rs.filter((x) => x.phase === "succeeded")).toHaveLength(20);
      expect(receipts.verifyRun(r.runId)).toEqual({ ok: true });
    }
  });

  test("calls in Promise.all run in parallel on the host", async () => {
    slowInFlight.max = 0;
    const result = await runner.runPromise(
      `await Promise.all([tools.notes.slow({ ms: 300 }), tools.notes.slow({ ms: 300 }), tools.notes.slow({ ms: 300 })]); return 1;`,
    );
    expect(result.ok).toBe(true);
    expect(slowInFlight.max).toBe(3);
  });

  test("invalid input is a failed receipt with the zod issues and a ToolInputError inside", async () => {
    const result = await runner.runPromise(
      `try { await tools.notes.add({ text: 42 }); } catch (e) { return [e.name, e.message]; }`,
    );
    const [name, message] = JSON.parse(result.valueJson!);
    expect(name).toBe("ToolInputError");
    expect(message).toContain("text");
    const failed = receipts.byRun(result.runId).find((r) => r.phase === "failed")!;
    expect(failed.error).toContain("text");
    expect(phases(result.runId)).toEqual(["notes.add:requested", "notes.add:failed"]);
    // The exact issue: path, then zod's message.
    const issue = "invalid input for notes.add: text: Invalid input: expected string, received number";
    expect(message).toBe(issue);
    expect(failed.error).toBe(issue);
  });

  test("a throwing tool is a failed receipt; secrets are scrubbed from the error", async () => {
    const result = await runner.runPromise(`await tools.notes.boom({});`);
    expect(result.ok).toBe(false);
    expect(result.error?.name).toBe("ScriptError");
    expect(result.error?.message).toContain("disk full");
    expect(result.error?.message).not.toContain("SECRET");
    const failed = receipts.byRun(result.runId).find((r) => r.phase === "failed")!;
    expect(failed.error).toContain("disk full");
    expect(failed.error).not.toContain("SECRET");
  });

  test("operator policy can deny or force approval by pattern", async () => {
    answer = () => ({ decision: "denied", by: "carol" });
    const strict = createCodeModeRunner({
      tools,
      receipts,
      sandbox,
      requestApproval: broker.requestApproval,
      policy: [
        { match: "notes.list", mode: "required" },
        { match: "notes.*", mode: "deny", reason: "notes are frozen" },
      ],
    });
    const r1 = await strict.runPromise(`try { await tools.notes.list({}); } catch (e) { return e.message; }`);
    expect(phases(r1.runId)).toEqual(["notes.list:requested", "notes.list:denied"]);
    expect(receipts.byRun(r1.runId)[0]!.policy).toBe("required");
    const r2 = await strict.runPromise(`try { await tools.notes.slow({ ms: 1 }); } catch (e) { return e.message; }`);
    expect(JSON.parse(r2.valueJson!)).toContain("notes are frozen");
    expect(receipts.byRun(r2.runId).at(-1)).toMatchObject({ phase: "denied", decidedBy: "policy" });
    await strict.close();
  });

  test("an 'approve always' rule skips the operator for that tool", async () => {
    answer = () => undefined; // nobody answers: the rule must carry it
    const rule = await rules.add({ toolPath: "notes.add", scope: "session", sessionId: "s-rule", createdBy: "alice" });
    const result = await runner.runPromise(`return (await tools.notes.add({ text: "auto" })).text;`, {
      sessionId: "s-rule",
    });
    expect(result.valueJson).toBe(JSON.stringify("auto"));
    expect(receipts.byRun(result.runId).find((r) => r.phase === "approved")!.decidedBy).toBe(`rule:${rule.id}`);
    await rules.revoke(rule.id, "alice");
  });

  test("aborting a run waiting for approval closes it with a denial", async () => {
    answer = () => undefined;
    const controller = new AbortController();
    const pending = runner.runPromise(`await tools.notes.add({ text: "never" });`, { signal: controller.signal });
    await Bun.sleep(150);
    controller.abort("gateway shutting down");
    const result = await pending;
    expect(result.ok).toBe(false);
    const rs = receipts.byRun(result.runId);
    expect(rs.map((r) => r.phase)).toEqual(["requested", "denied"]);
  });
});

describe("runner shutdown", () => {
  test("a tool still running at close() is recorded as failed with the reason; its late result is not recorded", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stuck = createCodeModeRunner({
      tools: {
        stuck: defineTool({
          description: "blocks",
          approval: "auto",
          args: z.object({}),
          run: async () => (await gate, "late"),
        }),
      },
      receipts,
      sandbox,
      requestApproval: broker.requestApproval,
    });
    const controller = new AbortController();
    const pending = stuck.runPromise(`return await tools.stuck({});`, {
      signal: controller.signal,
      runId: "run_shutdown",
    });
    while (!receipts.byRun("run_shutdown").some((r) => r.phase === "started")) await Bun.sleep(5);
    controller.abort("gateway shutting down");
    await stuck.close({ reason: "gateway shutting down", graceMs: 50 });
    await pending;
    release();
    await Bun.sleep(20);
    const rows = receipts.byRun("run_shutdown");
    expect(rows.map((r) => r.phase)).toEqual(["requested", "started", "failed"]);
    expect(rows[2]!.error).toContain("gateway shutting down: stuck was still running");
    expect(receipts.verifyRun("run_shutdown")).toEqual({ ok: true });
  });
});

describe("tool snapshots", () => {
  test("a run uses the tree it is given, so a reload between typecheck and run cannot swap tools", async () => {
    const version = (v: number) => ({
      ver: defineTool({ description: "version", approval: "auto", args: z.object({}), run: async () => v }),
    });
    let live = version(1);
    const reloading = createCodeModeRunner({
      tools: () => live,
      receipts,
      sandbox,
      requestApproval: broker.requestApproval,
    });
    const checkedAgainst = live;
    live = version(2); // a reload lands
    expect((await reloading.runPromise(`return await tools.ver({});`, { tools: checkedAgainst })).valueJson).toBe("1");
    expect((await reloading.runPromise(`return await tools.ver({});`)).valueJson).toBe("2");
    await reloading.close();
  });
});

describe("transpiled ahead (prepare, while the typecheck runs)", () => {
  test("a prepared snippet runs as it would without prepare, and the same text runs again after", async () => {
    const code = `const n: number = (await tools.notes.list({ limit: 2 })).length; return n * 10;`;
    runner.prepare(code);
    const first = await runner.runPromise(code);
    const again = await runner.runPromise(code);
    for (const r of [first, again]) {
      expect(r).toMatchObject({ ok: true, valueJson: "20" });
      expect(phases(r.runId)).toEqual(["notes.list:requested", "notes.list:started", "notes.list:succeeded"]);
    }
  });

  test("a snippet that cannot be transpiled fails its run with the same error whether or not it was prepared", async () => {
    const broken = "const x = ;";
    const plain = await runner.runPromise(broken);
    runner.prepare(broken);
    const prepared = await runner.runPromise(broken);
    expect(plain.ok).toBe(false);
    expect(prepared.error).toEqual(plain.error!);
    expect(prepared.error?.name).toBe("ScriptError");
  });

  test("snippets prepared and never run (failed typechecks) are dropped, oldest first; each still runs correctly", async () => {
    const codes = Array.from({ length: 9 }, (_, i) => `return ${i} + 1;`);
    for (const code of codes) runner.prepare(code);
    const values = [];
    for (const code of codes) values.push((await runner.runPromise(code)).valueJson);
    expect(values).toEqual(codes.map((_, i) => String(i + 1)));
  });
});

describe("thrown values crossing back", () => {
  class HttpFailure {
    readonly config = { headers: { authorization: "Bearer zzz" } };
  }
  const leaky = {
    error: defineTool({
      description: "throws an Error carrying host data",
      approval: "auto",
      args: z.object({}),
      run: async () => {
        const error = new Error("upstream said no", { cause: new Error("ENOENT: open '/srv/app/secrets.json'") });
        Object.assign(error, { path: "/srv/app/secrets.json", config: { headers: { authorization: "Bearer zzz" } } });
        error.stack = "Error: upstream said no\n    at run (/srv/app/tools/leaky.ts:12:9)";
        throw error;
      },
    }),
    object: defineTool({
      description: "throws a plain object (axios-like)",
      approval: "auto",
      args: z.object({}),
      run: async () => {
        throw { config: { headers: { authorization: "Bearer zzz" } }, message: "Request failed zzz" };
      },
    }),
    instance: defineTool({
      description: "throws a class instance that is not an Error",
      approval: "auto",
      args: z.object({}),
      run: async () => {
        throw new HttpFailure();
      },
    }),
    token: defineTool({
      description: "throws an Error whose message holds a token",
      approval: "auto",
      args: z.object({}),
      run: async () => {
        throw new Error("rejected key sk-ant-api03-ABCDEFGHIJKLMNOP");
      },
    }),
  };
  // No `redact` option: the runner's default redactor applies.
  const plain = createCodeModeRunner({ tools: { leaky }, receipts, sandbox, requestApproval: broker.requestApproval });
  afterAll(() => plain.close());
  const probe = (path: string) => `try { await tools.${path}({}); return "no error"; }
    catch (e) { return { name: e.name, message: e.message, own: Object.getOwnPropertyNames(e).sort(), cause: e.cause ?? null, stack: e.stack, code: e.code }; }`;

  test("an Error crosses by its message only; the receipt keeps name and message, never stack, cause or extra properties", async () => {
    const result = await plain.runPromise(probe("leaky.error"));
    expect(JSON.parse(result.valueJson!)).toEqual({
      name: "ToolError",
      message: "leaky.error failed: upstream said no",
      own: ["code", "message", "name", "stack"],
      cause: null,
      stack: "    at tools.leaky.error (host)\n",
      code: "TOOL_FAILED",
    });
    const rows = receipts.byRun(result.runId);
    expect(rows.map((r) => r.phase)).toEqual(["requested", "started", "failed"]);
    expect(rows[2]!.error).toBe("upstream said no");
    expect(result.calls[0]).toMatchObject({ status: "failed", error: "upstream said no" });
    const everything = JSON.stringify([result, rows]);
    for (const leak of ["/srv", "secrets.json", "leaky.ts", "zzz", "authorization", "ENOENT"])
      expect(everything).not.toContain(leak);
  });

  test("a non-Error throw crosses as a generic failure: no authorization header in the sandbox or the receipt", async () => {
    const result = await plain.runPromise(probe("leaky.object"));
    const seen = JSON.parse(result.valueJson!);
    expect(seen.message).toBe("leaky.object failed: the tool failed with a non-Error value (object)");
    const rows = receipts.byRun(result.runId);
    expect(rows[2]!.error).toBe("the tool failed with a non-Error value (object)");
    const everything = JSON.stringify([result, rows]);
    expect(everything).not.toContain("zzz");
    expect(everything).not.toContain("authorization");

    // Uncaught, the snippet's own error is just as clean.
    const uncaught = await plain.runPromise(`await tools.leaky.object({});`);
    expect(uncaught.error?.name).toBe("ScriptError");
    expect(uncaught.error?.message).toContain("the tool failed with a non-Error value (object)");
    expect(JSON.stringify([uncaught, receipts.byRun(uncaught.runId)])).not.toMatch(/zzz|authorization/);
  });

  test("a thrown class instance is named by its constructor, nothing more", async () => {
    const result = await plain.runPromise(probe("leaky.instance"));
    expect(JSON.parse(result.valueJson!).message).toBe(
      "leaky.instance failed: the tool failed with a non-Error value (object HttpFailure)",
    );
    expect(JSON.stringify(receipts.byRun(result.runId))).not.toMatch(/zzz|authorization/);
  });

  test("a run() that is not async works, and its synchronous throw is recorded the same way", async () => {
    const syncTools = {
      double: defineTool({
        description: "sync",
        approval: "auto",
        args: z.object({ n: z.number() }),
        run: (({ n }: { n: number }) => n * 2) as never,
      }),
      bad: defineTool({
        description: "sync throw",
        approval: "auto",
        args: z.object({}),
        run: (() => {
          throw { authorization: "Bearer zzz" };
        }) as never,
      }),
    };
    const syncRunner = createCodeModeRunner({
      tools: syncTools,
      receipts,
      sandbox,
      requestApproval: broker.requestApproval,
    });
    const result = await syncRunner.runPromise(
      `const d = await tools.double({ n: 21 }); try { await tools.bad({}); } catch (e) { return [d, e.message]; }`,
    );
    expect(JSON.parse(result.valueJson!)).toEqual([42, "bad failed: the tool failed with a non-Error value (object)"]);
    expect(receipts.byRun(result.runId).map((r) => `${r.toolPath}:${r.phase}`)).toEqual([
      "double:requested",
      "double:started",
      "double:succeeded",
      "bad:requested",
      "bad:started",
      "bad:failed",
    ]);
    await syncRunner.close();
  });

  test("the default redactor scrubs token shapes from errors", async () => {
    const result = await plain.runPromise(probe("leaky.token"));
    expect(JSON.parse(result.valueJson!).message).toBe("leaky.token failed: rejected key [redacted]");
    expect(receipts.byRun(result.runId)[2]!.error).toBe("rejected key [redacted]");
  });
});

describe("schemas that throw", () => {
  const strict = defineTool({
    description: "schema with throwing transform and refine",
    approval: "auto",
    args: z.object({
      n: z.number().transform((n) => {
        if (n < 0) throw new Error("negative numbers are not supported");
        return n;
      }),
      tag: z
        .string()
        .optional()
        .refine((t) => {
          if (t === "weird") throw { secret: "zzz" };
          return true;
        }),
    }),
    run: async ({ n }) => n,
  });
  const schemaRunner = createCodeModeRunner({
    tools: { strict },
    receipts,
    sandbox,
    requestApproval: broker.requestApproval,
  });
  afterAll(() => schemaRunner.close());

  test("a transform that throws is a failed receipt and a ToolInputError, not a call stuck at requested", async () => {
    const result = await schemaRunner.runPromise(
      `try { await tools.strict({ n: -1 }); } catch (e) { return [e.name, e.message]; }`,
    );
    expect(JSON.parse(result.valueJson!)).toEqual([
      "ToolInputError",
      "the input for strict could not be validated: its schema threw (negative numbers are not supported)",
    ]);
    const rows = receipts.byRun(result.runId);
    expect(rows.map((r) => r.phase)).toEqual(["requested", "failed"]);
    expect(rows[1]!.error).toBe(
      "the input for strict could not be validated: its schema threw (negative numbers are not supported)",
    );
    expect(result.calls[0]).toMatchObject({ status: "failed" });
    // The same tool still works for valid input.
    expect((await schemaRunner.runPromise(`return await tools.strict({ n: 2 });`)).valueJson).toBe("2");
  });

  test("a refine that throws a non-Error is described generically", async () => {
    const result = await schemaRunner.runPromise(
      `try { await tools.strict({ n: 1, tag: "weird" }); } catch (e) { return [e.name, e.message]; }`,
    );
    expect(JSON.parse(result.valueJson!)).toEqual([
      "ToolInputError",
      "the input for strict could not be validated: its schema threw (the schema failed with a non-Error value (object))",
    ]);
    expect(receipts.byRun(result.runId).map((r) => r.phase)).toEqual(["requested", "failed"]);
    expect(JSON.stringify(receipts.byRun(result.runId))).not.toContain("zzz");
  });
});

describe("prototype pollution from the host side", () => {
  const received: unknown[] = [];
  const proto = {
    record: defineTool({
      description: "takes a record",
      approval: "auto",
      args: z.object({ data: z.record(z.string(), z.unknown()) }),
      run: async ({ data }) => (received.push(data), Object.keys(data)),
    }),
    loose: defineTool({
      description: "takes any object",
      approval: "auto",
      args: z.looseObject({}),
      run: async (input) => (received.push(input), Object.keys(input)),
    }),
  };
  const protoRunner = createCodeModeRunner({
    tools: { proto },
    receipts,
    sandbox,
    requestApproval: broker.requestApproval,
  });
  afterAll(() => protoRunner.close());

  test("__proto__ and constructor.prototype keys in tool input change no prototype in the host", async () => {
    const payloads = ['{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}'];
    for (const payload of payloads) {
      received.length = 0;
      // JSON.parse makes "__proto__" an own key, so it really crosses (an object literal would not).
      const result = await protoRunner.runPromise(
        `const p = JSON.parse(${JSON.stringify(payload)}); return [await tools.proto.record({ data: p }), await tools.proto.loose(p)];`,
      );
      // Refused at the boundary (plain-input.ts): the tool never sees such an input.
      expect(result.ok).toBe(false);
      expect(result.error?.message).toContain("is not accepted in tool inputs");
      const previews = receipts
        .byRun(result.runId)
        .filter((r) => r.phase === "requested")
        .map((r) => r.inputPreview);
      expect(previews).toEqual([`{"data":${payload}}`]);
      expect(receipts.byRun(result.runId).map((r) => r.phase)).toEqual(["requested", "failed"]);
      expect(received).toHaveLength(0);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
      expect(
        (Object.prototype.constructor as unknown as { prototype: Record<string, unknown> }).prototype.polluted,
      ).toBeUndefined();
    }
  });
});

describe("approvals: concurrency and policy", () => {
  const requestedEvents: ApprovalRequest[] = [];
  broker.subscribe((e) => {
    if (e.type === "requested") requestedEvents.push(e.request);
  });

  test("20 approvals in Promise.all are pending at the same time before any is answered", async () => {
    const runId = "run_all20";
    let maxPending = 0;
    answer = (req) => {
      if (req.runId !== runId) return undefined;
      void broker.pending().then((all) => {
        const mine = all.filter((r) => r.runId === runId);
        maxPending = Math.max(maxPending, mine.length);
        // Answer nothing until every one of the 20 is waiting: a serial runner would hang here.
        if (mine.length === 20)
          for (const r of mine) void broker.decide(r.callId, { decision: "approved", by: "alice" });
      });
      return undefined;
    };
    const result = await runner.runPromise(
      `return (await Promise.all(Array.from({ length: 20 }, (_, i) => tools.notes.add({ text: "c" + i })))).length;`,
      { runId },
    );
    expect(result.valueJson).toBe("20");
    expect(maxPending).toBe(20);
    const rows = receipts.byRun(runId);
    expect(rows.filter((r) => r.phase === "approved")).toHaveLength(20);
    expect(rows.filter((r) => r.phase === "succeeded")).toHaveLength(20);
    expect(receipts.verifyRun(runId)).toEqual({ ok: true });
  });

  test("a loop of Promise.allSettled rounds mixing approvals and denials continues after denials", async () => {
    // Deny every 3rd call (by its index in the preview `add note "m<i>"`).
    answer = (req) => {
      const i = Number(/"m(\d+)"/.exec(req.inputPreview)?.[1]);
      return i % 3 === 2
        ? { decision: "denied", by: "bob", reason: "every third" }
        : { decision: "approved", by: "alice" };
    };
    const result = await runner.runPromise(`
      let approved = 0, denied = 0, other = 0;
      for (let round = 0; round < 4; round++) {
        const settled = await Promise.allSettled([0, 1, 2].map((k) => tools.notes.add({ text: "m" + (round * 3 + k) })));
        for (const s of settled) {
          if (s.status === "fulfilled") approved++;
          else if (s.reason instanceof ToolDeniedError) denied++;
          else other++;
        }
      }
      const after = await tools.notes.list({});
      return { approved, denied, other, after: after.length };`);
    expect(JSON.parse(result.valueJson!)).toEqual({ approved: 8, denied: 4, other: 0, after: 3 });
    const rows = receipts.byRun(result.runId);
    expect(rows.filter((r) => r.phase === "denied").map((r) => r.decidedBy)).toEqual(["bob", "bob", "bob", "bob"]);
    expect(rows.filter((r) => r.toolPath === "notes.add" && r.phase === "succeeded")).toHaveLength(8);
    expect(receipts.verifyRun(result.runId)).toEqual({ ok: true });
  });

  test("a required tool under an operator auto rule runs without any approval request", async () => {
    answer = () => ({ decision: "denied", by: "nobody" });
    const relaxed = createCodeModeRunner({
      tools,
      receipts,
      sandbox,
      requestApproval: broker.requestApproval,
      policy: [{ match: "notes.add", mode: "auto" }],
    });
    const before = requestedEvents.length;
    const result = await relaxed.runPromise(`return (await tools.notes.add({ text: "no approval needed" })).text;`);
    expect(result.valueJson).toBe(JSON.stringify("no approval needed"));
    expect(requestedEvents.length).toBe(before);
    expect(requestedEvents.some((r) => r.runId === result.runId)).toBe(false);
    const rows = receipts.byRun(result.runId);
    expect(rows.map((r) => r.phase)).toEqual(["requested", "started", "succeeded"]);
    for (const r of rows) expect(r).toMatchObject({ approval: "required", policy: "auto" });
    expect(rows.at(-1)!.decision).toBe("auto");
    expect(rows.at(-1)!.decidedBy).toBeUndefined();
    expect(result.calls[0]).toMatchObject({
      status: "succeeded",
      policy: "auto",
      decision: "auto",
      decidedBy: undefined,
    });
    await relaxed.close();
  });
});

describe("the Effect form", () => {
  test("Effect.runPromise(runner.run(code)) runs the code", async () => {
    const result = await Effect.runPromise(runner.run(`return (await tools.notes.list({ limit: 2 })).length;`));
    expect(result).toMatchObject({ ok: true, valueJson: "2" });
  });

  test("interrupting the Effect (a timeout) aborts the run: the pending approval is denied by system", async () => {
    answer = () => undefined;
    const runId = "run_interrupted";
    const exit = await Effect.runPromiseExit(
      Effect.timeout(
        runner.run(`await tools.notes.add({ text: "interrupted" }); return "ran";`, { runId }),
        "300 millis",
      ),
    );
    expect(Exit.isFailure(exit)).toBe(true);
    const deadline = performance.now() + 3_000;
    while (!receipts.byRun(runId).some((r) => r.phase === "denied") && performance.now() < deadline) await Bun.sleep(5);
    const rows = receipts.byRun(runId);
    expect(rows.map((r) => r.phase)).toEqual(["requested", "denied"]);
    expect(rows[1]).toMatchObject({ decidedBy: "system", reason: "the run was interrupted" });
    expect((await broker.get(rows[0]!.callId))!.decision).toEqual({
      decision: "denied",
      by: "system",
      reason: "the run was interrupted",
    });
    expect((await broker.pending()).filter((r) => r.runId === runId)).toEqual([]);
    expect(events).not.toContain("add:interrupted");
  });
});
