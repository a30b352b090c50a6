/**
 * Receipts, activity summary and approval broker.
 * Appends: the one-commit-per-receipt path (`append`) against group commit (`stage` + `durable`,
 * as the tool invoker writes them: requested + started in one commit before the tool runs, the
 * outcome joining the next commit), single run and 50 concurrent runs, measured in the same run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApprovalBroker } from "../packages/core/src/approvals/broker.ts";
import { openSqliteApprovals } from "../packages/core/src/approvals/sqlite/open.ts";
import type { ApprovalRequest } from "../packages/core/src/approvals/types.ts";
import { openDatabase } from "../packages/core/src/db/open.ts";
import { createSqliteReceiptStore } from "../packages/core/src/receipts/sqlite/store.ts";
import { formatSummaryForModel, summarizeRun } from "../packages/core/src/receipts/summary.ts";
import type { SqliteReceiptStore } from "../packages/core/src/receipts/sqlite/store.ts";
import type { ReceiptDraft, ReceiptPhase } from "../packages/core/src/receipts/types.ts";
import { bench, fmtMs, printTable } from "./lib.ts";

const dir = mkdtempSync(join(tmpdir(), "oa-bench-receipts-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
const keyDir = join(dir, "config");
let fileNo = 0;

const PHASES: ReceiptPhase[] = ["requested", "started", "succeeded"];
function draftFor(i: number, run = Math.floor(i / 30)): ReceiptDraft {
  return {
    runId: `run_${run}`,
    callId: `call_${Math.floor(i / 3)}`,
    sessionId: "sess_1",
    toolPath: i % 9 < 3 ? "calendar.create" : "weather.get",
    approval: "auto",
    policy: "auto",
    phase: PHASES[i % 3]!,
    decision: i % 3 === 0 ? undefined : "auto",
    inputPreview: '{"location":"Berlin","units":"metric"}',
    outputPreview: i % 3 === 2 ? '{"tempC":21,"sky":"clear"}' : undefined,
    durationMs: i % 3 === 2 ? 12 : undefined,
  };
}

function freshStore(journal = false): { store: SqliteReceiptStore; close: () => void } {
  const db = openDatabase(join(dir, `r${fileNo++}.sqlite`));
  const store = createSqliteReceiptStore(db, { keyDir, journal });
  for (let i = 0; i < 200; i++) store.append(draftFor(i, 999_999)); // warm-up: statements, pages
  return { store, close: () => (store.close(), db.close()) };
}

const quantile = (xs: Float64Array, q: number) => xs.sort()[Math.floor(q * (xs.length - 1))]!;
/**
 * CPU (user + system) per receipt in µs. On a shared machine the wall-clock rate depends on what
 * else runs; 1e6 / this is the rate one free core sustains (WAL with synchronous=NORMAL does not
 * wait for the disk, so a commit is CPU and a write syscall).
 */
function cpuPer(start: NodeJS.CpuUsage, receipts: number): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / receipts;
}
const perCore = (cpuUs: number) => Math.round(1e6 / cpuUs).toLocaleString("en-US");

