import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { indexToolTree } from "../tools/flatten.ts";
import { createToolRegistry, type LoadedSnapshot } from "./index.ts";
import { createSecretRegistry } from "../receipts/secret-registry.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";

const run = (s: LoadedSnapshot, path: string) => indexToolTree(s.tree).get(path)!.run({});

describe("tool registry reload", () => {
  test("reload picks up an edited tool and its helper; unchanged tools are not re-imported; old snapshots keep working", async () => {
    const p = tempProject({
      ".openassistant/tools/greet.ts": `${SDK_IMPORT}\nimport { word } from "./_lib/word.ts";\nexport default defineTool({ description: "greet v1", approval: "auto", args: z.object({}), run: async () => word() + " v1" });`,
      ".openassistant/tools/_lib/word.ts": `export const word = () => "hello";`,
      ".openassistant/tools/counter.ts": `${SDK_IMPORT}\n(globalThis as any).__oaCounterImports = ((globalThis as any).__oaCounterImports ?? 0) + 1;\nexport default defineTool({ description: "counter", approval: "auto", args: z.object({}), run: async () => 1 });`,
    });
    const reg = createToolRegistry({ ...p.opts, autoInstall: false });
    const first = await reg.ready;
    expect(first.version).toBe(1);
    expect(await run(first, "greet")).toBe("hello v1");
    const imports = (globalThis as { __oaCounterImports?: number }).__oaCounterImports;

    p.write(
      ".openassistant/tools/greet.ts",
      `${SDK_IMPORT}\nimport { word } from "./_lib/word.ts";\nexport default defineTool({ description: "greet v2", approval: "required", args: z.object({}), run: async () => word() + " v2" });`,
    );
    const second = await reg.reload();
    expect(second.version).toBe(2);
    expect(reg.current()).toBe(second);
    expect(await run(second, "greet")).toBe("hello v2");
    expect(second.entries.find((e) => e.id === "greet")!.tools[0]!.approval).toBe("required");
    expect(second.declarations!.hash).not.toBe(first.declarations!.hash);
    // counter.ts did not change, so it was reused, not imported again.
    expect((globalThis as { __oaCounterImports?: number }).__oaCounterImports).toBe(imports!);

    p.write(".openassistant/tools/_lib/word.ts", `export const word = () => "hi";`);
    const third = await reg.reload();
    expect(await run(third, "greet")).toBe("hi v2");
    // A helper (non-tool file under tools/) changed: every tool of that dir is re-imported.
    expect((globalThis as { __oaCounterImports?: number }).__oaCounterImports).toBe(imports! + 1);

    // A run that started on the first snapshot still sees the first version.
    expect(await run(first, "greet")).toBe("hello v1");
    expect(Object.isFrozen(first)).toBe(true);
  });

  test("a broken edit keeps the previous version of that tool live and reports it; fixing it clears the diagnostic", async () => {
    const p = tempProject({
      ".openassistant/tools/weather.ts": toolSource("weather", "auto", `"sunny"`),
      ".openassistant/tools/other.ts": toolSource("other"),
    });
    const reg = createToolRegistry({ ...p.opts, autoInstall: false });
    await reg.ready;
    p.write(
      ".openassistant/tools/weather.ts",
      `${SDK_IMPORT}\nexport default defineTool({ description: "weather", approval: "auto", args: z.object({}), run: async () => { return ( } });`,
    );
    const broken = await reg.reload();
    expect(await run(broken, "weather")).toBe("sunny");
    const entry = broken.entries.find((e) => e.id === "weather")!;
    expect(entry).toMatchObject({ status: "loaded", stale: true });
    const d = broken.diagnostics.find((x) => x.id === "weather")!;
    expect(d.level).toBe("error");
    expect(d.message).toContain("previous version stays active");
    expect(d.source).toBe(join(p.ws, "tools/weather.ts"));

    p.write(
      ".openassistant/tools/weather.ts",
      `${SDK_IMPORT}\nexport default defineTool({ description: "", approval: "auto", args: z.object({}), run: async () => 1 });`,
    );
    const stillBroken = await reg.reload();
    expect(await run(stillBroken, "weather")).toBe("sunny");
    expect(stillBroken.diagnostics.find((x) => x.id === "weather")!.message).toContain(
      '"description" must be a non-empty string',
    );

    p.write(".openassistant/tools/weather.ts", toolSource("weather", "auto", `"rainy"`));
    const fixed = await reg.reload();
    expect(await run(fixed, "weather")).toBe("rainy");
    expect(fixed.diagnostics).toEqual([]);
    expect(fixed.entries.find((e) => e.id === "weather")!.stale).toBeUndefined();
  });

  test("an invalid config on reload keeps the previous snapshot's tools and reports the config error", async () => {
    const p = tempProject({ ".openassistant/tools/a.ts": toolSource("a"), ".openassistant/config.json": `{}` });
    const reg = createToolRegistry({ ...p.opts, autoInstall: false });
    await reg.ready;
    p.write(".openassistant/config.json", `{ "tools": { "a": "nope" } }`);
    const s = await reg.reload();
    expect(Object.keys(s.tree)).toEqual(["a"]);
    expect(s.diagnostics[0]).toMatchObject({ level: "error", id: "config", line: 1 });
    expect(s.diagnostics[0]!.message).toContain("tools.a");
  });

  test("watch(): writing a new tool file and editing one produce new snapshots; subscribe sees them", async () => {
    const p = tempProject({ ".openassistant/tools/a.ts": toolSource("a", "auto", `"a1"`) });
    const reg = createToolRegistry({ ...p.opts, autoInstall: false });
    await reg.ready;
    const seen: number[] = [];
    reg.subscribe((s) => seen.push(s.version));
    const stop = reg.watch({ debounceMs: 50 });
    await Bun.sleep(50);
    const waitFor = async (pred: (s: LoadedSnapshot) => boolean | Promise<boolean>) => {
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline) {
        if (await pred(reg.current())) return;
        await Bun.sleep(10);
      }
      throw new Error("timed out waiting for reload");
    };
    writeFileSync(join(p.ws, "tools/b.ts"), toolSource("b"));
    await waitFor((s) => "b" in s.tree);
    writeFileSync(join(p.ws, "tools/a.ts"), toolSource("a", "auto", `"a2"`));
    await waitFor(async (s) => (await run(s, "a")) === "a2");
    stop();
    expect(seen.length).toBeGreaterThanOrEqual(2);
  });

  test("a configSchema with an $id survives reloads (it failed as 'already exists' on the second load)", async () => {
    const p = tempProject({
      ".openassistant/plugins/sid/package.json": JSON.stringify({
        name: "sid",
        type: "module",
        openassistant: { entry: "./index.ts" },
      }),
      ".openassistant/plugins/sid/openassistant.json": JSON.stringify({
        id: "sid",
        configSchema: { $id: "https://example.com/sid.json", type: "object" },
      }),
      ".openassistant/plugins/sid/index.ts": `${SDK_IMPORT}\nexport default () => ({ x: defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => 1 }) });`,
    });
    const reg = createToolRegistry({ ...p.opts, autoInstall: false });
    expect((await reg.ready).diagnostics).toEqual([]);
    p.write(
      ".openassistant/plugins/sid/index.ts",
      `${SDK_IMPORT}\nexport default () => ({ y: defineTool({ description: "y", approval: "auto", args: z.object({}), run: async () => 2 }) });`,
    );
    const second = await reg.reload();
    expect(second.diagnostics).toEqual([]);
    expect(second.entries[0]!.tools.map((t) => t.path)).toEqual(["sid.y"]);
  });

  test("a plugin's package.json or manifest saved half-way keeps the previous version live (two-step write)", async () => {
    const pkgJson = JSON.stringify({ name: "my-plugin", type: "module", openassistant: { entry: "./index.ts" } });
    const manifest = JSON.stringify({ id: "posthog", name: "PostHog" });
    const p = tempProject({
      ".openassistant/plugins/my-plugin/package.json": pkgJson,
      ".openassistant/plugins/my-plugin/openassistant.json": manifest,
      ".openassistant/plugins/my-plugin/index.ts": `${SDK_IMPORT}\nexport default () => ({ hits: defineTool({ description: "hits", approval: "auto", args: z.object({}), run: async () => 7 }) });`,
    });
    const reg = createToolRegistry({ ...p.opts, autoInstall: false });
    await reg.ready;
    for (const [file, text] of [
      ["package.json", pkgJson],
      ["openassistant.json", manifest],
    ] as const) {
      const path = join(p.ws, "plugins/my-plugin", file);
      writeFileSync(path, text.slice(0, Math.floor(text.length / 2)));
      const half = await reg.reload();
      const entry = half.entries.find((e) => e.source === join(p.ws, "plugins/my-plugin"))!;
      expect(entry.id).toBe("posthog");
      expect(entry.status).toBe("loaded");
      expect(entry.stale).toBe(true);
      expect(await run(half, "posthog.hits")).toBe(7);
      const d = half.diagnostics.find((x) => x.level === "error")!;
      expect(d.source).toBe(path);
      expect(d.message).toContain(`cannot parse ${file}`);
      expect(d.message).toContain("previous version stays active");
      writeFileSync(path, text);
      const whole = await reg.reload();
      expect(whole.diagnostics).toEqual([]);
      expect(whole.entries[0]!.stale).toBeUndefined();
    }
  });
});

