import { describe, expect, test } from "bun:test";
import { abilityNameChoices, parseAbilityCommand, typedAbilityCommand } from "./commands.ts";

describe("/ability as an application command", () => {
  test("each subcommand becomes the typed form, parsed by the one parser", () => {
    const run = typedAbilityCommand("run", { name: " deploy ", inputs: "version=v1 environment=prod" });
    expect(run).toBe("/ability run deploy version=v1 environment=prod");
    expect(parseAbilityCommand(run)).toEqual({
      kind: "run",
      name: "deploy",
      inputs: { version: "v1", environment: "prod" },
    });
    expect(parseAbilityCommand(typedAbilityCommand("run", { name: "deploy", inputs: null }))).toEqual({
      kind: "run",
      name: "deploy",
      inputs: {},
    });
    expect(parseAbilityCommand(typedAbilityCommand("status", { runId: "ability_1" }))).toEqual({
      kind: "status",
      runId: "ability_1",
    });
    expect(parseAbilityCommand(typedAbilityCommand("cancel", {}))).toEqual({ kind: "cancel" });
    expect(parseAbilityCommand(typedAbilityCommand("list", {}))).toEqual({ kind: "list" });
  });

  test("autocomplete: names containing what was typed, those starting with it first, at most 25 of ≤ 100 characters", () => {
    expect(abilityNameChoices(["redeploy", "deploy", "backup"], "DEP").map((c) => c.value)).toEqual([
      "deploy",
      "redeploy",
    ]);
    const many = Array.from({ length: 30 }, (_, n) => `a${n}`);
    expect(abilityNameChoices(many, "")).toHaveLength(25);
    expect(abilityNameChoices(["x".repeat(101), "ok"], "")).toEqual([{ name: "ok", value: "ok" }]);
  });
});
