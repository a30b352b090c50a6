import type { ApprovalRecord, ApprovalRule, ApprovalRuleStore, ApprovalStore } from "./port.ts";
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
  /** Where requests and decisions are kept (`openSqliteApprovals(db).store`); the caller closes it. */
  readonly store: ApprovalStore;
  /** Where "approve always" rules are kept; the caller closes it. */
  readonly rules: ApprovalRuleStore;
  /** Used when a request carries no expiry after its request time. */
  readonly defaultTimeoutMs: number;
  readonly now?: () => number;
  /**
   * Other gateways share the store (PostgreSQL): a pending request nobody here waits for may be
   * waited for there, so `closeOrphans` closes only expired ones (a live waiter denies its own at expiry).
   */
  readonly shared?: boolean;
  /** A throwing subscriber never breaks the broker; it is reported here (default: console.error). */
  readonly onListenerError?: (error: unknown, event: ApprovalEvent) => void;
}

export interface ApprovalBroker {
  readonly requestApproval: RequestApproval;
  /** First decision wins; late and duplicate decisions are harmless. Who may decide is the surface's check. */
  decide(callId: string, decision: ApprovalDecision): Promise<DecideResult>;
  pending(): Promise<ApprovalRequest[]>;
  get(callId: string): Promise<ApprovalRecord | undefined>;
  subscribe(listener: (event: ApprovalEvent) => void): () => void;
  /**
   * A decision recorded elsewhere (another gateway on the same database): read from the store;
   * a call waiting here for it goes on, and "decided" is emitted. False when nothing waited here.
   */
  settleFromStore(callId: string): Promise<boolean>;
  /**
   * Denies (by "system", with `reason`) pending requests nobody in this process waits for — left
   * by a previous process — and returns them so surfaces can edit their cards. Emits no events.
   * On a shared store, only the expired ones (another gateway may wait for the others).
   */
  closeOrphans(reason: string): Promise<ApprovalRequest[]>;
  /**
   * Keeps these pending requests from `closeOrphans` until the returned function is called: a run
   * resumed after a restart will ask for them again under the same call id (its cards stay live).
   */
  hold(callIds: Iterable<string>): () => void;
  /** Denies what is still waiting ("system", recorded before it resolves) and stops timers. Does not close the stores. */
  close(): Promise<void>;
  readonly rules: ApprovalRuleStore;
}

interface Waiter {
  readonly promise: Promise<ApprovalDecision>;
  settle(decision: ApprovalDecision): void;
  fail(error: unknown): void;
}