/** One writer, each receipt its own committed transaction (the path before group commit). */
function oldPathSingle(n: number) {
  const { store, close } = freshStore();
  const times = new Float64Array(n);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    store.append(draftFor(i));
    times[i] = performance.now() - t;
  }
  const rate = n / ((performance.now() - t0) / 1000);
  const cpu = cpuPer(cpu0, n);
  close();
  return { rate, cpu, median: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

/** One receipt made durable through the group-commit path: stage, then await its commit. */
async function groupSingle(n: number) {
  const { store, close } = freshStore();
  const times = new Float64Array(n);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    store.stage(draftFor(i));
    await store.durable();
    times[i] = performance.now() - t;
  }
  const rate = n / ((performance.now() - t0) / 1000);
  const cpu = cpuPer(cpu0, n);
  close();
  return { rate, cpu, median: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

/**
 * `runs` concurrent runs of `calls` tool calls each, written like the invoker writes them.
 * `mode` "old": every receipt `append`ed (its own commit); "group": staged, durable before the tool.
 */
async function concurrentRuns(runs: number, calls: number, mode: "old" | "group" | "deferred" | "journal") {
  const { store, close } = freshStore(mode === "journal");
  const perCall = new Float64Array(runs * calls);
  let k = 0;
  const one = async (r: number) => {
    for (let c = 0; c < calls; c++) {
      const t = performance.now();
      const base = {
        runId: `run_${r}`,
        callId: `call_${r}_${c}`,
        toolPath: "weather.get",
        approval: "auto",
        policy: "auto",
        sessionId: "sess_1",
      } as const;
      if (mode === "old") {
        store.append({ ...base, phase: "requested", inputPreview: '{"location":"Berlin"}' });
        store.append({ ...base, phase: "started", decision: "auto", inputPreview: '{"location":"Berlin"}' });
        await Promise.resolve(); // the tool runs
        store.append({ ...base, phase: "succeeded", decision: "auto", outputPreview: '{"tempC":21}', durationMs: 1 });
      } else {
        // "deferred" is what the invoker does since #13's second pass: no receipt starts a commit of
        // its own, the durable() before the tool carries the previous call's outcome too.
        const defer = { defer: mode === "deferred" || mode === "journal" };
        store.stage({ ...base, phase: "requested", inputPreview: '{"location":"Berlin"}' }, defer);
        store.stage({ ...base, phase: "started", decision: "auto", inputPreview: '{"location":"Berlin"}' }, defer);
        await store.durable();
        await Promise.resolve(); // the tool runs
        store.stage(
          { ...base, phase: "succeeded", decision: "auto", outputPreview: '{"tempC":21}', durationMs: 1 },
          defer,
        );
      }
      perCall[k++] = performance.now() - t;
      await new Promise<void>((resolve) => setImmediate(resolve)); // the next crossing arrives later
    }
    await store.durable();
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: runs }, (_, r) => one(r)));
  // Until every receipt is in SQLite (the journal's worker may still hold some).
  store.query({ limit: 1 });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuPer(cpu0, runs * calls * 3);
  const verified = store.verify().ok;
  close();
  return { rate: (runs * calls * 3) / seconds, cpu, callMedian: quantile(perCall, 0.5), verified };
}

const best = <T extends { rate: number; cpu: number }>(xs: T[]) => xs.reduce((a, b) => (b.cpu < a.cpu ? b : a));
const oldSingle = best([oldPathSingle(5_000), oldPathSingle(5_000), oldPathSingle(5_000)]);
const newSingle = best([await groupSingle(5_000), await groupSingle(5_000), await groupSingle(5_000)]);
printTable("Receipt append, one run (file, WAL, synchronous=NORMAL, keyed chain)", [
  {
    path: "append(): one commit per receipt (before)",
    "sustained receipts/s": Math.round(oldSingle.rate).toLocaleString("en-US"),
    "CPU/receipt": `${oldSingle.cpu.toFixed(1)} µs`,
    "per free core": perCore(oldSingle.cpu),
    "median durable append": fmtMs(oldSingle.median),
    p99: fmtMs(oldSingle.p99),
  },
  {
    path: "stage() + await durable(): group commit",
    "sustained receipts/s": Math.round(newSingle.rate).toLocaleString("en-US"),
    "CPU/receipt": `${newSingle.cpu.toFixed(1)} µs`,
    "per free core": perCore(newSingle.cpu),
    "median durable append": fmtMs(newSingle.median),
    p99: fmtMs(newSingle.p99),
  },
]);

