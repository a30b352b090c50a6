import { describe, expect, test } from "bun:test";
import { configSecretValues } from "@openassistant/core/config";
import { gatewayConfigSchema } from "../config-schema.ts";
import { modelConfigSchema } from "./config-schema.ts";
import { claudeBaseUrl, configuredTargets, modelsFromConfig } from "./targets.ts";

// #35: the `model` section's provider keys, and what they become.
const problems = (model: unknown): string[] => {
  const r = modelConfigSchema.safeParse(model);
  return r.success ? [] : r.error.issues.map((i) => i.message);
};

describe("config model.provider / baseUrl / apiKey / toolCalls / fallbacks", () => {
  test("a Claude-only config (every existing one) stays valid and adds nothing: the Claude path is as before", () => {
    for (const model of [
      undefined,
      {},
      { name: "claude-opus-5-5", effort: "high" },
      { name: "claude-haiku-4-5", thinking: "enabled" },
    ]) {
      expect(problems(model)).toEqual([]);
      expect(modelsFromConfig(modelConfigSchema.parse(model))).toEqual({});
    }
  });

  test("an OpenAI-compatible model with a Claude fallback", () => {
    const model = modelConfigSchema.parse({
      provider: "openai-compatible",
      name: "qwen2.5-coder:7b",
      baseUrl: "http://127.0.0.1:11434/v1",
      toolCalls: "code-block",
      fallbacks: [
        { name: "claude-sonnet-5-5" },
        { provider: "openai-compatible", name: "x", baseUrl: "https://openrouter.ai/api/v1", apiKey: "sk-or" },
      ],
    });
    const settings = modelsFromConfig(model);
    expect(settings.models).toEqual({
      primary: { provider: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1", toolCalls: "code-block" },
      fallbacks: [
        { provider: "anthropic", name: "claude-sonnet-5-5" },
        { provider: "openai-compatible", name: "x", baseURL: "https://openrouter.ai/api/v1", apiKey: "sk-or" },
      ],
    });
    const targets = configuredTargets({
      turn: { model: model.name } as never,
      anthropic: { baseURL: "http://proxy" },
      ...settings,
    });
    expect(targets.map((t) => `${t.provider}:${t.name}@${t.baseURL}`)).toEqual([
      "openai-compatible:qwen2.5-coder:7b@http://127.0.0.1:11434/v1",
      "anthropic:claude-sonnet-5-5@http://proxy",
      "openai-compatible:x@https://openrouter.ai/api/v1",
    ]);
  });

  test("thinking / effort are checked only against Claude models", () => {
    expect(
      problems({ provider: "openai-compatible", name: "llama3.1:8b", baseUrl: "http://127.0.0.1:11434/v1" }),
    ).toEqual([]);
    expect(problems({ name: "llama3.1:8b", effort: "high" })[0]).toContain("not in the capability table");
  });

  test("each mistake is named with its fix", () => {
    expect(problems({ provider: "openai-compatible", name: "llama3.1:8b" })).toEqual([
      'model.baseUrl is required with provider "openai-compatible" (e.g. "http://127.0.0.1:11434/v1" for Ollama, "https://openrouter.ai/api/v1" for OpenRouter)',
    ]);
    expect(problems({ fallbacks: [{ provider: "openai-compatible", name: "m" }] })[0]).toContain(
      "model.fallbacks[0].baseUrl is required",
    );
    expect(problems({ toolCalls: "code-block" })[0]).toContain(
      'model.toolCalls applies only to provider "openai-compatible"',
    );
    expect(problems({ provider: "openai", name: "m" })[0]).toContain('"anthropic"');
    expect(problems({ provider: "openai-compatible", name: "m", baseUrl: "localhost:11434" })[0]).toContain(
      "http(s) URL",
    );
  });

  test("the API keys are credentials: the redactor gets them", () => {
    const schema = gatewayConfigSchema();
    const config = schema.parse({
      model: {
        provider: "openai-compatible",
        name: "m",
        baseUrl: "https://openrouter.ai/api/v1",
        apiKey: "sk-or-primary",
        fallbacks: [
          { provider: "openai-compatible", name: "n", baseUrl: "http://127.0.0.1:8000/v1", apiKey: "vllm-key" },
        ],
      },
    });
    expect(configSecretValues(config, schema).sort()).toEqual(["sk-or-primary", "vllm-key"]);
  });

  test("model.baseUrl of a Claude model is its endpoint; of another provider's, not Claude's", () => {
    expect(claudeBaseUrl({ baseUrl: "http://proxy" })).toBe("http://proxy");
    expect(claudeBaseUrl({ provider: "openai-compatible", baseUrl: "http://x/v1" })).toBeUndefined();
  });
});
