import { describe, expect, test } from "bun:test";
import { createDeadlines } from "./call-deadlines.ts";

const here = new URL("./call-deadlines.ts", import.meta.url).pathname;

/** Runs `body` in a fresh Bun process with `createDeadlines` in scope; its stdout and how long it lived. */
async function inChild(body: string): Promise<{ out: string; ms: number; code: number }> {
  const script = `import { createDeadlines } from ${JSON.stringify(here)};\n${body}`;
  const t0 = performance.now();
  const proc = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  const code = await proc.exited;
  return { out: out.trim(), ms: performance.now() - t0, code };
}

describe("call deadlines on one shared timer", () => {
  test("each fires once its own time has passed, never before, in deadline order", async () => {
    const d = createDeadlines();
    const t0 = performance.now();
    const fired: Array<[string, number]> = [];
    d.add(60, () => fired.push(["b", performance.now() - t0]));
    d.add(20, () => fired.push(["a", performance.now() - t0]));
    d.add(100, () => fired.push(["c", performance.now() - t0]));
    expect(d.size).toBe(3);
    await Bun.sleep(160);
    expect(fired.map(([name]) => name)).toEqual(["a", "b", "c"]);
    for (const [name, at] of fired) expect(at).toBeGreaterThanOrEqual({ a: 20, b: 60, c: 100 }[name]! - 1);
    expect(d.size).toBe(0);
  });

  test("a removed deadline never fires; an infinite one is not added", async () => {
    const d = createDeadlines();
    const fired: string[] = [];
    const gone = d.add(10, () => fired.push("gone"));
    d.add(30, () => fired.push("kept"));
    d.remove(gone);
    expect(d.add(Number.POSITIVE_INFINITY, () => fired.push("never"))).toBeUndefined();
    await Bun.sleep(60);
    expect(fired).toEqual(["kept"]);
  });

  test("a deadline added after a later one is armed for its own time", async () => {
    const d = createDeadlines();
    const fired: string[] = [];
    d.add(10_000, () => fired.push("late"));
    d.add(10, () => fired.push("soon"));
    await Bun.sleep(50);
    expect(fired).toEqual(["soon"]);
  });

  test("the timer keeps the process alive only while a deadline waits on it", async () => {
    // A deadline added and removed: the armed timer must not hold the process for its 60 s.
    const idle = await inChild(`const d = createDeadlines(); d.remove(d.add(60_000, () => {})); console.log("done");`);
    expect(idle).toMatchObject({ out: "done", code: 0 });
    expect(idle.ms).toBeLessThan(20_000);
    // A deadline waiting (nothing else running): the process stays until it fires.
    const waiting = await inChild(`createDeadlines().add(150, () => console.log("fired"));`);
    expect(waiting).toMatchObject({ out: "fired", code: 0 });
  });

  test("one deadline throwing does not keep the others from firing; its error surfaces", async () => {
    const r = await inChild(`
      process.on("uncaughtException", (e) => console.log("uncaught:" + e.message));
      const d = createDeadlines();
      d.add(20, () => { throw new Error("boom"); });
      d.add(20, () => console.log("second fired"));`);
    expect(r.out.split("\n").sort()).toEqual(["second fired", "uncaught:boom"]);
  });
});
