import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { ToolProgress } from "@openassistant/sdk";
import { startRawToolsMcpServer } from "@openassistant/testkit/mcp/raw-tools-server.ts";
import { indexToolTree } from "../../tools/flatten.ts";
import { McpConnection } from "./connection.ts";
import { closeMcpConnections, mcpToolTree } from "./index.ts";

// server-everything starts in a child process: seconds on a busy machine.
setDefaultTimeout(60_000);
const open: McpConnection[] = [];
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await closeMcpConnections();
});

const EVERYTHING = Bun.resolveSync(
  "@modelcontextprotocol/server-everything/dist/index.js",
  `${import.meta.dir}/../../../../testkit/src`,
);

function everything(): McpConnection {
  const c = new McpConnection("everything", {
    command: process.execPath,
    args: [EVERYTHING, "stdio"],
    allowProcess: true,
  });
  open.push(c);
  return c;
}

const ctx = (progress?: (p: ToolProgress) => void) => ({
  signal: new AbortController().signal,
  callId: "c1",
  log: console,
  ...(progress ? { progress } : {}),
});

describe("MCP as the protocol is meant (@modelcontextprotocol/server-everything over stdio)", () => {
  test("a long call's progress notifications reach ctx.progress (a progressToken is sent)", async () => {
    const c = everything();
    const tree = indexToolTree(await mcpToolTree(c, await c.listTools()));
    const long = tree.get("triggerLongRunningOperation")!;
    const reports: ToolProgress[] = [];
    const result = await long.run(
      long.args.parse({ duration: 0.3, steps: 3 }),
      ctx((p) => reports.push(p)),
    );
    // The SDK handles a notification a microtask later but a response at once: the report sent
    // right before the result may arrive after the call settled, and is then dropped.
    expect(reports.map((r) => [r.progress, r.total]).slice(0, 2)).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(String(result)).toContain("Long running operation completed");
  });

  test("a tool that requires a task (execution.taskSupport 'required') is called as one; its status is progress", async () => {
    const c = everything();
    // The server registers its task tool after initialize and announces it with tools/list_changed.
    const listed = new Promise<void>((resolve) => c.onToolsChanged(resolve));
    let tools = await c.listTools();
    if (!tools.some((t) => t.name === "simulate-research-query")) {
      await listed;
      tools = await c.listTools();
    }
    const research = indexToolTree(await mcpToolTree(c, tools)).get("simulateResearchQuery")!;
    const reports: ToolProgress[] = [];
    const result = await research.run(
      research.args.parse({ topic: "tide tables", ambiguous: false }),
      ctx((p) => reports.push(p)),
    );
    expect(String(result)).toContain("tide tables");
    expect(reports.map((r) => r.message)).toContain("Gathering sources...");
  });

  test("$resources and $prompts read what the server offers", async () => {
    const c = everything();
    const tree = indexToolTree(await mcpToolTree(c, await c.listTools(), undefined, await c.capabilities()));
    const list = tree.get("$resources.list")!;
    expect(list.approval).toBe("auto");
    expect(list.readOnly).toBe(true);
    const { resources } = (await list.run({}, ctx())) as { resources: Array<{ uri: string }> };
    expect(resources.length).toBeGreaterThan(0);
    const read = tree.get("$resources.read")!;
    const { contents } = (await read.run(read.args.parse({ uri: resources[0]!.uri }), ctx())) as {
      contents: Array<{ uri: string; text?: string }>;
    };
    expect(contents[0]!.uri).toBe(resources[0]!.uri);
    const templates = (await tree.get("$resources.templates")!.run({}, ctx())) as { resourceTemplates: unknown[] };
    expect(templates.resourceTemplates.length).toBeGreaterThan(0);
    const { prompts } = (await tree.get("$prompts.list")!.run({}, ctx())) as { prompts: Array<{ name: string }> };
    expect(prompts.map((p) => p.name)).toContain("simple-prompt");
    const get = tree.get("$prompts.get")!;
    const prompt = (await get.run(get.args.parse({ name: "simple-prompt" }), ctx())) as {
      messages: Array<{ role: string; content: { type: string; text?: string } }>;
    };
    expect(prompt.messages[0]!.role).toBe("user");
    expect(prompt.messages[0]!.content.type).toBe("text");
  });
});

describe("results a model's code can use", () => {
  test("one text item that is JSON comes back parsed; other text as it is; several items as the list", async () => {
    const server = await startRawToolsMcpServer(
      [
        { name: "json", inputSchema: { type: "object" } },
        { name: "prose", inputSchema: { type: "object" } },
        { name: "both", inputSchema: { type: "object" } },
      ],
      (name) =>
        name === "json"
          ? { content: [{ type: "text", text: ' {"issues":[{"id":7}]}' }] }
          : name === "prose"
            ? { content: [{ type: "text", text: "{not json" }] }
            : {
                content: [
                  { type: "text", text: "[1]" },
                  { type: "text", text: "two" },
                ],
              },
    );
    const c = new McpConnection("raw", { url: server.url });
    open.push(c);
    try {
      const tree = indexToolTree(await mcpToolTree(c, await c.listTools()));
      expect(await tree.get("json")!.run({}, ctx())).toEqual({ issues: [{ id: 7 }] });
      expect(await tree.get("prose")!.run({}, ctx())).toBe("{not json");
      expect(await tree.get("both")!.run({}, ctx())).toEqual([
        { type: "text", text: "[1]" },
        { type: "text", text: "two" },
      ]);
    } finally {
      await server.close();
    }
  });

  test("structuredContent that breaks the tool's outputSchema fails the call naming the problem", async () => {
    const outputSchema = {
      type: "object",
      properties: { temperature: { type: "number" } },
      required: ["temperature"],
    };
    const server = await startRawToolsMcpServer(
      [
        { name: "good", inputSchema: { type: "object" }, outputSchema },
        { name: "bad", inputSchema: { type: "object" }, outputSchema },
      ],
      (name) => ({
        content: [{ type: "text", text: "see structuredContent" }],
        structuredContent: { temperature: name === "good" ? 21.5 : "warm" },
      }),
    );
    const c = new McpConnection("weather", { url: server.url });
    open.push(c);
    try {
      const tree = indexToolTree(await mcpToolTree(c, await c.listTools()));
      expect(await tree.get("good")!.run({}, ctx())).toEqual({ temperature: 21.5 });
      await expect(tree.get("bad")!.run({}, ctx())).rejects.toThrow(
        /does not match the tool's output schema.*temperature/,
      );
    } finally {
      await server.close();
    }
  });
});
