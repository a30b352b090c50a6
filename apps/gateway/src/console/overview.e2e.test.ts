import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { createApprovalBroker, openSqliteApprovals } from "@openassistant/core/approvals";
import { openDatabase } from "@openassistant/core/db";
import { openSqliteReceipts } from "@openassistant/core/receipts";
import type { ReceiptDraft } from "@openassistant/core/testing";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { launchChromium, screenshotPath } from "../../test/browser.ts";
import { createEventBus } from "../events/bus.ts";
import { startHttpApi } from "../http/server.ts";
import { staticToolSource } from "../tools-source.ts";
import { createConsole } from "./index.ts";
import { openGatewayRunJournal } from "../runs/journal.ts";
import { createRunControl } from "../runs/operator-control.ts";
import { createRunCodeStore } from "./sqlite/run-code.ts";

const HOUR = 3_600_000;
const MIN = 60_000;
const EVIL = "x<script>alert(1)</script>";

/**
 * Receipts written at chosen times (the store's clock), in three hours: H-10h, H-3h and H-1h.
 * Expected, over 24 h: 8 succeeded, 2 failed, 3 denied; over 6 h one succeeded call fewer.
 */
function seed(dir: string) {
  const db = openDatabase(join(dir, "db.sqlite"));
  let clock = 0;
  const receipts = openSqliteReceipts(db, { keyDir: join(dir, "config"), now: () => clock });
  let n = 0;
  type Step = Partial<ReceiptDraft> & { phase: ReceiptDraft["phase"]; after?: number };
  const call = (at: number, toolPath: string, policy: ReceiptDraft["policy"], steps: Step[]) => {
    const ids = { runId: `run_${++n}`, callId: `call_${n}`, sessionId: "ses_1", toolPath };
    clock = at;
    const required = policy === "required" ? "required" : "auto";
    for (const { after, ...s } of steps) {
      clock += after ?? 0;
      receipts.stage({ ...ids, approval: required, policy, ...s } as ReceiptDraft);
    }
    return ids.runId;
  };
  const ran = (durationMs: number, outcome: "succeeded" | "failed" = "succeeded"): Step[] => [
    { phase: "started" },
    { phase: outcome, durationMs, ...(outcome === "failed" ? { error: "boom" } : {}) },
  ];
  const H = Math.floor(Date.now() / HOUR) * HOUR;
  const A = H - 3 * HOUR;
  const B = H - HOUR;
  for (const d of [10, 20, 30]) call(A + 10 * MIN, "fast.tool", "auto", [{ phase: "requested" }, ...ran(d)]);
  call(A + 12 * MIN, "slow.tool", "auto", [{ phase: "requested" }, ...ran(3000)]);
  call(A + 15 * MIN, EVIL, "auto", [{ phase: "requested" }, ...ran(5, "failed")]);
  const ask = (by: string, after: number, decision: "approved" | "denied", reason?: string): Step => ({
    phase: decision,
    decision,
    decidedBy: by,
    after,
    ...(reason ? { reason } : {}),
  });
  call(A + 20 * MIN, "mail.send", "required", [
    { phase: "requested" },
    ask("console:ann", 2000, "denied", "not today"),
  ]);
  call(A + 21 * MIN, "mail.send", "deny", [{ phase: "requested" }, ask("policy", 0, "denied", "blocked by policy")]);
  call(A + 22 * MIN, "notes.write", "required", [
    { phase: "requested" },
    ask("console:ann", 1000, "approved"),
    ...ran(1000),
  ]);
  call(B + 5 * MIN, "notes.write", "required", [
    { phase: "requested" },
    ask("console:ann", 10_000, "approved"),
    ...ran(1000),
  ]);
  call(B + 6 * MIN, "notes.write", "required", [
    { phase: "requested" },
    ask("discord:bob", 4000, "approved"),
    ...ran(50, "failed"),
  ]);
  // Approved by a standing rule, and the clock stepped back 2 s before it started: causal order is by seq.
  const steppedBack = call(B + 40 * MIN, "notes.write", "required", [
    { phase: "requested" },
    ask("rule:ar_1", 0, "approved"),
    { phase: "started", decision: "approved", decidedBy: "rule:ar_1", after: -2000 },
    { phase: "succeeded", durationMs: 1000, after: 1000 },
  ]);
  call(B + 41 * MIN, "mail.send", "required", [
    { phase: "requested" },
    ask("timeout", 60_000, "denied", "no decision in time"),
  ]);
  call(H - 10 * HOUR, "fast.tool", "auto", [{ phase: "requested" }, ...ran(10)]);
  return { db, receipts, steppedBack, A, B };
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe("console overview in a real browser", () => {
  test("charts and their tables show the seeded receipts' numbers; the period is in the URL; hostile names stay text", async () => {
    const dir = makeTempDir("oa-console-overview-");
    const { db, receipts, steppedBack, A, B } = seed(dir);
    await receipts.durable();
    const approvals = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
    const events = createEventBus();
    let server: ReturnType<typeof startHttpApi> | undefined;
    const ui = createConsole({
      settings: { dataDir: join(dir, "data"), http: { port: 0, approvers: ["ann"] }, policy: [] },
      receipts,
      runCode: createRunCodeStore(db),
      runs: createRunControl({
        receipts,
        journal: openGatewayRunJournal(join(dir, "data")),
        leftAtStart: [],
        resumed: [],
      }),
      approvals,
      events,
      tools: () => staticToolSource({}).current(),
      redact: (t) => t,
      secrets: { add() {} },
      localUrl: () => server?.url ?? "",
    });
    server = startHttpApi({ port: 0, token: "t", receipts, events, console: ui });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(ui.loginLink("ann"));
      await page.waitForURL(/\/console\/runs$/);
      await page.goto(`${server.url}/console/overview`);
      const total = (k: string) => page.locator(`[data-total="${k}"]`).textContent();
      expect([await total("all"), await total("succeeded"), await total("failed"), await total("denied")]).toEqual([
        "13",
        "8",
        "2",
        "3",
      ]);
      // Calls per hour by outcome: an SVG with a title, a bar per hour, and the same numbers as a table.
      const svg = page.locator("#calls-chart svg[role=img]");
      expect(await svg.locator("title").first().textContent()).toBe("Calls per hour by outcome, last 24 hours");
      expect(await svg.locator("g[data-bar]").count()).toBe(25);
      expect(await svg.locator("rect.s-failed").count()).toBe(2);
      const hour = (t: number) =>
        new Date(Math.floor(t / HOUR) * HOUR)
          .toISOString()
          .replace("T", " ")
          .replace(/\.\d+Z$/, "Z");
      const rowsOf = (id: string) =>
        page
          .locator(`#${id} tbody tr`)
          .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
      expect(await rowsOf("calls-table")).toEqual([
        [hour(A - 7 * HOUR), "1", "0", "0"],
        [hour(A), "5", "1", "2"],
        [hour(B), "2", "1", "1"],
      ]);
      expect(await svg.locator("rect.s-denied title").allTextContents()).toEqual([
        `${hour(A)}: 2 denied`,
        `${hour(B)}: 1 denied`,
      ]);
      // Wait times per approver (nearest rank): ann waited 1 s, 2 s, 10 s; bob 4 s. Rules, the policy and timeouts asked nobody.
      expect(await rowsOf("waits-table")).toEqual([
        ["console:ann", "3", "2.0 s", "10.0 s"],
        ["discord:bob", "1", "4.0 s", "4.0 s"],
      ]);
      expect(await page.locator("#waits-chart svg[role=img] g.row").count()).toBe(2);
      expect(await rowsOf("slow-table")).toEqual([
        ["slow.tool", "1", "3.0 s", "3.0 s"],
        ["notes.write", "4", "763 ms", "1.0 s"],
        ["fast.tool", "4", "18 ms", "30 ms"],
        [EVIL, "1", "5 ms", "5 ms"],
      ]);
      expect(await rowsOf("failing-table")).toEqual([
        [EVIL, "1", "1", "100%"],
        ["notes.write", "4", "1", "25%"],
      ]);
      const denied = await rowsOf("denied-table");
      expect(denied.map((r) => [r[1], r[2], r[3]])).toEqual([
        ["mail.send", "timeout", "no decision in time"],
        ["mail.send", "policy", "blocked by policy"],
        ["mail.send", "console:ann", "not today"],
      ]);
      // The tool named like markup is text in the SVG and the tables: no script element was made from it.
      expect(await page.locator("script").count()).toBe(2);
      expect(await page.locator("#failing-chart g.row text.label title").first().textContent()).toBe(EVIL);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: screenshotPath("v2-overview.png"), fullPage: true });

      // The period is a URL parameter: a link to 6 hours leaves out the call 10 hours ago.
      await page.getByRole("link", { name: "last 6 hours" }).click();
      await page.waitForURL(/\?period=6h$/);
      expect(await total("succeeded")).toBe("7");
      expect(await page.locator("#calls-chart svg title").first().textContent()).toContain("last 6 hours");
      await page.goBack();
      await page.waitForURL(/\/console\/overview$/);
      expect(await total("succeeded")).toBe("8");
      // An unknown period falls back to the default.
      await page.goto(`${server.url}/console/overview?period=${encodeURIComponent("<b>1y</b>")}`);
      expect(await total("succeeded")).toBe("8");

      // A call's timeline is in causal order (seq), though its clock stepped back before it started.
      await page.goto(`${server.url}/console/runs/${steppedBack}`);
      expect(await page.locator("section.call ol.timeline li strong").allTextContents()).toEqual([
        "requested",
        "input validated",
        "policy: approval required",
        "approved by rule:ar_1 (approve-always rule ar_1)",
        "started",
        "succeeded in 1000 ms",
      ]);
    } finally {
      await context.close();
      ui.close();
      await server.close();
      await approvals.close();
      await receipts.close();
      db.close();
    }
  }, 60_000);
});