export function createApprovalBroker(options: ApprovalBrokerOptions): ApprovalBroker {
  const now = options.now ?? Date.now;
  if (!(options.defaultTimeoutMs > 0))
    throw new RangeError(`approval broker: defaultTimeoutMs must be > 0, got ${options.defaultTimeoutMs}`);
  const { store, rules } = options;
  const listeners = new Set<(event: ApprovalEvent) => void>();
  const waiters = new Map<string, Waiter>();
  const held = new Map<string, number>();
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

  async function decide(callId: string, decision: ApprovalDecision): Promise<DecideResult> {
    if (decision.decision !== "approved" && decision.decision !== "denied")
      throw new TypeError(`approval decision for ${callId}: decision must be "approved" or "denied"`);
    if (typeof decision.by !== "string" || decision.by === "")
      throw new TypeError(`approval decision for ${callId}: "by" must name who decided`);
    const changed = await store.decide(callId, decision, now());
    const record = await store.get(callId);
    if (!record) return { outcome: "unknown" };
    if (!changed) return { outcome: "already-decided", request: record.request, decision: record.decision! };
    let rule: ApprovalRule | undefined;
    if (decision.decision === "approved" && decision.always) rule = await addAlwaysRule(record.request, decision);
    waiters.get(callId)?.settle(decision);
    emit({ type: "decided", request: record.request, decision });
    return rule
      ? { outcome: "decided", request: record.request, decision, rule }
      : { outcome: "decided", request: record.request, decision };
  }

  async function addAlwaysRule(
    request: ApprovalRequest,
    decision: ApprovalDecision,
  ): Promise<ApprovalRule | undefined> {
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
  async function denyBySystem(callId: string, decision: ApprovalDecision): Promise<void> {
    let result: DecideResult | undefined;
    try {
      result = await decide(callId, decision);
    } catch (error) {
      console.error(
        `approval ${callId}: could not record "${decision.reason}": ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    // Decided first elsewhere (another gateway on the same database): the recorded decision holds.
    waiters.get(callId)?.settle(result?.outcome === "already-decided" ? result.decision : decision);
  }

  const requestApproval: RequestApproval = (request, signal) => {
    if (closed) return Promise.resolve({ decision: "denied", by: "system", reason: "the approval broker is closed" });
    const existing = waiters.get(request.callId);
    if (existing) return existing.promise;

    const requestedAt = Number.isFinite(request.requestedAt) ? request.requestedAt : now();
    const expiresAt = request.expiresAt > requestedAt ? request.expiresAt : requestedAt + options.defaultTimeoutMs;
    const effective: ApprovalRequest = { ...request, requestedAt, expiresAt };

    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    let resolve!: (d: ApprovalDecision) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<ApprovalDecision>((ok, no) => ((resolve = ok), (reject = no)));
    const leave = (): boolean => {
      if (waiters.get(request.callId) !== waiter) return false;
      waiters.delete(request.callId);
      if (timer) clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
      return true;
    };
    const waiter: Waiter = {
      promise,
      settle: (decision) => void (leave() && resolve(decision)),
      fail: (error) => void (leave() && reject(error)),
    };
    // Registered before the row is written, so a second request for the same call waits on this one.
    waiters.set(request.callId, waiter);
    // Persisted before anyone is told: a card can always be resolved against a row.
    store.insert(effective).then(
      ({ record }) => (record.status !== "pending" ? waiter.settle(record.decision!) : waitFor(record.request)),
      (error) => waiter.fail(error),
    );
    return promise;

    function waitFor(stored: ApprovalRequest): void {
      if (waiters.get(request.callId) !== waiter) return;

      // A row kept from before a restart keeps its expiry: the wait counts across restarts.
      const windowMs = stored.expiresAt - stored.requestedAt;
      timer = setTimeout(
        () =>
          void denyBySystem(request.callId, {
            decision: "denied",
            by: "timeout",
            reason: `no decision within ${formatSeconds(windowMs)}s`,
          }),
        Math.max(0, stored.expiresAt - now()),
      );
      onAbort = () =>
        void denyBySystem(request.callId, { decision: "denied", by: "system", reason: abortReason(signal) });
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });

      if (waiters.get(request.callId) === waiter) emit({ type: "requested", request: stored });
    }
  };

  return {
    requestApproval,
    decide,
    pending: async () => (await store.listPending()).map((r) => r.request),
    get: (callId) => store.get(callId),
    async settleFromStore(callId) {
      const waiter = waiters.get(callId);
      if (!waiter) return false;
      const record = await store.get(callId);
      if (!record?.decision || waiters.get(callId) !== waiter) return false;
      waiter.settle(record.decision);
      emit({ type: "decided", request: record.request, decision: record.decision });
      return true;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async closeOrphans(reason) {
      const closedOnes: ApprovalRequest[] = [];
      const at = now();
      for (const record of await store.listPending()) {
        if (waiters.has(record.request.callId) || held.has(record.request.callId)) continue;
        if (options.shared && record.request.expiresAt > at) continue;
        if (await store.decide(record.request.callId, { decision: "denied", by: "system", reason }, at))
          closedOnes.push(record.request);
      }
      return closedOnes;
    },
    hold(callIds) {
      const ids = [...callIds];
      for (const id of ids) held.set(id, (held.get(id) ?? 0) + 1);
      return () => {
        for (const id of ids) {
          const n = (held.get(id) ?? 1) - 1;
          if (n > 0) held.set(id, n);
          else held.delete(id);
        }
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(
        [...waiters.keys()].map((callId) =>
          denyBySystem(callId, { decision: "denied", by: "system", reason: "the gateway is shutting down" }),
        ),
      );
      listeners.clear();
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
