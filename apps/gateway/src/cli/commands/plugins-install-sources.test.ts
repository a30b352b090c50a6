import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startNpmRegistry, type NpmRegistry } from "@openassistant/testkit/npm-registry.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../../test/cli.ts";

// Every way docs/plugins.md names to install a plugin, each through the command `plugins list` names.
let registry: NpmRegistry;
beforeAll(async () => {
  registry = await startNpmRegistry([
    {
      name: "oa-tiny-pad",
      version: "1.2.3",
      files: { "index.js": `export default (s, n) => String(s).padStart(n, "0");` },
    },
  ]);
});
afterAll(() => registry.stop());

const env = () => ({
  BUN_CONFIG_REGISTRY: registry.url,
  NPM_CONFIG_REGISTRY: registry.url,
  BUN_INSTALL_CACHE_DIR: makeTempDir("oa-bun-cache-"),
});

/** A plugin folder whose entry imports oa-tiny-pad (declared or not) and exports `tools.pad`. */
function pluginFolder(dir: string, name: string, declared: boolean): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name,
      version: "1.0.0",
      type: "module",
      openassistant: { entry: "./index.js" },
      peerDependencies: { "@openassistant/sdk": "*" },
      peerDependenciesMeta: { "@openassistant/sdk": { optional: true } },
      ...(declared ? { dependencies: { "oa-tiny-pad": "^1.2.0" } } : {}),
    }),
  );
  writeFileSync(
    join(dir, "index.js"),
    `import { defineTool, z } from "@openassistant/sdk";\nimport pad from "oa-tiny-pad";\nexport const tools = { pad: defineTool({ description: "pad", approval: "auto", args: z.object({}), run: async () => pad(1, 3) }) };\n`,
  );
  return dir;
}

function git(cwd: string, ...args: string[]) {
  const r = Bun.spawnSync(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

describe("plugins list → the command it names → plugins install, for every kind of plugin source", () => {
  test("a plugin folder (config.plugins path and .openassistant/plugins/) with missing dependencies, a tarball and a git repository", async () => {
    const dir = makeTempDir("oa-cli-sources-");
    const e = env();
    pluginFolder(join(dir, "my-plugin"), "my-plugin", true);
    pluginFolder(join(dir, ".openassistant/plugins/ws-plugin"), "ws-plugin", true);
    const packed = pluginFolder(join(dir, "src-tar"), "oa-tar-plugin", true);
    const pack = Bun.spawnSync([process.execPath, "pm", "pack", "--quiet", "--destination", dir], { cwd: packed });
    expect(pack.exitCode).toBe(0);
    const repo = pluginFolder(join(makeTempDir("oa-git-"), "oa-git-plugin"), "oa-git-plugin", true);
    git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "plugin");
    writeFileSync(
      join(dir, ".openassistant/config.jsonc"),
      JSON.stringify({ plugins: ["./my-plugin", "./oa-tar-plugin-1.0.0.tgz", `git+file://${repo}`] }),
    );

    const before = await cli(["plugins", "list"], { cwd: dir, env: e });
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(
      "ERROR my_plugin (my-plugin/index.js): imports oa-tiny-pad, which is not installed",
    );
    expect(before.stdout).toContain('plugin "./oa-tar-plugin-1.0.0.tgz" is not installed');
    expect(before.stdout).toContain(`plugin "git+file://${repo}" is not installed`);
    expect(before.stdout.match(/fix: Run `openassistant plugins install`/g)?.length).toBe(4);

    const install = await cli(["plugins", "install"], { cwd: dir, env: e });
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);
    expect(install.stdout).toContain(
      "Installing dependencies of plugin ./my-plugin (config.plugins) in my-plugin: oa-tiny-pad",
    );
    expect(install.stdout).toContain("added oa-tar-plugin@1.0.0");
    expect(install.stdout).toContain("added oa-git-plugin@1.0.0");
    expect(install.stdout).not.toContain("up to date");

    const after = await cli(["plugins", "list"], { cwd: dir, env: e });
    expect(after.stdout).toContain("11 tools available to the model."); // 4 + the built-in tools.workspace.* and tools.schedules.*
    expect(after.code).toBe(0);
    for (const id of ["my_plugin", "ws_plugin", "oa_tar_plugin", "oa_git_plugin"])
      expect(after.stdout).toContain(`tools.${id}.pad  [auto]`);
    expect((await cli(["plugins", "install"], { cwd: dir, env: e })).stdout).toBe("Dependencies are up to date.\n");
    expect(registry.requests.filter((r) => r.includes("@openassistant"))).toEqual([]);
  }, 90_000);

  test("a plugin folder that imports a package it does not declare is told the command that declares it, and that command works", async () => {
    const dir = makeTempDir("oa-cli-undeclared-");
    const e = env();
    const plugin = pluginFolder(join(dir, "my-plugin"), "my-plugin", false);
    mkdirSync(join(dir, ".openassistant"));
    writeFileSync(join(dir, ".openassistant/config.jsonc"), `{ "plugins": ["./my-plugin"] }`);
    const before = await cli(["plugins", "list"], { cwd: dir, env: e });
    expect(before.stdout).toContain(
      "my-plugin/index.js imports oa-tiny-pad, which my-plugin/package.json does not declare, so no install can add it",
    );
    expect(before.stdout).toContain("fix: Run `bun add oa-tiny-pad` in my-plugin (it declares and installs it).");
    // Async: the registry answers from this process.
    const add = Bun.spawn([process.execPath, "add", "oa-tiny-pad"], {
      cwd: plugin,
      env: { ...process.env, ...e },
      stdout: "ignore",
      stderr: "ignore",
    });
    expect(await add.exited).toBe(0);
    const after = await cli(["plugins", "list"], { cwd: dir, env: e });
    expect(after.stdout).toContain("tools.my_plugin.pad  [auto]");
    expect(after.code).toBe(0);
    expect(registry.requests.filter((r) => r.includes("@openassistant"))).toEqual([]);
  }, 60_000);
});
