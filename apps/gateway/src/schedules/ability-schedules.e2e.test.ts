import { afterEach, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { DEPLOY, deployTools } from "../../test/abilities-deploy.ts";
import { type Harness, startHarness, TEST_API_KEY } from "../../test/harness.ts";
import { createGateway } from "../gateway.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FRIDAY_16_OSLO = Date.parse("2026-11-27T15:00:00Z");
const WEEK = 7 * 24 * 3600_000;

test("an ability schedule (every Friday 16:00 Oslo): bad inputs and an unknown ability refused at creation naming them; each occurrence starts one run as schedule:<id> in its conversation, done only when it completed; denied and a missing ability are schedule.failed", async () => {
  const clock = { t: Date.parse("2026-11-26T12:00:00Z"), now: () => clock.t };
  const ran: Array<{ what: string; at: number }> = [];
  h = await startHarness({ tools: deployTools(ran), gateway: { clock } });
  const gateway = h.gateway;
  const folder = join(h.dir, ".openassistant", "abilities", "deploy");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "ability.yaml"), DEPLOY);
  const service = gateway.schedules.service;
  const ctx = { origin: "cli", createdBy: "cli" } as const;
  const input = { name: "release", cron: "0 16 * * 5", timeZone: "Europe/Oslo", conversation: "terminal" };
  const refused = (extra: Record<string, unknown>) =>
    service.create({ ...input, ...extra }, ctx).then(
      () => "created",
      (e: Error) => e.message,
    );

  expect(await refused({ ability: "deploy", inputs: { version: "1.0" } })).toBe(
    'inputs: ability "deploy": version: must match ^v\\d+\\.\\d+\\.\\d+$',
  );
  expect(await refused({ ability: "deploy", inputs: { version: "v1.0.0", colour: "red" } })).toBe(
    'inputs: ability "deploy": unknown input(s): colour',
  );
  expect(await refused({ ability: "nope", inputs: {} })).toBe(
    'ability: no ability "nope" (abilities: deploy; see docs/abilities.md)',
  );
  expect(await refused({ ability: "deploy", prompt: "p" })).toBe("ability: give a prompt or an ability, not both");
  expect(await service.list()).toEqual([]);

  const s = await service.create({ ...input, ability: "deploy", inputs: { version: "v1.2.3" } }, ctx);
  expect(s.target).toEqual({ ability: "deploy", inputs: { version: "v1.2.3" }, conversation: "terminal" });
  expect(s.ceiling).toBeUndefined(); // the ability's own enforcement holds its steps to their tools
  expect(s.next[0]).toBe(FRIDAY_16_OSLO);

  // The gate: approved the first week, denied the second.
  const gates: Array<{ requestedBy: string | undefined; summary: string }> = [];
  let answer: "approved" | "denied" = "approved";
  gateway.approvals.subscribe((e) => {
    if (e.type !== "requested") return;
    gates.push({ requestedBy: e.request.requestedBy, summary: e.request.summary ?? "" });
    void gateway.approvals.decide(e.request.callId, {
      decision: answer,
      by: "operator-1",
      ...(answer === "denied" ? { reason: "not this week" } : {}),
    });
  });

  clock.t = FRIDAY_16_OSLO;
  expect((await gateway.schedules.tick()).fired).toEqual([{ scheduleId: s.id, at: FRIDAY_16_OSLO }]);
  expect((await gateway.schedules.tick()).fired).toEqual([]); // one run per occurrence
  await gateway.schedules.idle();
  const [first] = await service.history(s.id);
  expect(first?.status).toBe("succeeded");
  const run = (await gateway.abilities!.get(first!.turnId!))!;
  expect([run.status, run.requestedBy, run.inputs.version]).toEqual(["completed", `schedule:${s.id}`, "v1.2.3"]);
  const session = await gateway.sessions.getOrCreate("terminal", "terminal");
  expect(run.sessionId).toBe(session!.id);
  expect(gates).toEqual([{ requestedBy: `schedule:${s.id}`, summary: expect.stringContaining("Deploy v1.2.3") }]);
  expect(ran.filter((r) => r.what.startsWith("deploy.run"))).toHaveLength(1);
  const [succeeded] = await gateway.receipts.query({ tool: "schedule.fired", phase: "succeeded" });
  const stepRuns = run.steps.flatMap((st) => (st.runId ? [st.runId] : []));
  expect(stepRuns.length).toBeGreaterThan(0);
  expect(succeeded?.outputPreview).toBe(`ability run ${run.id} completed; step runs: ${stepRuns.join(", ")}`);
  expect(succeeded?.sessionId).toBe(session!.id);

  answer = "denied";
  clock.t = FRIDAY_16_OSLO + WEEK;
  expect((await gateway.schedules.tick()).fired).toHaveLength(1);
  await gateway.schedules.idle();
  const [deniedFail] = await gateway.receipts.query({ tool: "schedule.failed" });
  expect(deniedFail?.error).toStartWith("ability deploy run ability_");
  expect(deniedFail?.error).toContain(" denied: ");
  expect(ran.filter((r) => r.what.startsWith("deploy.run"))).toHaveLength(1);

  // The ability is gone by the next occurrence: failed, naming it.
  rmSync(folder, { recursive: true });
  clock.t = FRIDAY_16_OSLO + 2 * WEEK;
  expect((await gateway.schedules.tick()).fired).toHaveLength(1);
  await gateway.schedules.idle();
  const failed = await gateway.receipts.query({ tool: "schedule.failed" });
  expect(failed.map((r) => r.error)).toContain('no ability "deploy" (abilities: none; see docs/abilities.md)');
  const history = await service.history(s.id);
  expect(history.map((o) => o.status)).toEqual(["failed", "failed", "succeeded"]);
  expect((await service.get(s.id))?.failures).toBe(2);
}, 30_000);

