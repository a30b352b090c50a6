import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "@openassistant/sdk";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startMcpHttpServer, type TestMcpHttpServer } from "@openassistant/testkit/mcp/http-server.ts";
import { startNpmRegistry, type NpmRegistry } from "@openassistant/testkit/npm-registry.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli, startGatewayProcess } from "../../test/cli.ts";

// The README's path from an empty folder, step by step as the docs state them: `init`, a tool, an npm
// plugin in config.plugins + `plugins install`, an MCP server (mcp.servers) and an OpenAPI spec
// (openapi.<name>, spec relative to the project root), `plugins list`, then one turn using all four.
let registry: NpmRegistry;
let mcp: TestMcpHttpServer;
let petApi: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  registry = await startNpmRegistry([
    {
      name: "oa-hello-plugin",
      version: "1.0.0",
      files: {
        "index.js": `import { defineTool, z } from "@openassistant/sdk";\nexport const tools = { hi: defineTool({ description: "Say hi", approval: "auto", args: z.object({}), run: async () => "hi from npm" }) };\n`,
      },
      packageJson: {
        openassistant: { entry: "./index.js" },
        peerDependencies: { "@openassistant/sdk": "*" },
        peerDependenciesMeta: { "@openassistant/sdk": { optional: true } },
      },
    },
  ]);
  mcp = await startMcpHttpServer((s) =>
    s.registerTool(
      "lookup-user",
      { description: "Find a user", inputSchema: { email: z.string() }, annotations: { readOnlyHint: true } },
      async ({ email }) => ({ content: [{ type: "text", text: `user ${email}` }] }),
    ),
  );
  petApi = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => Response.json({ path: new URL(req.url).pathname, name: "Rex" }),
  });
});
afterAll(async () => {
  registry.stop();
  await mcp.close();
  petApi.stop(true);
});

test("empty folder → a tool, an npm plugin, an MCP server and an OpenAPI spec, used in one turn", async () => {
  const dir = makeTempDir("oa-empty-folder-");
  const env = {
    BUN_CONFIG_REGISTRY: registry.url,
    NPM_CONFIG_REGISTRY: registry.url,
    BUN_INSTALL_CACHE_DIR: makeTempDir("oa-bun-cache-"),
  };
  expect((await cli(["init"], { cwd: dir, env })).code).toBe(0);
  const config = join(dir, ".openassistant/config.jsonc");
  writeFileSync(
    join(dir, "petstore.json"),
    JSON.stringify({
      openapi: "3.0.3",
      info: { title: "Pets", version: "1" },
      paths: {
        "/pets/{id}": {
          get: {
            operationId: "getPet",
            summary: "Get a pet",
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    }),
  );
  // Edited the way the template's comments say: plugins, then the mcp and openapi sections.
  writeFileSync(
    config,
    readFileSync(config, "utf8").replace(
      `"plugins": [],`,
      `"plugins": ["oa-hello-plugin@^1"],\n  "mcp": { "servers": { "users": { "url": "${mcp.url}" } } },\n  "openapi": { "petstore": { "spec": "petstore.json", "baseUrl": "http://127.0.0.1:${petApi.port}" } },`,
    ),
  );
  const before = await cli(["plugins", "list"], { cwd: dir, env });
  expect(before.stdout).toContain("fix: Run `openassistant plugins install`");
  const install = await cli(["plugins", "install"], { cwd: dir, env });
  expect(install.stdout).toContain("Installed oa-hello-plugin@1.0.0.");
  const list = await cli(["plugins", "list"], { cwd: dir, env });
  for (const tool of [
    "tools.clock  [auto]",
    "tools.oa_hello_plugin.hi  [auto]",
    "tools.users.lookupUser  [auto]",
    "tools.petstore.getPet  [auto]",
  ])
    expect(list.stdout).toContain(tool);
  expect(list.code).toBe(0);

  const api = await startFakeAnthropic();
  api.script([
    toolUseTurn({
      id: "toolu_1",
      name: "execute",
      input: {
        code: `return [typeof (await tools.clock({})), await tools.oa_hello_plugin.hi({}), await tools.users.lookupUser({ email: "a@b.c" }), await tools.petstore.getPet({ id: "7" })];`,
      },
    }),
    (req) => textTurn(`RESULT ${JSON.stringify(req.body.messages.at(-1))}`),
  ]);
  const { proc, out } = startGatewayProcess({ cwd: dir, apiUrl: api.url, env });
  try {
    await out.waitFor(/Ready in \d+ ms/, 20_000);
    proc.stdin.write("use every tool\n");
    await out.waitFor(/RESULT/, 20_000);
    for (const seen of ["hi from npm", "user a@b.c", "/pets/7", "Rex"]) expect(out.text).toContain(seen);
    expect(out.text).toMatch(/✅ petstore\.getPet succeeded/);
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  } finally {
    proc.kill();
    await api.close();
  }
}, 90_000);
