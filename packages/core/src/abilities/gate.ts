import { defineTool, isToolDefinition, type ToolTree, z } from "@openassistant/sdk";

/** The tool an `approval` step calls: a normal approval card (required), its input the prompt and the outputs so far. */
export const GATE_PATH = "abilities.gate";

const gate = defineTool({
  description: "An ability's approval gate: a person approves or denies going on.",
  approval: "required",
  // Asking again after a restart has no further effect (docs/durable-runs.md).
  idempotent: true,
  args: z.object({
    ability: z.string(),
    run: z.string(),
    step: z.string(),
    prompt: z.string(),
    outputs: z.record(z.string(), z.unknown()),
  }),
  run: async () => ({ approved: true }),
  previewInput: (i) => `${i.prompt}\n(ability ${i.ability}, step ${i.step}, run ${i.run})`,
});

/** The tree a step runs against: the current tools, and the gate under `abilities.gate`. */
export function withGate(tree: ToolTree): ToolTree {
  const ns = tree.abilities;
  const existing = ns && !isToolDefinition(ns) ? ns : {};
  return { ...tree, abilities: { ...existing, gate } };
}
