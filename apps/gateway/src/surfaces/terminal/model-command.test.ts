import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { fakeAnthropicErrors, textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { chatText } from "@openassistant/testkit/openai/fake-server.ts";
import { startHarness, startTestTerminal, TEST_MODEL, type Harness } from "../../../test/harness.ts";

// Gateways with a real checker and fake servers on a busy machine: the limit `bun run check` uses.
setDefaultTimeout(30_000);

// #35: `/model` with a Claude model and an OpenAI-compatible endpoint configured.
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

test("/model lists what each configured endpoint offers, switches to a model an endpoint offers, and refuses one none offers before any turn", async () => {
  h = await startHarness({ chat: { as: "fallback", models: [{ id: "llama3.1:8b" }, { id: "qwen2.5-coder:7b" }] } });
  h.api.script([textTurn("from Claude")]);
  h.chat!.script([chatText("from qwen")]);
  const { io, surface } = startTestTerminal(h.gateway);
  io.send("/model");
  await io.waitFor(new RegExp(`model: the configured default \\(${TEST_MODEL}\\)`));
  await io.waitFor(/anthropic at http:\/\/127\.0\.0\.1:\d+: .*claude-sonnet-5-5/);
  await io.waitFor(/openai-compatible at http:\/\/127\.0\.0\.1:\d+\/v1: llama3\.1:8b, qwen2\.5-coder:7b/);
  io.send("/model gpt-nope");
  await io.waitFor(/"gpt-nope" is not a model the gateway knows; nothing changed\. Known models: .*qwen2\.5-coder:7b/);
  io.send("hi");
  await io.waitFor(/assistant › from Claude/);
  io.send("/model qwen2.5-coder:7b");
  await io.waitFor(/model: qwen2\.5-coder:7b for this session from the next message/);
  io.send("hi again");
  await io.waitFor(/assistant › from qwen/);
  expect(h.chat!.completionRequests().map((r) => r.body.model)).toEqual(["qwen2.5-coder:7b"]);
  // The refused name reached no model.
  expect(h.api.messageRequests().map((r) => r.body.model)).toEqual([TEST_MODEL]);
  io.input.end();
  await surface.done;
});

test("/model says when an endpoint cannot be reached, and still lists the others", async () => {
  h = await startHarness({ chat: { as: "fallback" } });
  await h.chat!.close();
  const { io, surface } = startTestTerminal(h.gateway);
  io.send("/model");
  await io.waitFor(/openai-compatible at http:\/\/127\.0\.0\.1:\d+\/v1: could not list its models \(Could not reach/);
  expect(io.text).toMatch(/anthropic at .*claude-sonnet-5-5/);
  io.input.end();
  await surface.done;
});

test("the terminal says when a fallback takes the turn", async () => {
  h = await startHarness({ chat: { as: "fallback" } });
  h.api.script([fakeAnthropicErrors.rateLimited(600)]);
  h.chat!.script([chatText("from the fallback")]);
  const { io, surface } = startTestTerminal(h.gateway);
  io.send("hi");
  await io.waitFor(/assistant › from the fallback/);
  expect(io.text).toContain(
    `(anthropic:${TEST_MODEL} is unavailable (rate limited); openai-compatible:llama3.1:8b takes the turn)`,
  );
  io.input.end();
  await surface.done;
});
