/** Unusual and hostile snippets: each must end in a clear, bounded result, never a host problem. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSandboxPool } from "./pool.ts";
import { MAX_ERROR_CHARS } from "./vm-run.ts";
import { fakeHost } from "../../test/sandbox-host.ts";
import type { SandboxPool, SandboxResult } from "./types.ts";

let pool: SandboxPool;
beforeAll(async () => {
  pool = createSandboxPool({ minIdle: 2, limits: { cpuMs: 1_000 } });
  await pool.warmUp();
});
afterAll(() => pool.close());

const host = () => fakeHost({ "x.read": (input) => ({ got: input }), "x.other": () => 2 });

async function run(code: string, h = host()): Promise<SandboxResult> {
  return pool.run({ code, ...h });
}

/**
 * For snippets that do a lot of honest work (millions of values) while testing something other
 * than the CPU limit: on a loaded 2-core machine their CPU time can pass the file's 1 s budget.
 */
async function runHeavy(code: string, h = host()): Promise<SandboxResult> {
  return pool.run({ code, ...h, limits: { cpuMs: 10_000 } });
}

function errorOf(r: SandboxResult): { name: string; message: string } {
  if (r.ok) throw new Error(`expected a failure, got ${r.valueJson}`);
  return r.error;
}

describe("thrown values", () => {
  test("a huge error message, name or thrown string is clipped before it leaves the sandbox", async () => {
    for (const code of [
      `throw new Error("x".repeat(5_000_000))`,
      `throw "y".repeat(5_000_000)`,
      `const e = new Error("m"); e.name = "N".repeat(3_000_000); throw e`,
      `throw { message: "z".repeat(3_000_000) }`,
    ]) {
      const error = errorOf(await run(code));
      expect(error.name).toBe("ScriptError");
      expect(error.message.length).toBeLessThanOrEqual(MAX_ERROR_CHARS + 100);
      expect(error.message).toMatch(/… \(\d+ more characters\)/);
    }
  });

  test("a failed return-value conversion with a huge message is clipped too", async () => {
    const error = errorOf(await run(`return { toJSON() { throw new Error("q".repeat(1_000_000)) } }`));
    expect(error.message).toStartWith("The return value cannot be converted to JSON: Error: qqq");
    expect(error.message.length).toBeLessThanOrEqual(MAX_ERROR_CHARS + 100);
  });

  test("non-Errors and hostile error objects are described or reported, never crash", async () => {
    expect(errorOf(await run(`throw null`)).message).toBe("Uncaught null");
    expect(errorOf(await run(`throw undefined`)).message).toBe("Uncaught undefined");
    expect(errorOf(await run(`throw "plain"`)).message).toBe("Uncaught plain");
    expect(errorOf(await run(`throw { get message() { throw 1 } }`)).message).toBe(
      "Uncaught exception (it could not be described)",
    );
    // A getter that never returns is the snippet's own CPU, still counted after the main promise rejected.
    expect(errorOf(await run(`throw { get message() { for (;;) {} } }`)).name).toBe("CpuLimitError");
    const e = `const e = new Error("m"); Object.defineProperty(e, "stack", { get() { for (;;) {} } }); throw e`;
    expect(errorOf(await run(e)).name).toBe("CpuLimitError");
  });

  test("a syntax error the transpiler let through is a clean ScriptError; the pool keeps working", async () => {
    const error = errorOf(await run(`return (`));
    expect(error.name).toBe("ScriptError");
    expect(error.message).toContain("SyntaxError");
    const after = await run(`return 1`);
    expect(after.ok && after.valueJson).toBe("1");
  });
});

describe("return values", () => {
  test("values JSON would silently empty or drop fail with a hint", async () => {
    const cases: Array<[string, string]> = [
      [
        `return new Map([[1, 2]])`,
        "a Map is not JSON (it would become {}); return Object.fromEntries(map) or [...map] instead",
      ],
      [`return { tags: new Set(["a"]) }`, "a Set is not JSON (it would become {}); return [...set] instead"],
      [`return tools.x.read`, "the snippet returned a function (did you forget to call it?)"],
      [`return Symbol("s")`, "the snippet returned a symbol"],
      [`return 1n`, "BigInt"],
    ];
    for (const [code, hint] of cases) {
      const error = errorOf(await run(code));
      expect(error.name).toBe("ScriptError");
      expect(error.message).toStartWith("The return value cannot be converted to JSON: TypeError: ");
      expect(error.message).toContain(hint);
    }
  });

  test("ordinary JSON conversions are unchanged", async () => {
    const r = await run(
      `return { d: new Date(0), a: [undefined, -0, NaN, Infinity], f: () => 1, "": () => 2, s: Symbol("x") }`,
    );
    expect(r.ok && JSON.parse(r.valueJson!)).toEqual({ d: "1970-01-01T00:00:00.000Z", a: [null, 0, null, null] });
    const nothing = await run(`// only a comment`);
    expect(nothing.ok && nothing.valueJson).toBeUndefined();
  });
});

