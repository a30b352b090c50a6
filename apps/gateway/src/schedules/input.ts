import { checkAbilityInputs } from "@openassistant/core/abilities";
import { z } from "zod";
import { MISSED_POLICIES, type ScheduleDefinition, type ScheduleOrigin, type Target, type When } from "./types.ts";
import { fireTimes, parseDuration, ScheduleInputError } from "./when.ts";

/**
 * A schedule as people write it (config entry, CLI flags, the model's `tools.schedules.create`):
 * flat, one of `cron` / `at` / `every`, one of `prompt` / `ability`.
 */
export const scheduleInputShape = {
  name: z.string().min(1).max(100).describe("A short name people recognise (shown on cards and lists)"),
  cron: z
    .string()
    .optional()
    .describe('A cron pattern: 5 fields ("0 9 * * 1-5": 09:00 on weekdays) or 6 with seconds first'),
  at: z.string().optional().describe('One occurrence: an ISO date-time, e.g. "2026-12-01T09:00" (in timeZone)'),
  every: z.string().optional().describe('An interval from now: "30s", "15m", "2h", "1d"'),
  timeZone: z.string().optional().describe('An IANA time zone, e.g. "Europe/Oslo" (default: the gateway\'s zone)'),
  prompt: z.string().min(1).max(4000).optional().describe("What the assistant is asked at each occurrence"),
  conversation: z
    .string()
    .optional()
    .describe("The conversation the prompt runs in (session key); default: this conversation"),
  ability: z
    .string()
    .optional()
    .describe("An ability to run instead of a prompt (its run starts in the conversation; see abilities)"),
  inputs: z.record(z.string(), z.unknown()).optional().describe("The ability's inputs (checked against its schema)"),
  missed: z
    .enum(["skip", "once", "all"])
    .optional()
    .describe("Occurrences missed while the gateway was down: skip them, run the newest once (default), or run all"),
  grace: z.string().optional().describe('How late a missed occurrence may still run, e.g. "1h" (default)'),
  tools: z
    .array(z.string())
    .optional()
    .describe("The tools its runs may call (paths or globs such as notes.*); default: the tools this turn used"),
};

export const scheduleInputSchema = z.object(scheduleInputShape);
export type ScheduleInput = z.infer<typeof scheduleInputSchema>;

/** A schedule in config.jsonc: an input with a stable `id` (letters, digits, `-`, `_`) and an optional `paused`. */
export const configScheduleSchema = scheduleInputSchema.extend({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "an id is 1-64 letters, digits, - or _")
    .describe("Stable id: the schedule's history follows it across restarts"),
  paused: z.boolean().optional(),
});

export const schedulesConfigSchema = z.array(configScheduleSchema).default([]);

/** The gateway's own zone, the default for a schedule that names none. */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

export const DEFAULT_GRACE = "1h";

/** Text an ability target is refused with where the gateway has no abilities (their store could not be opened). */
export const NO_ABILITIES = "abilities are not available in this gateway; schedule a prompt instead";

/** The abilities a schedule may name, as last loaded (name → its input schema): the checks are synchronous, like the card. */
export type AbilityCatalog = ReadonlyMap<string, { readonly inputSchema: z.ZodObject }>;

export interface DefinitionContext {
  readonly id: string;
  readonly createdBy: string;
  readonly origin: ScheduleOrigin;
  readonly createdAt: number;
  /** The conversation a prompt runs in when the input names none (the creating turn's). */
  readonly conversation?: string;
  /** The tools the creating turn used: the ceiling when the input gives none (model-created schedules). */
  readonly usedTools?: readonly string[];
  /** The abilities an ability target may name; absent: ability targets are refused (`NO_ABILITIES`). */
  readonly abilities?: AbilityCatalog;
}

/**
 * Checks an input and makes the schedule's definition; a `ScheduleInputError` names the field
 * (`where` prefixes it: `schedules[2]` in the config) and says what to write.
 */
