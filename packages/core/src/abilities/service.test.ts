import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defineTool, type ToolTree, z } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { ApprovalRequest, RequestApproval } from "../approvals/types.ts";
import { createCodeModeRunner } from "../codemode/runner.ts";
import { openDatabase } from "../db/open.ts";
import { withHostHooks } from "../hooks/merge.ts";
import { openFileRunJournal } from "../receipts/replay/file-journal.ts";
import { openSqliteReceipts } from "../receipts/sqlite/ports.ts";
import { createRedactor } from "../receipts/redact.ts";
import { createSandboxPool } from "../sandbox/pool.ts";
import { abilityHooks, ABILITIES_HOOK_ID } from "./enforce.ts";
import { loadAbilities } from "./load.ts";
import type { AbilityRun } from "./run.ts";
import { createAbilityService } from "./service.ts";
import { createSqliteAbilityRunStore } from "./sqlite/store.ts";

/**
 * Ability runs on the real runner, sandbox and SQLite files. A "restart" is a second gateway on the
 * same files (new connection, receipts, journal, runner, service); the first is left where the
 * "crash" caught it and never used again.
 */
const sandbox = createSandboxPool({ minIdle: 1 });
beforeAll(() => sandbox.warmUp());
afterAll(() => sandbox.close());

const DEPLOY = `name: deploy
description: Deploy a version after CI passed and a person approved
triggers: { keywords: [deploy] }
inputs:
  version: { type: string, required: true, pattern: '^v\\d+\\.\\d+\\.\\d+$' }
  environment: { type: string, enum: [staging, prod], default: staging }
steps:
  - id: ci
    type: tool
    tool: ci.status
    input: { ref: "{{inputs.version}}" }
    validation: { expression: output.state == "success" }
  - id: approve
    type: approval
    needs: [ci]
    prompt: "Deploy {{inputs.version}} to {{inputs.environment}}? CI is {{steps.ci.output.state}}."
  - id: deploy
    type: tool
    needs: [approve]
    tool: deploy.run
    input: { version: "{{inputs.version}}", env: "{{inputs.environment}}" }
  - id: announce
    type: tool
    needs: [deploy]
    when: inputs.environment == "prod"
    tool: chat.post
    input: { text: "Deployed {{inputs.version}} to {{steps.deploy.output.url}}" }
`;

type Executions = Map<string, unknown[]>;

const SECRET = "vault-token-4f9a2c7e1b";

function toolsCounting(executions: Executions, ciState = "success"): ToolTree {
  const counted = (path: string, result: (input: Record<string, unknown>) => unknown) =>
    defineTool({
      description: path,
      approval: "auto",
      args: z.object({}).catchall(z.unknown()),
      run: async (input) => {
        executions.set(path, [...(executions.get(path) ?? []), input]);
        return result(input);
      },
    });
  return {
    ci: { status: counted("ci.status", () => ({ state: ciState })) },
    deploy: {
      run: counted("deploy.run", (i) => ({ url: `https://${String(i.env)}.example.com/${String(i.version)}` })),
    },
    chat: { post: counted("chat.post", () => ({ ok: true })) },
    shell: { exec: counted("shell.exec", () => ({ ok: true })) },
  };
}

/** A code step that may call ci.status only, and an ability that runs deploy nested. */
const CHECKED = `name: checked
description: Count CI twice in code, then deploy through the nested ability
inputs:
  version: { type: string, required: true }
  sneak: { type: boolean, default: false }
steps:
  - id: twice
    type: code
    tools: [ci.status]
    code: |
      const a = await tools.ci.status({ ref: "a" });
      const b = await tools.ci.status({ ref: "b" });
      if (inputs.sneak) await tools.shell.exec({ cmd: "curl evil" });
      return { states: [a.state, b.state], version: inputs.version };
  - id: nested
    type: ability
    needs: [twice]
    ability: deploy
    inputs: { version: "{{inputs.version}}" }
`;

function workspace(): { dir: string; file: string } {
  const root = makeTempDir("oa-abilities-");
  const dir = join(root, "abilities");
  mkdirSync(join(dir, "deploy"), { recursive: true });
  writeFileSync(join(dir, "deploy", "ability.yaml"), DEPLOY);
  mkdirSync(join(dir, "checked"), { recursive: true });
  writeFileSync(join(dir, "checked", "ability.yaml"), CHECKED);
  return { dir, file: join(root, "oa.sqlite") };
}

