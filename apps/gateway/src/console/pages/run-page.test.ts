import { describe, expect, test } from "bun:test";
import type { Receipt } from "@openassistant/core/receipts";
import { CALLS_PER_PAGE, runPage } from "./run.ts";
import { callTimeline } from "./run-timeline.ts";

function receipts(calls: number): Receipt[] {
  const out: Receipt[] = [];
  let seq = 0;
  for (let c = 0; c < calls; c++)
    for (const phase of ["requested", "started", "succeeded"] as const) {
      seq++;
      out.push({
        id: `r_${String(seq).padStart(6, "0")}`,
        seq,
        at: 1_700_000_000_000 + seq,
        runId: "run_1",
        callId: `call_${c}`,
        toolPath: c === 150 ? "mail.send" : "notes.read",
        phase,
        approval: "auto",
        policy: c === 150 ? "required" : "auto",
        prevHash: null,
        hash: "h",
      });
    }
  return out;
}
const base = { runId: "run_1", integrity: { ok: true } as const, approvals: () => undefined, redact: (t: string) => t };

describe("run page", () => {
  test("a large run shows the page of calls holding the linked call; links to other pages keep the link's token", () => {
    const page = runPage({ ...base, receipts: receipts(250), focusCall: "call_150", linkToken: "tok.en" }).value;
    const shown = [...page.matchAll(/<section class="call" id="call-(call_\d+)"/g)].map((m) => m[1]);
    expect(shown.length).toBe(CALLS_PER_PAGE);
    expect(shown[0]).toBe("call_100");
    expect(page).toContain("Calls 101–200 of 250");
    expect(page).toContain('<a href="?t=tok.en&amp;page=1">1</a>');
    expect(page).toContain('<a href="?t=tok.en&amp;page=3">3</a>');
    // The summary's required call is on this page: an in-page anchor.
    expect(page).toContain('<a href="#call-call_150"><code>mail.send</code></a>');
  });

  test("#35 the model that wrote the run's code is shown from its receipts; a run from before has no model line", () => {
    const named = receipts(2).map((r) => ({ ...r, model: "openai-compatible:llama3.1:8b" }));
    expect(runPage({ ...base, receipts: named }).value).toContain(
      '<dt>Model</dt><dd id="model"><code>openai-compatible:llama3.1:8b</code> </dd>',
    );
    expect(runPage({ ...base, receipts: receipts(2) }).value).not.toContain('id="model"');
  });

  test("a page number out of range shows the nearest page; a small run has no pager", () => {
    const last = runPage({ ...base, receipts: receipts(250), page: 99 }).value;
    expect(last).toContain("Calls 201–250 of 250");
    const small = runPage({ ...base, receipts: receipts(3) }).value;
    expect(small).not.toContain('class="pager"');
    expect([...small.matchAll(/<section class="call"/g)].length).toBe(3);
  });

  test("a call's timeline follows seq, not time: receipts given out of order, with tied and stepped-back clocks", () => {
    const at = 1_700_000_000_000;
    const r = (seq: number, phase: Receipt["phase"], time: number, extra: Partial<Receipt> = {}): Receipt => ({
      id: `r_${seq}`,
      seq,
      at: time,
      runId: "run_1",
      callId: "c1",
      toolPath: "mail.send",
      phase,
      approval: "required",
      policy: "required",
      prevHash: null,
      hash: "h",
      ...extra,
    });
    const receipts = [
      r(4, "succeeded", at - 5, { durationMs: 3 }),
      r(1, "requested", at),
      r(3, "started", at - 9, { decision: "approved" }),
      r(2, "approved", at, { decision: "approved", decidedBy: "console:ann" }),
    ];
    expect(callTimeline(receipts).map((s) => s.label)).toEqual([
      "requested",
      "input validated",
      "policy: approval required",
      "approval requested",
      "approved by console:ann",
      "started",
      "succeeded in 3 ms",
    ]);
    // The policy denies: no approval is asked for.
    const denied = [
      r(1, "requested", at, { policy: "deny" }),
      r(2, "denied", at, { decidedBy: "policy", reason: "no" }),
    ];
    expect(callTimeline(denied).map((s) => s.label)).toEqual([
      "requested",
      "input validated",
      "policy: deny",
      "denied by policy",
    ]);
  });

  test("a plugin hook's changes are steps of the call's timeline, its denial the outcome (#29)", () => {
    const r = (seq: number, phase: Receipt["phase"], extra: Partial<Receipt> = {}): Receipt => ({
      id: `r_${seq}`,
      seq,
      at: 1_700_000_000_000 + seq,
      runId: "run_1",
      callId: "c1",
      toolPath: "pay.send",
      phase,
      approval: "auto",
      policy: "auto",
      prevHash: null,
      hash: "h",
      ...extra,
    });
    const labels = callTimeline([
      r(1, "requested"),
      r(2, "requested", { decidedBy: "plugin:cap", reason: "input replaced by plugin cap" }),
      r(3, "started"),
      r(4, "started", { decidedBy: "plugin:mask", reason: "result replaced by plugin mask" }),
      r(5, "succeeded"),
    ]).map((s) => s.label);
    expect(labels).toContain("plugin cap: input replaced by plugin cap");
    expect(labels).toContain("plugin mask: result replaced by plugin mask");
    expect(labels.at(-1)).toMatch(/^succeeded/);
    const denied = callTimeline([
      r(1, "requested"),
      r(2, "denied", { decision: "denied", decidedBy: "plugin:guard", reason: "closed" }),
    ]);
    expect(denied.at(-1)).toMatchObject({ label: "denied by plugin:guard", detail: "closed" });
  });
});
