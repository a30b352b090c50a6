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
    ["tools or hooks", {}, /"tools" must be a function \(ctx\) =>/],
    ["hooks", { hooks: "before" }, /"hooks" must be an object of hooks or a function/],
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

  test("hooks are typed from the config and built from the plugin's context; a hook-only plugin has no tools", async () => {
    const plugin = definePlugin({
      config: z.object({ limit: z.number().default(100) }),
      hooks: (ctx) => ({
        priority: 5,
        tool: {
          // ctx.config.limit is a number, the call's input is unknown until checked: no casts needed.
          before: (call) => {
            const amount = call.input.amount;
            if (typeof amount === "number" && amount > ctx.config.limit)
              return { requireApproval: { title: "Large amount", summary: `${amount} > ${ctx.config.limit}` } };
            return undefined;
          },
        },
      }),
    });
    const ctx = { id: "guard", config: plugin.config!.parse({}), dataDir: "/tmp/g", logger: console };
    expect(await plugin.tools(ctx)).toEqual({});
    const hooks = await plugin.hooks!(ctx);
    expect(hooks.priority).toBe(5);
    const hookCtx = { pluginId: "guard", signal: new AbortController().signal };
    const call = { path: "pay.send", callId: "call_1", approval: "auto" as const };
    expect(await hooks.tool!.before!({ ...call, input: { amount: 500 } }, hookCtx)).toEqual({
      requireApproval: { title: "Large amount", summary: "500 > 100" },
    });
    expect(await hooks.tool!.before!({ ...call, input: { amount: 5 } }, hookCtx)).toBeUndefined();
  });

  test("hooks given as an object are served as they are", async () => {
    const after = () => ({ result: "hidden" });
    const plugin = definePlugin({ tools: () => ({}), hooks: { tool: { after } } });
    const hooks = await plugin.hooks!({ id: "p", config: {}, dataDir: "/tmp/p", logger: console });
    expect(hooks.tool?.after).toBe(after);
  });
});
