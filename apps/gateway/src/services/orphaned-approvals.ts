import type { ApprovalBroker } from "@openassistant/core/approvals";
import type { ReceiptLog, ReceiptReader } from "@openassistant/core/receipts";

/**
 * Approvals left pending by a previous process can never be answered (nobody awaits them):
 * deny them and append a `denied` receipt so the audit trail says how the call ended.
 */
export async function closeOrphanedApprovals(
  approvals: ApprovalBroker,
  receipts: ReceiptLog & ReceiptReader,
  log: (line: string) => void,
): Promise<void> {
  const reason = "the gateway restarted before a decision";
  for (const request of await approvals.closeOrphans(reason)) {
    const last = (await receipts.query({ callId: request.callId })).at(-1);
    if (last && last.phase === "requested") {
      await receipts.append({
        runId: last.runId,
        callId: last.callId,
        toolPath: last.toolPath,
        phase: "denied",
        approval: last.approval,
        policy: last.policy,
        decision: "denied",
        decidedBy: "system",
        reason,
        sessionId: last.sessionId,
      });
    }
    log(`closed orphaned approval for tools.${request.toolPath} (${request.callId})`);
  }
}