test("the model's tools.schedules.create of an ability: the card shows the ability and its inputs; no ceiling from the creating turn (the ability's own limit), so its steps run at the occurrence", async () => {
  const clock = { t: Date.parse("2026-11-26T12:00:00Z"), now: () => clock.t };
  const ran: Array<{ what: string; at: number }> = [];
  const dir = makeTempDir("oa-ability-schedule-");
  mkdirSync(join(dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  h = await startHarness({ dir, tools: deployTools(ran), gateway: { clock, scheduleTools: true } });
  const gateway = h.gateway;
  const cards: Array<{ tool: string; summary: string }> = [];
  gateway.approvals.subscribe((e) => {
    if (e.type !== "requested") return;
    cards.push({ tool: e.request.toolPath, summary: e.request.summary ?? "" });
    void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "operator-1" });
  });
  const code = `await tools.ci.status({ ref: "main" });
return await tools.schedules.create({ name: "release", cron: "0 16 * * 5", timeZone: "Europe/Oslo", ability: "deploy", inputs: { version: "v1.2.3" } });`;
  h.api.script([toolUseTurn({ id: "toolu_1", name: "execute", input: { code } }), textTurn("Scheduled.")]);
  const created = await gateway.handleMessage({
    sessionKey: "terminal",
    surface: "terminal",
    userId: "ann",
    text: "release every Friday",
  });
  expect(created.text).toBe("Scheduled.");
  const card = cards.find((c) => c.tool === "schedules.create")!;
  expect(card.summary).toContain('Runs: the ability deploy with inputs {"version":"v1.2.3"} in this conversation');
  expect(card.summary).toContain("Tools it may call: its steps' tools (the ability's own limit)");
  expect(card.summary).toContain("Next fire times: Fri 2026-11-27 16:00 (Europe/Oslo, UTC+01:00)");
  const [s] = await gateway.schedules.service.list();
  expect([s?.createdBy, s?.ceiling]).toEqual(["ann", undefined]);

  clock.t = FRIDAY_16_OSLO;
  expect((await gateway.schedules.tick()).fired).toHaveLength(1);
  await gateway.schedules.idle();
  expect((await gateway.schedules.service.history(s!.id)).map((o) => o.status)).toEqual(["succeeded"]);
  expect(ran.filter((r) => r.what.startsWith("deploy.run"))).toHaveLength(1);
}, 30_000);

