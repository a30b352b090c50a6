import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { AbilityRun, AbilityService } from "@openassistant/core/abilities";
import { workspaceDir } from "@openassistant/core/config";
import type { LoadEntry } from "@openassistant/core/plugins";
import { defineTool, type ToolTree, z } from "@openassistant/sdk";
import {
  type BuiltInToolsEntry,
  builtInToolsEntry,
  lateBoundTools,
  type LateBoundTools,
} from "../built-in/late-bound.ts";
import type { SessionStore } from "../sessions/store.ts";
import { pluginAbilityDirs } from "./gateway-abilities.ts";

/** What the model's ability tools run with, bound once the gateway's abilities are open. */
export interface AbilityToolDeps {
  readonly service: AbilityService;
  readonly sessions: Pick<SessionStore, "turns">;
}

/** `tools.abilities.{list,run,status,cancel}` (docs/abilities.md, "People and the model"). */
export type AbilityToolBinding = LateBoundTools<AbilityToolDeps>;

export function abilityToolBinding(): AbilityToolBinding {
  return lateBoundTools("abilities", abilityTools);
}

/** The gateway's own `tools.abilities.*` as a bundled source entry. */
export function abilityToolsEntry(binding: AbilityToolBinding) {
  return builtInToolsEntry("abilities", binding);
}

/**
 * `tools.abilities.*` only when an ability is defined (so a project without abilities has no such
 * namespace). The workspace's abilities are seen before the tools load: the entry joins `bundled`.
 * A plugin's are seen only once it loaded: then the registry loads once more with the entry.
 * Decided at start: the first ability added while the gateway runs is offered to the model after a
 * restart (`/ability` commands see it at once).
 */
export function abilityToolsWhenDefined(projectRoot: string, bundled: BuiltInToolsEntry[]) {
  const binding = abilityToolBinding();
  let offered = workspaceDefinesAbilities(projectRoot);
  if (offered) bundled.push(abilityToolsEntry(binding));
  return {
    async afterLoad(registry: {
      current(): { readonly entries: readonly LoadEntry[] };
      reload(): Promise<unknown>;
    }): Promise<AbilityToolBinding | undefined> {
      if (!offered && definesAbilities(pluginAbilityDirs(registry.current().entries))) {
        bundled.push(abilityToolsEntry(binding));
        offered = true;
        await registry.reload();
      }
      return offered ? binding : undefined;
    },
  };
}

/** Whether the project's `.openassistant/abilities/` defines an ability. */
export function workspaceDefinesAbilities(projectRoot: string): boolean {
  return definesAbilities([join(workspaceDir(projectRoot), "abilities")]);
}

/**
 * Whether any of these folders defines an ability (`<name>/ability.yaml|ts`, names not starting
 * with `.` or `_`, as the loader reads them): the `abilities` namespace is offered only then.
 */
export function definesAbilities(dirs: readonly string[]): boolean {
  return dirs.some((dir) => {
    if (!existsSync(dir)) return false;
    try {
      return readdirSync(dir, { withFileTypes: true }).some(
        (e) =>
          e.isDirectory() &&
          !/^[._]/.test(e.name) &&
          ["ability.yaml", "ability.ts"].some((f) => existsSync(join(dir, e.name, f))),
      );
    } catch {
      return false;
    }
  });
}

const runIdArg = z
  .string()
  .optional()
  .describe("The run's id (ability_…), from abilities.run; default: this conversation's running (else latest) run");

