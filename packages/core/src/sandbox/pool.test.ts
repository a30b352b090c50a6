import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createSandboxPool } from "./pool.ts";
import { fakeHost, sandboxChildren, ToolFailure } from "../../test/sandbox-host.ts";
import type { HostCallResult, SandboxPool, SandboxResult } from "./types.ts";

// Every test here runs real sandbox processes: a loaded 2-core machine can take seconds per run.
setDefaultTimeout(30_000);

let pool: SandboxPool;
beforeAll(async () => {
  pool = createSandboxPool({ minIdle: 2, maxChildren: 8 });
  await pool.warmUp();
});
afterAll(() => pool.close());

const value = (r: SandboxResult) => {
  if (!r.ok) throw new Error(`run failed: ${r.error.name}: ${r.error.message}`);
  return r.valueJson === undefined ? undefined : JSON.parse(r.valueJson);
};

describe("sandbox pool: results", () => {
  test("returns JSON values; undefined return gives no valueJson", async () => {
    const host = fakeHost({});
    expect(value(await pool.run({ code: "return 1 + 1;", ...host }))).toBe(2);
    expect(value(await pool.run({ code: "return { a: [1, 'x', null], b: true };", ...host }))).toEqual({
      a: [1, "x", null],
      b: true,
    });
    const none = await pool.run({ code: "const x = 1;", ...host });
    expect(none.ok).toBe(true);
    expect(none.ok && none.valueJson).toBeUndefined();
  });

  test("top-level await and return work; stats are reported", async () => {
    const r = await pool.run({ code: "const v = await Promise.resolve(41); return v + 1;", ...fakeHost({}) });
    expect(value(r)).toBe(42);
    expect(r.stats.toolCalls).toBe(0);
    expect(r.stats.cpuMs).toBeGreaterThanOrEqual(0);
    expect(r.stats.wallMs).toBeGreaterThan(0);
  });

  test("captures console output, formatting objects as JSON", async () => {
    const r = await pool.run({
      code: `console.log("hello", 1, { a: 1 }, [1, 2]); console.info("i"); console.warn("w"); console.error(new TypeError("bad")); console.debug(undefined, null);
             const o = {}; o.self = o; console.log(o); return "done";`,
      ...fakeHost({}),
    });
    expect(value(r)).toBe("done");
    expect(r.logs.map((l) => l.level)).toEqual(["log", "info", "warn", "error", "debug", "log"]);
    expect(r.logs[0]!.text).toBe('hello 1 {"a":1} [1,2]');
    expect(r.logs[3]!.text).toStartWith("TypeError: bad");
    expect(r.logs[4]!.text).toBe("undefined null");
    expect(r.logs[5]!.text).toBe('{"self":"[Circular]"}');
  });

  test("script errors come back as ScriptError with name, message and snippet line", async () => {
    const r = await pool.run({ code: "const a = 1;\nnull.foo;", ...fakeHost({}) });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.name).toBe("ScriptError");
    expect(r.error.message).toStartWith("TypeError: cannot read property 'foo' of null");
    expect(r.error.message).toContain("snippet.js:2");
    const syntax = await pool.run({ code: "return (", ...fakeHost({}) });
    expect(!syntax.ok && syntax.error.message).toStartWith("SyntaxError");
  });
});

