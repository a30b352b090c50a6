/**
 * Every credential store the gateway reads, each built with its own generated secret (odd shapes
 * included: 6 characters, a leading `-`, a leading space, a non-ASCII first letter), and one turn
 * that makes all of them appear: an MCP tool and an OpenAPI operation that echo the credentials
 * they were sent, a plugin tool that reads every store and returns its values in every encoding,
 * an error message, a plugin log line and the run's console, an approval card in the fake
 * Discord, the model's reply. None of them, in any encoding, may reach the receipts (the SQLite
 * and journal bytes), the logs, what the fake Anthropic received or the fake Discord's messages.
 *
 * The table of stores is typed by CREDENTIAL_SOURCES: a new source does not compile without a case here.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CREDENTIAL_SOURCES, type CredentialSource } from "@openassistant/core/testing";
import { mcpLogin, mcpOAuthPath } from "@openassistant/core/sources";
import { closeMcpConnections } from "@openassistant/core/testing";
import { startFakeDiscord, type FakeDiscord } from "@openassistant/testkit";
import {
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
  type FakeAnthropic,
} from "@openassistant/testkit/anthropic/fake-server.ts";
import { startOAuthMcpServer, type TestOAuthMcpServer } from "@openassistant/testkit/mcp/oauth-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cardCallId, eventually, findCard } from "../../test/discord-e2e.ts";
import { openAuthStore } from "../auth/store.ts";
import { createGateway, type Gateway } from "../gateway.ts";
import { startDiscordSurface, type DiscordSurface } from "../surfaces/discord/index.ts";

/** Letters and digits only, so the odd first characters below are the only odd thing. */
const generated = (n: number) =>
  randomBytes(n * 2)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, n);

// One distinct secret per store (and per field where a store has several).
const S = {
  configVar: generated(6), // a 6-character ${VAR} value, in a field that does not look secret
  openApiKey: `oapi-${generated(24)}`,
  mcpHeader: `hdr${generated(20)}`,
  mcpEnv: ` ${generated(16)}`, // starts with a space
  mcpClientSecret: `cs${generated(20)}`,
  pluginPin: `ñ${generated(12)}`, // a non-ASCII first letter, under a key marked secret by the plugin's schema
  pluginKeyNamed: `kn${generated(18)}`, // under a key whose name says it is secret (`apiKey`)
  apiKey: `sk-ant-api03-${generated(40)}`,
  setupToken: `-${generated(30)}`, // starts with "-"
  httpToken: `oa_${generated(43)}`,
  consoleKey: randomBytes(32).toString("hex"),
  discordToken: `dsc${generated(40)}`,
};

let users: TestOAuthMcpServer;
/** Every store's secrets; the MCP ones are known only after the turn (a refresh obtains new ones). */
const STORES: Record<CredentialSource, () => string[]> = {
  "config-var": () => [S.configVar],
  "config-field": () => [S.openApiKey, S.mcpHeader, S.mcpEnv, S.mcpClientSecret],
  "plugin-secret": () => [S.pluginPin, S.pluginKeyNamed],
  "auth-profile": () => [S.apiKey, S.setupToken],
  "http-token": () => [S.httpToken],
  "console-key": () => [S.consoleKey],
  "mcp-oauth": () => [...users.issued],
  "surface-token": () => [S.discordToken],
  // Made by the gateway on its first start; read back after it.
  "receipt-key": () => [readFileSync(join(configDir, "receipts.key"), "utf8").trim()],
};

/** The forms a secret leaks in (the plugin below builds the same ones). */
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

let api: FakeAnthropic;
let fake: FakeDiscord;
let gateway: Gateway;
let surface: DiscordSurface;
let echo: ReturnType<typeof Bun.serve>;
const project = makeTempDir("oa-credentials-");
const configDir = join(project, "config");
const dataDir = join(project, ".openassistant", "data");
const logs: string[] = [];

