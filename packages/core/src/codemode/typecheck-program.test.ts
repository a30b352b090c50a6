/**
 * The checker reuse (typecheck-program.ts): one checker serves many snippets, and that must not
 * change what a check reports. Compared against a new checker per snippet, over a corpus of right
 * and wrong snippets (fixtures/typecheck-corpus.ts), in the order a long-lived checker sees them.
 */
import { describe, expect, test } from "bun:test";
import { CORPUS, CORPUS_DECLARATIONS } from "./fixtures/typecheck-corpus.ts";
import { CHECKS_PER_CHECKER, createProgramChecker } from "./typecheck-program.ts";
import type { TypecheckResult } from "./typecheck-diagnostics.ts";

/** Seconds of checker CPU on a loaded 2-core machine. */
const SLOW_MS = 120_000;

const where = (r: TypecheckResult) => (r.ok ? "ok" : r.diagnostics.map((d) => `${d.line}:${d.column} TS${d.code}`));

describe("one checker for many snippets", () => {
  test(
    "reports what a new checker per snippet reports, for every snippet of the corpus, twice over",
    () => {
      const shared = createProgramChecker();
      shared.warmUp();
      const fresh = new Map(CORPUS.map((code) => [code, createProgramChecker().check(code, CORPUS_DECLARATIONS)]));
      const wrong = [...fresh.values()].filter((r) => !r.ok).length;
      for (const code of [...CORPUS, ...CORPUS]) {
        const reused = shared.check(code, CORPUS_DECLARATIONS, "corpus");
        shared.prepare(); // what the checker child does once it has replied
        // Positions and codes must match exactly. Message text may not: TypeScript prints a union's
        // members in the order their types were created, which depends on what was checked before
        // (e.g. `"imperial" | "metric"` once a snippet has used "imperial").
        expect({ code, result: where(reused) }).toEqual({ code, result: where(fresh.get(code)!) });
      }
      // Clean snippets shared checkers; each check that reported something retired one.
      expect(wrong).toBeGreaterThan(40);
      expect(shared.stats().built).toBe(2 * wrong + 2);
    },
    SLOW_MS,
  );

  test(
    "errors TypeScript reports once per checker are reported on every check (the checker is retired)",
    () => {
      const checker = createProgramChecker();
      const codes = (code: string) => {
        const r = checker.check(code, CORPUS_DECLARATIONS);
        checker.prepare();
        return r.ok ? [] : r.diagnostics.map((d) => d.code);
      };
      // A missing global type is a global diagnostic, which a checker reports only the first time
      // (checked: without the retirement, the second `using` passes with only TS2550).
      for (let i = 0; i < 3; i++) expect(codes("using r = { [Symbol.dispose]() {} };")).toContain(2318);
      // An instantiation cut off at the depth limit is reported on every check too.
      const deep =
        "type Rec<N extends number, A extends unknown[] = []> = A['length'] extends N ? A : Rec<N, [...A, 0]>;\n" +
        "const x: Rec<2000> = [] as any;\nreturn x;";
      for (let i = 0; i < 2; i++) expect(codes(deep)).toEqual([2589]);
    },
    SLOW_MS,
  );

  test("a snippet sees no other snippet's declarations", () => {
    const checker = createProgramChecker();
    expect(checker.check("const leaked = 1;\nfunction helper() { return 2; }\nreturn leaked + helper();", "")).toEqual({
      ok: true,
    });
    const r = checker.check("return leaked + helper();", "");
    expect(where(r)).toEqual(["1:8 TS2304", "1:17 TS2304"]);
  });

  test("clean checks share one checker; a check with errors, a large snippet or the check limit retire it", () => {
    const checker = createProgramChecker();
    checker.warmUp();
    const good = (i: number) => `const w = await tools.weather({ location: "x${i}" });\nreturn w.tempC;`;
    for (let i = 0; i < 10; i++) expect(checker.check(good(i), CORPUS_DECLARATIONS)).toEqual({ ok: true });
    // warm-up declarations, then these: two checkers
    expect(checker.stats()).toMatchObject({ built: 2, checksOnCurrent: 10, ready: true });
    expect(checker.prepare()).toBe(false); // nothing to do

    expect(checker.check("await tools.weather({ location: 1 });", CORPUS_DECLARATIONS).ok).toBe(false);
    expect(checker.stats()).toMatchObject({ built: 2, ready: false });
    expect(checker.prepare()).toBe(true);
    expect(checker.stats()).toMatchObject({ built: 3, checksOnCurrent: 0, ready: true });

    const large = Array.from({ length: 2_000 }, (_, i) => `const x${i} = ${i};`).join("\n");
    expect(large.length).toBeGreaterThan(20_000);
    expect(checker.check(large, CORPUS_DECLARATIONS)).toEqual({ ok: true });
    expect(checker.stats().ready).toBe(false);
    // Without prepare(), the next check builds the checker it needs itself.
    expect(checker.check(good(0), CORPUS_DECLARATIONS)).toEqual({ ok: true });
    expect(checker.stats()).toMatchObject({ built: 4, checksOnCurrent: 1, ready: true });

    for (let i = 1; i < CHECKS_PER_CHECKER; i++) checker.check(good(i), CORPUS_DECLARATIONS);
    expect(checker.stats()).toMatchObject({ built: 4, checksOnCurrent: CHECKS_PER_CHECKER, ready: false });
    expect(checker.check(good(0), CORPUS_DECLARATIONS)).toEqual({ ok: true });
    expect(checker.stats()).toMatchObject({ built: 5, checksOnCurrent: 1, ready: true });
  });

  test("practice (JIT warm-up) checks clean snippets, replaces the checkers it retires, changes no result", () => {
    const checker = createProgramChecker();
    checker.warmUp(CORPUS_DECLARATIONS);
    expect(checker.practice(CHECKS_PER_CHECKER + 50)).toBe(true);
    expect(checker.stats()).toMatchObject({ built: 2, practised: CHECKS_PER_CHECKER + 50, ready: true });
    expect(where(checker.check("await tools.weather({ location: 1 });", CORPUS_DECLARATIONS))).toEqual(["1:23 TS2322"]);
    checker.prepare();
    expect(checker.check('return (await tools.weather({ location: "x" })).tempC;', CORPUS_DECLARATIONS)).toEqual({
      ok: true,
    });
    // Declarations that change Promise.all (a merged overload comes first): the practice snippet
    // fails, and practice stops at once.
    const broken = createProgramChecker();
    broken.warmUp("declare const tools: {};\ninterface PromiseConstructor { all<T>(values: T): number }\n");
    expect(broken.practice(50)).toBe(false);
    expect(broken.stats().practised).toBe(1);
  });

  test("other declarations get their own checker, and the snippet is checked against them", () => {
    const checker = createProgramChecker();
    const notes = "declare const tools: { notes: { add(input: { text: string }): Promise<unknown> } };\n";
    expect(checker.check('await tools.notes.add({ text: "x" });', notes)).toEqual({ ok: true });
    expect(where(checker.check('await tools.weather({ location: "x" });', notes))).toEqual(["1:13 TS2339"]);
    expect(checker.check('await tools.weather({ location: "x" });', CORPUS_DECLARATIONS)).toEqual({ ok: true });
    expect(checker.check("await tools.notes.add({ text: 1 });", CORPUS_DECLARATIONS).ok).toBe(false);
  });
});

describe("checkDeclarations (doctor)", () => {
  test("errors inside the declarations themselves are reported with their line; sound ones give none", () => {
    const checker = createProgramChecker();
    const broken = [
      "declare const tools: {",
      "  weather: {",
      "    get(input: {}): Promise<{ temperature: number; [x: string]: never }>;",
      "    list(input: Missing): Promise<unknown>;",
      "  };",
      "};",
      "",
    ].join("\n");
    // A snippet's check reports only the snippet's own errors: this is why doctor asks both.
    expect(checker.check("return tools;", broken)).toEqual({ ok: true });
    expect(checker.checkDeclarations(broken)).toEqual([
      "line 3: Property 'temperature' of type 'number' is not assignable to 'string' index type 'never'. — get(input: {}): Promise<{ temperature: number; [x: string]: never }>;",
      "line 4: Cannot find name 'Missing'. — list(input: Missing): Promise<unknown>;",
    ]);
    expect(checker.checkDeclarations("declare const tools: {\n  a(input: {}): Promise<string>;\n};\n")).toEqual([]);
  });
});
