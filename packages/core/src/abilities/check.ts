import { buildValidator } from "../sources/input-schema.ts";
import { compileLinear } from "../sources/linear-regex.ts";
import { expressionProblem } from "./expression.ts";
import { templatePaths } from "./template.ts";
import type { AbilityStep } from "./types.ts";

/** One problem of a definition, at a path of the file (`steps[2].needs[0]`). */
export interface DefinitionProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * What the schema cannot see: duplicate step ids, `needs` naming no step or making a cycle,
 * templates naming an undeclared input or a step this one does not (transitively) need, expressions
 * that do not parse, schemas and trigger patterns that cannot be used.
 */
export function definitionProblems(def: {
  readonly name: string;
  readonly steps: readonly AbilityStep[];
  readonly inputNames: readonly string[];
  readonly triggerPatterns: readonly string[];
}): DefinitionProblem[] {
  const out: DefinitionProblem[] = [];
  const index = new Map<string, number>();
  def.steps.forEach((s, i) => {
    if (index.has(s.id))
      out.push({
        path: ["steps", i, "id"],
        message: `step id "${s.id}" is used twice (also steps[${index.get(s.id)}])`,
      });
    else index.set(s.id, i);
  });
  def.steps.forEach((s, i) =>
    s.needs.forEach((n, j) => {
      if (n === s.id) out.push({ path: ["steps", i, "needs", j], message: `step "${s.id}" needs itself` });
      else if (!index.has(n))
        out.push({
          path: ["steps", i, "needs", j],
          message: `step "${s.id}" needs "${n}", which is no step of this ability (steps: ${[...index.keys()].join(", ")})`,
        });
    }),
  );
  const cycle = findCycle(def.steps, index);
  if (cycle)
    out.push({
      path: ["steps", index.get(cycle[0]!)!, "needs"],
      message: `steps need each other in a cycle: ${cycle.join(" → ")}`,
    });
  def.triggerPatterns.forEach((p, i) => {
    const c = compileLinear(p);
    if ("reason" in c)
      out.push({ path: ["triggers", "patterns", i], message: `trigger pattern cannot be used (${c.reason})` });
  });
  if (out.length > 0) return out;
  def.steps.forEach((s, i) => out.push(...stepProblems(s, i, def, ancestors(s, def.steps, index))));
  return out;
}

function stepProblems(
  s: AbilityStep,
  i: number,
  def: { readonly name: string; readonly inputNames: readonly string[] },
  before: ReadonlySet<string>,
): DefinitionProblem[] {
  const out: DefinitionProblem[] = [];
  const at = (...rest: (string | number)[]) => ["steps", i, ...rest];
  const templated: [string, unknown][] = [];
  if (s.type === "tool") templated.push(["input", s.input]);
  if (s.type === "approval") templated.push(["prompt", s.prompt]);
  if (s.type === "agent") templated.push(["goal", s.goal]);
  if (s.type === "ability") {
    templated.push(["inputs", s.inputs]);
    if (s.ability === def.name)
      out.push({
        path: at("ability"),
        message: `step "${s.id}" runs its own ability (a nested ability cannot be itself)`,
      });
  }
  for (const [field, value] of templated)
    for (const path of templatePaths(value)) {
      const problem = referenceProblem(path, def.inputNames, before, s.id);
      if (problem) out.push({ path: at(field), message: `{{${path}}}: ${problem}` });
    }
  for (const [field, expr] of [
    ["when", s.when],
    ["validation", s.validation?.expression],
  ] as const) {
    if (expr === undefined) continue;
    const problem = expressionProblem(expr);
    if (problem)
      out.push({
        path: field === "when" ? at("when") : at("validation", "expression"),
        message: `expression does not parse: ${problem}`,
      });
  }
  if (s.validation?.schema !== undefined) {
    const built = buildValidator(s.validation.schema);
    if (!built.schema)
      out.push({ path: at("validation", "schema"), message: `validation schema cannot be used: ${built.problem}` });
  }
  return out;
}

function referenceProblem(
  path: string,
  inputs: readonly string[],
  before: ReadonlySet<string>,
  self: string,
): string | undefined {
  const [root, name, field] = path.split(".");
  if (root === "inputs")
    return name && inputs.includes(name)
      ? undefined
      : `no input "${name ?? ""}" is declared (inputs: ${inputs.join(", ") || "none"})`;
  if (root === "steps") {
    if (!name || !before.has(name))
      return `step "${self}" does not need step "${name ?? ""}" (add it to needs, directly or through another step)`;
    return field === "output" || field === "status" ? undefined : `write steps.${name}.output or steps.${name}.status`;
  }
  return `a template reads inputs.<name> or steps.<id>.output`;
}

/** The steps a step needs, directly or through others. */
function ancestors(s: AbilityStep, steps: readonly AbilityStep[], index: ReadonlyMap<string, number>): Set<string> {
  const seen = new Set<string>();
  const stack = [...s.needs];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    stack.push(...(steps[index.get(n)!]?.needs ?? []));
  }
  return seen;
}

function findCycle(steps: readonly AbilityStep[], index: ReadonlyMap<string, number>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "open") return [...path.slice(path.indexOf(id)), id];
    state.set(id, "open");
    path.push(id);
    for (const n of steps[index.get(id)!]?.needs ?? []) {
      if (!index.has(n) || n === id) continue;
      const c = visit(n);
      if (c) return c;
    }
    path.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const s of steps) {
    const c = visit(s.id);
    if (c) return c;
  }
  return undefined;
}

/** The order steps run in: file order, each step after the steps it needs. */
export function executionOrder(steps: readonly AbilityStep[]): AbilityStep[] {
  const done = new Set<string>();
  const out: AbilityStep[] = [];
  while (out.length < steps.length) {
    const next = steps.find((s) => !done.has(s.id) && s.needs.every((n) => done.has(n)));
    if (!next) break; // a cycle: refused by definitionProblems before any run
    done.add(next.id);
    out.push(next);
  }
  return out;
}
