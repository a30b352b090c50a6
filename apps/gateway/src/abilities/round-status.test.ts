import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { chatText, chatToolCall } from "@openassistant/testkit/openai/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { DEPLOY, deployTools } from "../../test/abilities-deploy.ts";
import { type Harness, startHarness } from "../../test/harness.ts";
import type { Gateway } from "../gateway.ts";

/** #32: the ability's status (`prompt.system`) is asked before each model round of a turn. */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const exec = (id: string, code: string) => toolUseTurn({ id, name: "execute", input: { code } });
type Block = { type: string; text?: string };
type Body = { system: Block[]; messages: Array<{ role: string; content: Block[] }> };

function withDeployAbility(dir: string): string {
  mkdirSync(join(dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  return dir;
}

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

const bodies = (harness: Harness) => harness.api.messageRequests().map((r) => r.body as Body);
const texts = (blocks: Block[]) => blocks.filter((b) => b.type === "text").map((b) => b.text ?? "");

test("a round that starts an ability to its gate: the next round is told the new status after its tool results, the system prompt unchanged", async () => {
  h = await startHarness({ tools: deployTools([]), dir: withDeployAbility(makeTempDir("oa-round-status-")) });
  h.api.script([
    exec("toolu_1", 'return await tools.abilities.run({ name: "deploy", inputs: { version: "v2.0.0" } });'),
    textTurn("Deploy v2.0.0 waits for your approval."),
  ]);
  const card = nextCard(h.gateway, "abilities.gate");
  const outcome = await h.gateway.handleMessage({
    sessionKey: "dm:ann",
    surface: "terminal",
    userId: "ann",
    text: "deploy v2",
  });
  expect(outcome.stopReason).toBe("answered");

  const [first, second] = bodies(h);
  expect(JSON.stringify(first!.system)).not.toContain("Active ability");
  // The system prompt (the prefix of the loop's thinking blocks and of the cache) is sent as in round 1.
  expect(second!.system).toEqual(first!.system);
  expect(second!.messages.slice(0, first!.messages.length)).toEqual(first!.messages);
  // The model thought before its call: the fake checks that block's prefix (system included) is unchanged.
  expect(second!.messages.at(-2)!.content.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
  const results = second!.messages.at(-1)!;
  expect(results.content[0]!.type).toBe("tool_result");
  const told = texts(results.content).join("\n");
  expect(told).toContain("updated during this turn");
  expect(told).toContain("## Active ability: deploy");
  expect(told).toContain("Current step: approve (approval) — waiting for a person's approval");

  // The next turn starts with the status in its system prompt (as before #32), told once.
  const ended = h.gateway.abilities!.done(String(/run (\S+)\)/.exec(told)![1]));
  h.api.script([textTurn("Still waiting.")]);
  await h.gateway.handleMessage({ sessionKey: "dm:ann", surface: "terminal", userId: "ann", text: "status?" });
  expect(JSON.stringify(bodies(h).at(-1)!.system)).toContain("## Active ability: deploy");
  await h.gateway.approvals.decide(await card, { decision: "approved", by: "test:ann" });
  expect((await ended)?.status).toBe("completed");
}, 30_000);

test("a round whose status did not change, or a gateway without prompt.system text, sends the request as before", async () => {
  h = await startHarness({ tools: deployTools([]), dir: withDeployAbility(makeTempDir("oa-round-status-")) });
  h.api.script([exec("toolu_1", "return await tools.abilities.list({});"), textTurn("One ability: deploy.")]);
  await h.gateway.handleMessage({ sessionKey: "dm:bob", surface: "terminal", userId: "bob", text: "what can you do?" });
  const [first, second] = bodies(h);
  expect(second!.system).toEqual(first!.system);
  // Only the tool result (and the activity summary in it): no status block.
  expect(second!.messages.at(-1)!.content.map((b) => b.type)).toEqual(["tool_result"]);
}, 30_000);

test("the OpenAI-compatible provider carries the updated status too (after the tool message)", async () => {
  h = await startHarness({
    tools: deployTools([]),
    dir: withDeployAbility(makeTempDir("oa-round-status-")),
    chat: { as: "primary", toolCalls: "native", models: [{ id: "qwen2.5-coder:7b", tools: true }] },
  });
  h.chat!.script([
    chatToolCall({
      id: "call_1",
      name: "execute",
      input: { code: 'return await tools.abilities.run({ name: "deploy", inputs: { version: "v2.0.0" } });' },
    }),
    chatText("Waiting for your approval."),
  ]);
  const card = nextCard(h.gateway, "abilities.gate");
  await h.gateway.handleMessage({ sessionKey: "dm:cy", surface: "terminal", userId: "cy", text: "deploy v2" });
  const [first, second] = h
    .chat!.completionRequests()
    .map((r) => r.body.messages as Array<{ role: string; content: string }>);
  expect(second![0]).toEqual(first![0]!);
  expect(first![0]!.content).not.toContain("Active ability");
  expect(second!.at(-2)!.role).toBe("tool");
  expect(second!.at(-1)).toMatchObject({ role: "user" });
  expect(second!.at(-1)!.content).toContain("## Active ability: deploy");
  const runId = /run (\S+)\)/.exec(second!.at(-1)!.content)![1]!;
  const ended = h.gateway.abilities!.done(runId);
  await h.gateway.approvals.decide(await card, { decision: "approved", by: "test:cy" });
  expect((await ended)?.status).toBe("completed");
}, 30_000);

test("a gateway with no prompt.system hook: the system prompt is the stable blocks only, each round", async () => {
  h = await startHarness();
  expect(h.gateway.tools().tree).not.toHaveProperty("abilities");
  h.api.script([exec("toolu_1", "return 1;"), textTurn("One.")]);
  await h.gateway.handleMessage({ sessionKey: "dm:dee", surface: "terminal", userId: "dee", text: "one?" });
  const [first, second] = bodies(h);
  expect(first!.system).toHaveLength(1);
  expect(second!.system).toEqual(first!.system);
  expect(second!.messages.at(-1)!.content.map((b) => b.type)).toEqual(["tool_result"]);
}, 30_000);