/** One gateway process on the files: its own connection, receipts, journal, runner and ability service. */
function gateway(ws: { dir: string; file: string }, tools: ToolTree, requestApproval: RequestApproval) {
  const db = openDatabase(ws.file);
  const receipts = openSqliteReceipts(db);
  const journal = openFileRunJournal(join(dirname(ws.file), "runs"));
  const store = createSqliteAbilityRunStore(db);
  const finished: AbilityRun[] = [];
  let service: ReturnType<typeof createAbilityService>;
  const runner = createCodeModeRunner({
    tools,
    receipts,
    journal,
    requestApproval,
    sandbox,
    hooks: () => withHostHooks(undefined, { pluginId: ABILITIES_HOOK_ID, hooks: abilityHooks(service.enforcement) }),
  });
  service = createAbilityService({
    redact: createRedactor([SECRET]),
    store,
    runner,
    receipts,
    journal,
    tools: () => tools,
    load: () => loadAbilities([ws.dir]),
    onFinished: (r) => finished.push(r),
  });
  return { db, receipts, journal, runner, service, store, finished };
}

/** An approval that waits for the test to decide it. */
function cards() {
  const asked: ApprovalRequest[] = [];
  const waiting = new Map<string, (d: { decision: "approved" | "denied"; by: string; reason?: string }) => void>();
  let next: ((r: ApprovalRequest) => void) | undefined;
  // Like the broker: an aborted wait (a cancel) is denied by "system".
  const requestApproval: RequestApproval = (request, signal) => {
    asked.push(request);
    next?.(request);
    return new Promise((resolve) => {
      waiting.set(request.callId, resolve);
      signal?.addEventListener(
        "abort",
        () => resolve({ decision: "denied", by: "system", reason: String(signal.reason) }),
        { once: true },
      );
    });
  };
  return {
    asked,
    requestApproval,
    card: () => new Promise<ApprovalRequest>((resolve) => (next = resolve)),
    decide: (callId: string, decision: "approved" | "denied", by = "alice") => waiting.get(callId)!({ decision, by }),
  };
}

