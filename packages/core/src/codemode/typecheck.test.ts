import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { defineTool, z } from "@openassistant/sdk";
import { makeFixtureToolTree } from "@openassistant/testkit/tool-fixtures.ts";
import { generateDeclarations } from "./declarations.ts";
import { createTypechecker, OA_DIAGNOSTIC, type TypecheckResult } from "./typecheck.ts";

const declarations = generateDeclarations({
  weather: defineTool({
    description: "Get weather",
    approval: "auto",
    args: z.object({ location: z.string(), units: z.enum(["metric", "imperial"]).default("metric") }),
    run: async () => ({ tempC: 20 }),
  }),
  mail: {
    send: defineTool({
      description: "Send an email",
      approval: "required",
      args: z.object({ to: z.string(), subject: z.string(), body: z.string().optional() }),
      run: async () => null,
    }),
  },
}).text;

function threadCpuMs(): number {
  const u = (process as unknown as { threadCpuUsage(): { user: number; system: number } }).threadCpuUsage();
  return (u.user + u.system) / 1000;
}

const checker = createTypechecker();
// Starting a checker process loads TypeScript; a busy machine can make that take seconds.
beforeAll(() => checker.warmUp(), 60_000);
afterAll(() => checker.close());

const check = (code: string) => checker.check(code, declarations);
const failures = (r: TypecheckResult) => (r.ok ? [] : r.diagnostics.map((d) => [d.line, d.column, d.code]));

