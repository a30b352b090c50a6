/**
 * Also: the overview page (charts over a period) over 100,000 receipts spread over the last 24 hours
 * (server render of `/console/overview` for 24 h and 30 d). Goal: well under 1 s.
 *
 * The console's run page for a run with 1,000 calls (3,333 receipts, a third of the calls approved
 * by an operator), opened from a receipt link to call 500: server render (HTTP GET of the whole
 * page: all receipts read, the run's hash chain verified, the activity summary, the page of 100
 * calls holding call 500 with full timelines, and the pager) and a real browser load (Chromium via
 * playwright-core: navigation to the `load` event, stylesheet included). Goal: each under 1 s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApprovalBroker } from "../packages/core/src/approvals/broker.ts";
import { openSqliteApprovals } from "../packages/core/src/approvals/sqlite/open.ts";
import { openDatabase } from "../packages/core/src/db/open.ts";
import { openSqliteReceipts } from "../packages/core/src/receipts/sqlite/ports.ts";
import type { ReceiptDraft } from "../packages/core/src/receipts/types.ts";
import { createConsole } from "../apps/gateway/src/console/index.ts";
import { createSigner, loadConsoleKey } from "../apps/gateway/src/console/signing.ts";
import { createRunCodeStore } from "../apps/gateway/src/console/sqlite/run-code.ts";
import { CALLS_PER_PAGE } from "../apps/gateway/src/console/pages/run.ts";
import { createEventBus } from "../apps/gateway/src/events/bus.ts";
import { startHttpApi } from "../apps/gateway/src/http/server.ts";
import { openGatewayRunJournal } from "../apps/gateway/src/runs/journal.ts";
import { createRunControl } from "../apps/gateway/src/runs/operator-control.ts";
import { launchChromium } from "../apps/gateway/test/browser.ts";
import { staticToolSource } from "../apps/gateway/src/tools-source.ts";
import { bench, type BenchResult, fmtMs, printTable } from "./lib.ts";

const CALLS = 1000;

/** Like lib.ts `bench`, for steps that time only part of each iteration (`fn` returns its ms). */
async function timed(name: string, iterations: number, fn: () => Promise<number>): Promise<BenchResult> {
  for (let i = 0; i < 2; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) samples.push(await fn());
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { name, iterations, medianMs: at(0.5), p95Ms: at(0.95), minMs: samples[0]! };
}
const GOAL_MS = 1000;
const dir = mkdtempSync(join(tmpdir(), "oa-bench-console-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

const db = openDatabase(join(dir, "db.sqlite"));
const receipts = openSqliteReceipts(db, { keyDir: join(dir, "config") });
const approvals = createApprovalBroker({ ...openSqliteApprovals(db), defaultTimeoutMs: 60_000 });
const events = createEventBus();
const runId = "run_bench";
for (let c = 0; c < CALLS; c++) {
  const required = c % 3 === 0;
  const base = {
    runId,
    callId: `call_${c}`,
    sessionId: "sess_1",
    toolPath: required ? "calendar.create" : "weather.get",
    approval: required ? "required" : "auto",
    policy: required ? "required" : "auto",
  } as const;
  const phases: ReceiptDraft[] = [
    { ...base, phase: "requested", inputPreview: `{"location":"Berlin","day":${c},"note":"bidi \u202E here"}` },
    ...(required ? [{ ...base, phase: "approved", decision: "approved", decidedBy: "discord:111" } as const] : []),
    { ...base, phase: "started", decision: required ? "approved" : "auto" },
    {
      ...base,
      phase: "succeeded",
      decision: required ? "approved" : "auto",
      outputPreview: '{"tempC":21}',
      durationMs: 12,
    },
  ];
  for (const d of phases) receipts.stage(d);
}
await receipts.durable();

let server: ReturnType<typeof startHttpApi> | undefined;
const consoleUi = createConsole({
  settings: { dataDir: join(dir, "data"), http: { port: 0 }, policy: [] },
  receipts,
  runCode: createRunCodeStore(db),
  runs: createRunControl({ receipts, journal: openGatewayRunJournal(join(dir, "data")), leftAtStart: [], resumed: [] }),
  approvals,
  events,
  tools: () => staticToolSource({}).current(),
  redact: (t) => t,
  secrets: { add() {} },
  localUrl: () => server?.url ?? "",
});
server = startHttpApi({ port: 0, token: "bench-token", receipts, events, console: consoleUi });
const link = consoleUi.callLink(runId, "call_500");

const first = await fetch(link);
const bytes = (await first.text()).length;
if (first.status !== 200) throw new Error(`run page answered ${first.status}`);

const serverRender = await bench("server render (GET, full body)", async () => (await fetch(link)).text(), {
  iterations: 20,
  warmup: 3,
});

const browser = await launchChromium();
const page = await browser.newPage();
// Same-origin navigation (a click within the console, or a link opened in a tab already on it):
// only the navigation to the run page is timed.
const browserLoad = await timed("browser load, same tab (navigation to load event)", 10, async () => {
  await page.goto(`${server!.url}/console/static/console.css`);
  const t0 = performance.now();
  await page.goto(link, { waitUntil: "load" });
  return performance.now() - t0;
});
// A new tab: Chromium starts a renderer process for it (site isolation), as when the link is clicked in Discord.
const freshTab = await bench(
  "browser load, new tab (renderer start + navigation to load event)",
  async () => {
    const tab = await browser.newPage();
    await tab.goto(link, { waitUntil: "load" });
    await tab.close();
  },
  { iterations: 10, warmup: 2 },
);
await page.goto(link, { waitUntil: "load" });
const shown = await page.locator("section.call").count();
const target = await page.locator("section.call:target h3").textContent();
await browser.close();
consoleUi.close();
await server.close();
await approvals.close();
await receipts.close();
db.close();
if (shown !== CALLS_PER_PAGE || !target?.includes("call_500"))
  throw new Error(
    `the page showed ${shown} calls (expected ${CALLS_PER_PAGE}) with ${target} as the target (expected call_500)`,
  );

printTable(
  `Console run page of a run with ${CALLS} calls, opened from a receipt link (${CALLS_PER_PAGE} full timelines per page, ${(bytes / 1024).toFixed(0)} KiB of HTML)`,
  [
    ...[serverRender, browserLoad, freshTab].map((r) => ({
      step: r.name,
      median: fmtMs(r.medianMs),
      p95: fmtMs(r.p95Ms),
      goal: `< ${GOAL_MS} ms`,
      met: r.p95Ms < GOAL_MS ? "yes" : "NO",
    })),
  ],
);

// The overview over 100,000 receipts (25,000 calls in 5,000 runs over the last 24 hours).
const OVERVIEW_CALLS = 31_000;
const odb = openDatabase(join(dir, "overview.sqlite"));
let clock = Date.now() - 24 * 3_600_000;
const oreceipts = openSqliteReceipts(odb, { keyDir: join(dir, "config"), now: () => clock });
const step = (24 * 3_600_000) / OVERVIEW_CALLS;
for (let c = 0; c < OVERVIEW_CALLS; c++) {
  clock += step;
  const required = c % 3 === 0;
  const base = {
    runId: `run_${Math.floor(c / 5)}`,
    callId: `call_${c}`,
    sessionId: "sess_1",
    toolPath: `tool${c % 40}.do`,
    approval: required ? "required" : "auto",
    policy: required ? "required" : "auto",
  } as const;
  const decided = { decision: c % 30 === 0 ? "denied" : "approved", decidedBy: `console:op${c % 4}` } as const;
  const outcome = c % 20 === 1 ? "failed" : "succeeded";
  const phases: ReceiptDraft[] = required
    ? decided.decision === "denied"
      ? [
          { ...base, phase: "requested" },
          { ...base, phase: "denied", ...decided, reason: "no" },
        ]
      : [
          { ...base, phase: "requested" },
          { ...base, phase: "approved", ...decided },
          { ...base, phase: "started", ...decided },
          { ...base, phase: outcome, ...decided, durationMs: c % 97 },
        ]
    : [
        { ...base, phase: "requested", inputPreview: "{}" },
        { ...base, phase: "started", decision: "auto" },
        { ...base, phase: outcome, decision: "auto", durationMs: c % 89, outputPreview: "{}" },
      ];
  for (const d of phases) oreceipts.stage(d);
  if (c % 5000 === 4999) await oreceipts.durable();
}
await oreceipts.durable();
const receiptCount = (odb.query("SELECT COUNT(*) AS n FROM receipts").get() as { n: number }).n;
const oapprovals = createApprovalBroker({ ...openSqliteApprovals(odb), defaultTimeoutMs: 60_000 });
let oserver: ReturnType<typeof startHttpApi> | undefined;
const oconsole = createConsole({
  settings: { dataDir: join(dir, "data"), http: { port: 0, approvers: ["bench"] }, policy: [] },
  receipts: oreceipts,
  runCode: createRunCodeStore(odb),
  runs: createRunControl({
    receipts: oreceipts,
    journal: openGatewayRunJournal(join(dir, "data")),
    leftAtStart: [],
    resumed: [],
  }),
  approvals: oapprovals,
  events,
  tools: () => staticToolSource({}).current(),
  redact: (t) => t,
  secrets: { add() {} },
  localUrl: () => oserver?.url ?? "",
});
oserver = startHttpApi({ port: 0, token: "bench-token", receipts: oreceipts, events, console: oconsole });
const cookie = `oa_console=${createSigner(loadConsoleKey(join(dir, "data"), { add() {} })).sign({ kind: "session", operator: "bench", exp: Date.now() + 3_600_000 })}`;
const overviewUrl = (period: string) => `${oserver!.url}/console/overview?period=${period}`;
const check = await fetch(overviewUrl("24h"), { headers: { cookie } });
const html = await check.text();
const total = /data-total="all">(\d+)</.exec(html)?.[1];
if (check.status !== 200 || Number(total) !== OVERVIEW_CALLS)
  throw new Error(`overview answered ${check.status} with ${total} calls (expected ${OVERVIEW_CALLS})`);
const overviewRows = [
  await bench("overview query only (24 h)", () => oreceipts.overview("24h", Date.now()), { iterations: 20, warmup: 3 }),
];
for (const period of ["24h", "30d"])
  overviewRows.push(
    await bench(
      `server render GET /console/overview?period=${period}`,
      async () => (await fetch(overviewUrl(period), { headers: { cookie } })).text(),
      {
        iterations: 20,
        warmup: 3,
      },
    ),
  );
oconsole.close();
await oserver.close();
await oapprovals.close();
await oreceipts.close();
odb.close();
printTable(
  `Console overview over ${receiptCount.toLocaleString("en-US")} receipts (${OVERVIEW_CALLS.toLocaleString("en-US")} calls in the last 24 hours; ${(html.length / 1024).toFixed(0)} KiB of HTML)`,
  overviewRows.map((r) => ({
    step: r.name,
    median: fmtMs(r.medianMs),
    p95: fmtMs(r.p95Ms),
    goal: `< ${GOAL_MS} ms`,
    met: r.p95Ms < GOAL_MS ? "yes" : "NO",
  })),
);