describe("sandbox pool: tool calls", () => {
  test("input crosses as JSON text and the answer is parsed back", async () => {
    const host = fakeHost({ "calendar.create": (input) => ({ created: true, echo: input }) });
    const r = await pool.run({
      code: `return await tools.calendar.create({ title: "Standup", at: new Date(0), tags: ["a"], skip: undefined, n: 1.5 });`,
      ...host,
    });
    expect(value(r)).toEqual({
      created: true,
      echo: { title: "Standup", at: "1970-01-01T00:00:00.000Z", tags: ["a"], n: 1.5 },
    });
    expect(host.calls).toHaveLength(1);
    expect(host.calls[0]!.path).toBe("calendar.create");
    expect(JSON.parse(host.calls[0]!.inputJson)).toEqual({
      title: "Standup",
      at: "1970-01-01T00:00:00.000Z",
      tags: ["a"],
      n: 1.5,
    });
    expect(r.stats.toolCalls).toBe(1);
  });

  test("a tool with no input sends null; a tool answering undefined resolves undefined", async () => {
    const host = fakeHost({ "a.nothing": () => undefined });
    const r = await pool.run({ code: `const v = await tools.a.nothing(); return v === undefined;`, ...host });
    expect(value(r)).toBe(true);
    expect(host.calls[0]!.inputJson).toBe("null");
  });

  test("input that is not JSON rejects with ToolInputError inside the VM and never reaches the host", async () => {
    const host = fakeHost({ "a.b": () => 1 });
    const r = await pool.run({
      code: `const out = [];
        for (const input of [() => 1, 10n, (() => { const o = {}; o.o = o; return o; })()]) {
          try { await tools.a.b(input); } catch (e) { out.push(e instanceof ToolInputError && e.message.startsWith("tools.a.b:")); }
        }
        return out;`,
      ...host,
    });
    expect(value(r)).toEqual([true, true, true]);
    expect(host.calls).toHaveLength(0);
  });

  test("tools is a frozen tree shaped by the paths", async () => {
    const host = fakeHost({ "calendar.create": () => 1, "calendar.list": () => 2, "mail.send": () => 3 });
    const r = await pool.run({
      code: `"use strict";
        const out = { top: Object.keys(tools).sort(), cal: Object.keys(tools.calendar).sort(), frozen: Object.isFrozen(tools) && Object.isFrozen(tools.calendar) && Object.isFrozen(tools.calendar.create) };
        try { tools.calendar.create = () => "hijacked"; out.assigned = true; } catch (e) { out.assignError = e.name; }
        try { tools.evil = 1; } catch (e) { out.addError = e.name; }
        out.still = await tools.calendar.create({});
        return out;`,
      ...host,
    });
    expect(value(r)).toEqual({
      top: ["calendar", "mail"],
      cal: ["create", "list"],
      frozen: true,
      assignError: "TypeError",
      addError: "TypeError",
      still: 1,
    });
  });

  test("calls made in one Promise.all are all in flight on the host at once", async () => {
    // Each tool call waits until all ten have reached the host. Were the calls serialized, the
    // first would wait alone: it is released by a fallback timer and the count below stays at 1.
    let inFlight = 0;
    let maxInFlight = 0;
    let releaseAll!: () => void;
    const allArrived = new Promise<void>((resolve) => (releaseAll = resolve));
    const fallback = setTimeout(releaseAll, 10_000);
    const tools: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (let i = 0; i < 10; i++) {
      tools[`slow.t${i}`] = async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        if (inFlight === 10) releaseAll();
        await allArrived;
        inFlight--;
        return i;
      };
    }
    const host = fakeHost(tools);
    const r = await pool.run({
      code: `return await Promise.all([${Object.keys(tools)
        .map((p) => `tools.${p}({})`)
        .join(", ")}]);`,
      ...host,
    });
    clearTimeout(fallback);
    expect(value(r)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(maxInFlight).toBe(10);
  });

  test("answers settle alike one at a time and batched in one tick, invalid JSON from the host included", async () => {
    // One awaited call is answered alone (the VM's settleValue); calls answered in the same tick
    // travel as one batch (settleAll). Each kind of answer must come out the same either way.
    const answers: Record<string, HostCallResult> = {
      "t.value": { ok: true, json: '{"n":1,"s":"a:b:c"}' },
      "t.none": { ok: true, json: undefined },
      "t.fail": { ok: false, error: { name: "ToolError", message: "nope", code: "x" } },
      "t.garbled": { ok: true, json: "{not json" },
    };
    const toolPaths = Object.keys(answers);
    const onToolCall = async (path: string) => answers[path]!;
    const probe = `async (call) => { try { const v = await call; return ["ok", v === undefined ? "undefined" : v]; }
      catch (e) { return ["err", e.name, e.message, e.code ?? null]; } }`;
    const calls = toolPaths.map((p) => `tools.${p}({})`).join(", ");
    const r = await pool.run({
      code: `const probe = ${probe};
        const alone = [];
        for (const call of [${toolPaths.map((p) => `() => tools.${p}({})`).join(", ")}]) alone.push(await probe(call()));
        const batched = await Promise.all([${calls}].map(probe));
        return { alone, batched };`,
      toolPaths,
      onToolCall,
    });
    const expected = [
      ["ok", { n: 1, s: "a:b:c" }],
      ["ok", "undefined"],
      ["err", "ToolError", "nope", "x"],
      ["err", "ToolError", "tools.t.garbled returned invalid JSON", null],
    ];
    expect(value(r)).toEqual({ alone: expected, batched: expected });
  });

  test("a denial is catchable by class and the run continues", async () => {
    const host = fakeHost({
      "mail.send": () => {
        throw new ToolFailure({ name: "ToolDeniedError", message: "Denied by operator: not now", code: "denied" });
      },
      "mail.draft": (input) => ({ drafted: input }),
    });
    const r = await pool.run({
      code: `let caught;
        try { await tools.mail.send({ to: "x" }); } catch (e) {
          caught = { denied: e instanceof ToolDeniedError, tool: e instanceof ToolError, error: e instanceof Error,
                     input: e instanceof ToolInputError, name: e.name, message: e.message, code: e.code };
        }
        const next = await tools.mail.draft({ to: "x" });
        return { caught, next };`,
      ...host,
    });
    expect(value(r)).toEqual({
      caught: {
        denied: true,
        tool: true,
        error: true,
        input: false,
        name: "ToolDeniedError",
        message: "Denied by operator: not now",
        code: "denied",
      },
      next: { drafted: { to: "x" } },
    });
  });

  test("ToolInputError and other host error names map to the right classes", async () => {
    const host = fakeHost({
      "a.bad": () => {
        throw new ToolFailure({ name: "ToolInputError", message: "title: Required" });
      },
      "a.other": () => {
        throw new ToolFailure({ name: "RateLimitError", message: "slow down", code: "rate" });
      },
    });
    const r = await pool.run({
      code: `const out = [];
        for (const f of [tools.a.bad, tools.a.other]) {
          try { await f({}); } catch (e) { out.push([e instanceof ToolInputError, e instanceof ToolError, e.name, e.message, e.code ?? null]); }
        }
        return out;`,
      ...host,
    });
    expect(value(r)).toEqual([
      [true, true, "ToolInputError", "title: Required", null],
      [false, true, "RateLimitError", "slow down", "rate"],
    ]);
  });

  test("an uncaught tool error fails the run as ScriptError naming the error", async () => {
    const host = fakeHost({
      "mail.send": () => {
        throw new ToolFailure({ name: "ToolDeniedError", message: "Denied" });
      },
    });
    const r = await pool.run({ code: `await tools.mail.send({});`, ...host });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error).toEqual({
        name: "ScriptError",
        message: "ToolDeniedError: Denied\n    at tools.mail.send (host)",
      });
  });

  test("a tool that throws unexpectedly crosses as a generic ToolError without host details", async () => {
    const host = fakeHost({
      "a.boom": () => {
        throw new Error("ENOENT: /home/secret/path/config.json token=sk-123");
      },
    });
    const r = await pool.run({
      code: `try { await tools.a.boom({}); } catch (e) { return { name: e.name, message: e.message, stack: String(e.stack), keys: Object.getOwnPropertyNames(e) }; }`,
      ...host,
    });
    const v = value(r);
    expect(v.name).toBe("ToolError");
    expect(JSON.stringify(v)).not.toContain("secret");
    expect(JSON.stringify(v)).not.toContain("/home");
    expect(v.stack).toBe("    at tools.a.boom (host)\n");
  });

  test("waiting for a tool (e.g. an approval) does not count against the CPU budget", async () => {
    const host = fakeHost({ "ops.approve": async () => (await Bun.sleep(300), { approved: true }) });
    const r = await pool.run({ code: `return await tools.ops.approve({});`, ...host, limits: { cpuMs: 100 } });
    expect(value(r)).toEqual({ approved: true });
    expect(r.stats.wallMs).toBeGreaterThanOrEqual(290);
    expect(r.stats.cpuMs).toBeLessThan(100);
  });

  test("wallMs bounds the whole run, waits included", async () => {
    // A tool that never answers: only the wall-clock limit can end the run.
    const host = fakeHost({ "ops.wait": () => new Promise(() => {}) });
    const r = await pool.run({
      code: `console.log("before"); return await tools.ops.wait({});`,
      ...host,
      limits: { wallMs: 200 },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.name).toBe("WallClockError");
    expect(r.logs).toEqual([{ level: "log", text: "before" }]);
    expect(value(await pool.run({ code: "return 'still works';", ...fakeHost({}) }))).toBe("still works");
  });

  test("abort kills the run with AbortedError; an already-aborted signal never starts", async () => {
    // A tool that never answers: only the abort can end the run.
    const host = fakeHost({ "ops.wait": () => new Promise(() => {}) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await pool.run({ code: `return await tools.ops.wait({});`, ...host, signal: controller.signal });
    expect(!r.ok && r.error.name).toBe("AbortedError");

    const spinning = new AbortController();
    setTimeout(() => spinning.abort(), 100);
    const loop = await pool.run({ code: `while (true) {}`, ...fakeHost({}), signal: spinning.signal });
    expect(!loop.ok && loop.error.name).toBe("AbortedError");

    const pre = await pool.run({ code: "return 1;", ...fakeHost({}), signal: AbortSignal.abort() });
    expect(!pre.ok && pre.error.name).toBe("AbortedError");
    expect(value(await pool.run({ code: "return 2;", ...fakeHost({}) }))).toBe(2);
  });

  test("20 concurrent runs, each with its own tool calls", async () => {
    const host = fakeHost({ "math.double": async (n) => (await Bun.sleep(20), (n as number) * 2) });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        pool.run({
          code: `const a = await tools.math.double(${i}); const [b, c] = await Promise.all([tools.math.double(a), tools.math.double(1)]); return a + b + c;`,
          ...host,
        }),
      ),
    );
    expect(results.map(value)).toEqual(Array.from({ length: 20 }, (_, i) => i * 2 + i * 4 + 2));
    expect(host.calls).toHaveLength(60);
  });

  test("rejects malformed tool paths with a clear error", async () => {
    expect(
      pool.run({ code: "", toolPaths: ["calendar..create"], onToolCall: async () => ({ ok: true, json: "1" }) }),
    ).rejects.toThrow(/Invalid tool path "calendar..create"/);
  });
});

