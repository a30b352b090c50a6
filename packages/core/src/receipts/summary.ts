import { clipText } from "./redact.ts";
import { OUTCOME_UNKNOWN } from "./replay/port.ts";
import { phaseStatus, type CallStatus } from "./status.ts";
import type { Decision, PolicyMode, Receipt, ReceiptPhase } from "./types.ts";

/** One call in the relevant-activity summary (seed 001 §5). */
export interface ActivityItem {
  readonly toolId: string;
  readonly callId: string;
  readonly runId: string;
  readonly status: CallStatus;
  /** The call's latest phase; tells "pending approval" from "started, no result yet". */
  readonly lastPhase: ReceiptPhase;
  readonly approval: { readonly mode: PolicyMode; readonly decision?: Decision; readonly by?: string };
  /** Time of the call's latest receipt (epoch ms). */
  readonly when: number;
  /** Id of the call's latest receipt. */
  readonly receiptRef: string;
  readonly reason?: string;
  readonly error?: string;
  readonly inputPreview?: string;
  readonly outputPreview?: string;
  /** What plugins' hooks changed on the call (approval required, input or result replaced), in order. */
  readonly hooks?: readonly string[];
}

export interface ActivitySummary {
  readonly runIds: string[];
  readonly items: ActivityItem[];
  /** Successful auto calls (reads) left out beyond `maxAutoReads`. */
  readonly omittedReads: number;
}

export interface SummaryOptions {
  /** Successful auto calls kept (most recent first); default 5. */
  readonly maxAutoReads?: number;
}

interface CallAcc {
  firstSeq: number;
  last: Receipt;
  decision?: Decision;
  by?: string;
  reason?: string;
  error?: string;
  inputPreview?: string;
  outputPreview?: string;
  hooks?: string[];
}

/** A receipt of a plugin hook's change (a denial by a hook is the call's outcome, not a note). */
const isHookNote = (r: Receipt) => r.phase !== "denied" && r.decidedBy?.startsWith("plugin:") === true;

/**
 * Relevant activity of a turn, derived only from receipts (pass every receipt of the turn, across
 * its runs). Kept: every failed, denied or pending call; every call whose effective policy was
 * `required` or `deny`; the most recent `maxAutoReads` successful auto calls. The rest is counted.
 * Items are in call order (first receipt).
 */
export function summarizeRun(receipts: readonly Receipt[], opts: SummaryOptions = {}): ActivitySummary {
  const maxAutoReads = Math.max(0, opts.maxAutoReads ?? 5);
  const ordered = isSortedBySeq(receipts) ? receipts : [...receipts].sort((a, b) => a.seq - b.seq);
  const calls = new Map<string, CallAcc>();
  const runIds: string[] = [];
  const seenRuns = new Set<string>();
  for (const r of ordered) {
    if (!seenRuns.has(r.runId)) seenRuns.add(r.runId), runIds.push(r.runId);
    let acc = calls.get(r.callId);
    if (!acc) {
      acc = { firstSeq: r.seq, last: r };
      calls.set(r.callId, acc);
    }
    acc.last = r;
    if (isHookNote(r)) {
      if (r.reason !== undefined) (acc.hooks ??= []).push(r.reason);
      continue;
    }
    if (r.decision !== undefined) acc.decision = r.decision;
    if (r.decidedBy !== undefined) acc.by = r.decidedBy;
    if (r.reason !== undefined) acc.reason = r.reason;
    if (r.error !== undefined) acc.error = r.error;
    if (r.inputPreview !== undefined) acc.inputPreview = r.inputPreview;
    if (r.outputPreview !== undefined) acc.outputPreview = r.outputPreview;
  }

  const kept: Array<{ firstSeq: number; item: ActivityItem }> = [];
  const reads: Array<{ firstSeq: number; lastSeq: number; item: ActivityItem }> = [];
  for (const acc of calls.values()) {
    const item = toItem(acc);
    if (item.status === "succeeded" && item.approval.mode === "auto" && !item.hooks)
      reads.push({ firstSeq: acc.firstSeq, lastSeq: acc.last.seq, item });
    else kept.push({ firstSeq: acc.firstSeq, item });
  }
  reads.sort((a, b) => b.lastSeq - a.lastSeq);
  const shownReads = reads.slice(0, maxAutoReads);
  const items = [...kept, ...shownReads].sort((a, b) => a.firstSeq - b.firstSeq).map((x) => x.item);
  return { runIds, items, omittedReads: reads.length - shownReads.length };
}

