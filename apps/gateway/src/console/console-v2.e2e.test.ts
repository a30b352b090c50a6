import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { launchChromium, screenshotPath } from "../../test/browser.ts";
import { startHarness, TEST_MODEL, type Harness } from "../../test/harness.ts";
import { createSigner, loadConsoleKey } from "./signing.ts";

const APPROVER = "111111111111111111";
const STRANGER = "999999999999999999";
const SECRET = "sk-live-console-v2-secret-0123456789";

let browser: Browser;
let h: Harness | undefined;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const exec = (id: string, code: string) => toolUseTurn({ id, name: "execute", input: { code } });
const start = () => startHarness({ settings: { http: { port: 0, approvers: [APPROVER] }, secrets: [SECRET] } });

async function signIn(harness: Harness): Promise<{ context: BrowserContext; page: Page; base: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(harness.gateway.console!.loginLink(APPROVER));
  await page.waitForURL(/\/console\/runs$/);
  return { context, page, base: harness.gateway.http!.url };
}

async function waitForPending(gateway: Harness["gateway"]) {
  for (let i = 0; i < 200 && (await gateway.approvals.pending()).length === 0; i++) await Bun.sleep(25);
  const [request] = await gateway.approvals.pending();
  if (!request) throw new Error("no approval was requested");
  return request;
}

