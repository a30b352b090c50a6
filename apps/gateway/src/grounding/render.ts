import { UNVERIFIED_MARK } from "./ground.ts";

export interface RenderableOutcome {
  readonly text: string;
  readonly summaryText: string;
  readonly unverified: boolean;
  readonly runIds: readonly string[];
}

/**
 * What a user sees for a turn: the answer, the unverified mark when it applies, and the
 * gateway's own activity summary (whenever code ran, or a claim was made without any run).
 */
export function renderOutcome(o: RenderableOutcome): string {
  const parts = [o.text.trim()];
  if (o.unverified) parts.push(UNVERIFIED_MARK);
  if (o.runIds.length || o.unverified) parts.push(`Relevant tool activity:\n${o.summaryText}`);
  return parts.join("\n\n");
}
