/** The runner against snippets that end with calls still pending, or that the sandbox cannot run. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { defineTool, z } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { createApprovalBroker } from "../approvals/broker.ts";
import { openSqliteApprovals } from "../approvals/sqlite/open.ts";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "../receipts/sqlite/store.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { MAX_ERROR_CHARS } from "../sandbox/vm-run.ts";
import { createCodeModeRunner } from "./runner.ts";

const ran: string[] = [];
let releaseSlow: () => void = () => {};
const tools = {
  t: {
    list: defineTool({ description: "List", approval: "auto", args: z.object({}), run: async () => [1, 2] }),
    slow: defineTool({
      description: "Finishes when the test says so",
      approval: "auto",
      args: z.object({}),
      run: async () => {
        await new Promise<void>((resolve) => (releaseSlow = resolve));
        ran.push("slow");
        return "slow done";
      },
    }),
    add: defineTool({
      description: "Needs approval",
      approval: "required",
      args: z.object({ text: z.string() }),
      run: async ({ text }) => {
        ran.push(`add:${text}`);
        return text;
      },
    }),
  },
};

const dir = makeTempDir();
const db = openDatabase(join(dir, "oa.sqlite"));
const receipts = createSqliteReceiptStore(db);
// Nobody answers: approvals stay pending until the run's signal cancels them.
const broker = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
const sandbox = createSandboxPool({ minIdle: 1 });
const runner = createCodeModeRunner({ tools, receipts, requestApproval: broker.requestApproval, sandbox });

beforeAll(() => sandbox.warmUp());
afterAll(async () => {
  await runner.close();
  await sandbox.close();
  db.close();
});

const phases = (runId: string) => receipts.byRun(runId).map((r) => `${r.toolPath}:${r.phase}`);

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await Bun.sleep(10);
  expect(check()).toBe(true);
}

describe("calls still pending when the run ends", () => {
  test("a running call finishes and is receipted; the result's calls do not change afterwards; nothing chained on it runs", async () => {
    ran.length = 0;
    const result = await runner.runPromise(
      `tools.t.slow({}).then(() => tools.t.add({ text: "chained" })); return (await tools.t.list({})).length;`,
    );
    expect(result.ok).toBe(true);
    expect(result.valueJson).toBe("2");
    expect(result.logs.map((l) => l.text)).toEqual([
      "The run ended with tool calls not awaited: 1 still running were left to finish but their results are lost (tools.t.slow). Await every tool call (e.g. with Promise.all) before returning.",
    ]);
    const calls = result.calls.map((c) => `${c.toolPath}:${c.status}`);
    expect(calls).toEqual(["t.list:succeeded"]);

    releaseSlow();
    await until(() => phases(result.runId).includes("t.slow:succeeded"));
    await Bun.sleep(50);
    expect(ran).toEqual(["slow"]);
    expect(result.calls.map((c) => `${c.toolPath}:${c.status}`)).toEqual(calls);
    expect(phases(result.runId).filter((p) => p.startsWith("t.add"))).toEqual([]);
    expect(receipts.verifyRun(result.runId)).toEqual({ ok: true });
  });

  test("a call waiting for approval is denied by the system when the run ends, and never runs", async () => {
    ran.length = 0;
    const result = await runner.runPromise(
      `tools.t.add({ text: "unawaited" }).catch(() => {}); await tools.t.list({}); return "done";`,
    );
    expect(result.ok).toBe(true);
    await until(() => phases(result.runId).includes("t.add:denied"));
    const denied = receipts.byRun(result.runId).find((r) => r.phase === "denied")!;
    expect(denied.decidedBy).toBe("system");
    expect(phases(result.runId).filter((p) => p.startsWith("t.add"))).toEqual(["t.add:requested", "t.add:denied"]);
    expect(ran).toEqual([]);
  });

  test("a call made in the last moment of the run is never requested", async () => {
    const result = await runner.runPromise(`tools.t.add({ text: "dropped" }); return 1;`);
    expect(result.ok).toBe(true);
    expect(result.logs.map((l) => l.level)).toEqual(["warn"]);
    expect(result.logs[0]!.text).toContain("1 never started and did not run (tools.t.add)");
    await Bun.sleep(50);
    expect(phases(result.runId)).toEqual([]);
  });
});

describe("snippets the sandbox cannot run", () => {
  test("`using`, decorators and `accessor` are refused with a clear ScriptError", async () => {
    for (const code of [
      `using x = null; return 1;`,
      `await using y = null; return 2;`,
      `@dec class X {}`,
      `class A { accessor x = 1 }`,
    ]) {
      const result = await runner.runPromise(code);
      expect(result.ok).toBe(false);
      expect(result.error).toEqual({
        name: "ScriptError",
        message:
          "this snippet uses syntax that needs runtime helpers the sandbox does not have (`using` / `await using` declarations, decorators or `accessor` fields); use try/finally and plain classes instead.",
      });
      expect(result.calls).toEqual([]);
    }
  });

  test("a comment-only snippet returns nothing", async () => {
    const result = await runner.runPromise(`// I will call tools next time\n/* promise */`);
    expect(result).toMatchObject({ ok: true, valueJson: undefined, logs: [], calls: [] });
  });

  test("a huge thrown message stays bounded in the result", async () => {
    const result = await runner.runPromise(`throw new Error("x".repeat(2_000_000));`);
    expect(result.error?.name).toBe("ScriptError");
    expect(result.error!.message.length).toBeLessThanOrEqual(MAX_ERROR_CHARS + 100);
  });
});
