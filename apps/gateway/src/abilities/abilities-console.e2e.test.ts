import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOY, deployTools } from "../../test/abilities-deploy.ts";
import { eventually } from "../../test/discord-e2e.ts";
import { type Harness, startHarness } from "../../test/harness.ts";
import { createSigner, loadConsoleKey } from "../console/signing.ts";

/** #32: the console shows an ability run as its steps, each with its run and receipts. */
const APPROVER = "111111111111111111";
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

test("console: /console/abilities lists runs; a run's page shows each step, its run and its receipts", async () => {
  h = await startHarness({ tools: deployTools([]), settings: { http: { port: 0, approvers: [APPROVER] } } as never });
  const harness = h;
  mkdirSync(join(harness.dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(harness.dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  let asked!: (callId: string) => void;
  const card = new Promise<string>((resolve) => (asked = resolve));
  let finished!: () => void;
  const ended = new Promise<void>((resolve) => (finished = resolve));
  harness.gateway.events.subscribe((e) => {
    if (e.type === "approval.requested") asked(e.request.callId);
    if (e.type === "ability.finished") finished();
  });
  const reply = await harness.gateway.handleMessage({
    sessionKey: "terminal",
    surface: "terminal",
    userId: "ann",
    text: "/ability run deploy version=v5.0.0",
  });
  const runId = /\(run (ability_\S+)\)/.exec(reply.text)![1]!;
  await harness.gateway.approvals.decide(await card, { decision: "approved", by: "ann" });
  await ended;
  const done = await harness.gateway.handleMessage({
    sessionKey: "terminal",
    surface: "terminal",
    text: "/ability status",
  });
  expect(done.text).toStartWith("Ability deploy completed.");

  const signer = createSigner(loadConsoleKey(join(harness.dir, ".openassistant", "data"), { add() {} }));
  const cookie = signer.sign({ kind: "session", operator: APPROVER, exp: Date.now() + 60_000 });
  const get = async (path: string) => {
    const res = await fetch(`${harness.gateway.http!.url}${path}`, { headers: { cookie: `oa_console=${cookie}` } });
    return { status: res.status, text: await res.text() };
  };
  const list = await get("/console/abilities");
  expect(list.status).toBe(200);
  expect(list.text).toContain(`href="/console/abilities/${runId}"`);
  // The last outcome receipt is committed by the store's group commit: the page shows it once it is.
  const page = await eventually(async () => {
    const p = await get(`/console/abilities/${runId}`);
    return p.text.includes("<code>tools.deploy.run</code> succeeded") && p;
  }, "the deploy step's outcome receipt on the page");
  expect(page.status).toBe(200);
  expect(page.text).toContain('<tr data-step="approve">');
  expect(page.text).toMatch(/<code>tools\.abilities\.gate<\/code> approved by ann/);
  expect(page.text).toMatch(/<code>tools\.deploy\.run<\/code> succeeded/);
  expect(page.text).toMatch(/<tr data-step="announce">[\s\S]*?skipped/);
  expect(page.text).toMatch(/href="\/console\/runs\/run_[^"]+"/);
  expect((await get("/console/abilities/ability_nope")).status).toBe(404);
}, 30_000);

test("gateway.abilities.start (what schedules call): by name with inputs, checked; done resolves at the end", async () => {
  h = await startHarness({ tools: deployTools([]) });
  const harness = h;
  mkdirSync(join(harness.dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(harness.dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  harness.gateway.events.subscribe((e) => {
    if (e.type === "approval.requested")
      void harness.gateway.approvals.decide(e.request.callId, { decision: "approved", by: "scheduler-test" });
  });
  const refused = await harness.gateway.abilities!.start("deploy", { version: "latest" });
  expect(refused.ok ? "" : refused.error).toContain("version: must match");
  const started = await harness.gateway.abilities!.start(
    "deploy",
    { version: "v6.0.0" },
    { requestedBy: "schedule:nightly" },
  );
  if (!started.ok) throw new Error(started.error);
  const run = await started.done;
  expect(run.status).toBe("completed");
  expect(run.requestedBy).toBe("schedule:nightly");
}, 30_000);