describe("console v2 in a real browser (Chromium via playwright-core)", () => {
  test("a run page shows the turn it served; the runs list shows the request's first words, who asked, the duration", async () => {
    h = await start();
    h.api.script([exec("toolu_1", "return await tools.reminders.list({});"), textTurn("I sent the list to Ann.")]);
    const request = `please   check my reminders\nand mail Ann the list, key ${SECRET}, thanks: this request goes on and on past the first words`;
    const outcome = await h.gateway.handleMessage({
      sessionKey: "discord:dm:42",
      surface: "discord",
      userId: "discord:42",
      text: request,
    });
    const runId = outcome.runIds[0]!;
    const { context, page, base } = await signIn(h);

    const row = page.locator(`tr[data-run="${runId}"]`);
    const words = await row.locator("a.request").textContent();
    expect(words!.startsWith("please check my reminders and mail Ann the list, key [redacted]")).toBe(true);
    expect(words!.endsWith("…")).toBe(true);
    expect(words).not.toContain(SECRET);
    expect(await row.locator("td.asked-by").textContent()).toBe("discord:42");
    expect(await row.locator("td.duration").textContent()).toMatch(/^\d+ ms$|^\d+\.\d s$/);

    await row.locator("a.request").click();
    await page.waitForURL(new RegExp(`/console/runs/${runId}$`));
    const turn = page.locator("#turn");
    expect(await turn.locator("pre.request").textContent()).toBe(request.replace(SECRET, "[redacted]"));
    expect(await turn.locator("pre.answer").textContent()).toBe("I sent the list to Ann.");
    // No send call backs "I sent": the answer carries the grounding check's flag, as the user saw it.
    expect(await turn.locator(".flag").textContent()).toContain("unverified");
    expect(await turn.locator("code.model").textContent()).toBe(TEST_MODEL);
    expect(await turn.locator("code.asked-by").textContent()).toBe("discord:42");
    expect(await page.locator("h1").textContent()).toContain("please check my reminders");
    await page.screenshot({ path: screenshotPath("v2-run-page.png"), fullPage: true });

    // A grounded answer says so.
    h.api.script([exec("toolu_2", "return await tools.reminders.list({});"), textTurn("You have one reminder.")]);
    const second = await h.gateway.handleMessage({ sessionKey: "discord:dm:42", surface: "discord", text: "list" });
    await page.goto(`${base}/console/runs/${second.runIds[0]}`);
    expect(await page.locator("#turn .flag").textContent()).toContain("grounded");
    expect(await page.locator("#turn pre.answer").textContent()).toBe("You have one reminder.");
    await page.goto(`${base}/console/runs`);
    await page.screenshot({ path: screenshotPath("v2-runs.png"), fullPage: true });
    await context.close();
  }, 60_000);

  test("filters live in the URL: a link shares them, the back button restores them", async () => {
    h = await start();
    h.api.script([exec("toolu_1", "return await tools.reminders.list({});"), textTurn("One reminder.")]);
    const read = await h.gateway.handleMessage({ sessionKey: "t", surface: "terminal", text: "list my reminders" });
    h.api.script([
      exec("toolu_2", 'try { await tools.mail.send({ to: "ann@example.com", body: "hi" }); } catch {}'),
      textTurn("The mail did not go out."),
    ]);
    const mail = await h.gateway.handleMessage({ sessionKey: "t", surface: "terminal", text: "mail ann" });
    const { context, page, base } = await signIn(h);
    const shownRuns = () =>
      page.locator("tr[data-run]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-run")));
    expect((await shownRuns()).sort()).toEqual([read.runIds[0], mail.runIds[0]].sort());

    await page.fill('input[name="tool"]', "mail.*");
    await page.press('input[name="tool"]', "Enter");
    await page.waitForURL((u) => u.searchParams.get("tool") === "mail.*");
    expect(new URL(page.url()).search).toBe("?tool=mail.*"); // only the filters in use
    expect(await shownRuns()).toEqual([mail.runIds[0]]);
    await page.selectOption('select[name="status"]', "succeeded"); // applies at once
    await page.waitForURL((u) => u.searchParams.get("status") === "succeeded");
    expect(new URL(page.url()).searchParams.get("tool")).toBe("mail.*");
    await page.locator("#no-runs").waitFor();
    const shared = page.url();

    await page.goBack();
    await page.waitForURL((u) => u.searchParams.get("tool") === "mail.*" && !u.searchParams.has("status"));
    expect(await page.inputValue('select[name="status"]')).toBe("");
    expect(await page.inputValue('input[name="tool"]')).toBe("mail.*");
    expect(await shownRuns()).toEqual([mail.runIds[0]]);
    await page.goBack();
    await page.waitForURL((u) => u.pathname === "/console/runs" && u.search === "");
    expect(await shownRuns()).toHaveLength(2);
    await page.goForward();
    await page.waitForURL((u) => u.searchParams.get("tool") === "mail.*");
    expect(await shownRuns()).toEqual([mail.runIds[0]]);

    // The shared link opens the same view in another tab: nothing lives outside the URL.
    const other = await context.newPage();
    await other.goto(shared);
    expect(await other.inputValue('select[name="status"]')).toBe("succeeded");
    expect(await other.inputValue('input[name="tool"]')).toBe("mail.*");
    await other.locator("#no-runs").waitFor();
    // Search travels the same way.
    await other.goto(`${base}/console/runs?q=${encodeURIComponent("list my")}`);
    expect(await other.inputValue('input[type="search"]')).toBe("list my");
    await context.close();
  }, 60_000);

  test("every page's header counts pending approvals; the count follows decisions live", async () => {
    h = await start();
    h.api.script([
      exec("toolu_1", 'return await tools.reminders.create({ text: "call mom", at: "tomorrow 9:00" });'),
      textTurn("Scheduled."),
    ]);
    const turn = h.gateway.handleMessage({ sessionKey: "t", surface: "terminal", text: "remind me" });
    const request = await waitForPending(h.gateway);
    const { context, page, base } = await signIn(h);
    for (const path of [
      "/console/overview",
      "/console/runs",
      "/console/approvals",
      "/console/rules",
      "/console/tools",
      `/console/runs/${request.runId}`,
      "/console/nope",
    ]) {
      await page.goto(`${base}${path}`);
      expect(await page.locator("#pending-count").textContent()).toBe("1");
    }
    // Nothing has an outcome yet: the overview's charts say so instead of drawing empty axes.
    await page.goto(`${base}/console/overview`);
    expect(await page.locator("[data-total=all]").textContent()).toBe("0");
    expect(await page.locator("#waits-chart").textContent()).toBe("Nothing in this period.");
    await page.goto(`${base}/console/tools`);
    const count = page.locator("#pending-count");
    expect(await count.getAttribute("class")).toContain("waiting");
    // Decided elsewhere (another surface): the open page's header follows over the event stream.
    h.gateway.approvals.decide(request.callId, { decision: "approved", by: "discord:111111111111111111" });
    await page.locator("#pending-count:not(.waiting)").waitFor({ timeout: 10_000 });
    expect(await count.textContent()).toBe("0");
    await turn;
    // A read-only receipt link has no header count (no session).
    const link = h.gateway.console!.callLink(request.runId, request.callId);
    const viewer = await browser.newPage();
    await viewer.goto(link);
    expect(await viewer.locator("#pending-count").count()).toBe(0);
    await viewer.close();
    await context.close();
  }, 60_000);

  test("approve-always rules: listed with who made them and when; an approver revokes one; refusals change nothing", async () => {
    h = await start();
    const rules = h.gateway.approvals.rules;
    const rule = await rules.add({ toolPath: "reminders.*", scope: "global", createdBy: "discord:222222222222222222" });
    const hostile = await rules.add({
      toolPath: '<img src=x onerror="alert(1)">.*',
      scope: "global",
      createdBy: "discord:<b>bold</b>",
    });
    h.api.script([textTurn("Hello.")]);
    await h.gateway.handleMessage({ sessionKey: "discord:dm:42", surface: "discord", text: "hi" });
    const sessionId = (
      h.gateway.db!.query("SELECT id FROM sessions WHERE external_key = 'discord:dm:42'").get() as {
        id: string;
      }
    ).id;
    const scoped = await rules.add({ toolPath: "notes.write", scope: "session", sessionId, createdBy: "discord:333" });
    const { context, page, base } = await signIn(h);
    await page.goto(`${base}/console/rules`);
    expect(await page.locator(`tr[data-rule="${scoped.id}"] td`).nth(2).textContent()).toBe(
      "conversation discord:dm:42",
    );
    const row = page.locator(`tr[data-rule="${rule.id}"]`);
    expect(await row.locator("td").nth(1).textContent()).toBe("reminders.*");
    expect(await row.locator("td").nth(3).textContent()).toBe("discord:222222222222222222");
    expect(await row.locator("td").nth(4).textContent()).toBe(
      new Date(rule.createdAt)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, "Z"),
    );
    expect(await row.locator("td.state").textContent()).toContain("active");
    // Hostile text is shown as text.
    expect(await page.locator("main img, main b").count()).toBe(0);
    expect(await page.locator(`tr[data-rule="${hostile.id}"]`).textContent()).toContain(
      '<img src=x onerror="alert(1)">.*',
    );

    const signer = createSigner(loadConsoleKey(join(h.dir, ".openassistant", "data"), { add() {} }));
    const session = (operator: string) => signer.sign({ kind: "session", operator, exp: Date.now() + 60_000 });
    const post = (origin: string, operator: string, method = "POST") =>
      fetch(`${base}/console/rules/${rule.id}/revoke`, {
        method,
        redirect: "manual",
        headers: { origin, cookie: `oa_console=${session(operator)}` },
      });
    expect((await post("https://evil.example", APPROVER)).status).toBe(403);
    expect((await post(`http://localhost:${new URL(base).port}`, APPROVER)).status).toBe(403);
    const stranger = await post(base, STRANGER);
    expect(stranger.status).toBe(403);
    expect(await stranger.text()).toContain("is not allowed to decide approvals now");
    expect((await post(base, APPROVER, "GET")).status).not.toBe(303);
    expect(
      (
        await fetch(`${base}/console/rules/${rule.id}/revoke`, {
          method: "POST",
          redirect: "manual",
          headers: { origin: base },
        })
      ).status,
    ).toBe(401);
    expect((await rules.list()).find((r) => r.id === rule.id)?.revokedAt).toBeUndefined();
    expect((await rules.match("reminders.create", undefined, Date.now()))?.id).toBe(rule.id);

    await row.getByRole("button", { name: "Revoke" }).click();
    await page.waitForURL(/notice=revoked/);
    expect(await page.locator("#notice").textContent()).toContain("Revoked");
    const state = await page.locator(`tr[data-rule="${rule.id}"] td.state`).textContent();
    expect(state).toContain(`revoked by console:${APPROVER}`);
    expect(await page.locator(`tr[data-rule="${rule.id}"] button`).count()).toBe(0);
    await page.screenshot({ path: screenshotPath("v2-rules.png"), fullPage: true });
    expect((await rules.list()).find((r) => r.id === rule.id)).toMatchObject({ revokedBy: `console:${APPROVER}` });
    expect(await rules.match("reminders.create", undefined, Date.now())).toBeUndefined();
    // A notice is one of a fixed set: a name inherited by every object is no notice.
    for (const notice of ["toString", "constructor"]) {
      await page.goto(`${base}/console/rules?notice=${notice}`);
      expect(await page.locator("#notice").count()).toBe(0);
      await page.goto(`${base}/console/approvals?notice=${notice}`);
      expect(await page.locator("#notice").count()).toBe(0);
    }
    // A second revoke changes nothing and says so.
    const again = await post(base, APPROVER);
    expect(again.headers.get("location")).toBe("/console/rules?notice=gone");
    await context.close();
  }, 60_000);
});
