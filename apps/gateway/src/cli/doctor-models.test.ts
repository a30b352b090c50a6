import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeChatCompletions, type FakeChatCompletions } from "@openassistant/testkit/openai/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";

// #35: `doctor` contacts each configured OpenAI-compatible endpoint (the fake here) and says what it answered.
const KEY = "sk-or-v1-doctor-0123456789abcdef";
let chat: FakeChatCompletions;
beforeAll(async () => {
  chat = await startFakeChatCompletions({ apiKey: KEY, models: [{ id: "llama3.1:8b" }, { id: "qwen2.5-coder:7b" }] });
});
afterAll(() => chat.close());

function project(model: unknown): string {
  const dir = makeTempDir("oa-cli-");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify({ model }));
  return dir;
}

/** A URL nothing listens on: bound, then closed. */
function closedUrl(): string {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const url = `http://127.0.0.1:${s.port}/v1`;
  s.stop(true);
  return url;
}

test("doctor: an OpenAI-compatible model is checked at its endpoint, with its key, and Claude's credentials are not asked for", async () => {
  const dir = project({ provider: "openai-compatible", name: "llama3.1:8b", baseUrl: chat.url, apiKey: "${OR_KEY}" });
  const r = await cli(["doctor"], { cwd: dir, env: { OR_KEY: KEY } });
  expect(r.stdout).toContain(
    `✓ model openai-compatible:llama3.1:8b: ${chat.url} answers; it offers llama3.1:8b (2 model(s): llama3.1:8b, qwen2.5-coder:7b)`,
  );
  expect(r.stdout).not.toContain("credentials");
  expect(r.stdout + r.stderr).not.toContain(KEY);
  expect(chat.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(r.code).toBe(0);
}, 20_000);

test("doctor: a fallback the endpoint does not offer, a wrong key and an endpoint that is down each fail, named", async () => {
  const down = closedUrl();
  const dir = project({
    provider: "openai-compatible",
    name: "llama3.1:70b",
    baseUrl: chat.url,
    apiKey: "${OR_KEY}",
    fallbacks: [
      { provider: "openai-compatible", name: "llama3.1:8b", baseUrl: chat.url, apiKey: "wrong-key-000" },
      { provider: "openai-compatible", name: "m", baseUrl: down },
    ],
  });
  const r = await cli(["doctor"], { cwd: dir, env: { OR_KEY: KEY } });
  expect(r.code).toBe(1);
  expect(r.stdout).toContain(
    `✗ model openai-compatible:llama3.1:70b: ${chat.url} answers, but does not offer "llama3.1:70b"`,
  );
  expect(r.stdout).toMatch(/✗ model openai-compatible:llama3\.1:8b: .*rejected the API key/);
  expect(r.stdout).toContain(`✗ model openai-compatible:m: ${down}: Could not reach`);
  expect(r.stdout).not.toContain("wrong-key-000");
}, 20_000);
