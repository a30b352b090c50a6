import { withSystemText } from "../hooks/gateway-hooks.ts";
import { redactDeep } from "@openassistant/core/receipts";
import { newTurnId, runTurn, type TurnDeps, type TurnOutcome } from "../agent/run-turn.ts";
import { mergeTurnSettings, type TurnSettings } from "../agent/settings.ts";
import type { EventBus } from "../events/bus.ts";
import type { GatewayEvent } from "../events/types.ts";
import { createKeyedQueue } from "../sessions/keyed-queue.ts";
import { TURN_TEXT_CAPS, type SessionStore } from "../sessions/store.ts";
import type { Session, TurnRecord } from "../sessions/types.ts";

export interface IncomingMessage {
  /** Stable conversation key: `discord:dm:<user>`, `discord:thread:<id>`, `terminal`. */
  readonly sessionKey: string;
  readonly surface: string;
  readonly userId?: string;
  readonly text: string;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: GatewayEvent) => void;
}

/** A run resumed after a restart (#30), whose result its conversation is given back. */
export interface ResumedRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly requestedBy?: string;
  /** The run's result as the model is given it (`formatRunResultForModel`). */
  readonly resultText: string;
}

export class GatewayClosedError extends Error {
  override name = "GatewayClosedError";
}

export interface ConversationDeps {
  readonly sessions: SessionStore;
  readonly events: EventBus;
  /** Scrubs every known secret: what is stored, emitted and returned passes it. */
  readonly redact: (text: string) => string;
  /** The configured turn settings; a session's own settings are merged over them per turn. */
  readonly turnSettings: TurnSettings;
  /** What a turn runs with (model for the session's pinned profile, runner, checker, tools). */
  readonly turnDeps: (session: Session) => Omit<TurnDeps, "settings">;
  /** What plugin hooks add to this turn's system prompt (`chat.message`), if any. */
  readonly hookText?: (message: {
    readonly text: string;
    readonly userId?: string;
    readonly sessionId: string;
  }) => Promise<string | undefined>;
  /** #32: what asks the `prompt.system` hooks before each model round; undefined when there are none. */
  readonly roundText?: (message: {
    readonly userId?: string;
    readonly sessionId: string;
  }) => (() => Promise<string | undefined>) | undefined;
  readonly log: (line: string) => void;
}

/**
 * Conversations: one turn at a time per session (history stays ordered), each turn persisted
 * (its request, messages and outcome, redacted) and announced (`turn.started`, every turn event,
 * `turn.finished`, redacted) to the event bus and the message's own listener.
 */
export interface Conversations {
  handleMessage(message: IncomingMessage): Promise<TurnOutcome>;
  /**
   * #30: continues the conversation of a run resumed after a restart: the turn the restart cut off
   * is closed (stop reason `aborted`, naming the run) and a new turn in the same session gives the
   * model the run's result; its answer is stored and announced (`turn.resumed`) for the surface
   * to deliver. Undefined when the session is unknown.
   */
  continueResumed(run: ResumedRun): Promise<TurnOutcome | undefined>;
  /**
   * #30: answers again a turn a kill cut off with no run to resume (the model was streaming): the
   * cut turn is closed (`aborted`, saying why) and a new turn in the same session answers its
   * stored request (redacted, cut to TURN_TEXT_CAPS); `finishedRuns` are the runs the cut turn had
   * already finished (the model is told, the answer is grounded in them). The answer is stored and
   * announced (`turn.resumed`, no run id). Undefined when the session or the request is unknown.
   */
  answerCutOff(turn: TurnRecord, finishedRuns: readonly string[]): Promise<TurnOutcome | undefined>;
  /** Turns in progress (queued or running). */
  readonly activeTurns: number;
  /**
   * Refuses new turns, cancels those in progress with `reason` (which denies their pending
   * approvals) and waits up to `graceMs` for them to record their outcome.
   */
  close(reason: string, graceMs: number): Promise<void>;
}

const CUT_OFF_ANSWER =
  "(The gateway was killed while the model answered this turn; it was answered again in the next turn.)";
const CLOSED_MESSAGE = "The gateway is shutting down; try again when it is back.";

