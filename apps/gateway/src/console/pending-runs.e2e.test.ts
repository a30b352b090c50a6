import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { toolUseTurn, textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { launchChromium, screenshotPath } from "../../test/browser.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import { storageBackend } from "../storage/index.ts";
import { createSigner, loadConsoleKey } from "./signing.ts";

// #30 operator control in the console: the pending runs a killed gateway left, and cancelling one
// (a same-origin POST by an approver), never a run this gateway runs. Plain HTTP for the guards,
// then one click in Chromium.
setDefaultTimeout(30_000);

const APPROVER = "111111111111111111";
const STRANGER = "999999999999999999";
const KILLED = "run_killed";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A gateway started on a database a killed one left: a call waiting for its card, another cut off running. */
async function startAfterKill(): Promise<Harness> {
  const harness = await startHarness({ settings: { http: { port: 0, approvers: [APPROVER] } } });
  await harness.gateway.shutdown();
  const store = await storageBackend().openReceipts(harness.gateway.settings.databasePath, harness.configDir);
  const base = { runId: KILLED, approval: "required", policy: "required" } as const;
  store.receipts.stage({ ...base, callId: "call_wait", toolPath: "mail.send", phase: "requested" });
  store.receipts.stage({ ...base, callId: "call_cut", toolPath: "reminders.create", phase: "requested" });
  store.receipts.stage({
    ...base,
    callId: "call_cut",
    toolPath: "reminders.create",
    phase: "approved",
    decision: "approved",
    decidedBy: "ann",
  });
  store.receipts.stage({ ...base, callId: "call_cut", toolPath: "reminders.create", phase: "started" });
  await store.receipts.durable();
  await store.close();
  await harness.restart();
  return harness;
}

function session(harness: Harness, operator = APPROVER): string {
  const signer = createSigner(loadConsoleKey(join(harness.dir, ".openassistant", "data"), { add() {} }));
  return signer.sign({ kind: "session", operator, exp: Date.now() + 60_000 });
}

/** A run of this gateway waiting for an approval (the turn goes on until it is decided). */
async function liveRun(harness: Harness) {
  harness.api.script([
    toolUseTurn({
      id: "toolu_1",
      name: "execute",
      input: { code: 'return await tools.reminders.create({ text: "tea", at: "17:00" });' },
    }),
    textTurn("Done."),
  ]);
  // The approval's own event, not a bounded poll: a busy machine may take longer than any guess.
  const asked = new Promise<void>((resolve) => {
    const stop = harness.gateway.events.subscribe((e) => {
      if (e.type !== "approval.requested") return;
      stop();
      resolve();
    });
  });
  const turn = harness.gateway.handleMessage({ sessionKey: "t", surface: "terminal", text: "remind me" });
  await asked;
  const [request] = await harness.gateway.approvals.pending();
  if (!request) throw new Error("no approval was requested");
  return { request, turn };
}

describe("console: pending runs and cancelling one", () => {
  test("listed with what they wait on; a cancel is refused cross-site, by a non-approver, by GET, and for a run this gateway runs; an approver's is recorded", async () => {
    h = await startAfterKill();
    const harness = h;
    const base = harness.gateway.http!.url;
    const origin = new URL(base).origin;
    const { request, turn } = await liveRun(harness);
    const get = async (path: string, cookie = session(harness)) => {
      const res = await fetch(`${base}${path}`, { redirect: "manual", headers: { cookie: `oa_console=${cookie}` } });
      return { status: res.status, text: await res.text() };
    };
    const post = async (runId: string, headers: Record<string, string>, cookie = session(harness)) => {
      const res = await fetch(`${base}/console/pending/${encodeURIComponent(runId)}/cancel`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: `oa_console=${cookie}`, ...headers },
      });
      return { status: res.status, location: res.headers.get("location"), text: await res.text() };
    };
    const stillPending = async (runId: string) =>
      (await get("/console/pending")).text.includes(`<tr data-run="${runId}">`);

    const list = await get("/console/pending");
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="/console/runs/${KILLED}"`);
    expect(list.text).toMatch(/tools\.mail\.send<\/code> waiting for a decision \(requested\) since \d{4}-/);
    expect(list.text).toMatch(/tools\.reminders\.create<\/code> cut off while running since \d{4}-/);
    expect(list.text).toContain(`action="/console/pending/${KILLED}/cancel"`);
    // The live run is listed, without a Cancel button.
    expect(list.text).toContain(`<tr data-run="${request.runId}">`);
    expect(list.text).toContain("running in this gateway");
    expect(list.text).not.toContain(`action="/console/pending/${request.runId}/cancel"`);
    expect((await get("/console/overview")).text).toContain('href="/console/pending"');

    for (const headers of <Record<string, string>[]>[
      { origin: "https://evil.example" },
      { "sec-fetch-site": "cross-site" },
    ]) {
      const refused = await post(KILLED, headers);
      expect(refused.status).toBe(403);
      expect(refused.text).toContain("Cross-site form posts are refused");
    }
    const stranger = await post(KILLED, { origin }, session(harness, STRANGER));
    expect(stranger.status).toBe(403);
    expect(stranger.text).toContain("Not an approver");
    expect((await get(`/console/pending/${KILLED}/cancel`)).status).toBe(404);
    expect(await stillPending(KILLED)).toBe(true);

    // A run this gateway runs is not cancelled: its call still waits for the approver.
    const live = await post(request.runId, { origin });
    expect(live).toMatchObject({ status: 303, location: "/console/pending?notice=running" });
    expect((await harness.gateway.receipts.byRun(request.runId)).at(-1)!.phase).toBe("requested");
    expect((await get("/console/pending?notice=running")).text).toContain("it was not cancelled");

    const before = (await harness.gateway.receipts.byRun(KILLED)).length;
    const ok = await post(KILLED, { origin });
    expect(ok).toMatchObject({ status: 303, location: "/console/pending?notice=cancelled" });
    const closing = (await harness.gateway.receipts.byRun(KILLED)).slice(before);
    expect(closing.map((r) => [r.callId, r.phase]).sort()).toEqual([
      ["call_cut", "failed"],
      ["call_wait", "denied"],
    ]);
    const denied = closing.find((r) => r.phase === "denied")!;
    expect(denied.decidedBy).toBe(`console:${APPROVER}`);
    expect(denied.reason).toBe(`the run was cancelled by console:${APPROVER}`);
    expect(closing.find((r) => r.phase === "failed")!.error).toStartWith(
      `outcome unknown: the run was cancelled by console:${APPROVER}`,
    );
    expect((await harness.gateway.receipts.verifyRun(KILLED)).ok).toBe(true);
    const after = await get("/console/pending?notice=cancelled");
    expect(after.text).toContain("Cancelled.");
    expect(after.text).not.toContain(`<tr data-run="${KILLED}">`);
    expect(await post(KILLED, { origin })).toMatchObject({ location: "/console/pending?notice=none" });

    await harness.gateway.approvals.decide(request.callId, { decision: "denied", by: "test" });
    await turn;
  });

  test("in Chromium: an approver clicks Cancel, the run leaves the list with a notice", async () => {
    h = await startAfterKill();
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(h.gateway.console!.loginLink(APPROVER));
      await page.waitForURL(/\/console\/runs$/);
      await page.click('nav a[href="/console/pending"]');
      await page.waitForURL(/\/console\/pending$/);
      const row = page.locator(`tr[data-run="${KILLED}"]`);
      expect(await row.locator("ul.waits li").count()).toBe(2);
      await page.screenshot({ path: screenshotPath("pending-runs.png"), fullPage: true });
      await row.locator("button", { hasText: "Cancel" }).click();
      await page.waitForURL(/notice=cancelled/);
      expect(await page.locator("#notice").textContent()).toContain("Cancelled.");
      expect(await page.locator(`tr[data-run="${KILLED}"]`).count()).toBe(0);
      expect(await page.locator("#no-pending").count()).toBe(1);
      const receipts = await h.gateway.receipts.byRun(KILLED);
      expect(receipts.filter((r) => r.decidedBy === `console:${APPROVER}`).length).toBe(1);
      expect((await h.gateway.receipts.verifyRun(KILLED)).ok).toBe(true);
    } finally {
      await browser.close();
    }
  });
});
