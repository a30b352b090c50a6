/** #34: the `clients` config section reaches the gateway's settings. */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { loadGatewaySettings } from "../config-adapter.ts";

function project(config: unknown): string {
  const dir = makeTempDir("oa-clients-config-");
  mkdirSync(join(dir, ".openassistant"));
  writeFileSync(join(dir, ".openassistant", "config.jsonc"), JSON.stringify(config));
  return dir;
}

test("clients.graceSeconds sets the grace period (default 30 s); a bad value is named", async () => {
  const set = await loadGatewaySettings(project({ clients: { graceSeconds: 5 } }), {}, { tools: false });
  expect(set.settings.clients).toEqual({ graceMs: 5_000 });
  const unset = await loadGatewaySettings(project({}), {}, { tools: false });
  expect(unset.settings.clients).toEqual({ graceMs: 30_000 });
  await expect(loadGatewaySettings(project({ clients: { graceSeconds: -1 } }), {}, { tools: false })).rejects.toThrow(
    "clients.graceSeconds",
  );
});
