import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";

/** #32: the `prompt.system` hooks' text now (trimmed; undefined when they add none or there are none). */
export async function askRoundText(deps: {
  readonly roundSystem?: () => Promise<string | undefined>;
}): Promise<string | undefined> {
  if (!deps.roundSystem) return undefined;
  return (await deps.roundSystem())?.trim() || undefined;
}

/** The system blocks with the hooks' text as its own last, uncached block (after the cached ones). */
export function withRoundText(system: TextBlockParam[], text: string | undefined): TextBlockParam[] {
  return text ? [...system, { type: "text", text }] : system;
}

/** The status told mid-turn, after a round's tool results: it replaces the one in the system prompt. */
export function roundTextUpdate(text: string | undefined): TextBlockParam {
  return {
    type: "text",
    text: text
      ? `[Status from the gateway, updated during this turn; it replaces the one in the system prompt]\n${text}`
      : "[Status from the gateway, updated during this turn: the status in the system prompt no longer applies.]",
  };
}