const oldConc = best([await concurrentRuns(50, 40, "old"), await concurrentRuns(50, 40, "old")]);
const newConc = best([await concurrentRuns(50, 40, "group"), await concurrentRuns(50, 40, "group")]);
const oneOld = best([await concurrentRuns(1, 2_000, "old"), await concurrentRuns(1, 2_000, "old")]);
const oneNew = best([await concurrentRuns(1, 2_000, "group"), await concurrentRuns(1, 2_000, "group")]);
const deferConc = best([await concurrentRuns(50, 40, "deferred"), await concurrentRuns(50, 40, "deferred")]);
const oneDefer = best([await concurrentRuns(1, 2_000, "deferred"), await concurrentRuns(1, 2_000, "deferred")]);
const journalConc = best([await concurrentRuns(50, 40, "journal"), await concurrentRuns(50, 40, "journal")]);
const oneJournal = best([await concurrentRuns(1, 2_000, "journal"), await concurrentRuns(1, 2_000, "journal")]);
printTable("Receipts of tool calls (requested, started, outcome), file DB, keyed chain", [
  {
    runs: "50 concurrent",
    path: "one commit per receipt (before)",
    "receipts/s": Math.round(oldConc.rate).toLocaleString("en-US"),
    "CPU/receipt": `${oldConc.cpu.toFixed(1)} µs`,
    "per free core": perCore(oldConc.cpu),
    "median per call": fmtMs(oldConc.callMedian),
    target: "",
    verified: String(oldConc.verified),
  },
  {
    runs: "50 concurrent",
    path: "group commit",
    "receipts/s": Math.round(newConc.rate).toLocaleString("en-US"),
    "CPU/receipt": `${newConc.cpu.toFixed(1)} µs`,
    "per free core": perCore(newConc.cpu),
    "median per call": fmtMs(newConc.callMedian),
    target: `≥ 20,000/s: ${newConc.rate >= 20_000 ? "yes" : "NO"} (per free core: ${1e6 / newConc.cpu >= 20_000 ? "yes" : "NO"}); ${(newConc.rate / oldConc.rate).toFixed(2)}× before`,
    verified: String(newConc.verified),
  },
  {
    runs: "1",
    path: "one commit per receipt (before)",
    "receipts/s": Math.round(oneOld.rate).toLocaleString("en-US"),
    "CPU/receipt": `${oneOld.cpu.toFixed(1)} µs`,
    "per free core": perCore(oneOld.cpu),
    "median per call": fmtMs(oneOld.callMedian),
    target: "",
    verified: String(oneOld.verified),
  },
  {
    runs: "1",
    path: "group commit",
    "receipts/s": Math.round(oneNew.rate).toLocaleString("en-US"),
    "CPU/receipt": `${oneNew.cpu.toFixed(1)} µs`,
    "per free core": perCore(oneNew.cpu),
    "median per call": fmtMs(oneNew.callMedian),
    target: `per call ${(oneNew.callMedian / oneOld.callMedian).toFixed(2)}× before`,
    verified: String(oneNew.verified),
  },
  {
    runs: "50 concurrent",
    path: "group commit, deferred receipts (what the invoker does now)",
    "receipts/s": Math.round(deferConc.rate).toLocaleString("en-US"),
    "CPU/receipt": `${deferConc.cpu.toFixed(1)} µs`,
    "per free core": perCore(deferConc.cpu),
    "median per call": fmtMs(deferConc.callMedian),
    target: `≥ 20,000/s: ${deferConc.rate >= 20_000 ? "yes" : "NO"} (per free core: ${1e6 / deferConc.cpu >= 20_000 ? "yes" : "NO"}); ${(deferConc.rate / newConc.rate).toFixed(2)}× group commit`,
    verified: String(deferConc.verified),
  },
  {
    runs: "1",
    path: "group commit, deferred receipts (what the invoker does now)",
    "receipts/s": Math.round(oneDefer.rate).toLocaleString("en-US"),
    "CPU/receipt": `${oneDefer.cpu.toFixed(1)} µs`,
    "per free core": perCore(oneDefer.cpu),
    "median per call": fmtMs(oneDefer.callMedian),
    target: `per call ${(oneDefer.callMedian / oneNew.callMedian).toFixed(2)}× group commit`,
    verified: String(oneDefer.verified),
  },
  {
    runs: "50 concurrent",
    path: "deferred, commit points in the journal, fold worker (the gateway's store)",
    "receipts/s": Math.round(journalConc.rate).toLocaleString("en-US"),
    "CPU/receipt": `${journalConc.cpu.toFixed(1)} µs (both threads)`,
    "per free core": perCore(journalConc.cpu),
    "median per call": fmtMs(journalConc.callMedian),
    target: `≥ 20,000/s: ${journalConc.rate >= 20_000 ? "yes" : "NO"}; ${(journalConc.rate / deferConc.rate).toFixed(2)}× deferred`,
    verified: String(journalConc.verified),
  },
  {
    runs: "1",
    path: "deferred, commit points in the journal, fold worker (the gateway's store)",
    "receipts/s": Math.round(oneJournal.rate).toLocaleString("en-US"),
    "CPU/receipt": `${oneJournal.cpu.toFixed(1)} µs (both threads)`,
    "per free core": perCore(oneJournal.cpu),
    "median per call": fmtMs(oneJournal.callMedian),
    target: `per call ${(oneJournal.callMedian / oneDefer.callMedian).toFixed(2)}× deferred`,
    verified: String(oneJournal.verified),
  },
]);
console.log(
  `\nload average at end: ${(
    await Bun.file("/proc/loadavg")
      .text()
      .catch(() => "n/a")
  ).trim()}`,
);

