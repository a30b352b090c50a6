/** Runs every `bench/*.bench.ts` in its own process and prints their markdown tables. */
import { Glob } from "bun";
import { cpus } from "node:os";

const root = new URL("..", import.meta.url).pathname;
const only = process.argv.slice(2);
const files = [...new Glob("bench/*.bench.ts").scanSync({ cwd: root })]
  .sort()
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
console.log(
  `# bench run ${new Date().toISOString()} — ${cpus()[0]?.model ?? "cpu"} ×${cpus().length}, Bun ${Bun.version}`,
);
let failed = 0;
for (const file of files) {
  const proc = Bun.spawnSync(["bun", file], { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (proc.exitCode !== 0) {
    failed++;
    console.error(`bench ${file} exited ${proc.exitCode}`);
  }
}
process.exit(failed ? 1 : 0);
