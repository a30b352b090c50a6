import type {
  MessageCreateParamsBase,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { modelCapabilities, type ModelCapabilities } from "../model/capabilities.ts";
import type { TurnSettings } from "./settings.ts";

/** Request parameters the agent sends (streaming is the client's business). */
export type ModelRequest = Omit<MessageCreateParamsBase, "stream">;

export interface RoundInput {
  readonly settings: TurnSettings;
  readonly system: TextBlockParam[];
  readonly tools: Tool[];
  readonly messages: MessageParam[];
  /** The last round of a turn must answer in text. */
  readonly final: boolean;
}

/**
 * One round's request, with only what the chosen model accepts (capability table):
 * - `thinking` / `output_config.effort` from config when the model supports them, else left to the
 *   model's default (a `/model` switch to a model without them never turns into a 400);
 * - a final round says `tool_choice: none` (never `any` / `tool`: forced tool use is a 400 on
 *   current models, and with thinking on on every model);
 * - max_tokens capped at the model's output limit (thinking tokens count toward it).
 */
export function buildRequest(input: RoundInput): ModelRequest {
  const s = input.settings;
  const caps = modelCapabilities(s.model);
  return {
    model: s.model,
    max_tokens: caps ? Math.min(s.maxTokens, caps.maxOutput) : s.maxTokens,
    system: input.system,
    tools: input.tools,
    messages: input.messages,
    // Automatic caching: the API puts this breakpoint on the last cacheable block itself, so the
    // messages sent are byte-for-byte the ones sent last round plus the new ones (no marker moves
    // inside the prefix of a thinking block). With the system block's, 2 of the 4 breakpoints.
    cache_control: { type: "ephemeral" },
    ...thinkingParams(s, caps),
    ...(input.final ? { tool_choice: { type: "none" as const } } : {}),
  };
}

function thinkingParams(s: TurnSettings, caps: ModelCapabilities | undefined): Partial<ModelRequest> {
  if (!caps) return {};
  const out: Partial<ModelRequest> = {};
  let thinking = s.thinking && caps.thinking.includes(s.thinking) ? s.thinking : undefined;
  // A display is sent with adaptive thinking; when none is configured, adaptive is what the model
  // does anyway on models that think by default.
  const display = s.thinkingDisplay;
  if (!thinking && display && caps.thinkingWhenOmitted === "adaptive" && caps.thinking.includes("adaptive"))
    thinking = "adaptive";
  if (thinking === "adaptive") out.thinking = display ? { type: "adaptive", display } : { type: "adaptive" };
  else if (thinking === "between_tools") out.thinking = { type: "between_tools" };
  else if (thinking === "disabled") out.thinking = { type: "disabled" };
  else if (thinking === "enabled") {
    // Budget thinking (older models): at least 1024 tokens and below max_tokens.
    const max = Math.min(s.maxTokens, caps.maxOutput);
    if (max > 2048)
      out.thinking = {
        type: "enabled",
        budget_tokens: Math.max(1024, Math.floor(max / 2)),
        ...(display ? { display } : {}),
      };
  }
  const effort = s.effort && caps.effort.includes(s.effort) ? s.effort : undefined;
  const effortOk =
    effort && !(thinking === "between_tools" && caps.betweenToolsEffort && !caps.betweenToolsEffort.includes(effort));
  if (effort && effortOk) out.output_config = { effort };
  return out;
}
