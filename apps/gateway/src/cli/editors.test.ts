import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli, startGatewayProcess } from "../../test/cli.ts";

const TSC = join(import.meta.dir, "../../../../node_modules/.bin/tsc");
const TOOL = `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "Clock", approval: "auto", args: z.object({}), run: async () => "noon" });\n`;

/** A project with a tool, a disabled tool and a plugin folder named in config.plugins. */
function project(pluginSource: string): string {
  const dir = makeTempDir("oa-editors-");
  mkdirSync(join(dir, ".openassistant/tools"), { recursive: true });
  writeFileSync(join(dir, ".openassistant/tools/clock.ts"), TOOL);
  writeFileSync(join(dir, ".openassistant/tools/off.ts"), TOOL);
  mkdirSync(join(dir, "my-plugin"));
  writeFileSync(
    join(dir, "my-plugin/package.json"),
    JSON.stringify({ name: "my-plugin", type: "module", openassistant: { entry: "./index.ts" } }),
  );
  writeFileSync(join(dir, "my-plugin/index.ts"), pluginSource);
  writeFileSync(
    join(dir, ".openassistant/config.jsonc"),
    JSON.stringify({ plugins: ["./my-plugin"], tools: { off: false } }),
  );
  return dir;
}

const PLUGIN = `import { defineTool, z } from "@openassistant/sdk";
export const tools = {
  a: defineTool({ description: "a", approval: "auto", args: z.object({}), run: async () => 1 }),
  b: defineTool({ description: "b", approval: "required", args: z.object({ n: z.number() }), run: async ({ n }) => n }),
};
`;

test("plugins list and start count the same tools with the same words", async () => {
  const dir = project(PLUGIN);
  const list = await cli(["plugins", "list"], { cwd: dir });
  // clock, my_plugin.a, my_plugin.b, the built-in tools.workspace.* (4) and tools.schedules.* (3); "off" is disabled.
  expect(list.stdout).toContain("10 tools available to the model.");
  const api = await startFakeAnthropic();
  const { proc, out } = startGatewayProcess({ cwd: dir, apiUrl: api.url });
  try {
    await out.waitFor(/Ready in \d+ ms/, 20_000);
    expect(out.text).toContain("10 tools available to the model.");
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  } finally {
    proc.kill();
    await api.close();
  }
}, 30_000);

test("the generated .openassistant/tsconfig.json type-checks a plugin folder from config.plugins too", async () => {
  const dir = project(`${PLUGIN}export const wrong: number = "not a number";\n`);
  const init = await cli(["init"], { cwd: dir });
  expect(init.stdout).toContain("created .openassistant/tsconfig.json");
  const run = async () => {
    const p = Bun.spawn([TSC, "--noEmit", "-p", ".openassistant"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    const [stdout, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    return { stdout, code };
  };
  const broken = await run();
  expect(broken.stdout).toContain(
    "my-plugin/index.ts(6,14): error TS2322: Type 'string' is not assignable to type 'number'.",
  );
  expect(broken.code).toBe(2);
  writeFileSync(join(dir, "my-plugin/index.ts"), PLUGIN);
  const fixed = await run();
  expect(fixed.stdout).toBe("");
  expect(fixed.code).toBe(0);
}, 30_000);
