import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "@openassistant/sdk";
import { startFakeAnthropic, type FakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startMcpHttpServer, type TestMcpHttpServer } from "@openassistant/testkit/mcp/http-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";

// `plugins list` and `doctor` with an MCP server configured: they report it and exit (an open MCP
// connection kept both running forever; cli() kills a process after 15 s, which fails the exit code).
let mcp: TestMcpHttpServer;
let api: FakeAnthropic;
beforeAll(async () => {
  mcp = await startMcpHttpServer((s) =>
    s.registerTool(
      "lookup-user",
      { description: "Find a user", inputSchema: { email: z.string() }, annotations: { readOnlyHint: true } },
      async ({ email }) => ({ content: [{ type: "text", text: email }] }),
    ),
  );
  api = await startFakeAnthropic();
});
afterAll(async () => {
  await mcp.close();
  await api.close();
});

test("plugins list and doctor list an MCP server's and an OpenAPI spec's tools, then exit", async () => {
  const dir = makeTempDir("oa-cli-sources-");
  mkdirSync(join(dir, ".openassistant"));
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
  writeFileSync(
    join(dir, ".openassistant/config.jsonc"),
    JSON.stringify({
      mcp: { servers: { users: { url: mcp.url } } },
      openapi: { petstore: { spec: "petstore.json", baseUrl: "http://127.0.0.1:9" } },
    }),
  );
  const list = await cli(["plugins", "list"], { cwd: dir });
  expect(list.stdout).toContain("tools.users.lookupUser  [auto]  Find a user");
  expect(list.stdout).toContain("tools.petstore.getPet  [auto]  Get a pet");
  expect(list.code).toBe(0);
  const doctor = await cli(["doctor"], {
    cwd: dir,
    env: { ANTHROPIC_API_KEY: "sk-ant-api03-doctor-test-0000000000", OPENASSISTANT_ANTHROPIC_BASE_URL: api.url },
  });
  expect(doctor.stdout).toContain("✓ tools: 9 loaded");
  expect(doctor.code).toBe(0);
}, 40_000);
