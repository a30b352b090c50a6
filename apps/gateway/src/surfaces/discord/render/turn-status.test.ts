import { describe, expect, test } from "bun:test";
import type { ApprovalRequest } from "@openassistant/core/approvals";
import { initialStatus, nextStatus, renderStatus } from "./turn-status.ts";

const req = (callId: string, runId = "run_1"): ApprovalRequest => ({
  callId,
  runId,
  toolPath: "x.y",
  description: "",
  inputPreview: "{}",
  requestedAt: 0,
  expiresAt: 1,
});

describe("turn status", () => {
  test("thinking → running → waiting → running → done, counting each approval once", () => {
    const own = (r: string) => r === "run_1";
    let s = initialStatus(0);
    expect(renderStatus(s, 0)).toBe("💭 Thinking…");
    s = nextStatus(s, { type: "run.started", turnId: "t", runId: "run_1", code: "" }, own);
    expect(renderStatus(s)).toBe("⚙️ Running code…");
    s = nextStatus(s, { type: "approval.requested", request: req("c1") }, own);
    s = nextStatus(s, { type: "approval.requested", request: req("c1") }, own);
    s = nextStatus(s, { type: "approval.requested", request: req("c9", "run_other") }, own);
    expect(renderStatus(s)).toBe("⏸️ Waiting for approval (1 pending)");
    s = nextStatus(s, { type: "approval.decided", callId: "c1", decision: { decision: "approved", by: "u" } }, own);
    s = nextStatus(
      s,
      {
        type: "call.settled",
        runId: "run_1",
        outcome: { callId: "c1", toolPath: "x.y", status: "succeeded", policy: "required", durationMs: 1 },
      },
      own,
    );
    expect(renderStatus(s)).toBe("⚙️ Running code… · 1 call");
    s = nextStatus(
      s,
      { type: "turn.finished", turnId: "t", sessionId: "s", unverified: false, runIds: [], stopReason: "answered" },
      own,
    );
    expect(renderStatus(s, 2500)).toBe("✅ Done in 2.5 s · 1 call");
  });
});

describe("a running call's progress", () => {
  test("the live status shows the latest progress of this turn's runs (escaped for Discord), not another turn's", () => {
    const own = (r: string) => r === "run_1";
    let s = nextStatus(initialStatus(0), { type: "run.started", turnId: "t", runId: "run_1", code: "" }, own);
    const progress = (runId: string, message: string) =>
      ({
        type: "call.progress",
        runId,
        progress: { callId: "c1", toolPath: "everything.longJob", progress: 2, total: 5, message },
      }) as const;
    s = nextStatus(s, progress("run_1", "copying *files*"), own);
    expect(renderStatus(s)).toBe("⚙️ Running code… — tools.everything.longJob: 2/5 copying \\*files\\*");
    s = nextStatus(s, progress("run_other", "someone else's"), own);
    expect(renderStatus(s)).toBe("⚙️ Running code… — tools.everything.longJob: 2/5 copying \\*files\\*");
  });
});

describe("failed status", () => {
  test("a model error keeps a failed state with a short reason, even after the turn finishes", () => {
    let s = initialStatus(0);
    s = nextStatus(
      s,
      { type: "error", turnId: "t", code: "model.billing", message: "Your credit balance is too low.\nDetails: …" },
      () => true,
    );
    s = nextStatus(
      s,
      { type: "turn.finished", turnId: "t", sessionId: "s", unverified: false, runIds: [], stopReason: "model_error" },
      () => true,
    );
    expect(renderStatus(s)).toBe("⚠️ Failed: Your credit balance is too low.");
    expect(renderStatus({ ...s, error: "x".repeat(500) }).length).toBeLessThan(220);
  });
});

describe("progress notes from thinking blocks", () => {
  test("the latest note is shown on the status line, escaped and cut; a retry wait is shown too", () => {
    const own = () => true;
    let s = initialStatus(0);
    s = nextStatus(
      s,
      { type: "model.thinking", turnId: "t", text: "Looking up reminders.\nChecking the **calendar** next." },
      own,
    );
    expect(renderStatus(s)).toBe("💭 Thinking… — Checking the \\*\\*calendar\\*\\* next.");
    s = nextStatus(s, { type: "model.retrying", turnId: "t", seconds: 3, reason: "rate limited" }, own);
    expect(renderStatus(s)).toBe("💭 Thinking… — waiting 3 s before retrying (rate limited)");
    s = nextStatus(s, { type: "history.compacted", turnId: "t", omitted: 4, reason: "prompt_too_long" }, own);
    expect(renderStatus(s)).toBe("💭 Thinking… — compacting the conversation to fit the model's context window");
    s = nextStatus(s, { type: "model.thinking", turnId: "t", text: "x".repeat(400) }, own);
    expect(renderStatus(s).length).toBeLessThan(180);
  });
});
