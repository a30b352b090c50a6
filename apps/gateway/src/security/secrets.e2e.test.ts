import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { GatewayEvent } from "../events/types.ts";
import { createGateway } from "../gateway.ts";

// Secrets enter through ${VAR} in the config (under a key that does not look secret) and the
// model credential; a plugin echoes its secret in output, console and errors. None may reach the
// model's prompts, receipts, sessions, events or the database file.
const PLUGIN_SECRET = "wx-live-7f3c9a1e5b2d4c6f8a0e";
const API_KEY = "sk-ant-api03-e2e-secret-key-0123456789abcdef";

const api = await startFakeAnthropic();
const project = makeTempDir("oa-secrets-");
const plugin = join(project, ".openassistant", "plugins", "weather");
mkdirSync(plugin, { recursive: true });
writeFileSync(
  join(project, ".openassistant", "config.jsonc"),
  `{ "config": { "weather": { "endpoint": "\${WEATHER_ENDPOINT}" } } }`,
);
writeFileSync(join(plugin, "package.json"), JSON.stringify({ name: "weather", type: "module", openassistant: { entry: "./index.ts" } }));
writeFileSync(
  join(plugin, "index.ts"),
  `import { defineTool, z, type PluginContext } from "@openassistant/sdk";
export default (ctx: PluginContext) => ({
  lookup: defineTool({
    description: "Look up the weather",
    approval: "auto",
    args: z.object({ city: z.string() }),
    run: async ({ city }) => ({ city, usedEndpoint: String(ctx.config.endpoint) }),
  }),
  broken: defineTool({
    description: "Fails",
    approval: "auto",
    args: z.object({}),
    run: async () => { throw new Error("endpoint " + String(ctx.config.endpoint) + " refused"); },
  }),
});
`,
);

const gateway = await createGateway({
  cwd: project,
  env: { WEATHER_ENDPOINT: PLUGIN_SECRET, ANTHROPIC_API_KEY: API_KEY },
  configDir: join(project, "global-config"),
  settings: { anthropic: { baseURL: api.url } },
});
afterAll(async () => {
  await gateway.shutdown();
  await api.close();
});

test("config secrets and credentials never reach prompts, receipts, events, sessions or the database", async () => {
  const code = [
    `const r = (await tools.weather.lookup({ city: "Oslo" })) as { usedEndpoint: string };`,
    `console.log("endpoint is", r.usedEndpoint);`,
    `try { await tools.weather.broken({}); } catch (e) { console.log((e as Error).message); }`,
    `return r;`,
  ].join("\n");
  api.script([toolUseTurn({ id: "tu_1", name: "execute", input: { code } }), textTurn(`Done; the endpoint was ${PLUGIN_SECRET}.`)]);
  const events: GatewayEvent[] = [];
  const outcome = await gateway.handleMessage({ sessionKey: "secrets", surface: "terminal", text: "weather?", onEvent: (e) => events.push(e) });
  expect(outcome.runIds).toHaveLength(1);

  // The tools really ran and really saw the secret (so this test would catch a leak).
  const receipts = gateway.receipts.byRun(outcome.runIds[0]!);
  expect(receipts.map((r) => `${r.toolPath}:${r.phase}`)).toEqual([
    "weather.lookup:requested", "weather.lookup:started", "weather.lookup:succeeded",
    "weather.broken:requested", "weather.broken:started", "weather.broken:failed",
  ]);
  expect(receipts.find((r) => r.phase === "succeeded")!.outputPreview).toContain("[redacted]");

  const haystacks = {
    prompts: JSON.stringify(api.requests.map((r) => r.body)),
    receipts: JSON.stringify(receipts),
    events: JSON.stringify(events),
    history: JSON.stringify(gateway.sessions.history(gateway.sessions.getOrCreate("secrets", "terminal").id)),
  };
  for (const [where, text] of Object.entries(haystacks)) {
    expect({ where, leaked: text.includes(PLUGIN_SECRET) }).toEqual({ where, leaked: false });
    expect({ where, leaked: text.includes(API_KEY) }).toEqual({ where, leaked: false });
  }
  // The model's own final text is the one place the secret could come from outside our control;
  // what we store and show is scrubbed too.
  expect(outcome.text).not.toContain(PLUGIN_SECRET);

  // Raw bytes of the database and its WAL.
  const dataDir = join(project, ".openassistant", "data");
  for (const file of readdirSync(dataDir).filter((f) => f.startsWith("openassistant.sqlite"))) {
    const bytes = readFileSync(join(dataDir, file)).toString("latin1");
    expect({ file, leaked: bytes.includes(PLUGIN_SECRET) || bytes.includes(API_KEY) }).toEqual({ file, leaked: false });
  }
}, 30_000);