describe("console", () => {
  test("shared references print in full; only real cycles are [Circular]; Map, Set and functions show", async () => {
    const r = await run(`
      const shared = { n: 1 };
      const loop = { name: "loop" }; loop.self = loop;
      console.log([shared, shared], loop, new Map([["k", shared]]), new Set([1]), { f: function named() {} });
      return 1`);
    expect(r.logs.map((l) => l.text)).toEqual([
      `[{"n":1},{"n":1}] {"name":"loop","self":"[Circular]"} {"Map(1)":[["k",{"n":1}]]} {"Set(1)":[1]} {"f":"[Function: named]"}`,
    ]);
  });

  test("a patched Array.prototype does not change what the log says", async () => {
    const r = await run(
      `Array.prototype.indexOf = () => 0; Array.prototype.push = () => { throw 1 }; const a = {}; console.log([a, a]); return 1`,
    );
    expect(r.logs.map((l) => l.text)).toEqual([`[{},{}]`]);
  });

  test("a deeply nested value is logged to a bounded depth (no stack overflow, no quadratic walk)", async () => {
    const r = await run(
      `let a = []; for (let i = 0; i < 20000; i++) a = [a]; console.log(a); console.log({ a: { b: 1 } }); return 1`,
    );
    expect(r.ok).toBe(true);
    expect(r.logs.map((l) => l.text)).toEqual([
      `${"[".repeat(65)}"[nested too deep]"${"]".repeat(65)}`,
      `{"a":{"b":1}}`,
    ]);
  });

  test("an object too big for the log is not walked to the end", async () => {
    const r = await runHeavy(`console.log(new Array(2_000_000).fill("abc")); console.log("after"); return 1`);
    expect(r.ok).toBe(true);
    expect(r.logs.map((l) => l.text)).toEqual([
      "[object with over 65552 values: too large to log; log a slice or a summary]",
      "after",
    ]);
  });

  test("multi-byte text is cut at the byte limit without a broken character", async () => {
    const r = await pool.run({
      code: `console.log("😀".repeat(1000)); return 1`,
      ...host(),
      limits: { maxLogBytes: 1001 },
    });
    const [first, marker] = r.logs;
    expect(first!.text).toBe("😀".repeat(250));
    expect(marker!.text).toContain("console output truncated");
  });
});

describe("tool inputs", () => {
  test("a getter or Proxy that never returns while the input is serialized is CPU, and no call is made", async () => {
    for (const code of [
      `const o = {}; Object.defineProperty(o, "x", { enumerable: true, get() { for (;;) {} } }); return await tools.x.read(o)`,
      `return await tools.x.read(new Proxy({}, { ownKeys() { for (;;) {} } }))`,
      `return await tools.x.read({ toJSON() { for (;;) {} } })`,
    ]) {
      const h = host();
      expect(errorOf(await run(code, h)).name).toBe("CpuLimitError");
      expect(h.calls).toEqual([]);
    }
  });

  test("a toJSON that throws or recurses forever is an error the snippet sees; no call is made", async () => {
    const h = host();
    const r = await run(
      `try { await tools.x.read({ toJSON() { throw new Error("nope") } }) } catch (e) { return e.name + ": " + e.message }`,
      h,
    );
    expect(r.ok && JSON.parse(r.valueJson!)).toBe(
      "ToolInputError: tools.x.read: the input cannot be converted to JSON (Error: nope)",
    );
    const deep = errorOf(
      await run(`const o = { toJSON() { return JSON.stringify(o) } }; return await tools.x.read(o)`, h),
    );
    expect(`${deep.name}: ${deep.message}`).toMatch(
      /StackOverflowError|ToolInputError: tools\.x\.read: the input cannot be converted to JSON \(InternalError: stack overflow\)/,
    );
    expect(h.calls).toEqual([]);
  });

  test("unicode and emoji inputs cross intact", async () => {
    const h = host();
    const r = await run(`return await tools.x.read({ s: "héllo 😀 \\u2028 \\ud83d" })`, h);
    expect(r.ok && JSON.parse(r.valueJson!)).toEqual({ got: { s: "héllo 😀 \u2028 \ud83d" } });
  });
});

