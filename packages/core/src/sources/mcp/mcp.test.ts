import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { z } from "zod";
import { startMcpHttpServer } from "@openassistant/testkit/mcp/http-server.ts";
import { generateDeclarations } from "../../codemode/declarations.ts";
import { createToolRegistry, loadTools } from "../../plugins/index.ts";
import { tempProject } from "../../../test/plugin-fixtures.ts";
import { indexToolTree } from "../../tools/flatten.ts";
import { closeMcpConnections } from "./index.ts";

// server-everything starts in a child process: seconds on a busy machine.
setDefaultTimeout(60_000);
afterAll(() => closeMcpConnections());

const EVERYTHING = Bun.resolveSync(
  "@modelcontextprotocol/server-everything/dist/index.js",
  `${import.meta.dir}/../../../../testkit/src`,
);
const ctx = () => ({ signal: new AbortController().signal, callId: "c1", log: console });

describe("an MCP server over stdio (@modelcontextprotocol/server-everything)", () => {
  test("its tools are typed from inputSchema, approval follows readOnlyHint, results come back", async () => {
    process.env.OA_MCP_TEST_SECRET = "must-not-reach-the-mcp-server";
    const p = tempProject({
      ".openassistant/config.json": JSON.stringify({
        mcp: {
          servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], allowProcess: true } },
        },
      }),
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(r.diagnostics.filter((d) => d.level === "error")).toEqual([]);
    const tools = Object.fromEntries(
      r.entries.find((e) => e.id === "everything")!.tools.map((t) => [t.path, t.approval]),
    );
    expect(tools["everything.getSum"]).toBe("auto");
    expect(tools["everything.echo"]).toBe("auto");
    expect(tools["everything.gzipFileAsResource"]).toBe("required");
    const decl = generateDeclarations(r.tree).text;
    expect(decl).toMatch(/getSum\(input: \{[\s\S]*\/\*\* First number \*\/[\s\S]*a: number;/);
    const index = indexToolTree(r.tree);
    const sum = index.get("everything.getSum")!;
    expect(sum.args.safeParse({ a: 1 }).success).toBe(false); // validated before the call
    // One text item comes back as its text (JSON text would come back parsed).
    expect(await sum.run(sum.args.parse({ a: 2, b: 3 }), ctx())).toBe("The sum of 2 and 3 is 5.");
    const structured = index.get("everything.getStructuredContent")!;
    expect(await structured.run(structured.args.parse({ location: "Chicago" }), ctx())).toMatchObject({
      temperature: expect.any(Number),
    });
    // The server process gets PATH and its configured env, never the gateway's environment.
    const env = index.get("everything.getEnv")!;
    expect(JSON.stringify(await env.run(env.args.parse({}), ctx()))).not.toContain("must-not-reach-the-mcp-server");
  });

  test("without allowProcess nothing is started: one diagnostic says how to allow it", async () => {
    const p = tempProject({
      ".openassistant/config.json": JSON.stringify({
        mcp: { servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } },
      }),
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    const d = r.diagnostics.find((x) => x.id === "everything");
    expect(d?.level).toBe("error");
    expect(d?.message).toContain('set "allowProcess": true');
  });

  test("a server that cannot start is a diagnostic, not a dead loader", async () => {
    const p = tempProject({
      ".openassistant/config.json": JSON.stringify({
        mcp: { servers: { ghost: { command: "/nonexistent/mcp-server", allowProcess: true } } },
      }),
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(r.diagnostics.find((x) => x.id === "ghost")?.message).toContain('could not connect to MCP server "ghost"');
  });
});

describe("an MCP server over streamable HTTP", () => {
  test("headers with ${VAR} reach the server; tools/list_changed reloads the registry", async () => {
    const server = await startMcpHttpServer(
      (s) => {
        s.registerTool(
          "lookup-user",
          {
            description: "Find a user",
            inputSchema: { email: z.string().describe("Email address") },
            annotations: { readOnlyHint: true, idempotentHint: true },
          },
          async ({ email }) => ({
            content: [{ type: "text", text: email }],
            structuredContent: { id: 7, email },
          }),
        );
      },
      { requireHeader: ["authorization", "Bearer mcp-token-1234"] },
    );
    try {
      const p = tempProject(
        {
          ".openassistant/config.json": JSON.stringify({
            mcp: { servers: { users: { url: server.url, headers: { authorization: "Bearer ${MCP_TOKEN}" } } } },
          }),
        },
        { MCP_TOKEN: "mcp-token-1234" },
      );
      const registry = createToolRegistry({ ...p.opts, autoInstall: false });
      const first = await registry.ready;
      const lookup = indexToolTree(first.tree).get("users.lookupUser")!;
      expect(lookup.approval).toBe("auto");
      expect(lookup.readOnly).toBe(true);
      expect(lookup.idempotent).toBe(true); // idempotentHint
      expect(await lookup.run(lookup.args.parse({ email: "a@b.c" }), ctx())).toEqual({ id: 7, email: "a@b.c" });

      const changed = new Promise<void>((resolve) =>
        registry.subscribe((s) => indexToolTree(s.tree).has("users.deleteUser") && resolve()),
      );
      server.servers[0]!.registerTool(
        "delete-user",
        { description: "Delete a user", inputSchema: { id: z.number() } },
        async ({ id }) => ({ content: [{ type: "text", text: `deleted ${id}` }] }),
      );
      await changed;
      expect(indexToolTree(registry.current().tree).get("users.deleteUser")!.approval).toBe("required"); // no readOnlyHint
      expect(indexToolTree(registry.current().tree).get("users.deleteUser")!.readOnly).toBe(false);
      expect(indexToolTree(registry.current().tree).get("users.deleteUser")!.idempotent).toBe(false); // no idempotentHint
    } finally {
      await server.close();
    }
  });
});
