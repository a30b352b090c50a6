/**
 * Every way a tool call can be made passes the plugins' hooks (issue #29): one test per path —
 * a dropped .ts file, a folder plugin, an MCP tool, an OpenAPI operation, a built-in workspace
 * tool, `$search` / `$describe`, calls inside Promise.all — on a real gateway loading a real
 * project, the hook plugin itself a dropped .ts file that reports to a webhook on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "@openassistant/sdk";
import { closeMcpConnections } from "@openassistant/core/testing";
import { flattenToolTree } from "@openassistant/core/tools";
import {
  type FakeAnthropic,
  startFakeAnthropic,
  textTurn,
  toolUseTurn,
} from "@openassistant/testkit/anthropic/fake-server.ts";
import { startMcpHttpServer, type TestMcpHttpServer } from "@openassistant/testkit/mcp/http-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { lastToolResult, startProjectGateway } from "../../test/harness.ts";
import type { Gateway } from "../gateway.ts";
import { CriticalPluginError } from "./gateway-hooks.ts";

setDefaultTimeout(60_000);

/** The hook plugin: reports each call to the webhook before and after; denies `{ text: "forbidden" }`. */
const WATCH = `
import { definePlugin, z } from "@openassistant/sdk";
export default definePlugin({
  config: z.object({ url: z.string() }),
  hooks: (ctx) => {
    const post = (body: unknown) => fetch(ctx.config.url, { method: "POST", body: JSON.stringify(body) });
    return {
      tool: {
        before: async (call) => {
          await post({ hook: "before", path: call.path });
          const text = call.input.text;
          return text === "forbidden" ? { deny: "forbidden text" } : undefined;
        },
        after: async (call, outcome) => {
          await post({ hook: "after", path: call.path, status: outcome.status });
        },
      },
      chat: { message: (m) => ({ context: "The user's favourite colour is teal (" + m.text.length + " chars)." }) },
      prompt: { system: () => "Always sign answers with WATCHED." },
      run: {
        start: async (run) => void (await post({ hook: "run.start", path: run.runId })),
        end: async (run) => void (await post({ hook: "run.end", path: run.runId, status: run.ok + ":" + run.calls })),
      },
      approval: {
        decided: async (e) => void (await post({ hook: "approval.decided", path: e.toolPath, status: e.decision + ":" + e.by })),
      },
      gateway: {
        start: async () => void (await post({ hook: "gateway.start", path: "" })),
        stop: async () => void (await post({ hook: "gateway.stop", path: "" })),
      },
    };
  },
});
`;

const NOTES = `
import { defineTool, z } from "@openassistant/sdk";
export const add = defineTool({
  description: "Add a note", approval: "auto", args: z.object({ text: z.string() }), run: async ({ text }) => ({ added: text }),
});
`;

const FOLDER_PLUGIN = `
import { definePlugin, defineTool, z } from "@openassistant/sdk";
export default definePlugin({
  tools: () => ({ ping: defineTool({ description: "Ping the folder plugin", approval: "auto", args: z.object({}), run: async () => "pong" }) }),
});
`;

const PETS = {
  openapi: "3.0.3",
  info: { title: "Pets", version: "1" },
  paths: {
    "/pets": {
      get: { operationId: "pets/list", summary: "List pets", responses: { "200": { description: "ok" } } },
    },
  },
};

let api: FakeAnthropic;
let mcp: TestMcpHttpServer;
let petsServer: ReturnType<typeof Bun.serve>;
let webhook: ReturnType<typeof Bun.serve>;
let gateway: Gateway;
type Post = { hook: string; path: string; status?: string };
const posts: Post[] = [];
let posted: () => void = () => {};

