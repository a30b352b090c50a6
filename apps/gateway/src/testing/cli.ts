import { join } from "node:path";

export const MAIN = join(import.meta.dir, "..", "cli", "main.ts");

/** Runs the real `openassistant` CLI in a subprocess with a clean env. */
export async function cli(args: string[], opts: { cwd: string; env?: Record<string, string>; stdin?: string }) {
  const proc = Bun.spawn(["bun", MAIN, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, OPENASSISTANT_CONFIG_DIR: join(opts.cwd, "config"), NO_COLOR: "1", ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { stdout, stderr, code };
}
