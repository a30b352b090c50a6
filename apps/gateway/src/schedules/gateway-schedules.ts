import { newId } from "@openassistant/core/db";
import type { ReceiptLog, ReceiptReader } from "@openassistant/core/receipts";
import { cutText } from "@openassistant/core/text";
import type { AbilityService } from "@openassistant/core/abilities";
import type { Conversations } from "../conversations/service.ts";
import type { EventBus } from "../events/bus.ts";
import type { SessionStore } from "../sessions/store.ts";
import { fireAbility } from "./ability-fire.ts";
import { scheduleOf, scheduleRequester } from "./ceiling.ts";
import type { configScheduleSchema } from "./input.ts";
import { occurrenceCallId } from "./receipts.ts";
import { createScheduler, type Scheduler } from "./scheduler.ts";
import { createSchedules, type Schedules } from "./service.ts";
import type { ScheduleStore } from "./store.ts";
import type { Schedule } from "./types.ts";
import { describeWhen, formatInZone } from "./when.ts";
import type { z } from "zod";

/** How often the scheduler looks for due occurrences (its clock is read at each tick). */
export const TICK_MS = 1_000;

/** How often a gateway on PostgreSQL looks for occurrences a dead gateway left `running`. */
export const SETTLE_EVERY_MS = 10_000;

/** The schedules as the gateway runs them. */
export interface GatewaySchedules {
  readonly service: Schedules;
  /** Runs one tick now (tests with a controllable clock drive it; the gateway's timer does otherwise). */
  tick: Scheduler["tick"];
  /** Resolves when every fire started so far has recorded its outcome. */
  idle: Scheduler["idle"];
  /** Stops the timer, aborts fires in progress and waits for their outcome. */
  close(reason: string): Promise<void>;
}

export interface GatewaySchedulesDeps {
  readonly store: ScheduleStore;
  readonly receipts: ReceiptLog & ReceiptReader;
  readonly sessions: Pick<SessionStore, "getOrCreate">;
  readonly conversations: Pick<Conversations, "handleMessage">;
  readonly events: Pick<EventBus, "emit">;
  /** The scheduler's clock (default `Date.now`); with one given, nothing ticks by itself. */
  readonly clock?: { now(): number };
  /** Each schedule whose turn runs here has its ceiling set while it runs (ceiling.ts reads it). */
  readonly ceilings: Map<string, readonly string[] | undefined>;
  /** Schedules whose ceilings stay set (their runs resumed at start: `holdResumedCeilings`). */
  readonly pinned?: ReadonlySet<string>;
  readonly config: ReadonlyArray<z.infer<typeof configScheduleSchema>>;
  /** #32: the abilities an ability schedule starts (absent: ability schedules are refused, and fail at fire time). */
  readonly abilities?: Pick<AbilityService, "list" | "start" | "cancel">;
  /**
   * One gateway owns the database (SQLite): an occurrence another gateway left `running` was cut
   * off by its stop, and is settled at start (`Scheduler.settleStranded`); `resumed`: the schedules
   * whose cut-off turns or runs this start resumes (`resumedSchedules`).
   */
  readonly settleStranded?: { readonly resumed: ReadonlySet<string> };
  /**
   * Several gateways on PostgreSQL: a session-level advisory lock per firing occurrence
   * (`openPgAbilityRunClaims`, one connection; closed with the schedules). An occurrence `running`
   * whose lock another gateway can take was a dead gateway's: settled at start and every
   * `SETTLE_EVERY_MS`.
   */
  readonly firing?: OccurrenceLocks;
  readonly log: (line: string) => void;
}

/** Locks by key (`openPgAbilityRunClaims` is one): held by this gateway's session. */
export interface OccurrenceLocks {
  take(key: string): Promise<boolean>;
  release(key: string): Promise<void>;
  close(): Promise<void>;
}

/** The surface a session key belongs to (`discord:thread:1` → `discord`). */
function surfaceOf(key: string): string {
  return key.split(":")[0] || key;
}

/**
 * What the model is told at an occurrence: the gateway's words (a schedule fired, which, when,
 * created by whom), then the prompt the schedule was created with.
 */
export function scheduledText(s: Schedule, at: number): string {
  if (!("prompt" in s.target)) return "";
  return `(Scheduled: "${s.name}" (${s.id}, ${describeWhen(s.when)}), the occurrence of ${formatInZone(at, s.timeZone)}, created by ${s.createdBy}. Nobody is waiting at the keyboard: answer in this conversation; you may call only the tools this schedule allows.)\n\n${s.target.prompt}`;
}

