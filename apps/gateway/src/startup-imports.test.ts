import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { jsonFromFreshProcess } from "@openassistant/testkit/fresh-process.ts";

/**
 * Start-up cost is mostly module loading (docs/CONTRIBUTING.md, "Heavy packages load on first use"): these packages are imported on first
 * use, not by the gateway's modules. Each one costs 25–250 ms to import on its own.
 */
const LAZY = [
  "@anthropic-ai/sdk", // the first model call (the gateway starts loading it right after ready)
  "@modelcontextprotocol/sdk", // the first connection to an MCP server, or `mcp login`
  "@apidevtools/swagger-parser", // an OpenAPI spec whose parse is not cached yet
  "@scalar/openapi-upgrader", // a Swagger 2.0 spec whose parse is not cached yet
  "diff", // the first write_tool preview that replaces a file
  "typescript", // the checker's own process, or a declaration-cache miss
  "discord.js", // a configured Discord token
  "effect", // the runner's Effect form (`run`); turns use `runPromise`
  "yaml", // the first ability definition read (docs/abilities.md)
  "jexl", // the first ability expression checked or evaluated
];

describe("gateway start-up imports", () => {
  test("importing the gateway loads none of the packages it only needs later", async () => {
    const script = [
      `await import(${JSON.stringify(join(import.meta.dir, "gateway.ts"))});`,
      `await import(${JSON.stringify(join(import.meta.dir, "config-adapter.ts"))});`,
      "const packages = new Set();",
      "for (const k of Object.keys(require.cache)) {",
      "  const m = /node_modules\\/(?:\\.bun\\/[^/]+\\/node_modules\\/)?((?:@[^/]+\\/)?[^/]+)/.exec(k);",
      "  if (m) packages.add(m[1]);",
      "}",
      "console.log(JSON.stringify([...packages].sort()));",
    ].join("\n");
    const loaded = await jsonFromFreshProcess<string[]>(script, { cwd: import.meta.dir });
    expect(loaded).toContain("zod"); // the probe sees packages at all
    expect(loaded.filter((p) => LAZY.includes(p))).toEqual([]);
  }, 60_000);
});
