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

/** The options of Discord's `/ability` application command, by subcommand (docs/discord.md). */
export interface AbilitySlashOptions {
  readonly name?: string | null;
  readonly inputs?: string | null;
  readonly runId?: string | null;
}

/**
 * The typed form of an `/ability <subcommand>` application command, so both forms are answered by
 * the one parser above (`withCommands`): `run` → `/ability run <name> k=v …`.
 */
export function typedAbilityCommand(subcommand: string, o: AbilitySlashOptions): string {
  const words = ["/ability", subcommand];
  if (subcommand === "run") words.push(o.name?.trim() ?? "", o.inputs?.trim() ?? "");
  else if (subcommand === "status" || subcommand === "cancel") words.push(o.runId?.trim() ?? "");
  return words.filter(Boolean).join(" ");
}

/** Discord's autocomplete answer: at most 25 choices, each name and value 1–100 characters. */
const AUTOCOMPLETE_MAX = 25;
const CHOICE_MAX = 100;

/** Ability names that contain what was typed so far (case-insensitive), those starting with it first. */
export function abilityNameChoices(names: readonly string[], typed: string): Array<{ name: string; value: string }> {
  const t = typed.trim().toLowerCase();
  const fits = names.filter((n) => n.length >= 1 && n.length <= CHOICE_MAX && n.toLowerCase().includes(t));
  const ranked = [
    ...fits.filter((n) => n.toLowerCase().startsWith(t)),
    ...fits.filter((n) => !n.toLowerCase().startsWith(t)),
  ];
  return ranked.slice(0, AUTOCOMPLETE_MAX).map((n) => ({ name: n, value: n }));
}
