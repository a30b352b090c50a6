import type jexlModule from "jexl";
import { plainScope, type RunScope } from "./context.ts";

/**
 * `when` conditions and validation expressions: Jexl (`inputs.env == "prod" && steps.ci.output.state == "success"`),
 * evaluated on the gateway's thread by walking its syntax tree, never by `eval`: an expression can
 * read the scope but cannot call anything (no functions or transforms are registered).
 */
let jexl: InstanceType<typeof jexlModule.Jexl> | undefined;
/** Loaded on first use (~20–30 ms to import): a gateway without abilities never pays for it. */
const engine = () => (jexl ??= new (require("jexl") as typeof jexlModule).Jexl());

/** Why an expression does not parse, or undefined when it does. */
export function expressionProblem(expression: string): string | undefined {
  try {
    engine().compile(expression);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** The expression's value over the run's scope (and `output` for a validation). */
export function evaluate(expression: string, scope: RunScope, output?: unknown): unknown {
  const context = plainScope(scope);
  if (output !== undefined) context.output = JSON.parse(JSON.stringify(output)) as unknown;
  return engine().evalSync(expression, context);
}

/** Whether a condition holds (Jexl's value, taken as true or false the way JavaScript does). */
export function holds(expression: string, scope: RunScope, output?: unknown): boolean {
  return Boolean(evaluate(expression, scope, output));
}
