import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, configSecretValues, loadConfig } from "@openassistant/core/config";
import { textTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startHarness, terminalStreams, type Harness } from "../../test/harness.ts";
import { echoSurface } from "../../test/surfaces/echo/surface.ts";
import { gatewayConfigSchema, loadGatewayConfig } from "../config-schema.ts";
import { consoleApproverCheck, normalizeOperator, operatorConfigKeys } from "../console/approvers.ts";
import { configuredSections, SURFACES, surfaceCredentials, surfaceToRun } from "./registry.ts";

/** The registry with one more line: a test-only surface (apps/gateway/test/surfaces/echo/). */
const WITH_ECHO = [...SURFACES.slice(0, -1), echoSurface, ...SURFACES.slice(-1)];

function project(config: string): { cwd: string; home: string; file: string } {
  const root = makeTempDir("oa-surfaces-");
  const file = join(root, "proj", ".openassistant", "config.jsonc");
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, config);
  return { cwd: join(root, "proj"), home: join(root, "home"), file };
}

async function configError(p: Promise<unknown>): Promise<ConfigError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (e instanceof ConfigError) return e;
  throw new Error(`expected a ConfigError, got ${String(e)}`);
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a surface is one folder plus one line in the registry", () => {
  test("its config section joins the gateway's schema; errors name its file and field as core's do", async () => {
    const schema = gatewayConfigSchema(WITH_ECHO);
    const ok = project('{ "echo": { "enabled": true, "operators": ["ann"] } }');
    const loaded = await loadConfig({ cwd: ok.cwd, env: {}, homeDir: ok.home, schema });
    expect(loaded.config.echo).toEqual({ enabled: true, user: "ann", operators: ["ann"] });

    const bad = project('{\n  "echo": {\n    "operators": [""]\n  }\n}');
    const e = await configError(loadConfig({ cwd: bad.cwd, env: {}, homeDir: bad.home, schema }));
    expect([e.file, e.line, e.column, e.keyPath]).toEqual([bad.file, 3, 19, "echo.operators[0]"]);
    const typo = project('{ "echo": { "operator": [] } }');
    const u = await configError(loadConfig({ cwd: typo.cwd, env: {}, homeDir: typo.home, schema }));
    expect(u.keyPath).toBe("echo.operator");
    expect(u.message).toContain("allowed keys here: enabled, user, operators, token");

    // Not registered: the real registry does not know the key.
    const unknown = await configError(loadGatewayConfig({ cwd: ok.cwd, env: {}, homeDir: ok.home }));
    expect([unknown.file, unknown.keyPath]).toEqual([ok.file, "echo"]);
    expect(unknown.message).toContain('unknown key "echo"');
    expect(unknown.message).toContain("discord");
  });

  test("its credential is a config secret, and its section is what the gateway runs", () => {
    const config = gatewayConfigSchema(WITH_ECHO).parse({ echo: { enabled: true, token: "echo-secret-1" } });
    expect(configSecretValues(config, gatewayConfigSchema(WITH_ECHO))).toEqual(["echo-secret-1"]);
    const sections = configuredSections(config, WITH_ECHO);
    expect(Object.keys(sections)).toEqual(["echo"]);
    expect(surfaceCredentials(sections, WITH_ECHO)).toEqual(["echo-secret-1"]);
    expect(surfaceToRun(sections, "auto", WITH_ECHO).id).toBe("echo");
    expect(surfaceToRun({}, "auto", WITH_ECHO).id).toBe("terminal");
    expect(surfaceToRun(sections, "terminal", WITH_ECHO).id).toBe("terminal");
    // Disabled: not configured, so not run.
    const off = gatewayConfigSchema(WITH_ECHO).parse({ echo: { token: "x" } });
    expect(configuredSections(off, WITH_ECHO)).toEqual({});
  });

  test("the console asks the registered surfaces who is an operator", () => {
    const surfaces = { echo: { enabled: true, user: "bo", operators: ["ann"] } };
    const check = consoleApproverCheck({ http: { port: 1 }, surfaces }, WITH_ECHO);
    expect(check("ann")).toBe(true);
    expect(check("echo:ann")).toBe(true);
    expect(check("bo")).toBe(false);
    expect(normalizeOperator(" echo:ann ", WITH_ECHO)).toBe("ann");
    expect(operatorConfigKeys(WITH_ECHO)).toEqual(["discord.approvers", "echo.operators"]);
    expect(WITH_ECHO.flatMap((s) => s.doctor?.(surfaces[s.id as "echo"]) ?? []).map((c) => c.name)).toEqual([
      "discord",
      "echo",
    ]);
    // Without the line in the registry, nobody is an operator through it.
    expect(consoleApproverCheck({ http: { port: 1 }, surfaces })("ann")).toBe(false);
  });

  test("it starts with the gateway, talks through the port and keeps its own store without the database", async () => {
    h = await startHarness();
    h.api.script([textTurn("first answer"), textTurn("second answer")]);
    const io = terminalStreams();
    const section = echoSurface.configSchema!.parse({ enabled: true, user: "ann" });
    const running = await echoSurface.start({
      gateway: h.gateway,
      section,
      env: {},
      out: () => {},
      input: io.input,
      output: io.output,
      reload: async () => "",
    });
    io.send("hello");
    await io.waitFor(/#1 first answer/);
    io.send("again");
    await io.waitFor(/#2 second answer/);
    io.input.end();
    await running.done;
    const row = h.gateway.db!.query("SELECT n FROM echo_counts WHERE user = 'ann'").get() as { n: number };
    expect(row.n).toBe(2);
  });
});
