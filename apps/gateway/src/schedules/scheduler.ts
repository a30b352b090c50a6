import { newId } from "@openassistant/core/db";
import type { ReceiptLog } from "@openassistant/core/receipts";
import { ALERT_AFTER_FAILURES, backoffAfter, decideDue } from "./missed.ts";
import { failedReceipt, firedReceipt, occurrenceCallId, skippedReceipt, succeededReceipt } from "./receipts.ts";
import type { ScheduleStore } from "./store.ts";
import type { Occurrence, Schedule } from "./types.ts";
import { type FireTimes, fireTimes, fireTimesBetween, formatInZone } from "./when.ts";

/** The most occurrences one schedule handles in a tick (after a long downtime the oldest are left unreceipted past this). */
export const MAX_DUE_PER_TICK = 100;

/** Why an occurrence left `running` by a gateway that stopped failed (its `schedule.failed` receipt). */
export const STOPPED_WHILE_RUNNING = "the gateway stopped while it ran";

/** What a fire asks the gateway to run. */
export interface FireRequest {
  readonly schedule: Schedule;
  readonly at: number;
  /** Aborted at the schedule's next occurrence (or when the gateway stops): its approvals do not block it. */
  readonly signal: AbortSignal;
}

/** How the occurrence's turn (or ability run) ended. */
export interface FireResult {
  /** The prompt's turn ("" for an ability target). */
  readonly turnId: string;
  /** An ability target's run. */
  readonly abilityRunId?: string;
  /** The code runs the turn started, or the ability's step runs. */
  readonly runIds: readonly string[];
  /** The turn answered (its stop reason `answered`), or the ability's run completed. */
  readonly ok: boolean;
  /** Why not, when not. */
  readonly error?: string;
}

export interface SchedulerDeps {
  readonly store: ScheduleStore;
  readonly receipts: Pick<ReceiptLog, "stage" | "durable">;
  /** The clock every decision reads (tests pass one they move). */
  readonly now: () => number;
  /** This gateway, as occurrences record who claimed them. */
  readonly gatewayId: string;
  /** The session id of the schedule's conversation (created if new), for its receipts. */
  readonly sessionOf: (schedule: Schedule) => Promise<string | undefined>;
  readonly fire: (request: FireRequest) => Promise<FireResult>;
  /** Tells the schedule's creator it failed `ALERT_AFTER_FAILURES` times in a row. */
  readonly alert: (schedule: Schedule, text: string) => Promise<void>;
  readonly log: (line: string) => void;
  /**
   * On a shared database: a lock per firing occurrence (its call id), taken before its claim and
   * released once its outcome is recorded; a gateway that dies loses its locks (PostgreSQL ends its
   * session), which is how `settleStranded` knows it is gone (`openPgAbilityRunClaims`).
   */
  readonly firing?: { take(key: string): Promise<boolean>; release(key: string): Promise<void> };
}

/** What one tick did (tests and logs read it). */
export interface TickReport {
  readonly fired: ReadonlyArray<{ readonly scheduleId: string; readonly at: number }>;
  readonly skipped: ReadonlyArray<{ readonly scheduleId: string; readonly at: number; readonly why: string }>;
}

export interface Scheduler {
  /** Handles every occurrence due by `now()`: claims it (one gateway wins), fires or skips it with its receipt. */
  tick(): Promise<TickReport>;
  /**
   * Settles the occurrences left `running` by gateways that stopped (`isGone` says which: their
   * `claimedBy`): each gets its `schedule.failed` receipt, then is fired again here under the same
   * occurrence key when its missed-run policy is `once`/`all`, it is within the grace window and its
   * turn is not resumed by the restart (#30).
   */
  settleStranded(options: StrandedOptions): Promise<void>;
  /** Resolves when every fire started so far has finished and recorded its outcome. */
  idle(): Promise<void>;
  /** Aborts the fires in progress with `reason` and waits for them to record their outcome. */
  close(reason: string): Promise<void>;
}

export interface StrandedOptions {
  /** Whether the gateway that claimed an occurrence (`claimedBy`) has stopped. */
  readonly isGone: (o: Occurrence) => boolean | Promise<boolean>;
  /** Schedules whose cut-off turn or run this start resumes (#30): not fired again, it would answer twice. */
  readonly resumed?: ReadonlySet<string>;
}

interface Running {
  readonly controller: AbortController;
  readonly deadline: number | undefined;
  readonly done: Promise<void>;
}