beforeAll(async () => {
  api = await startFakeAnthropic();
  fake = await startFakeDiscord({ token: S.discordToken, heartbeatIntervalMs: 250 });
  // An MCP server behind OAuth whose tool echoes the credentials it was sent.
  users = await startOAuthMcpServer((server) => {
    const about = { description: "Who am I", inputSchema: {}, annotations: { readOnlyHint: true } };
    server.registerTool("whoami", about, async (extra) => {
      const headers = (extra as { requestInfo?: { headers?: Record<string, unknown> } }).requestInfo?.headers ?? {};
      return {
        content: [
          {
            type: "text",
            // The token alone, not "Bearer …" (a shape redacted whether registered or not).
            text: JSON.stringify({ token: String(headers.authorization).slice(7), tenant: headers["x-tenant-key"] }),
          },
        ],
      };
    });
  });
  // An OpenAPI service that echoes its API key.
  echo = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => Response.json({ key: req.headers.get("x-api-key") }),
  });

  // mcp-oauth.json: `openassistant mcp login users`, the test playing the browser.
  await mcpLogin({
    name: "users",
    serverUrl: users.url,
    oauth: {},
    configDir,
    openUrl: async (url) => {
      const approved = await fetch(url, { redirect: "manual" });
      await fetch(approved.headers.get("location")!);
    },
  });
  // auth-profiles.json: an API key (used) and a setup-token.
  const auth = openAuthStore(configDir);
  const now = new Date().toISOString();
  auth.upsert({ id: "anthropic:main", provider: "anthropic", type: "api_key", secret: S.apiKey, createdAt: now });
  auth.upsert({ id: "anthropic:spare", provider: "anthropic", type: "token", secret: S.setupToken, createdAt: now });
  // The HTTP token and the console key, as the gateway stores them.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, "http-token"), `${S.httpToken}\n`, { mode: 0o600 });
  writeFileSync(join(dataDir, "console-key"), `${S.consoleKey}\n`, { mode: 0o600 });

  const ws = join(project, ".openassistant");
  writeFileSync(
    join(ws, "shop.json"),
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Shop", version: "1" },
      paths: {
        "/whoami": { get: { operationId: "whoami", summary: "Who am I", responses: { 200: { description: "ok" } } } },
      },
    }),
  );
  writeFileSync(
    join(ws, "config.json"),
    JSON.stringify({
      // The model the suite runs against (docs/anthropic-contract.md).
      model: { name: process.env.OA_TEST_MODEL || "claude-sonnet-5-5", maxTokens: 1024 },
      config: { vault: { region: "${VAULT_REGION}", pin: S.pluginPin, apiKey: S.pluginKeyNamed } },
      openapi: {
        shop: {
          spec: ".openassistant/shop.json",
          baseUrl: echo.url.href,
          auth: { type: "header", name: "X-Api-Key", value: S.openApiKey },
        },
      },
      mcp: {
        servers: {
          users: { url: users.url, oauth: {}, headers: { "x-tenant-key": S.mcpHeader } },
          local: { command: "mcp-local", env: { LOCAL_KEY: S.mcpEnv }, allowProcess: true, enabled: false },
          other: {
            url: "http://127.0.0.1:9/mcp",
            oauth: { clientId: "other-client", clientSecret: S.mcpClientSecret },
            enabled: false,
          },
        },
      },
    }),
  );
  writePlugin(join(ws, "plugins", "vault"));

  gateway = await createGateway({
    cwd: project,
    env: { VAULT_REGION: S.configVar, OPENASSISTANT_CONFIG_DIR: configDir },
    configDir,
    log: (line) => logs.push(line),
    settings: {
      anthropic: { baseURL: api.url },
      http: { port: 0 },
      approvalTimeoutMs: 30_000,
    },
  });
  const d = fake.defaults!;
  surface = await startDiscordSurface(
    gateway,
    { token: S.discordToken, allowedUsers: [d.userId], approvers: [d.userId], guildId: d.guildId },
    { restApi: fake.apiUrl, log: (m, e) => logs.push(e === undefined ? m : `${m}: ${String(e)}`) },
  );
}, 30_000);

afterAll(async () => {
  await surface?.stop();
  await gateway?.shutdown();
  await closeMcpConnections();
  await Promise.all([api?.close(), fake?.close(), users?.close(), echo?.stop(true)]);
}, 30_000);

/** The plugin: reads every store and hands its values out, in every encoding, in results, errors and logs. */
function writePlugin(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "vault", type: "module", openassistant: { entry: "./index.ts" } }),
  );
  const known = Object.values(S);
  writeFileSync(
    join(dir, "index.ts"),
    `import { readFileSync } from "node:fs";
import { definePlugin, defineTool, z } from "@openassistant/sdk";
const encodings = ${encodings.toString()};
const files = ${JSON.stringify({
      profiles: join(configDir, "auth-profiles.json"),
      oauth: mcpOAuthPath(configDir),
      http: join(dataDir, "http-token"),
      console: join(dataDir, "console-key"),
      receipts: join(configDir, "receipts.key"),
    })};
const oauthTokens = () =>
  Object.values(JSON.parse(readFileSync(files.oauth, "utf8")).servers).flatMap((s: any) => [s.tokens?.access_token, s.tokens?.refresh_token]);
// The tokens of the login, remembered from load time (before the turn's refresh replaces them).
const atLoad = oauthTokens();
function everything(config: Record<string, string>) {
  const tokens = [...atLoad, ...oauthTokens()];
  const values = [...${JSON.stringify(known)}, readFileSync(files.receipts, "utf8").trim(), config.region, config.pin, config.apiKey, ...tokens].filter(Boolean);
  return {
    files: Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readFileSync(f, "utf8")])),
    encoded: values.map((v) => encodings(v)),
  };
}
export default definePlugin({
  config: z.object({ region: z.string(), pin: z.string().meta({ secret: true }), apiKey: z.string() }),
  tools: (ctx) => ({
    reveal: defineTool({
      description: "Returns every credential it can find",
      approval: "auto",
      args: z.object({}),
      run: async () => {
        const all = everything(ctx.config);
        ctx.logger.warn("found " + JSON.stringify(all.encoded.map((e) => e.raw)), all.encoded);
        return all;
      },
    }),
    fail: defineTool({
      description: "Fails with every credential in its message",
      approval: "auto",
      args: z.object({}),
      run: async () => {
        throw new Error("login failed: " + everything(ctx.config).encoded.map((e) => Object.values(e).join(" ")).join(" | "));
      },
    }),
    send: defineTool({
      description: "Sends data somewhere (needs approval)",
      approval: "required",
      args: z.object({ data: z.unknown(), note: z.string() }),
      run: async () => ({ sent: true }),
    }),
  }),
});
`,
  );
}

