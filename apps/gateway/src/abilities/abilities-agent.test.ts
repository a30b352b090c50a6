import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { deployTools } from "../../test/abilities-deploy.ts";
import { type Harness, lastToolResult, startHarness } from "../../test/harness.ts";

/** #32: an `agent` step is a model turn with the step's goal, held to the step's tools. */
const TRIAGE = `name: triage
description: Let the model look at CI, then deploy what it found green
inputs:
  version: { type: string, required: true }
steps:
  - id: look
    type: agent
    goal: "Check the CI state of {{inputs.version}} and say whether it is green."
    tools: [ci.status]
  - id: deploy
    type: tool
    needs: [look]
    tool: deploy.run
    input: { version: "{{inputs.version}}", env: staging, note: "{{steps.look.output.text}}" }
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

test("an agent step: the model's turn calls the step's tool, a call outside it is denied naming the step; its answer is the output", async () => {
  const ran: Array<{ what: string; at: number }> = [];
  h = await startHarness({ tools: deployTools(ran) });
  mkdirSync(join(h.dir, ".openassistant", "abilities", "triage"), { recursive: true });
  writeFileSync(join(h.dir, ".openassistant", "abilities", "triage", "ability.yaml"), TRIAGE);
  let system = "";
  h.api.script([
    (req) => {
      system = JSON.stringify(req.body.system ?? "");
      return toolUseTurn({
        id: "toolu_a1",
        name: "execute",
        input: {
          code: 'const ci = await tools.ci.status({ ref: "v7.0.0" }); await tools.deploy.run({ version: "v7.0.0", env: "prod" }); return ci;',
        },
      });
    },
    (req) => {
      const result = lastToolResult(req.body);
      return textTurn(
        result.content.includes("plugin abilities")
          ? "CI is green; deploying myself was refused."
          : `unexpected: ${result.content}`,
      );
    },
  ]);
  let finished!: () => void;
  const ended = new Promise<void>((resolve) => (finished = resolve));
  h.gateway.events.subscribe((e) => {
    if (e.type === "ability.finished") finished();
  });
  await h.gateway.handleMessage({
    sessionKey: "terminal",
    surface: "terminal",
    userId: "ann",
    text: "/ability run triage version=v7.0.0",
  });
  await ended;
  const status = await h.gateway.handleMessage({
    sessionKey: "terminal",
    surface: "terminal",
    text: "/ability status",
  });
  expect(status.text).toStartWith("Ability triage completed.");
  expect(system).toContain("This conversation is that step: do its goal with only these tools: ci.status");
  // The model's own deploy.run was denied; the ability's deploy step ran once, with the agent's answer.
  expect(ran.map((r) => r.what)).toEqual([
    'ci.status:{"ref":"v7.0.0"}',
    'deploy.run:{"version":"v7.0.0","env":"staging","note":"CI is green; deploying myself was refused."}',
  ]);
  const denied = (await h.gateway.receipts.query({ phase: "denied" })).filter((r) => r.toolPath === "deploy.run");
  expect(denied.map((r) => r.decidedBy)).toEqual(["plugin:abilities"]);
  expect(denied[0]!.reason).toContain('ability "triage" (step "look", agent)');
}, 30_000);