beforeAll(async () => {
  webhook = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      posts.push((await req.json()) as Post);
      posted();
      return new Response("ok");
    },
  });
  petsServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json([{ name: "Rex" }]) });
  mcp = await startMcpHttpServer((s) => {
    s.registerTool("echo", { description: "Echo a text", inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: "text", text }],
    }));
  });
  api = await startFakeAnthropic();
  const dir = makeTempDir("oa-hooks-e2e-");
  const ws = join(dir, ".openassistant");
  mkdirSync(join(ws, "tools"), { recursive: true });
  mkdirSync(join(ws, "plugins", "folderplug"), { recursive: true });
  writeFileSync(join(ws, "tools", "watch.ts"), WATCH);
  writeFileSync(join(ws, "tools", "notes.ts"), NOTES);
  writeFileSync(
    join(ws, "plugins", "folderplug", "package.json"),
    JSON.stringify({ name: "folderplug", type: "module", openassistant: { entry: "./index.ts" } }),
  );
  writeFileSync(join(ws, "plugins", "folderplug", "index.ts"), FOLDER_PLUGIN);
  writeFileSync(join(dir, "pets.json"), JSON.stringify(PETS));
  writeFileSync(
    join(ws, "config.json"),
    JSON.stringify({
      // Discovery mode: the model reaches tools through $search / $describe too.
      model: { toolPromptTokens: 1 },
      config: { watch: { url: `http://127.0.0.1:${webhook.port}/audit`, critical: true } },
      mcp: { servers: { mcpecho: { url: mcp.url } } },
      openapi: { pets: { spec: "pets.json", baseUrl: `http://127.0.0.1:${petsServer.port}` } },
    }),
  );
  gateway = await startProjectGateway(dir, api.url);
  // MCP and OpenAPI tools that may change something ask first: the operator approves each.
  gateway.approvals.subscribe((e) => {
    if (e.type === "requested") void gateway.approvals.decide(e.request.callId, { decision: "approved", by: "op" });
  });
});

afterAll(async () => {
  await gateway?.shutdown();
  closeMcpConnections();
  await api?.close();
  await mcp?.close();
  petsServer?.stop(true);
  webhook?.stop(true);
});

let turn = 0;
/** One turn whose code is `code`; returns the tool result the model got and the hook posts it caused. */
async function runCode(code: string) {
  posts.length = 0;
  turn++;
  api.script([toolUseTurn({ id: `toolu_${turn}`, name: "execute", input: { code } }), textTurn("done")]);
  const out = await gateway.handleMessage({
    sessionKey: `hooks-${turn}`,
    surface: "terminal",
    text: "go",
    userId: "ann",
  });
  const body = api.messageRequests().at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
  const toolHooks = posts.filter((p) => p.hook === "before" || p.hook === "after");
  return { result: lastToolResult(body), posts: toolHooks, runIds: out.runIds };
}

