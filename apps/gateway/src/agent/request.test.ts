import { describe, expect, test } from "bun:test";
import { DEFAULT_TURN_SETTINGS, type TurnSettings } from "./settings.ts";
import { buildRequest } from "./request.ts";

const build = (s: Partial<TurnSettings>, final = false) =>
  buildRequest({
    settings: { ...DEFAULT_TURN_SETTINGS, ...s },
    system: [],
    tools: [],
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    final,
  });

describe("buildRequest sends only what the model accepts", () => {
  test("thinking and effort from settings, when the model supports them", () => {
    expect(build({ model: "claude-sonnet-5-5", thinking: "between_tools", effort: "low" })).toMatchObject({
      thinking: { type: "between_tools" },
      output_config: { effort: "low" },
    });
    expect(build({ model: "claude-sonnet-5", thinking: "disabled" }).thinking).toEqual({ type: "disabled" });
  });

  test("a setting the model rejects is left out (the model's default applies)", () => {
    const r = build({ model: "claude-sonnet-5-5", thinking: "disabled", effort: "max" });
    expect(r.thinking).toBeUndefined();
    expect(r.output_config).toEqual({ effort: "max" });
    // between_tools cannot be combined with xhigh / max: the effort is dropped, not the request failed.
    expect(
      build({ model: "claude-sonnet-5-5", thinking: "between_tools", effort: "xhigh" }).output_config,
    ).toBeUndefined();
    const haiku = build({ model: "claude-haiku-4-5", thinking: "adaptive", effort: "high" });
    expect(haiku.thinking).toBeUndefined();
    expect(haiku.output_config).toBeUndefined();
  });

  test("thinkingDisplay: summarized asks for readable thinking where thinking is adaptive", () => {
    expect(build({ model: "claude-sonnet-5-5", thinkingDisplay: "summarized" }).thinking).toEqual({
      type: "adaptive",
      display: "summarized",
    });
    expect(
      build({ model: "claude-sonnet-5-5", thinking: "between_tools", thinkingDisplay: "summarized" }).thinking,
    ).toEqual({ type: "between_tools" });
    expect(build({ model: "claude-haiku-4-5", thinkingDisplay: "summarized" }).thinking).toBeUndefined();
  });

  test("budget thinking on Haiku 4.5 stays ≥ 1024 and below max_tokens", () => {
    expect(build({ model: "claude-haiku-4-5", thinking: "enabled", maxTokens: 8000 }).thinking).toEqual({
      type: "enabled",
      budget_tokens: 4000,
    });
  });

  test("max_tokens is capped at the model's output limit; a final round is tool_choice none", () => {
    expect(build({ model: "claude-haiku-4-5", maxTokens: 100_000 }).max_tokens).toBe(64_000);
    expect(build({ model: "claude-sonnet-5-5" }, true).tool_choice).toEqual({ type: "none" });
  });
});