describe("typecheck", async () => {
  test("a correct snippet passes", async () => {
    expect(await check('const w = await tools.weather({ location: "Berlin" });\nreturn w;')).toEqual({ ok: true });
    expect(await check('await tools.mail.send({ to: "a@b.c", subject: "hi", body: "x" });')).toEqual({ ok: true });
  });

  test("wrong tool name: error at the member, line/col relative to the model's code", async () => {
    const r = await check('const a = 1;\nconst w = await tools.wether({ location: "x" });');
    expect(failures(r)).toEqual([[2, 23, 2551]]);
    if (!r.ok) {
      expect(r.diagnostics[0]!.message).toContain("Property 'wether' does not exist");
      expect(r.diagnostics[0]!.category).toBe("error");
      expect(r.text).toStartWith("line 2, col 23: Property 'wether' does not exist on type");
      expect(r.text).toEndWith("Did you mean 'weather'? (TS2551)");
    }
  });

  test("wrong argument type", async () => {
    const r = await check("\n  await tools.weather({ location: 5 });");
    expect(failures(r)).toEqual([[2, 25, 2322]]);
    expect(r.ok ? "" : r.text).toContain("line 2, col 25: Type 'number' is not assignable to type 'string'. (TS2322)");
  });

  test("wrong enum value", async () => {
    const r = await check('await tools.weather({ location: "x", units: "kelvin" });');
    expect(failures(r)).toEqual([[1, 38, 2322]]);
  });

  test("missing required argument", async () => {
    const r = await check('await tools.mail.send({ to: "a" });');
    expect(failures(r)).toEqual([[1, 23, 2345]]);
    expect(r.ok ? "" : r.text).toContain("Property 'subject' is missing");
  });

  test("syntax errors are reported together with type errors", async () => {
    const r = await check('const x = ;\nconst y: number = "s";');
    expect(failures(r)).toEqual([
      [1, 11, 1109],
      [2, 7, 2322],
    ]);
    expect(r.ok ? "" : r.text).toContain("line 1, col 11: Expression expected. (TS1109)");
  });

  test("an unclosed brace is reported at the end of the model's code, not in the wrapper", async () => {
    const r = await check("if (true) {\n  console.log(1);");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.diagnostics[0]).toMatchObject({ line: 2, column: 18, code: 1005 });
  });

  test("closing the wrapper early is an error", async () => {
    const r = await check('}\nawait tools.weather({ location: "x" });\n{');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.diagnostics.map((d) => d.code)).toContain(OA_DIAGNOSTIC.escapesWrapper);
  });

  test("ToolDeniedError, ToolInputError and ToolError in try/catch typecheck", async () => {
    const code = [
      "try {",
      '  await tools.mail.send({ to: "a", subject: "b" });',
      "} catch (e) {",
      "  if (e instanceof ToolDeniedError) return `denied: ${e.message} ${e.code ?? ''}`;",
      "  if (e instanceof ToolInputError) return e.message;",
      "  if (e instanceof ToolError) return e.code;",
      "  throw e;",
      "}",
    ].join("\n");
    expect(await check(code)).toEqual({ ok: true });
    expect(failures(await check("const e = new ToolDeniedError('x'); const c: number = e.code;"))).toEqual([
      [1, 43, 2322],
    ]);
  });

  test("process, fetch, require, timers and Bun are errors, with a sandbox hint", async () => {
    const r = await check('process.exit(1);\nfetch("x");\nmodule.exports;\nsetTimeout(() => 1, 1);\nBun.file("x");');
    expect(failures(r).map(([line, col]) => [line, col])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
      [5, 1],
    ]);
    if (!r.ok)
      for (const d of r.diagnostics) expect(d.message).toContain("Snippets run in a sandbox without host globals");
  });

  test("import statements, import() and import.meta are errors", async () => {
    // Refused by the pre-check, before TypeScript parses anything.
    expect(failures(await check('import fs from "fs";\nreturn 1;'))).toEqual([[1, 1, OA_DIAGNOSTIC.moduleAccess]]);
    const r = await check('const m = await import("fs");');
    expect(failures(r)).toEqual([[1, 17, OA_DIAGNOSTIC.moduleAccess]]);
    expect(failures(await check("return import.meta;"))).toEqual([[1, 8, OA_DIAGNOSTIC.moduleAccess]]);
    expect(failures(await check('const fs = require("fs");'))).toEqual([[1, 12, OA_DIAGNOSTIC.moduleAccess]]);
    expect(failures(await check("export const a = 1;"))).toEqual([[1, 1, OA_DIAGNOSTIC.moduleAccess]]);
  });

  test("top-level await and return work; no return is fine too", async () => {
    expect(
      await check(
        'const [a, b] = await Promise.all([tools.weather({ location: "a" }), tools.weather({ location: "b" })]);\nreturn { a, b };',
      ),
    ).toEqual({ ok: true });
    expect(await check('await tools.weather({ location: "x" })')).toEqual({ ok: true });
    expect(await check("")).toEqual({ ok: true });
  });

  test("console methods are available; ES2022 library is there, DOM is not", async () => {
    expect(
      await check('console.log("a", 1, {});\nconsole.info(1); console.warn(2); console.error(3); console.debug(4);'),
    ).toEqual({ ok: true });
    expect(await check("const x = [1, 2].at(-1); Object.hasOwn({}, 'a'); return x;")).toEqual({ ok: true });
    expect(failures(await check("document.title;"))).toEqual([[1, 1, 2584]]);
  });

  test("directives in the snippet cannot widen the environment or switch checking off", async () => {
    expect(failures(await check('/// <reference lib="dom" />\ndocument.title;'))).toEqual([
      [1, 1, OA_DIAGNOSTIC.moduleAccess],
    ]);
    expect(failures(await check("// @ts-nocheck\nprocess.exit();"))).toEqual([
      [1, 1, 90004],
      [2, 1, 2591],
    ]);
  });

  test("@ts-ignore / @ts-expect-error comments are rejected, wherever they stand; the same text in a string is fine", async () => {
    expect(failures(await check("// @ts-ignore\nawait tools.weather({ location: 1 });"))).toEqual([[1, 1, 90004]]);
    expect(failures(await check("const n: number = 1;\n/* @ts-expect-error */\nconst s: string = n;"))).toEqual([
      [2, 1, 90004],
    ]);
    expect(failures(await check('await tools.weather({ location: "x" }); // @ts-ignore'))).toEqual([[1, 41, 90004]]);
    const r = await check('await tools.weather({ location: "x" }); // @ts-ignore');
    expect(!r.ok && r.text).toContain("@ts-ignore is not allowed in snippets");
    expect(await check('console.log("// @ts-ignore is just text here", `/* @ts-nocheck */`);')).toEqual({ ok: true });
  });

  test("strict mode: implicit any is an error", async () => {
    expect(failures(await check("function f(x) { return x; }\nreturn f(1);"))).toEqual([[1, 12, 7006]]);
  });

  test("declarations change between checks (tree reload) and the checker follows", async () => {
    const other = generateDeclarations({
      notes: {
        add: defineTool({
          description: "Add a note",
          approval: "auto",
          args: z.object({ text: z.string() }),
          run: async () => null,
        }),
      },
    }).text;
    expect(await checker.check('await tools.notes.add({ text: "x" });', other)).toEqual({ ok: true });
    expect((await check('await tools.notes.add({ text: "x" });')).ok).toBe(false);
    expect(await checker.check('await tools.notes.add({ text: "x" });', other)).toEqual({ ok: true });
  });

  test("many errors are capped in the text report", async () => {
    const code = Array.from({ length: 30 }, (_, i) => `const v${i}: number = "s";`).join("\n");
    const r = await check(code);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.diagnostics.length).toBe(30);
      expect(r.text.split("\n").length).toBe(21);
      expect(r.text).toEndWith("… and 10 more errors");
    }
  });

  test("a snippet with thousands of errors sends back at most 100 diagnostics; the text still counts them all", async () => {
    const code = Array.from({ length: 1_500 }, (_, i) => `const v${i}: number = "s";`).join("\n");
    const r = await check(code);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.diagnostics.length).toBe(100);
      expect(r.text).toEndWith("… and 1480 more errors");
    }
  });

  test("fails closed when the checker itself breaks", async () => {
    const r = await checker.check("return 1;", undefined as unknown as string);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.diagnostics[0]!.code).toBe(OA_DIAGNOSTIC.unavailable);
      expect(r.text).toContain("typechecker is unavailable");
    }
    // and recovers on the next call
    expect(await check("return 1;")).toEqual({ ok: true });
  });

  test("warm check against 200 realistic tools stays fast", async () => {
    const big = generateDeclarations(makeFixtureToolTree(200)).text;
    const code = (i: number) =>
      `const r = await tools.github.issues.get({ id: "x${i}", status: "open" });\nconsole.log(r);\nreturn r;`;
    for (let i = 0; i < 5; i++) expect(await checker.check(code(i), big)).toEqual({ ok: true });
    // CPU, not wall time: the suite shares the machine with other runs. Mean of 10, because the
    // thread CPU clock only advances at scheduler ticks.
    const c0 = threadCpuMs();
    for (let i = 5; i < 15; i++) await checker.check(code(i), big);
    expect((threadCpuMs() - c0) / 10).toBeLessThan(20);
  });
});