function abilityTools(deps: () => AbilityToolDeps): ToolTree {
  /** The run a call means: the given one when it is this conversation's, else the conversation's current/latest. */
  async function runOf(runId: string | undefined, sessionId: string | undefined): Promise<AbilityRun> {
    const { service } = deps();
    const run = runId ? await service.get(runId) : sessionId ? await service.ofSession(sessionId) : undefined;
    if (run && (!sessionId || run.sessionId === sessionId)) return run;
    throw new Error(
      runId
        ? `no ability run ${runId} in this conversation (abilities.status without a runId shows this conversation's run)`
        : "no ability has run in this conversation: start one with abilities.run",
    );
  }

  return {
    list: defineTool({
      description:
        "List the abilities defined for this assistant: workflows the gateway runs step by step (tool calls, approval gates). Each with its name, description and inputs (type, required, pattern, default); abilities whose definition is broken are listed under `problems`.",
      approval: "auto",
      readOnly: true,
      args: z.object({}),
      run: async () => {
        const loaded = await deps().service.list();
        return {
          abilities: [...loaded.abilities.values()].map((a) => ({
            name: a.name,
            description: a.description,
            inputs: inputsOf(a.inputSchema),
            steps: a.steps.map((s) => `${s.id} (${s.type})`),
          })),
          problems: loaded.diagnostics.map((d) => `${d.source}:${d.line ?? 1}:${d.column ?? 1}: ${d.message}`),
        };
      },
    }),
    run: defineTool({
      description:
        "Start an ability (see abilities.list) in this conversation with its inputs. The gateway runs its steps itself; its approval gates ask a person on a card. Returns when the run ended or waits at a gate, with its run id and status. While it runs, only abilities.status, abilities.cancel and abilities.list may be called in this conversation.",
      approval: "auto",
      args: z.object({
        name: z.string().describe("The ability's name, from abilities.list"),
        inputs: z
          .record(z.string(), z.unknown())
          .default({})
          .describe("The ability's inputs by name, e.g. { version: 'v1.2.3' }"),
      }),
      run: async (input, ctx) => {
        const { service, sessions } = deps();
        const requestedBy = ctx.sessionId ? await askingUser(sessions, ctx.sessionId) : undefined;
        const started = await service.start(input.name, input.inputs, {
          ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
          ...(requestedBy ? { requestedBy } : {}),
        });
        if (!started.ok) throw new Error(started.error);
        return statusOf(await service.settledOrWaiting(started.run.id));
      },
    }),
    status: defineTool({
      description:
        "The status of an ability run of this conversation: each step's status (and output), and where it waits (an approval gate). Without a runId: the conversation's running ability, else its latest.",
      approval: "auto",
      readOnly: true,
      args: z.object({ runId: runIdArg }),
      run: async (input, ctx) => statusOf(await runOf(input.runId, ctx.sessionId)),
    }),
    cancel: defineTool({
      description:
        "Cancel an ability run of this conversation (its waiting approval card is closed; finished steps stay done). Without a runId: the conversation's running ability.",
      approval: "auto",
      args: z.object({ runId: runIdArg }),
      run: async (input, ctx) => {
        const run = await runOf(input.runId, ctx.sessionId);
        if (run.status !== "running") return { ...statusOf(run), note: `nothing to cancel: the run is ${run.status}` };
        const ended = await deps().service.cancel(run.id, "cancelled by the assistant (abilities.cancel)");
        return statusOf(ended ?? run);
      },
    }),
  };
}

/** Who asked, in the turn this call belongs to (the run's `requestedBy`). */
async function askingUser(sessions: AbilityToolDeps["sessions"], sessionId: string): Promise<string | undefined> {
  const turn = (await sessions.turns(sessionId)).filter((t) => t.finishedAt === null).at(-1);
  return turn?.userId ?? undefined;
}

/** A run as the model reads it: status, where it waits, each step. */
export function statusOf(run: AbilityRun) {
  const current = run.ability.steps.find((s) => s.id === run.currentStep);
  const state = run.steps.find((s) => s.id === run.currentStep);
  const atGate = run.status === "running" && current?.type === "approval" && state?.status === "running";
  return {
    runId: run.id,
    ability: run.ability.name,
    status: run.status,
    ...(run.status === "running" && run.currentStep ? { currentStep: run.currentStep } : {}),
    ...(atGate ? { waiting: `for a person's approval at step ${current.id} (the approval card is posted)` } : {}),
    ...(run.error ? { error: run.error } : {}),
    steps: run.steps.map((s) => ({
      id: s.id,
      type: run.ability.steps.find((d) => d.id === s.id)?.type,
      status: s.status,
      ...(s.output !== undefined ? { output: s.output } : {}),
      ...(s.error ? { error: s.error } : {}),
    })),
  };
}

/** Each input's type, whether it is required, and its rules, read from the ability's zod schema. */
function inputsOf(schema: z.ZodType) {
  const json = z.toJSONSchema(schema, { unrepresentable: "any", io: "input" }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, p]) => ({
    name,
    type: p.type ?? "any",
    required: json.required?.includes(name) ?? false,
    ...pick(p, ["description", "enum", "pattern", "default", "minimum", "maximum"]),
  }));
}

function pick(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}