describe("a reload re-reads the config", () => {
  test("its ${VAR} values and credential fields reach the redactor before tools load; a start-only key is named as needing a restart", async () => {
    const p = tempProject(
      { ".openassistant/tools/clock.ts": toolSource("clock"), ".openassistant/config.jsonc": `{}` },
      { REGION_FROM_ENV: "eu-north-secret-region", MAIL_TOKEN: "literal-mail-token-7731" },
    );
    const secrets = createSecretRegistry();
    const reg = createToolRegistry({ ...p.opts, autoInstall: false, secrets });
    await reg.ready;
    p.write(
      ".openassistant/config.jsonc",
      `{\n  "model": { "name": "claude-opus-5" },\n  "config": { "clock": { "region": "\${REGION_FROM_ENV}", "token": "literal-mail-token-7731" } }\n}\n`,
    );
    const after = await reg.reload();
    const redacted = secrets.redact("region eu-north-secret-region, token literal-mail-token-7731");
    expect(redacted).not.toContain("eu-north-secret-region");
    expect(redacted).not.toContain("literal-mail-token-7731");
    const restart = after.diagnostics.filter((d) => d.message.includes("applies after a restart"));
    expect(restart.map((d) => [d.level, d.message, d.line])).toEqual([
      [
        "warning",
        "model.name changed: it applies after a restart; the running gateway keeps the value it started with",
        2,
      ],
    ]);
  });
});
