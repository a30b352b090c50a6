import { describe, expect, test } from "bun:test";
import { defineAbility, z } from "@openassistant/sdk";
import { checkInputs } from "./inputs.ts";
import { abilityFromModule, parseAbilityYaml } from "./parse.ts";

const DEPLOY = `name: deploy
description: Deploy with safety checks
triggers:
  keywords: [deploy, ship]
  patterns: ['deploy.*v\\d+']
inputs:
  version:
    type: string
    required: true
    pattern: '^v\\d+\\.\\d+\\.\\d+$'
  environment:
    type: string
    enum: [staging, prod]
    default: staging
steps:
  - id: ci
    type: tool
    tool: ci.status
    input: { ref: "{{inputs.version}}" }
    validation:
      expression: output.state == "success"
  - id: approve
    type: approval
    needs: [ci]
    prompt: "Deploy {{inputs.version}} to {{inputs.environment}}? CI: {{steps.ci.output.state}}"
  - id: deploy
    type: tool
    needs: [approve]
    tool: deploy.run
    input: { version: "{{inputs.version}}", env: "{{inputs.environment}}" }
  - id: announce
    type: tool
    needs: [deploy]
    when: inputs.environment == "prod"
    tool: chat.post
    input: { text: "Deployed {{inputs.version}}" }
`;

/** One mistake per file, the message part it must contain, and its 1-based line and column. */
const BROKEN: [string, string, string, number, number][] = [
  ["bad YAML", DEPLOY.replace("  - id: approve\n", "  - id: approve\n   bad: [\n"), "YAML", 23, 1],
  ["unknown step type", DEPLOY.replace("type: approval", "type: shell"), "step type must be one of", 23, 5],
  ["unknown field", DEPLOY.replace("    prompt:", "    promt: x\n    prompt:"), 'unknown field "promt"', 25, 5],
  ["needs an unknown step", DEPLOY.replace("needs: [approve]", "needs: [aprove]"), 'needs "aprove"', 28, 13],
  ["duplicate id", DEPLOY.replace("id: announce", "id: approve"), "is used twice", 31, 5],
  ["cycle", DEPLOY.replace("needs: [ci]", "needs: [announce]"), "cycle", 0, 0],
  [
    "undeclared input",
    DEPLOY.replace("Deployed {{inputs.version}}", "Deployed {{inputs.versoin}}"),
    'no input "versoin"',
    36,
    5,
  ],
  ["output of a step not needed", DEPLOY.replace("needs: [ci]", "needs: []"), 'does not need step "ci"', 25, 5],
  [
    "bad expression",
    DEPLOY.replace('inputs.environment == "prod"', "inputs.environment =="),
    "expression does not parse",
    34,
    5,
  ],
  [
    "pattern RE2 cannot run",
    DEPLOY.replace("'^v\\d+\\.\\d+\\.\\d+$'", () => "'^(v)\\1$'"),
    "pattern cannot be used",
    7,
    3,
  ],
  ["missing steps", DEPLOY.slice(0, DEPLOY.indexOf("steps:")), "steps", 0, 0],
];

describe("ability.yaml", () => {
  test("the deploy flow parses: steps, needs, triggers, inputs with defaults and a linear-time pattern", () => {
    const parsed = parseAbilityYaml(DEPLOY, "/w/abilities/deploy/ability.yaml");
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
    const a = parsed.ability;
    expect(a.steps.map((s) => s.id)).toEqual(["ci", "approve", "deploy", "announce"]);
    expect(a.triggers.keywords).toEqual(["deploy", "ship"]);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(checkInputs(a.inputSchema, { version: "v1.2.3" })).toEqual({
      ok: true,
      inputs: { version: "v1.2.3", environment: "staging" },
    });
    const bad = checkInputs(a.inputSchema, { version: "1.2", environment: "moon", extra: 1 });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems.join("\n")).toMatch(
        /version: must match[\s\S]*environment: must be one of staging, prod[\s\S]*unknown input\(s\): extra/,
      );
  });

  for (const [what, text, message, line, column] of BROKEN)
    test(`${what}: one diagnostic naming the file, its line and column`, () => {
      const parsed = parseAbilityYaml(text, "/w/abilities/deploy/ability.yaml");
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.diagnostics).toHaveLength(1);
      const [d] = parsed.diagnostics;
      expect(d!.source).toBe("/w/abilities/deploy/ability.yaml");
      expect(d!.message).toContain(message);
      if (line > 0) expect([d!.line, d!.column]).toEqual([line, column]);
    });
});

describe("defineAbility", () => {
  test("zod inputs and the same checks as the YAML format", () => {
    const def = defineAbility({
      name: "greet",
      description: "Say hello",
      inputs: z.object({ who: z.string() }),
      steps: [{ id: "say", type: "tool", tool: "chat.post", input: { text: "hi {{inputs.who}}" } }],
    });
    const parsed = abilityFromModule(def, "/w/abilities/greet/ability.ts", "h");
    expect(parsed.ok).toBe(true);
    const broken = abilityFromModule(
      { ...def, steps: [{ ...def.steps[0], input: { text: "{{inputs.whom}}" } }] },
      "f.ts",
      "h",
    );
    expect(broken.ok ? [] : broken.diagnostics.map((d) => d.message)).toEqual([
      'steps[0].input: {{inputs.whom}}: no input "whom" is declared (inputs: who)',
    ]);
  });
});
