import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createSecretRegistry } from "@openassistant/core/receipts";
import type { Browser } from "playwright-core";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { launchChromium, screenshotPath } from "../../test/browser.ts";
import { startHarness, terminalStreams, type Harness } from "../../test/harness.ts";
import { startTerminalSurface } from "../surfaces/terminal/terminal-surface.ts";
import { RECEIPT_LINK_TTL_MS } from "./routes.ts";
import { createSigner, loadConsoleKey } from "./signing.ts";

const APPROVER = "111111111111111111";
const STRANGER = "999999999999999999";
const SECRET = "sk-live-console-secret-0123456789";

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

/** A turn that reads, then tries a send that fails, with a bidi override and a secret in its input. */
const READ_AND_FAIL = [
  "const list = await tools.reminders.list({});",
  `try { await tools.mail.send({ to: "ann@example.com", body: "pay \\u202Eevil ${SECRET}" }); } catch (e) {}`,
  "return list;",
].join("\n");

async function waitForPending(gateway: Harness["gateway"]) {
  for (let i = 0; i < 200 && (await gateway.approvals.pending()).length === 0; i++) await Bun.sleep(25);
  const [request] = await gateway.approvals.pending();
  if (!request) throw new Error("no approval was requested");
  return request;
}

describe("console in a real browser (Chromium via playwright-core)", () => {
  test("a receipt link from the terminal's answer opens the run page with each call's timeline", async () => {
    h = await start();
    h.api.script([exec("toolu_1", READ_AND_FAIL), textTurn("You have one reminder; the mail did not go out.")]);
    const io = terminalStreams();
    const surface = startTerminalSurface({ gateway: h.gateway, input: io.input, output: io.output, tty: false });
    io.send("what reminders, and mail ann");
    const links = await io.waitFor(/Receipts in the console[\s\S]*mail\.send \[r_\d+\] \S+\n/, 20_000);
    const url = /mail\.send \[r_\d+\] (\S+)/.exec(links)![1]!;
    expect(url.startsWith(`${h.gateway.http!.url}/console/runs/run_`)).toBe(true);
    expect(url).toContain("?t=");
    io.input.end();
    await surface.done;

    const page = await browser.newPage();
    const res = await page.goto(url);
    expect(res!.status()).toBe(200);
    const mail = page.locator("section.call", { hasText: "tools.mail.send" });
    expect(await mail.locator("ol.timeline li strong").allTextContents()).toEqual([
      "requested",
      "input validated",
      "started (auto: no approval needed)",
      "failed",
    ]);
    expect(await mail.locator("ol.timeline").textContent()).toContain("SMTP server refused the connection");
    // The call the link names is the page's target (highlighted).
    expect(new URL(page.url()).hash).toMatch(/^#call-/);
    expect(await page.locator("section.call:target h3").textContent()).toContain("tools.mail.send");
    const input = await mail.locator("pre.input").textContent();
    expect(input).toContain("\\u{202E}evil");
    expect(input).not.toContain("\u202E");
    expect(input).not.toContain(SECRET);
    expect(input).toContain("[redacted]");
    const list = page.locator("section.call", { hasText: "tools.reminders.list" });
    expect(await list.locator("pre.result").textContent()).toContain("water plants");
    expect(await page.locator("pre.code").textContent()).toContain("await tools.reminders.list({});");
    expect(await page.locator("#integrity").textContent()).toContain("hash chain verified");
    expect(await page.locator("ul.summary").textContent()).toMatch(
      /failed mail\.send SMTP server refused the connection/,
    );
    // A receipt link is read-only: no navigation to the rest of the console.
    expect(await page.locator("nav a").count()).toBe(0);
    expect((await fetch(`${h.gateway.http!.url}/console/approvals`)).status).toBe(401);
    await page.screenshot({ path: screenshotPath("run-page.png"), fullPage: true });
    await page.close();
  }, 60_000);

  test("an operator approves a pending call from the browser; the runs list updates live and the tool runs", async () => {
    h = await start();
    h.api.script([
      exec("toolu_1", 'return await tools.reminders.create({ text: "call mom", at: "tomorrow 9:00" });'),
      textTurn("Scheduled."),
    ]);
    const turn = h.gateway.handleMessage({
      sessionKey: "discord:dm:42",
      surface: "discord",
      userId: "discord:42",
      text: "remind me",
    });
    const request = await waitForPending(h.gateway);

    const context = await browser.newContext();
    const runs = await context.newPage();
    await runs.goto(h.gateway.console!.loginLink(APPROVER));
    await runs.waitForURL(/\/console\/runs$/);
    const row = runs.locator(`tr[data-run="${request.runId}"]`);
    expect(await row.locator(".status").textContent()).toContain("pending");
    expect(await row.textContent()).toContain("discord:dm:42");
    await runs.screenshot({ path: screenshotPath("runs.png"), fullPage: true });

    const approvals = await context.newPage();
    await approvals.goto(`${h.gateway.http!.url}/console/approvals`);
    const card = approvals.locator(`section.approval[data-call="${request.callId}"]`);
    expect(await card.locator("h3").textContent()).toContain("tools.reminders.create");
    expect(await card.locator("pre.input").textContent()).toContain("call mom");
    expect(await card.textContent()).toContain("Create a reminder at a time");
    await approvals.screenshot({ path: screenshotPath("approvals.png"), fullPage: true });
    await card.getByRole("button", { name: "Approve", exact: true }).click();
    await approvals.waitForURL(/notice=approved/);
    expect(await approvals.locator("#notice").textContent()).toContain("Approved");

    const outcome = await turn;
    expect(outcome.text).toBe("Scheduled.");
    expect(h.calls).toEqual(["reminders.create:call mom"]);
    // The runs page saw it over the event stream, without a reload.
    await row.locator(".status.succeeded").waitFor({ timeout: 10_000 });
    // Search and filters apply (each is a navigation to the filtered URL; console-v2.e2e.test.ts checks the URL).
    await runs.fill('input[name="q"]', "no-such-text");
    await runs.press('input[name="q"]', "Enter");
    await runs.locator("#no-runs").waitFor();
    await runs.fill('input[name="q"]', "call mom");
    await runs.selectOption('select[name="status"]', "succeeded");
    await row.waitFor();
    await runs.selectOption('select[name="status"]', "failed");
    await runs.locator("#no-runs").waitFor();

    await runs.goto(`${h.gateway.http!.url}/console/runs/${request.runId}`);
    const steps = await runs.locator("section.call ol.timeline li").allTextContents();
    expect(steps.join("\n")).toMatch(
      /requested[\s\S]*input validated[\s\S]*approval requested[\s\S]*approved by console:111111111111111111[\s\S]*started[\s\S]*succeeded/,
    );
    // A second decision changes nothing: the first one stands.
    const again = await approvals.request.post(`${h.gateway.http!.url}/console/approvals/${request.callId}/deny`, {
      headers: { origin: h.gateway.http!.url },
      maxRedirects: 0,
    });
    expect(again.headers().location).toBe("/console/approvals?notice=already");
    await runs.goto(`${h.gateway.http!.url}/console/tools`);
    expect(await runs.locator("#tools-table").textContent()).toContain("tools.reminders.create");
    await runs.screenshot({ path: screenshotPath("tools.png"), fullPage: true });
    await context.close();
  }, 60_000);

  test("expired, tampered and misused links are refused", async () => {
    h = await start();
    h.api.script([exec("toolu_1", "return await tools.reminders.list({});"), textTurn("One reminder.")]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "t", surface: "terminal", text: "list" });
    const runId = outcome.runIds[0]!;
    const callId = outcome.summary.items[0]?.callId ?? "c";
    const good = h.gateway.console!.callLink(runId, callId);
    const page = await browser.newPage();

    expect((await page.goto(good))!.status()).toBe(200);
    const u = new URL(good);
    const t = u.searchParams.get("t")!;
    const tampered = new URL(good);
    tampered.searchParams.set("t", `${t.slice(0, -2)}${t.endsWith("AA") ? "BB" : "AA"}`);
    let res = await page.goto(tampered.toString());
    expect(res!.status()).toBe(401);
    expect(await page.locator("h1").textContent()).toBe("Link refused");
    expect(await page.locator(".notice").textContent()).toContain("not valid");

    // The same grant for another run: the signature covers the run id.
    const payload = JSON.parse(Buffer.from(t.split(".")[0]!, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, runId: "run_other" })).toString("base64url");
    res = await page.goto(`${h.gateway.http!.url}/console/runs/run_other?t=${forged}.${t.split(".")[1]}`);
    expect(res!.status()).toBe(401);
    // A valid link for one run does not open another.
    res = await page.goto(`${h.gateway.http!.url}/console/runs/run_other?t=${t}`);
    expect(res!.status()).toBe(401);

    const dataDir = join(h.dir, ".openassistant", "data");
    const past = createSigner(
      loadConsoleKey(dataDir, createSecretRegistry()),
      () => Date.now() - RECEIPT_LINK_TTL_MS - 60_000,
    );
    res = await page.goto(
      `${h.gateway.http!.url}/console/runs/${runId}?t=${past.sign({ kind: "run", runId, exp: Date.now() - 60_000 })}`,
    );
    expect(res!.status()).toBe(410);
    expect(await page.locator(".notice").textContent()).toContain("expired");
    await page.screenshot({ path: screenshotPath("refused-link.png") });

    // No link at all: the run page needs a signed-in operator.
    res = await page.goto(`${h.gateway.http!.url}/console/runs/${runId}`);
    expect(res!.status()).toBe(401);
    expect(await page.locator(".notice").textContent()).toContain("openassistant console login");
    // A receipt link is not a session: the rest of the console stays closed.
    res = await page.goto(`${h.gateway.http!.url}/console/runs?t=${t}`);
    expect(res!.status()).toBe(401);
    await page.close();
  }, 60_000);

  test("an unauthorized approver cannot sign in or decide; the call stays pending", async () => {
    h = await start();
    h.api.script([
      exec("toolu_1", 'return await tools.reminders.create({ text: "x", at: "now" });'),
      textTurn("Done."),
    ]);
    const turn = h.gateway.handleMessage({ sessionKey: "t", surface: "terminal", text: "remind" });
    const request = await waitForPending(h.gateway);
    const base = h.gateway.http!.url;
    const context = await browser.newContext();
    const page = await context.newPage();

    const res = await page.goto(h.gateway.console!.loginLink(STRANGER));
    expect(res!.status()).toBe(403);
    expect(await page.locator("h1").textContent()).toBe("Not an approver");
    expect((await context.cookies()).length).toBe(0);

    // Posting a decision without a session, with a forged session, or with a stranger's signed session.
    const post = (cookie?: string) =>
      fetch(`${base}/console/approvals/${request.callId}/approve`, {
        method: "POST",
        redirect: "manual",
        headers: { origin: base, ...(cookie ? { cookie: `oa_console=${cookie}` } : {}) },
      });
    expect((await post()).status).toBe(401);
    expect((await post("e30.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).status).toBe(401);
    const signer = createSigner(loadConsoleKey(join(h.dir, ".openassistant", "data"), createSecretRegistry()));
    const strangerSession = signer.sign({ kind: "session", operator: STRANGER, exp: Date.now() + 60_000 });
    const refused = await post(strangerSession);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("not allowed to decide approvals");
    // A login link is not a session either.
    const loginToken = new URL(h.gateway.console!.loginLink(APPROVER)).searchParams.get("t")!;
    expect((await post(loginToken)).status).toBe(401);
    // A cross-site post from a signed-in approver is refused too.
    const approverSession = signer.sign({ kind: "session", operator: APPROVER, exp: Date.now() + 60_000 });
    const crossSite = await fetch(`${base}/console/approvals/${request.callId}/approve`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: "https://evil.example", cookie: `oa_console=${approverSession}` },
    });
    expect(crossSite.status).toBe(403);
    // A call id that is not valid percent-encoding is a clear 400, not a server error.
    const badId = await fetch(`${base}/console/approvals/%E0%A4%A/approve`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: base, cookie: `oa_console=${approverSession}` },
    });
    expect(badId.status).toBe(400);
    expect(await badId.text()).toContain("not valid percent-encoding");
    expect((await h.gateway.approvals.get(request.callId))?.status).toBe("pending");

    // The approver denies with a reason from the browser; the model gets it.
    await page.goto(h.gateway.console!.loginLink(APPROVER));
    await page.waitForURL(/\/console\/runs$/);
    await page.goto(`${base}/console/approvals`);
    const card = page.locator(`section.approval[data-call="${request.callId}"]`);
    await card.getByPlaceholder("reason (the model sees it)").fill("not now");
    await card.getByRole("button", { name: "Deny with reason" }).click();
    await page.waitForURL(/notice=denied/);
    await turn;
    expect((await h.gateway.approvals.get(request.callId))?.decision).toMatchObject({
      decision: "denied",
      by: `console:${APPROVER}`,
      reason: "not now",
    });
    expect(h.calls).toEqual([]);
    await context.close();
  }, 60_000);

  test("a login link clicked on another site (a Discord DM) signs in: the Strict cookie reaches the console", async () => {
    h = await start();
    const link = h.gateway.console!.loginLink(APPROVER);
    // Another site: localhost is a different site from 127.0.0.1, whatever the port.
    const other = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(`<a id="login" href="${link}">log in</a>`, { headers: { "content-type": "text/html" } }),
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`http://localhost:${other.port}/`);
      await page.click("#login");
      await page.waitForURL(/\/console\/runs$/);
      expect(await page.locator("h1").textContent()).toBe("Runs");
      expect(await page.locator("nav .who").textContent()).toContain(APPROVER);
    } finally {
      await context.close();
      other.stop(true);
    }
  }, 60_000);
});
