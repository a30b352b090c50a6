import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import { loadAbilities, parseKeyValues } from "@openassistant/core/abilities";
import { workspaceDir } from "@openassistant/core/config";
import { receiptKeyPath } from "@openassistant/core/receipts";
import { escapeInvisible } from "@openassistant/core/text";
import { resolveConfigDir } from "../../auth/paths.ts";
import { loadGatewaySettings } from "../../config-adapter.ts";
import { scheduleInputSchema } from "../../schedules/input.ts";
import { openStandaloneSchedules } from "../../schedules/open-standalone.ts";
import { describeTarget } from "../../schedules/receipts.ts";
import type { Schedules, ScheduleView } from "../../schedules/service.ts";
import { describeWhen, formatInZone, ScheduleInputError } from "../../schedules/when.ts";
import { storageFor } from "../../storage/index.ts";
import { CliError, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

const ACTIONS = ["list", "add", "pause", "resume", "remove"] as const;

const args = {
  action: { type: "positional", description: ACTIONS.join(" | "), required: false, valueHint: ACTIONS.join(" | ") },
  id: { type: "positional", description: "The schedule's id (pause, resume, remove)", required: false },
  name: { type: "string", description: "add: a short name" },
  cron: { type: "string", description: 'add: a cron pattern ("0 9 * * 1-5"; 6 fields: seconds first)' },
  at: { type: "string", description: 'add: one occurrence, an ISO date-time ("2026-12-01T09:00", in --tz)' },
  every: { type: "string", description: 'add: an interval ("15m", "2h", "1d")' },
  tz: { type: "string", description: 'add: an IANA time zone ("Europe/Oslo"; default: this machine\'s)' },
  prompt: { type: "string", description: "add: what the assistant is asked at each occurrence" },
  ability: { type: "string", description: "add: an ability to run instead of a prompt (.openassistant/abilities/)" },
  input: { type: "string", description: "add: an input of the ability, name=value (repeat --input for each)" },
  conversation: {
    type: "string",
    description: "add: the conversation it runs in (discord:dm:<user id>, discord:thread:<id>, terminal)",
  },
  missed: { type: "string", description: "add: occurrences missed while down: skip | once (default) | all" },
  grace: { type: "string", description: 'add: how late a missed occurrence may still run ("1h", default)' },
  tools: { type: "string", description: "add: the tools its runs may call, comma-separated (default: any)" },
  json: { type: "boolean", description: "Print JSON instead of lines" },
  project: PROJECT_ARG,
} as const;

/** `openassistant schedules`: list, add, pause, resume and remove schedules (docs/schedules.md). */
export const schedulesCommand = defineCommand({
  meta: {
    name: "schedules",
    description: "Schedules: `schedules list`, `schedules add --name … --cron …`, `schedules pause|resume|remove <id>`",
  },
  args,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, args);
      const action = (a.action ?? "list") as (typeof ACTIONS)[number];
      if (!ACTIONS.includes(action))
        throw new CliError(
          `Unknown action "${a.action}": use one of ${ACTIONS.join(", ")} (openassistant schedules --help)`,
        );
      if (action !== "list" && action !== "add" && !a.id)
        throw new CliError(
          `Name the schedule: openassistant schedules ${action} <id> (ids: openassistant schedules list)`,
        );
      const cwd = resolveProject(a.project);
      const { settings } = await loadGatewaySettings(cwd, process.env, { tools: false });
      const storage = storageFor(settings);
      if (!(await storage.backend.exists(storage.location)))
        throw new CliError(`No database at ${storage.described} yet: start the gateway (bun start) to create it.`);
      const configDir = resolveConfigDir(process.env);
      if (!existsSync(receiptKeyPath(configDir)))
        throw new CliError(
          `No receipt key at ${receiptKeyPath(configDir)}: run this with the same OPENASSISTANT_CONFIG_DIR as the gateway.`,
        );
      // Ability targets are checked against the project's abilities (a plugin's are the running gateway's).
      const abilitiesDir = join(workspaceDir(cwd), "abilities");
      const opened = await openStandaloneSchedules(
        storage,
        configDir,
        async () => (await loadAbilities([abilitiesDir])).abilities,
      );
      try {
        if (action === "list") return await list(opened.schedules, a.json === true);
        if (action === "add") return await add(opened.schedules, { ...a, input: inputsOf(rawArgs) }, a.json === true);
        const changed =
          action === "remove"
            ? await opened.schedules.remove(a.id!)
            : await opened.schedules.setPaused(a.id!, action === "pause");
        if (!changed)
          throw new CliError(
            `No schedule ${escapeInvisible(a.id!)} (removed, or not an id: openassistant schedules list)`,
          );
        console.log(`${action === "remove" ? "Removed" : action === "pause" ? "Paused" : "Resumed"} ${a.id}.`);
      } finally {
        await opened.close();
      }
    }),
});

