import type { Database } from "bun:sqlite";
import { createApprovalRuleStore, type ApprovalRule, type ApprovalRuleStore } from "./rules.ts";
import { createApprovalStore, type ApprovalRecord } from "./store.ts";
import type { ApprovalDecision, ApprovalRequest, RequestApproval } from "./types.ts";

export type ApprovalEvent =
  | { readonly type: "requested"; readonly request: ApprovalRequest }
  | { readonly type: "decided"; readonly request: ApprovalRequest; readonly decision: ApprovalDecision };

export type DecideResult =
  | {
      readonly outcome: "decided";
      readonly request: ApprovalRequest;
      readonly decision: ApprovalDecision;
      readonly rule?: ApprovalRule;
    }
  | { readonly outcome: "already-decided"; readonly request: ApprovalRequest; readonly decision: ApprovalDecision }
  | { readonly outcome: "unknown" };

export interface ApprovalBrokerOptions {
  readonly db: Database;
  /** Used when a request carries no expiry after its request time. */
  readonly defaultTimeoutMs: number;
  readonly now?: () => number;
  /** Defaults to a rule store on the same database. */
  readonly rules?: ApprovalRuleStore;
  /** A throwing subscriber never breaks the broker; it is reported here (default: console.error). */
  readonly onListenerError?: (error: unknown, event: ApprovalEvent) => void;
}

export interface ApprovalBroker {
  readonly requestApproval: RequestApproval;
  /** First decision wins; late and duplicate decisions are harmless. Who may decide is the surface's check. */
  decide(callId: string, decision: ApprovalDecision): DecideResult;
  pending(): ApprovalRequest[];
  get(callId: string): ApprovalRecord | undefined;
  subscribe(listener: (event: ApprovalEvent) => void): () => void;
  /**
   * Denies (by "system", with `reason`) pending requests nobody in this process waits for — left
   * by a previous process — and returns them so surfaces can edit their cards. Emits no events.
   */
  closeOrphans(reason: string): ApprovalRequest[];
  /** Denies what is still waiting ("system") and stops timers. Does not close the database. */
  close(): void;
  readonly rules: ApprovalRuleStore;
}

interface Waiter {
  readonly promise: Promise<ApprovalDecision>;
  settle(decision: ApprovalDecision): void;
}

