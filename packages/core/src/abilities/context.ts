import { ownValue } from "../tools/own-keys.ts";

/** One finished step as later steps see it: `steps.<id>.output`, `steps.<id>.status`. */
export interface StepView {
  readonly status: "completed" | "skipped";
  readonly output?: unknown;
}

/** What templates and expressions read: the run's inputs and the steps finished so far. */
export interface RunScope {
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly steps: Readonly<Record<string, StepView>>;
}

/** The value at a dotted path (`inputs.version`, `steps.build.output.url`); own properties only. */
export function lookup(scope: RunScope, path: string): unknown {
  let value: unknown = scope;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value =
      Array.isArray(value) && /^\d+$/.test(key) ? value[Number(key)] : ownValue(value as Record<string, unknown>, key);
  }
  return value;
}

/** A plain copy of the scope (own data only) for the expression evaluator. */
export function plainScope(scope: RunScope): Record<string, unknown> {
  return JSON.parse(JSON.stringify({ inputs: scope.inputs, steps: scope.steps })) as Record<string, unknown>;
}
