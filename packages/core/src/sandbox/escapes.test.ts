/** Security invariant: model code cannot reach the host. Every escape attempt here must fail. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSandboxPool } from "./pool.ts";
import { fakeHost } from "../../test/sandbox-host.ts";
import type { SandboxPool, SandboxResult } from "./types.ts";

let pool: SandboxPool;
beforeAll(async () => {
  pool = createSandboxPool({ minIdle: 1 });
  await pool.warmUp();
});
afterAll(() => pool.close());

const host = () =>
  fakeHost({
    "x.read": (input) => ({ got: input }),
    "x.fail": () => Promise.reject(new Error("/srv/app/secret.ts:12 boom")),
  });

/** Runs the snippet; returns its value, or the error text if it failed. */
async function attempt(code: string): Promise<unknown> {
  const r: SandboxResult = await pool.run({ code, ...host() });
  if (!r.ok) return `${r.error.name}: ${r.error.message}`;
  return r.valueJson === undefined ? undefined : JSON.parse(r.valueJson);
}

const hostNames = [
  "process",
  "Bun",
  "require",
  "module",
  "fetch",
  "globalThis.process",
  "setTimeout",
  "setInterval",
  "queueMicrotask",
  "XMLHttpRequest",
  "WebSocket",
  "Deno",
  "std",
  "os",
  "__dirname",
  "importScripts",
];

describe("sandbox escapes", () => {
  test("no host globals: process, Bun, require, fetch, timers, ...", async () => {
    const code = `return [${hostNames.map((n) => `typeof ${n}`).join(", ")}];`;
    expect(await attempt(code)).toEqual(hostNames.map(() => "undefined"));
  });

  test("globalThis holds only language built-ins plus tools, console and the tool error classes", async () => {
    const names = (await attempt(`return Object.getOwnPropertyNames(globalThis);`)) as string[];
    const extra = names.filter(
      (n) => !/^[A-Z]/.test(n) && !["globalThis", "undefined", "NaN", "Infinity", "eval"].includes(n),
    );
    expect(extra.sort()).toEqual(
      [
        "console",
        "decodeURI",
        "decodeURIComponent",
        "encodeURI",
        "encodeURIComponent",
        "escape",
        "isFinite",
        "isNaN",
        "parseFloat",
        "parseInt",
        "tools",
        "unescape",
      ].sort(),
    );
  });

  test("tools.x.constructor('return process')() reaches nothing", async () => {
    expect(await attempt(`return tools.x.read.constructor("return typeof process")();`)).toBe("undefined");
    expect(String(await attempt(`return tools.x.read.constructor("return process.env")();`))).toStartWith(
      "ScriptError: ReferenceError",
    );
  });

  test("tools.constructor.constructor and tools.x.constructor.constructor reach nothing", async () => {
    expect(String(await attempt(`return tools.constructor.constructor("return process")();`))).toStartWith(
      "ScriptError: TypeError",
    );
    expect(
      await attempt(
        `return tools.x.read.constructor.constructor("return [typeof process, typeof Bun, typeof require]")();`,
      ),
    ).toEqual(["undefined", "undefined", "undefined"]);
  });

  test("Function constructor, AsyncFunction constructor and eval see the same empty world", async () => {
    expect(await attempt(`return Function("return typeof Bun")();`)).toBe("undefined");
    expect(await attempt(`return await (async () => {}).constructor("return typeof require")();`)).toBe("undefined");
    expect(await attempt(`return eval("typeof process + typeof fetch");`)).toBe("undefinedundefined");
    expect(await attempt(`return (0, eval)("this === globalThis && typeof Bun");`)).toBe("undefined");
    expect(String(await attempt(`return eval("process.exit(1)");`))).toStartWith("ScriptError: ReferenceError");
  });

  test("dynamic import fails, including through eval", async () => {
    expect(String(await attempt(`await import("fs");`))).toMatch(/^ScriptError: .*could not load module 'fs'/);
    expect(String(await attempt(`return await eval('import("node:child_process")');`))).toMatch(
      /^ScriptError: .*could not load module/,
    );
    expect(String(await attempt(`return await import("bun");`))).toMatch(/^ScriptError: .*could not load module/);
  });

  test("static import syntax is rejected", async () => {
    expect(String(await attempt(`import fs from "fs"; return 1;`))).toStartWith("ScriptError: SyntaxError");
  });

  test("prototype pollution stays inside the VM and does not ride along in tool input", async () => {
    const h = host();
    const r = await pool.run({
      code: `Object.prototype.polluted = 1; Array.prototype.evil = () => 1; JSON.stringify = () => '{"forged":true}';
             return await tools.x.read({ a: 1 });`,
      ...h,
    });
    expect(r.ok).toBe(true);
    expect(h.calls[0]!.inputJson).toBe('{"a":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>).evil).toBeUndefined();
    // The next run starts from a fresh VM: the pollution is gone there too.
    expect(await attempt(`return [({}).polluted, typeof [].evil];`)).toEqual([null, "undefined"]);
  });

  // Only the pool's fallback: fakeHost rethrows, so onToolCall itself rejects. What a real tool's
  // thrown values may carry across is tested at the runner (codemode/runner.test.ts, "thrown values crossing back").
  test("an onToolCall that rejects crosses as a generic ToolError without host stacks or paths", async () => {
    const v = (await attempt(
      `try { await tools.x.fail({}); } catch (e) { return { name: e.name, message: e.message, stack: e.stack, own: Object.getOwnPropertyNames(e) }; }`,
    )) as Record<string, unknown>;
    expect(v.name).toBe("ToolError");
    expect(v.message).toBe("The tool call failed inside the host.");
    const text = JSON.stringify(v);
    expect(text).not.toContain("/srv");
    expect(text).not.toContain("secret");
    expect(text).not.toContain(".ts");
    expect(text).not.toContain("node_modules");
  });

  test("errors from the VM itself do not mention host paths", async () => {
    const r = await attempt(`function f() { null.x; } f();`);
    expect(String(r)).toStartWith("ScriptError: TypeError");
    expect(String(r)).not.toMatch(/\/(work|srv|home|tmp)\//);
    expect(String(r)).not.toContain("sandbox-prelude");
  });

  test("tool functions cannot be rebound to call arbitrary paths", async () => {
    const h = host();
    const r = await pool.run({
      code: `const f = tools.x.read; const out = [await f.call({ path: "x.fail" }, 1), await f.apply(null, [2])];
             try { Object.defineProperty(tools.x, "fail", { value: tools.x.read }); } catch (e) { out.push(e.name); }
             return out;`,
      ...h,
    });
    expect(r.ok && JSON.parse(r.valueJson!)).toEqual([{ got: 1 }, { got: 2 }, "TypeError"]);
    expect(h.calls.map((c) => c.path)).toEqual(["x.read", "x.read"]);
  });

  test("a snippet breaking out of the wrapper is still inside the VM", async () => {
    expect(await attempt(`})(); (async () => { return [typeof process, typeof Bun]; `)).toEqual([
      "undefined",
      "undefined",
    ]);
    expect(await attempt(`return (function(){ return typeof this.process; })();`)).toBe("undefined");
  });
});
