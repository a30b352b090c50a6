import { describe, expect, test } from "bun:test";
import { gatewayConfigSchema } from "../config-schema.ts";

const configSchema = gatewayConfigSchema();

describe("model.thinking / model.effort are checked against the model's capabilities", () => {
  const parse = (model: Record<string, unknown>) => configSchema.safeParse({ model });

  test("allowed values pass", () => {
    expect(parse({ name: "claude-sonnet-5-5", thinking: "between_tools", effort: "medium" }).success).toBe(true);
    expect(parse({ name: "claude-haiku-4-5", thinking: "enabled" }).success).toBe(true);
  });

  test("a rejected value is an error naming the allowed ones", () => {
    const r = parse({ name: "claude-sonnet-5-5", thinking: "disabled" });
    expect(r.error?.issues[0]).toMatchObject({
      path: ["model"],
      message: 'model.thinking "disabled" is not supported by claude-sonnet-5-5; allowed: adaptive, between_tools',
    });
    expect(parse({ name: "claude-haiku-4-5", effort: "high" }).error?.issues[0]?.message).toContain(
      "remove model.effort",
    );
    expect(
      parse({ name: "claude-sonnet-5-5", thinking: "between_tools", effort: "max" }).error?.issues[0]?.message,
    ).toContain("allowed with between_tools: low, medium, high");
    expect(parse({ name: "claude-new-model", effort: "high" }).error?.issues[0]?.message).toContain(
      "known models: claude-sonnet-5-5",
    );
  });
});
