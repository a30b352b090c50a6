import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { defineTool, z } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createApprovalBroker } from "../approvals/broker.ts";
import { createApprovalRuleStore } from "../approvals/rules.ts";
import type { ApprovalDecision, ApprovalRequest } from "../approvals/types.ts";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite-store.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { createCodeModeRunner } from "./runner.ts";

const events: string[] = [];
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
        await Bun.sleep(ms);
        return ms;
      },
    }),
  },
};

const dir = makeTempDir();
const db = openDatabase(join(dir, "oa.sqlite"));
const receipts = createSqliteReceiptStore(db);
const broker = createApprovalBroker({ db, defaultTimeoutMs: 60_000 });
const rules = createApprovalRuleStore(db);
const sandbox = createSandboxPool({ minIdle: 2 });
let answer: (req: ApprovalRequest) => ApprovalDecision | undefined = () => ({ decision: "approved", by: "alice" });
broker.subscribe((e) => {
  if (e.type !== "requested") return;
  const d = answer(e.request);
  if (d) queueMicrotask(() => broker.decide(e.request.callId, d));
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

  test("required tool waits for approval, then runs; the receipt names the approver", async () => {
    answer = () => ({ decision: "approved", by: "alice" });
    const result = await runner.runPromise(`return await tools.notes.add({ text: "milk" });`);
    expect(result.ok).toBe(true);
    expect(JSON.parse(result.valueJson!)).toMatchObject({ text: "milk" });
    expect(phases(result.runId)).toEqual(["notes.add:requested", "notes.add:approved", "notes.add:started", "notes.add:succeeded"]);
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
    const timed = createCodeModeRunner({ tools, receipts, requestApproval: broker.requestApproval, sandbox, approvalTimeoutMs: 150 });
    const result = await timed.runPromise(`try { await tools.notes.add({ text: "late" }); } catch (e) { return e.name; }`);
    expect(result.valueJson).toBe(JSON.stringify("ToolDeniedError"));
    const denied = receipts.byRun(result.runId).find((r) => r.phase === "denied")!;
    expect(denied.decidedBy).toBe("timeout");
    await timed.close();
  });

  test("20 approvals in a for loop and 20 in Promise.all", async () => {
    answer = () => ({ decision: "approved", by: "alice" });
    const seq = await runner.runPromise(`const out = []; for (let i = 0; i < 20; i++) out.push((await tools.notes.add({ text: "s" + i })).text); return out;`);
    expect(JSON.parse(seq.valueJson!)).toHaveLength(20);
    const par = await runner.runPromise(`return (await Promise.all(Array.from({ length: 20 }, (_, i) => tools.notes.add({ text: "p" + i })))).length;`);
    expect(par.valueJson).toBe("20");
    for (const r of [seq, par]) {
      const rs = receipts.byRun(r.runId);
      expect(rs.filter((x) => x.phase === "approved")).toHaveLength(20);
      expect(rs.filter((x) => x.phase === "succeeded")).toHaveLength(20);
      expect(receipts.verifyRun(r.runId)).toEqual({ ok: true });
    }
  });

  test("calls in Promise.all run in parallel on the host", async () => {
    const result = await runner.runPromise(`await Promise.all([tools.notes.slow({ ms: 300 }), tools.notes.slow({ ms: 300 }), tools.notes.slow({ ms: 300 })]); return 1;`);
    expect(result.ok).toBe(true);
    expect(result.stats.wallMs).toBeLessThan(800);
  });

  test("invalid input is a failed receipt with the zod issues and a ToolInputError inside", async () => {
    const result = await runner.runPromise(`try { await tools.notes.add({ text: 42 }); } catch (e) { return [e.name, e.message]; }`);
    const [name, message] = JSON.parse(result.valueJson!);
    expect(name).toBe("ToolInputError");
    expect(message).toContain("text");
    const failed = receipts.byRun(result.runId).find((r) => r.phase === "failed")!;
    expect(failed.error).toContain("text");
    expect(phases(result.runId)).toEqual(["notes.add:requested", "notes.add:failed"]);
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
    const rule = rules.add({ toolPath: "notes.add", scope: "session", sessionId: "s-rule", createdBy: "alice" });
    const result = await runner.runPromise(`return (await tools.notes.add({ text: "auto" })).text;`, { sessionId: "s-rule" });
    expect(result.valueJson).toBe(JSON.stringify("auto"));
    expect(receipts.byRun(result.runId).find((r) => r.phase === "approved")!.decidedBy).toBe(`rule:${rule.id}`);
    rules.revoke(rule.id, "alice");
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
        stuck: defineTool({ description: "blocks", approval: "auto", args: z.object({}), run: async () => (await gate, "late") }),
      },
      receipts,
      sandbox,
      requestApproval: broker.requestApproval,
    });
    const controller = new AbortController();
    const pending = stuck.runPromise(`return await tools.stuck({});`, { signal: controller.signal, runId: "run_shutdown" });
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
    const version = (v: number) => ({ ver: defineTool({ description: "version", approval: "auto", args: z.object({}), run: async () => v }) });
    let live = version(1);
    const reloading = createCodeModeRunner({ tools: () => live, receipts, sandbox, requestApproval: broker.requestApproval });
    const checkedAgainst = live;
    live = version(2); // a reload lands
    expect((await reloading.runPromise(`return await tools.ver({});`, { tools: checkedAgainst })).valueJson).toBe("1");
    expect((await reloading.runPromise(`return await tools.ver({});`)).valueJson).toBe("2");
    await reloading.close();
  });
});
