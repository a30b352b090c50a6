import { targetLabel, type ModelTarget } from "../model/provider.ts";
import type { GatewaySettings } from "../settings.ts";

/** `start`'s "Model:" line: the configured model, where it is asked, and the fallbacks after it (#35). */
export function modelLine(
  settings: GatewaySettings,
  targets: readonly ModelTarget[],
  credentialIds: readonly string[],
): string {
  const [primary, ...fallbacks] = targets;
  const where =
    primary!.provider === "anthropic"
      ? `credentials: ${credentialIds.join(", ")}; endpoint ${settings.anthropic.baseURL ?? "https://api.anthropic.com"}`
      : `${primary!.provider} at ${primary!.baseURL}, ${primary!.toolCalls ?? "native"} tool calls`;
  const then = fallbacks.length ? `; fallbacks: ${fallbacks.map(targetLabel).join(", ")}` : "";
  return `Model: ${settings.turn.model} (${where})${then}`;
}
