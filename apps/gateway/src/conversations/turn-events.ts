import type { EventBus } from "../events/bus.ts";
import type { SessionStore } from "../sessions/store.ts";

/**
 * Model-side facts are recorded next to the receipts (turn_events): rotations, model errors,
 * compactions, their free text redacted. Returns the function that stops recording (before the
 * store closes).
 */
export function recordTurnEvents(deps: {
  readonly events: EventBus;
  readonly sessions: SessionStore;
  readonly redact: (text: string) => string;
  readonly log: (line: string) => void;
}): () => void {
  const { sessions, redact, log } = deps;
  let stopped = false;
  const record = (turnId: string | undefined, type: string, data: unknown) =>
    void sessions
      .recordTurnEvent(turnId, type, data)
      .catch((err) => log(`recording ${type}: ${err instanceof Error ? err.message : String(err)}`));
  const unsubscribe = deps.events.subscribe((e) => {
    if (stopped) return;
    if (e.type === "profile.rotated")
      record(e.turnId, e.type, {
        from: e.from,
        to: e.to,
        reason: e.reason,
        message: e.message ? redact(e.message) : undefined,
      });
    else if (e.type === "model.fallback")
      record(e.turnId, e.type, { from: e.from, to: e.to, reason: e.reason, message: redact(e.message) });
    else if (e.type === "error") record(e.turnId, e.type, { code: e.code, message: redact(e.message) });
    else if (e.type === "history.compacted") record(e.turnId, e.type, { omitted: e.omitted, reason: e.reason });
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}
