import { parseKeyValues } from "@openassistant/core/abilities";

/** `/ability run <name> k=v …`, `/ability status [run]`, `/ability cancel [run]`, `/ability list` (typed in any conversation). */
export type AbilityCommand =
  | { readonly kind: "run"; readonly name: string; readonly inputs: Record<string, string> }
  | { readonly kind: "status" | "cancel"; readonly runId?: string }
  | { readonly kind: "list" }
  | { readonly kind: "usage"; readonly error: string };

export const ABILITY_USAGE =
  "Usage: `/ability run <name> key=value …`, `/ability status [run id]`, `/ability cancel [run id]`, `/ability list`.";

export function isAbilityCommand(text: string): boolean {
  return /^\s*\/ability(\s|$)/i.test(text);
}

export function parseAbilityCommand(text: string): AbilityCommand {
  const words = text.trim().split(/\s+/).slice(1);
  const [verb, ...rest] = words;
  switch (verb?.toLowerCase()) {
    case "run": {
      const [name, ...args] = rest;
      if (!name) return { kind: "usage", error: `Name the ability. ${ABILITY_USAGE}` };
      const parsed = parseKeyValues(args);
      if (parsed.problems.length > 0)
        return { kind: "usage", error: `${parsed.problems.join("; ")}. ${ABILITY_USAGE}` };
      return { kind: "run", name, inputs: parsed.inputs };
    }
    case "status":
    case "cancel":
      return rest[0]
        ? { kind: verb.toLowerCase() as "status" | "cancel", runId: rest[0] }
        : { kind: verb.toLowerCase() as "status" | "cancel" };
    case "list":
      return { kind: "list" };
    default:
      return { kind: "usage", error: ABILITY_USAGE };
  }
}