describe("sandbox pool: limits are checked", () => {
  test("a zero, negative or non-number limit is refused with a message naming it, for the pool and for a run", async () => {
    expect(() => createSandboxPool({ limits: { cpuMs: 0 } })).toThrow(
      "createSandboxPool limits: cpuMs must be a positive number (got 0).",
    );
    expect(() => createSandboxPool({ limits: { memoryBytes: -1 } })).toThrow("memoryBytes must be a positive number");
    expect(() => createSandboxPool({ limits: { wallMs: Number.NaN } })).toThrow("wallMs must be a positive number");
    await expect(pool.run({ code: "return 1;", ...fakeHost({}), limits: { maxToolCalls: 0 } })).rejects.toThrow(
      "run limits: maxToolCalls must be a positive number (got 0).",
    );
  });
});

describe("sandbox pool: process lifecycle", () => {
  test("a child that dies mid-run fails only its own run; the pool replaces it", async () => {
    const before = new Set(sandboxChildren());
    const own = createSandboxPool({ minIdle: 0 });
    try {
      const slow = fakeHost({ "ops.wait": async () => (await Bun.sleep(400), "late") });
      const first = own.run({ code: `return await tools.ops.wait({});`, ...slow });
      while (slow.calls.length === 0) await Bun.sleep(5);
      const [victim] = sandboxChildren().filter((p) => !before.has(p));
      expect(victim).toBeDefined();
      const other = own.run({
        code: `return await tools.ops.wait({});`,
        ...fakeHost({ "ops.wait": async () => (await Bun.sleep(100), "fine") }),
      });
      process.kill(Number(victim), "SIGKILL");
      const crashed = await first;
      expect(!crashed.ok && crashed.error.name).toBe("SandboxCrashError");
      expect(value(await other)).toBe("fine");
      expect(value(await own.run({ code: "return 3;", ...fakeHost({}) }))).toBe(3);
    } finally {
      await own.close();
    }
  }, 30_000); // spawns sandbox processes: slow on a loaded machine

  test("surplus idle children are retired after idleRetireMs", async () => {
    const before = new Set(sandboxChildren());
    const own = createSandboxPool({ minIdle: 1, idleRetireMs: 200 });
    try {
      // Each call waits until all four runs are in flight, so four children are needed at once.
      let arrived = 0;
      let releaseAll!: () => void;
      const allArrived = new Promise<void>((resolve) => (releaseAll = resolve));
      const host = fakeHost({ "ops.wait": async () => (++arrived === 4 && releaseAll(), await allArrived, 1) });
      await Promise.all([1, 2, 3, 4].map(() => own.run({ code: `return await tools.ops.wait({});`, ...host })));
      const grown = sandboxChildren().filter((p) => !before.has(p)).length;
      expect(grown).toBeGreaterThanOrEqual(4);
      // Retirement runs on its own timer; poll for it instead of guessing how long a loaded machine needs.
      const mine = () => sandboxChildren().filter((p) => !before.has(p)).length;
      // (Four children preparing fresh instances on a loaded 2-core machine can take tens of seconds.)
      for (const until = Date.now() + 60_000; mine() > 1 && Date.now() < until; ) await Bun.sleep(50);
      expect(mine()).toBe(1);
      expect(value(await own.run({ code: "return 4;", ...fakeHost({}) }))).toBe(4);
    } finally {
      await own.close();
    }
  }, 90_000);

  test("warmUp({ ready: 1 }) resolves with one child ready while every other minIdle child is already spawned", async () => {
    const before = new Set(sandboxChildren());
    const own = createSandboxPool({ minIdle: 2 });
    try {
      await own.warmUp({ ready: 1 });
      expect(sandboxChildren().filter((p) => !before.has(p)).length).toBeGreaterThanOrEqual(2);
      expect(value(await own.run({ code: "return 5;", ...fakeHost({}) }))).toBe(5);
      await own.warmUp(); // and the full warm-up still completes
      expect(value(await own.run({ code: "return 6;", ...fakeHost({}) }))).toBe(6);
    } finally {
      await own.close();
    }
  }, 30_000);

  test("children get an empty environment and close() leaves no processes behind", async () => {
    const before = new Set(sandboxChildren());
    const own = createSandboxPool({ minIdle: 2 });
    await own.warmUp();
    const mine = sandboxChildren().filter((p) => !before.has(p));
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const pid of mine) {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      expect(environ).not.toContain("PATH=");
      expect(environ).not.toContain("HOME=");
    }
    await own.close();
    await Bun.sleep(50);
    const left = sandboxChildren().filter((p) => mine.includes(p));
    expect(left).toEqual([]);
    expect(
      own.run({ code: "return 1", toolPaths: [], onToolCall: async () => ({ ok: true, json: "1" }) }),
    ).rejects.toThrow(/closed/);
  });
});

