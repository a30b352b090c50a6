import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadTools } from "./index.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";

const noInstall = { autoInstall: false } as const;
const pkg = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name, type: "module", openassistant: { entry: "./index.ts" }, ...extra });
const TREE = `${SDK_IMPORT}\nexport default () => ({ x: defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => 1 }) });`;

describe("unusual tool files: each problem names the file, the rest loads", () => {
  test("a directory named x.ts, a dangling symlink and a symlink loop are skipped with a warning; a symlinked tool file loads", async () => {
    const p = tempProject({
      ".openassistant/tools/good.ts": toolSource("good"),
      "elsewhere/real.ts": toolSource("real"),
    });
    const tools = join(p.ws, "tools");
    mkdirSync(join(tools, "x.ts"));
    symlinkSync(join(p.root, "missing.ts"), join(tools, "dangling.ts"));
    symlinkSync(join(tools, "loop.ts"), join(tools, "loop.ts"));
    symlinkSync(join(p.root, "elsewhere/real.ts"), join(tools, "linked.ts"));
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.entries.map((e) => [e.id, e.status])).toEqual([
      ["good", "loaded"],
      ["linked", "loaded"],
    ]);
    const byId = Object.fromEntries(r.diagnostics.map((d) => [d.id, d]));
    expect(byId.x!.level).toBe("warning");
    expect(byId.x!.source).toBe(join(tools, "x.ts"));
    expect(byId.x!.message).toContain("is a directory, not a file");
    expect(byId.dangling!.message).toContain("symbolic link that points to nothing");
    expect(byId.loop!.hint).toContain(join(tools, "loop.ts"));
  });

  test("binary and empty files, non-Error throws, throwing getters on the thrown value, default null/number", async () => {
    const p = tempProject({
      ".openassistant/tools/good.ts": toolSource("good"),
      ".openassistant/tools/empty.ts": "",
      ".openassistant/tools/nothing.ts": "throw undefined;",
      ".openassistant/tools/nul.ts": "export default null;",
      ".openassistant/tools/num.ts": "export default 42;",
      ".openassistant/plugins/nasty/package.json": pkg("nasty"),
      ".openassistant/plugins/nasty/index.ts": `export default () => { throw { get message() { throw new Error("gotcha"); } }; };`,
    });
    writeFileSync(join(p.ws, "tools/bin.ts"), Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x90, 0xc3, 0x28]));
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.entries.filter((e) => e.status === "loaded").map((e) => e.id)).toEqual(["good"]);
    const byId = Object.fromEntries(r.diagnostics.map((d) => [d.id, d]));
    for (const id of ["bin", "empty", "nothing", "nul", "num", "nasty"]) expect(byId[id]?.level).toBe("error");
    expect(byId.bin!.source).toBe(join(p.ws, "tools/bin.ts"));
    expect(byId.empty!.message).toContain("exports no tool");
    expect(byId.nothing!.message).toBe("undefined (thrown instead of an Error)");
    expect(byId.nasty!.message).toContain("cannot be described");
    expect(byId.nasty!.source).toBe(join(p.ws, "plugins/nasty/index.ts"));
  });

  test("a default tree with a __proto__ key is rejected by name instead of turning the group into a tool", async () => {
    const p = tempProject({
      ".openassistant/tools/pk.ts": `${SDK_IMPORT}\nconst t = defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => 1 });\nexport default { ok: t, ["__proto__"]: t };`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.entries[0]!.status).toBe("error");
    expect(r.diagnostics[0]!.message).toContain(`tool name "pk.__proto__" cannot be used`);
  });

  test("a string export name that is not an identifier is reported with the file", async () => {
    const p = tempProject({
      ".openassistant/tools/good.ts": toolSource("good"),
      ".openassistant/tools/strname.ts": `${SDK_IMPORT}\nconst a = defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => 1 });\nexport { a as "foo-bar" };`,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    const d = r.diagnostics.find((x) => x.id === "strname")!;
    expect(d.message).toContain(`"strname.foo-bar" is not a valid identifier`);
    expect(d.hint).toContain("strname.ts");
  });

  test("ids that differ only in letter case load but get a warning naming both files", async () => {
    const p = tempProject({
      ".openassistant/tools/Notes.ts": toolSource("N"),
      ".openassistant/tools/notes.ts": toolSource("n"),
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(r.entries.map((e) => e.status)).toEqual(["loaded", "loaded"]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]!.level).toBe("warning");
    expect(r.diagnostics[0]!.message).toContain(join(p.ws, "tools/Notes.ts"));
    expect(r.diagnostics[0]!.message).toContain(join(p.ws, "tools/notes.ts"));
  });
});

describe("unusual plugin packages: each is an error entry, the rest loads", () => {
  test("package.json null/array, entry outside the dir, entry missing, entry a directory, empty entry", async () => {
    const p = tempProject({
      ".openassistant/tools/good.ts": toolSource("good"),
      ".openassistant/plugins/pnull/package.json": "null",
      ".openassistant/plugins/parr/package.json": "[]",
      "outside.ts": TREE,
      ".openassistant/plugins/escape/package.json": pkg("escape", { openassistant: { entry: "../../../outside.ts" } }),
      ".openassistant/plugins/absent/package.json": pkg("absent", { openassistant: { entry: "./nope.ts" } }),
      ".openassistant/plugins/dirent/package.json": pkg("dirent", { openassistant: { entry: "./src" } }),
      ".openassistant/plugins/dirent/src/index.ts": TREE,
      ".openassistant/plugins/blank/package.json": pkg("blank", { openassistant: { entry: "" } }),
      ".openassistant/plugins/fine/package.json": pkg("fine"),
      ".openassistant/plugins/fine/index.ts": TREE,
    });
    const r = await loadTools({ ...p.opts, ...noInstall });
    expect(Object.fromEntries(r.entries.map((e) => [e.id, e.status]))).toEqual({
      good: "loaded",
      absent: "error",
      blank: "error",
      dirent: "error",
      escape: "error",
      fine: "loaded",
      parr: "error",
      pnull: "error",
    });
    const byId = Object.fromEntries(r.diagnostics.map((d) => [d.id, d]));
    expect(byId.pnull!.message).toBe("package.json must contain a JSON object, not null");
    expect(byId.pnull!.source).toBe(join(p.ws, "plugins/pnull/package.json"));
    expect(byId.escape!.message).toContain("outside the plugin directory");
    expect(byId.escape!.hint).toContain(join(p.ws, "plugins/escape"));
    expect(byId.dirent!.message).toBe("entry ./src is a directory, not a file");
    expect(byId.dirent!.hint).toContain("./src/index.ts");
    expect(byId.blank!.message).toContain("is empty");
  });

  test("an invalid configSchema and a remote $ref are manifest errors; the $ref is never fetched", async () => {
    let fetched = 0;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => (fetched++, Response.json({ type: "object" })),
    });
    try {
      const p = tempProject({
        ".openassistant/plugins/bad/package.json": pkg("bad"),
        ".openassistant/plugins/bad/openassistant.json": JSON.stringify({
          configSchema: { type: "object", properties: { a: { type: "nonsense" } } },
        }),
        ".openassistant/plugins/bad/index.ts": TREE,
        ".openassistant/plugins/remote/package.json": pkg("remote"),
        ".openassistant/plugins/remote/openassistant.json": JSON.stringify({
          configSchema: { $ref: `http://127.0.0.1:${server.port}/schema.json` },
        }),
        ".openassistant/plugins/remote/index.ts": TREE,
      });
      const r = await loadTools({ ...p.opts, ...noInstall });
      expect(r.entries.map((e) => e.status)).toEqual(["error", "error"]);
      const byId = Object.fromEntries(r.diagnostics.map((d) => [d.id, d]));
      expect(byId.bad!.source).toBe(join(p.ws, "plugins/bad/openassistant.json"));
      expect(byId.bad!.message).toContain("not a valid JSON Schema");
      expect(byId.remote!.hint).toContain("never fetched");
      expect(fetched).toBe(0);
    } finally {
      server.stop(true);
    }
  });
});
