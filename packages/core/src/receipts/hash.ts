import type { Receipt } from "./types.ts";

/** Legacy rows were written before receipts named a model (#35). */
type Hashable = Omit<Receipt, "hash" | "prevHash" | "model">;

/**
 * Canonical JSON of a receipt's content: every content field, keys sorted, absent values as null.
 * Built by hand (not a generic sorter) so the bytes hashed are stable across releases.
 */
export function canonicalReceiptJson(r: Hashable): string {
  return JSON.stringify({
    approval: r.approval,
    at: r.at,
    callId: r.callId,
    decidedBy: r.decidedBy ?? null,
    decision: r.decision ?? null,
    durationMs: r.durationMs ?? null,
    error: r.error ?? null,
    id: r.id,
    inputPreview: r.inputPreview ?? null,
    outputPreview: r.outputPreview ?? null,
    phase: r.phase,
    policy: r.policy,
    reason: r.reason ?? null,
    runId: r.runId,
    seq: r.seq,
    sessionId: r.sessionId ?? null,
    toolPath: r.toolPath,
  });
}

/** Legacy scheme (rows written before the keyed chain; verified, never written). hash = sha256(prev_hash + "\n" + canonical JSON), hex. The first receipt of a run has prev "". */
export function receiptHash(prevHash: string | null, r: Hashable): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(prevHash ?? "");
  hasher.update("\n");
  hasher.update(canonicalReceiptJson(r));
  return hasher.digest("hex");
}
