import { z } from "zod";
import { ToolDefinitionError } from "./define-tool.ts";

/** One step of an ability, as written (docs/abilities.md): the host checks every field before use. */
export interface AbilityStepOptions {
  id: string;
  type: "tool" | "code" | "approval" | "agent" | "ability";
  description?: string;
  needs?: string[];
  /** An expression over `inputs` and `steps`, e.g. `inputs.environment == "prod"`. */
  when?: string;
  validation?: { schema?: Record<string, unknown>; expression?: string };
  /** `tool`: the tool path and its input (strings may hold `{{inputs.x}}`, `{{steps.id.output.y}}`). */
  tool?: string;
  input?: unknown;
  /** `code`: a fixed snippet run in the sandbox against `tools`, and the tools it may call. */
  code?: string;
  /** `code` and `agent`: the tool paths (or `ns.*` patterns) the step may call. */
  tools?: string[];
  /** `approval`: the question on the card. */
  prompt?: string;
  title?: string;
  /** `agent`: what the model turn must achieve. */
  goal?: string;
  /** `ability`: the nested ability and its inputs. */
  ability?: string;
  inputs?: Record<string, unknown>;
}

export interface AbilityOptions<TInputs extends z.ZodObject<z.ZodRawShape>> {
  name: string;
  description: string;
  triggers?: { keywords?: string[]; patterns?: string[] };
  /** The run's inputs; `/ability run <name> k=v` values are checked against it (defaults applied). */
  inputs?: TInputs;
  steps: AbilityStepOptions[];
}

/** What `defineAbility()` returns; an `ability.ts` file exports it as its default. */
export interface AbilityDefinition<TInputs extends z.ZodObject<z.ZodRawShape> = z.ZodObject<z.ZodRawShape>>
  extends Readonly<AbilityOptions<TInputs>> {
  readonly _tag: "AbilityDefinition";
}

/**
 * An ability in TypeScript: the same fields as `ability.yaml`, with zod inputs.
 * `export default defineAbility({ name: "deploy", description: "...", inputs: z.object({ version: z.string() }), steps: [...] })`
 */
export function defineAbility<TInputs extends z.ZodObject<z.ZodRawShape> = z.ZodObject<Record<string, never>>>(
  options: AbilityOptions<TInputs>,
): AbilityDefinition<TInputs> {
  if (typeof options !== "object" || options === null)
    throw new ToolDefinitionError('defineAbility: "options" must be an object');
  if (options.inputs !== undefined && !(options.inputs instanceof z.ZodObject))
    throw new ToolDefinitionError(
      'defineAbility: "inputs" must be a zod object schema, e.g. z.object({ version: z.string() })',
    );
  return Object.freeze({ ...options, _tag: "AbilityDefinition" as const });
}
