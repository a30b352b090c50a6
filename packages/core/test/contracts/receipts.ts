import { describe, expect, test } from "bun:test";
import type { ReceiptLog, ReceiptReader } from "../../src/receipts/port.ts";
import type { ReceiptDraft, ReceiptPhase } from "../../src/receipts/types.ts";

/** One backend's receipts, opened fresh for a test; `reopen` closes it and opens the same data again. */
export interface ReceiptBackend {
  readonly log: ReceiptLog;
  readonly reader: ReceiptReader;
  reopen(): Promise<ReceiptBackend>;
  close(): Promise<void>;
}

/** Opens an empty backend whose receipts are stamped by `now` (epoch ms). */
export type MakeReceiptBackend = (options: { readonly now: () => number }) => Promise<ReceiptBackend>;

const draft = (over: Partial<ReceiptDraft> & Pick<ReceiptDraft, "runId" | "callId" | "phase">): ReceiptDraft => ({
  toolPath: "notes.read",
  approval: "auto",
  policy: "auto",
  ...over,
});

/** Every phase of one call, staged in order. */
function stageCall(
  log: ReceiptLog,
  runId: string,
  callId: string,
  toolPath: string,
  phases: readonly ReceiptPhase[],
  extra: Partial<ReceiptDraft> = {},
): void {
  for (const phase of phases) log.stage(draft({ runId, callId, toolPath, phase, ...extra }));
}

async function withBackend(make: MakeReceiptBackend, body: (b: ReceiptBackend, clock: { t: number }) => Promise<void>) {
  const clock = { t: 1_700_000_000_000 };
  const b = await make({ now: () => clock.t });
  try {
    await body(b, clock);
  } finally {
    await b.close();
  }
}

/**
 * What any receipt log must do (the port in receipts/port.ts): stage validates at once, `durable`
 * commits, every read sees what was staged before it, the chain verifies, nothing staged is lost
 * across a close and reopen.
 */
