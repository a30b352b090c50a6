import type { ReceiptDraft } from "@openassistant/core/receipts";
import { describeWhen, formatInZone } from "./when.ts";
import type { Schedule, ScheduleDefinition } from "./types.ts";

/** The receipt kinds of a schedule's life (their tool path in the keyed chain). */
export type ScheduleReceiptKind = "created" | "fired" | "skipped" | "failed";

/** The occurrence's call id: the schedule and its time, the same on every gateway. */
export function occurrenceCallId(scheduleId: string, at: number): string {
  return `${scheduleId}@${new Date(at).toISOString()}`;
}

/** What a schedule runs, in one line (receipts, cards, lists). */
export function describeTarget(s: Pick<ScheduleDefinition, "target">): string {
  const t = s.target;
  if ("prompt" in t) return `the prompt "${t.prompt}" in ${t.conversation}`;
  return `the ability ${t.ability} with inputs ${JSON.stringify(t.inputs)} in ${t.conversation}`;
}

const base = (kind: ScheduleReceiptKind) =>
  ({ toolPath: `schedule.${kind}`, approval: "auto", policy: "auto" }) as const;

/**
 * `schedule.created`: in the schedule's own run (its id), decided by who created it (an approver
 * for a schedule the model asked for: the card's decision is in that call's receipts, `byCall`).
 */
export function createdReceipt(s: ScheduleDefinition, options: { byCall?: string; callId: string }): ReceiptDraft {
  return {
    ...base("created"),
    runId: s.id,
    callId: options.callId,
    phase: "succeeded",
    decision: "auto",
    decidedBy: s.createdBy,
    inputPreview: JSON.stringify({
      name: s.name,
      when: describeWhen(s.when),
      timeZone: s.timeZone,
      target: describeTarget(s),
      missed: s.missed,
      graceMs: s.graceMs,
      ceiling: s.ceiling ?? "none",
    }),
    outputPreview: `created by ${s.origin}${options.byCall ? ` (call ${options.byCall})` : ""}`,
  };
}

/** The shared fields of an occurrence's receipts: its run, its call (schedule@time), the conversation's session. */
function occurrence(s: Schedule, at: number, runId: string, sessionId: string | undefined) {
  return {
    runId,
    callId: occurrenceCallId(s.id, at),
    ...(sessionId ? { sessionId } : {}),
    inputPreview: `${s.name} (${s.id}): ${describeTarget(s)}, occurrence ${formatInZone(at, s.timeZone)}`,
  };
}

/** `schedule.fired` (started): the occurrence's turn begins; `why` says on time or caught up. */
export function firedReceipt(s: Schedule, at: number, runId: string, sessionId: string | undefined, why: string) {
  return {
    ...base("fired"),
    ...occurrence(s, at, runId, sessionId),
    phase: "started",
    decision: "auto",
    decidedBy: `schedule:${s.id}`,
    reason: why,
  } satisfies ReceiptDraft;
}

/**
 * `schedule.fired` (succeeded): the success receipt that makes an occurrence done, naming the turn
 * and the runs it started, or the ability run and its step runs.
 */
export function succeededReceipt(
  s: Schedule,
  at: number,
  runId: string,
  sessionId: string | undefined,
  turn: { turnId: string; abilityRunId?: string; runIds: readonly string[] },
  durationMs: number,
) {
  const runs = turn.runIds.length ? turn.runIds.join(", ") : "none";
  return {
    ...base("fired"),
    ...occurrence(s, at, runId, sessionId),
    phase: "succeeded",
    outputPreview: turn.abilityRunId
      ? `ability run ${turn.abilityRunId} completed; step runs: ${runs}`
      : `turn ${turn.turnId} answered; runs: ${runs}`,
    durationMs,
  } satisfies ReceiptDraft;
}

/** `schedule.failed`: the occurrence's turn did not answer (or could not start). */
export function failedReceipt(
  s: Schedule,
  at: number,
  runId: string,
  sessionId: string | undefined,
  error: string,
  durationMs: number,
) {
  return {
    ...base("failed"),
    ...occurrence(s, at, runId, sessionId),
    phase: "failed",
    error,
    durationMs,
  } satisfies ReceiptDraft;
}

/** `schedule.skipped`: an occurrence not run, and why (missed-run policy, grace window, backoff). */
export function skippedReceipt(s: Schedule, at: number, runId: string, decidedBy: string, reason: string) {
  return {
    ...base("skipped"),
    ...occurrence(s, at, runId, undefined),
    phase: "denied",
    decision: "denied",
    decidedBy,
    reason,
  } satisfies ReceiptDraft;
}
