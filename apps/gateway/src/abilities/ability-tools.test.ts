import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { flattenToolTree } from "@openassistant/core/tools";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { DEPLOY, deployTools } from "../../test/abilities-deploy.ts";
import { cli } from "../../test/cli.ts";
import { type Harness, lastToolResult, startHarness, startProjectGateway } from "../../test/harness.ts";
import type { Gateway } from "../gateway.ts";

/** #32: `tools.abilities.list/run/status/cancel`: the model starts and follows an ability. */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const exec = (id: string, code: string) => toolUseTurn({ id, name: "execute", input: { code } });
type Req = Parameters<typeof lastToolResult>[0];

/** What the model's snippet returned, from the tool result the gateway sent back. */
const returned = (content: string) => JSON.parse(/^Return value: (.*)$/m.exec(content)?.[1] ?? "null");

const PLUGIN = `import { definePlugin, defineTool, z } from "@openassistant/sdk";
export default definePlugin({
  tools: () => ({ ping: defineTool({ description: "Ping", approval: "auto", args: z.object({}), run: async () => "pong" }) }),
});
`;

function withDeployAbility(dir: string): string {
  mkdirSync(join(dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  return dir;
}

/** The next approval card for `toolPath`, as the gateway asks it. */
function nextCard(gateway: Gateway, toolPath: string): Promise<string> {
  return new Promise((resolve) => {
    const stop = gateway.events.subscribe((e) => {
      if (e.type === "approval.requested" && e.request.toolPath === toolPath) {
        stop();
        resolve(e.request.callId);
      }
    });
  });
}

test("the model lists, runs an ability to its gate, sees it wait, and after the approval sees it complete; a bad input is named", async () => {
  const ran: Array<{ what: string; at: number }> = [];
  h = await startHarness({ tools: deployTools(ran), dir: withDeployAbility(makeTempDir("oa-ability-tools-")) });
  const results: string[] = [];
  const seen = (req: { body: Req }) => results.push(lastToolResult(req.body).content);
  h.api.script([
    exec("toolu_1", "return await tools.abilities.list({});"),
    (req) => {
      seen(req);
      return exec("toolu_2", 'return await tools.abilities.run({ name: "deploy", inputs: { version: "1.0" } });');
    },
    (req) => {
      seen(req);
      return exec(
        "toolu_3",
        'const r = await tools.abilities.run({ name: "deploy", inputs: { version: "v2.0.0" } }); return { r, s: await tools.abilities.status({}) };',
      );
    },
    (req) => {
      seen(req);
      return textTurn("Deploy v2.0.0 waits for your approval.");
    },
  ]);
  const card = nextCard(h.gateway, "abilities.gate");
  const first = await h.gateway.handleMessage({
    sessionKey: "dm:ann",
    surface: "terminal",
    userId: "ann",
    text: "deploy v2",
  });
  expect(first.stopReason).toBe("answered");

  const [list, bad, started] = results;
  expect(returned(list!)).toMatchObject({
    abilities: [
      {
        name: "deploy",
        description: "Deploy a version after CI passed and a person approved",
        inputs: [
          { name: "version", type: "string", required: true, pattern: "^v\\d+\\.\\d+\\.\\d+$" },
          { name: "environment", type: "string", required: false, enum: ["staging", "prod"], default: "staging" },
        ],
      },
    ],
    problems: [],
  });
  expect(bad).toContain('❌ abilities.run failed: ability "deploy": version: must match ^v\\d+');
  const { r, s } = returned(started!) as { r: Record<string, unknown>; s: Record<string, unknown> };
  expect(r).toMatchObject({ ability: "deploy", status: "running", currentStep: "approve" });
  expect(r.waiting).toBe("for a person's approval at step approve (the approval card is posted)");
  expect(s).toMatchObject({ runId: r.runId, currentStep: "approve", waiting: r.waiting });
  expect((s.steps as Array<{ id: string; status: string }>).map((x) => `${x.id}:${x.status}`)).toEqual([
    "ci:completed",
    "approve:running",
    "deploy:pending",
    "announce:pending",
  ]);
  // The run is the conversation's, asked by the person of the turn.
  const run = await h.gateway.abilities!.get(String(r.runId));
  expect(run?.requestedBy).toBe("ann");

  const ended = h.gateway.abilities!.done(String(r.runId));
  await h.gateway.approvals.decide(await card, { decision: "approved", by: "test:ann" });
  expect((await ended)?.status).toBe("completed");
  h.api.script([
    exec("toolu_4", "return await tools.abilities.status({});"),
    (req) => {
      seen(req);
      return textTurn("Deployed.");
    },
  ]);
  await h.gateway.handleMessage({ sessionKey: "dm:ann", surface: "terminal", userId: "ann", text: "done?" });
  expect(returned(results[3]!)).toMatchObject({ runId: r.runId, status: "completed" });
  expect(ran.filter((x) => x.what.startsWith("deploy.run"))).toHaveLength(1);
}, 30_000);

test("the model cancels its conversation's run at the gate; another conversation's run is not its to see or cancel", async () => {
  const ran: Array<{ what: string; at: number }> = [];
  h = await startHarness({ tools: deployTools(ran), dir: withDeployAbility(makeTempDir("oa-ability-tools-")) });
  const gateway = h.gateway;
  const other = await gateway.abilities!.start("deploy", { version: "v9.0.0" }, {});
  if (!other.ok) throw new Error(other.error);
  const results: string[] = [];
  const seen = (req: { body: Req }) => results.push(lastToolResult(req.body).content);
  h.api.script([
    exec("toolu_1", 'return await tools.abilities.run({ name: "deploy", inputs: { version: "v3.0.0" } });'),
    (req) => {
      seen(req);
      return exec("toolu_2", `return await tools.abilities.status({ runId: "${other.run.id}" });`);
    },
    (req) => {
      seen(req);
      return exec("toolu_3", "return await tools.abilities.cancel({});");
    },
    (req) => {
      seen(req);
      return textTurn("Cancelled.");
    },
  ]);
  await gateway.handleMessage({ sessionKey: "dm:bob", surface: "terminal", userId: "bob", text: "deploy, then stop" });
  const [started, foreign, cancelled] = results;
  const runId = (returned(started!) as { runId: string }).runId;
  expect(foreign).toContain(`no ability run ${other.run.id} in this conversation`);
  expect(returned(cancelled!)).toMatchObject({ runId, status: "cancelled" });
  expect((await gateway.abilities!.get(runId))?.status).toBe("cancelled");
  expect((await gateway.abilities!.get(other.run.id))?.status).toBe("running");
  expect(ran.filter((x) => x.what.startsWith("deploy.run"))).toHaveLength(0);
  await gateway.abilities!.cancel(other.run.id, "test over");
}, 30_000);

test("a project without abilities has no `abilities` namespace; a workspace or a plugin that defines one has it", async () => {
  const api = await startFakeAnthropic();
  const paths = (g: Gateway) => flattenToolTree(g.tools().tree).map((t) => t.path);
  const open: Gateway[] = [];
  try {
    const none = await startProjectGateway(makeTempDir("oa-no-abilities-"), api.url);
    open.push(none);
    expect(paths(none).filter((p) => p.startsWith("abilities."))).toEqual([]);

    const own = await startProjectGateway(withDeployAbility(makeTempDir("oa-abilities-")), api.url);
    open.push(own);
    expect(
      paths(own)
        .filter((p) => p.startsWith("abilities."))
        .sort(),
    ).toEqual(["abilities.cancel", "abilities.list", "abilities.run", "abilities.status"]);

    const dir = makeTempDir("oa-plugin-abilities-");
    const plugin = join(dir, ".openassistant", "plugins", "shipper");
    mkdirSync(join(plugin, "abilities", "ship"), { recursive: true });
    writeFileSync(
      join(plugin, "package.json"),
      JSON.stringify({ name: "shipper", type: "module", openassistant: { entry: "./index.ts" } }),
    );
    writeFileSync(join(plugin, "index.ts"), PLUGIN);
    writeFileSync(
      join(plugin, "abilities", "ship", "ability.yaml"),
      "name: ship\ndescription: Ship it\nsteps:\n  - { id: say, type: tool, tool: chat.post, input: { text: hi } }\n",
    );
    const fromPlugin = await startProjectGateway(dir, api.url);
    open.push(fromPlugin);
    expect(paths(fromPlugin)).toContain("abilities.run");
  } finally {
    for (const g of open) await g.shutdown();
    await api.close();
  }
}, 30_000);

test("`plugins list` counts tools.abilities.* as `start` does when the workspace defines an ability", async () => {
  const r = await cli(["plugins", "list"], { cwd: withDeployAbility(makeTempDir("oa-abilities-list-")) });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^abilities +plugin +loaded +bundled +built-in \(abilities\)/m);
  expect(r.stdout).toContain("tools.abilities.run  [auto]");
  // tools.workspace.* (4), tools.schedules.* (3), tools.abilities.* (4)
  expect(r.stdout).toContain("11 tools available to the model.");
}, 30_000);