export function describeReceiptLogContract(name: string, make: MakeReceiptBackend): void {
  describe(`receipt log contract: ${name}`, () => {
    test("staged receipts are read back in order with ids, sequence, time and chain fields; absent fields stay absent", async () => {
      await withBackend(make, async ({ log, reader }, clock) => {
        stageCall(log, "run_1", "call_1", "notes.write", ["requested", "started", "succeeded"], {
          sessionId: "ses_1",
          inputPreview: '{"text":"milk"}',
        });
        await log.durable();
        const rows = await reader.byRun("run_1");
        expect(rows.map((r) => r.phase)).toEqual(["requested", "started", "succeeded"]);
        expect(rows[0]).toMatchObject({
          runId: "run_1",
          callId: "call_1",
          toolPath: "notes.write",
          approval: "auto",
          policy: "auto",
          sessionId: "ses_1",
          inputPreview: '{"text":"milk"}',
          at: clock.t,
        });
        expect(rows[0]!.seq < rows[1]!.seq && rows[1]!.seq < rows[2]!.seq).toBe(true);
        expect(new Set(rows.map((r) => r.id)).size).toBe(3);
        expect(rows.every((r) => typeof r.hash === "string" && r.hash.length > 0)).toBe(true);
        expect(rows[1]!.prevHash).toBe(rows[0]!.hash);
        expect("decision" in rows[0]! || "error" in rows[0]! || "reason" in rows[0]!).toBe(false);
      });
    });

    test("a bad draft is refused when staged, naming the tool, the call and the field; nothing of it is stored", async () => {
      await withBackend(make, async ({ log, reader }) => {
        expect(() => log.stage(draft({ runId: "run_1", callId: "call_1", phase: "done" as never }))).toThrow(
          /notes\.read \(call call_1\): phase must be one of/,
        );
        expect(() =>
          log.stage(draft({ runId: "run_1", callId: "call_1", phase: "requested", policy: "maybe" as never })),
        ).toThrow(/policy must be/);
        await log.durable();
        expect(await reader.byRun("run_1")).toEqual([]);
        await expect(log.append(draft({ runId: "", callId: "call_1", phase: "requested" }))).rejects.toThrow(
          /runId must be a non-empty string/,
        );
      });
    });

    test("every read sees what was staged before it, deferred receipts included, without awaiting durable()", async () => {
      await withBackend(make, async ({ log, reader }) => {
        log.stage(draft({ runId: "run_1", callId: "call_1", phase: "requested" }));
        log.stage(draft({ runId: "run_1", callId: "call_1", phase: "succeeded" }), { defer: true });
        expect((await reader.byRun("run_1")).map((r) => r.phase)).toEqual(["requested", "succeeded"]);
        expect((await reader.query({ callId: "call_1" })).map((r) => r.phase)).toEqual(["requested", "succeeded"]);
        log.stage(draft({ runId: "run_2", callId: "call_2", phase: "requested" }));
        expect((await reader.runs()).map((r) => r.runId)).toEqual(["run_2", "run_1"]);
        await log.durable();
        await log.durable(); // nothing staged: resolves at once
      });
    });

    test("append resolves to the stored receipt once it is committed, after what was staged before it", async () => {
      await withBackend(make, async ({ log, reader }) => {
        log.stage(draft({ runId: "run_1", callId: "call_1", phase: "requested" }));
        const appended = await log.append(
          draft({ runId: "run_1", callId: "call_1", phase: "denied", decision: "denied", decidedBy: "system" }),
        );
        expect(appended).toMatchObject({ phase: "denied", decidedBy: "system", decision: "denied" });
        const rows = await reader.byRun("run_1");
        expect(rows.map((r) => r.id)).toEqual([rows[0]!.id, appended.id]);
        expect(rows[1]).toEqual(appended);
      });
    });

    test("verify and verifyRun pass on an untouched log and name what they checked; info names the key", async () => {
      await withBackend(make, async ({ log }) => {
        stageCall(log, "run_1", "call_1", "notes.read", ["requested", "started", "succeeded"]);
        stageCall(log, "run_2", "call_2", "notes.read", ["requested", "started", "failed"], { error: "boom" });
        expect(await log.verifyRun("run_1")).toEqual({ ok: true });
        expect(await log.verifyRun("run_2")).toEqual({ ok: true });
        expect(await log.verify()).toMatchObject({ ok: true, keyed: 6, legacy: 0 });
        const info = await log.info();
        expect(typeof info.dbId).toBe("string");
        expect(typeof info.keyId).toBe("string");
      });
    });

    test("#35 the model a run names is stored and read back; runs with and without one verify in one chain", async () => {
      await withBackend(make, async ({ log, reader }) => {
        stageCall(log, "run_1", "call_1", "notes.read", ["requested", "started", "succeeded"]);
        stageCall(log, "run_2", "call_2", "notes.read", ["requested", "started", "succeeded"], {
          model: "openai-compatible:llama3.1:8b",
        });
        expect((await reader.byRun("run_2")).map((r) => r.model)).toEqual([
          "openai-compatible:llama3.1:8b",
          "openai-compatible:llama3.1:8b",
          "openai-compatible:llama3.1:8b",
        ]);
        expect((await reader.byRun("run_1")).some((r) => "model" in r)).toBe(false);
        expect((await reader.query({ runId: "run_2", limit: 1 }))[0]?.model).toBe("openai-compatible:llama3.1:8b");
        expect(await log.verifyRun("run_2")).toEqual({ ok: true });
        expect(await log.verify()).toMatchObject({ ok: true, keyed: 6 });
      });
    });

    test("what was staged survives close(); a reopened log continues the same chain", async () => {
      const first = await make({ now: () => 1_700_000_000_000 });
      stageCall(first.log, "run_1", "call_1", "notes.read", ["requested", "started"]);
      const again = await first.reopen();
      try {
        expect((await again.reader.byRun("run_1")).map((r) => r.phase)).toEqual(["requested", "started"]);
        again.log.stage(draft({ runId: "run_1", callId: "call_1", phase: "succeeded" }));
        await again.log.durable();
        expect(await again.log.verify()).toMatchObject({ ok: true, keyed: 3 });
        expect(await again.log.verifyRun("run_1")).toEqual({ ok: true });
      } finally {
        await again.close();
      }
    });
  });
}

