import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import type { GatewayEvent } from "../events/types.ts";
import { createGateway } from "../gateway.ts";

// Secrets enter through ${VAR} in the config (under a key that does not look secret) and the
// model credential; a plugin echoes its secrets in output, console and errors, raw and encoded
// (URL, form, base64 standalone and inside a longer string at each byte alignment, hex), and the
// model passes them on to a tool that needs approval. None may reach the model's prompts,
// receipts, approval requests, sessions, events or the database file, in any of those forms.
const PLUGIN_SECRET = "wx-live-7f3c9a1e5b2d4c6f8a0e";
const PASSWORD = "p@ss w/rd+é!&=7Kq";
const API_KEY = "sk-ant-api03-e2e-secret-key-0123456789abcdef";

/** The forms a secret leaks in; the plugin below builds the same ones. */
function encodings(s: string): Record<string, string> {
  const b = (x: string) => Buffer.from(x);
  return {
    raw: s,
    json: JSON.stringify(s).slice(1, -1),
    uri: encodeURIComponent(s),
    form: new URLSearchParams({ k: s }).toString().slice(2),
    b64: b(s).toString("base64"),
    b64url: b(s).toString("base64url"),
    basicAt1: b(`u:${s}`).toString("base64"),
    basicAt2: b(`us:${s}`).toString("base64"),
    basicAt0: b(`use:${s}!`).toString("base64url"),
    hex: b(s).toString("hex"),
    HEX: b(s).toString("hex").toUpperCase(),
  };
}

const api = await startFakeAnthropic();
const project = makeTempDir("oa-secrets-");
const plugin = join(project, ".openassistant", "plugins", "weather");
mkdirSync(plugin, { recursive: true });
writeFileSync(
  join(project, ".openassistant", "config.jsonc"),
  `{ "config": { "weather": { "endpoint": "\${WEATHER_ENDPOINT}", "password": "\${WEATHER_PASSWORD}" } } }`,
);
writeFileSync(
  join(plugin, "package.json"),
  JSON.stringify({ name: "weather", type: "module", openassistant: { entry: "./index.ts" } }),
);
writeFileSync(
  join(plugin, "index.ts"),
  `import { defineTool, z, type PluginContext } from "@openassistant/sdk";
const encodings = ${encodings.toString()};
export default (ctx: PluginContext) => ({
  encoded: defineTool({
    description: "Echoes its secrets encoded",
    approval: "auto",
    args: z.object({}),
    run: async () => {
      return { endpoint: encodings(String(ctx.config.endpoint)), password: encodings(String(ctx.config.password)) };
    },
  }),
  failEncoded: defineTool({
    description: "Fails with its secrets encoded",
    approval: "auto",
    args: z.object({}),
    run: async () => { throw new Error("request failed: " + Object.values(encodings(String(ctx.config.password))).join(" ")); },
  }),
  report: defineTool({
    description: "Sends a report (needs approval)",
    approval: "required",
    args: z.object({ data: z.unknown(), note: z.string() }),
    run: async () => ({ ok: true }),
  }),
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
  env: { WEATHER_ENDPOINT: PLUGIN_SECRET, WEATHER_PASSWORD: PASSWORD, ANTHROPIC_API_KEY: API_KEY },
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
  api.script([
    toolUseTurn({ id: "tu_1", name: "execute", input: { code } }),
    textTurn(`Done; the endpoint was ${PLUGIN_SECRET}.`),
  ]);
  const events: GatewayEvent[] = [];
  const outcome = await gateway.handleMessage({
    sessionKey: "secrets",
    surface: "terminal",
    text: "weather?",
    onEvent: (e) => events.push(e),
  });
  expect(outcome.runIds).toHaveLength(1);

  // The tools really ran and really saw the secret (so this test would catch a leak).
  const receipts = await gateway.receipts.byRun(outcome.runIds[0]!);
  expect(receipts.map((r) => `${r.toolPath}:${r.phase}`)).toEqual([
    "weather.lookup:requested",
    "weather.lookup:started",
    "weather.lookup:succeeded",
    "weather.broken:requested",
    "weather.broken:started",
    "weather.broken:failed",
  ]);
  expect(receipts.find((r) => r.phase === "succeeded")!.outputPreview).toContain("[redacted]");

  const haystacks = {
    prompts: JSON.stringify(api.requests.map((r) => r.body)),
    receipts: JSON.stringify(receipts),
    events: JSON.stringify(events),
    history: JSON.stringify(
      await gateway.sessions.history((await gateway.sessions.getOrCreate("secrets", "terminal")).id),
    ),
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

test("secrets in encoded forms (URL, form, base64 at any alignment, hex) never reach prompts, receipts, approvals, events or the database", async () => {
  const code = [
    `const e = (await tools.weather.encoded({})) as Record<string, Record<string, string>>;`,
    `console.log(JSON.stringify(e));`,
    `try { await tools.weather.failEncoded({}); } catch (err) { console.log((err as Error).message); }`,
    `await tools.weather.report({ data: e, note: "see " + e.password!.uri });`,
    `return e;`,
  ].join("\n");
  api.script([toolUseTurn({ id: "tu_2", name: "execute", input: { code } }), textTurn("Reported.")]);
  const events: GatewayEvent[] = [];
  // The operator approves whatever is asked (the approval request is one of the places checked).
  const unsubscribe = gateway.events.subscribe((e) => {
    events.push(e);
    if (e.type === "approval.requested")
      queueMicrotask(
        () => void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "terminal:test" }),
      );
  });
  const outcome = await gateway.handleMessage({ sessionKey: "secrets-encoded", surface: "terminal", text: "report" });
  unsubscribe();
  const receipts = await gateway.receipts.byRun(outcome.runIds[0]!);
  expect(receipts.map((r) => `${r.toolPath}:${r.phase}`)).toEqual([
    "weather.encoded:requested",
    "weather.encoded:started",
    "weather.encoded:succeeded",
    "weather.failEncoded:requested",
    "weather.failEncoded:started",
    "weather.failEncoded:failed",
    "weather.report:requested",
    "weather.report:approved",
    "weather.report:started",
    "weather.report:succeeded",
  ]);
  const request = events.find((e) => e.type === "approval.requested");
  expect(request?.type === "approval.requested" && JSON.parse(request.request.inputJson!).data.password.uri).toBe(
    "[redacted]",
  );

  const dataDir = join(project, ".openassistant", "data");
  const haystacks: Record<string, string> = {
    prompts: JSON.stringify(api.requests.map((r) => r.body)),
    receipts: JSON.stringify(receipts),
    approvals: JSON.stringify(await gateway.approvals.get((request as { request: { callId: string } }).request.callId)),
    events: JSON.stringify(events),
    history: JSON.stringify(
      await gateway.sessions.history((await gateway.sessions.getOrCreate("secrets-encoded", "terminal")).id),
    ),
  };
  for (const file of readdirSync(dataDir).filter((f) => f.startsWith("openassistant.sqlite")))
    haystacks[file] = readFileSync(join(dataDir, file)).toString("utf8");
  for (const secret of [PLUGIN_SECRET, PASSWORD]) {
    for (const [form, leaked] of Object.entries(encodings(secret))) {
      for (const [where, text] of Object.entries(haystacks)) {
        expect({ secret, form, where, leaked: text.includes(leaked) }).toEqual({ secret, form, where, leaked: false });
      }
    }
  }
}, 30_000);