describe("sandbox pool: instances restored between runs", () => {
  test("nothing a run leaves behind reaches the next run on the same child, and Math.random is reseeded", async () => {
    const own = createSandboxPool({ minIdle: 1, maxChildren: 1 });
    try {
      const seen: unknown[] = [];
      for (let i = 0; i < 8; i++) {
        const r = await own.run({
          code: `const before = [typeof globalThis.left, typeof Array.prototype.left, JSON.stringify.left];
                 globalThis.left = 1; Array.prototype.left = 2; JSON.stringify.left = 3; Object.freeze(Math);
                 const big = new Uint8Array(1 << 20).fill(7);
                 return { before, fresh: new Uint8Array(1 << 20).every((b) => b === 0), r: Math.random() };`,
          ...fakeHost({}),
        });
        const v = value(r) as { before: unknown[]; fresh: boolean; r: number };
        expect(v.before).toEqual(["undefined", "undefined", null]);
        expect(v.fresh).toBe(true);
        seen.push(v.r);
      }
      expect(new Set(seen).size).toBe(seen.length);
    } finally {
      await own.close();
    }
  });
});

describe("sandbox pool: tools built ahead of a run", () => {
  test("a child prepared with one tool set serves a run with another set correctly, and back", async () => {
    const single = createSandboxPool({ minIdle: 1, maxChildren: 1 });
    try {
      const a = fakeHost({ "alpha.one": () => "a1", "alpha.two": () => "a2" });
      const b = fakeHost({ "beta.one": () => "b1" });
      const probe = `return [typeof tools.alpha, typeof tools.beta, Object.isFrozen(tools)];`;
      // The same array twice (second run reuses the paths the child already has), then another set.
      expect(value(await single.run({ code: `${"return await tools.alpha.one({});"}`, ...a }))).toBe("a1");
      expect(value(await single.run({ code: probe, ...a }))).toEqual(["object", "undefined", true]);
      expect(value(await single.run({ code: "return await tools.beta.one({});", ...b }))).toBe("b1");
      expect(value(await single.run({ code: probe, ...b }))).toEqual(["undefined", "object", true]);
      // A new array with the same content as an earlier set also works.
      expect(value(await single.run({ code: probe, ...a, toolPaths: [...a.toolPaths] }))).toEqual([
        "object",
        "undefined",
        true,
      ]);
      const r = await single.run({ code: "return await tools.alpha.two({});", ...a });
      expect(value(r)).toBe("a2");
    } finally {
      await single.close();
    }
  });
});