/**
 * The scheduler: each tick reads the schedules, finds the occurrences due since each was last
 * checked, applies the missed-run policy and backoff, and claims each occurrence in the store (its
 * time is the key: on a shared database one gateway wins it). The winner records `schedule.fired`
 * and starts the turn, or `schedule.skipped`. A fire is done only with its success receipt
 * (`schedule.fired`, succeeded); a failure is `schedule.failed`, counts toward the backoff and, at
 * `ALERT_AFTER_FAILURES` in a row, alerts the creator.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const running = new Map<string, Running>();
  /** Each schedule's fire times (a cron parsed once per definition) and its next one after `checkedThrough`. */
  const parsed = new Map<string, { readonly def: string; readonly times: FireTimes }>();
  const nextAfter = new Map<string, { readonly key: string; readonly at: number | undefined }>();
  function timesOf(s: Schedule): FireTimes {
    const def = JSON.stringify([s.when, s.timeZone, s.createdAt]);
    let t = parsed.get(s.id);
    if (t?.def !== def) {
      t = { def, times: fireTimes(s.when, s.timeZone, s.createdAt) };
      parsed.set(s.id, t);
      nextAfter.delete(s.id);
    }
    return t.times;
  }
  let ticking: Promise<TickReport> | undefined;
  let closed = false;

  async function tick(): Promise<TickReport> {
    // One tick at a time: a slow store never lets two ticks decide the same occurrence here.
    while (ticking) await ticking.catch(() => {});
    ticking = tickOnce();
    try {
      return await ticking;
    } finally {
      ticking = undefined;
    }
  }

  async function tickOnce(): Promise<TickReport> {
    const now = deps.now();
    const fired: Array<{ scheduleId: string; at: number }> = [];
    const skipped: Array<{ scheduleId: string; at: number; why: string }> = [];
    for (const [key, r] of running)
      if (r.deadline !== undefined && r.deadline <= now)
        r.controller.abort(`the next occurrence of the schedule is due (${key})`);
    if (closed) return { fired, skipped };
    for (const s of await deps.store.list()) {
      try {
        await handleSchedule(s, now, fired, skipped);
      } catch (e) {
        deps.log(`schedule ${s.id} (${s.name}): ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return { fired, skipped };
  }

  async function handleSchedule(
    s: Schedule,
    now: number,
    fired: Array<{ scheduleId: string; at: number }>,
    skipped: Array<{ scheduleId: string; at: number; why: string }>,
  ): Promise<void> {
    const times = timesOf(s);
    // Most ticks find nothing due: the next fire time after what was handled is remembered.
    const key = `${s.checkedThrough}`;
    let next = nextAfter.get(s.id);
    if (next?.key !== key) nextAfter.set(s.id, (next = { key, at: times.next(s.checkedThrough) }));
    if (next.at === undefined || next.at > now) return;
    const due = fireTimesBetween(times, s.checkedThrough, now, MAX_DUE_PER_TICK);
    if (due.length === 0) return;
    // Paused: its occurrences pass unrun and unreceipted, so resuming it does not count them as missed.
    if (s.paused) return deps.store.progress(s.id, { checkedThrough: due.at(-1)! });
    for (const d of decideDue(due, now, s)) {
      const runId = newId("run");
      const lock = occurrenceCallId(s.id, d.at);
      // Held before the row exists, so a `running` row whose lock is free is a dead gateway's.
      if (d.fire && deps.firing && !(await deps.firing.take(lock))) continue; // another gateway fires it
      const won = await deps.store.claim({
        scheduleId: s.id,
        at: d.at,
        status: d.fire ? "running" : "skipped",
        runId,
        claimedBy: deps.gatewayId,
        claimedAt: now,
        ...(d.fire ? {} : { detail: d.why }),
      });
      if (!won && d.fire) await deps.firing?.release(lock);
      if (!won) continue; // another gateway took it
      if (!d.fire) {
        deps.receipts.stage(skippedReceipt(s, d.at, runId, d.by, d.why));
        skipped.push({ scheduleId: s.id, at: d.at, why: d.why });
        continue;
      }
      fired.push({ scheduleId: s.id, at: d.at });
      start(s, d.at, runId, d.why, times.next(d.at));
    }
    await deps.receipts.durable();
    await deps.store.progress(s.id, { checkedThrough: due.at(-1)! });
  }

  function start(s: Schedule, at: number, runId: string, why: string, deadline: number | undefined): void {
    const key = `${s.id}@${new Date(at).toISOString()}`;
    const controller = new AbortController();
    const done = fireOne(s, at, runId, why, controller.signal).finally(() => {
      running.delete(key);
      return deps.firing?.release(key).catch(() => {});
    });
    running.set(key, { controller, deadline, done });
  }

  async function fireOne(s: Schedule, at: number, runId: string, why: string, signal: AbortSignal): Promise<void> {
    const startedAt = deps.now();
    let sessionId: string | undefined;
    let result: FireResult;
    try {
      sessionId = await deps.sessionOf(s);
      deps.receipts.stage(firedReceipt(s, at, runId, sessionId, why));
      await deps.receipts.durable();
      result = await deps.fire({ schedule: s, at, signal });
    } catch (e) {
      result = { turnId: "", runIds: [], ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    const finishedAt = deps.now();
    const took = Math.max(0, finishedAt - startedAt);
    try {
      if (result.ok) {
        deps.receipts.stage(succeededReceipt(s, at, runId, sessionId, result, took));
        await deps.receipts.durable();
        await deps.store.finish(s.id, at, {
          status: "succeeded",
          finishedAt,
          turnId: result.turnId || result.abilityRunId!,
        });
        await deps.store.progress(s.id, { failures: 0, backoffUntil: null, lastOutcome: "succeeded", lastAt: at });
        return;
      }
      const error = result.error ?? "the turn did not answer";
      deps.receipts.stage(failedReceipt(s, at, runId, sessionId, error, took));
      await deps.receipts.durable();
      await deps.store.finish(s.id, at, {
        status: "failed",
        finishedAt,
        ...(result.turnId || result.abilityRunId ? { turnId: result.turnId || result.abilityRunId! } : {}),
        detail: error,
      });
      const latest = (await deps.store.get(s.id)) ?? s;
      const failures = latest.failures + 1;
      await deps.store.progress(s.id, {
        failures,
        backoffUntil: finishedAt + backoffAfter(failures),
        lastOutcome: "failed",
        lastAt: at,
      });
      if (failures === ALERT_AFTER_FAILURES)
        await deps.alert(
          s,
          `Schedule "${s.name}" (${s.id}) failed ${failures} times in a row; the last, at ${formatInZone(at, s.timeZone)}: ${error}. It backs off (next try after ${new Date(finishedAt + backoffAfter(failures)).toISOString()}); pause it with \`openassistant schedules pause ${s.id}\` or fix what fails.`,
        );
    } catch (e) {
      deps.log(
        `schedule ${s.id}: recording the outcome of ${new Date(at).toISOString()} failed: ${(e as Error).message}`,
      );
    }
  }

  async function settleStranded(options: StrandedOptions): Promise<void> {
    for (const o of await deps.store.running()) {
      if (o.claimedBy === deps.gatewayId || !(await options.isGone(o))) continue;
      // `isGone` may have taken the occurrence's lock: kept while it fires again here, else released.
      let again = false;
      try {
        again = await settleOne(o, options.resumed?.has(o.scheduleId) ?? false);
      } catch (e) {
        deps.log(`schedule ${o.scheduleId}: settling ${new Date(o.at).toISOString()} failed: ${(e as Error).message}`);
      } finally {
        if (!again) await deps.firing?.release(occurrenceCallId(o.scheduleId, o.at)).catch(() => {});
      }
    }
  }

  /** True when it fires again here. */
  async function settleOne(o: Occurrence, resumed: boolean): Promise<boolean> {
    const now = deps.now();
    const s = await deps.store.get(o.scheduleId);
    // An ability run is resumed by the abilities (`resumeAll`): a second one would run its steps twice.
    const ability = s !== undefined && !("prompt" in s.target);
    const again =
      s !== undefined &&
      !ability &&
      s.removedAt === undefined &&
      !s.paused &&
      s.missed !== "skip" &&
      now - o.at <= s.graceMs &&
      !resumed &&
      !closed;
    const detail = resumed
      ? `${STOPPED_WHILE_RUNNING}; its turn is resumed`
      : ability
        ? `${STOPPED_WHILE_RUNNING}; its ability run is resumed by the abilities`
        : STOPPED_WHILE_RUNNING;
    const runId = again ? newId("run") : o.runId;
    const won = await deps.store.retake(
      o.scheduleId,
      o.at,
      o.runId,
      again
        ? { status: "running", runId, claimedBy: deps.gatewayId, claimedAt: now }
        : { status: "failed", finishedAt: now, detail },
    );
    if (!won || s === undefined) return false;
    const sessionId = await deps.sessionOf(s).catch(() => undefined);
    deps.receipts.stage(failedReceipt(s, o.at, o.runId, sessionId, detail, Math.max(0, now - o.claimedAt)));
    await deps.receipts.durable();
    if (!again) {
      await deps.store.progress(s.id, { lastOutcome: "failed", lastAt: o.at });
      return false;
    }
    const why = `fired again: ${STOPPED_WHILE_RUNNING} (missed-run policy ${s.missed})`;
    start(s, o.at, runId, why, timesOf(s).next(Math.max(o.at, now)));
    return true;
  }

  async function idle(): Promise<void> {
    while (running.size) await Promise.all([...running.values()].map((r) => r.done));
  }

  async function close(reason: string): Promise<void> {
    closed = true;
    for (const r of running.values()) r.controller.abort(reason);
    await ticking?.catch(() => {});
    await idle();
  }

  return { tick, settleStranded, idle, close };
}
