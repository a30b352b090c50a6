import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition, ToolTree } from "@openassistant/sdk";
import { createToolRegistry, loadTools } from "../plugins/index.ts";
import type { ToolRegistry } from "../plugins/registry.ts";
import { tempProject } from "../../test/plugin-fixtures.ts";
import { FULL_DISK_PRELUDE } from "@openassistant/testkit/full-disk.ts";
import { jsonFromFreshProcess } from "@openassistant/testkit/fresh-process.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { toolHistory } from "./index.ts";
import { workspaceTools } from "./workspace-tools.ts";
import { checkToolSource, sha256Hex } from "./source-check.ts";
import { resolveToolFile } from "./tool-file.ts";

const TOOL = (
  name: string,
  body = "return { ok: true, n: input.n + 1 };",
) => `import { defineTool, z } from "@openassistant/sdk";
export default defineTool({
  description: "${name}",
  approval: "auto",
  args: z.object({ n: z.number() }),
  run: async (input) => { ${body} },
});
`;

describe("resolveToolFile: the assistant writes only top-level tool files", () => {
  const p = tempProject();
  const tools = join(p.ws, "tools");
  mkdirSync(tools, { recursive: true });
  test.each([
    ["signups.ts", true],
    ["tools/signups.ts", true],
    [".openassistant/tools/signups.ts", true],
    ["../signups.ts", false],
    ["../../etc/passwd.ts", false],
    ["/etc/signups.ts", false],
    ["sub/signups.ts", false],
    ["signups.js", false],
    ["signups.test.ts", false],
    ["signups.d.ts", false],
    [".hidden.ts", false],
    ["", false],
  ])("%s → allowed: %p", (path, ok) => {
    const r = resolveToolFile(tools, path);
    expect(r.ok).toBe(ok);
    if (r.ok) expect(r.file).toBe(join(tools, "signups.ts"));
  });
  test("a symlink in the tools folder is never written through", () => {
    writeFileSync(join(p.root, "outside.ts"), "x");
    symlinkSync(join(p.root, "outside.ts"), join(tools, "link.ts"));
    const r = resolveToolFile(tools, "link.ts");
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.problem).toContain("symbolic link");
  });
});

// Each check starts TypeScript in a child process: seconds, not milliseconds, on a busy machine.
setDefaultTimeout(120_000);

describe("checkToolSource (in a child process)", () => {
  const p = tempProject();
  const file = join(p.ws, "tools", "t.ts");
  mkdirSync(join(p.ws, "tools"), { recursive: true });

  test("a good tool passes and lists its npm packages (not installed yet: typed as any)", async () => {
    const source = `import dayjs from "dayjs";\nimport { join } from "node:path";\n${TOOL("ok", "return dayjs().add(input.n, 'day').format() + join('a', 'b');")}`;
    const r = await checkToolSource(file, source);
    expect(r.problems).toEqual([]);
    expect(r.packages).toEqual(["dayjs"]);
    expect(r.sha256).toBe(sha256Hex(source));
  });

  test("forbidden imports and non-tool exports are problems with line numbers; such a file is not compiled", async () => {
    const source = `import { defineTool, z } from "@openassistant/sdk";
import { loadTools } from "@openassistant/core";
import helper from "./helper.ts";
import { dlopen } from "bun:ffi";
export function notATool() {}
export default defineTool({
  description: "bad",
  approval: "auto",
  args: z.object({ n: z.number() }),
  run: async (input) => input.n.toUpperCase(),
});
const x = await import("fs");
`;
    const r = await checkToolSource(file, source);
    const text = r.problems.join("\n");
    expect(text).toContain('imports "@openassistant/core"');
    expect(text).toContain('imports "./helper.ts"');
    expect(text).toContain('imports "bun:ffi"');
    expect(text).toContain("line 5: export only tools");
    expect(text).toContain("line 12:17: dynamic import() is not allowed");
    // Its type error (line 10) is not reported: a file that loads what it may not is never compiled.
    expect(text).not.toMatch(/TS\d{4}/);
    // Once the imports are fixed, the type error is reported.
    const fixed = source
      .split("\n")
      .filter(
        (l) => !/^import .* from "(@openassistant\/core|\.\/helper\.ts|bun:ffi)"|^const x = await import/.test(l),
      );
    expect((await checkToolSource(file, fixed.join("\n"))).problems.join("\n")).toMatch(
      /line 7:\d+: TS2339 Property 'toUpperCase' does not exist on type 'number'/,
    );
  });

  test("a file that exports nothing, or a syntax error, is refused", async () => {
    expect((await checkToolSource(file, "const a = 1;\n")).problems).toEqual([
      "the file exports no tool: add `export default defineTool({ ... })`",
    ]);
    expect((await checkToolSource(file, `${TOOL("x")}\nlet = ;`)).problems.join("\n")).toMatch(/line 9:\d+: TS1\d+/);
  });
});

