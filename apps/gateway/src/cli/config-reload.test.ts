import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startGatewayProcess } from "../../test/cli.ts";

test("a config change applies on reload (tools) or the gateway names the key that needs a restart (http.approvers)", async () => {
  const dir = makeTempDir("oa-cli-config-reload-");
  const ws = join(dir, ".openassistant");
  mkdirSync(join(ws, "tools"), { recursive: true });
  writeFileSync(
    join(ws, "tools", "clock.ts"),
    `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "Clock", approval: "auto", args: z.object({}), run: async () => "noon" });\n`,
  );
  const config = join(ws, "config.jsonc");
  writeFileSync(config, `{\n  "http": { "approvers": ["ann"] }\n}\n`);
  const api = await startFakeAnthropic();
  const { proc, out, err } = startGatewayProcess({ cwd: dir, apiUrl: api.url });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  try {
    await out.waitFor(/Ready in \d+ ms/);
    writeFileSync(config, `{\n  "http": { "approvers": ["ann", "bob"] },\n  "tools": { "clock": false }\n}\n`);
    // The watcher reloads: the tools key applied, the restart-only key named at its line.
    await err.waitFor(/Tools reloaded:\n {2}tools removed: tools\.clock/);
    await err.waitFor(
      /⚠ warning config \(.*config\.jsonc:2:\d+\): http\.approvers changed: it applies after a restart; the running gateway keeps the value it started with — Restart the gateway/,
    );
    proc.stdin.write("/reload\n");
    // The restart warning stays until the restart (beside the info that clock is disabled).
    await out.waitFor(/Reloaded: 7 tools, no changes; 2 problems/);
    expect(err.text).not.toContain("model.name");
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  } finally {
    clearTimeout(killer);
    proc.kill();
    await api.close();
  }
}, 30_000);
