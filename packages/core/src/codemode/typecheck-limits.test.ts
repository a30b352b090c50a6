/**
 * The typecheck runs in checker processes with a time limit and a memory cap: a pathological
 * program gets a clear error, its checker is replaced, other checks go on, and a checker that
 * disappears fails the check closed. Nothing here compares wall-clock times: the limits are set
 * far from what the programs need (the pathological one runs for minutes and grows past 1 GB).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { jsonFromFreshProcess } from "@openassistant/testkit/fresh-process.ts";
import { createTypechecker, OA_DIAGNOSTIC, type Typechecker, type TypecheckResult } from "./typecheck.ts";

const DECLARATIONS = "declare const tools: { notes: { add(input: { text: string }): Promise<unknown> } };\n";
const GOOD = 'await tools.notes.add({ text: "x" });';
/** Recursive conditional type over growing tuples: minutes of checker CPU, memory past 1 GB. */
const EXPLOSIVE = [
  'type T<N extends unknown[]> = N["length"] extends 999 ? N : T<[...N, N]>;\ntype X = T<[]>;\nconst x: X = null as any;\nreturn x;',
  'type Grow<T, N extends unknown[] = []> = N["length"] extends 999 ? T : Grow<[T, T, N], [...N, N]>;\nconst g: Grow<string> = null as any;\nreturn g;',
];

let checker: Typechecker | undefined;
afterEach(async () => {
  await checker?.close();
  checker = undefined;
});

const codeOf = (r: TypecheckResult) => (r.ok ? undefined : r.diagnostics[0]!.code);

