/** Security invariant: a runaway snippet fails its own run with a clear error; the pool keeps working. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createSandboxPool } from "./pool.ts";
import { fakeHost, sandboxChildren } from "../../test/sandbox-host.ts";
import type { SandboxErrorName, SandboxPool, SandboxResult } from "./types.ts";

// Every test here runs real sandbox processes: a loaded 2-core machine can take seconds per run.
setDefaultTimeout(30_000);

let pool: SandboxPool;
beforeAll(async () => {
  pool = createSandboxPool({ minIdle: 1, maxChildren: 8 });
  await pool.warmUp();
});
afterAll(() => pool.close());

function expectError(r: SandboxResult, name: SandboxErrorName): string {
  if (r.ok) throw new Error(`expected ${name}, but the run succeeded with ${r.valueJson}`);
  expect(r.error.name).toBe(name);
  return r.error.message;
}

const works = async (on: SandboxPool = pool) => {
  const r = await on.run({ code: "return 'ok';", ...fakeHost({}) });
  expect(r.ok && r.valueJson).toBe('"ok"');
};

/** Peak resident set size of a process, in bytes. */
const peakRss = (pid: string) =>
  Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

describe("sandbox limits", () => {
  test("an endless loop fails with CpuLimitError after about its CPU budget", async () => {
    const r = await pool.run({ code: "let i = 0; while (true) { i++; }", ...fakeHost({}), limits: { cpuMs: 100 } });
    expect(expectError(r, "CpuLimitError")).toContain("100 ms CPU budget");
    // CPU time, not wall time: a busy machine does not move it. Wide margin over the budget.
    expect(r.stats.cpuMs).toBeGreaterThanOrEqual(100);
    expect(r.stats.cpuMs).toBeLessThan(1_000);
    await works();
  });

  test("the CPU budget is enforced inside the VM on its own: the run fails, the child is not killed", async () => {
    // A watchdog grace far beyond the test's timeout: only the in-VM interrupt can end this loop.
    const before = new Set(sandboxChildren());
    const own = createSandboxPool({ minIdle: 1, maxChildren: 1, watchdogGraceMs: 600_000 });
    try {
      await own.warmUp();
      const [pid] = sandboxChildren().filter((p) => !before.has(p));
      const r = await own.run({ code: "let i = 0; while (true) { i++; }", ...fakeHost({}), limits: { cpuMs: 100 } });
      const message = expectError(r, "CpuLimitError");
      expect(message).toContain("inside the sandbox (waiting for tools does not count)");
      expect(message).not.toContain("killed");
      await works(own);
      // The same process served the next run: the in-VM limit needs no kill.
      expect(sandboxChildren().filter((p) => !before.has(p))).toEqual([pid!]);
    } finally {
      await own.close();
    }
  }, 30_000); // spawns sandbox processes: slow on a loaded machine

  test("CPU is summed over slices between tool calls", async () => {
    const host = fakeHost({ "a.tick": () => 1 });
    const r = await pool.run({
      code: "for (let k = 0; k < 1000; k++) { await tools.a.tick(); const end = Date.now() + 5; while (Date.now() < end) {} }",
      ...host,
      limits: { cpuMs: 150 },
    });
    expectError(r, "CpuLimitError");
    expect(host.calls.length).toBeGreaterThan(5);
    expect(host.calls.length).toBeLessThan(100);
  });

  test("CPU spent inside built-ins (where the interrupt never fires) is summed over slices and ends the run", async () => {
    // Each slice is one sort (~70 ms of CPU, all inside C) and a tool call; no JS loop runs long
    // enough to reach the interrupt handler, so only the check after each slice can stop it.
    const own = createSandboxPool({ minIdle: 1, maxChildren: 1, watchdogGraceMs: 600_000 });
    try {
      const host = fakeHost({ "a.tick": () => 1 });
      const code = `const base = Array.from({ length: 500 }, (_, i) => String((i * 7919) % 1000)).join(",");
        const a = (base + ",").repeat(150).split(",");
        for (let k = 0; k < 8; k++) { await tools.a.tick(); a.slice().sort(); }
        return "all slices ran";`;
      const r = await own.run({ code, ...host, limits: { cpuMs: 150, memoryBytes: 256 * 1024 * 1024 } });
      expect(expectError(r, "CpuLimitError")).toContain("inside the sandbox (waiting for tools does not count)");
      expect(host.calls.length).toBeLessThan(8);
    } finally {
      await own.close();
    }
  }, 30_000); // spawns sandbox processes: slow on a loaded machine

  test("a loop inside a built-in (sort of a huge array) is killed by the watchdog and the child is replaced", async () => {
    // sort() and reverse() run in C without ever reaching the interrupt handler. About 5 s of CPU
    // in all, in 30 MB: a parent starved on a busy machine still samples the child long before it
    // ends. (A comparator here would call back into JS and let the interrupt handler stop it first;
    // a bigger array would hit the memory limit first.)
    const code = `const base = Array.from({ length: 2000 }, () => Math.random().toString(36).slice(2, 9)).join(",");
                  const a = (base + ",").repeat(150).split(",");
                  ${"a.sort(); a.reverse(); ".repeat(40)} return a.length;`;
    const r = await pool.run({ code, ...fakeHost({}), limits: { cpuMs: 100, memoryBytes: 256 * 1024 * 1024 } });
    expect(expectError(r, "CpuLimitError")).toContain(
      "stopped responding (stuck inside a built-in such as sort on a huge array), so its sandbox process was killed",
    );
    await works();
    await works();
  }, 30_000); // spawns sandbox processes: slow on a loaded machine

  test("an allocation bomb fails with MemoryLimitError; the child's peak memory stays within the cap", async () => {
    const MB = 1024 * 1024;
    const bomb = `const keep = []; for (;;) keep.push("x".repeat(4096) + keep.length);`;
    /** Runs the bomb in a one-child pool; returns the child's peak RSS (VmHWM) when idle and after the bomb. */
    const peakOfBomb = async (limitMb: number) => {
      const before = new Set(sandboxChildren());
      // CPU is not what this test is about: a loaded machine must not turn the bomb into a CpuLimitError.
      const own = createSandboxPool({
        minIdle: 1,
        maxChildren: 1,
        limits: { memoryBytes: limitMb * MB, cpuMs: 30_000 },
      });
      try {
        await own.warmUp();
        await works(own);
        const [pid] = sandboxChildren().filter((p) => !before.has(p));
        expect(pid).toBeDefined();
        const idle = peakRss(pid!);
        const r = await own.run({ code: bomb, ...fakeHost({}) });
        expect(expectError(r, "MemoryLimitError")).toContain(`${limitMb} MB`);
        const after = peakRss(pid!); // same child: an out-of-memory run does not kill it
        await works(own);
        return { idle, after };
      } finally {
        await own.close();
      }
    };
    // Slack for the next run's fresh instance, prepared while the spent one is still resident.
    const margin = 24 * MB;
    const capped = await peakOfBomb(32);
    expect(capped.after - capped.idle).toBeLessThan(32 * MB + margin);
    // The measurement is sensitive: the same bomb under a 128 MB cap grows the child well past that bound.
    const wider = await peakOfBomb(128);
    expect(wider.after - wider.idle).toBeGreaterThan(32 * MB + margin);
    await works();
  }, 30_000); // spawns sandbox processes: slow on a loaded machine

  test("a typed-array bomb fails with MemoryLimitError", async () => {
    const r = await pool.run({
      code: `const a = []; for (;;) a.push(new Uint8Array(1024 * 1024));`,
      ...fakeHost({}),
      limits: { memoryBytes: 32 * 1024 * 1024 },
    });
    expectError(r, "MemoryLimitError");
  });

  test("runaway recursion fails with StackOverflowError", async () => {
    const r = await pool.run({ code: `function f(n) { return f(n + 1) + 1; } return f(0);`, ...fakeHost({}) });
    expect(expectError(r, "StackOverflowError")).toContain("recursion");
    await works();
  });

  test("awaiting a promise that can never settle fails with DeadlockError, at once rather than at the wall-clock limit", async () => {
    const r = await pool.run({
      code: `console.log("waiting"); await new Promise(() => {}); return 1;`,
      ...fakeHost({}),
      limits: { wallMs: 600_000 },
    });
    expect(expectError(r, "DeadlockError")).toContain("can never settle");
    expect(r.logs).toEqual([{ level: "log", text: "waiting" }]);
  });

  test("a pool with default limits caps each run's memory at 64 MB", async () => {
    const own = createSandboxPool({ minIdle: 1, maxChildren: 1 });
    try {
      const alloc = (mb: number) =>
        own.run({
          code: `const a = new Uint8Array(${mb} * 1024 * 1024); a[a.length - 1] = 1; return a.length;`,
          ...fakeHost({}),
        });
      const fits = await alloc(48);
      expect(fits.ok && fits.valueJson).toBe(String(48 * 1024 * 1024));
      expect(expectError(await alloc(72), "MemoryLimitError")).toContain("limit 64 MB");
    } finally {
      await own.close();
    }
  }, 30_000); // spawns sandbox processes: slow on a loaded machine

  test("a deadlock after tool calls is still detected", async () => {
    const host = fakeHost({ "a.get": () => 1 });
    const r = await pool.run({
      code: `await tools.a.get(); let resolveLater; await new Promise((r) => { resolveLater = r; });`,
      ...host,
    });
    expectError(r, "DeadlockError");
  });

  test("a huge return value fails with OutputLimitError", async () => {
    const r = await pool.run({ code: `return "x".repeat(300 * 1024);`, ...fakeHost({}) });
    expect(expectError(r, "OutputLimitError")).toContain("262144-byte limit");
    const multiByte = await pool.run({
      code: `return "é".repeat(1000);`,
      ...fakeHost({}),
      limits: { maxOutputBytes: 1500 },
    });
    expectError(multiByte, "OutputLimitError");
  });

  test("huge console output is truncated with a marker; the run still succeeds", async () => {
    const r = await pool.run({
      code: `for (let i = 0; i < 10000; i++) console.log("line " + i + " " + "y".repeat(50)); return "done";`,
      ...fakeHost({}),
      limits: { maxLogBytes: 4096 },
    });
    expect(r.ok).toBe(true);
    const total = r.logs.reduce((n, l) => n + Buffer.byteLength(l.text) + 1, 0);
    expect(total).toBeLessThan(4096 + 200);
    expect(r.logs.at(-1)!.text).toContain("console output truncated");
    expect(r.logs[0]!.text).toStartWith("line 0 ");
  });

  test("too many tool calls fail with ToolCallLimitError", async () => {
    const host = fakeHost({ "a.get": () => 1 });
    const r = await pool.run({
      code: `for (let i = 0; i < 100; i++) { try { await tools.a.get(i); } catch {} }`,
      ...host,
      limits: { maxToolCalls: 10 },
    });
    expect(expectError(r, "ToolCallLimitError")).toContain("more than 10 tool calls");
    expect(host.calls.length).toBe(10);
    const exactly = await pool.run({
      code: `for (let i = 0; i < 10; i++) await tools.a.get(i); return "all ten";`,
      ...fakeHost({ "a.get": () => 1 }),
      limits: { maxToolCalls: 10 },
    });
    expect(exactly.ok && exactly.valueJson).toBe('"all ten"');
  });

  test("a tool input over maxInputChars is a catchable ToolInputError in the VM and never reaches the host", async () => {
    const host = fakeHost({ "t.echo": (input) => input });
    const r = await pool.run({
      code: `try { await tools.t.echo({ blob: "x".repeat(2000) }); return "sent"; }
             catch (e) { return [e instanceof ToolInputError, e.message]; }`,
      ...host,
      limits: { maxInputChars: 1000 },
    });
    expect(r.ok && JSON.parse(r.valueJson!)).toEqual([
      true,
      "tools.t.echo: the input is 2011 characters of JSON; the limit is 1000",
    ]);
    expect(host.calls).toHaveLength(0);
    const small = await pool.run({
      code: `return (await tools.t.echo({ blob: "x" })).blob;`,
      ...host,
      limits: { maxInputChars: 1000 },
    });
    expect(small.ok && small.valueJson).toBe('"x"');
  });

  test("a return value that is not JSON-serializable is a ScriptError", async () => {
    const r = await pool.run({ code: `const o = {}; o.o = o; return o;`, ...fakeHost({}) });
    expect(expectError(r, "ScriptError")).toContain("cannot be converted to JSON");
  });
});

describe("sandbox limits: deep recursion through built-ins", () => {
  test("recursion through Array.prototype.map, JSON.stringify and getters still fails cleanly", async () => {
    for (const code of [
      `function g() { return [1].map(() => g())[0]; } return g();`,
      `const o = {}; Object.defineProperty(o, "x", { get() { return o.x; } }); return o.x;`,
      `function h() { return JSON.stringify({ toJSON: h }); } return h();`,
    ]) {
      const r = await pool.run({ code, ...fakeHost({}) });
      expectError(r, "StackOverflowError");
    }
    await works();
  });

  test("a caught stack overflow lets the snippet continue", async () => {
    const r = await pool.run({
      code: `function f() { return f() + 1; } try { f(); } catch (e) { return e.message; }`,
      ...fakeHost({}),
    });
    expect(r.ok && JSON.parse(r.valueJson!)).toBe("stack overflow");
  });
});