describe("every call path passes the hooks", () => {
  test("the project loaded every source, with the hook plugin registered; gateway.start ran once it was ready", () => {
    expect(posts).toEqual([{ hook: "gateway.start", path: "" }]);
    const paths = flattenToolTree(gateway.tools().tree).map((t) => t.path);
    for (const p of ["notes.add", "folderplug.ping", "mcpecho.echo", "workspace.listTools", "$search", "$describe"])
      expect(paths).toContain(p);
    expect(paths.some((p) => p.startsWith("pets."))).toBe(true);
    expect(gateway.tools().entries?.find((e) => e.id === "watch")?.hooks).toEqual({
      priority: 0,
      events: [
        "tool.before",
        "tool.after",
        "chat.message",
        "prompt.system",
        "run.start",
        "run.end",
        "approval.decided",
        "gateway.start",
        "gateway.stop",
      ],
    });
  });

  const paths: [string, string, string][] = [
    ["a dropped .ts file", "notes.add", `return await tools.notes.add({ text: "milk" });`],
    ["a folder plugin", "folderplug.ping", "return await tools.folderplug.ping({});"],
    ["an MCP tool", "mcpecho.echo", `return await tools.mcpecho.echo({ text: "hi" });`],
    ["a built-in workspace tool", "workspace.listTools", "return await tools.workspace.listTools({});"],
    ["$search", "$search", `return await tools.$search({ query: "note" });`],
    ["$describe", "$describe", `return await tools.$describe({ path: "notes.add" });`],
  ];
  for (const [what, path, code] of paths)
    test(`${what}: ${path} passes tool.before and tool.after`, async () => {
      const { result, posts } = await runCode(code);
      expect(result.is_error).not.toBe(true);
      expect(posts).toEqual([
        { hook: "before", path },
        { hook: "after", path, status: "succeeded" },
      ]);
    });

  test("an OpenAPI operation passes tool.before and tool.after", async () => {
    const path = flattenToolTree(gateway.tools().tree)
      .map((t) => t.path)
      .find((p) => p.startsWith("pets."))!;
    const { result, posts } = await runCode(`return await tools.${path}({});`);
    expect(result.is_error).not.toBe(true);
    expect(posts).toEqual([
      { hook: "before", path },
      { hook: "after", path, status: "succeeded" },
    ]);
  });

  test("calls inside Promise.all each pass the hooks; a denied one is denied by the plugin", async () => {
    // `posts` here is the webhook's live list: the denied call's tool.after may post after the turn.
    const { result } = await runCode(
      [
        "const [a, b, c] = await Promise.allSettled([",
        '  tools.notes.add({ text: "one" }),',
        '  tools.mcpecho.echo({ text: "forbidden" }),',
        "  tools.folderplug.ping({}),",
        "]);",
        "return [a.status, b.status === 'rejected' ? String(b.reason) : 'ran', c.status];",
      ].join("\n"),
    );
    expect(result.content).toContain("denied by plugin watch: forbidden text");
    const seen = (hook: string) =>
      posts
        .filter((p) => p.hook === hook)
        .map((p) => p.path)
        .sort();
    expect(seen("before")).toEqual(["folderplug.ping", "mcpecho.echo", "notes.add"]);
    // The denied call's tool.after observes it without holding the run: wait for its post.
    while (seen("after").length < 3) await new Promise<void>((resolve) => (posted = resolve));
    expect(posts.find((p) => p.hook === "after" && p.path === "mcpecho.echo")?.status).toBe("denied");
  });

  test("the model's code cannot find a hook: $search knows only tools", async () => {
    const { result } = await runCode(`return await tools.$search({ query: "watch hook before after audit" });`);
    expect(result.is_error).not.toBe(true);
    expect(result.content).not.toContain("watch");
  });

  test("run.start and run.end observe each run, approval.decided each decision", async () => {
    const { runIds } = await runCode(`return await tools.mcpecho.echo({ text: "approve me" });`);
    const [runId] = runIds;
    const ended = () => posts.some((p) => p.hook === "run.end" && p.path === runId);
    while (!ended()) await new Promise<void>((resolve) => (posted = resolve));
    // An earlier run's run.end (not awaited by its turn) may land here too: only this run's count.
    const ofThisRun = posts.filter((p) => p.path === runId || p.hook === "approval.decided");
    expect(ofThisRun).toEqual([
      { hook: "run.start", path: runId! },
      { hook: "approval.decided", path: "mcpecho.echo", status: "approved:op" },
      { hook: "run.end", path: runId!, status: "true:1" },
    ]);
  });

  test("chat.message adds context and prompt.system appends to the system prompt the model gets", async () => {
    await runCode("return 1;");
    const system = JSON.stringify(api.messageRequests().at(-1)!.body.system);
    expect(system).toContain("Context from plugin watch:");
    expect(system).toContain("favourite colour is teal (2 chars)");
    expect(system).toContain("Always sign answers with WATCHED.");
  });
});

describe("gateway.stop", () => {
  test("runs when the gateway begins to stop", async () => {
    posts.length = 0;
    await gateway.shutdown();
    expect(posts).toEqual([{ hook: "gateway.stop", path: "" }]);
  });
});

describe("a critical plugin", () => {
  test("that does not load stops the gateway from starting, naming it", async () => {
    const dir = makeTempDir("oa-hooks-critical-");
    mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
    writeFileSync(join(dir, ".openassistant", "tools", "firewall.ts"), `throw new Error("broken on purpose");`);
    writeFileSync(
      join(dir, ".openassistant", "config.json"),
      JSON.stringify({ config: { firewall: { critical: true } }, workspace: { enabled: false } }),
    );
    const start = startProjectGateway(dir, api.url);
    await expect(start).rejects.toBeInstanceOf(CriticalPluginError);
    await expect(start).rejects.toThrow(/critical plugin "firewall" did not load/);
  });
});
