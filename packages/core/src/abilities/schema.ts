import { z } from "zod";

/** A step id or input name: it is used in templates and expressions (`steps.<id>.output`, `inputs.<name>`). */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const name = (what: string) =>
  z.string().regex(NAME, `${what} must be letters, digits and _ (not starting with a digit), e.g. check_ci`);

const validation = z.strictObject({
  schema: z.record(z.string(), z.unknown()).optional(),
  expression: z.string().min(1).optional(),
});

const base = {
  id: name("a step id"),
  description: z.string().optional(),
  needs: z.array(z.string()).default([]),
  when: z.string().min(1).optional(),
  validation: validation.optional(),
};

const toolPath = z.string().min(1, "a tool path, e.g. github.releases.create");

/** One step as written; each type has its own fields and nothing else (an unknown field is an error). */
export const stepSchema = z.discriminatedUnion("type", [
  z.strictObject({ ...base, type: z.literal("tool"), tool: toolPath, input: z.unknown().default({}) }),
  z.strictObject({ ...base, type: z.literal("code"), code: z.string().min(1), tools: z.array(toolPath).default([]) }),
  z.strictObject({ ...base, type: z.literal("approval"), prompt: z.string().min(1), title: z.string().optional() }),
  z.strictObject({ ...base, type: z.literal("agent"), goal: z.string().min(1), tools: z.array(toolPath).default([]) }),
  z.strictObject({
    ...base,
    type: z.literal("ability"),
    ability: z.string().min(1),
    inputs: z.record(z.string(), z.unknown()).default({}),
  }),
]);

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** One input of `ability.yaml`. */
export const inputSpecSchema = z.strictObject({
  type: z.enum(["string", "number", "boolean"]).default("string"),
  required: z.boolean().default(false),
  description: z.string().optional(),
  pattern: z.string().optional(),
  enum: z
    .array(z.union([z.string(), z.number()]))
    .min(1)
    .optional(),
  default: scalar.optional(),
});

const common = {
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, "an ability name is lowercase letters, digits, - and _, e.g. release"),
  description: z.string().min(1),
  triggers: z
    .strictObject({
      keywords: z.array(z.string().min(1)).default([]),
      patterns: z.array(z.string().min(1)).default([]),
    })
    .default({ keywords: [], patterns: [] }),
  steps: z.array(stepSchema).min(1, "an ability needs at least one step"),
};

/** `ability.yaml` as a whole. */
export const abilityFileSchema = z.strictObject({
  ...common,
  inputs: z.record(name("an input name"), inputSpecSchema).default({}),
});

/** What `defineAbility` gave, its zod `inputs` checked apart. */
export const abilityModuleSchema = z.strictObject({
  ...common,
  _tag: z.literal("AbilityDefinition"),
  inputs: z.instanceof(z.ZodObject).optional(),
});

export type AbilityFile = z.output<typeof abilityFileSchema>;
