import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { chatText, startFakeChatCompletions } from "@openassistant/testkit/openai/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startGatewayProcess } from "../../test/cli.ts";

// #35: `openassistant start` on a local model alone (an Ollama-like endpoint, code-block mode), no
// Claude credential anywhere: it starts, says which model it asks, and answers through tools.
test("start with only an OpenAI-compatible model configured: no Claude credential needed; a tool runs from a code block", async () => {
  const dir = makeTempDir("oa-cli-local-");
  const ws = join(dir, ".openassistant");
  mkdirSync(join(ws, "tools"), { recursive: true });
  writeFileSync(
    join(ws, "tools", "clock.ts"),
    `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "Clock", approval: "auto", args: z.object({}), run: async () => "noon" });\n`,
  );
  const chat = await startFakeChatCompletions({ models: [{ id: "qwen2.5-coder:7b", tools: false }] });
  const claude = await startFakeAnthropic();
  writeFileSync(
    join(ws, "config.jsonc"),
    JSON.stringify({
      model: { provider: "openai-compatible", name: "qwen2.5-coder:7b", baseUrl: chat.url, toolCalls: "code-block" },
    }),
  );
  chat.script([
    chatText("Let me look.\n```ts\nreturn await tools.clock({});\n```"),
    (req) => chatText(JSON.stringify(req.body.messages.at(-1)).includes("noon") ? "It is noon." : "??"),
  ]);
  const { proc, out } = startGatewayProcess({ cwd: dir, apiUrl: claude.url, env: { ANTHROPIC_API_KEY: "" } });
  try {
    await out.waitFor(/Ready in \d+ ms/);
    expect(out.text).toContain(`Model: qwen2.5-coder:7b (openai-compatible at ${chat.url}, code-block tool calls)`);
    proc.stdin.write("what time is it?\n");
    await out.waitFor(/It is noon\./);
    expect(out.text).toMatch(/✅ clock succeeded \[r_\d+\]/);
    expect(claude.requests).toHaveLength(0);
    expect(chat.violations).toEqual([]);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  } finally {
    proc.kill("SIGKILL");
    await chat.close();
    await claude.close();
  }
}, 30_000);
