import { modelSettingsShape } from "@openassistant/core/config";
import { z } from "zod";
import { checkModelSettings } from "./capabilities.ts";

/** The model the gateway uses when the config names none. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/** The `model` section: core's settings, with the default model and `thinking` / `effort` checked against it. */
export const modelConfigSchema = z
  .strictObject({ ...modelSettingsShape, name: z.string().min(1).default(DEFAULT_MODEL) })
  .superRefine((model, ctx) => {
    // thinking / effort are Claude's settings: checked against the Claude model they are for.
    if ((model.provider ?? "anthropic") === "anthropic")
      for (const message of checkModelSettings(model.name, model)) ctx.addIssue({ code: "custom", message, path: [] });
    for (const message of checkEndpoints(model)) ctx.addIssue({ code: "custom", message, path: [] });
  })
  .prefault({});

export type ModelConfig = z.output<typeof modelConfigSchema>;

interface EndpointSettings {
  readonly name?: string;
  readonly provider?: "anthropic" | "openai-compatible";
  readonly baseUrl?: string;
  readonly toolCalls?: string;
}

/** #35: an OpenAI-compatible model needs its endpoint; `toolCalls` means nothing to Claude. */
function checkEndpoints(model: EndpointSettings & { readonly fallbacks?: readonly EndpointSettings[] }): string[] {
  const problems: string[] = [];
  const check = (m: EndpointSettings, where: string) => {
    if (m.provider === "openai-compatible" && !m.baseUrl)
      problems.push(
        `${where}.baseUrl is required with provider "openai-compatible" (e.g. "http://127.0.0.1:11434/v1" for Ollama, "https://openrouter.ai/api/v1" for OpenRouter)`,
      );
    if ((m.provider ?? "anthropic") === "anthropic" && m.toolCalls !== undefined)
      problems.push(
        `${where}.toolCalls applies only to provider "openai-compatible"; remove it or set ${where}.provider`,
      );
  };
  check(model, "model");
  for (const [i, f] of (model.fallbacks ?? []).entries()) check(f, `model.fallbacks[${i}]`);
  return problems;
}
