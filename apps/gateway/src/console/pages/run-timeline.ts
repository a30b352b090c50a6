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
 * requested → validated → approval requested → decided (by whom) → started → succeeded/failed,
 * from a call's receipts in order. Validation and the approval request have no receipt of their
 * own: they are shown when the receipt after `requested` proves them.
 */
export function callTimeline(receipts: readonly Receipt[], approval?: ApprovalRecord): TimelineStep[] {
  const steps: TimelineStep[] = [];
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i]!;
    const next = receipts[i + 1];
    switch (r.phase) {
      case "requested": {
        steps.push({ label: "requested", at: r.at, receipt: r });
        if (next && !failedValidation(next)) {
          steps.push({ label: "input validated", at: next.at, receipt: next, derived: true });
          const asked = r.policy === "required" && !(next.phase === "denied" && next.decidedBy === "policy");
          if (asked) {
            const at = approval?.request.requestedAt ?? r.at;
            const until = approval ? ` (expires ${new Date(approval.request.expiresAt).toISOString()})` : "";
            steps.push({ label: `approval requested${until}`, at, receipt: next, derived: true });
          }
        } else if (!next && r.policy === "required" && approval?.status === "pending") {
          steps.push({ label: "input validated", at: r.at, receipt: r, derived: true });
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
        steps.push({ label: `approved by ${r.decidedBy ?? "an operator"}`, at: r.at, receipt: r });
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
