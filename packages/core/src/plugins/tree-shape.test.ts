import { describe, expect, test } from "bun:test";
import { loadTools } from "./index.ts";
import { SDK_IMPORT, tempProject, toolSource } from "../../test/plugin-fixtures.ts";
import { checkTreeShape, MAX_TREE_DEPTH } from "../tools/tree-shape.ts";

const TOOL = `defineTool({ description: "x", approval: "auto", args: z.object({}), run: async () => 1 })`;

describe("tool trees that are not finite trees", () => {
  test("a cycle in a tool file's export or a factory's result is an error naming the path, not a stack overflow", async () => {
    const p = tempProject({
      ".openassistant/tools/good.ts": toolSource("good"),
      ".openassistant/tools/cyc.ts": `${SDK_IMPORT}\nconst t: any = { a: ${TOOL} };\nt.self = t;\nexport default t;`,
      ".openassistant/plugins/loop/package.json": JSON.stringify({
        name: "loop",
        type: "module",
        openassistant: { entry: "./index.ts" },
      }),
      ".openassistant/plugins/loop/index.ts": `${SDK_IMPORT}\nexport default () => { const t: any = { g: { a: ${TOOL} } }; t.g.up = t; return t; };`,
    });
    const r = await loadTools({ ...p.opts, autoInstall: false });
    expect(Object.fromEntries(r.entries.map((e) => [e.id, e.status]))).toEqual({
      good: "loaded",
      cyc: "error",
      loop: "error",
    });
    const loop = r.diagnostics.find((d) => d.id === "loop")!;
    expect(loop.message).toBe(`"loop.g.up" refers back to "loop": the tool tree contains itself (a cycle)`);
    expect(loop.source).toBe(`${p.ws}/plugins/loop/index.ts`);
    const cyc = r.diagnostics.find((d) => d.id === "cyc")!;
    expect(cyc.message).toContain("contains itself (a cycle)");
    expect(cyc.hint).toContain("cyc.ts");
  });

  test("a group shared by two paths is fine; nesting beyond the limit is reported", () => {
    const tool = { description: "x" };
    const shared = { a: tool };
    expect(checkTreeShape({ x: shared, y: shared }, "p")).toBeUndefined();
    let deep: Record<string, unknown> = { leaf: tool };
    for (let i = 0; i < MAX_TREE_DEPTH + 1; i++) deep = { g: deep };
    expect(checkTreeShape(deep, "p")).toContain(`nested deeper than ${MAX_TREE_DEPTH} levels`);
  });
});
