import { describe, expect, test } from "bun:test";
import { definePlugin, defineTool, isPluginDefinition, ToolDefinitionError, z } from "./index.ts";

describe("definePlugin", () => {
  test("returns a frozen plugin definition whose tools see a typed config", async () => {
    const plugin = definePlugin({
      config: z.object({ host: z.string().default("https://example.test"), retries: z.number().int() }),
      tools: (ctx) => ({
        ping: defineTool({
          description: "Ping",
          approval: "auto",
          args: z.object({}),
          // ctx.config.retries is a number: the compiler knows it from the schema.
          run: async () => ({ host: ctx.config.host.toUpperCase(), next: ctx.config.retries + 1 }),
        }),
      }),
    });
    expect(isPluginDefinition(plugin)).toBe(true);
    expect(Object.isFrozen(plugin)).toBe(true);
    const config = plugin.config!.parse({ retries: 2 });
    const tree = await plugin.tools({ id: "p", config, dataDir: "/tmp/p", logger: console as never });
    const ping = tree.ping as { run: (i: object) => Promise<unknown> };
    expect(await ping.run({})).toEqual({ host: "HTTPS://EXAMPLE.TEST", next: 3 });
  });

  test.each([
    ["options", null, /"options" must be an object/],
    ["config", { config: { type: "object" }, tools: () => ({}) }, /"config" must be a zod object schema/],
    ["tools", { tools: {} }, /"tools" must be a function \(ctx\) =>/],
  ])("rejects a bad %s with a message naming the field", (_field, options, message) => {
    expect(() => definePlugin(options as never)).toThrow(message);
    expect(() => definePlugin(options as never)).toThrow(ToolDefinitionError);
  });

  test("a tool's run receives the call context as its second argument", async () => {
    const seen: string[] = [];
    const tool = defineTool({
      description: "Context",
      approval: "auto",
      args: z.object({}),
      run: async (_input, ctx) => {
        seen.push(ctx.callId, String(ctx.signal.aborted));
        return ctx.sessionId;
      },
    });
    const out = await tool.run(
      {},
      { signal: new AbortController().signal, callId: "call_1", sessionId: "s1", log: console },
    );
    expect(out).toBe("s1");
    expect(seen).toEqual(["call_1", "false"]);
  });
});
