/**
 * Runs `script` in a fresh `bun -e` process and returns the JSON its last stdout line prints: for
 * tests about what a process loads or does from a clean start (module cache, auto-install).
 * Fails with the exit code and stderr when the script does not exit 0.
 */
export async function jsonFromFreshProcess<T = unknown>(
  script: string,
  options: { readonly cwd: string; readonly env?: Record<string, string | undefined> },
): Promise<T> {
  const proc = Bun.spawn([process.execPath, "-e", script], {
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`the fresh process exited with ${code}:\n${err}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as T;
}
