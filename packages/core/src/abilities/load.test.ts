import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { loadAbilities } from "./load.ts";

const GOOD = (name: string) => `name: ${name}
description: Say hello
steps:
  - id: say
    type: tool
    tool: chat.post
    input: { text: hi }
`;

function put(dir: string, folder: string, file: string, text: string): void {
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, file), text);
}

test("a folder of abilities: YAML and defineAbility load; each broken one gives one diagnostic naming its file, the others still load", async () => {
  const dir = join(makeTempDir("oa-abilities-load-"), "abilities");
  put(dir, "hello", "ability.yaml", GOOD("hello"));
  put(
    dir,
    "greet",
    "ability.ts",
    `import { defineAbility, z } from "@openassistant/sdk";
export default defineAbility({
  name: "greet",
  description: "Greet someone",
  inputs: z.object({ who: z.string() }),
  steps: [{ id: "say", type: "tool", tool: "chat.post", input: { text: "hi {{inputs.who}}" } }],
});
`,
  );
  put(dir, "typo", "ability.yaml", GOOD("typo").replace("type: tool", "type: toool"));
  put(dir, "renamed", "ability.yaml", GOOD("other"));
  put(dir, "throws", "ability.ts", `throw new Error("boom");\n`);
  put(dir, "wrong-export", "ability.ts", `export default { name: "wrong-export" };\n`);
  put(dir, "empty", "README.md", "no ability here");

  const loaded = await loadAbilities([dir, join(dir, "missing")]);
  expect([...loaded.abilities.keys()].sort()).toEqual(["greet", "hello"]);
  expect(loaded.abilities.get("greet")!.inputSchema.safeParse({ who: "ann" }).success).toBe(true);
  const bySource = new Map<string, string[]>();
  for (const d of loaded.diagnostics) bySource.set(d.source, [...(bySource.get(d.source) ?? []), d.message]);
  expect([...bySource.keys()].sort()).toEqual(
    ["renamed/ability.yaml", "throws/ability.ts", "typo/ability.yaml", "wrong-export/ability.ts"].map((f) =>
      join(dir, f),
    ),
  );
  for (const messages of bySource.values()) expect(messages).toHaveLength(1);
  expect(bySource.get(join(dir, "typo/ability.yaml"))![0]).toContain("step type must be one of");
  expect(bySource.get(join(dir, "renamed/ability.yaml"))![0]).toContain(
    'name "other" is not its folder\'s name "renamed"',
  );
  expect(bySource.get(join(dir, "throws/ability.ts"))![0]).toContain("cannot be imported: boom");
  expect(loaded.diagnostics.find((d) => d.source.endsWith("typo/ability.yaml"))).toMatchObject({ line: 5, column: 5 });
});