/**
 * A busy host slows runs down and does not fail them. A stopped process (SIGSTOP) is what a child
 * starved of CPU looks like from outside, only longer and on cue: its wall time grows, its CPU
 * time does not.
 */
describe("sandbox pool: a busy host", () => {
  const newChildOf = (before: Set<string>) => sandboxChildren().find((p) => !before.has(p));

  test("a child that starts and dies before it is ready does not fail the run waiting for it", async () => {
    const before = new Set(sandboxChildren());
    const own = createSandboxPool({ minIdle: 0, maxChildren: 1 });
    try {
      const waiting = own.run({ code: "return 'started on the next try';", ...fakeHost({}) });
      // run() spawned the child synchronously; it cannot have compiled QuickJS yet.
      const first = newChildOf(before);
      expect(first).toBeDefined();
      process.kill(Number(first), "SIGKILL");
      expect(value(await waiting)).toBe("started on the next try");
    } finally {
      await own.close();
    }
  }, 30_000);

  test("a run queued for a child leaves the queue when its signal aborts; the run ahead is untouched", async () => {
    const own = createSandboxPool({ minIdle: 1, maxChildren: 1 });
    try {
      await own.warmUp();
      let letGo!: () => void;
      const gate = new Promise<string>((resolve) => (letGo = () => resolve("first")));
      const host = fakeHost({ "ops.wait": () => gate });
      const ahead = own.run({ code: "return await tools.ops.wait({});", ...host });
      while (host.calls.length === 0) await Bun.sleep(5);
      const controller = new AbortController();
      const queued = own.run({ code: "return 'never';", ...fakeHost({}), signal: controller.signal });
      controller.abort();
      const r = await queued;
      expect(!r.ok && r.error.name).toBe("AbortedError");
      letGo();
      expect(value(await ahead)).toBe("first");
      expect(value(await own.run({ code: "return 'next';", ...fakeHost({}) }))).toBe("next");
    } finally {
      await own.close();
    }
  }, 30_000);

  test("a child kept off the CPU past its budget (busy, not stuck) is not killed by the watchdog", async () => {
    const before = new Set(sandboxChildren());
    const own = createSandboxPool({ minIdle: 1, maxChildren: 1, watchdogGraceMs: 100 });
    try {
      await own.warmUp();
      const child = Number(newChildOf(before));
      let resumed!: () => void;
      const resumedAt = new Promise<void>((resolve) => (resumed = resolve));
      const host = fakeHost({
        // Stops the child, then answers: the parent counts it busy from the answer on.
        "host.stall": () => {
          process.kill(child, "SIGSTOP");
          return "stalled";
        },
      });
      const run = own.run({
        code: "const s = await tools.host.stall({}); let n = 0; for (let i = 0; i < 1000; i++) n += i; return [s, n];",
        ...host,
        limits: { cpuMs: 100 },
      });
      while (host.calls.length === 0) await Bun.sleep(5);
      // Ten times the budget plus grace of wall time without a core; then the host frees up.
      setTimeout(() => {
        process.kill(child, "SIGCONT");
        resumed();
      }, 2_000);
      const r = await run;
      await resumedAt;
      expect(value(r)).toEqual(["stalled", 499500]);
      expect(value(await own.run({ code: "return 'same child';", ...fakeHost({}) }))).toBe("same child");
      expect(sandboxChildren().filter((p) => !before.has(p))).toEqual([String(child)]);
    } finally {
      await own.close();
    }
  }, 30_000);
});
