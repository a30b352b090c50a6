/**
 * Plugin loading benchmarks (issue 3 targets):
 * - cold discovery + load + declarations of 200 standalone tools and 20 plugins (5 tools each), in a
 *   fresh `bun` subprocess per sample; target ≤ 1 s median. Baseline: the same for an empty project.
 * - reload: write to one tool file → new snapshot visible via registry.current() with watch(); target ≤ 300 ms.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmtMs, printTable } from "./lib.ts";
import { createToolRegistry } from "../packages/core/src/plugins/index.ts";

const LOADER = join(import.meta.dir, "../packages/core/src/plugins/index.ts");
const SAMPLES = 5;

function makeProject(tools: number, plugins: number): string {
  const root = join(
    tmpdir(),
    `oa-bench-plugins-${process.pid}-${tools}-${plugins}-${Math.random().toString(36).slice(2)}`,
  );
  mkdirSync(join(root, ".openassistant/tools"), { recursive: true });
  writeFileSync(join(root, "package.json"), "{}");
  for (let i = 0; i < tools; i++)
    writeFileSync(
      join(root, `.openassistant/tools/tool-${i}.ts`),
      `import { defineTool, z } from "@openassistant/sdk";
export default defineTool({
  description: "Benchmark tool ${i}",
  approval: "${i % 3 ? "auto" : "required"}",
  args: z.object({ q: z.string().describe("query"), limit: z.number().int().default(10), mode: z.enum(["a", "b"]).optional() }),
  run: async (input) => input,
});
`,
    );
  for (let p = 0; p < plugins; p++) {
    const dir = join(root, `.openassistant/plugins/plugin-${p}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: `plugin-${p}`, type: "module", openassistant: { entry: "./index.ts" } }),
    );
    writeFileSync(
      join(dir, "openassistant.json"),
      JSON.stringify({
        id: `plugin${p}`,
        configSchema: {
          type: "object",
          properties: { host: { type: "string", default: "x" } },
          additionalProperties: false,
        },
      }),
    );
    writeFileSync(
      join(dir, "index.ts"),
      `import { defineTool, z, type PluginContext } from "@openassistant/sdk";
export default (ctx: PluginContext) => ({
  items: {
${Array.from({ length: 5 }, (_, t) => `    t${t}: defineTool({ description: "plugin ${p} tool ${t}", approval: "auto", args: z.object({ id: z.string(), host: z.string().default(String(ctx.config.host)) }), run: async (i) => i }),`).join("\n")}
  },
});
`,
    );
  }
  return root;
}

async function coldSample(root: string): Promise<{ total: number; load: number; wall: number; tools: number }> {
  const script = `const t0 = performance.now();
const { loadTools } = await import(${JSON.stringify(LOADER)});
const t1 = performance.now();
const r = await loadTools({ cwd: ${JSON.stringify(root)}, env: { PATH: process.env.PATH, HOME: ${JSON.stringify(root)} }, homeDir: ${JSON.stringify(root)}, autoInstall: true, log: () => {} });
const t2 = performance.now();
if (!r.declarations || r.diagnostics.some((d) => d.level === "error")) { console.error(JSON.stringify(r.diagnostics.slice(0, 3))); process.exit(1); }
console.log(JSON.stringify({ total: t2 - t0, load: t2 - t1, tools: r.entries.reduce((n, e) => n + e.tools.length, 0) }));`;
  const w0 = performance.now();
  const proc = Bun.spawn([process.execPath, "-e", script], { cwd: root, stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error("cold sample failed");
  return { ...JSON.parse(out.trim().split("\n").at(-1)!), wall: performance.now() - w0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function cold(root: string, label: string) {
  await coldSample(root); // first run writes .openassistant/package.json etc.
  const samples = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await coldSample(root));
  return {
    label,
    tools: samples[0]!.tools,
    total: median(samples.map((s) => s.total)),
    load: median(samples.map((s) => s.load)),
    wall: median(samples.map((s) => s.wall)),
  };
}

const big = makeProject(200, 20);
const empty = makeProject(0, 0);
try {
  const base = await cold(empty, "empty project (baseline)");
  const full = await cold(big, "200 tools + 20 plugins");
  printTable(
    `Cold discovery + load + declarations (fresh subprocess, median of ${SAMPLES})`,
    [base, full].map((r) => ({
      case: r.label,
      tools: r.tools,
      "loader import + loadTools": fmtMs(r.total),
      "loadTools only": fmtMs(r.load),
      "process wall": fmtMs(r.wall),
      "vs baseline": `${(r.total / base.total).toFixed(2)}×`,
      "target ≤ 1 s": r.label.startsWith("200") ? (r.total <= 1000 ? "✓" : "✗") : "",
    })),
  );

  // Reload: edit one tool, wait for the watcher-driven snapshot.
  const reg = createToolRegistry({ cwd: big, env: { PATH: process.env.PATH, HOME: big }, homeDir: big, log: () => {} });
  await reg.ready;
  const stop = reg.watch({ debounceMs: 50 });
  await Bun.sleep(200);
  const reloads: number[] = [];
  for (let i = 0; i < 10; i++) {
    const before = reg.current().version;
    const marker = `edited ${i}`;
    const t0 = performance.now();
    writeFileSync(
      join(big, ".openassistant/tools/tool-7.ts"),
      `import { defineTool, z } from "@openassistant/sdk";
export default defineTool({ description: ${JSON.stringify(marker)}, approval: "auto", args: z.object({ q: z.string() }), run: async (i) => i });
`,
    );
    for (;;) {
      const s = reg.current();
      if (s.version > before && s.entries.find((e) => e.id === "tool_7")?.tools[0]?.description === marker) break;
      if (performance.now() - t0 > 5000) throw new Error("reload not observed within 5 s");
      await Bun.sleep(1);
    }
    reloads.push(performance.now() - t0);
    await Bun.sleep(100);
  }
  stop();
  const t0 = performance.now();
  await reg.reload();
  const explicit = performance.now() - t0;
  reloads.sort((a, b) => a - b);
  printTable("Reload of one edited tool (200 tools + 20 plugins, watch() with 50 ms debounce, 10 edits)", [
    {
      measure: "write → new snapshot via watch(), median",
      value: fmtMs(median(reloads)),
      "target ≤ 300 ms": median(reloads) <= 300 ? "✓" : "✗",
    },
    { measure: "write → new snapshot via watch(), max", value: fmtMs(reloads.at(-1)!), "target ≤ 300 ms": "" },
    { measure: "explicit reload(), nothing changed", value: fmtMs(explicit), "target ≤ 300 ms": "" },
  ]);
} finally {
  rmSync(big, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
}
