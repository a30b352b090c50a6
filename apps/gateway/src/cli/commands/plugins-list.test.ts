import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { registerSdkModule } from "@openassistant/core/testing";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../../test/cli.ts";
import { effectiveApproval } from "./plugins.ts";

const tree = (dir: string): string[] =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((f) => `${f}:${statSync(join(dir, f)).isDirectory() ? "dir" : statSync(join(dir, f)).size}`);

describe("plugins list / tools create (real subprocesses)", () => {
  test("a scaffolded tool is live at once and its run fails with TODO until implemented; the message says so", async () => {
    const dir = makeTempDir("oa-cli-list-");
    const created = await cli(["tools", "create", "weather"], { cwd: dir });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      'It is live at once as tools.weather(...); until you fill in description, args and run, calls fail with "TODO: implement weather".',
    );
    registerSdkModule();
    const mod = await import(join(dir, ".openassistant/tools/weather.ts"));
    expect(mod.default.approval).toBe("auto");
    await expect(mod.default.run({ text: "x" })).rejects.toThrow("TODO: implement weather");
  });

  test("listing is side-effect free and shows the effective approval after policy rules", async () => {
    const dir = makeTempDir("oa-cli-list-");
    const ws = join(dir, ".openassistant");
    mkdirSync(join(ws, "tools"), { recursive: true });
    const tool = (name: string, approval: string) =>
      `import { defineTool, z } from "@openassistant/sdk";\nexport const ${name} = defineTool({ description: "${name}", approval: "${approval}", args: z.object({}), run: async () => 1 });\n`;
    writeFileSync(
      join(ws, "tools/notes.ts"),
      tool("add", "required") + tool("list", "auto") + tool("remove", "required"),
    );
    writeFileSync(join(ws, "tools/pad.ts"), `import pad from "not-installed-pkg-oa";\n${tool("pad", "auto")}`);
    writeFileSync(
      join(ws, "config.jsonc"),
      `{ "policy": { "rules": [ { "match": "notes.list", "mode": "deny" }, { "match": "notes.add", "mode": "auto" }, { "match": "notes.remove", "mode": "required" } ] }, "tools": { "noets": false } }`,
    );
    const before = tree(dir);
    const r = await cli(["plugins", "list"], { cwd: dir });
    expect(tree(dir)).toEqual(before); // no package.json, node_modules or data dir written
    expect(r.stdout).toContain("tools.notes.list  [auto → deny by policy]");
    expect(r.stdout).toContain("tools.notes.add  [required → auto by policy]");
    expect(r.stdout).toContain("tools.notes.remove  [required]  ");
    expect(r.stdout).toContain("imports not-installed-pkg-oa, which is not installed");
    expect(r.stdout).toContain("fix: Run `openassistant plugins install` (listing never installs anything");
    expect(r.stdout).toMatch(
      /WARNING config \(\.openassistant\/config\.jsonc:1:\d+\): tools\["noets"\]: matches no tool or plugin, so it has no effect; did you mean "notes"\?/,
    );
    expect(r.code).toBe(1);
  }, 20_000);

  test("effectiveApproval", () => {
    expect(effectiveApproval("a.b", "auto", [])).toBe("auto");
    expect(effectiveApproval("a.b", "auto", [{ match: "a.*", mode: "deny" }])).toBe("auto → deny by policy");
    expect(effectiveApproval("a.b", "required", [{ match: "a.**", mode: "required" }])).toBe("required");
  });
});
