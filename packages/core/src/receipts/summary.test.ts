import { describe, expect, test } from "bun:test";
import { openDatabase } from "../db/open.ts";
import { createSqliteReceiptStore } from "./sqlite/store.ts";
import { callStatus } from "./status.ts";
import { formatSummaryForModel, summarizeRun } from "./summary.ts";
import type { SqliteReceiptStore } from "./sqlite/store.ts";
import type { Decision, PolicyMode, ReceiptDraft, ReceiptPhase } from "./types.ts";

function threadCpuMs(): number {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return (u.user + u.system) / 1000;
}

function fixture() {
  let t = 1_000;
  const store = createSqliteReceiptStore(openDatabase(":memory:"), { now: () => (t += 10) });
  return store;
}

/** Appends the receipts of one call, phase by phase, as the runner would. */
function call(
  store: SqliteReceiptStore,
  callId: string,
  toolPath: string,
  policy: PolicyMode,
  phases: ReceiptPhase[],
  extra: Partial<ReceiptDraft> & { decision?: Decision } = {},
  runId = "run_a",
) {
  const approval = policy === "auto" ? "auto" : "required";
  return phases.map((phase) => store.append({ runId, callId, toolPath, approval, policy, phase, ...extra }));
}

describe("summarizeRun", () => {
  test("keeps failed, denied, pending and required calls; caps successful reads, newest first", () => {
    const s = fixture();
    for (let i = 0; i < 8; i++)
      call(s, `read_${i}`, "weather.get", "auto", ["requested", "started", "succeeded"], { decision: "auto" });
    const created = call(
      s,
      "c_create",
      "calendar.create",
      "required",
      ["requested", "approved", "started", "succeeded"],
      { decision: "approved", decidedBy: "alice", outputPreview: '{"id":"ev1"}' },
    );
    call(s, "c_delete", "calendar.delete", "required", ["requested", "denied"], {
      decision: "denied",
      decidedBy: "bob",
      reason: "not that one",
    });
    call(s, "c_fail", "weather.get", "auto", ["requested", "started", "failed"], {
      decision: "auto",
      error: "upstream 503",
    });
    call(s, "c_wait", "mail.send", "required", ["requested"]);
    call(s, "c_policy", "fs.wipe", "deny", ["requested", "denied"], {
      decision: "denied",
      decidedBy: "policy",
      reason: "never",
    });

    const summary = summarizeRun(s.byRun("run_a"), { maxAutoReads: 3 });
    expect(summary.runIds).toEqual(["run_a"]);
    expect(summary.omittedReads).toBe(5);
    expect(summary.items.map((i) => `${i.callId}:${i.status}`)).toEqual([
      "read_5:succeeded",
      "read_6:succeeded",
      "read_7:succeeded",
      "c_create:succeeded",
      "c_delete:denied",
      "c_fail:failed",
      "c_wait:pending",
      "c_policy:denied",
    ]);
    const create = summary.items.find((i) => i.callId === "c_create")!;
    expect(create).toMatchObject({
      toolId: "calendar.create",
      approval: { mode: "required", decision: "approved", by: "alice" },
      receiptRef: created.at(-1)!.id,
      when: created.at(-1)!.at,
      outputPreview: '{"id":"ev1"}',
    });
    expect(summary.items.find((i) => i.callId === "c_wait")!.approval).toEqual({ mode: "required" });
  });

  test("default keeps 5 reads; works across several runs of a turn; input order does not matter", () => {
    const s = fixture();
    for (let i = 0; i < 7; i++)
      call(
        s,
        `r${i}`,
        "search.web",
        "auto",
        ["requested", "started", "succeeded"],
        { decision: "auto" },
        i < 4 ? "run_1" : "run_2",
      );
    call(
      s,
      "w",
      "notes.write",
      "required",
      ["requested", "approved", "started", "failed"],
      { decision: "approved", decidedBy: "carol", error: "disk full" },
      "run_2",
    );
    const all = [...s.query({ runId: "run_2" }), ...s.query({ runId: "run_1" })];
    const summary = summarizeRun(all.reverse());
    expect(summary.runIds).toEqual(["run_1", "run_2"]);
    expect(summary.omittedReads).toBe(2);
    expect(summary.items.map((i) => i.callId)).toEqual(["r2", "r3", "r4", "r5", "r6", "w"]);
  });

  test("formats compact lines for the model", () => {
    const s = fixture();
    const ok = call(s, "a", "calendar.create", "required", ["requested", "approved", "started", "succeeded"], {
      decision: "approved",
      decidedBy: "alice",
    });
    const no = call(s, "b", "calendar.delete", "required", ["requested", "denied"], {
      decision: "denied",
      decidedBy: "bob",
      reason: "wrong\nevent",
    });
    const bad = call(s, "c", "mail.send", "auto", ["requested", "started", "failed"], {
      decision: "auto",
      error: "SMTP refused",
    });
    const wait = call(s, "d", "mail.send", "required", ["requested"]);
    const run = call(s, "e", "deploy.run", "required", ["requested", "approved", "started"], {
      decision: "approved",
      decidedBy: "alice",
    });
    const read = call(s, "f", "weather.get", "auto", ["requested", "started", "succeeded"], { decision: "auto" });
    for (let i = 0; i < 6; i++)
      call(s, `g${i}`, "weather.get", "auto", ["requested", "started", "succeeded"], { decision: "auto" });
    const text = formatSummaryForModel(summarizeRun(s.byRun("run_a")));
    expect(text.split("\n")).toEqual([
      `✅ calendar.create succeeded (approved by alice) [${ok.at(-1)!.id}]`,
      `⛔ calendar.delete denied by bob: "wrong event" [${no.at(-1)!.id}]`,
      `❌ mail.send failed: SMTP refused [${bad.at(-1)!.id}]`,
      `⏳ mail.send pending approval [${wait.at(-1)!.id}]`,
      `⏳ deploy.run started, no result recorded [${run.at(-1)!.id}]`,
      expect.stringMatching(/^✅ weather\.get succeeded \[r_\d+\]$/),
      expect.stringMatching(/^✅ weather\.get succeeded \[r_\d+\]$/),
      expect.stringMatching(/^✅ weather\.get succeeded \[r_\d+\]$/),
      expect.stringMatching(/^✅ weather\.get succeeded \[r_\d+\]$/),
      expect.stringMatching(/^✅ weather\.get succeeded \[r_\d+\]$/),
      "(+2 successful reads not shown)",
    ]);
    expect(text).not.toContain(`[${read.at(-1)!.id}]`); // the oldest read is the one left out
    expect(formatSummaryForModel(summarizeRun([]))).toBe("No tool calls were made.");
  });

  test("a 1000-call run summarizes in well under 100 ms of CPU", () => {
    const s = fixture();
    for (let i = 0; i < 1000; i++)
      call(
        s,
        `c${i}`,
        i % 10 === 0 ? "calendar.create" : "weather.get",
        i % 10 === 0 ? "required" : "auto",
        ["requested", "started", "succeeded"],
        { decision: i % 10 === 0 ? "approved" : "auto" },
      );
    const receipts = s.byRun("run_a");
    summarizeRun(receipts);
    // Thread CPU time with a wide margin (typically ~1 ms): other work on the machine does not move it.
    const t0 = threadCpuMs();
    const summary = summarizeRun(receipts);
    formatSummaryForModel(summary);
    expect(threadCpuMs() - t0).toBeLessThan(100);
    expect(summary.items.length).toBe(105);
    expect(summary.omittedReads).toBe(895);
  });
});

describe("callStatus", () => {
  test("derives each call's current status from its latest phase", () => {
    const s = fixture();
    call(s, "a", "x.y", "required", ["requested"]);
    call(s, "b", "x.y", "required", ["requested", "approved"], { decision: "approved", decidedBy: "u" });
    call(s, "c", "x.y", "auto", ["requested", "started"]);
    call(s, "d", "x.y", "auto", ["requested", "started", "succeeded"]);
    call(s, "e", "x.y", "auto", ["requested", "started", "failed"]);
    call(s, "f", "x.y", "required", ["requested", "denied"], { decision: "denied", decidedBy: "u" });
    const st = callStatus(s.byRun("run_a").reverse());
    expect(Object.fromEntries(st)).toEqual({
      a: "pending",
      b: "pending",
      c: "pending",
      d: "succeeded",
      e: "failed",
      f: "denied",
    });
  });
});
