/**
 * A/B of gateway start to ready: another checkout (argv[2]) against this one, spawns interleaved,
 * each checkout starting its own project directory again and again (a restart after the first two).
 * Uses each checkout's bench/gateway-ready.child.ts. Not part of `bun run bench`.
 * Modes: import, workspace (200 tool files), tree (200 tools passed in), github (GitHub's OpenAPI spec,
 * `@octokit/openapi`, configured as `openapi.github`: 1,223 operations; started through the child's
 * "workspace" mode, so the parse cache and the declaration cache are warm after the first two starts).
 * Usage: bun bench/ab/start.ts <other checkout> [modes = import,workspace,tree] [starts = 8]
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const other = process.argv[2];
if (!other) throw new Error("usage: bun bench/ab/start.ts <other checkout> [modes] [starts]");
const trees: Record<string, string> = { base: other, new: join(import.meta.dir, "..", "..") };
function writeWorkspace(dir: string): void {
  mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
  writeFileSync(join(dir, ".openassistant", "config.json"), JSON.stringify({ model: { name: "claude-sonnet-4-6" } }));
  for (let i = 0; i < 200; i++)
    writeFileSync(
      join(dir, ".openassistant", "tools", `tool${i}.ts`),
      `import { defineTool, z } from "@openassistant/sdk";
export default defineTool({ description: "Benchmark tool ${i}", approval: "${i % 5 === 0 ? "required" : "auto"}",
  args: z.object({ id: z.string().describe("the id"), count: z.number().int().optional(), tags: z.array(z.string()).default([]) }),
  run: async (input) => ({ ok: true, input }) });
`,
    );
}
const GITHUB_SPEC = Bun.resolveSync(
  "@octokit/openapi/generated/api.github.com.json",
  join(import.meta.dir, "../../packages/testkit/src"),
);
function writeGitHubProject(dir: string): void {
  mkdirSync(join(dir, ".openassistant"), { recursive: true });
  writeFileSync(
    join(dir, ".openassistant", "config.json"),
    JSON.stringify({
      model: { name: "claude-sonnet-4-6" },
      openapi: { github: { spec: GITHUB_SPEC, baseUrl: "http://127.0.0.1:9" } },
    }),
  );
}
const modes = (process.argv[3] ?? "import,workspace,tree").split(",");
const N = Number(process.argv[4] ?? 8);
const dirs: Record<string, string> = {};
for (const t of Object.keys(trees))
  for (const m of modes) {
    const d = mkdtempSync(join(tmpdir(), `oa-ab-start-${t}-${m}-`));
    if (m === "workspace") writeWorkspace(d);
    if (m === "github") writeGitHubProject(d);
    dirs[`${t}/${m}`] = d;
  }
const res: Record<string, { wall: number[]; warm: number[]; imp: number[]; load: number[]; cg: number[] }> = {};
for (let i = 0; i < N; i++)
  for (const m of modes)
    for (const [t, root] of Object.entries(trees)) {
      const t0 = performance.now();
      const childMode = m === "github" ? "workspace" : m;
      const proc = Bun.spawn(["bun", join(root, "bench/gateway-ready.child.ts"), dirs[`${t}/${m}`]!, childMode], {
        stdout: "pipe",
        stderr: "inherit",
      });
      const reader = proc.stdout.getReader();
      let text = "";
      let readyAt = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        if (!readyAt && text.includes("\n")) readyAt = performance.now();
      }
      await proc.exited;
      if (i < 2) continue;
      const [a, b] = text.split("\n");
      const l1 = JSON.parse(a!);
      const l2 = JSON.parse(b || "{}");
      const r = (res[`${m} ${t}`] ??= { wall: [], warm: [], imp: [], load: [], cg: [] });
      r.wall.push(readyAt - t0);
      r.warm.push(l2.checkerWarmMs ?? 0);
      r.imp.push(l1.importMs ?? l1.sinceProcessStartMs);
      r.load.push(l1.loadMs ?? 0);
      r.cg.push(l1.createGatewayMs);
    }
const med = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)]!;
};
for (const [k, r] of Object.entries(res))
  console.log(
    k.padEnd(20),
    "ready",
    med(r.wall).toFixed(0),
    "import",
    med(r.imp).toFixed(0),
    "config + tools",
    med(r.load).toFixed(0),
    "createGateway",
    med(r.cg).toFixed(0),
    "then checker warm",
    med(r.warm).toFixed(0),
    "| ready min–max",
    `${Math.min(...r.wall).toFixed(0)}–${Math.max(...r.wall).toFixed(0)}`,
  );