/** What any receipt reader must answer (the port in receipts/port.ts), on receipts written through its log. */
export function describeReceiptReaderContract(name: string, make: MakeReceiptBackend): void {
  describe(`receipt reader contract: ${name}`, () => {
    /** Three runs at t, t+1000, t+2000: a, b (two calls), c. */
    async function seeded(b: ReceiptBackend, clock: { t: number }) {
      const t0 = clock.t;
      stageCall(b.log, "run_a", "c1", "calendar.create", ["requested", "approved", "started", "succeeded"], {
        sessionId: "ses_1",
        approval: "required",
        policy: "required",
        inputPreview: '{"title":"100%_done"}',
      });
      await b.log.durable();
      clock.t = t0 + 1000;
      stageCall(b.log, "run_b", "c2", "calendar.list", ["requested", "started", "failed"], {
        sessionId: "ses_2",
        error: "SMTP refused",
      });
      stageCall(b.log, "run_b", "c3", "notes.sub.read", ["requested", "started", "succeeded"], { sessionId: "ses_2" });
      await b.log.durable();
      clock.t = t0 + 2000;
      stageCall(b.log, "run_c", "c4", "mail.send", ["requested"], { sessionId: "ses_1" });
      await b.log.durable();
      return t0;
    }

    test("query filters by run, call, session, phase, time and tool pattern; the newest `limit`, oldest first", async () => {
      await withBackend(make, async (b, clock) => {
        const t0 = await seeded(b, clock);
        const q = async (query: Parameters<ReceiptReader["query"]>[0]) =>
          (await b.reader.query(query)).map((r) => `${r.callId}:${r.phase}`);
        expect(await q({ runId: "run_c" })).toEqual(["c4:requested"]);
        expect(await q({ callId: "c2" })).toEqual(["c2:requested", "c2:started", "c2:failed"]);
        expect(await q({ sessionId: "ses_1", phase: "requested" })).toEqual(["c1:requested", "c4:requested"]);
        expect(await q({ phase: "failed" })).toEqual(["c2:failed"]);
        expect(await q({ phase: "denied" })).toEqual([]);
        expect(await q({ since: t0 + 1000, until: t0 + 1000, phase: "succeeded" })).toEqual(["c3:succeeded"]);
        expect(await q({ tool: "calendar.*", phase: "requested" })).toEqual(["c1:requested", "c2:requested"]);
        expect(await q({ tool: "notes.*" })).toEqual([]);
        expect(await q({ tool: "notes.**", phase: "succeeded" })).toEqual(["c3:succeeded"]);
        expect(await q({ tool: "*.send" })).toEqual(["c4:requested"]);
        expect(await q({ tool: "mail.send" })).toEqual(["c4:requested"]);
        expect(await q({ limit: 2 })).toEqual(["c3:succeeded", "c4:requested"]);
        expect((await b.reader.query({})).length).toBe(11);
      });
    });

    test("a bad limit or phase is refused with the field named", async () => {
      await withBackend(make, async (b) => {
        await expect(b.reader.query({ limit: 0 })).rejects.toThrow(/limit must be a positive integer/);
        await expect(b.reader.query({ phase: "done" as never })).rejects.toThrow(/phase must be one of/);
      });
    });

    test("byRun and byRuns: each run's receipts in append order, runs in the order asked, unknown runs empty", async () => {
      await withBackend(make, async (b, clock) => {
        await seeded(b, clock);
        expect((await b.reader.byRun("run_b")).map((r) => `${r.callId}:${r.phase}`)).toEqual([
          "c2:requested",
          "c2:started",
          "c2:failed",
          "c3:requested",
          "c3:started",
          "c3:succeeded",
        ]);
        expect((await b.reader.byRuns(["run_c", "run_nope", "run_a"])).map((r) => r.callId)).toEqual([
          "c4",
          "c1",
          "c1",
          "c1",
          "c1",
        ]);
        expect(await b.reader.byRuns([])).toEqual([]);
        expect(await b.reader.byRun("run_nope")).toEqual([]);
      });
    });

    test("runs: most recently active first, with calls, tools and the worst call status; filters combine", async () => {
      await withBackend(make, async (b, clock) => {
        const t0 = await seeded(b, clock);
        const runs = await b.reader.runs();
        expect(runs.map((r) => [r.runId, r.status, r.calls, r.sessionId, r.started, r.last])).toEqual([
          ["run_c", "pending", 1, "ses_1", t0 + 2000, t0 + 2000],
          ["run_b", "failed", 2, "ses_2", t0 + 1000, t0 + 1000],
          ["run_a", "succeeded", 1, "ses_1", t0, t0],
        ]);
        expect([...runs[1]!.tools].sort()).toEqual(["calendar.list", "notes.sub.read"]);
        const ids = async (filter: Parameters<ReceiptReader["runs"]>[0]) =>
          (await b.reader.runs(filter)).map((r) => r.runId);
        expect(await ids({ session: "ses_1" })).toEqual(["run_c", "run_a"]);
        expect(await ids({ tool: "calendar.*" })).toEqual(["run_b", "run_a"]);
        expect(await ids({ tool: "mail.send" })).toEqual(["run_c"]);
        expect(await ids({ status: "failed" })).toEqual(["run_b"]);
        expect(await ids({ status: "denied" })).toEqual([]);
        expect(await ids({ since: t0 + 1000 })).toEqual(["run_c", "run_b"]);
        expect(await ids({ until: t0 + 1000 })).toEqual(["run_b", "run_a"]);
        expect(await ids({ session: "ses_1", status: "succeeded" })).toEqual(["run_a"]);
        expect(await ids({ limit: 1 })).toEqual(["run_c"]);
      });
    });

    test("runs search: ids, errors and inputs, with LIKE wildcards taken literally", async () => {
      await withBackend(make, async (b, clock) => {
        await seeded(b, clock);
        const ids = async (q: string) => (await b.reader.runs({ q })).map((r) => r.runId);
        expect(await ids("SMTP")).toEqual(["run_b"]);
        expect(await ids("c4")).toEqual(["run_c"]);
        expect(await ids("run_a")).toEqual(["run_a"]);
        expect(await ids("100%_")).toEqual(["run_a"]);
        expect(await ids("0%x")).toEqual([]);
        const first = (await b.reader.byRun("run_b"))[0]!;
        expect(await ids(first.id)).toEqual(["run_b"]);
      });
    });

    test("without a conversation store, no run has a conversation and none is listed", async () => {
      await withBackend(make, async (b, clock) => {
        await seeded(b, clock);
        expect(await b.reader.conversations()).toEqual([]);
        expect(await b.reader.conversationOf("ses_1")).toBeUndefined();
        expect(await b.reader.conversationOf(undefined)).toBeUndefined();
        expect((await b.reader.runs()).every((r) => r.conversation === undefined)).toBe(true);
        expect(await b.reader.conversationKeys(["ses_1", "ses_2"])).toEqual(new Map());
        expect(await b.reader.conversationKeys([])).toEqual(new Map());
        expect(await b.reader.turnOfRun("run_a", "ses_1", clock.t + 60_000)).toBeUndefined();
        expect((await b.reader.runs()).every((r) => r.turn === undefined)).toBe(true);
      });
    });

    test("overview: each call once by its outcome, in the bar of its time; waits of asked deciders; newest denials", async () => {
      await withBackend(make, async (b, clock) => {
        const t0 = await seeded(b, clock);
        clock.t = t0 + 2500;
        stageCall(b.log, "run_d", "c5", "mail.send", ["requested"], { approval: "required", policy: "required" });
        clock.t = t0 + 2600;
        b.log.stage(
          draft({
            runId: "run_d",
            callId: "c5",
            toolPath: "mail.send",
            phase: "denied",
            approval: "required",
            policy: "required",
            decision: "denied",
            decidedBy: "console:ann",
            reason: "not now",
          }),
        );
        // Staged, not awaited: the overview sees it like every read.
        const o = await b.reader.overview("6h", t0 + 3000);
        expect(o.period).toBe("6h");
        expect(o.buckets).toHaveLength(7);
        expect(o.totals).toEqual({ succeeded: 2, failed: 1, denied: 1 });
        expect(o.buckets.reduce((n, x) => n + x.succeeded + x.failed + x.denied, 0)).toBe(4);
        expect(o.waits).toEqual([{ approver: "console:ann", decisions: 1, medianMs: 100, p95Ms: 100 }]);
        expect(o.failing.map((t) => [t.tool, t.calls, t.failed])).toEqual([["calendar.list", 1, 1]]);
        expect(o.denied).toEqual([
          { at: t0 + 2600, tool: "mail.send", by: "console:ann", reason: "not now", runId: "run_d", callId: "c5" },
        ]);
        // A period that ended before the calls counts none of them.
        expect((await b.reader.overview("6h", t0 - 1)).totals).toEqual({ succeeded: 0, failed: 0, denied: 0 });
      });
    });

    test("overview: a call a plugin hook put before a person is one wait of that person; a plugin's denial is nobody's wait", async () => {
      await withBackend(make, async (b, clock) => {
        const call = (callId: string, phase: ReceiptPhase, extra: Partial<ReceiptDraft> = {}) =>
          b.log.stage(draft({ runId: "run_h", callId, toolPath: "pay.send", phase, ...extra }));
        call("c1", "requested");
        clock.t += 10;
        // The hook's own `requested` (#29): it raised the policy; the person's wait starts at the first.
        call("c1", "requested", {
          policy: "required",
          decidedBy: "plugin:guard",
          reason: "approval required by plugin guard",
        });
        clock.t += 90;
        call("c1", "approved", { policy: "required", decision: "approved", decidedBy: "console:ann" });
        call("c2", "requested", { approval: "required", policy: "required" });
        clock.t += 5;
        call("c2", "denied", {
          approval: "required",
          policy: "required",
          decision: "denied",
          decidedBy: "plugin:guard",
        });
        const o = await b.reader.overview("6h", clock.t + 1);
        expect(o.waits).toEqual([{ approver: "console:ann", decisions: 1, medianMs: 100, p95Ms: 100 }]);
      });
    });
  });
}
