import type { PluginHooks, ToolBeforeAnswer } from "@openassistant/sdk";
import { matchToolPattern } from "../tools/pattern.ts";
import { compileLinear } from "../sources/linear-regex.ts";
import { GATE_PATH } from "./gate.ts";
import type { AbilityRun } from "./run.ts";
import type { Ability, AbilityStep } from "./types.ts";

/** The id the abilities' hooks carry in receipts and logs (`decidedBy: plugin:abilities`). */
export const ABILITIES_HOOK_ID = "abilities";

/** What the model may call in a session while an ability runs there, whatever the step. */
const ALWAYS_ALLOWED = ["abilities.status", "abilities.cancel", "abilities.list"];

/** The tool paths (or `ns.*` patterns) a step's own run may call. */
export function stepAllowedTools(step: AbilityStep): string[] {
  switch (step.type) {
    case "tool":
      return [step.tool];
    case "code":
    case "agent":
      return [...step.tools];
    case "approval":
      return [GATE_PATH];
    case "ability":
      return [];
  }
}

interface Active {
  readonly run: AbilityRun;
  readonly step: AbilityStep;
  readonly prompt?: string;
}

/**
 * Which ability runs are where: each running step's code-mode run, and each session an ability runs
 * in. Its hooks (`abilityHooks`) deny calls outside the current step's allowed set and tell the model
 * where the ability is; a trigger only suggests an ability, never starts one.
 */
export class AbilityEnforcement {
  private readonly byStepRun = new Map<string, Active>();
  private readonly bySession = new Map<string, Active>();

  constructor(
    private readonly abilities: () => ReadonlyMap<string, Ability>,
    /** Reads the definitions when they were never read in this process (triggers need them). */
    private readonly loaded: () => Promise<unknown> = async () => {},
  ) {}

  /** A step starts (its code-mode run id known): from now its run may call only its allowed tools. */
  enter(run: AbilityRun, step: AbilityStep, stepRunId: string, prompt?: string): void {
    const active = { run, step, ...(prompt ? { prompt } : {}) };
    this.byStepRun.set(stepRunId, active);
    if (run.sessionId) this.bySession.set(run.sessionId, active);
  }

  /** An `agent` step's own conversation: its model turn may call only the step's tools. */
  enterSession(sessionId: string, run: AbilityRun, step: AbilityStep): void {
    this.bySession.set(sessionId, { run, step });
  }

  leaveSession(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  /** A step ended. */
  leave(stepRunId: string): void {
    this.byStepRun.delete(stepRunId);
  }

  /** The run ended: its session is free again. */
  finish(run: AbilityRun): void {
    if (run.sessionId && this.bySession.get(run.sessionId)?.run.id === run.id) this.bySession.delete(run.sessionId);
    for (const [id, a] of this.byStepRun) if (a.run.id === run.id) this.byStepRun.delete(id);
  }

  /** The ability running in a session, if one is. */
  inSession(sessionId: string): AbilityRun | undefined {
    return this.bySession.get(sessionId)?.run;
  }

  toolBefore(path: string, runId: string | undefined, sessionId: string | undefined): ToolBeforeAnswer {
    const own = runId ? this.byStepRun.get(runId) : undefined;
    if (own) {
      const allowed = stepAllowedTools(own.step);
      if (!allowed.some((p) => matchToolPattern(p, path)))
        return { deny: `${where(own)} allows only ${list(allowed)}; ${path} is not part of this step` };
      if (path === GATE_PATH)
        return {
          requireApproval: {
            title: `Ability ${own.run.ability.name}: step ${own.step.id}`,
            summary: own.prompt ?? "approve to go on",
          },
        };
      return undefined;
    }
    const active = sessionId ? this.bySession.get(sessionId) : undefined;
    if (!active) return undefined;
    const allowed = [...ALWAYS_ALLOWED, ...(active.step.type === "agent" ? active.step.tools : [])];
    if (allowed.some((p) => matchToolPattern(p, path))) return undefined;
    return {
      deny: `${where(active)} is running in this session: ${path} is not allowed now (allowed: ${list(allowed)}); wait for it to finish, or /ability cancel`,
    };
  }

  /** The ability's status for the model's system prompt, when one runs in the session. */
  statusText(sessionId: string | undefined): string | undefined {
    const active = sessionId ? this.bySession.get(sessionId) : undefined;
    if (!active) return undefined;
    const { run, step } = active;
    if (step.type === "agent")
      return `## Ability ${run.ability.name}, step ${step.id} (run ${run.id})\nThis conversation is that step: do its goal with only these tools: ${list(step.tools)}. Other calls are denied.`;
    const done = run.steps.filter((s) => s.status === "completed" || s.status === "skipped").length;
    const waiting = step.type === "approval" ? " — waiting for a person's approval on its card" : "";
    return [
      `## Active ability: ${run.ability.name} (run ${run.id})`,
      `Progress: ${done}/${run.steps.length} steps done. Current step: ${step.id} (${step.type})${waiting}.`,
      `The gateway runs the steps itself; do not try to do them. Tools you may call meanwhile: ${list(ALWAYS_ALLOWED)}.`,
    ].join("\n");
  }

  /** A suggestion for the model when the message matches an ability's triggers (never a start). */
  async suggestion(text: string, sessionId: string): Promise<string | undefined> {
    if (this.bySession.has(sessionId)) return undefined;
    await this.loaded();
    const hits = [...this.abilities().values()].filter((a) => triggered(a, text));
    if (hits.length === 0) return undefined;
    return hits
      .map(
        (a) =>
          `The user's message matches ability "${a.name}" (${a.description}). If it fits, suggest that they run it with \`/ability run ${a.name}${inputHint(a)}\`; do not start it yourself.`,
      )
      .join("\n");
  }
}

/** The hooks that hold abilities to their steps (registered as the host's own, id `abilities`). */
export function abilityHooks(enforcement: AbilityEnforcement): PluginHooks {
  return {
    // Before plugins' hooks: an off-ability call is denied first.
    priority: 1_000,
    tool: { before: (call, ctx) => enforcement.toolBefore(call.path, ctx.runId, ctx.sessionId) },
    chat: {
      message: async (message) => {
        const context = await enforcement.suggestion(message.text, message.sessionId);
        return context ? { context } : undefined;
      },
    },
    prompt: { system: (ctx) => enforcement.statusText(ctx.sessionId) },
  };
}

function where(a: Active): string {
  return `ability "${a.run.ability.name}" (step "${a.step.id}", ${a.step.type})`;
}

function list(paths: readonly string[]): string {
  return paths.length > 0 ? paths.join(", ") : "no tool";
}

function triggered(a: Ability, text: string): boolean {
  const lower = text.toLowerCase();
  if (a.triggers.keywords.some((k) => new RegExp(`(^|\\W)${escapeRegExp(k.toLowerCase())}(\\W|$)`).test(lower)))
    return true;
  return a.triggers.patterns.some((p) => {
    const c = compileLinear(p);
    return "regex" in c && c.regex.test(text);
  });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function inputHint(a: Ability): string {
  return Object.keys(a.inputSchema.shape)
    .map((k) => ` ${k}=…`)
    .join("");
}