async function list(schedules: Schedules, json: boolean): Promise<void> {
  const all = await schedules.list();
  if (json) return console.log(JSON.stringify({ count: all.length, schedules: all }, null, 2));
  if (all.length === 0) return console.log("No schedules.");
  for (const s of all) console.log(formatSchedule(s));
}

async function add(schedules: Schedules, a: Record<string, unknown>, json: boolean): Promise<void> {
  const parsed = scheduleInputSchema.safeParse({
    name: a.name,
    cron: a.cron,
    at: a.at,
    every: a.every,
    timeZone: a.tz,
    prompt: a.prompt,
    ability: a.ability,
    inputs: a.input,
    conversation: a.conversation,
    missed: a.missed,
    grace: a.grace,
    tools:
      typeof a.tools === "string"
        ? a.tools
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean)
        : undefined,
  });
  if (!parsed.success)
    throw new CliError(
      parsed.error.issues.map((i) => `--${flagOf(String(i.path[0] ?? "name"))}: ${i.message}`).join("; "),
    );
  try {
    const s = await schedules.create(parsed.data, { origin: "cli", createdBy: "cli" });
    if (json) return console.log(JSON.stringify(s, null, 2));
    console.log(`Created ${s.id}.`);
    console.log(formatSchedule(s));
  } catch (e) {
    if (e instanceof ScheduleInputError) throw new CliError(e.message);
    throw e;
  }
}

const flagOf = (field: string) => (field === "timeZone" ? "tz" : field === "inputs" ? "input" : field);

/** Every `--input name=value` (the flag repeats; citty keeps one), as the ability's inputs; undefined without any. */
function inputsOf(rawArgs: readonly string[]): Record<string, string> | undefined {
  const words: string[] = [];
  for (const [i, raw] of rawArgs.entries()) {
    if (raw.startsWith("--input=")) words.push(raw.slice("--input=".length));
    else if (raw === "--input" && rawArgs[i + 1] !== undefined) words.push(rawArgs[i + 1]!);
  }
  if (words.length === 0) return undefined;
  const { inputs, problems } = parseKeyValues(words);
  if (problems.length) throw new CliError(`--input: ${problems.join("; ")}; write --input name=value`);
  return inputs;
}

/** One schedule: id, name, when, zone, state, what runs, next fire times, last outcome. */
export function formatSchedule(s: ScheduleView): string {
  const state = s.paused ? "paused" : "active";
  const last = s.lastOutcome && s.lastAt ? `  last: ${s.lastOutcome} (${formatInZone(s.lastAt, s.timeZone)})` : "";
  return [
    `${s.id}  ${escapeInvisible(s.name)}  ${escapeInvisible(describeWhen(s.when))}  ${s.timeZone}  ${state}${last}`,
    `    runs: ${escapeInvisible(describeTarget(s))}`,
    `    tools: ${s.ceiling ? s.ceiling.join(", ") || "none" : "any"}  missed: ${s.missed}`,
    `    next: ${s.next.length ? s.next.map((t) => formatInZone(t, s.timeZone)).join("; ") : "none"}`,
  ].join("\n");
}