describe("calls the snippet did not await", () => {
  test("a call started in the last slice never reaches the host, and the run says so", async () => {
    const h = host();
    const r = await run(`tools.x.read({ a: 1 }); return 1`, h);
    expect(r.ok && r.valueJson).toBe("1");
    expect(h.calls).toEqual([]);
    expect(r.logs).toEqual([
      {
        level: "warn",
        text: "The run ended with tool calls not awaited: 1 never started and did not run (tools.x.read). Await every tool call (e.g. with Promise.all) before returning.",
      },
    ]);
  });

  test("a tool call made by the return value's toJSON does not run", async () => {
    const h = host();
    const r = await run(`return { toJSON() { tools.x.read("late"); return 1 } }`, h);
    expect(r.ok && r.valueJson).toBe("1");
    expect(h.calls).toEqual([]);
  });

  test("a call already running finishes on the host; what was chained on it never runs", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const h = fakeHost({ "x.slow": () => gate.then(() => "slow"), "x.fast": () => "fast", "x.after": () => "after" });
    const r = await run(`tools.x.slow().then(() => tools.x.after()); return await tools.x.fast()`, h);
    expect(r.ok && r.valueJson).toBe('"fast"');
    expect(r.logs.map((l) => l.text)).toEqual([
      "The run ended with tool calls not awaited: 1 still running were left to finish but their results are lost (tools.x.slow). Await every tool call (e.g. with Promise.all) before returning.",
    ]);
    release();
    await Bun.sleep(50);
    expect(h.calls.map((c) => c.path)).toEqual(["x.slow", "x.fast"]);
  });

  test("a rejection after Promise.race settled, and 100k never-settling promises, are harmless", async () => {
    const h = fakeHost({ "x.ok": () => 1, "x.fail": () => Promise.reject(new Error("late")) });
    const r = await run(
      `const v = await Promise.race([tools.x.ok(), tools.x.fail()]); await tools.x.ok(); return v`,
      h,
    );
    expect(r.ok && r.valueJson).toBe("1");
    const stuck = await runHeavy(
      `const ps = []; for (let i = 0; i < 100_000; i++) ps.push(new Promise(() => {})); await ps[0]`,
    );
    expect(errorOf(stuck).name).toBe("DeadlockError");
  });
});

describe("the tools object", () => {
  test("cannot be replaced, extended or emptied", async () => {
    const r = await run(`
      const out = [];
      for (const f of [() => { tools.x = 1 }, () => { tools.x.read = 1 }, () => { delete tools.x }, () => { tools.y = 1 }, () => Object.setPrototypeOf(tools, {}), () => { globalThis.tools = {} }])
        try { "use strict"; f(); out.push("no error") } catch (e) { out.push(e.name) }
      return [out.length, typeof tools.x.read, Object.keys(tools), Object.isFrozen(tools.x)]`);
    expect(r.ok && JSON.parse(r.valueJson!)).toEqual([6, "function", ["x"], true]);
  });

  test("async generators and for-await over tool calls work", async () => {
    const r = await run(
      `async function* g() { yield await tools.x.read(1); yield await tools.x.other() } const out = []; for await (const v of g()) out.push(v); return out`,
    );
    expect(r.ok && JSON.parse(r.valueJson!)).toEqual([{ got: 1 }, 2]);
  });

  test("tool paths with a then or __proto__ segment are refused before a run", async () => {
    for (const path of ["ns.then", "then", "a.__proto__.b"]) {
      await expect(
        pool.run({ code: "return 1", toolPaths: [path], onToolCall: async () => ({ ok: true, json: "1" }) }),
      ).rejects.toThrow(`Invalid tool path "${path}": "then" and "__proto__" cannot name a tool or group; rename it.`);
    }
  });

  test("a very long tool path works end to end", async () => {
    const path = `${"segment_".repeat(500)}a.${"b".repeat(10_000)}`;
    const h = fakeHost({ [path]: (input) => input });
    const r = await run(`return await tools.${path}({ ok: "✓" })`, h);
    expect(r.ok && JSON.parse(r.valueJson!)).toEqual({ ok: "✓" });
    expect(h.calls.map((c) => c.path)).toEqual([path]);
  });

  test("tools named like Object.prototype members are plain tools inside the VM", async () => {
    const h = fakeHost({
      "ns.constructor": () => "c",
      "ns.toString": () => "t",
      "ns.hasOwnProperty": () => "h",
      "ns.valueOf": () => "v",
    });
    const r = await run(
      `return [await tools.ns.constructor(), await tools.ns.toString(), await tools.ns.hasOwnProperty(), await tools.ns.valueOf()]`,
      h,
    );
    expect(r.ok && JSON.parse(r.valueJson!)).toEqual(["c", "t", "h", "v"]);
  });
});
