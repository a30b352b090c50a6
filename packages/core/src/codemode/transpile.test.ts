import { describe, expect, test } from "bun:test";
import { SnippetTranspileError, transpileSnippet } from "./transpile.ts";

/** Runs a transpiled body the way a sandbox would: as the body of an async function. */
async function runBody(js: string, tools: Record<string, unknown>): Promise<unknown> {
  const fn = new Function("tools", `return (async () => {\n${js}\n})();`) as (t: unknown) => Promise<unknown>;
  return fn(tools);
}

describe("transpileSnippet", () => {
  test("strips types, keeps return and await", async () => {
    const js = transpileSnippet(
      [
        "interface Weather { tempC: number }",
        "type Units = 'metric' | 'imperial';",
        "const units: Units = 'metric';",
        "const w = (await tools.weather({ location: 'Berlin', units })) as Weather;",
        "function double<T extends number>(x: T): number { return x * 2; }",
        "return { temp: double(w.tempC)!, units } satisfies object;",
      ].join("\n"),
    );
    expect(js).not.toContain("interface");
    expect(js).not.toContain(": Units");
    expect(js).not.toContain("satisfies");
    expect(js).toContain("await tools.weather(");
    expect(js).toContain("return {");
    expect(await runBody(js, { weather: async () => ({ tempC: 21 }) })).toEqual({ temp: 42, units: "metric" });
  });

  test("does not drop unused or seemingly dead code", async () => {
    const js = transpileSnippet(
      "const unused = 5;\nif (false) { console.log('dead'); }\nlet calls = 0;\nawait tools.ping({});\nreturn calls;",
    );
    expect(js).toContain("const unused = 5");
    expect(js).toContain('console.log("dead")');
    let pinged = 0;
    expect(await runBody(js, { ping: async () => pinged++ })).toBe(0);
    expect(pinged).toBe(1);
  });

  test("enums and TS-only syntax become working JavaScript", async () => {
    const js = transpileSnippet("enum Level { Low, High }\nconst l = <number>Level.High;\nreturn [l, Level[0]];");
    expect(await runBody(js, {})).toEqual([1, "Low"]);
  });

  test("template literals keep their contents", async () => {
    const js = transpileSnippet("const s = `line one\n  line two ${1 + 1}`;\nreturn s;");
    expect(await runBody(js, {})).toBe("line one\n  line two 2");
  });

  test("empty or comment-only snippets give an empty body", () => {
    expect(transpileSnippet("")).toBe("");
    expect(transpileSnippet("// nothing here")).toBe("");
  });

  test("import and export statements are rejected with a clear error", () => {
    expect(() => transpileSnippet('import fs from "node:fs";\nreturn 1;')).toThrow(SnippetTranspileError);
    expect(() => transpileSnippet('const a = 1;\nimport { x } from "y";')).toThrow(
      "line 2, col 1: `import` is not allowed: snippets cannot load modules (no import declarations, `import()`, `import.meta` or import attributes). Call tools through the global `tools` object.",
    );
    expect(() => transpileSnippet("const a = 1;\nexport const b = 2;")).toThrow(
      "line 2, col 1: `export` is not allowed",
    );
    expect(() => transpileSnippet('const fs = await import("node:fs");')).toThrow(
      "line 1, col 18: `import` is not allowed",
    );
  });

  test("a string that mentions import is fine", async () => {
    expect(await runBody(transpileSnippet("return \"import x from 'y'\";"), {})).toBe("import x from 'y'");
  });

  test("syntax Bun lowers to its own runtime helpers (using, decorators, accessor) is refused clearly", () => {
    for (const code of [
      "using x = null;\nreturn 1;",
      "await using y = null;",
      "@dec class X {}",
      "class A { accessor x = 1 }",
    ]) {
      expect(() => transpileSnippet(code)).toThrow(
        "this snippet uses syntax that needs runtime helpers the sandbox does not have (`using` / `await using` declarations, decorators or `accessor` fields); use try/finally and plain classes instead.",
      );
    }
    // A string that only mentions the helper module is fine.
    expect(transpileSnippet('return "bun:wrap";')).toBe('  return "bun:wrap";');
  });

  test("syntax errors name the line in the model's code", () => {
    expect(() => transpileSnippet("const a = 1;\nconst b = ;")).toThrow(/^line 2, col 11: Unexpected ;$/);
  });
});
