import type { ApprovalRecord } from "@openassistant/core/approvals";
import type { Receipt } from "@openassistant/core/receipts";

/** One step of a call's timeline: a receipt, or a step its receipts imply (validated, approval requested). */
export interface TimelineStep {
  readonly label: string;
  readonly at: number;
  /** The receipt that records (or implies) the step. */
  readonly receipt: Receipt;
  /** Implied by the next receipt rather than recorded on its own. */
  readonly derived?: boolean;
  readonly detail?: string;
}

const failedValidation = (r: Receipt) =>
  r.phase === "failed" &&
  /^(invalid input for |unknown tool |the input for .* could not be validated)/.test(r.error ?? "");

/**
 * requested → validated → policy decision → approval requested → decided (by whom) → started →
 * succeeded/failed, from a call's receipts in causal order: by `seq`, the order the store wrote
 * them, never by `at` (steps within one millisecond tie). Validation, the policy's verdict and the
 * approval request have no receipt of their own: they are shown when the receipt after `requested`
 * proves them.
 */
export function callTimeline(unordered: readonly Receipt[], approval?: ApprovalRecord): TimelineStep[] {
  const receipts = [...unordered].sort((a, b) => a.seq - b.seq);
  const steps: TimelineStep[] = [];
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i]!;
    const next = receipts[i + 1];
    // A plugin hook's change (#29: approval required, input or result replaced); its denial is the call's outcome below.
    if (r.phase !== "denied" && r.decidedBy?.startsWith("plugin:")) {
      steps.push({ label: `plugin ${r.decidedBy.slice(7)}: ${r.reason ?? "changed the call"}`, at: r.at, receipt: r });
      continue;
    }
    switch (r.phase) {
      case "requested": {
        steps.push({ label: "requested", at: r.at, receipt: r });
        if (next && !failedValidation(next)) {
          steps.push({ label: "input validated", at: next.at, receipt: next, derived: true });
          const byPolicy = next.phase === "denied" && next.decidedBy === "policy";
          if (r.policy !== "auto" || byPolicy)
            steps.push({
              label: byPolicy ? "policy: deny" : "policy: approval required",
              at: next.at,
              receipt: next,
              derived: true,
            });
          // A standing "approve always" rule decides without asking anyone.
          const byRule = next.decidedBy?.startsWith("rule:") === true;
          const asked = r.policy === "required" && !byPolicy && !byRule;
          if (asked) {
            const at = approval?.request.requestedAt ?? r.at;
            const until = approval ? ` (expires ${new Date(approval.request.expiresAt).toISOString()})` : "";
            steps.push({ label: `approval requested${until}`, at, receipt: next, derived: true });
          }
        } else if (!next && r.policy === "required" && approval?.status === "pending") {
          steps.push({ label: "input validated", at: r.at, receipt: r, derived: true });
          steps.push({ label: "policy: approval required", at: r.at, receipt: r, derived: true });
          steps.push({
            label: "approval requested — waiting for a decision",
            at: approval.request.requestedAt,
            receipt: r,
            derived: true,
          });
        }
        break;
      }
      case "approved":
        steps.push({
          label: r.decidedBy?.startsWith("rule:")
            ? `approved by ${r.decidedBy} (approve-always rule ${r.decidedBy.slice(5)})`
            : `approved by ${r.decidedBy ?? "an operator"}`,
          at: r.at,
          receipt: r,
        });
        break;
      case "denied":
        steps.push({
          label: `denied by ${r.decidedBy ?? "an operator"}`,
          at: r.at,
          receipt: r,
          ...(r.reason ? { detail: r.reason } : {}),
        });
        break;
      case "started":
        steps.push({
          label: r.decision === "auto" || r.decision === undefined ? "started (auto: no approval needed)" : "started",
          at: r.at,
          receipt: r,
        });
        break;
      case "succeeded":
        steps.push({
          label: `succeeded${r.durationMs !== undefined ? ` in ${r.durationMs} ms` : ""}`,
          at: r.at,
          receipt: r,
        });
        break;
      case "failed":
        steps.push({ label: "failed", at: r.at, receipt: r, ...(r.error ? { detail: r.error } : {}) });
        break;
    }
  }
  return steps;
}