describe("workspace tools: write, load, roll back, remove, history", () => {
  function setup() {
    const p = tempProject({ ".openassistant/tools/clock.ts": TOOL("clock") });
    const tools = join(p.ws, "tools");
    const history = toolHistory(join(p.ws, "history"));
    let tree: ToolTree = {};
    const reload = async (file: string) => {
      const r = await loadTools({ ...p.opts, autoInstall: false });
      tree = r.tree;
      const entry = r.entries.find((e) => e.source === file);
      return {
        problems: r.diagnostics.filter((d) => d.source === file && d.level === "error").map((d) => d.message),
        tools: entry?.status === "loaded" ? entry.tools.map((t) => t.path) : [],
      };
    };
    const ws = indexToolTree(
      workspaceTools({ toolsDir: tools, history, install: async () => {}, reload, approverOf: () => "operator-1" }),
    );
    const validate = async (name: string, input: unknown) => {
      const t = ws.get(name) as ToolDefinition;
      const parsed = await t.args.safeParseAsync(input);
      if (!parsed.success)
        throw new Error(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
      return { t, data: parsed.data };
    };
    /** What the operator's card shows: computed after validation, before the run. */
    const previewOf = async (name: string, input: unknown) => {
      const { t, data } = await validate(name, input);
      return t.previewInput?.(data) ?? "";
    };
    const call = async (name: string, input: unknown) => {
      const { t, data } = await validate(name, input);
      const preview = t.previewInput?.(data);
      return {
        out: await t.run(data, { signal: new AbortController().signal, callId: "call_1", log: console }),
        preview,
      };
    };
    return { p, tools, history, call, previewOf, tree: () => tree };
  }

  test("writes exactly the approved source, the new tool loads and runs, history names who approved", async () => {
    const { tools, history, call, tree } = setup();
    const source = TOOL("signups");
    const { out, preview } = await call("writeTool", { path: "signups.ts", source, reason: "watch signups" });
    expect(out).toEqual({
      path: "signups.ts",
      sha256: sha256Hex(source),
      tools: ["signups"],
      installed: [],
      replaced: null,
    });
    expect(preview).toContain(`new signups.ts · sha256 ${sha256Hex(source)}`);
    expect(readFileSync(join(tools, "signups.ts"), "utf8")).toBe(source);
    expect(await (indexToolTree(tree()).get("signups") as ToolDefinition).run({ n: 1 })).toEqual({ ok: true, n: 2 });
    expect(history.list("signups.ts")).toEqual([
      expect.objectContaining({
        action: "write",
        sha256: sha256Hex(source),
        approvedBy: "operator-1",
        callId: "call_1",
        reason: "watch signups",
      }),
    ]);
  });

  test("a replacement shows the diff; a version that fails to load is rolled back and the model is told", async () => {
    const { tools, history, call, previewOf } = setup();
    const v1 = TOOL("clock");
    const v2 = `${TOOL("clock v2")}throw new Error("boom at import");\n`;
    const preview = await previewOf("writeTool", { path: "clock.ts", source: v2, reason: "v2" });
    expect(preview).toContain("replaces clock.ts");
    expect(preview).toContain('+throw new Error("boom at import");');
    await expect(call("writeTool", { path: "clock.ts", source: v2, reason: "v2" })).rejects.toThrow(
      /clock.ts was written but it did not load: .*boom at import.*the previous version is back in place/,
    );
    expect(readFileSync(join(tools, "clock.ts"), "utf8")).toBe(v1);
    expect(history.list("clock.ts").map((v) => v.action)).toEqual(["rollback"]);
    // The version that was replaced is kept.
    const keptDir = join(tools, "..", "history", "tools", "clock.ts");
    const kept = readFileSync(join(keptDir, readdirSync(keptDir)[0]!), "utf8");
    expect(kept).toBe(v1);
  });

  test("a bad source never reaches approval: the problems come back from validation", async () => {
    const { tools, call } = setup();
    await expect(call("writeTool", { path: "../escape.ts", source: TOOL("x"), reason: "r" })).rejects.toThrow(
      /path: "..\/escape.ts" is outside the tools folder/,
    );
    await expect(
      call("writeTool", { path: "typo.ts", source: TOOL("x", "return input.n.toUpperCase();"), reason: "r" }),
    ).rejects.toThrow(/source: line 6:\d+: TS2339/);
    expect(existsSync(join(tools, "typo.ts"))).toBe(false);
  });

  test("remove keeps a copy and records who approved", async () => {
    const { tools, history, call } = setup();
    expect((await call("removeTool", { path: "clock.ts", reason: "unused" })).out).toEqual({
      removed: "clock.ts",
      sha256: sha256Hex(TOOL("clock")),
    });
    expect(existsSync(join(tools, "clock.ts"))).toBe(false);
    const [v] = history.list("clock.ts");
    expect(v).toMatchObject({ action: "remove", approvedBy: "operator-1" });
    expect(readFileSync(v!.previousCopy!, "utf8")).toBe(TOOL("clock"));
  });
});

test("on a full disk a tool file write fails with the disk's error and leaves nothing in the tools folder", async () => {
  const p = tempProject();
  const tools = join(p.ws, "tools");
  mkdirSync(tools, { recursive: true });
  // The source is checked first, without a limit (the checker runs in its own process); then the
  // child lowers its file-size limit (FULL_DISK_PRELUDE) and runs the approved write.
  const source = `${TOOL("big")}// ${"x".repeat(4000)}\n`;
  const script = `${FULL_DISK_PRELUDE}
    const { toolHistory } = await import(${JSON.stringify(join(import.meta.dir, "index.ts"))});
    const { workspaceTools } = await import(${JSON.stringify(join(import.meta.dir, "workspace-tools.ts"))});
    const { indexToolTree } = await import(${JSON.stringify(join(import.meta.dir, "../tools/flatten.ts"))});
    const ws = indexToolTree(workspaceTools({
      toolsDir: ${JSON.stringify(tools)},
      history: toolHistory(${JSON.stringify(join(p.ws, "history"))}),
      install: async () => {},
      reload: async () => ({ problems: [], tools: [] }),
      approverOf: () => "operator-1",
    }));
    const write = ws.get("writeTool");
    const parsed = await write.args.safeParseAsync({ path: "big.ts", source: ${JSON.stringify(source)}, reason: "r" });
    if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
    limitFileSize(1024);
    const outcome = await write.run(parsed.data, { signal: new AbortController().signal, callId: "call_1", log: console })
      .then(() => "written", (e) => "failed: " + e.message);
    console.log(JSON.stringify(outcome));`;
  // Fails the test with the child's stderr unless it exits 0.
  const outcome = await jsonFromFreshProcess<string>(script, { cwd: p.ws });
  expect(outcome).toMatch(/^failed: .*(EFBIG|too large)/i);
  expect(readdirSync(tools)).toEqual([]);
});

describe("a write never takes over another source's name", () => {
  /** The gateway's wiring: the workspace tools are a built-in of a real registry and ask it who owns each name. */
  async function gatewayLike(files: Record<string, string>) {
    const p = tempProject(files);
    const tools = join(p.ws, "tools");
    let registry: ToolRegistry | undefined;
    const ws = workspaceTools({
      toolsDir: tools,
      history: toolHistory(join(p.ws, "history")),
      install: async () => {},
      reload: async () => ({ problems: [], tools: [] }),
      owners: () => registry!.current().entries,
    });
    registry = createToolRegistry({ ...p.opts, autoInstall: false, bundled: [{ id: "workspace", tools: ws }] });
    await registry.ready;
    const write = indexToolTree(ws).get("writeTool")!;
    const refusal = async (path: string) => {
      const parsed = await write.args.safeParseAsync({ path, source: TOOL("x"), reason: "r" });
      return parsed.success ? undefined : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    return { p, tools, write, refusal };
  }

  test("a file named like the built-in workspace, a plugin, an OpenAPI spec, a global tool file or another workspace file is refused before the card", async () => {
    const spec = await Bun.file(join(import.meta.dir, "../sources/openapi/fixtures/pets.json")).text();
    const { p, tools, refusal } = await gatewayLike({
      ".openassistant/tools/clock_x.ts": TOOL("clock"),
      "~/tools/weather.ts": TOOL("weather"),
      "specs/pets.json": spec,
      "gh/package.json": JSON.stringify({ name: "gh", type: "module", openassistant: { entry: "./index.ts" } }),
      "gh/index.ts": `import { defineTool, z } from "@openassistant/sdk";
export default () => ({ list: defineTool({ description: "gh", approval: "auto", args: z.object({}), run: async () => [] }) });`,
      ".openassistant/config.json": JSON.stringify({
        plugins: ["./gh"],
        openapi: { pets: { spec: "specs/pets.json" } },
      }),
    });
    const reason = "a tool file never takes over another source's name. Choose another file name.";
    expect(await refusal("workspace.ts")).toEqual([
      `path: "workspace.ts" would be mounted at tools.workspace, which already belongs to the built-in tools.workspace; ${reason}`,
    ]);
    expect(await refusal("pets.ts")).toEqual([
      `path: "pets.ts" would be mounted at tools.pets, which already belongs to OpenAPI spec openapi.pets (${join(p.root, "specs/pets.json")}); ${reason}`,
    ]);
    expect(await refusal("gh.ts")).toEqual([
      `path: "gh.ts" would be mounted at tools.gh, which already belongs to plugin "gh" (${join(p.root, "gh")}); ${reason}`,
    ]);
    expect(await refusal("weather.ts")).toEqual([
      `path: "weather.ts" would be mounted at tools.weather, which already belongs to tool file ${join(p.globalDir, "tools/weather.ts")}; ${reason}`,
    ]);
    // `clock-x.ts` is another file, but its name is clock_x's: not a "new" file, a takeover.
    expect(await refusal("clock-x.ts")).toEqual([
      `path: "clock-x.ts" would be mounted at tools.clock_x, which already belongs to tool file ${join(tools, "clock_x.ts")}; ${reason}`,
    ]);
    // Letter case alone does not make another name (macOS and Windows cannot even hold both files).
    expect(await refusal("GH.ts")).toEqual([
      `path: "GH.ts" would be mounted at tools.GH, which differs only in letter case from tools.gh, which belongs to plugin "gh" (${join(p.root, "gh")}); ${reason}`,
    ]);
    expect(existsSync(join(tools, "clock-x.ts"))).toBe(false);
  });

  test("rewriting the workspace file that owns the name passes the check and its card says it replaces that file", async () => {
    const { write, refusal } = await gatewayLike({ ".openassistant/tools/clock.ts": TOOL("clock") });
    expect(await refusal("clock.ts")).toBeUndefined();
    const input = { path: "clock.ts", source: TOOL("clock v2"), reason: "r" };
    const preview = write.previewInput?.((await write.args.parseAsync(input)) as never) ?? "";
    expect(preview.split("\n")[0]).toBe(`replaces clock.ts · sha256 ${sha256Hex(input.source)}`);
  });
});
