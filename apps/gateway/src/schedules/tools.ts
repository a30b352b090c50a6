import { defineTool, z, type ToolTree } from "@openassistant/sdk";
import { builtInToolsEntry, lateBoundTools, type LateBoundTools } from "../built-in/late-bound.ts";
import type { ReceiptReader } from "@openassistant/core/receipts";
import type { SessionStore } from "../sessions/store.ts";
import { scheduleInputShape, type ScheduleInput } from "./input.ts";
import { describeTarget } from "./receipts.ts";
import type { Schedules, ScheduleView } from "./service.ts";
import { describeWhen, formatInZone } from "./when.ts";

/** What the model's schedule tools run with, bound once the gateway's stores are open. */
export interface ScheduleToolDeps {
  readonly schedules: Schedules;
  readonly sessions: Pick<SessionStore, "get" | "turns">;
  readonly receipts: Pick<ReceiptReader, "query">;
}

/** `tools.schedules.{create,list,cancel}`, bound once the stores are open (built-in/late-bound.ts). */
export type ScheduleToolBinding = LateBoundTools<ScheduleToolDeps>;

/** Tools the schedules' own machinery calls, never part of a ceiling by default. */
const NOT_IN_CEILING = /^(schedules\.|\$)/;

export function scheduleToolBinding(): ScheduleToolBinding {
  return lateBoundTools("schedules", scheduleTools);
}

function scheduleTools(bound: () => ScheduleToolDeps): ToolTree {
  /** The conversation, who asked and the tools used so far, of the turn this call belongs to. */
  async function creatingTurn(sessionId: string | undefined) {
    const d = bound();
    const session = sessionId ? await d.sessions.get(sessionId) : undefined;
    if (!session) return { createdBy: "model" };
    const turn = (await d.sessions.turns(session.id)).filter((t) => t.finishedAt === null).at(-1);
    const used = turn
      ? (await d.receipts.query({ sessionId: session.id, since: turn.startedAt, limit: 1000 }))
          .map((r) => r.toolPath)
          .filter((p) => !NOT_IN_CEILING.test(p))
      : [];
    return { conversation: session.key, createdBy: turn?.userId ?? "model", usedTools: [...new Set(used)] };
  }

  /**
   * What the model may see and cancel: the schedules that run in this conversation or that the
   * person asking created (never another person's schedules elsewhere).
   */
  async function visibleSchedules(sessionId: string | undefined): Promise<ScheduleView[]> {
    const turn = await creatingTurn(sessionId);
    if (!turn.conversation) return [];
    return (await bound().schedules.list()).filter(
      (s) =>
        s.target.conversation === turn.conversation || (turn.createdBy !== "model" && s.createdBy === turn.createdBy),
    );
  }

  return {
    create: defineTool({
      description:
        "Schedule the assistant to act later: a prompt run as a turn in this conversation (or an `ability` run with its `inputs`) at a time (`at`), on a cron pattern (`cron`) or every interval (`every`), in an IANA time zone. A prompt's runs may call only the tools this turn used unless `tools` lists others. Needs a person's approval; returns the schedule with its next fire times.",
      approval: "required",
      args: z.object(scheduleInputShape),
      previewInput: (input: ScheduleInput) => cardText(input, bound().schedules),
      run: async (input, ctx) => {
        const turn = await creatingTurn(ctx.sessionId);
        const s = await bound().schedules.create(input, { origin: "model", ...turn, byCall: ctx.callId });
        return summary(s);
      },
    }),
    list: defineTool({
      description:
        "List the schedules of this conversation and those the person asking created, with their next fire times and last outcome.",
      approval: "auto",
      readOnly: true,
      args: z.object({}),
      run: async (_input, ctx) => (await visibleSchedules(ctx.sessionId)).map(summary),
    }),
    cancel: defineTool({
      description:
        "Cancel (remove) a schedule of this conversation, or one the person asking created, by its id; its history is kept.",
      approval: "required",
      args: z.object({ id: z.string().describe("The schedule's id (sch_…), from schedules.list") }),
      run: async (input, ctx) => {
        const s = (await visibleSchedules(ctx.sessionId)).find((v) => v.id === input.id);
        if (!s) throw new Error(`no schedule ${input.id} in this conversation: schedules.list shows their ids`);
        await bound().schedules.remove(input.id);
        return { cancelled: input.id, name: s.name };
      },
    }),
  };
}

/**
 * The approval card's summary of `schedules.create`: when (the cron, `at` or interval), the time
 * zone, the next three fire times in that zone, what runs and with which tools. A bad input says
 * what is wrong (the call then fails with the same message).
 */
export function cardText(input: ScheduleInput, schedules: Pick<Schedules, "preview">): string {
  try {
    const { definition: d, next } = schedules.preview(input, {
      origin: "model",
      createdBy: "model",
      conversation: input.conversation ?? "this conversation",
      usedTools: [],
    });
    return [
      `Schedule "${d.name}": ${describeWhen(d.when)}`,
      `Time zone: ${d.timeZone}`,
      `Next fire times: ${next.length ? next.map((t) => formatInZone(t, d.timeZone)).join("; ") : "none"}`,
      `Runs: ${describeTarget(d)}`,
      `Tools it may call: ${toolsLine(input, "ability" in d.target)}`,
      `Missed while down: ${d.missed} (grace ${input.grace ?? "1h"})`,
    ].join("\n");
  } catch (e) {
    return `This schedule is not valid: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** The card's ceiling line: an ability's run is held to its steps' tools, and to `tools` when given. */
function toolsLine(input: ScheduleInput, ability: boolean): string {
  const listed = input.tools ? input.tools.join(", ") || "none" : undefined;
  if (!ability) return listed ?? "the tools this turn used";
  return listed ? `its steps' tools, only among ${listed}` : "its steps' tools (the ability's own limit)";
}

/** What the model sees of a schedule. */
function summary(s: ScheduleView) {
  return {
    id: s.id,
    name: s.name,
    when: describeWhen(s.when),
    timeZone: s.timeZone,
    runs: describeTarget(s),
    tools: s.ceiling ?? "any",
    paused: s.paused,
    next: s.next.map((t) => formatInZone(t, s.timeZone)),
    ...(s.lastOutcome ? { lastOutcome: s.lastOutcome } : {}),
  };
}

/** The gateway's own `tools.schedules.*` as a bundled source entry (the gateway, and `plugins list` to count the same). */
export function scheduleToolsEntry(binding: ScheduleToolBinding) {
  return builtInToolsEntry("schedules", binding);
}