export function createConversations(deps: ConversationDeps): Conversations {
  const { sessions, redact } = deps;
  const inflight = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  const sessionQueue = createKeyedQueue();
  let closing = false;

  /** One turn, run in its session's queue: persisted before and after, announced as it goes. */
  async function converse(
    message: IncomingMessage,
    session: Session,
    turnId: string,
    signal: AbortSignal,
    resumedRuns?: readonly string[],
  ): Promise<TurnOutcome> {
    if (closing) throw new GatewayClosedError(CLOSED_MESSAGE);
    const onEvent = (e: GatewayEvent) => {
      const safe = redactDeep(e, redact);
      deps.events.emit(safe);
      message.onEvent?.(safe);
    };
    const fresh = (await sessions.get(session.id)) ?? session;
    const merged = mergeTurnSettings(deps.turnSettings, fresh.settings as Record<string, unknown>);
    await beginTurn(message, session, turnId, merged.model, onEvent);
    const settings = withSystemText(
      merged,
      await deps.hookText?.({ text: message.text, userId: message.userId, sessionId: session.id }),
    );
    // Refused turns are left out (the docs' reset after a refusal); run ids let a compaction keep
    // what the dropped messages' runs did, from their receipts.
    const history = (await sessions.modelHistory(session.id)).map((m) => ({
      role: m.role,
      content: m.content,
      runIds: m.runIds,
    }));
    const leftOutRuns = (await sessions.turns(session.id))
      .filter((t) => t.stopReason === "refused")
      .flatMap((t) => t.runIds);
    const roundSystem = deps.roundText?.({ userId: message.userId, sessionId: session.id });
    const raw = await runTurn(
      { id: session.id, history, leftOutRuns, requestedBy: message.userId, ...(resumedRuns ? { resumedRuns } : {}) },
      message.text,
      { ...deps.turnDeps(fresh), settings, ...(roundSystem ? { roundSystem } : {}) },
      { turnId, signal, onEvent },
    );
    // What is stored and shown is scrubbed too: a user may paste a secret, and the model may repeat it.
    const outcome = redactDeep(raw, redact);
    await endTurn(session, turnId, outcome, onEvent);
    return outcome;
  }

  /** Where a turn starts: its record (the request redacted), then `turn.started`. */
  async function beginTurn(
    message: IncomingMessage,
    session: Session,
    turnId: string,
    model: string,
    onEvent: (e: GatewayEvent) => void,
  ): Promise<void> {
    await sessions.startTurn({
      id: turnId,
      sessionId: session.id,
      userId: message.userId,
      request: redact(message.text),
      model,
    });
    onEvent({ type: "turn.started", turnId, sessionId: session.id, surface: message.surface, at: Date.now() });
  }

  /** Where a turn ends: its messages and outcome (already redacted) stored, then `turn.finished`. */
  async function endTurn(
    session: Session,
    turnId: string,
    outcome: TurnOutcome,
    onEvent: (e: GatewayEvent) => void,
  ): Promise<void> {
    await sessions.appendMessages(session.id, turnId, outcome.messages);
    await sessions.finishTurn(turnId, {
      stopReason: outcome.stopReason,
      unverified: outcome.unverified,
      runIds: outcome.runIds,
      usage: outcome.usage,
      answer: outcome.text,
      ...(outcome.answeredBy ? { model: outcome.answeredBy } : {}),
    });
    onEvent({
      type: "turn.finished",
      turnId,
      sessionId: session.id,
      unverified: outcome.unverified,
      runIds: outcome.runIds,
      stopReason: outcome.stopReason,
    });
  }

  async function handleMessage(message: IncomingMessage): Promise<TurnOutcome> {
    if (closing) throw new GatewayClosedError(CLOSED_MESSAGE);
    const session = await sessions.getOrCreate(message.sessionKey, message.surface);
    return track(message, session);
  }

  async function continueResumed(run: ResumedRun): Promise<TurnOutcome | undefined> {
    if (closing) throw new GatewayClosedError(CLOSED_MESSAGE);
    const session = await sessions.get(run.sessionId);
    if (!session) return undefined;
    const cut = (await sessions.turns(session.id)).filter((t) => t.finishedAt === null).at(-1);
    if (cut)
      await sessions.finishTurn(cut.id, {
        stopReason: "aborted",
        unverified: false,
        runIds: [run.runId],
        answer: `(The gateway restarted during this turn; run ${run.runId} was resumed and answered in the next turn.)`,
      });
    const text = resumedRunText(cut?.request ?? undefined, run);
    const outcome = await track(
      { sessionKey: session.key, surface: session.surface, userId: run.requestedBy, text },
      session,
      [run.runId],
    );
    deps.events.emit({
      type: "turn.resumed",
      turnId: outcome.turnId,
      sessionId: session.id,
      sessionKey: session.key,
      surface: session.surface,
      runId: run.runId,
      text: outcome.text,
      summary: outcome.summary,
      summaryText: outcome.summaryText,
      unverified: outcome.unverified,
    });
    return outcome;
  }

  async function answerCutOff(turn: TurnRecord, finishedRuns: readonly string[]): Promise<TurnOutcome | undefined> {
    if (closing) throw new GatewayClosedError(CLOSED_MESSAGE);
    const session = await sessions.get(turn.sessionId);
    await sessions.finishTurn(turn.id, {
      stopReason: "aborted",
      unverified: false,
      runIds: finishedRuns,
      answer:
        session && turn.request !== null
          ? CUT_OFF_ANSWER
          : "(The gateway was killed during this turn; its request was not kept, so it was not answered again.)",
    });
    if (!session || turn.request === null) return undefined;
    const outcome = await track(
      {
        sessionKey: session.key,
        surface: session.surface,
        ...(turn.userId ? { userId: turn.userId } : {}),
        text: cutOffTurnText(turn.request, finishedRuns),
      },
      session,
      finishedRuns,
    );
    deps.events.emit({
      type: "turn.resumed",
      turnId: outcome.turnId,
      sessionId: session.id,
      sessionKey: session.key,
      surface: session.surface,
      text: outcome.text,
      summary: outcome.summary,
      summaryText: outcome.summaryText,
      unverified: outcome.unverified,
    });
    return outcome;
  }

  /** Runs a turn in its session's queue, tracked so `close` can cancel it and wait for it. */
  function track(message: IncomingMessage, session: Session, resumedRuns?: readonly string[]): Promise<TurnOutcome> {
    const turnId = newTurnId();
    const controller = new AbortController();
    const abortFromCaller = () => controller.abort(message.signal?.reason ?? "cancelled by the surface");
    if (message.signal?.aborted) abortFromCaller();
    message.signal?.addEventListener("abort", abortFromCaller, { once: true });
    // One turn at a time per session, so history stays ordered.
    const work = sessionQueue.run(session.id, () => converse(message, session, turnId, controller.signal, resumedRuns));
    const tracked = work.finally(() => {
      inflight.delete(turnId);
      message.signal?.removeEventListener("abort", abortFromCaller);
    });
    inflight.set(turnId, { controller, done: tracked });
    return tracked;
  }

  async function close(reason: string, graceMs: number): Promise<void> {
    if (closing) return;
    closing = true;
    if (inflight.size) deps.log(`shutting down: ${inflight.size} turn(s) in progress`);
    // Cancelling a turn's signal denies its pending approvals (by "system", with this reason)
    // and fails calls that had not started; the turn then records its outcome.
    for (const { controller } of inflight.values()) controller.abort(reason);
    const pending = [...inflight.values()].map((t) => t.done.catch(() => {}));
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(pending), new Promise((r) => (graceTimer = setTimeout(r, graceMs)))]);
    clearTimeout(graceTimer);
  }

  return {
    handleMessage,
    continueResumed,
    answerCutOff,
    get activeTurns() {
      return inflight.size;
    },
    close,
  };
}

