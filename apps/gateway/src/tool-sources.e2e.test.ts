import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "@openassistant/sdk";
import { flattenToolTree } from "@openassistant/core/tools";
import { mcpLogin, mcpOAuthPath } from "@openassistant/core/sources";
import { closeMcpConnections } from "@openassistant/core/testing";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startFakeGitHub } from "@openassistant/testkit/github/fake-github.ts";
import { startOAuthMcpServer } from "@openassistant/testkit/mcp/oauth-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startProjectGateway } from "../test/harness.ts";

// GitHub's description is 13 MB and server-everything is a child process: seconds on a busy machine.
setDefaultTimeout(240_000);
afterAll(() => closeMcpConnections());

const EVERYTHING = Bun.resolveSync(
  "@modelcontextprotocol/server-everything/dist/index.js",
  join(import.meta.dir, "../../../packages/testkit/src"),
);
const GITHUB_SPEC = Bun.resolveSync(
  "@octokit/openapi/generated/api.github.com.json",
  join(import.meta.dir, "../../../packages/testkit/src"),
);

describe("tool sources beyond files (issue 15)", () => {
  test("an MCP server over stdio, one over HTTP behind OAuth and GitHub's OpenAPI spec: one turn calls a tool of each, approval where required, receipts for each (no token in them); the prompt switches to discovery", async () => {
    const gh = await startFakeGitHub({
      token: "ghp_e2e",
      repos: {
        "acme/app": {
          issues: [
            { number: 1, title: "Crash on start", body: null, state: "open", labels: [], comments: [], user: "ann" },
          ],
          files: {},
        },
      },
    });
    const deleted: number[] = [];
    const users = await startOAuthMcpServer((s) => {
      s.registerTool(
        "delete-user",
        { description: "Delete a user", inputSchema: { id: z.number() } },
        async ({ id }) => {
          deleted.push(id);
          return { content: [{ type: "text", text: `deleted ${id}` }] };
        },
      );
    });
    const api = await startFakeAnthropic();
    const dir = makeTempDir("oa-sources-e2e-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    const configDir = join(dir, "config");
    // `openassistant mcp login users`, the operator being the browser: the fake approves and redirects back.
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
    expect(statSync(mcpOAuthPath(configDir)).mode & 0o777).toBe(0o600);
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({
        mcp: {
          servers: {
            everything: { command: process.execPath, args: [EVERYTHING, "stdio"], allowProcess: true },
            users: { url: users.url, oauth: {} },
          },
        },
        openapi: {
          github: {
            spec: GITHUB_SPEC,
            baseUrl: gh.url,
            auth: { type: "header", name: "authorization", value: "token ${GH_TOKEN}" },
          },
        },
        workspace: { enabled: false },
      }),
    );
    const gateway = await startProjectGateway(dir, api.url, {
      GH_TOKEN: "ghp_e2e",
      OPENASSISTANT_CONFIG_DIR: configDir,
    });
    try {
      const paths = flattenToolTree(gateway.tools().tree).map((t) => t.path);
      expect(gateway.tools().diagnostics).toEqual([]);
      // Every tool of each source is listed.
      const everythingTools = paths.filter((p: string) => p.startsWith("everything."));
      expect(everythingTools.length).toBeGreaterThan(5);
      expect(everythingTools).toContain("everything.getSum");
      expect(paths.filter((p: string) => p.startsWith("users."))).toEqual(["users.deleteUser"]);
      expect(paths.filter((p: string) => p.startsWith("github.")).length).toBeGreaterThan(1000);
      expect(paths).toContain("$search");

      const asked: string[] = [];
      gateway.approvals.subscribe((e) => {
        if (e.type !== "requested") return;
        asked.push(e.request.toolPath);
        void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "operator-1" });
      });
      api.script([
        toolUseTurn({
          id: "toolu_s",
          name: "execute",
          input: { code: 'return await tools.$search({ query: "list repository issues", limit: 3 });' },
        }),
        toolUseTurn({
          id: "toolu_c",
          name: "execute",
          input: {
            code: [
              "const sum = await tools.everything.getSum({ a: 2, b: 3 });",
              'const issues = (await tools.github.issues.listForRepo({ owner: "acme", repo: "app" })) as Array<{ title: string }>;',
              "const gone = await tools.users.deleteUser({ id: 7 });",
              "return { sum, titles: issues.map((i) => i.title), gone };",
            ].join("\n"),
          },
        }),
        textTurn("2 + 3 = 5, the open issue is 'Crash on start', and user 7 was deleted."),
      ]);
      const out = await gateway.handleMessage({
        sessionKey: "s1",
        surface: "terminal",
        text: "sum 2 and 3, list acme/app issues, delete user 7",
      });

      // Discovery mode: the prompt lists namespaces instead of 1,000+ declarations.
      const first = JSON.stringify(api.messageRequests()[0]!.body.system);
      expect(first).toContain("tools.github (");
      expect(first).toContain("tools.$search");
      expect(first.length).toBeLessThan(60_000);
      expect(JSON.stringify(api.messageRequests()[1]!.body.messages)).toContain("tools.github.issues.listForRepo");

      expect(asked).toEqual(["users.deleteUser"]);
      expect(deleted).toEqual([7]);
      expect(gh.violations).toEqual([]);
      expect(gh.requests.at(-1)?.authorization).toBe("token ghp_e2e");
      const succeeded = (
        await Promise.all(out.runIds.map((r) => gateway.receipts.query({ runId: r, phase: "succeeded" })))
      )
        .flat()
        .map((r) => r.toolPath);
      expect(succeeded).toEqual(["$search", "everything.getSum", "github.issues.listForRepo", "users.deleteUser"]);
      expect(out.unverified).toBe(false);
      // The MCP call carried the OAuth access token; no token is in any receipt.
      expect(users.presented.length).toBeGreaterThan(0);
      expect(users.presented.every((t) => users.issued.includes(t))).toBe(true);
      const receipts = JSON.stringify(await Promise.all(out.runIds.map((r) => gateway.receipts.query({ runId: r }))));
      for (const t of users.issued) expect(receipts).not.toContain(t);
    } finally {
      await gateway.shutdown();
      await api.close();
      await users.close();
      await gh.close();
      expect(api.violations).toEqual([]);
    }
  });
});