function toItem(acc: CallAcc): ActivityItem {
  const r = acc.last;
  const item: Record<string, unknown> = {
    toolId: r.toolPath,
    callId: r.callId,
    runId: r.runId,
    status: phaseStatus(r.phase),
    lastPhase: r.phase,
    approval: withDefined({ mode: r.policy, decision: acc.decision, by: acc.by }),
    when: r.at,
    receiptRef: r.id,
  };
  if (acc.reason !== undefined) item.reason = acc.reason;
  if (acc.error !== undefined) item.error = acc.error;
  if (acc.inputPreview !== undefined) item.inputPreview = acc.inputPreview;
  if (acc.outputPreview !== undefined) item.outputPreview = acc.outputPreview;
  if (acc.hooks !== undefined) item.hooks = acc.hooks;
  return item as unknown as ActivityItem;
}

export interface FormatOptions {
  /** Longest reason/error text per line; default 300. */
  readonly maxTextChars?: number;
}

/** Compact lines for the model's final answer and for the user under it. */
export function formatSummaryForModel(summary: ActivitySummary, opts: FormatOptions = {}): string {
  const max = opts.maxTextChars ?? 300;
  const text = (s: string) => clipText(s.replace(/\s+/g, " ").trim(), max);
  const lines = summary.items.map((i) => formatItem(i, text) + (i.hooks ? ` · ${i.hooks.map(text).join("; ")}` : ""));
  if (summary.omittedReads > 0)
    lines.push(`(+${summary.omittedReads} successful read${summary.omittedReads === 1 ? "" : "s"} not shown)`);
  return lines.length ? lines.join("\n") : "No tool calls were made.";
}

function formatItem(i: ActivityItem, text: (s: string) => string): string {
  const ref = ` [${i.receiptRef}]`;
  const approved = i.approval.decision === "approved" ? ` (approved by ${i.approval.by ?? "operator"})` : "";
  switch (i.status) {
    case "succeeded":
      return `✅ ${i.toolId} succeeded${approved}${ref}`;
    case "failed":
      // A call a restart cut off: it may or may not have acted; nothing backs a claim that it did.
      if (i.error?.startsWith(OUTCOME_UNKNOWN))
        return `❓ ${i.toolId} outcome unknown (unverified)${approved}: ${text(i.error)}${ref}`;
      return `❌ ${i.toolId} failed${approved}: ${text(i.error ?? i.reason ?? "no error recorded")}${ref}`;
    case "denied":
      return `⛔ ${i.toolId} denied by ${i.approval.by ?? "operator"}${i.reason ? `: "${text(i.reason)}"` : ""}${ref}`;
    case "pending":
      if (i.lastPhase === "requested" && i.approval.mode === "required") return `⏳ ${i.toolId} pending approval${ref}`;
      if (i.lastPhase === "approved") return `⏳ ${i.toolId}${approved}, not started${ref}`;
      if (i.lastPhase === "started") return `⏳ ${i.toolId} started, no result recorded${ref}`;
      return `⏳ ${i.toolId} requested, not started${ref}`;
  }
}

function isSortedBySeq(rs: readonly Receipt[]): boolean {
  for (let i = 1; i < rs.length; i++) if (rs[i]!.seq < rs[i - 1]!.seq) return false;
  return true;
}

function withDefined<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}
