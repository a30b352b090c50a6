import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startNpmRegistry, type NpmRegistry } from "@openassistant/testkit/npm-registry.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../../test/cli.ts";

// A real `bun add` against a local registry (tarballs made with `bun pm pack`): no network needed.
let registry: NpmRegistry;
beforeAll(async () => {
  registry = await startNpmRegistry([
    {
      name: "oa-tiny-pad",
      version: "1.2.3",
      files: { "index.js": `export default (s, n) => String(s).padStart(n, "0");` },
    },
    {
      name: "oa-hello-plugin",
      version: "1.0.0",
      files: {
        "index.js": `import { defineTool, z } from "@openassistant/sdk";\nexport const tools = { hi: defineTool({ description: "Say hi", approval: "auto", args: z.object({}), run: async () => "hi" }) };\n`,
      },
      packageJson: { openassistant: { entry: "./index.js" }, peerDependencies: { "@openassistant/sdk": "*" } },
    },
  ]);
});
afterAll(() => registry.stop());

describe("plugins list → the one command → plugins install (real subprocesses)", () => {
  test("a tool's npm import and an npm plugin: list names the fix, install installs, list is clean; failures are one line per tool", async () => {
    const dir = makeTempDir("oa-cli-install-");
    // Own package cache: the local registry's tarballs must not mix with the user's ~/.bun cache.
    const env = {
      BUN_CONFIG_REGISTRY: registry.url,
      NPM_CONFIG_REGISTRY: registry.url,
      BUN_INSTALL_CACHE_DIR: makeTempDir("oa-bun-cache-"),
    };
    mkdirSync(join(dir, ".openassistant/tools"), { recursive: true });
    writeFileSync(join(dir, ".openassistant/config.jsonc"), `{ "plugins": ["oa-hello-plugin@^1"] }`);
    const tool = (pkg: string) =>
      `import { defineTool, z } from "@openassistant/sdk";\nimport pad from "${pkg}";\nexport default defineTool({ description: "pad", approval: "auto", args: z.object({}), run: async () => pad(1, 3) });\n`;
    writeFileSync(join(dir, ".openassistant/tools/pad.ts"), tool("oa-tiny-pad"));

    const before = await cli(["plugins", "list"], { cwd: dir, env });
    expect(before.code).toBe(1);
    expect(before.stdout).toContain("imports oa-tiny-pad, which is not installed");
    expect(before.stdout).toContain("fix: Run `openassistant plugins install`");
    expect(before.stdout).toContain('plugin package "oa-hello-plugin" is not installed');
    // From another directory the command names the project.
    const elsewhere = await cli(["plugins", "list", "--project", dir], { cwd: makeTempDir("oa-cli-elsewhere-"), env });
    expect(elsewhere.stdout).toContain(`fix: Run \`openassistant plugins install --project ${dir}\``);

    const install = await cli(["plugins", "install"], { cwd: dir, env });
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);
    expect(install.stdout).toContain(
      "Installing oa-tiny-pad (imported by tools/pad.ts) into .openassistant/package.json",
    );
    expect(install.stdout).toContain("Installing plugin oa-hello-plugin@^1 (config.plugins) into .openassistant");
    expect(install.stdout).toContain("Installed oa-tiny-pad@1.2.3, oa-hello-plugin@1.0.0.");
    expect(JSON.parse(readFileSync(join(dir, ".openassistant/package.json"), "utf8")).dependencies).toEqual({
      "oa-hello-plugin": "1.0.0",
      "oa-tiny-pad": "1.2.3",
    });

    const after = await cli(["plugins", "list"], { cwd: dir, env });
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/oa_hello_plugin +plugin +loaded +npm/);
    expect(after.stdout).toMatch(/pad +tool +loaded/);
    expect((await cli(["plugins", "install"], { cwd: dir, env })).stdout).toBe("Dependencies are up to date.\n");

    writeFileSync(join(dir, ".openassistant/tools/typo.ts"), tool("oa-tiny-padd"));
    const failed = await cli(["plugins", "install"], { cwd: dir, env });
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim().split("\n")).toEqual([
      'ERROR .openassistant/tools/typo.ts: imports oa-tiny-padd, which could not be installed: "oa-tiny-padd" is not on the npm registry (404)',
      expect.stringContaining("  fix: Fix the import or the package name/version"),
    ]);
    expect(registry.requests.filter((r) => r.includes("@openassistant"))).toEqual([]);
  }, 60_000);
});