test("no credential of any store, in any encoding, reaches receipts, logs, prompts or Discord", async () => {
  expect(gateway.tools().diagnostics.filter((d) => d.level === "error")).toEqual([]);
  // The next MCP call finds its access token expired: the gateway refreshes it during the turn.
  users.expireAccessTokens();
  const issuedBefore = users.issued.length;
  const code = [
    `const mcp = await tools.users.whoami({});`,
    `const api = await tools.shop.whoami({});`,
    `const all = (await tools.vault.reveal({})) as { encoded: Array<{ raw: string }> };`,
    `console.log("everything", JSON.stringify({ mcp, api, all }));`,
    `try { await tools.vault.fail({}); } catch (e) { console.log((e as Error).message); }`,
    `await tools.vault.send({ data: { mcp, api, all }, note: all.encoded.map((e) => e.raw).join(" ") });`,
    `return { mcp, api, all };`,
  ].join("\n");
  api.script([
    toolUseTurn({ id: "tu_creds", name: "execute", input: { code } }),
    // The model repeats every secret it could know in its answer.
    () =>
      textTurn(
        `Done. ${Object.values(STORES)
          .flatMap((values) => values())
          .join(" ")}`,
      ),
  ]);
  // A listener that fails with every secret in its message: the gateway logs the failure.
  const unsubscribe = gateway.events.subscribe((e) => {
    if (e.type === "turn.finished")
      throw new Error(
        `listener saw ${Object.values(STORES)
          .flatMap((values) => values())
          .join(" ")}`,
      );
  });
  const alice = fake.defaults!.userId;
  const dm = fake.dmChannelId(alice);
  fake.sendUserMessage({ dmFrom: alice, content: "collect the credentials" });
  const card = await eventually(() => findCard(fake, dm, "vault.send"), "the approval card", 25_000);
  await gateway.approvals.decide(cardCallId(card), { decision: "approved", by: `discord:${alice}` });
  await eventually(
    () => fake.messages(dm).some((m) => m.author?.id === fake.botId && String(m.content).startsWith("Done.")),
    "the reply",
    25_000,
  );

  unsubscribe();
  expect(logs.some((l) => l.startsWith("event listener failed: listener saw"))).toBe(true);
  // Every store was registered, and the turn really handled the secrets (so a leak would show).
  expect([...gateway.secrets.sources()].sort()).toEqual([...CREDENTIAL_SOURCES].sort());
  expect(users.issued.length).toBeGreaterThan(issuedBefore); // a refresh obtained new tokens
  const run = (await gateway.receipts.query({})).filter((r) => r.phase === "succeeded" || r.phase === "failed");
  expect(run.map((r) => `${r.toolPath}:${r.phase}`).sort()).toEqual(
    [
      "shop.whoami:succeeded",
      "users.whoami:succeeded",
      "vault.fail:failed",
      "vault.reveal:succeeded",
      "vault.send:succeeded",
    ].sort(),
  );
  expect(JSON.stringify(run)).toContain("[redacted]");

  const haystacks: Record<string, string> = {
    prompts: JSON.stringify(api.requests.map((r) => r.body)),
    logs: logs.join("\n"),
    discord: JSON.stringify(fake.messages(dm)),
  };
  for (const attachment of card.attachments ?? [])
    haystacks[`card ${attachment.filename}`] = await (await fetch(attachment.url)).text();
  for (const file of readdirSync(dataDir).filter((f) => f.startsWith("openassistant.sqlite")))
    haystacks[file] = readFileSync(join(dataDir, file)).toString("utf8");
  // The receipt journal (receipts not yet folded into SQLite) and the chain heads.
  const heads = join(configDir, "receipt-heads");
  const journals = readdirSync(heads).filter((f) => f.endsWith(".journal"));
  expect(journals.length).toBe(1);
  for (const file of readdirSync(heads)) haystacks[file] = readFileSync(join(heads, file)).toString("utf8");
  expect(haystacks.logs).toContain("[redacted]"); // the plugin's log line was written, scrubbed

  const leaks: string[] = [];
  for (const [source, values] of Object.entries(STORES))
    for (const secret of values())
      for (const [form, text] of Object.entries(encodings(secret)))
        for (const [where, hay] of Object.entries(haystacks))
          if (hay.includes(text)) leaks.push(`${source} ${JSON.stringify(secret)} as ${form} in ${where}`);
  expect(leaks).toEqual([]);
}, 30_000);
