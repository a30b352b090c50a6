import { newId } from "@openassistant/core/db";
import type { ReceiptLog } from "@openassistant/core/receipts";
import {
  type AbilityCatalog,
  type configScheduleSchema,
  type DefinitionContext,
  type ScheduleInput,
  toDefinition,
} from "./input.ts";
import { createdReceipt } from "./receipts.ts";
import type { ScheduleStore } from "./store.ts";
import type { Occurrence, Schedule, ScheduleDefinition } from "./types.ts";
import { fireTimes, nextFireTimes } from "./when.ts";
import type { z } from "zod";

/** How many fire times lists and cards show. */
export const NEXT_SHOWN = 3;

/** A schedule with its next fire times (none while paused or removed, or once a one-shot ran). */
export interface ScheduleView extends Schedule {
  readonly next: readonly number[];
}

export type CreateContext = Omit<DefinitionContext, "id" | "createdAt" | "abilities"> & {
  /** The tool call that created it (the model's `schedules.create`), named in its `schedule.created` receipt. */
  readonly byCall?: string;
};

/** Creating, listing, pausing and removing schedules: what the CLI, the model's tools, the config and the console share. */
export interface Schedules {
  /** What `create` would make, with its next fire times (the approval card shows them); throws a `ScheduleInputError`. */
  preview(input: ScheduleInput, ctx: CreateContext): { definition: ScheduleDefinition; next: readonly number[] };
  /** Reads the abilities again (the card of an ability schedule checks against the last read). */
  loadAbilities(): Promise<void>;
  /** Creates it and records `schedule.created`. */
  create(input: ScheduleInput, ctx: CreateContext): Promise<ScheduleView>;
  list(options?: { readonly removed?: boolean }): Promise<ScheduleView[]>;
  get(id: string): Promise<ScheduleView | undefined>;
  history(id: string, limit?: number): Promise<Occurrence[]>;
  setPaused(id: string, paused: boolean): Promise<boolean>;
  remove(id: string): Promise<boolean>;
  /**
   * Declares the config's schedules (added or updated under their id, `schedule.created` for a new
   * one); a config schedule no longer in the config is removed. Returns a line per entry refused.
   */
  declareConfig(entries: ReadonlyArray<z.infer<typeof configScheduleSchema>>): Promise<string[]>;
}

export interface SchedulesDeps {
  readonly store: ScheduleStore;
  readonly receipts: Pick<ReceiptLog, "stage" | "durable">;
  readonly now: () => number;
  /**
   * Loads the abilities an ability target may name (read again at each creation and config
   * declaration; the card reads the last load). Absent: ability targets are refused.
   */
  readonly abilities?: () => Promise<AbilityCatalog>;
}

export function createSchedules(deps: SchedulesDeps): Schedules {
  const { store, receipts, now } = deps;
  let catalog: AbilityCatalog | undefined = deps.abilities ? new Map() : undefined;
  async function loadCatalog(): Promise<void> {
    if (deps.abilities) catalog = await deps.abilities();
  }

  function view(s: Schedule): ScheduleView {
    if (s.paused || s.removedAt !== undefined) return { ...s, next: [] };
    const times = fireTimes(s.when, s.timeZone, s.createdAt);
    return { ...s, next: nextFireTimes(times, Math.max(now(), s.checkedThrough), NEXT_SHOWN) };
  }

  function preview(input: ScheduleInput, ctx: CreateContext) {
    const createdAt = now();
    const definition = toDefinition(input, {
      ...ctx,
      id: newId("sch"),
      createdAt,
      ...(catalog ? { abilities: catalog } : {}),
    });
    const next = nextFireTimes(fireTimes(definition.when, definition.timeZone, createdAt), createdAt, NEXT_SHOWN);
    return { definition, next };
  }

  async function record(d: ScheduleDefinition, byCall?: string): Promise<void> {
    receipts.stage(createdReceipt(d, { callId: newId("call"), ...(byCall ? { byCall } : {}) }));
    await receipts.durable();
  }

  return {
    preview,
    loadAbilities: loadCatalog,
    async create(input, ctx) {
      if (input.ability !== undefined) await loadCatalog();
      const { definition } = preview(input, ctx);
      await store.add(definition);
      await record(definition, ctx.byCall);
      return view((await store.get(definition.id))!);
    },
    async list(options) {
      return (await store.list(options)).map(view);
    },
    async get(id) {
      const s = await store.get(id);
      return s ? view(s) : undefined;
    },
    history: (id, limit) => store.history(id, limit),
    setPaused: (id, paused) => store.setPaused(id, paused),
    remove: (id) => store.remove(id, now()),
    async declareConfig(entries) {
      const refused: string[] = [];
      if (entries.some((e) => e.ability !== undefined)) await loadCatalog();
      const declared = new Set<string>();
      for (const [i, entry] of entries.entries()) {
        const { id, paused, ...input } = entry;
        const existing = await store.get(id);
        try {
          const definition = toDefinition(
            input,
            {
              id,
              createdBy: "config",
              origin: "config",
              createdAt: existing?.createdAt ?? now(),
              ...(catalog ? { abilities: catalog } : {}),
            },
            `schedules[${i}] (${id})`,
          );
          await store.declare(definition);
          if (!existing || existing.removedAt !== undefined) await record(definition);
          if (paused !== undefined) await store.setPaused(id, paused);
          declared.add(id);
        } catch (e) {
          refused.push(e instanceof Error ? e.message : String(e));
        }
      }
      for (const s of await store.list())
        if (s.origin === "config" && !declared.has(s.id)) await store.remove(s.id, now());
      return refused;
    },
  };
}
