import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startNpmRegistry, type NpmRegistry } from "@openassistant/testkit/npm-registry.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli, MAIN, startGatewayProcess } from "../../test/cli.ts";

const REPO = resolve(import.meta.dir, "../../../..");
const TSC = join(REPO, "node_modules/.bin/tsc");

// Offline: `bun add` resolves the tool's import from a local registry (tarballs made with `bun pm pack`).
let registry: NpmRegistry;
beforeAll(async () => {
  registry = await startNpmRegistry([
    {
      name: "oa-tiny-pad",
      version: "1.2.3",
      files: {
        "index.js": `export default (s, n) => String(s).padStart(n, "0");`,
        "index.d.ts": `export default function pad(s: unknown, n: number): string;`,
      },
      packageJson: { types: "index.d.ts" },
    },
  ]);
});
afterAll(() => registry.stop());

async function run(cmd: string[], cwd: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, {
    cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, NO_COLOR: "1", ...env },
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

describe("a project outside the repo, from an empty folder", () => {
  test("init, a tool importing an npm package with no package.json, start uses it in a turn; tsc --noEmit passes", async () => {
    const dir = makeTempDir("oa-outside-");
    // Own package cache: the local registry's tarballs must not mix with the user's ~/.bun cache.
    const registryEnv = {
      BUN_CONFIG_REGISTRY: registry.url,
      NPM_CONFIG_REGISTRY: registry.url,
      BUN_INSTALL_CACHE_DIR: makeTempDir("oa-bun-cache-"),
    };
    const init = await cli(["init"], { cwd: dir });
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("created .openassistant/tsconfig.json");
    writeFileSync(
      join(dir, ".openassistant/tools/pad.ts"),
      `import { defineTool, z } from "@openassistant/sdk";
import pad from "oa-tiny-pad";

export default defineTool({
  description: "Zero-pad a number",
  approval: "auto",
  args: z.object({ n: z.number(), width: z.number().default(4) }),
  run: async ({ n, width }) => pad(n, width),
});
`,
    );
    expect(existsSync(join(dir, ".openassistant/package.json"))).toBe(false);

    const api = await startFakeAnthropic();
    api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.pad({ n: 42 });" } }),
      textTurn("Padded: 0042."),
    ]);
    const gw = startGatewayProcess({ cwd: dir, apiUrl: api.url, env: registryEnv });
    const killer = setTimeout(() => gw.proc.kill("SIGKILL"), 50_000);
    try {
      await gw.out.waitFor(/Ready in \d+ ms/, 45_000);
      gw.proc.stdin.write("pad 42 please\n");
      await gw.out.waitFor(/Padded: 0042\./, 20_000);
      gw.proc.stdin.end();
      expect(await gw.proc.exited).toBe(0);
    } finally {
      clearTimeout(killer);
      await api.close();
    }
    const output = gw.out.text + gw.err.text;
    expect(output).toContain("Installing oa-tiny-pad (imported by tools/pad.ts)");
    expect(output).toContain("added oa-tiny-pad@1.2.3");
    expect(output).toMatch(/tools\.pad +auto +Zero-pad a number/);
    const toolResult = JSON.stringify(api.messageRequests()[1]!.body);
    expect(toolResult).toContain("0042");
    // Paths are absolute or relative to the user's cwd, never to the gateway's checkout.
    expect(output).not.toContain(REPO);
    expect(output).not.toMatch(/apps\/gateway|packages\/(sdk|core)/);
    const pkg = JSON.parse(readFileSync(join(dir, ".openassistant/package.json"), "utf8"));
    expect(pkg.dependencies).toEqual({ "oa-tiny-pad": "1.2.3" });
    expect(existsSync(join(dir, ".openassistant/bun.lock"))).toBe(true);
    expect(registry.requests.filter((r) => r.includes("@openassistant"))).toEqual([]);

    const tsc = await run([TSC, "--noEmit", "-p", ".openassistant"], dir);
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
    // …and it catches a real type error in a tool.
    writeFileSync(
      join(dir, ".openassistant/tools/bad.ts"),
      `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "x", approval: "sometimes", args: z.object({}), run: async () => 1 });\n`,
    );
    const bad = await run([TSC, "--noEmit", "-p", ".openassistant"], dir);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toContain("tools/bad.ts");

    const list = await cli(["plugins", "list"], { cwd: dir });
    expect(list.stdout).toMatch(/pad +tool +loaded +project +\.openassistant\/tools\/pad\.ts/);
  }, 120_000);

  test("`bun link` puts `openassistant` on PATH; it works on a project anywhere; main.ts is executable", async () => {
    expect(statSync(MAIN).mode & 0o111).not.toBe(0);
    const bunInstall = makeTempDir("oa-bun-link-");
    const link = await run([process.execPath, "link"], join(REPO, "apps/gateway"), { BUN_INSTALL: bunInstall });
    expect(link.code).toBe(0);
    const bin = join(bunInstall, "bin");
    expect(existsSync(join(bin, "openassistant"))).toBe(true);
    const project = makeTempDir("oa-linked-");
    const env = { PATH: `${bin}:${process.env.PATH}`, OPENASSISTANT_CONFIG_DIR: join(project, "config") };
    const init = await run(["openassistant", "init"], project, env);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("created .openassistant/config.jsonc");
    const list = await run(["openassistant", "plugins", "list"], join(project, ".openassistant"), env);
    expect(list.code).toBe(0);
    // Run from inside .openassistant/: paths are relative to where the user is.
    expect(list.stdout).toMatch(/clock +tool +loaded +project +tools\/clock\.ts/);
    const viaScript = await run([process.execPath, "run", "openassistant", "--help"], REPO);
    expect(viaScript.code).toBe(0);
    expect(viaScript.stdout).toContain("openassistant");
  }, 60_000);
});