/**
 * What the model is told in the turn that continues a resumed run: the gateway's words, not the
 * user's; the request it served (as stored, redacted) and the run's result.
 */
export function resumedRunText(request: string | undefined, run: ResumedRun): string {
  return [
    `[Gateway: the gateway restarted while it worked on ${request ? `the request «${request}»` : "the previous request"}. The code it had run (run ${run.runId}) was resumed from its receipts: calls already made were answered from the record, not made again. Its result follows. Answer that request from it; do not run that code again.]`,
    "",
    run.resultText,
  ].join("\n");
}

/**
 * What the model is told in the turn that answers again a request a kill cut off (#30): the
 * gateway's words, then the request as stored (redacted, cut to TURN_TEXT_CAPS.request).
 */
export function cutOffTurnText(request: string, finishedRuns: readonly string[]): string {
  const runs = finishedRuns.length
    ? ` Code you ran for it finished before the restart (run ${finishedRuns.join(", ")}); its calls are in the record and were not made again: do not repeat their effects, answer from them.`
    : "";
  return [
    `[Gateway: the gateway restarted while you answered the message below, so the user got no answer. Answer it now.${runs} The message follows as stored (secrets redacted, cut at ${TURN_TEXT_CAPS.request} characters).]`,
    "",
    request,
  ].join("\n");
}
