import type { Receipt } from "./types.ts";

/** A receipt row as every backend's table holds it (snake_case columns); `scheme` only in SQLite. */
export interface ReceiptRowFields {
  readonly seq: number;
  readonly id: string;
  readonly run_id: string;
  readonly call_id: string;
  readonly session_id: string | null;
  readonly tool_path: string;
  readonly phase: string;
  readonly approval: string;
  readonly policy: string;
  readonly decision: string | null;
  readonly decided_by: string | null;
  readonly reason: string | null;
  readonly input_preview: string | null;
  readonly output_preview: string | null;
  readonly error: string | null;
  readonly duration_ms: number | null;
  readonly at: number;
  readonly prev_hash: string | null;
  readonly hash: string;
  readonly model: string | null;
}

/** Drops absent (undefined/null) fields so stored and read-back receipts compare equal. */
export function compact<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out as T;
}

/** A stored row as the `Receipt` every reader returns; `legacy` marks a row from before the keyed chain. */
export function receiptFromRow(row: ReceiptRowFields, legacy = false): Receipt {
  const r = compact({
    id: row.id,
    seq: row.seq,
    runId: row.run_id,
    callId: row.call_id,
    sessionId: row.session_id,
    toolPath: row.tool_path,
    phase: row.phase,
    approval: row.approval,
    policy: row.policy,
    decision: row.decision,
    decidedBy: row.decided_by,
    reason: row.reason,
    inputPreview: row.input_preview,
    outputPreview: row.output_preview,
    error: row.error,
    model: row.model,
    durationMs: row.duration_ms,
    at: row.at,
    hash: row.hash,
  });
  return { ...r, prevHash: row.prev_hash, ...(legacy ? { legacy: true } : {}) } as Receipt;
}
