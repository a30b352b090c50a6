import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition } from "@openassistant/sdk";
import { loadTools } from "@openassistant/core/plugins";
import { startRecordingRegistry } from "@openassistant/testkit/recording-registry.ts";
import { indexToolTree } from "@openassistant/core/testing";
import { makeTempDir } from "@openassistant/testkit/temp.ts";

const PLUGIN_DIR = join(import.meta.dir, "..");
const registry = startRecordingRegistry();
afterAll(() => registry.stop());

function project(config: unknown): { root: string; opts: Parameters<typeof loadTools>[0] } {
  const root = makeTempDir("oa-calendar-");
  mkdirSync(join(root, ".openassistant"), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "cal-test", private: true }));
  writeFileSync(join(root, ".openassistant/config.jsonc"), JSON.stringify(config));
  const env = {
    PATH: process.env.PATH!,
    HOME: root,
    OPENASSISTANT_CONFIG_DIR: join(root, "global"),
    BUN_CONFIG_REGISTRY: registry.url,
    NPM_CONFIG_REGISTRY: registry.url,
  };
  return { root, opts: { cwd: root, env, homeDir: root, log: () => {} } };
}

async function tools(opts: Parameters<typeof loadTools>[0]) {
  const r = await loadTools(opts);
  const index = indexToolTree(r.tree);
  const t = (p: string) => index.get(`calendar.events.${p}`) as ToolDefinition;
  const call = (p: string, input: unknown) => t(p).run(t(p).args.parse(input));
  return { r, t, call };
}

describe("calendar plugin installed by path", () => {
  test("create / list / update / delete persist in dataDir; writes need approval", async () => {
    const { root, opts } = project({ plugins: [PLUGIN_DIR], config: { calendar: { timezone: "Europe/Oslo" } } });
    const { r, t, call } = await tools(opts);
    expect(r.diagnostics).toEqual([]);
    expect(r.entries[0]).toMatchObject({
      id: "calendar",
      kind: "plugin",
      origin: "path",
      status: "loaded",
      name: "Calendar",
    });
    expect(Object.fromEntries(r.entries[0]!.tools.map((x) => [x.path, x.approval]))).toEqual({
      "calendar.events.create": "required",
      "calendar.events.delete": "required",
      "calendar.events.list": "auto",
      "calendar.events.update": "required",
    });
    expect(t("create").previewInput!({ title: "Dentist", startsAt: "2030-01-02T09:00:00Z" })).toBe(
      "Dentist @ 2030-01-02T09:00:00Z",
    );

    const created = (await call("create", { title: "Dentist", startsAt: "2030-01-02T09:00:00Z" })) as {
      id: string;
      endsAt: string;
      local: string;
    };
    expect(created.endsAt).toBe("2030-01-02T10:00:00.000Z"); // default 60 minutes from the schema default
    expect(created.local).toContain("10:00"); // Europe/Oslo
    await call("create", { title: "Standup", startsAt: "2030-01-01T08:00:00Z", durationMinutes: 15 });
    const listed = (await call("list", { from: "2029-12-31T00:00:00Z" })) as Array<{ title: string }>;
    expect(listed.map((e) => e.title)).toEqual(["Standup", "Dentist"]);

    const updated = (await call("update", { id: created.id, startsAt: "2030-01-03T09:00:00Z" })) as {
      startsAt: string;
      endsAt: string;
    };
    expect([updated.startsAt, updated.endsAt]).toEqual(["2030-01-03T09:00:00.000Z", "2030-01-03T10:00:00.000Z"]);
    await expect(call("update", { id: "evt_nope" })).rejects.toThrow("no event with id evt_nope");

    // A fresh load (new process state) reads the same file.
    const again = await tools(opts);
    expect(((await again.call("list", { from: "2029-12-31T00:00:00Z" })) as unknown[]).length).toBe(2);
    expect(await again.call("delete", { id: created.id })).toEqual({ deleted: created.id });
    const file = join(root, ".openassistant/data/calendar/events.json");
    expect(JSON.parse(readFileSync(file, "utf8")).map((e: { title: string }) => e.title)).toEqual(["Standup"]);
  });

  test("config is validated against the manifest before the plugin runs; a bad timezone fails in the factory", async () => {
    const bad = await loadTools(
      project({
        plugins: [PLUGIN_DIR],
        config: { calendar: { timezone: "UTC", colour: "red", defaultDurationMinutes: 0 } },
      }).opts,
    );
    expect(bad.entries[0]!.status).toBe("error");
    expect(bad.diagnostics[0]!.message).toContain('config.calendar: unknown key "colour"');
    expect(bad.diagnostics[0]!.message).toContain("config.calendar.defaultDurationMinutes: must be >= 1");
    const tz = await loadTools(
      project({ plugins: [PLUGIN_DIR], config: { calendar: { timezone: "Mars/Olympus" } } }).opts,
    );
    expect(tz.diagnostics[0]!.message).toContain('"Mars/Olympus" is not an IANA time zone');
  });
});

describe("calendar plugin installed from its packed tarball with bun add", () => {
  test("bun pm pack → bun add <tgz> → config.plugins by npm name with a range; nothing is fetched from the registry", async () => {
    const { root, opts } = project({ plugins: ["openassistant-plugin-calendar@^0.1.0"], config: { calendar: {} } });
    const packDir = makeTempDir("oa-calendar-pack-");
    const pack = Bun.spawn([process.execPath, "pm", "pack", "--destination", packDir, "--quiet"], {
      cwd: PLUGIN_DIR,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [packOut, packErr] = await Promise.all([new Response(pack.stdout).text(), new Response(pack.stderr).text()]);
    expect(await pack.exited, packErr).toBe(0);
    const tgz = join(packDir, packOut.trim().split("\n").at(-1)!.split("/").at(-1)!);
    expect(existsSync(tgz)).toBe(true);

    const add = Bun.spawn([process.execPath, "add", tgz], {
      cwd: root,
      env: opts!.env as Record<string, string>,
      stdout: "pipe",
      stderr: "pipe",
    });
    const addErr = await new Response(add.stderr).text();
    expect(await add.exited, addErr).toBe(0);
    expect(registry.requests).toEqual([]);
    expect(existsSync(join(root, "node_modules/openassistant-plugin-calendar/openassistant.json"))).toBe(true);
    expect(existsSync(join(root, "node_modules/@openassistant"))).toBe(false);

    const { r, call } = await tools(opts);
    expect(r.entries[0]).toMatchObject({
      id: "calendar",
      origin: "npm",
      status: "loaded",
      specifier: "openassistant-plugin-calendar@^0.1.0",
    });
    await call("create", { title: "From tarball", startsAt: "2031-05-05T12:00:00Z" });
    expect(((await call("list", { from: "2031-01-01T00:00:00Z" })) as Array<{ title: string }>)[0]!.title).toBe(
      "From tarball",
    );
    expect(existsSync(join(root, ".openassistant/data/calendar/events.json"))).toBe(true);
  }, 30_000);
});
