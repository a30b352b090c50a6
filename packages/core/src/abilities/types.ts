import type { z } from "zod";

/** The kinds of step an ability can have (no shell: this product has no bash-first path). */
export const STEP_TYPES = ["tool", "code", "approval", "agent", "ability"] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** A step's check of its own outcome: a JSON Schema its output must pass, an expression that must be true, or both. */
export interface StepValidation {
  readonly schema?: unknown;
  readonly expression?: string;
}

interface StepBase {
  readonly id: string;
  readonly description?: string;
  /** Steps that must have finished (completed or skipped) before this one. */
  readonly needs: readonly string[];
  /** An expression over `inputs` and `steps`; false → the step is skipped. */
  readonly when?: string;
  readonly validation?: StepValidation;
}

/** One tool call with a templated input. */
export interface ToolStep extends StepBase {
  readonly type: "tool";
  readonly tool: string;
  readonly input: unknown;
}

/** A fixed TypeScript snippet run in the sandbox against `tools`; `tools` lists what it may call. */
export interface CodeStep extends StepBase {
  readonly type: "code";
  readonly code: string;
  readonly tools: readonly string[];
}

/** A person approves or denies, on a normal approval card. */
export interface ApprovalStep extends StepBase {
  readonly type: "approval";
  readonly prompt: string;
  readonly title?: string;
}

/** A model turn with a stated goal, limited to the listed tools. */
export interface AgentStep extends StepBase {
  readonly type: "agent";
  readonly goal: string;
  readonly tools: readonly string[];
}

/** A nested ability run. */
export interface NestedAbilityStep extends StepBase {
  readonly type: "ability";
  readonly ability: string;
  readonly inputs: Readonly<Record<string, unknown>>;
}

export type AbilityStep = ToolStep | CodeStep | ApprovalStep | AgentStep | NestedAbilityStep;

/** One input as the YAML format declares it. */
export interface InputSpec {
  readonly type: "string" | "number" | "boolean";
  readonly required: boolean;
  readonly description?: string;
  readonly pattern?: string;
  readonly enum?: readonly (string | number)[];
  readonly default?: string | number | boolean;
}

/**
 * What a run needs of its ability after it started, and what is pinned for its life: the steps and
 * the hash of the definition they came from (an edit applies to new runs only).
 */
export interface PinnedAbility {
  readonly name: string;
  readonly description: string;
  readonly hash: string;
  readonly steps: readonly AbilityStep[];
}

/** A loaded, checked ability. */
export interface Ability extends PinnedAbility {
  readonly triggers: { readonly keywords: readonly string[]; readonly patterns: readonly string[] };
  /** Validates (and fills defaults of) a run's inputs. */
  readonly inputSchema: z.ZodObject;
  /** Where it was defined (a file path, or `plugin:<id>`). */
  readonly source: string;
}