/** Opens the schedules: declares the config's, starts the scheduler (and its timer, unless a clock is given). */
export async function openGatewaySchedules(deps: GatewaySchedulesDeps): Promise<GatewaySchedules> {
  const now = deps.clock ? () => deps.clock!.now() : Date.now;
  const abilities = deps.abilities;
  const service = createSchedules({
    store: deps.store,
    receipts: deps.receipts,
    now,
    ...(abilities ? { abilities: async () => (await abilities.list()).abilities } : {}),
  });
  for (const line of await service.declareConfig(deps.config)) deps.log(`config: ${line}; that schedule is left out`);
  // The model's card of an ability schedule checks against the abilities read here (and at each creation).
  await service.loadAbilities().catch((e: unknown) => deps.log(`schedules: reading abilities failed: ${String(e)}`));
  // The ceiling is in the hook set only while an occurrence's turn runs (ceiling.ts): counted per schedule.
  const firing = new Map<string, number>();
  async function withCeiling<T>(s: Schedule, work: () => Promise<T>): Promise<T> {
    firing.set(s.id, (firing.get(s.id) ?? 0) + 1);
    deps.ceilings.set(s.id, s.ceiling);
    try {
      return await work();
    } finally {
      const left = (firing.get(s.id) ?? 1) - 1;
      if (left > 0) firing.set(s.id, left);
      else {
        firing.delete(s.id);
        if (!deps.pinned?.has(s.id)) deps.ceilings.delete(s.id);
      }
    }
  }
  const scheduler = createScheduler({
    store: deps.store,
    receipts: deps.receipts,
    now,
    gatewayId: newId("gw"),
    async sessionOf(s) {
      return (await deps.sessions.getOrCreate(s.target.conversation, surfaceOf(s.target.conversation))).id;
    },
    async fire({ schedule: s, at, signal }) {
      const key = s.target.conversation;
      if (!("prompt" in s.target)) {
        const sessionId = (await deps.sessions.getOrCreate(key, surfaceOf(key))).id;
        return withCeiling(s, () => fireAbility(abilities, s, sessionId, signal));
      }
      const outcome = await withCeiling(s, () =>
        deps.conversations.handleMessage({
          sessionKey: key,
          surface: surfaceOf(key),
          userId: scheduleRequester(s.id),
          text: scheduledText(s, at),
          signal,
        }),
      );
      const sessionId = (await deps.sessions.getOrCreate(key, surfaceOf(key))).id;
      deps.events.emit({
        type: "turn.scheduled",
        turnId: outcome.turnId,
        sessionId,
        sessionKey: key,
        surface: surfaceOf(key),
        scheduleId: s.id,
        scheduleName: s.name,
        text: outcome.text,
        summary: outcome.summary,
        summaryText: outcome.summaryText,
        unverified: outcome.unverified,
      });
      const ok = outcome.stopReason === "answered";
      return {
        turnId: outcome.turnId,
        runIds: outcome.runIds,
        ok,
        ...(ok ? {} : { error: `the turn ended ${outcome.stopReason}: ${cutText(outcome.text, 300)}` }),
      };
    },
    async alert(s, text) {
      const key = s.target.conversation;
      deps.events.emit({
        type: "schedule.alert",
        scheduleId: s.id,
        sessionKey: key,
        surface: surfaceOf(key),
        createdBy: s.createdBy,
        text,
      });
      deps.log(`schedule ${s.id}: ${text}`);
    },
    log: deps.log,
    ...(deps.firing ? { firing: deps.firing } : {}),
  });
  if (deps.settleStranded) await scheduler.settleStranded({ isGone: () => true, ...deps.settleStranded });
  const locks = deps.firing;
  const settleDead = locks
    ? () => scheduler.settleStranded({ isGone: (o) => locks.take(occurrenceCallId(o.scheduleId, o.at)) })
    : undefined;
  await settleDead?.();
  const sweeper =
    settleDead && !deps.clock
      ? setInterval(
          () =>
            void settleDead().catch((e: unknown) => deps.log(`schedules: settling failed: ${(e as Error).message}`)),
          SETTLE_EVERY_MS,
        )
      : undefined;
  sweeper?.unref?.();
  const timer = deps.clock
    ? undefined
    : setInterval(
        () => void scheduler.tick().catch((e: unknown) => deps.log(`schedules: tick failed: ${(e as Error).message}`)),
        TICK_MS,
      );
  timer?.unref?.();
  return {
    service,
    tick: () => scheduler.tick(),
    idle: () => scheduler.idle(),
    async close(reason) {
      if (timer) clearInterval(timer);
      if (sweeper) clearInterval(sweeper);
      await scheduler.close(reason);
      await deps.firing?.close();
    },
  };
}

/**
 * The runs resumed at start that a schedule asked for (`schedule:<id>`) keep its ceiling: it is
 * set (and pinned) from the store, `[]` (no tool) for a schedule that no longer exists.
 */
export async function holdResumedCeilings(
  requesters: ReadonlyArray<string | undefined>,
  store: Pick<ScheduleStore, "get">,
  ceilings: Map<string, readonly string[] | undefined>,
): Promise<Set<string>> {
  const pinned = new Set<string>();
  for (const requester of requesters) {
    const id = scheduleOf(requester);
    if (id === undefined || pinned.has(id)) continue;
    const s = await store.get(id);
    ceilings.set(id, s && s.removedAt === undefined ? s.ceiling : []);
    pinned.add(id);
  }
  return pinned;
}

/** The schedules (`schedule:<id>` requesters) whose cut-off turns or runs a start resumes (#30). */
export function resumedSchedules(requesters: ReadonlyArray<string | null | undefined>): Set<string> {
  const ids = requesters.map((r) => scheduleOf(r ?? undefined));
  return new Set(ids.filter((id): id is string => id !== undefined));
}