test("config.jsonc: an ability schedule is declared at start; one naming an unknown ability or bad inputs is logged naming it and left out", async () => {
  const dir = makeTempDir("oa-config-ability-schedules-");
  mkdirSync(join(dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  writeFileSync(
    join(dir, ".openassistant", "config.jsonc"),
    `{
      "schedules": [
        { "id": "release", "name": "release", "cron": "0 16 * * 5", "timeZone": "Europe/Oslo",
          "ability": "deploy", "inputs": { "version": "v1.2.3" }, "conversation": "terminal" },
        { "id": "ghost", "name": "ghost", "every": "1h", "ability": "ghost", "conversation": "terminal" },
        { "id": "bad", "name": "bad", "every": "1h", "ability": "deploy", "inputs": { "version": "x" }, "conversation": "terminal" }
      ]
    }`,
  );
  const api = await startFakeAnthropic();
  const logs: string[] = [];
  const gateway = await createGateway({
    cwd: dir,
    env: { ANTHROPIC_API_KEY: TEST_API_KEY, OPENASSISTANT_ANTHROPIC_BASE_URL: api.url },
    configDir: join(dir, "config"),
    clock: { now: () => Date.parse("2026-11-26T12:00:00Z") },
    log: (line) => logs.push(line),
  });
  try {
    const listed = await gateway.schedules.service.list();
    expect(listed.map((s) => [s.id, s.target])).toEqual([
      ["release", { ability: "deploy", inputs: { version: "v1.2.3" }, conversation: "terminal" }],
    ]);
    const refused = logs.filter((l) => l.startsWith("config: schedules["));
    expect(refused).toEqual([
      'config: schedules[1] (ghost).ability: no ability "ghost" (abilities: deploy; see docs/abilities.md); that schedule is left out',
      'config: schedules[2] (bad).inputs: ability "deploy": version: must match ^v\\d+\\.\\d+\\.\\d+$; that schedule is left out',
    ]);
  } finally {
    await gateway.shutdown();
    await api.close();
  }
}, 30_000);

test("an ability run still waiting at its gate is cancelled at the schedule's next occurrence (schedule.failed); a `tools` given limits the steps too (denied by plugin:schedules)", async () => {
  const clock = { t: Date.parse("2026-11-26T12:00:00Z"), now: () => clock.t };
  const ran: Array<{ what: string; at: number }> = [];
  h = await startHarness({ tools: deployTools(ran), gateway: { clock } });
  const gateway = h.gateway;
  mkdirSync(join(h.dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(h.dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  const ctx = { origin: "cli", createdBy: "cli" } as const;
  const hourly = await gateway.schedules.service.create(
    {
      name: "hourly",
      cron: "0 * * * *",
      timeZone: "UTC",
      ability: "deploy",
      inputs: { version: "v1.0.0" },
      conversation: "terminal",
    },
    ctx,
  );
  let approving = false;
  const firstGate = Promise.withResolvers<void>();
  gateway.approvals.subscribe((e) => {
    if (e.type !== "requested") return;
    firstGate.resolve();
    if (approving) void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "operator-1" });
  });
  clock.t = Date.parse("2026-11-26T13:00:00Z");
  await gateway.schedules.tick();
  await firstGate.promise; // nobody answers it
  approving = true;
  await gateway.schedules.service.remove(hourly.id); // the next occurrence only ends this one
  clock.t = Date.parse("2026-11-26T14:00:00Z");
  await gateway.schedules.tick();
  await gateway.schedules.idle();
  const [occurrence] = await gateway.schedules.service.history(hourly.id);
  expect(occurrence?.status).toBe("failed");
  expect(occurrence?.detail).toContain(" cancelled: step approve: the next occurrence of the schedule is due");
  expect((await gateway.abilities!.get(occurrence!.turnId!))?.status).toBe("cancelled");
  expect(ran.filter((r) => r.what.startsWith("deploy.run"))).toHaveLength(0);

  // Limited to CI and the gate: the deploy step is denied by the schedule's ceiling.
  const limited = await gateway.schedules.service.create(
    {
      name: "limited",
      at: "2026-11-26T15:00:00Z",
      ability: "deploy",
      inputs: { version: "v1.0.0" },
      conversation: "terminal",
      tools: ["ci.*", "abilities.gate"],
    },
    ctx,
  );
  clock.t = Date.parse("2026-11-26T15:00:00Z");
  await gateway.schedules.tick();
  await gateway.schedules.idle();
  const [limitedRun] = await gateway.schedules.service.history(limited.id);
  expect(limitedRun?.status).toBe("failed");
  const denied = await gateway.receipts.query({ tool: "deploy.run", phase: "denied" });
  expect(denied.map((r) => r.decidedBy)).toEqual(["plugin:schedules"]);
  expect(ran.filter((r) => r.what.startsWith("deploy.run"))).toHaveLength(0);
}, 30_000);