describe("typecheck warm-up with the declarations", () => {
  test("warmUp(declarations) builds a checker for them before the first check, also after a change", async () => {
    const primed = createTypechecker();
    try {
      await primed.warmUp(declarations);
      expect(await primed.check('return await tools.weather({ location: "x" });', declarations)).toEqual({ ok: true });
      expect(failures(await primed.check("await tools.weather({ location: 1 });", declarations))).toEqual([
        [1, 23, 2322],
      ]);
      expect(primed.stats()).toMatchObject({ checked: 2, coldChecks: 0 });
      // a reload: the gateway warms the checker up with the new declarations before a check needs them
      const reloaded = `${declarations}declare const extra: number;\n`;
      await primed.warmUp(reloaded);
      expect(await primed.check("return extra + 1;", reloaded)).toEqual({ ok: true });
      expect(primed.stats()).toMatchObject({ checked: 3, coldChecks: 0 });
      // and back (the child holds that text already: only its hash is sent)
      await primed.warmUp(declarations);
      expect(failures(await primed.check("return extra + 1;", declarations))).toEqual([[1, 8, 2304]]);
      expect(primed.stats()).toMatchObject({ checked: 4, coldChecks: 0 });
      // without a warm-up, the first check against other declarations builds its checker
      expect(await primed.check("return 1;", "declare const tools: {};\n")).toEqual({ ok: true });
      expect(primed.stats()).toMatchObject({ checked: 5, coldChecks: 1 });
    } finally {
      await primed.close();
    }
  }, 60_000);
});

describe("the checker's JIT warm-up", () => {
  test("with practiceChecks, a checker practises that many checks in idle time, checking correctly meanwhile", async () => {
    const practising = createTypechecker({ maxCheckers: 1, practiceChecks: 150 });
    try {
      await practising.warmUp(declarations);
      for (let i = 0; practising.stats().practised < 150; i++) {
        expect(failures(await practising.check(`await tools.weather({ location: ${i} });`, declarations))).toEqual([
          [1, 23, 2322],
        ]);
        expect(await practising.check(`return await tools.weather({ location: "${i}" });`, declarations)).toEqual({
          ok: true,
        });
        await Bun.sleep(50);
      }
      await Bun.sleep(200);
      await practising.check("return 1;", declarations);
      expect(practising.stats().practised).toBe(150); // and no more
    } finally {
      await practising.close();
    }
  }, 120_000);

  test("without practiceChecks, a checker process does not practise", async () => {
    await Bun.sleep(200);
    expect(await check("return 1;")).toEqual({ ok: true });
    expect(checker.stats().practised).toBe(0);
  });
});

describe("typecheck before the checker is warm", () => {
  test("checks sent while the checker process is still starting wait for it and still catch wrong calls", async () => {
    const cold = createTypechecker();
    try {
      // No warmUp() awaited (the gateway is ready before its checker is): both checks queue.
      void cold.warmUp().catch(() => {});
      const [wrong, right] = await Promise.all([
        cold.check(`await tools.weather({ location: 1 });`, declarations),
        cold.check(`return await tools.weather({ location: "Berlin" });`, declarations),
      ]);
      expect(failures(wrong)).toEqual([[1, 23, 2322]]);
      expect(right).toEqual({ ok: true });
      expect(cold.stats()).toMatchObject({ checked: 2, replaced: 0 });
    } finally {
      await cold.close();
    }
  }, 60_000);
});