// Reads over a file with 1000-call runs.
const db = openDatabase(join(dir, "reads.sqlite"));
const store = createSqliteReceiptStore(db, { keyDir });
const tx = db.transaction(() => {
  for (let c = 0; c < 1000; c++) {
    const required = c % 10 === 0;
    const base = {
      runId: "run_big",
      callId: `c${c}`,
      toolPath: required ? "calendar.create" : "weather.get",
      approval: required ? "required" : "auto",
      policy: required ? "required" : "auto",
    } as const;
    store.append({ ...base, phase: "requested", inputPreview: '{"q":1}' });
    if (required) store.append({ ...base, phase: "approved", decision: "approved", decidedBy: "alice" });
    store.append({ ...base, phase: "started", decision: required ? "approved" : "auto" });
    store.append({
      ...base,
      phase: c % 97 === 0 ? "failed" : "succeeded",
      decision: required ? "approved" : "auto",
      error: c % 97 === 0 ? "boom" : undefined,
    });
  }
});
tx();
for (let i = 0; i < 20_000; i++) store.append(draftFor(i));
const runReceipts = store.byRun("run_big");
const rows = [
  await bench("summarizeRun, 1000-call run (3100 receipts)", () => summarizeRun(runReceipts), { iterations: 100 }),
  await bench("summarizeRun + formatSummaryForModel", () => formatSummaryForModel(summarizeRun(runReceipts)), {
    iterations: 100,
  }),
  await bench("byRun, 3100 receipts", () => store.byRun("run_big"), { iterations: 30 }),
  await bench("verifyRun, 3100-receipt run (its span of the keyed chain + head)", () => store.verifyRun("run_big"), {
    iterations: 10,
  }),
  await bench("verify(): whole database, 23k receipts + head", () => store.verify(), { iterations: 10 }),
  await bench("query tool glob `calendar.*` limit 200", () => store.query({ tool: "calendar.*" }), { iterations: 30 }),
  await bench("query phase=failed limit 200", () => store.query({ phase: "failed" }), { iterations: 30 }),
];
printTable(
  "Summary and reads (file DB, 23k receipts)",
  rows.map((r) => ({ what: r.name, median: fmtMs(r.medianMs), p95: fmtMs(r.p95Ms) })),
);
store.close();
db.close();

// Broker: request persisted → "requested" event → decide (UPDATE) → caller resumes.
const bdb = openDatabase(join(dir, "approvals.sqlite"));
const broker = createApprovalBroker({ ...openSqliteApprovals(bdb), defaultTimeoutMs: 60_000 });
broker.subscribe((e) => {
  if (e.type === "requested")
    queueMicrotask(() => broker.decide(e.request.callId, { decision: "approved", by: "alice" }));
});
let n = 0;
const req = (): ApprovalRequest => {
  const now = Date.now();
  return {
    callId: `call_${n++}`,
    runId: "run_1",
    toolPath: "calendar.create",
    description: "Create",
    inputPreview: "{}",
    requestedAt: now,
    expiresAt: now + 60_000,
  };
};
const signal = new AbortController().signal;
const rt = await bench("requestApproval → decide → resolved (file DB)", () => broker.requestApproval(req(), signal), {
  iterations: 500,
  warmup: 20,
});
const concurrent = await bench(
  "20 concurrent approvals (Promise.all)",
  () => Promise.all(Array.from({ length: 20 }, () => broker.requestApproval(req(), signal))),
  { iterations: 50 },
);
printTable(
  "Approval broker round trip",
  [rt, concurrent].map((r) => ({ what: r.name, median: fmtMs(r.medianMs), p95: fmtMs(r.p95Ms) })),
);
broker.close();
bdb.close();