describe("typecheck limits (checker processes)", () => {
  test("a check past the time limit gets 'took too long', the checker is replaced and the next check works", async () => {
    // The CPU limit under test is the only thing that can end the check: its wall bound is far off.
    checker = createTypechecker({ timeoutMs: 1_500, wallTimeoutMs: 600_000, memoryMb: 8_192 });
    await checker.warmUp();
    for (const code of EXPLOSIVE) {
      const before = checker.stats().pids[0];
      const r = await checker.check(code, DECLARATIONS);
      expect(codeOf(r)).toBe(OA_DIAGNOSTIC.tooSlow);
      expect(r.ok ? "" : r.text).toBe(
        "line 1, col 1: The typecheck took too long (over 1.5 s of CPU time); the code was not run. Simplify the types (avoid deeply recursive or very large generic types) and try again.",
      );
      expect(await checker.check(GOOD, DECLARATIONS)).toEqual({ ok: true });
      expect(checker.stats().pids).not.toContain(before!);
    }
    expect(checker.stats().replaced).toBe(EXPLOSIVE.length);
  }, 120_000);

  test("a check past the memory cap gets 'too much memory' and the checker is replaced", async () => {
    checker = createTypechecker({ timeoutMs: 600_000, memoryMb: 450 });
    await checker.warmUp();
    const r = await checker.check(EXPLOSIVE[0]!, DECLARATIONS);
    expect(codeOf(r)).toBe(OA_DIAGNOSTIC.tooLarge);
    expect(r.ok ? "" : r.text).toContain(
      "The typecheck used too much memory (over 450 MiB); the code was not run. Simplify the types",
    );
    expect(checker.stats().replaced).toBe(1);
    expect(await checker.check(GOOD, DECLARATIONS)).toEqual({ ok: true });
  }, 120_000);

  test("a pathological check does not hold up other checks (a second checker takes them)", async () => {
    checker = createTypechecker({ timeoutMs: 600_000, memoryMb: 8_192, maxCheckers: 2 });
    await checker.warmUp();
    let slowDone = false;
    const slow = checker.check(EXPLOSIVE[0]!, DECLARATIONS).then((r) => ((slowDone = true), r));
    for (let i = 0; i < 3; i++)
      expect(await checker.check(`${GOOD}\nreturn ${i};`, DECLARATIONS)).toEqual({ ok: true });
    expect(slowDone).toBe(false);
    expect(checker.stats().live).toBe(2);
    await checker.close();
    // Closing fails the pending check closed instead of leaving it hanging.
    expect(codeOf(await slow)).toBe(OA_DIAGNOSTIC.unavailable);
  }, 120_000);

  test("fails closed when the checker process dies during a check, then recovers", async () => {
    checker = createTypechecker({ timeoutMs: 600_000, memoryMb: 8_192, maxCheckers: 1 });
    await checker.warmUp();
    const pending = checker.check(EXPLOSIVE[0]!, DECLARATIONS);
    await Bun.sleep(200);
    process.kill(checker.stats().pids[0]!, "SIGKILL");
    const r = await pending;
    expect(codeOf(r)).toBe(OA_DIAGNOSTIC.unavailable);
    expect(r.ok ? "" : r.text).toContain("The typechecker is unavailable");
    expect(await checker.check(GOOD, DECLARATIONS)).toEqual({ ok: true });
  }, 120_000);

  test("a replacement checker is primed with the declarations last checked: its first check does not build one", async () => {
    checker = createTypechecker({ timeoutMs: 1_500, wallTimeoutMs: 600_000, memoryMb: 8_192, maxCheckers: 1 });
    await checker.warmUp();
    expect(await checker.check(GOOD, DECLARATIONS)).toEqual({ ok: true });
    expect(checker.stats().coldChecks).toBe(1); // the first check against these declarations builds a checker
    expect(codeOf(await checker.check(EXPLOSIVE[0]!, DECLARATIONS))).toBe(OA_DIAGNOSTIC.tooSlow);
    await checker.warmUp(); // the replacement is ready
    expect(await checker.check(`${GOOD}\nreturn 1;`, DECLARATIONS)).toEqual({ ok: true });
    expect(checker.stats()).toMatchObject({ replaced: 1, coldChecks: 1 });
  }, 120_000);

  test("a checker kept off the CPU past its time limit (a busy host, SIGSTOP on cue) still answers the check", async () => {
    checker = createTypechecker({ timeoutMs: 1_000, wallTimeoutMs: 600_000, memoryMb: 8_192, maxCheckers: 1 });
    await checker.warmUp(DECLARATIONS);
    expect(await checker.check(GOOD, DECLARATIONS)).toEqual({ ok: true });
    const pid = checker.stats().pids[0]!;
    // check() hands the snippet to the idle checker synchronously; the checker is stopped before it reads it.
    const pending = checker.check(`${GOOD}\nreturn 2;`, DECLARATIONS);
    process.kill(pid, "SIGSTOP");
    // Three times the limit without a core (well inside the wall cap of ten times); then the host frees up.
    setTimeout(() => process.kill(pid, "SIGCONT"), 3_000);
    expect(await pending).toEqual({ ok: true });
    expect(checker.stats()).toMatchObject({ replaced: 0, pids: [pid] });
  }, 60_000);

  test("checks after close fail closed at once", async () => {
    checker = createTypechecker();
    await checker.close();
    expect(codeOf(await checker.check(GOOD, DECLARATIONS))).toBe(OA_DIAGNOSTIC.unavailable);
  });

  test("the declarations are sent to a checker once, then named by hash; a changed tree is sent again", async () => {
    checker = createTypechecker();
    await checker.warmUp();
    const other = "declare const tools: { mail: { send(input: { to: string }): Promise<unknown> } };\n";
    expect(await checker.check(GOOD, DECLARATIONS)).toEqual({ ok: true });
    expect(await checker.check(GOOD, DECLARATIONS)).toEqual({ ok: true });
    expect(await checker.check('await tools.mail.send({ to: "a" });', other)).toEqual({ ok: true });
    expect((await checker.check(GOOD, other)).ok).toBe(false);
    // an equal text in a different string object hits the same cache entry
    expect(await checker.check(GOOD, DECLARATIONS.slice(0, -1) + "\n")).toEqual({ ok: true });
  }, 60_000);

  test("the process that asks for checks never loads TypeScript (only the checker process does)", async () => {
    const script = [
      `const { createTypechecker } = await import(${JSON.stringify(join(import.meta.dir, "typecheck.ts"))});`,
      "const c = createTypechecker();",
      "await c.warmUp();",
      `const r = await c.check(${JSON.stringify(GOOD)}, ${JSON.stringify(DECLARATIONS)});`,
      "await c.close();",
      'console.log(JSON.stringify({ ok: r.ok, ts: Object.keys(require.cache).filter((k) => k.includes("/typescript/")) }));',
    ].join("\n");
    expect(await jsonFromFreshProcess(script, { cwd: import.meta.dir })).toEqual({ ok: true, ts: [] });
  }, 60_000);
});
