import type { AutocompleteInteraction, ChatInputCommandInteraction } from "discord.js";
import { abilityNameChoices, typedAbilityCommand } from "../../../abilities/commands.ts";
import type { SurfacePort } from "../../port.ts";
import { discordOperatorId } from "../operator-id.ts";

export const ABILITIES_OFF_TEXT = "Abilities are off on this gateway (their store could not be opened; see its log).";

/**
 * `/ability <subcommand>` (#32): its typed form through the gateway's `handleMessage`, where
 * `withCommands` answers it before any model turn, exactly as when typed in the conversation.
 */
export async function abilityCommandAnswer(
  gateway: SurfacePort,
  sessionKey: string,
  i: ChatInputCommandInteraction,
): Promise<string> {
  const sub = i.options.getSubcommand(false) ?? "list";
  const text = typedAbilityCommand(sub, {
    name: i.options.getString("name"),
    inputs: i.options.getString("inputs"),
    runId: i.options.getString("run_id"),
  });
  const outcome = await gateway.handleMessage({
    sessionKey,
    surface: "discord",
    userId: discordOperatorId(i.user.id),
    text,
  });
  return outcome.text;
}

/** The `name` option of `/ability run`: the defined abilities matching what was typed (none when off). */
export async function respondAbilityNames(gateway: SurfacePort, i: AutocompleteInteraction): Promise<void> {
  const names = gateway.abilityNames ? await gateway.abilityNames() : [];
  await i.respond(abilityNameChoices(names, String(i.options.getFocused())));
}