describe("an ability run on the runner", () => {
  test("deploy to prod: CI checked, the gate approved on its card, deployed, announced; every step a receipted call", async () => {
    const ws = workspace();
    const executions: Executions = new Map();
    const c = cards();
    const g = gateway(ws, toolsCounting(executions), c.requestApproval);
    const card = c.card();
    const started = await g.service.start("deploy", { version: "v1.2.3", environment: "prod" }, { sessionId: "s1" });
    if (!started.ok) throw new Error(started.error);
    const request = await card;
    expect(request.toolPath).toBe("abilities.gate");
    expect(request.summary).toContain("Deploy v1.2.3 to prod? CI is success.");
    expect(JSON.parse(request.inputJson!).outputs).toEqual({ ci: { state: "success" } });
    const waiting = await g.service.settledOrWaiting(started.run.id);
    expect([waiting.status, waiting.currentStep]).toEqual(["running", "approve"]);
    c.decide(request.callId, "approved");
    const run = await started.done;
    expect(run.status).toBe("completed");
    expect(run.steps.map((s) => [s.id, s.status])).toEqual([
      ["ci", "completed"],
      ["approve", "completed"],
      ["deploy", "completed"],
      ["announce", "completed"],
    ]);
    expect(executions.get("chat.post")).toEqual([{ text: "Deployed v1.2.3 to https://prod.example.com/v1.2.3" }]);
    for (const s of run.steps) {
      const rows = await g.receipts.byRun(s.runId!);
      expect(rows.at(-1)!.phase).toBe("succeeded");
    }
    expect((await g.receipts.verify()).ok).toBe(true);
    expect(g.finished.map((r) => r.id)).toEqual([run.id]);
  }, 30_000);

  test("staging: the conditional step is skipped; denied at the gate: nothing deployed, the run ends denied", async () => {
    const ws = workspace();
    const executions: Executions = new Map();
    const c = cards();
    const g = gateway(ws, toolsCounting(executions), c.requestApproval);
    const card = c.card();
    const ok = await g.service.start("deploy", { version: "v2.0.0" });
    if (!ok.ok) throw new Error(ok.error);
    c.decide((await card).callId, "approved");
    const run = await ok.done;
    expect(run.steps.map((s) => s.status)).toEqual(["completed", "completed", "completed", "skipped"]);
    expect(executions.get("chat.post")).toBeUndefined();

    const card2 = c.card();
    const denied = await g.service.start("deploy", { version: "v2.0.1" });
    if (!denied.ok) throw new Error(denied.error);
    c.decide((await card2).callId, "denied", "bob");
    const ended = await denied.done;
    expect(ended.status).toBe("denied");
    expect(ended.error).toContain("abilities.gate was denied by bob");
    expect(ended.steps.map((s) => s.status)).toEqual(["completed", "denied", "pending", "pending"]);
    expect(executions.get("deploy.run")).toHaveLength(1);
  }, 30_000);

  test("bad inputs and a failed validation are refused with what is wrong", async () => {
    const ws = workspace();
    const c = cards();
    const g = gateway(ws, toolsCounting(new Map(), "failure"), c.requestApproval);
    const bad = await g.service.start("deploy", { version: "1.2" });
    expect(bad.ok ? "" : bad.error).toContain("version: must match");
    const unknown = await g.service.start("deplo", {});
    expect(unknown.ok ? "" : unknown.error).toContain('no ability "deplo" (abilities: checked, deploy;');
    const started = await g.service.start("deploy", { version: "v1.0.0" });
    if (!started.ok) throw new Error(started.error);
    const run = await started.done;
    expect(run.status).toBe("failed");
    expect(run.error).toBe('step ci: its output fails the step\'s validation: output.state == "success"');
    expect(c.asked).toHaveLength(0);
  }, 30_000);

  test("while it runs in a session, a call outside the step's allowed set is denied, named and receipted", async () => {
    const ws = workspace();
    const executions: Executions = new Map();
    const c = cards();
    const g = gateway(ws, toolsCounting(executions), c.requestApproval);
    const card = c.card();
    const started = await g.service.start("deploy", { version: "v1.2.3" }, { sessionId: "s1" });
    if (!started.ok) throw new Error(started.error);
    await card;
    // The model's own run in the same session tries a tool outside the ability.
    const off = await g.runner.runPromise("return await tools.shell.exec({ cmd: 'rm -rf /' });", { sessionId: "s1" });
    expect(off.ok).toBe(false);
    expect(off.calls[0]!.status).toBe("denied");
    expect(off.calls[0]!.decidedBy).toBe("plugin:abilities");
    expect(off.error!.message).toContain('ability "deploy" (step "approve", approval) is running in this session');
    const receipts = await g.receipts.byRun(off.runId);
    expect(receipts.at(-1)).toMatchObject({ phase: "denied", decidedBy: "plugin:abilities" });
    expect(executions.get("shell.exec")).toBeUndefined();
    // Another session is not held by it.
    const other = await g.runner.runPromise("return await tools.chat.post({ text: 'hi' });", { sessionId: "s2" });
    expect(other.ok).toBe(true);
    // The status goes into the model's prompt.
    expect(g.service.enforcement.statusText("s1")).toContain(
      "Current step: approve (approval) — waiting for a person's approval",
    );
    expect(await g.service.enforcement.suggestion("please deploy v1", "s2")).toContain('matches ability "deploy"');
    await g.service.cancel(started.run.id, "test over");
  }, 30_000);

  test("cancel at the gate: the card's call is closed, the run ends cancelled, later steps never run", async () => {
    const ws = workspace();
    const executions: Executions = new Map();
    const c = cards();
    const g = gateway(ws, toolsCounting(executions), c.requestApproval);
    const card = c.card();
    const started = await g.service.start("deploy", { version: "v1.2.3" }, { sessionId: "s1" });
    if (!started.ok) throw new Error(started.error);
    const request = await card;
    const cancelled = await g.service.cancel(started.run.id, "cancelled by alice");
    expect(cancelled!.status).toBe("cancelled");
    expect(cancelled!.steps.map((s) => s.status)).toEqual(["completed", "cancelled", "pending", "pending"]);
    expect(executions.get("deploy.run")).toBeUndefined();
    const gate = (await g.receipts.byRun(request.runId)).filter((r) => r.callId === request.callId);
    expect(["denied", "failed"]).toContain(gate.at(-1)!.phase);
    // The session is free again.
    const again = await g.service.start("deploy", { version: "v1.2.4" }, { sessionId: "s1" });
    expect(again.ok).toBe(true);
    if (again.ok) await g.service.cancel(again.run.id, "test over");
  }, 30_000);

  test("a gateway killed at the gate: the next one resumes the run, the old card decides it, each step executed once", async () => {
    const ws = workspace();
    const executions: Executions = new Map();
    const before = cards();
    const first = gateway(ws, toolsCounting(executions), before.requestApproval);
    const card = before.card();
    const started = await first.service.start(
      "deploy",
      { version: "v3.0.0", environment: "prod" },
      { sessionId: "s1" },
    );
    if (!started.ok) throw new Error(started.error);
    const request = await card; // the "kill": nothing of the first gateway is used again

    const after = cards();
    const second = gateway(ws, toolsCounting(executions), after.requestApproval);
    expect(await second.service.stepRunsToResume()).toEqual(new Set([request.runId]));
    const again = after.card();
    const resumed = await second.service.resumeAll();
    expect(resumed.map((r) => r.id)).toEqual([started.run.id]);
    const asked = await again;
    expect(asked.callId).toBe(request.callId); // the same call: its card from before the restart decides it
    after.decide(asked.callId, "approved");
    const run = (await second.service.done(started.run.id))!;
    expect(run.status).toBe("completed");
    expect(executions.get("ci.status")).toHaveLength(1);
    expect(executions.get("deploy.run")).toHaveLength(1);
    expect(executions.get("chat.post")).toHaveLength(1);
    expect((await second.receipts.verify()).ok).toBe(true);
  }, 30_000);

  test("a code step calls only its listed tools (another is denied, naming the step); a nested ability runs to its end", async () => {
    const ws = workspace();
    const executions: Executions = new Map();
    const c = cards();
    const g = gateway(ws, toolsCounting(executions), c.requestApproval);
    const card = c.card();
    const started = await g.service.start("checked", { version: "v4.0.0" }, { sessionId: "s9" });
    if (!started.ok) throw new Error(started.error);
    c.decide((await card).callId, "approved");
    const run = await started.done;
    expect(run.status).toBe("completed");
    expect(run.steps.find((s) => s.id === "twice")!.output).toEqual({
      states: ["success", "success"],
      version: "v4.0.0",
    });
    expect(run.steps.find((s) => s.id === "nested")!.output).toMatchObject({
      deploy: { url: "https://staging.example.com/v4.0.0" },
    });
    expect(executions.get("ci.status")).toHaveLength(3);

    const sneaky = await g.service.start("checked", { version: "v4.0.1", sneak: "true" }, { sessionId: "s9" });
    if (!sneaky.ok) throw new Error(sneaky.error);
    const ended = await sneaky.done;
    expect(ended.status).toBe("denied");
    expect(ended.error).toContain(
      'ability "checked" (step "twice", code) allows only ci.status; shell.exec is not part of this step',
    );
    expect(executions.get("shell.exec")).toBeUndefined();
  }, 30_000);

  test("a secret typed as an input is stored and used redacted: it reaches no store, step or output", async () => {
    const ws = workspace();
    const g = gateway(ws, toolsCounting(new Map()), cards().requestApproval);
    const started = await g.service.start("checked", { version: `v-${SECRET}` });
    if (!started.ok) throw new Error(started.error);
    const run = await started.done;
    expect(run.inputs).toEqual({ version: "v-[redacted]", sneak: false });
    expect(run.steps[0]!.output).toEqual({ states: ["success", "success"], version: "v-[redacted]" });
    const stored = g.db.query("SELECT record FROM ability_runs").all() as Array<{ record: string }>;
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) expect(row.record).not.toContain(SECRET);
  }, 30_000);

  test("triggers suggest an ability (never start one) from the first message after a start", async () => {
    const ws = workspace();
    const g = gateway(ws, toolsCounting(new Map()), cards().requestApproval);
    expect(await g.service.enforcement.suggestion("can you deploy v1.2.3?", "s1")).toContain(
      'matches ability "deploy" (Deploy a version after CI passed and a person approved). If it fits, suggest that they run it with `/ability run deploy version=… environment=…`',
    );
    expect(await g.service.enforcement.suggestion("what's the weather", "s1")).toBeUndefined();
    expect(await g.store.list()).toEqual([]);
  });
});
