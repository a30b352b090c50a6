/**
 * A/B of the gateway's overhead per turn (bench/gateway.bench.ts section 2): another checkout
 * (argv[2]) against this one, each with its own gateway, fake Anthropic server and checker, in one
 * process, turns interleaved (the order alternates each round) so the machine's load hits both alike.
 * Overhead = turn − the same two requests replayed straight through the SDK, right after.
 * Also the typecheck alone (each checkout's own warm checker, a new snippet each time), interleaved.
 * Not part of `bun run bench`. Usage: bun bench/ab/turn.ts <other checkout> [rounds = 20] [turns per round = 4]
 */
import { join } from "node:path";

const other = process.argv[2];
if (!other) throw new Error("usage: bun bench/ab/turn.ts <other checkout> [rounds] [turns per round]");
const trees: Record<string, string> = { base: other, new: join(import.meta.dir, "..", "..") };
const ROUNDS = Number(process.argv[3] ?? 20);
const PER_ROUND = Number(process.argv[4] ?? 4);
const SNIPPET = 'return await tools.notes.add({ text: "x" });';
const KEY = "sk-ant-api03-bench-000000000000";

interface Side {
  turn(i: number): Promise<{ turnMs: number; baselineMs: number; runMs: number }>;
  check(i: number): Promise<number>;
  close(): Promise<void>;
}

async function side(name: string, root: string): Promise<Side> {
  const { createGateway } = await import(`${root}/apps/gateway/src/gateway.ts`);
  const { buildSdkClient } = await import(`${root}/apps/gateway/src/model/sdk-client.ts`);
  const { defineTool, z } = await import(`${root}/packages/sdk/src/index.ts`);
  const fake = await import(`${root}/packages/testkit/src/anthropic/fake-server.ts`);
  const { makeTempDir } = await import(`${root}/packages/testkit/src/temp.ts`);
  const { createTypechecker } = await import(`${root}/packages/core/src/codemode/typecheck.ts`);
  const api = await fake.startFakeAnthropic();
  const dir = makeTempDir(`oa-ab-turn-${name}-`);
  const tools = {
    notes: {
      add: defineTool({
        description: "Add a note",
        approval: "auto",
        args: z.object({ text: z.string() }),
        run: async (i: { text: string }) => ({ id: 1, ...i }),
      }),
      list: defineTool({ description: "List notes", approval: "auto", args: z.object({}), run: async () => [] }),
    },
  };
  const gateway = await createGateway({
    cwd: dir,
    env: { ANTHROPIC_API_KEY: KEY },
    tools,
    configDir: join(dir, "config"),
    settings: { anthropic: { baseURL: api.url } },
  });
  await gateway.warm;
  const sdk = await buildSdkClient(
    { profileId: "bench", source: "env", type: "api_key", secret: KEY },
    { baseURL: api.url },
  );
  // Set up as the gateway's own (this branch: a JIT warm-up in idle time; the base ignores the option).
  const checker = createTypechecker({ practiceChecks: 500 });
  await checker.warmUp();
  const declarations = gateway.tools().declarations.text;
  return {
    async turn(i) {
      api.script([
        fake.toolUseTurn({ id: "toolu_b", name: "execute", input: { code: SNIPPET } }),
        fake.textTurn("Added the note."),
      ]);
      const before = api.messageRequests().length;
      let runStart = 0;
      let runMs = 0;
      const onEvent = (e: { type: string }) => {
        if (e.type === "run.started") runStart = performance.now();
        if (e.type === "run.finished") runMs += performance.now() - runStart;
      };
      const t0 = performance.now();
      await gateway.handleMessage({ sessionKey: `ab-${i}`, surface: "bench", text: "add a note", onEvent });
      const turnMs = performance.now() - t0;
      const bodies = api
        .messageRequests()
        .slice(before)
        .map((r: { body: Record<string, unknown> }) => r.body);
      api.script([
        fake.toolUseTurn({ id: "toolu_b", name: "execute", input: { code: "return 1" } }),
        fake.textTurn("ok"),
      ]);
      const b0 = performance.now();
      for (const body of bodies) {
        const { stream: _s, ...params } = body;
        await sdk.messages.stream(params).finalMessage();
      }
      return { turnMs, baselineMs: performance.now() - b0, runMs };
    },
    async check(i) {
      const t0 = performance.now();
      const r = await checker.check(`${SNIPPET}\n// ${i}`, declarations);
      if (!r.ok) throw new Error(r.text);
      return performance.now() - t0;
    },
    async close() {
      await checker.close();
      await gateway.shutdown();
      await api.close();
    },
  };
}

const sides: Record<string, Side> = {};
for (const [name, root] of Object.entries(trees)) sides[name] = await side(name, root);
// This branch's checker warms its JIT up in idle time once it is warm (typecheck-child.ts): let it.
await Bun.sleep(3_000);
const res: Record<string, number[]> = {};
const push = (k: string, v: number) => (res[k] ??= []).push(v);
let n = 0;
for (let round = 0; round < ROUNDS + 1; round++) {
  for (const name of round % 2 ? ["base", "new"] : ["new", "base"]) {
    for (let i = 0; i < PER_ROUND; i++) {
      const t = await sides[name]!.turn(n++);
      if (round === 0) continue; // warm-up round
      push(`${name} turn`, t.turnMs);
      push(`${name} baseline (SDK)`, t.baselineMs);
      push(`${name} overhead`, t.turnMs - t.baselineMs);
      push(`${name} of which run`, t.runMs);
    }
    for (let i = 0; i < PER_ROUND; i++) {
      const ms = await sides[name]!.check(n++);
      if (round > 0) push(`${name} typecheck alone`, ms);
    }
  }
}
const q = (a: number[], p: number) => [...a].sort((x, y) => x - y)[Math.floor(a.length * p)]!;
const load = (await Bun.file("/proc/loadavg").text()).trim();
console.log(`${ROUNDS} rounds × ${PER_ROUND} turns per side; load average at end: ${load}`);
for (const k of Object.keys(res).sort((a, b) =>
  a.split(" ").slice(1).join().localeCompare(b.split(" ").slice(1).join()),
))
  console.log(
    k.padEnd(28),
    "p25",
    q(res[k]!, 0.25).toFixed(2),
    "median",
    q(res[k]!, 0.5).toFixed(2),
    "p75",
    q(res[k]!, 0.75).toFixed(2),
    "ms",
  );
for (const what of ["overhead", "typecheck alone", "of which run"])
  console.log(`new/base ${what}: ${(q(res[`new ${what}`]!, 0.5) / q(res[`base ${what}`]!, 0.5)).toFixed(2)}×`);
for (const s of Object.values(sides)) await s.close();
