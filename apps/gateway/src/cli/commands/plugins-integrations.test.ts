/**
 * The bundled integrations (GitHub, PostHog) load through `plugins list` like any plugin, and their
 * config is checked against the manifest's configSchema before their code is imported: a bad value
 * is reported naming the key, the file and line, and the plugin's module never runs.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../../test/cli.ts";

const INTEGRATIONS = resolve(import.meta.dir, "../../../../../integrations");
const TOKEN = "ghp_pluginsListSecret0123456789abcdef";
const PH_KEY = "phx_pluginsListSecret0123456789";

/**
 * A copy of an integration whose entry, when imported, leaves a marker file: the proof of whether
 * `plugins list` ran the plugin's code. Its dependencies are the original's (a symlinked node_modules).
 */
function markedCopy(dir: string, name: string): { path: string; marker: string } {
  const path = join(dir, "plugins", name);
  mkdirSync(path, { recursive: true });
  for (const f of ["src", "openassistant.json", "package.json"])
    cpSync(join(INTEGRATIONS, name, f), join(path, f), { recursive: true });
  symlinkSync(join(INTEGRATIONS, name, "node_modules"), join(path, "node_modules"));
  const marker = join(dir, `${name}.imported`);
  appendFileSync(join(path, "src/index.ts"), `\nawait Bun.write(${JSON.stringify(marker)}, "imported");\n`);
  return { path, marker };
}

function project(config: { github: Record<string, string>; posthog: Record<string, string> }) {
  const dir = makeTempDir("oa-cli-integrations-");
  const github = markedCopy(dir, "github");
  const posthog = markedCopy(dir, "posthog");
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(
    join(dir, ".openassistant/config.jsonc"),
    `{\n  "plugins": [${JSON.stringify(github.path)}, ${JSON.stringify(posthog.path)}],\n  "config": {\n    "github": ${JSON.stringify(config.github)},\n    "posthog": ${JSON.stringify(config.posthog)}\n  }\n}\n`,
  );
  return { dir, github, posthog };
}

const env = { GITHUB_TOKEN: TOKEN, PH_KEY };

describe("plugins list with the GitHub and PostHog integrations (real subprocesses)", () => {
  test("both load with a valid config and list their tools with their approval modes", async () => {
    const p = project({
      github: { token: "${GITHUB_TOKEN}", defaultRepo: "acme/app" },
      posthog: { personalApiKey: "${PH_KEY}", projectId: "4242" },
    });
    const r = await cli(["plugins", "list"], { cwd: p.dir, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^github +plugin +loaded/m);
    expect(r.stdout).toMatch(/^posthog +plugin +loaded/m);
    for (const line of [
      "tools.github.issues.list  [auto]",
      "tools.github.issues.comment  [required]",
      "tools.github.issues.setState  [required]",
      "tools.posthog.alerts.create  [required]",
      "tools.posthog.query.hogql  [auto]",
      "tools.posthog.events.capture  [required]",
    ])
      expect(r.stdout).toContain(line);
    // 15 (GitHub gained checks.status and releases.create for #32's release ability) + the built-in tools.workspace.* and tools.schedules.*
    expect(r.stdout).toContain("22 tools available to the model.");
    // Loaded means imported: the markers prove the check below is able to see an import.
    expect(existsSync(p.github.marker)).toBe(true);
    expect(existsSync(p.posthog.marker)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(r.stdout + r.stderr).not.toContain(PH_KEY);
  }, 30_000);

  test("a bad value is reported with its key, file and line, and the plugin's code is never imported", async () => {
    const p = project({
      github: { token: "${GITHUB_TOKEN}", defaultRepo: "not a repo" },
      posthog: { personalApiKey: "${PH_KEY}", projectId: "project-42" },
    });
    const r = await cli(["plugins", "list"], { cwd: p.dir, env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^github +plugin +error/m);
    expect(r.stdout).toMatch(/^posthog +plugin +error/m);
    expect(r.stdout).toMatch(
      /ERROR github \(\.openassistant\/config\.jsonc:4:\d+\): config for plugin "github" is invalid: config\.github\.defaultRepo: must match pattern/,
    );
    expect(r.stdout).toMatch(
      /ERROR posthog \(\.openassistant\/config\.jsonc:5:\d+\): config for plugin "posthog" is invalid: config\.posthog\.projectId: must match pattern "\^\[0-9\]\+\$"/,
    );
    expect(r.stdout).toContain("fix: Fix config.posthog in .openassistant/config.jsonc");
    expect(existsSync(p.github.marker)).toBe(false);
    expect(existsSync(p.posthog.marker)).toBe(false);
    // A missing required key is caught the same way.
    const missing = project({ github: {}, posthog: { personalApiKey: "${PH_KEY}", projectId: "1" } });
    const r2 = await cli(["plugins", "list"], { cwd: missing.dir, env });
    expect(r2.stdout).toMatch(/config\.github.*token/);
    expect(existsSync(missing.github.marker)).toBe(false);
    expect(existsSync(missing.posthog.marker)).toBe(true);
  }, 30_000);
});