export function createApprovalBroker(options: ApprovalBrokerOptions): ApprovalBroker {
  const now = options.now ?? Date.now;
  if (!(options.defaultTimeoutMs > 0))
    throw new RangeError(`approval broker: defaultTimeoutMs must be > 0, got ${options.defaultTimeoutMs}`);
  const store = createApprovalStore(options.db);
  const ownsRules = !options.rules;
  const rules = options.rules ?? createApprovalRuleStore(options.db, { now });
  const listeners = new Set<(event: ApprovalEvent) => void>();
  const waiters = new Map<string, Waiter>();
  let closed = false;

  const emit = (event: ApprovalEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        if (options.onListenerError) options.onListenerError(error, event);
        else
          console.error(
            `approval listener failed on "${event.type}" for ${event.request.toolPath}: ${error instanceof Error ? error.message : String(error)}`,
          );
      }
    }
  };

  function decide(callId: string, decision: ApprovalDecision): DecideResult {
    if (decision.decision !== "approved" && decision.decision !== "denied")
      throw new TypeError(`approval decision for ${callId}: decision must be "approved" or "denied"`);
    if (typeof decision.by !== "string" || decision.by === "")
      throw new TypeError(`approval decision for ${callId}: "by" must name who decided`);
    const changed = store.decide(callId, decision, now());
    const record = store.get(callId);
    if (!record) return { outcome: "unknown" };
    if (!changed) return { outcome: "already-decided", request: record.request, decision: record.decision! };
    let rule: ApprovalRule | undefined;
    if (decision.decision === "approved" && decision.always) rule = addAlwaysRule(record.request, decision);
    waiters.get(callId)?.settle(decision);
    emit({ type: "decided", request: record.request, decision });
    return rule
      ? { outcome: "decided", request: record.request, decision, rule }
      : { outcome: "decided", request: record.request, decision };
  }

  function addAlwaysRule(request: ApprovalRequest, decision: ApprovalDecision): ApprovalRule | undefined {
    const always = decision.always!;
    // A session rule for a call without a session could never match: approve once, add nothing.
    if (always.scope === "session" && !request.sessionId) return undefined;
    return rules.add({
      toolPath: request.toolPath,
      scope: always.scope,
      sessionId: always.scope === "session" ? request.sessionId : undefined,
      createdBy: decision.by,
      expiresAt: always.ttlMs !== undefined ? now() + always.ttlMs : undefined,
    });
  }

  /** Used by timeout/abort/close: must settle even if the database is gone (fail closed). */
  function denyBySystem(callId: string, decision: ApprovalDecision): void {
    try {
      decide(callId, decision);
    } catch (error) {
      console.error(
        `approval ${callId}: could not record "${decision.reason}": ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    waiters.get(callId)?.settle(decision);
  }

  const requestApproval: RequestApproval = (request, signal) => {
    if (closed) return Promise.resolve({ decision: "denied", by: "system", reason: "the approval broker is closed" });
    const existing = waiters.get(request.callId);
    if (existing) return existing.promise;

    const requestedAt = Number.isFinite(request.requestedAt) ? request.requestedAt : now();
    const expiresAt = request.expiresAt > requestedAt ? request.expiresAt : requestedAt + options.defaultTimeoutMs;
    const effective: ApprovalRequest = { ...request, requestedAt, expiresAt };
    // Persisted before anyone is told: a card can always be resolved against a row.
    const { record } = store.insert(effective);
    if (record.status !== "pending") return Promise.resolve(record.decision!);

    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    let resolve!: (d: ApprovalDecision) => void;
    const promise = new Promise<ApprovalDecision>((r) => (resolve = r));
    const waiter: Waiter = {
      promise,
      settle(decision) {
        if (waiters.get(request.callId) !== waiter) return;
        waiters.delete(request.callId);
        if (timer) clearTimeout(timer);
        if (onAbort) signal.removeEventListener("abort", onAbort);
        resolve(decision);
      },
    };
    waiters.set(request.callId, waiter);

    const windowMs = expiresAt - requestedAt;
    timer = setTimeout(
      () =>
        denyBySystem(request.callId, {
          decision: "denied",
          by: "timeout",
          reason: `no decision within ${formatSeconds(windowMs)}s`,
        }),
      Math.max(0, expiresAt - now()),
    );
    onAbort = () => denyBySystem(request.callId, { decision: "denied", by: "system", reason: abortReason(signal) });
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });

    if (waiters.get(request.callId) === waiter) emit({ type: "requested", request: record.request });
    return promise;
  };

  return {
    requestApproval,
    decide,
    pending: () => store.listPending().map((r) => r.request),
    get: (callId) => store.get(callId),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    closeOrphans(reason) {
      const closedOnes: ApprovalRequest[] = [];
      const at = now();
      for (const record of store.listPending()) {
        if (waiters.has(record.request.callId)) continue;
        if (store.decide(record.request.callId, { decision: "denied", by: "system", reason }, at))
          closedOnes.push(record.request);
      }
      return closedOnes;
    },
    close() {
      if (closed) return;
      closed = true;
      for (const callId of [...waiters.keys()])
        denyBySystem(callId, { decision: "denied", by: "system", reason: "the gateway is shutting down" });
      listeners.clear();
      store.close();
      if (ownsRules) rules.close();
    },
    rules,
  };
}

function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (typeof r === "string" && r) return r;
  if (r instanceof Error && r.message) return r.message;
  return "the run was cancelled";
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return String(s >= 10 ? Math.round(s) : Number(s.toFixed(s >= 1 ? 1 : 2)));
}
