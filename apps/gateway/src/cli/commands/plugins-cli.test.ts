import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";

const MAIN = join(import.meta.dir, "..", "main.ts");

async function cli(args: string[], cwd: string) {
  const proc = Bun.spawn(["bun", MAIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH!, HOME: cwd, OPENASSISTANT_CONFIG_DIR: join(cwd, "global-config"), NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

describe("init / tools create / plugins list (real subprocesses)", () => {
  test("init scaffolds a commented config and an example; tools create; plugins list shows them", async () => {
    const dir = makeTempDir("oa-cli-plugins-");
    const init = await cli(["init"], dir);
    expect(init.code).toBe(0);
    const config = readFileSync(join(dir, ".openassistant/config.jsonc"), "utf8");
    expect(config).toContain("// Plugin packages");
    expect(existsSync(join(dir, ".openassistant/tools/clock.ts"))).toBe(true);

    const created = await cli(["tools", "create", "github-issues", "--approval", "required"], dir);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("tools.github_issues");
    expect((await cli(["tools", "create", "github-issues"], dir)).stderr).toContain("already exists");

    const list = await cli(["plugins", "list"], dir);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/clock\s+tool\s+loaded\s+project\s+\.openassistant\/tools\/clock\.ts/);
    expect(list.stdout).toContain("tools.github_issues  [required]");

    writeFileSync(join(dir, ".openassistant/tools/broken.ts"), `export const nothing = 1;`);
    const json = await cli(["plugins", "list", "--json"], dir);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.entries.map((e: { id: string; status: string }) => `${e.id}:${e.status}`)).toEqual([
      "broken:error",
      "clock:loaded",
      "github_issues:loaded",
      "workspace:loaded", // the gateway's own tools.workspace.*, listed as start counts them
      "schedules:loaded", // #33: the gateway's own tools.schedules.*
    ]);
    expect(parsed.diagnostics[0]).toMatchObject({ level: "error", id: "broken" });
    expect(parsed.diagnostics[0].hint).toContain("export default defineTool");
  }, 20_000);

  test("--project overrides the cwd; unknown flags and bad names are errors; config errors name the position", async () => {
    const dir = makeTempDir("oa-cli-plugins-");
    expect((await cli(["init", "--project", "sub"], dir)).code).toBe(0);
    expect(existsSync(join(dir, "sub/.openassistant/config.jsonc"))).toBe(true);
    const bad = await cli(["plugins", "list", "--jsn"], dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Unknown option "--jsn"');
    expect((await cli(["tools", "create", "9lives", "--project", "sub"], dir)).stderr).toContain(
      "not a valid tool name",
    );
    writeFileSync(join(dir, "sub/.openassistant/config.jsonc"), `{\n  "toolz": {}\n}`);
    const cfg = await cli(["plugins", "list", "--project", "sub"], dir);
    expect(cfg.code).toBe(1);
    expect(cfg.stderr).toContain("config.jsonc:2:3: toolz: unknown key");
  }, 20_000);
});