export function toDefinition(input: ScheduleInput, ctx: DefinitionContext, where = ""): ScheduleDefinition {
  const field = (name: string) => (where ? `${where}.${name}` : name);
  try {
    const when = whenOf(input, field);
    const timeZone = input.timeZone ?? hostTimeZone();
    const target = targetOf(input, ctx, field);
    const graceMs = parseDuration(input.grace ?? DEFAULT_GRACE, field("grace"));
    // An ability's run is held to its steps' tools by the ability's own enforcement: no default
    // ceiling from the creating turn (it would deny the steps); `tools`, when given, limits it further.
    const ceiling = input.tools ?? ("ability" in target ? undefined : ctx.usedTools);
    const definition: ScheduleDefinition = {
      id: ctx.id,
      name: input.name,
      when,
      timeZone,
      target,
      missed: input.missed ?? "once",
      graceMs,
      ...(ceiling ? { ceiling: [...new Set(ceiling)] } : {}),
      createdBy: ctx.createdBy,
      origin: ctx.origin,
      createdAt: ctx.createdAt,
    };
    const times = fireTimes(when, timeZone, ctx.createdAt);
    if ("at" in when && times.next(ctx.createdAt) === undefined)
      throw new ScheduleInputError(`when.at: "${when.at}" is in the past; give a time after now`);
    return definition;
  } catch (e) {
    if (e instanceof ScheduleInputError && where && !e.message.startsWith(where))
      throw new ScheduleInputError(`${where}: ${e.message}`);
    throw e;
  }
}

function whenOf(input: ScheduleInput, field: (n: string) => string): When {
  const given = (["cron", "at", "every"] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1)
    throw new ScheduleInputError(
      `${field("cron")}: give exactly one of cron, at or every (${given.length ? `got ${given.join(" and ")}` : "got none"})`,
    );
  const key = given[0]!;
  if (key === "cron") return { cron: input.cron! };
  if (key === "at") return { at: input.at! };
  return { every: input.every! };
}

function targetOf(input: ScheduleInput, ctx: DefinitionContext, field: (n: string) => string): Target {
  if (input.ability !== undefined && input.prompt !== undefined)
    throw new ScheduleInputError(`${field("ability")}: give a prompt or an ability, not both`);
  if (input.ability === undefined && input.prompt === undefined)
    throw new ScheduleInputError(`${field("prompt")}: say what runs: a prompt or an ability`);
  const conversation = input.conversation ?? ctx.conversation;
  if (!conversation)
    throw new ScheduleInputError(
      `${field("conversation")}: name the conversation the ${input.ability === undefined ? "prompt" : "ability"} runs in (a session key such as discord:dm:<user id>, discord:thread:<id> or terminal)`,
    );
  if (input.prompt !== undefined) return { prompt: input.prompt, conversation };
  const inputs = input.inputs ?? {};
  abilityProblem(input.ability!, inputs, ctx.abilities, field);
  return { ability: input.ability!, inputs, conversation };
}

/** An ability target must name a loaded ability and give inputs its schema accepts (the error names the input). */
function abilityProblem(
  name: string,
  inputs: Readonly<Record<string, unknown>>,
  abilities: AbilityCatalog | undefined,
  field: (n: string) => string,
): void {
  if (!abilities) throw new ScheduleInputError(`${field("ability")}: ${NO_ABILITIES}`);
  const ability = abilities.get(name);
  if (!ability)
    throw new ScheduleInputError(
      `${field("ability")}: no ability "${name}" (abilities: ${[...abilities.keys()].join(", ") || "none"}; see docs/abilities.md)`,
    );
  const checked = checkAbilityInputs(ability.inputSchema, inputs);
  if (!checked.ok)
    throw new ScheduleInputError(`${field("inputs")}: ability "${name}": ${checked.problems.join("; ")}`);
}

export { MISSED_POLICIES };