describe("an OpenAPI operation whose schema cannot be a validator", () => {
  test("is one warning naming it at start and again at a warm restart (discovery on); its call still reaches the server", async () => {
    const seen: string[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => (seen.push(req.url), Response.json([{ name: "Rex" }])),
    });
    const spec = {
      openapi: "3.0.3",
      info: { title: "Pets", version: "1" },
      paths: {
        "/pets": {
          get: {
            operationId: "pets/list",
            summary: "List pets",
            // Conditional schemas have no zod validator (a pattern RE2 cannot run is a note instead).
            parameters: [{ name: "name", in: "query", schema: { type: "string", if: { minLength: 1 }, then: {} } }],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    };
    const api = await startFakeAnthropic();
    const dir = makeTempDir("oa-sources-badschema-");
    mkdirSync(join(dir, ".openassistant"), { recursive: true });
    writeFileSync(join(dir, "pets.json"), JSON.stringify(spec));
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({
        // Above this budget the prompt switches to discovery, which declares the tools a second time.
        model: { toolPromptTokens: 1 },
        openapi: { pets: { spec: "pets.json", baseUrl: `http://127.0.0.1:${server.port}` } },
        workspace: { enabled: false },
      }),
    );
    const toolWarnings = (g: Awaited<ReturnType<typeof startProjectGateway>>) =>
      g.tools().diagnostics.map((d) => [d.level, d.id, d.message]);
    const expected = [
      [
        "warning",
        "tools.pets.pets.list",
        expect.stringMatching(/its JSON Schema cannot be turned into a validator \(Conditional schemas/),
      ],
    ];
    try {
      const first = await startProjectGateway(dir, api.url);
      try {
        expect(toolWarnings(first)).toEqual(expected);
      } finally {
        await first.shutdown();
      }
      const restarted = await startProjectGateway(dir, api.url);
      try {
        expect(toolWarnings(restarted)).toEqual(expected);
        api.script([
          toolUseTurn({
            id: "toolu_p",
            name: "execute",
            input: { code: 'return await tools.pets.pets.list({ name: "Rex" });' },
          }),
          textTurn("There is one pet, Rex."),
        ]);
        const out = await restarted.handleMessage({ sessionKey: "s1", surface: "terminal", text: "list pets" });
        expect(seen).toEqual([`http://127.0.0.1:${server.port}/pets?name=Rex`]);
        const succeeded = (
          await Promise.all(out.runIds.map((r) => restarted.receipts.query({ runId: r, phase: "succeeded" })))
        ).flat();
        expect(succeeded.map((r) => r.toolPath)).toEqual(["pets.pets.list"]);
      } finally {
        await restarted.shutdown();
      }
    } finally {
      await api.close();
      server.stop(true);
      expect(api.violations).toEqual([]);
    }
  });
});
