import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startGatewayProcess } from "../../test/cli.ts";

const weather = (v: string) => `import { defineTool, z } from "@openassistant/sdk";
export default defineTool({
  description: "Current weather"
  ${v === "broken" ? "" : ","}approval: "auto",
  args: z.object({ city: z.string() }),
  run: async ({ city }) => ({ city, sky: "sunny ${v}" }),
});
`;

describe("reloads in a running gateway (real subprocess, file watching on)", () => {
  test("an added tool is reported and used next turn; a broken edit prints a diagnostic and keeps the old version; /reload prints the result", async () => {
    const dir = makeTempDir("oa-cli-reload-");
    const tools = join(dir, ".openassistant", "tools");
    mkdirSync(tools, { recursive: true });
    writeFileSync(
      join(tools, "clock.ts"),
      `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "Clock", approval: "auto", args: z.object({}), run: async () => "noon" });\n`,
    );
    const api = await startFakeAnthropic();
    const call = (id: string) =>
      toolUseTurn({ id, name: "execute", input: { code: 'return await tools.weather({ city: "Oslo" });' } });
    api.script([call("toolu_1"), textTurn("It is sunny in Oslo."), call("toolu_2"), textTurn("Still sunny in Oslo.")]);
    const { proc, out, err } = startGatewayProcess({ cwd: dir, apiUrl: api.url });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
    try {
      await out.waitFor(/Ready in \d+ ms/);
      expect(out.text).not.toContain("tools.weather");

      writeFileSync(join(tools, "weather.ts"), weather("v1"));
      await err.waitFor(/Tools reloaded:\n {2}tools added: tools\.weather/);
      proc.stdin.write("weather in Oslo?\n");
      await out.waitFor(/It is sunny in Oslo\./);
      expect(JSON.stringify(api.messageRequests()[1]!.body)).toContain("sunny v1");

      writeFileSync(join(tools, "weather.ts"), weather("broken"));
      // The path and position are printed once, not repeated in the message.
      await err.waitFor(
        /⚠ error weather \(.*weather\.ts:4:3\): Expected "}" but found "approval" \(\+\d+ more\) \(the previous version stays active/,
      );
      expect(err.text).not.toContain("?v=");
      expect(err.text).not.toContain("AggregateError");
      proc.stdin.write("and now?\n");
      await out.waitFor(/Still sunny in Oslo\./);
      expect(JSON.stringify(api.messageRequests()[3]!.body)).toContain("sunny v1");

      proc.stdin.write("/reload\n");
      await out.waitFor(/Reloaded: 9 tools, no changes; 1 problem/);

      // Fixed: the gateway says so, not only when something breaks.
      writeFileSync(join(tools, "weather.ts"), weather("v2"));
      await err.waitFor(/✓ weather is fine again \(.*weather\.ts\)/);
      proc.stdin.write("/reload\n");
      await out.waitFor(/Reloaded: 9 tools, no changes\./);
      proc.stdin.end();
      expect(await proc.exited).toBe(0);
    } finally {
      clearTimeout(killer);
      proc.kill();
      await api.close();
    }
  }, 30_000);
});
