import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadAbilities } from "@openassistant/core/abilities";
import type { LoadEntry } from "@openassistant/core/plugins";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { pluginAbilityDirs } from "./gateway-abilities.ts";

const ability = (name: string, description: string) => `name: ${name}
description: ${description}
steps:
  - { id: say, type: tool, tool: chat.post, input: { text: hi } }
`;

function put(dir: string, name: string, text: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "ability.yaml"), text);
}

test("a loaded plugin ships abilities in its abilities/ folder; the workspace's own win a name, with a warning", async () => {
  const root = makeTempDir("oa-plugin-abilities-");
  const workspace = join(root, ".openassistant", "abilities");
  const plugin = join(root, "node_modules", "acme-release");
  put(workspace, "greet", ability("greet", "the workspace's greet"));
  put(join(plugin, "abilities"), "greet", ability("greet", "the plugin's greet"));
  put(join(plugin, "abilities"), "ship", ability("ship", "the plugin's ship"));
  const entry = (over: Partial<LoadEntry>): LoadEntry => ({
    id: "acme_release",
    kind: "plugin",
    source: plugin,
    origin: "npm" as LoadEntry["origin"],
    status: "loaded",
    tools: [],
    ...over,
  });
  const dirs = pluginAbilityDirs([
    entry({}),
    entry({ id: "broken", source: join(root, "broken"), status: "error" }),
    entry({ id: "clock", kind: "tool", source: join(root, "clock.ts") }),
  ]);
  expect(dirs).toEqual([join(plugin, "abilities")]);
  const loaded = await loadAbilities([workspace, ...dirs]);
  expect([...loaded.abilities.keys()].sort()).toEqual(["greet", "ship"]);
  expect(loaded.abilities.get("greet")!.description).toBe("the workspace's greet");
  expect(loaded.abilities.get("ship")!.source).toBe(join(plugin, "abilities", "ship", "ability.yaml"));
  expect(loaded.diagnostics.map((d) => [d.level, d.message])).toEqual([
    [
      "warning",
      `ability "greet" is defined already by ${join(workspace, "greet", "ability.yaml")}; this one is ignored`,
    ],
  ]);
});
